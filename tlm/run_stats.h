// Run-wide packet accounting: every packet a host creates (data, ACK, NAK) is counted as sent,
// and ends up delivered to a host, dropped with a reason, or still in flight: alive in the pool,
// whether in a NIC queue, a switch queue or on a link.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <utility>

#include "protocol/packet.h"
#include "tlm/drop_log.h"

namespace netasic {

struct drop_counters {
  uint64_t buffer_full = 0;   // shared buffer had no room
  uint64_t queue_limit = 0;   // the egress queue's static limit was reached
  uint64_t no_route = 0;      // no route entry for the destination
  uint64_t link_down = 0;     // sent on a failed link
  uint64_t dynamic_threshold = 0;   // the egress queue was over its dynamic threshold
  uint64_t headroom = 0;      // lossless priority: XOFF sent, and the PFC headroom was full too
  uint64_t pipe_overrun = 0;  // more frames at a pipe's parser than its FIFO holds
  uint64_t flowcut_hold_full = 0;   // Flowcut's hold memory was full and the flow had no drain to end
  uint64_t link_fault = 0;    // lost on a link with an injected random drop rate (faults.link_drop)
  uint64_t black_hole = 0;    // dropped by a switch's injected destination black hole (faults.black_hole)
  uint64_t pfc_watchdog = 0;  // the PFC watchdog (drop action) emptied a queue paused too long
  uint64_t ttl_expired = 0;   // IP TTL reached 0 in a switch (RFC 1812): a routing loop (faults.misroute)
  uint64_t total() const {
    return buffer_full + queue_limit + no_route + link_down + dynamic_threshold + headroom + pipe_overrun + flowcut_hold_full +
           link_fault + black_hole + pfc_watchdog + ttl_expired;
  }
};

// The field's name, as summary.json's "drops" and the drop log write it.
inline const char* drop_reason_name(uint64_t drop_counters::*r) {
  static const std::pair<uint64_t drop_counters::*, const char*> names[] = {
      {&drop_counters::buffer_full, "buffer_full"}, {&drop_counters::queue_limit, "queue_limit"},
      {&drop_counters::no_route, "no_route"}, {&drop_counters::link_down, "link_down"},
      {&drop_counters::dynamic_threshold, "dynamic_threshold"}, {&drop_counters::headroom, "headroom"},
      {&drop_counters::pipe_overrun, "pipe_overrun"}, {&drop_counters::flowcut_hold_full, "flowcut_hold_full"},
      {&drop_counters::link_fault, "link_fault"}, {&drop_counters::black_hole, "black_hole"},
      {&drop_counters::pfc_watchdog, "pfc_watchdog"}, {&drop_counters::ttl_expired, "ttl_expired"}};
  for (const auto& [m, n] : names)
    if (m == r) return n;
  return "unknown";
}

// Frames the switches make themselves (PFC frames, mirrored copies, clock sync-messages) are not
// traffic: they are counted apart and kept out of the accounting.
inline bool is_internal(const packet& p) {
  return p.kind == pkt_kind::pause || p.kind == pkt_kind::mirror || p.kind == pkt_kind::sync;
}

struct run_stats {
  packet_pool pool;
  uint64_t sent = 0, delivered = 0, hops = 0;
  uint64_t internal_live = 0;   // PFC frames and mirrored copies alive in the pool
  drop_counters dropped;
  // The same drops by the packet's traffic-manager priority: link_down ones and all others
  // (summary.json's drops_by_priority, with faults.link_flap: a lossless priority drops only
  // on a link that is down).
  std::array<uint64_t, 8> link_down_by_priority{}, other_by_priority{};
  drop_log* log = nullptr;      // every traffic drop with its place (LossRadar's ground truth); null: off
  packet* alloc_internal() {
    ++internal_live;
    return pool.alloc();
  }
  // Called when the last PFC frame or mirrored copy is gone (set once the traffic is done).
  std::function<void()> on_internal_drained;
  // Frees a frame that ends here (drops count only traffic).
  void release(packet& p) {
    if (is_internal(p) && --internal_live == 0 && on_internal_drained) on_internal_drained();
    pool.release(&p);
  }
  void drop(packet& p, uint64_t drop_counters::*reason) {
    if (!is_internal(p)) {
      ++(dropped.*reason);
      ++(reason == &drop_counters::link_down ? link_down_by_priority : other_by_priority)[p.prio & 7u];
    }
    release(p);
  }
  uint64_t in_flight() const { return pool.live() - internal_live; }
};

}  // namespace netasic
