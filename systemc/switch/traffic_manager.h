// Traffic manager of the switch (core, no SystemC): the shared packet buffer, eight priority
// queues per egress port, admission, ECN marking, PFC accounting and the egress scheduler.
//
// - Buffer. `buffer_bytes` minus the PFC headroom (reserved per ingress port and lossless
//   priority) is the shared pool. Cells are taken at enqueue and freed at dequeue, when the frame
//   leaves for the egress pipeline.
// - Lossy priorities: a frame is admitted while its queue stays under the dynamic threshold
//   alpha * (shared pool - shared used) (Choudhury & Hahne), the pool has room, and the optional
//   static queue limit holds.
// - Lossless priorities (PFC): a frame is charged to its ingress port's shared count while that
//   stays under the XOFF threshold (static bytes, or a fraction of the free pool as in HPCC's
//   setup), else to the port's headroom; when the headroom is full too it is dropped and counted
//   as `headroom`. XOFF is due once the ingress count reaches the threshold or headroom is in use;
//   XON once the headroom is empty and the count is `xon_offset` below the threshold.
// - ECN. At dequeue, an ECN-capable frame is marked CE with the RED probability of its queue's
//   depth (the frame included): 0 up to kmin, pmax*(q-kmin)/(kmax-kmin) up to kmax, 1 above
//   (kmin == kmax is DCTCP's step). Marking at dequeue, as HPCC's simulator does, gives the
//   sender the freshest signal.
// - Scheduler. Priorities flagged strict are served first, highest number first; the others
//   share what is left by deficit-weighted round robin with a quantum in bytes per priority.
//   Paused priorities are skipped.
// - DETER replay (`deter_drop_rule`, thesis ch. 6 §6.3.4): on lossy priorities a frame the record
//   saw dropped (packet::deter_tag) is dropped only once its queue would pass its limit less
//   `deter_margin_bytes` (5 MTU); an untagged frame is always admitted, past the buffer if need be.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "common/rng.h"
#include "protocol/packet.h"

namespace netasic {

constexpr unsigned num_priorities = 8;

struct ecn_profile {
  bool enabled = false;
  uint64_t kmin_bytes = 0, kmax_bytes = 0;
  double pmax = 1.0;
  // RED marking probability at queue depth q.
  double probability(uint64_t q) const {
    if (!enabled || q <= kmin_bytes) return 0.0;
    if (q > kmax_bytes || kmax_bytes == kmin_bytes) return 1.0;
    return pmax * double(q - kmin_bytes) / double(kmax_bytes - kmin_bytes);
  }
};

struct tm_config {
  uint64_t buffer_bytes = 16 << 20;
  uint64_t queue_limit_bytes = 0;                   // static per queue; 0 = none
  std::array<double, num_priorities> alpha{1, 1, 1, 1, 1, 1, 1, 1};   // dynamic threshold per priority; 0 = none
  std::array<ecn_profile, num_priorities> ecn{};    // per priority (WRED profile)
  uint8_t lossless = 0;                             // PFC priorities, bit per priority
  uint64_t xoff_bytes = 0;                          // static XOFF threshold; 0 = dynamic
  double xoff_fraction = 0.11;                      // dynamic: fraction of the free shared pool
  uint64_t xon_offset_bytes = 2048;
  std::vector<uint64_t> headroom_bytes;             // per ingress port, for each lossless priority
  uint8_t strict = 0x80;                            // strict-priority priorities, bit per priority
  std::array<uint32_t, num_priorities> quantum{2048, 2048, 2048, 2048, 2048, 2048, 2048, 2048};   // DWRR, bytes; > 0
  uint64_t seed = 1;                                // ECN marking draws
  bool deter_drop_rule = false;                     // DETER replay's drop rule (lossy priorities)
  uint64_t deter_margin_bytes = 0;                  // its margin below the queue's limit: 5 MTU
};

enum class tm_verdict : uint8_t { admitted, buffer_full, dynamic_threshold, queue_limit, headroom };

class traffic_manager {
 public:
  traffic_manager(const tm_config& cfg, unsigned ports);

