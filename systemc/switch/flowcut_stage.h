// Flowcut in the switch (flowcut.form = ingress or switch; docs/datasheets/load_balancer.md,
// Flowcut): the load balancer's stage that gives each tracked data packet its path. The
// flowcut_table decides per packet: forward on its Flowcut's port (a new Flowcut takes the
// least-loaded next hop of the group, ties by the flow hash), bypass the table (ECMP), or hold
// while the flow drains or the table is full. This stage keeps the held packets in a queue per
// flow, in arrival order, and hands them back to the switch's ingress, oldest first, when an ACK
// lets their flow go on (the table's caller contract, docs/datasheets/flowcut.md).
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <unordered_map>
#include <vector>

#include "blocks/flowcut_table.h"
#include "protocol/packet.h"
#include "switch/route_table.h"

namespace netasic {

class flowcut_stage {
 public:
  using port_bytes_fn = std::function<uint64_t(unsigned port)>;          // bytes queued for a port
  using resubmit_fn = std::function<void(packet& p, uint64_t now_ps)>;   // back into the ingress

  // host_port[p]: port p faces a host (flows enter the network there).
  flowcut_stage(const flowcut_config& cfg, const std::vector<bool>& host_port, const route_table& routes,
                port_bytes_fn port_bytes, resubmit_fn resubmit);

  // A data packet of the group of members [base, base + size): true with its out port, or false
  // when the stage holds it.
  bool data(packet& p, uint32_t hash, uint32_t base, uint32_t size, uint64_t now_ps, unsigned& out);
  // An ACK or NAK carrying the Flowcut header, leaving on `out`: the table counts it, it may go
  // back the data's way (full switch), and the flows it lets go on are handed back.
  void ack(const packet& p, uint64_t now_ps, unsigned& out);

  const flowcut_table& table() const { return table_; }
  uint64_t packets_held() const { return packets_held_; }         // hold events
  uint64_t held_peak_bytes() const { return held_peak_bytes_; }   // the most bytes held at once

 private:
  bool host_facing(unsigned port) const { return port < host_port_.size() && host_port_[port]; }
  void hold(packet& p);   // behind the flow's other held packets
  void release(uint64_t flow, uint64_t now_ps);

  flowcut_table table_;
  std::vector<bool> host_port_;
  const route_table& routes_;
  port_bytes_fn port_bytes_;
  resubmit_fn resubmit_;
  std::unordered_map<uint64_t, std::deque<packet*>> held_;   // per flow, in arrival order
  std::vector<uint64_t> full_;                               // flows held for a free table entry
  uint64_t held_bytes_ = 0, packets_held_ = 0, held_peak_bytes_ = 0;
};

}  // namespace netasic
