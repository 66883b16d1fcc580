#include "tlm/event_queue.h"

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

void event_queue::fire() {
  const uint64_t now = now_ps();
  if (!due_at_.fire(now)) return;   // never: the sc_event keeps only the earliest notification
  ++fires_;
  firing_ = true;   // wake-ups scheduled from the loop are armed once, after it
  // Wake-ups scheduled for `now` while this loop runs are served in this same pass.
  while (!heap_.empty() && heap_.top_key() <= now) {
    timed_client* c = heap_.pop();
    // Wake-ups at one time are for clients all over the fabric; start loading the next one (its
    // vtable pointer and timer) while this one runs.
    if (timed_client* const* next = heap_.next_due()) __builtin_prefetch(*next);
    ++wakeups_;
    c->wake(now);
  }
  firing_ = false;
  if (!heap_.empty() && due_at_.arm(heap_.top_key())) due_.notify(ps(due_at_.at() - now));
}

}  // namespace netasic
