// Sundial timeout unit (core, no SystemC): the hardware counter of oscillator cycles since the
// last valid sync-message and the two interrupts it raises (§3.4.1.2 Fast failure detection).
// The first timeout is a hardware register; the second is the firmware's, non-zero on the backup
// root only, and runs on from the first (§3.4.3 Implementation). Pure cycle arithmetic: cycles
// are numbered as the oscillator counts its edges, and sundial_unit turns an edge number into
// the true time of that edge.
//
// After a clear at cycle c the counter at cycle k reads k - c. The first-timeout interrupt is
// raised at the edge where the counter passes `first` (edge c + first + 1); once armed, the second
// `second` cycles after that (edge c + first + second + 1). Each is raised once per silence. A
// valid message clears the counter, which lets the first be raised again and disarms the second
// (it cancels the backup root's election); invalid messages do not clear it (§3.4.1.2), so a
// broken parent ends in a timeout.
#pragma once
#include <cstdint>

namespace netasic {

class sundial_timeout {
 public:
  static constexpr uint64_t none = UINT64_MAX;

  // first_cycles >= 1; the counter starts cleared at start_cycle.
  explicit sundial_timeout(uint64_t first_cycles = 1, uint64_t start_cycle = 0);

  // A valid sync-message at cycle: the counter clears, the first interrupt may be raised again
  // and the second is disarmed.
  void clear(uint64_t cycle);
  void set_first(uint64_t cycles);               // >= 1; std::invalid_argument otherwise
  // Raise the second interrupt `cycles` after the first; 0 disarms.
  void arm_second(uint64_t cycles);
  // Both interrupts may be raised again and the second is disarmed; the counter runs on from its
  // last clear (a device that becomes the root counts no timeout).
  void rearm();

  uint64_t counter(uint64_t cycle) const { return cycle - cleared_; }
  // The edge at which each interrupt is due; none when raised (or, the second, not armed).
  uint64_t first_edge() const { return first_raised_ ? none : cleared_ + first_ + 1; }
  uint64_t second_edge() const { return second_ == 0 || second_raised_ ? none : cleared_ + first_ + second_ + 1; }
  void raise_first() { first_raised_ = true; }
  void raise_second() { second_raised_ = true; }

  uint64_t first_cycles() const { return first_; }
  uint64_t second_cycles() const { return second_; }
  uint64_t cleared_at() const { return cleared_; }

 private:
  uint64_t first_, second_ = 0;
  uint64_t cleared_;
  bool first_raised_ = false, second_raised_ = false;
};

}  // namespace netasic
