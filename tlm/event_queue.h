// The fabric's payload event queue, in the spirit of tlm_utils::peq_with_get: many timed wake-ups
// (a link's next frame arrival, a NIC's wire becoming free) behind one sc_event. SystemC's own
// timed-event queue pays a heap of event objects and an indirect compare per notification; here
// an entry is 24 bytes in one array, so a packet-hop costs a push and a pop of plain data.
// Entries due at the same time run in the order they were scheduled, so runs are reproducible.
// Once given the run's end, the queue runs ahead of the kernel: one notification takes every
// wake-up due before the kernel's next activity (a flow start, a probe sample, a thread's wait),
// in the same order, and now_ps() reads the queue's time meanwhile.
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

#include <systemc>

#include "common/radix_heap.h"
#include "tlm/sim_time.h"

namespace netasic {

// The one pending timed wake-up of a client that may ask for many. The queue cannot take an
// entry back, so a client keeps only the earliest time it asked for and ignores the others
// when they come due.
class timer {
 public:
  static constexpr uint64_t never = std::numeric_limits<uint64_t>::max();
  // True if `at` is earlier than the pending wake-up: the caller schedules it. Otherwise the
  // pending one comes first and will call again.
  bool arm(uint64_t at) {
    if (at >= at_) return false;
    at_ = at;
    return true;
  }
  // True only for the wake-up that counts (the earliest armed); it disarms the timer.
  bool fire(uint64_t now) {
    if (now != at_) return false;   // superseded by an earlier wake-up
    at_ = never;
    return true;
  }
  bool armed() const { return at_ != never; }
  uint64_t at() const { return at_; }

 private:
  uint64_t at_ = never;
};

class timed_client {
 public:
  virtual ~timed_client() = default;
  virtual void wake(uint64_t now_ps) = 0;
};

class event_queue : public sc_core::sc_module {
  SC_HAS_PROCESS(event_queue);

 public:
  explicit event_queue(sc_core::sc_module_name name);
  // Wake `c` at absolute time `at_ps` (not in the past). A client keeps at most one wake-up
  // pending itself; the queue does not merge them.
  void schedule(uint64_t at_ps, timed_client& c);
  // The time sc_start runs to (its wake-ups there and later stay for it): from here on the queue
  // runs ahead. Unset, it takes one notification per time, as a bare kernel would.
  void run_ahead_until(uint64_t end_ps) { end_ps_ = end_ps; }
  // sc_stop once the wake-ups at the current time are done, at that time (the kernel may be
  // behind it while the queue runs ahead), as sc_stop from a wake-up would without running ahead.
  void stop();
  uint64_t wakeups() const { return wakeups_; }
  uint64_t kernel_notifications() const { return fires_; }
  size_t pending() const { return heap_.size(); }
  size_t heap_bytes() const { return heap_.capacity_bytes(); }

 private:
  radix_heap<timed_client*> heap_;
  uint64_t wakeups_ = 0, fires_ = 0;
  bool firing_ = false;
  uint64_t end_ps_ = 0;            // 0: never run ahead
  uint64_t stop_ps_ = not_ahead;   // a stop() was asked for at this time
  timer due_at_;   // when due_ is notified for
  sc_core::sc_event due_;

  void fire();
};

}  // namespace netasic
