#include "clock/oscillator.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace netasic {

namespace {

__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 i128;

constexpr int64_t ppb_one = 1'000'000'000;          // 1e9: ppb per unit rate
constexpr int64_t ps_per_s = 1'000'000'000'000;     // 1e12
constexpr int64_t two_e12 = 2 * ps_per_s;
const i128 den = i128(two_e12) * ppb_one;          // 2e21: the remainder's denominator

bool fits64(i128 v) { return v == i128(int64_t(v)); }

// Floor division and the matching non-negative remainder (d > 0). A 128-bit division is a call
// of a few dozen ns; most numerators here are within one divisor of zero (no division at all) or
// fit in 64 bits (one instruction), so those take the short way to the same quotient.
void floor_divmod(i128 n, i128 d, i128& q, i128& r) {
  if (n >= 0 && n < d) {
    q = 0;
    r = n;
    return;
  }
  if (n < 0 && n >= -d) {
    q = -1;
    r = n + d;
    return;
  }
  if (fits64(n) && fits64(d)) {
    q = int64_t(n) / int64_t(d);
    r = int64_t(n) % int64_t(d);
  } else {
    q = n / d;
    r = n % d;
  }
  if (r < 0) {
    r += d;
    --q;
  }
}

i128 floor_div(i128 n, i128 d) {
  i128 q, r;
  floor_divmod(n, d, q, r);
  return q;
}

i128 ceil_div(i128 n, i128 d) { return -floor_div(-n, d); }

[[noreturn]] void oscillator_fail(const std::string& what) { throw std::invalid_argument("oscillator: " + what); }

}  // namespace

oscillator::oscillator(const oscillator_config& cfg) : cfg_(cfg) {
  if (cfg.period_ps < 1) oscillator_fail("period_ps must be at least 1");
  if (cfg.bound_ppb < 0 || cfg.bound_ppb > 500'000'000) oscillator_fail("bound_ppb must be 0..500000000");
  if (cfg.ppb < -cfg.bound_ppb || cfg.ppb > cfg.bound_ppb)
    oscillator_fail("ppb " + std::to_string(cfg.ppb) + " outside +-bound_ppb " + std::to_string(cfg.bound_ppb));
  if (cfg.drift_ppb_per_s < -max_slope_ppb_per_s || cfg.drift_ppb_per_s > max_slope_ppb_per_s)
    oscillator_fail("drift_ppb_per_s must be within +-1e12");
  if (cfg.initial_offset_ps < -int64_t(max_time_ps) || cfg.initial_offset_ps > int64_t(max_time_ps))
    oscillator_fail("initial_offset_ps must be within +-2^62");
  adjust_ = cfg.initial_offset_ps;
  if (cfg.broken) {
    // Validated by break_clock; cfg_ is what it records.
    cfg_.broken = false;
    rebuild();
    break_clock(cfg.broken_at_ps, cfg.broken_ppb, cfg.broken_ramp_ppb_per_s, cfg.broken_limit_ppb);
    version_ = 0;
  } else {
    rebuild();
  }
}

// Exact osc value tau ps into segment s: whole ps plus a remainder over 2e21.
oscillator::exact oscillator::eval(const segment& s, uint64_t tau) const {
  // 2e12 * r * tau: split r * tau by 1e9 first so nothing overflows 128 bits.
  i128 q1, rem1;
  floor_divmod(i128(s.ppb) * i128(tau), ppb_one, q1, rem1);
  i128 whole = i128(s.l_int) + i128(tau) + q1;
  u128 frac = s.l_frac + u128(rem1) * u128(two_e12);
  if (s.slope != 0) {   // k * tau^2: split tau^2 by 2e21 first (no split below 2e21: tau < 44 ms)
    const u128 t2 = u128(tau) * u128(tau);
    u128 a = 0, b = t2;
    if (t2 >= u128(den)) {
      a = t2 / u128(den);
      b = t2 % u128(den);
    }
    i128 q2, rem2;
    floor_divmod(i128(s.slope) * i128(b), den, q2, rem2);
    whole += i128(s.slope) * i128(a) + q2;
    frac += u128(rem2);
  }
  // Each of frac's terms is below 2e21 (a remainder), so it holds at most two whole ps.
  while (frac >= u128(den)) {
    frac -= u128(den);
    ++whole;
  }
  if (whole < 0) throw std::logic_error("oscillator: clock ran below zero");
  return {uint64_t(whole), frac};
}

