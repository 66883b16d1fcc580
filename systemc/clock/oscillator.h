// Oscillator and hardware clock of one device (core, no SystemC), for Sundial (Li et al., OSDI
// 2020; sections as in chapter 3 of Li's thesis). "Every device has a clock, whose value is
// incremented on every tick of a hardware oscillator" whose frequency is off by up to +-100 ppm
// and changes with temperature and age (§3.3.1 Background on clock synchronization).
//
// Rate model: the frequency offset r(t) (ppb) is piecewise linear in true time. Each segment has
// an integer offset at its start and an integer slope (ppb per second). The free-running
// oscillator time is the exact integral
//   osc(t) = osc(s) + tau + (2e12 * r * tau + k * tau^2) / 2e21,   tau = t - s (ps),
// kept as an integer plus a remainder over 2e21, so nothing is lost between segments; readings
// are the floor of the exact value. A healthy drift saturates at +-bound_ppb (the segment ends
// at the last ps whose rate is still inside the bound, then the rate is held at the bound).
// A broken clock leaves the bound from broken_at_ps on (jump, then optional ramp that saturates
// at broken_limit_ppb, which keeps the clock running forwards).
//
// Local clock = osc(t) + adjustment; the sync unit steps the adjustment (clock += offset). The
// cycle counter (timeouts, sync interval) counts osc edges and never sees the adjustment.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace netasic {

struct oscillator_config {
  int64_t ppb = 0;                      // frequency offset at true time 0
  int64_t drift_ppb_per_s = 0;          // linear change of the offset; saturates at +-bound_ppb
  int64_t bound_ppb = 100'000;          // +-100 ppm: the oscillators' specification (§3.6.1.1)
  uint64_t period_ps = 1000;            // nominal oscillator period (1 GHz, as switch.clock)
  int64_t initial_offset_ps = 0;        // local clock at true time 0 (unsynchronised start)
  // Broken-clock fault (§3.3.2.3 Broken clocks and message corruption): from broken_at_ps the offset jumps to broken_ppb, then ramps by
  // broken_ramp_ppb_per_s until +-broken_limit_ppb.
  bool broken = false;
  uint64_t broken_at_ps = 0;
  int64_t broken_ppb = 0;
  int64_t broken_ramp_ppb_per_s = 0;
  int64_t broken_limit_ppb = 100'000'000;   // 10 %: keeps the rate positive and the math bounded
};

class oscillator {
 public:
  static constexpr uint64_t max_time_ps = uint64_t(1) << 62;   // ~53 days of true time
  static constexpr uint64_t never = UINT64_MAX;
  static constexpr int64_t max_slope_ppb_per_s = 1'000'000'000'000;

  // Throws std::invalid_argument naming the field.
  explicit oscillator(const oscillator_config& cfg);

  // Free-running oscillator time at true time t (floor of the exact integral). t > max_time_ps
  // throws std::out_of_range.
  uint64_t osc_ps(uint64_t t_ps) const;
  // Earliest true time at which osc_ps reads at least x; never if past max_time_ps.
  uint64_t true_at_osc(uint64_t x_ps) const;

  // Local clock = osc + adjustment.
  int64_t local_ps(uint64_t t_ps) const { return int64_t(osc_ps(t_ps)) + adjust_; }
  // Earliest true time at which the local clock reads at least x with the current adjustment
  // (a later adjust() moves it: reschedule after every correction).
  uint64_t true_at_local(int64_t x_ps) const;
  void adjust(int64_t offset_ps) { adjust_ += offset_ps; }
  int64_t adjustment() const { return adjust_; }

  // Oscillator edges: cycles(t) = floor(osc / period); edge n is the true time of the n-th edge
  // (osc reaches n * period).
  uint64_t cycles(uint64_t t_ps) const { return osc_ps(t_ps) / cfg_.period_ps; }
  uint64_t cycle_edge(uint64_t n) const;

  // Instantaneous offset at t, floored to whole ppb.
  int64_t ppb_at(uint64_t t_ps) const;
  bool broken_at(uint64_t t_ps) const { return cfg_.broken && t_ps >= cfg_.broken_at_ps; }

  // Future changes, in time order (at_ps not before the previous change): a healthy new offset
  // and drift (within the bound), or the broken-clock fault. Throw std::invalid_argument.
  void change_rate(uint64_t at_ps, int64_t ppb, int64_t drift_ppb_per_s);
  void break_clock(uint64_t at_ps, int64_t ppb, int64_t ramp_ppb_per_s, int64_t limit_ppb);
  // Bumped by every change, so users that cache edge times know to recompute.
  uint64_t version() const { return version_; }

  const oscillator_config& config() const { return cfg_; }

 private:
  __extension__ typedef unsigned __int128 u128;
  __extension__ typedef __int128 i128;
  struct segment {
    uint64_t start;    // true time (ps)
    int64_t ppb;       // offset at start
    int64_t slope;     // ppb per second
    uint64_t l_int;    // osc at start: l_int + l_frac / 2e21
    u128 l_frac;
  };
  struct exact { uint64_t whole; u128 frac; };
  struct change { uint64_t at; int64_t ppb; int64_t slope; };

  exact eval(const segment& s, uint64_t tau) const;
  size_t segment_of(uint64_t t) const;
  void append_from(uint64_t at, int64_t ppb, int64_t slope, int64_t limit);
  void rebuild();
  uint64_t first_tau_at_least(const segment& s, uint64_t x, uint64_t tau_max) const;

  oscillator_config cfg_;
  std::vector<segment> seg_;
  std::vector<change> changes_;   // healthy rate changes after t = 0, in time order
  uint64_t reading_at_max_ = 0;   // osc_ps(max_time_ps), kept by rebuild(): true_at_osc's "never" test
  uint64_t version_ = 0;
  int64_t adjust_ = 0;
};

}  // namespace netasic
