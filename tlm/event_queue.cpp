#include "tlm/event_queue.h"

namespace netasic {

event_queue::event_queue(sc_core::sc_module_name name) : sc_core::sc_module(name) {
  SC_METHOD(fire);
  sensitive << due_;
  dont_initialize();
}

void event_queue::schedule(uint64_t at_ps, timed_client& c) {
  heap_.push(at_ps, &c);
  if (!firing_ && at_ps < armed_at_) {
    // An earlier notification replaces a pending later one (sc_event semantics).
    armed_at_ = at_ps;
    due_.notify(sc_core::sc_time::from_value(at_ps - sc_core::sc_time_stamp().value()));
  }
}

void event_queue::fire() {
  const uint64_t now = sc_core::sc_time_stamp().value();
  ++fires_;
  armed_at_ = std::numeric_limits<uint64_t>::max();
  firing_ = true;   // wake-ups scheduled from the loop are armed once, after it
  // Wake-ups scheduled for `now` while this loop runs are served in this same pass.
  while (!heap_.empty() && heap_.top_key() <= now) {
    timed_client* c = heap_.pop();
    ++wakeups_;
    c->wake(now);
  }
  firing_ = false;
  if (!heap_.empty()) {
    armed_at_ = heap_.top_key();
    due_.notify(sc_core::sc_time::from_value(armed_at_ - now));
  }
}

}  // namespace netasic
