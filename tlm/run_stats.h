// Run-wide packet accounting: every packet a host creates (data, ACK, NAK) is counted as sent,
// and ends up delivered to a host, dropped with a reason, or still in flight: alive in the pool,
// whether in a NIC queue, a switch queue or on a link.
#pragma once
#include <cstdint>
#include <functional>

#include "protocol/packet.h"

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
  uint64_t total() const {
    return buffer_full + queue_limit + no_route + link_down + dynamic_threshold + headroom + pipe_overrun + flowcut_hold_full;
  }
};

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
    if (!is_internal(p)) ++(dropped.*reason);
    release(p);
  }
  uint64_t in_flight() const { return pool.live() - internal_live; }
};

}  // namespace netasic
