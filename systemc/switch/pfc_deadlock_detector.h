// PFC deadlock detector (core, no SystemC): finds cycles of paused egress queues that make no
// progress. A queue A (switch X, port p, lossless priority c) waits on a queue B (switch Y, port r,
// priority c) when Y's PAUSE stopped A (Y's ingress port from X is in XOFF) and B holds frames that
// came in on that port: A cannot send until B drains. A cycle of such waits, every queue on it
// paused and without a dequeue for `detect_ps`, is a PFC deadlock (Zhao et al., NSDI'23, §2.3 and
// §6.2: the CBD {[e1,e2],[e2,e3],[e3,e4],[e4,e1]} of the 4-switch ring, once its links congest).
// The model builds the graph at a coarse interval (fabric/pfc_deadlock_monitor.*), not per packet.
#pragma once
#include <cstdint>
#include <vector>

namespace netasic {

// One egress queue of a lossless priority, paused by its link partner.
struct paused_queue {
  uint64_t paused_since_ps = 0;   // when the PAUSE that began its current pause took effect
  uint64_t last_dequeue_ps = 0;   // when its last frame left (0: never)
  std::vector<unsigned> waits_on; // indices of the queues that hold the frames its pause waits for
};

// Cycles of the wait-for graph, each as node indices in wait order (q0 waits on q1, ..., the last
// on q0). Depth-first from each node in index order, taking edges in the order given; a cycle
// that shares a queue with one already found is not reported again, so a queue is in at most one
// cycle and the result depends only on the graph.
std::vector<std::vector<unsigned>> find_wait_cycles(const std::vector<std::vector<unsigned>>& waits_on);

class pfc_deadlock_detector {
 public:
  explicit pfc_deadlock_detector(uint64_t detect_ps) : detect_ps_(detect_ps) {}
  // Whether queue q is stalled at `now`: paused, and no frame out, for detect_ps at least.
  bool stalled(const paused_queue& q, uint64_t now) const {
    return now >= q.paused_since_ps + detect_ps_ && now >= q.last_dequeue_ps + detect_ps_;
  }
  // The deadlocked cycles at `now`: the wait cycles among the stalled queues only.
  std::vector<std::vector<unsigned>> check(const std::vector<paused_queue>& queues, uint64_t now) const;
  uint64_t detect_ps() const { return detect_ps_; }

 private:
  uint64_t detect_ps_;
};

}  // namespace netasic