  // Admits `p` (priority p.prio, from p.in_port) to egress port `out`, or says why not.
  tm_verdict enqueue(packet& p, unsigned out);
  // A frame held outside the egress queues (Flowcut's held packets) takes buffer as if queued:
  // the same admission for its priority (lossless: its ingress port's shared count, then the
  // headroom; lossy: the shared pool), so holds can trigger PFC; unhold gives it back. No port's
  // queue or dynamic threshold sees it.
  tm_verdict hold(const packet& p);
  void unhold(const packet& p);
  uint64_t held_bytes() const { return held_; }

  // The next frame for `out` by the scheduler, skipping priorities in `paused`; null when none
  // is eligible. Marks ECN on it.
  packet* dequeue(unsigned out, uint8_t paused);
  // The PFC watchdog's drop action: the head frame of (out, prio), paused or not, without ECN
  // marking; null when the queue is empty. The caller drops it.
  packet* take(unsigned out, unsigned prio);
  // Whether (out, prio) holds a frame that came in on `in_port` (the deadlock detector's wait
  // edge; walks the queue, so for coarse checks only).
  bool holds_from(unsigned out, unsigned prio, unsigned in_port) const;

  // PFC: whether the ingress (port, priority) should now send XOFF / XON. Each returns true
  // once per transition and records the new state.
  bool xoff_due(unsigned in_port, unsigned prio);
  bool xon_due(unsigned in_port, unsigned prio);
  bool xoff_active(unsigned in_port, unsigned prio) const { return lossless(prio) && ingress(in_port, prio).xoff; }

  // Priorities with frames waiting at `out`, bit per priority.
  uint8_t backlogged(unsigned out) const { return port_[out].nonempty; }
  uint64_t queue_bytes(unsigned out, unsigned prio) const { return port_[out].q[prio].bytes; }
  uint64_t port_bytes(unsigned out) const;
  uint64_t shared_pool() const { return pool_; }
  uint64_t shared_used() const { return shared_used_; }
  uint64_t headroom_used() const { return headroom_used_; }
  uint64_t used() const { return shared_used_ + headroom_used_; }
  uint64_t xoff_threshold() const;
  uint64_t ecn_marked() const { return ecn_marked_; }
  uint64_t ecn_marked(unsigned out) const { return port_[out].marked; }
  uint64_t peak_bytes(unsigned out) const { return port_[out].peak; }
  const tm_config& config() const { return cfg_; }

 private:
  struct fifo {
    packet *head = nullptr, *tail = nullptr;
    uint64_t bytes = 0;
  };
  struct port_queues {
    std::array<fifo, num_priorities> q;
    std::array<int64_t, num_priorities> deficit{};
    uint8_t nonempty = 0;
    unsigned rr = 0;           // DWRR: the priority whose turn it is
    bool credited = false;     // its quantum was added for this turn
    uint64_t total = 0, peak = 0, marked = 0;
  };
  struct ingress_count {
    uint64_t shared = 0, headroom = 0;
    bool xoff = false;
  };
  bool lossless(unsigned prio) const { return cfg_.lossless >> prio & 1; }
  // The counts of a lossless priority (only those are kept).
  ingress_count& ingress(unsigned port, unsigned prio) { return ingress_[port * lossless_count_ + lossless_rank_[prio]]; }
  const ingress_count& ingress(unsigned port, unsigned prio) const {
    return ingress_[port * lossless_count_ + lossless_rank_[prio]];
  }
  packet* pop(port_queues& pq, unsigned prio, bool mark = true);
  tm_verdict charge_lossless(const packet& p, uint32_t bytes);
  tm_verdict deter_admit(const packet& p, const fifo& q, uint32_t bytes) const;
  void refund(const packet& p, uint32_t bytes);
  unsigned pick_dwrr(port_queues& pq, uint8_t eligible);

  tm_config cfg_;
  uint64_t pool_ = 0;   // shared pool: buffer minus all headroom
  uint64_t shared_used_ = 0, headroom_used_ = 0, ecn_marked_ = 0, held_ = 0;
  std::vector<port_queues> port_;
  // Per ingress port and lossless priority: lossy priorities are never charged to their ingress
  // port, and one lossless priority of eight is the usual case (at k = 32, 8 MiB of counts that
  // never moved). A lossless priority's place among them is its rank.
  unsigned lossless_count_ = 0;
  std::array<uint8_t, num_priorities> lossless_rank_{};
  std::vector<ingress_count> ingress_;
  lazy_rng rng_;   // ECN draws: most switches never make one
};

}  // namespace netasic
