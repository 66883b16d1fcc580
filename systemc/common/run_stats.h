// Run-wide packet accounting: every packet a host creates (data, ACK, NAK) is counted as sent,
// and ends up delivered to a host, dropped with a reason, or still in flight: alive in the pool,
// whether in a NIC queue, a switch queue or on a link.
#pragma once
#include <cstdint>

#include "tlm/packet.h"

namespace netasic {

struct drop_counters {
  uint64_t buffer_full = 0;   // shared buffer had no room
  uint64_t queue_limit = 0;   // the egress queue's static limit was reached
  uint64_t no_route = 0;      // no route entry for the destination
  uint64_t link_down = 0;     // sent on a failed link
  uint64_t total() const { return buffer_full + queue_limit + no_route + link_down; }
};

struct run_stats {
  packet_pool pool;
  uint64_t sent = 0, delivered = 0, hops = 0;
  drop_counters dropped;
  void drop(packet& p, uint64_t drop_counters::*reason) {
    ++(dropped.*reason);
    pool.release(&p);
  }
};

}  // namespace netasic
