// The packet protocol: one socket family over TLM-2.0 base sockets, as vcml does for Ethernet.
// A transmitter's `tx` initiator socket binds to a link end; the link's far end calls the
// receiver's `rx` target socket when the frame's last bit has arrived.
#pragma once
#include <systemc>
#include <tlm>

#include "protocol/packet.h"
#include "tlm/sim_time.h"

namespace netasic {

struct pkt_protocol_types {};

// Forward path. `when` is absolute simulated time in ps:
//  - into a link: when the transmitter starts the frame; the call returns when the transmitter
//    may start its next frame (serialization, preamble and inter-frame gap counted);
//  - out of a link: the arrival time of the last bit (always the current time).
class pkt_fw_transport_if : public virtual sc_core::sc_interface {
 public:
  using protocol_types = pkt_protocol_types;
  virtual uint64_t pkt_transport(packet& p, uint64_t when_ps) = 0;
};

// Backward path: nothing flows back on the data path (PFC pauses are real frames on the reverse
// channel), but TLM sockets are bidirectional, so the interface exists. Sockets may stay
// unbound: a switch port without a cable.
class pkt_bw_transport_if : public virtual sc_core::sc_interface {
 public:
  using protocol_types = pkt_protocol_types;
};

using pkt_base_initiator_socket =
    tlm::tlm_base_initiator_socket<1, pkt_fw_transport_if, pkt_bw_transport_if, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;
using pkt_base_target_socket =
    tlm::tlm_base_target_socket<1, pkt_fw_transport_if, pkt_bw_transport_if, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;

class pkt_initiator_socket : public pkt_base_initiator_socket, private pkt_bw_transport_if {
 public:
  explicit pkt_initiator_socket(const char* name) : pkt_base_initiator_socket(name) {
    pkt_base_initiator_socket::bind(static_cast<pkt_bw_transport_if&>(*this));
  }
  uint64_t send(packet& p, uint64_t when_ps) { return (*this)->pkt_transport(p, when_ps); }
};

// Whoever owns target sockets receives on them; `port` tells which one.
class pkt_receiver {
 public:
  virtual ~pkt_receiver() = default;
  virtual void pkt_receive(unsigned port, packet& p, uint64_t now_ps) = 0;
};

class pkt_target_socket : public pkt_base_target_socket, private pkt_fw_transport_if {
 public:
  pkt_target_socket(const char* name, pkt_receiver& owner, unsigned port)
      : pkt_base_target_socket(name), owner_(owner), port_(port) {
    pkt_base_target_socket::bind(static_cast<pkt_fw_transport_if&>(*this));
  }

 private:
  uint64_t pkt_transport(packet& p, uint64_t when_ps) override {
    owner_.pkt_receive(port_, p, when_ps);
    return when_ps;
  }
  pkt_receiver& owner_;
  unsigned port_;
};

}  // namespace netasic
