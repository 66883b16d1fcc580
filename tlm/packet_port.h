// The packet protocol: how a frame moves from a transmitter's port into a link, and from the
// link to the receiver's port. One interface family, in plain C++ calls bound once while the
// fabric is built, not TLM sockets: a fabric has tens of thousands of ports, and each socket is
// a SystemC object with a name and registry entries (about 1 KiB) while a port here is a pointer.
// The calls are what TLM's loosely-timed transport would make: a frame and a time, no phases, no
// wait(). docs/packet-protocol.md says more.
#pragma once
#include <cstdint>
#include <stdexcept>

#include "protocol/packet.h"

namespace netasic {

// Forward path: a link direction implements it. `when` is absolute simulated time in ps, when
// the transmitter starts the frame; the call returns when the transmitter may start its next
// frame (serialization, preamble and inter-frame gap counted). Nothing flows back on the data
// path: PFC pauses are real frames on the reverse direction.
class pkt_fw_transport_if {
 public:
  virtual ~pkt_fw_transport_if() = default;
  virtual uint64_t pkt_transport(packet& p, uint64_t when_ps) = 0;
};

// A device that receives frames: a link calls it when the frame's last bit has arrived (`now_ps`,
// the current time), on the device's port `port`.
class pkt_receiver {
 public:
  virtual ~pkt_receiver() = default;
  virtual void pkt_receive(unsigned port, packet& p, uint64_t now_ps) = 0;
};

// A transmitter's port: the link direction it sends into, bound once. A port may stay unbound
// (a switch port without a cable).
class pkt_tx_port {
 public:
  void bind(pkt_fw_transport_if& link) {
    if (link_) throw std::logic_error("a packet tx port is bound to one link only");
    link_ = &link;
  }
  bool bound() const { return link_ != nullptr; }
  uint64_t send(packet& p, uint64_t when_ps) { return link_->pkt_transport(p, when_ps); }

 private:
  pkt_fw_transport_if* link_ = nullptr;
};

// A receiver's port, as a link holds it: the device and which of its ports the frames arrive on.
struct pkt_rx_port {
  pkt_receiver* owner = nullptr;
  unsigned port = 0;
  void receive(packet& p, uint64_t now_ps) const { owner->pkt_receive(port, p, now_ps); }
};

}  // namespace netasic
