#include "tlm/event_queue.h"

#include <algorithm>

namespace netasic {

event_queue::event_queue(sc_core::sc_module_name name) : sc_core::sc_module(name) {
  SC_METHOD(fire);
  sensitive << due_;
  dont_initialize();
}

void event_queue::schedule(uint64_t at_ps, timed_client& c) {
  heap_.push(at_ps, &c);
  // An earlier notification replaces a pending later one (sc_event semantics).
  if (!firing_ && due_at_.arm(at_ps)) due_.notify(ps(at_ps - now_ps()));
}

void event_queue::stop() {
  if (!firing_) return sc_core::sc_stop();   // from a kernel process: the kernel is at its time
  stop_ps_ = now_ps();   // fire() serves the rest of this time's wake-ups, then stops here
}

void event_queue::fire() {
  const uint64_t now = now_ps();
  if (stop_ps_ == now) return sc_core::sc_stop();   // run ahead to here, and asked to stop here
  if (!due_at_.fire(now)) return;   // never: the sc_event keeps only the earliest notification
  ++fires_;
  firing_ = true;   // wake-ups scheduled from the loop are armed once, after it
  // How far ahead: up to the kernel's next activity and the run's end, not including either.
  uint64_t horizon = now + 1;
  if (end_ps_ > horizon) {
    const uint64_t gap = sc_core::sc_time_to_pending_activity().value();
    horizon = std::max(horizon, std::min(end_ps_, gap > end_ps_ - now ? end_ps_ : now + gap));
  }
  // Wake-ups scheduled for a time inside the horizon while this loop runs are served in this
  // same pass, in time order and, at one time, in the order they were scheduled.
  uint64_t at = now;
  while (!heap_.empty()) {
    const uint64_t t = heap_.top_key();
    if (t != at) {
      if (t >= horizon || stop_ps_ != not_ahead) break;
      run_ahead_ps() = at = t;
    }
    timed_client* c = heap_.pop();
    // Wake-ups at one time are for clients all over the fabric; start loading the next one (its
    // vtable pointer and timer) while this one runs.
    if (timed_client* const* next = heap_.next_due()) __builtin_prefetch(*next);
    ++wakeups_;
    c->wake(t);
  }
  run_ahead_ps() = not_ahead;
  firing_ = false;
  if (stop_ps_ == now) return sc_core::sc_stop();
  // A stop ahead of the kernel: it moves there, and stops there.
  const uint64_t next = stop_ps_ != not_ahead ? stop_ps_ : heap_.empty() ? not_ahead : heap_.top_key();
  if (next != not_ahead && due_at_.arm(next)) due_.notify(ps(due_at_.at() - now));
}

}  // namespace netasic