size_t oscillator::segment_of(uint64_t t) const {
  auto it = std::upper_bound(seg_.begin(), seg_.end(), t, [](uint64_t v, const segment& s) { return v < s.start; });
  return size_t(it - seg_.begin()) - 1;
}

// One change: a ramp from `at` (rate ppb, slope) that saturates at +-limit, held there after.
void oscillator::append_from(uint64_t at, int64_t ppb, int64_t slope, int64_t limit) {
  while (!seg_.empty() && seg_.back().start >= at) seg_.pop_back();
  segment s{at, ppb, slope, 0, 0};
  if (!seg_.empty()) {
    const segment& prev = seg_.back();
    const exact e = eval(prev, at - prev.start);
    s.l_int = e.whole;
    s.l_frac = e.frac;
  }
  if (slope == 0) {
    seg_.push_back(s);
    return;
  }
  // Last tau whose rate ppb + slope * tau / 1e12 is still within the limit.
  const i128 room = slope > 0 ? i128(limit) - ppb : i128(ppb) + limit;
  const i128 tau_sat = room * ps_per_s / (slope > 0 ? slope : -slope);
  if (tau_sat > 0) seg_.push_back(s);
  if (tau_sat >= i128(max_time_ps - at)) return;
  const uint64_t at_sat = at + uint64_t(tau_sat);
  segment h{at_sat, slope > 0 ? limit : -limit, 0, s.l_int, s.l_frac};
  if (tau_sat > 0) {
    const exact e = eval(s, uint64_t(tau_sat));
    h.l_int = e.whole;
    h.l_frac = e.frac;
  }
  seg_.push_back(h);
}

void oscillator::rebuild() {
  seg_.clear();
  append_from(0, cfg_.ppb, cfg_.drift_ppb_per_s, cfg_.bound_ppb);
  for (const change& c : changes_) append_from(c.at, c.ppb, c.slope, cfg_.bound_ppb);
  if (cfg_.broken) append_from(cfg_.broken_at_ps, cfg_.broken_ppb, cfg_.broken_ramp_ppb_per_s, cfg_.broken_limit_ppb);
  reading_at_max_ = eval(seg_.back(), max_time_ps - seg_.back().start).whole;
}

void oscillator::change_rate(uint64_t at_ps, int64_t ppb, int64_t drift_ppb_per_s) {
  if (at_ps > max_time_ps) oscillator_fail("change_rate at_ps past max_time_ps");
  if (!changes_.empty() && at_ps < changes_.back().at) oscillator_fail("change_rate at_ps before the previous change");
  if (cfg_.broken && at_ps >= cfg_.broken_at_ps) oscillator_fail("change_rate at_ps after the clock broke");
  if (ppb < -cfg_.bound_ppb || ppb > cfg_.bound_ppb) oscillator_fail("change_rate ppb outside +-bound_ppb");
  if (drift_ppb_per_s < -max_slope_ppb_per_s || drift_ppb_per_s > max_slope_ppb_per_s)
    oscillator_fail("change_rate drift_ppb_per_s must be within +-1e12");
  changes_.push_back({at_ps, ppb, drift_ppb_per_s});
  rebuild();
  ++version_;
}

void oscillator::break_clock(uint64_t at_ps, int64_t ppb, int64_t ramp_ppb_per_s, int64_t limit_ppb) {
  if (cfg_.broken) oscillator_fail("broken: the clock is already broken");
  if (at_ps > max_time_ps) oscillator_fail("broken_at_ps past max_time_ps");
  if (!changes_.empty() && at_ps < changes_.back().at) oscillator_fail("broken_at_ps before the last rate change");
  if (limit_ppb < 1 || limit_ppb > 900'000'000) oscillator_fail("broken_limit_ppb must be 1..900000000");
  if (ppb < -limit_ppb || ppb > limit_ppb) oscillator_fail("broken_ppb outside +-broken_limit_ppb");
  if (ramp_ppb_per_s < -max_slope_ppb_per_s || ramp_ppb_per_s > max_slope_ppb_per_s)
    oscillator_fail("broken_ramp_ppb_per_s must be within +-1e12");
  cfg_.broken = true;
  cfg_.broken_at_ps = at_ps;
  cfg_.broken_ppb = ppb;
  cfg_.broken_ramp_ppb_per_s = ramp_ppb_per_s;
  cfg_.broken_limit_ppb = limit_ppb;
  rebuild();
  ++version_;
}

