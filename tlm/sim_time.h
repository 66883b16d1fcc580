// Simulated time as the models read it: integer picoseconds (a run sets the kernel's
// resolution to 1 ps, so a time's value is its count of ps).
#pragma once
#include <cstdint>

#include <systemc>

namespace netasic {

// While the fabric's event queue runs ahead of the kernel (tlm/event_queue.h), the time of the
// wake-up it is running; otherwise `not_ahead`.
constexpr uint64_t not_ahead = ~uint64_t(0);
inline uint64_t& run_ahead_ps() {
  static uint64_t t = not_ahead;
  return t;
}
// Models read the time here, never from the kernel directly.
inline uint64_t now_ps() {
  const uint64_t t = run_ahead_ps();
  return t != not_ahead ? t : sc_core::sc_time_stamp().value();
}
inline sc_core::sc_time ps(uint64_t v) { return sc_core::sc_time::from_value(v); }

}  // namespace netasic
