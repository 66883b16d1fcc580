// Flowcut in the switch (flowcut.form = ingress or switch; docs/datasheets/load_balancer.md,
// Flowcut): the load balancer's stage that gives each tracked data packet its path. The
// flowcut_table decides per packet: forward on its Flowcut's port (a new Flowcut takes the
// least-loaded next hop of the group, ties by the flow hash), bypass the table (ECMP), or hold
// while the flow drains or the table is full. This stage keeps the held packets in a queue per
// flow, in arrival order, and hands them back to the switch's ingress, oldest first, when an ACK
// lets their flow go on (the table's caller contract, docs/datasheets/flowcut.md).
//
// Held packets stay in the switch's shared buffer (buffer_hooks: the traffic manager charges them
// like queued frames, so they can trigger PFC). The hold memory is bounded by hold_bytes; a packet
// that does not fit ends its flow's drain early, the flow going on on its old path in order (the
// paper's "resume early", §IV-A), or, when its flow is not draining (held for a table entry or at
// the in-flight limit), is dropped (flowcut_hold_full). With source_pause, the ingress switch
// pauses the source while one of its flows drains (§II-B: FGFC XOFF, or PFC where the NIC has no
// FGFC; the NIC here has PFC only, so the whole data priority of that host's port is paused).
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
  // The switch's side of holding. All optional: without them held packets take no buffer.
  struct buffer_hooks {
    std::function<bool(packet& p, uint64_t now_ps)> hold;   // charge the buffer; false: refused and dropped
    std::function<void(const packet& p)> unhold;            // give the buffer back
    std::function<void(packet& p)> drop_full;               // drop: the hold memory is full
    std::function<void(unsigned port, bool pause, uint64_t now_ps)> source_pause;   // XOFF / XON a host port
  };

  // host_port[p]: port p faces a host (flows enter the network there).
  flowcut_stage(const flowcut_config& cfg, const std::vector<bool>& host_port, const route_table& routes,
                port_bytes_fn port_bytes, resubmit_fn resubmit, buffer_hooks buffer = {});

  // A data packet of the group of members [base, base + size): true with its out port, or false
  // when the stage holds (or drops) it.
  bool data(packet& p, uint32_t hash, uint32_t base, uint32_t size, uint64_t now_ps, unsigned& out);
  // An ACK or NAK carrying the Flowcut header, leaving on `out`: the table counts it, it may go
  // back the data's way (full switch), and the flows it lets go on are handed back.
  void ack(const packet& p, uint64_t now_ps, unsigned& out);

  const flowcut_table& table() const { return table_; }
  uint64_t packets_held() const { return packets_held_; }         // hold events
  uint64_t held_bytes() const { return held_bytes_; }             // frame bytes held now
  uint64_t held_peak_bytes() const { return held_peak_bytes_; }   // the most bytes held at once
  uint64_t hold_full() const { return hold_full_; }               // packets that found the hold memory full
  uint64_t hold_full_resumes() const { return hold_full_resumes_; }   // ... whose flow's drain ended early
  uint64_t source_pauses() const { return source_pauses_; }       // XOFFs asked for a draining flow

 private:
  bool host_facing(unsigned port) const { return port < host_port_.size() && host_port_[port]; }
  // Holds p behind its flow's other held packets; false when it is not held after all: its flow
  // was let go (out set) or it was dropped (full = true).
  bool hold(packet& p, uint32_t hash, uint32_t base, uint32_t size, uint64_t now, unsigned& out);
  void release(uint64_t flow, uint64_t now_ps);
  void end_source_pause(uint64_t flow, uint64_t now_ps);

  flowcut_table table_;
  std::vector<bool> host_port_;
  const route_table& routes_;
  port_bytes_fn port_bytes_;
  resubmit_fn resubmit_;
  buffer_hooks buffer_;
  std::unordered_map<uint64_t, std::deque<packet*>> held_;   // per flow, in arrival order
  std::vector<uint64_t> full_;                               // flows held for a free table entry
  std::unordered_map<uint64_t, unsigned> paused_by_;         // draining flow -> the host port it paused
  std::vector<uint32_t> pausing_;                            // per port: draining flows pausing it
  uint64_t held_bytes_ = 0, packets_held_ = 0, held_peak_bytes_ = 0;
  uint64_t hold_full_ = 0, hold_full_resumes_ = 0, source_pauses_ = 0;
};

}  // namespace netasic