uint64_t oscillator::osc_ps(uint64_t t_ps) const {
  if (t_ps > max_time_ps) throw std::out_of_range("oscillator: time " + std::to_string(t_ps) + " ps past max_time_ps");
  const segment& s = seg_[segment_of(t_ps)];
  return eval(s, t_ps - s.start).whole;
}

int64_t oscillator::ppb_at(uint64_t t_ps) const {
  if (t_ps > max_time_ps) throw std::out_of_range("oscillator: time past max_time_ps");
  const segment& s = seg_[segment_of(t_ps)];
  return int64_t(floor_div(i128(s.ppb) * ps_per_s + i128(s.slope) * i128(t_ps - s.start), ps_per_s));
}

// Smallest tau in [0, tau_max] whose reading is at least x (the reading at tau_max is). The rate
// over the segment lies between its end values, so two straight lines bracket the integral and
// their crossings with x bracket tau; a binary search finishes. A constant rate has one line,
// whose crossing is the answer.
uint64_t oscillator::first_tau_at_least(const segment& s, uint64_t x, uint64_t tau_max) const {
  if (s.l_int >= x) return 0;
  const i128 d = i128(x) - s.l_int;
  const i128 f_hi = s.l_frac >> 64 ? i128(s.l_frac / u128(two_e12)) : i128(uint64_t(s.l_frac) / uint64_t(two_e12));
  // Line at rate r: start + tau (1e9 + r) / 1e9 >= x  <=>  tau >= (1e9 d - f_hi) / (1e9 + r).
  auto cross = [&](i128 r) {
    const i128 t = ceil_div(i128(ppb_one) * d - f_hi, i128(ppb_one) + r);
    return uint64_t(std::clamp<i128>(t, 0, i128(tau_max)));
  };
  if (s.slope == 0) return cross(s.ppb);   // one rate: both lines are the same, and exact
  const i128 r_end = i128(s.ppb) * ps_per_s + i128(s.slope) * i128(tau_max);   // rate * 1e12
  const i128 r_lo = std::min<i128>(s.ppb, floor_div(r_end, ps_per_s));
  const i128 r_hi = std::max<i128>(s.ppb, ceil_div(r_end, ps_per_s));
  uint64_t lo = cross(r_hi), hi = cross(r_lo);
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (eval(s, mid).whole >= x) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

uint64_t oscillator::true_at_osc(uint64_t x_ps) const {
  if (x_ps == 0) return 0;
  // First segment whose start already reads x; the answer is in the one before it.
  auto it = std::lower_bound(seg_.begin(), seg_.end(), x_ps, [](const segment& s, uint64_t v) { return s.l_int < v; });
  const size_t j = size_t(it - seg_.begin());
  const segment& s = seg_[j - 1];   // seg_[0] reads 0 < x
  uint64_t tau_max;
  if (j < seg_.size()) {
    tau_max = seg_[j].start - s.start;
  } else {
    tau_max = max_time_ps - s.start;
    if (reading_at_max_ < x_ps) return never;
  }
  return s.start + first_tau_at_least(s, x_ps, tau_max);
}

uint64_t oscillator::true_at_local(int64_t x_ps) const {
  const i128 osc = i128(x_ps) - adjust_;
  if (osc <= 0) return 0;
  if (osc > i128(UINT64_MAX)) return never;
  return true_at_osc(uint64_t(osc));
}

uint64_t oscillator::cycle_edge(uint64_t n) const {
  const u128 x = u128(n) * cfg_.period_ps;
  if (x > max_time_ps * u128(2)) return never;   // the rate is below 2, so past max_time_ps
  return true_at_osc(uint64_t(x));
}

}  // namespace netasic
