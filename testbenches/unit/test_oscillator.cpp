// Oscillator against closed forms computed directly in 128-bit integers: a constant offset gives
// floor(t (1e9 + ppb) / 1e9) to the ps over the whole 2^62 ps range; a drifting offset gives
// floor((2e21 t + 2e12 r t + k t^2) / 2e21); a saturated or broken rate continues from its start
// at the held rate. The inverse (true time at which a reading is reached) is checked to be the
// exact first ps on random readings, and the cycle edges follow.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "clock/oscillator.h"
#include "common/rng.h"

using namespace netasic;

namespace {

__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 i128;

const i128 den = i128(2'000'000'000'000) * 1'000'000'000;   // 2e21

i128 floor_div(i128 n, i128 d) {
  i128 q = n / d;
  if ((n % d != 0) && ((n < 0) != (d < 0))) --q;
  return q;
}

int64_t rand_range(rng& r, int64_t lo, int64_t hi) { return lo + int64_t(r.below(uint64_t(hi - lo + 1))); }

// A random time in [0, max], log-uniform so that short and long spans both appear.
uint64_t rand_time(rng& r, uint64_t max) {
  const unsigned bits = 1 + unsigned(r.below(62));
  const uint64_t t = r.next() & ((uint64_t(1) << bits) - 1);
  return t > max ? max : t;
}

// The inverse is exact: the first ps at which the reading reaches x.
void expect_first_ps(const oscillator& o, uint64_t x) {
  const uint64_t t = o.true_at_osc(x);
  if (t == oscillator::never) {
    EXPECT_LT(o.osc_ps(oscillator::max_time_ps), x);
    return;
  }
  ASSERT_GE(o.osc_ps(t), x) << "x " << x;
  if (t > 0) {
    ASSERT_LT(o.osc_ps(t - 1), x) << "x " << x;
  }
}

}  // namespace

TEST(Oscillator, ConstantOffsetIsExactOverTheWholeRange) {
  rng r(1);
  for (int c = 0; c < 200; ++c) {
    oscillator_config cfg;
    cfg.ppb = rand_range(r, -100'000, 100'000);
    cfg.initial_offset_ps = rand_range(r, -1'000'000'000, 1'000'000'000);
    const oscillator o(cfg);
    for (int i = 0; i < 200; ++i) {
      const uint64_t t = rand_time(r, oscillator::max_time_ps);
      const uint64_t want = uint64_t(u128(t) * u128(1'000'000'000 + cfg.ppb) / 1'000'000'000);
      ASSERT_EQ(o.osc_ps(t), want) << "ppb " << cfg.ppb << " t " << t;
      ASSERT_EQ(o.local_ps(t), int64_t(want) + cfg.initial_offset_ps);
      EXPECT_EQ(o.ppb_at(t), cfg.ppb);
    }
  }
  // 100 ppm over one simulated day: exactly 8.64 s ahead.
  oscillator_config fast;
  fast.ppb = 100'000;
  const uint64_t day = 86'400'000'000'000'000ull;
  EXPECT_EQ(oscillator(fast).osc_ps(day) - day, 8'640'000'000'000ull);
}

TEST(Oscillator, InverseIsTheFirstPsAndRoundTrips) {
  rng r(2);
  for (int c = 0; c < 120; ++c) {
    oscillator_config cfg;
    cfg.ppb = rand_range(r, -100'000, 100'000);
    if (c % 2) cfg.drift_ppb_per_s = rand_range(r, -50'000, 50'000);   // saturates within seconds
    if (c % 3 == 0) {
      cfg.broken = true;
      cfg.broken_at_ps = rand_time(r, uint64_t(1) << 45);
      cfg.broken_limit_ppb = 400'000'000;
      cfg.broken_ppb = rand_range(r, -cfg.broken_limit_ppb, cfg.broken_limit_ppb);
      cfg.broken_ramp_ppb_per_s = rand_range(r, -1'000'000'000, 1'000'000'000);
    }
    const oscillator o(cfg);
    for (int i = 0; i < 150; ++i) {
      const uint64_t t = rand_time(r, oscillator::max_time_ps / 2);
      const uint64_t x = o.osc_ps(t);
      const uint64_t back = o.true_at_osc(x);
      ASSERT_LE(back, t);
      ASSERT_EQ(o.osc_ps(back), x);   // the reading is reached at back and still holds at t
      if (o.ppb_at(t) >= 0 && o.ppb_at(back) >= 0 && !cfg.broken && cfg.drift_ppb_per_s == 0) {
        ASSERT_EQ(back, t);   // a clock at least as fast as true time reads each ps once
      }
      expect_first_ps(o, x + 1);
      expect_first_ps(o, rand_time(r, oscillator::max_time_ps));
      if (HasFatalFailure()) return;
    }
  }
}

TEST(Oscillator, DriftIntegralMatchesTheClosedForm) {
  rng r(3);
  for (int c = 0; c < 100; ++c) {
    oscillator_config cfg;
    cfg.bound_ppb = 500'000'000;   // no saturation within 1e16 ps at these slopes
    cfg.ppb = rand_range(r, -100'000, 100'000);
    cfg.drift_ppb_per_s = rand_range(r, -10'000, 10'000);
    const oscillator o(cfg);
    for (int i = 0; i < 100; ++i) {
      const uint64_t t = rand_time(r, 10'000'000'000'000'000ull);   // up to 1e16 ps (2.8 h)
      const i128 num = den * i128(t) + i128(2'000'000'000'000) * cfg.ppb * i128(t) + i128(cfg.drift_ppb_per_s) * i128(t) * i128(t);
      ASSERT_EQ(i128(o.osc_ps(t)), floor_div(num, den)) << "r " << cfg.ppb << " k " << cfg.drift_ppb_per_s << " t " << t;
      ASSERT_EQ(i128(o.ppb_at(t)), floor_div(i128(cfg.ppb) * 1'000'000'000'000 + i128(cfg.drift_ppb_per_s) * t, 1'000'000'000'000));
    }
  }
}

TEST(Oscillator, HealthyDriftSaturatesAtTheBound) {
  rng r(4);
  for (int c = 0; c < 60; ++c) {
    oscillator_config cfg;
    cfg.ppb = rand_range(r, -100'000, 100'000);
    cfg.drift_ppb_per_s = (c % 2 ? 1 : -1) * rand_range(r, 1'000, 2'000'000);
    const oscillator o(cfg);
    const int64_t limit = cfg.drift_ppb_per_s > 0 ? cfg.bound_ppb : -cfg.bound_ppb;
    const i128 room = cfg.drift_ppb_per_s > 0 ? i128(cfg.bound_ppb) - cfg.ppb : i128(cfg.ppb) + cfg.bound_ppb;
    const uint64_t t_sat = uint64_t(room * 1'000'000'000'000 / (cfg.drift_ppb_per_s > 0 ? cfg.drift_ppb_per_s : -cfg.drift_ppb_per_s));
    // Around the saturation instant as well as anywhere.
    std::vector<uint64_t> times;
    for (uint64_t d : {0ull, 1ull, 2ull, 1'000ull, 1'000'000ull, 123'456'789ull}) {
      times.push_back(t_sat + d);
      if (t_sat >= d) times.push_back(t_sat - d);
    }
    for (int i = 0; i < 60; ++i) times.push_back(rand_time(r, oscillator::max_time_ps / 4));
    EXPECT_EQ(o.ppb_at(t_sat), limit);
    if (t_sat > 0) {   // still ramping one ps before
      EXPECT_EQ(i128(o.ppb_at(t_sat - 1)),
                floor_div(i128(cfg.ppb) * 1'000'000'000'000 + i128(cfg.drift_ppb_per_s) * (t_sat - 1), 1'000'000'000'000));
    }
    for (const uint64_t t : times) {
      ASSERT_LE(o.ppb_at(t), cfg.bound_ppb);
      ASSERT_GE(o.ppb_at(t), -cfg.bound_ppb);
      if (t < t_sat) {
        const i128 num = den * i128(t) + i128(2'000'000'000'000) * cfg.ppb * i128(t) + i128(cfg.drift_ppb_per_s) * i128(t) * i128(t);
        ASSERT_EQ(i128(o.osc_ps(t)), floor_div(num, den));
      } else {
        EXPECT_EQ(o.ppb_at(t), limit);
        // From t_sat on the rate is the bound: floor(a + b) is floor(a) + floor(b) or one more.
        const uint64_t d = t - t_sat;
        const i128 step = floor_div(i128(d) * (1'000'000'000 + limit), 1'000'000'000);
        const i128 got = i128(o.osc_ps(t)) - i128(o.osc_ps(t_sat));
        ASSERT_GE(got, step);
        ASSERT_LE(got, step + 1);
      }
    }
  }
}

TEST(Oscillator, BrokenClockLeavesTheBound) {
  oscillator_config cfg;
  cfg.ppb = 50'000;
  cfg.broken = true;
  cfg.broken_at_ps = 1'000'000'000;   // 1 ms
  cfg.broken_ppb = 300'000;           // 300 ppm, past the 100 ppm specification
  cfg.broken_ramp_ppb_per_s = 1'000'000'000;   // +1 ppm per us
  cfg.broken_limit_ppb = 10'000'000;
  const oscillator o(cfg);
  const oscillator healthy(oscillator_config{50'000, 0, 100'000, 1000, 0});
  EXPECT_FALSE(o.broken_at(cfg.broken_at_ps - 1));
  EXPECT_TRUE(o.broken_at(cfg.broken_at_ps));
  for (uint64_t t : {0ull, 1ull, 999'999'999ull, 1'000'000'000ull}) EXPECT_EQ(o.osc_ps(t), healthy.osc_ps(t));
  EXPECT_EQ(o.ppb_at(cfg.broken_at_ps), 300'000);
  EXPECT_EQ(o.ppb_at(cfg.broken_at_ps + 1'000'000), 301'000);   // 1 us later: +1 ppm
  // The ramp reaches 10'000'000 ppb after 9700 us, and holds there.
  EXPECT_EQ(o.ppb_at(cfg.broken_at_ps + 9'700'000'000ull), 10'000'000);
  EXPECT_EQ(o.ppb_at(cfg.broken_at_ps + 50'000'000'000ull), 10'000'000);
  // Over the first us of the fault, the gain is the integral of 300 -> 301 ppm.
  const uint64_t gain = o.osc_ps(cfg.broken_at_ps + 1'000'000) - o.osc_ps(cfg.broken_at_ps) - 1'000'000;
  EXPECT_GE(gain, 300u);
  EXPECT_LE(gain, 301u);
}

TEST(Oscillator, RateChangesArePiecewiseAndContinuous) {
  oscillator_config cfg;
  cfg.ppb = -20'000;
  oscillator o(cfg);
  const uint64_t at = 5'000'000'000;   // 5 ms
  const uint64_t before = o.osc_ps(at);
  const uint64_t v0 = o.version();
  o.change_rate(at, 80'000, 0);
  EXPECT_GT(o.version(), v0);
  EXPECT_EQ(o.osc_ps(at), before);   // the reading does not jump
  EXPECT_EQ(o.ppb_at(at - 1), -20'000);
  EXPECT_EQ(o.ppb_at(at), 80'000);
  const uint64_t d = 3'000'000'000;
  const uint64_t gain = o.osc_ps(at + d) - o.osc_ps(at);
  EXPECT_GE(gain, d + 240'000);   // 80 ppm of 3 ms = 240 ns
  EXPECT_LE(gain, d + 240'001);
  EXPECT_THROW(o.change_rate(at - 1, 0, 0), std::invalid_argument);
  EXPECT_THROW(o.change_rate(at, 200'000, 0), std::invalid_argument);   // past the bound
  o.break_clock(at + 10, 500'000, 0, 1'000'000);
  EXPECT_EQ(o.ppb_at(at + 10), 500'000);
  EXPECT_THROW(o.change_rate(at + 20, 0, 0), std::invalid_argument);   // broken stays broken
  EXPECT_THROW(o.break_clock(at + 20, 0, 0, 1'000'000), std::invalid_argument);
  // A change before a configured fault keeps the fault.
  oscillator_config f;
  f.broken = true;
  f.broken_at_ps = 10'000'000;
  f.broken_ppb = 1'000'000;
  oscillator p(f);
  p.change_rate(1'000'000, 10'000, 0);
  EXPECT_EQ(p.ppb_at(5'000'000), 10'000);
  EXPECT_EQ(p.ppb_at(10'000'000), 1'000'000);
}

// The last reading (at max_time_ps) is the edge of "never", and it moves with every change.
TEST(Oscillator, NeverStartsPastTheLastReadingAfterEveryChange) {
  rng r(7);
  auto expect_edge = [](const oscillator& o) {
    const uint64_t last = o.osc_ps(oscillator::max_time_ps);
    EXPECT_LE(o.true_at_osc(last), oscillator::max_time_ps);
    EXPECT_EQ(o.true_at_osc(last + 1), oscillator::never);
  };
  for (int c = 0; c < 40; ++c) {
    oscillator_config cfg;
    cfg.ppb = rand_range(r, -100'000, 100'000);
    if (c % 2) cfg.drift_ppb_per_s = rand_range(r, -50'000, 50'000);
    oscillator o(cfg);
    expect_edge(o);
    uint64_t at = 0;
    for (int k = 0; k < 3; ++k) {
      const uint64_t before = o.osc_ps(oscillator::max_time_ps);
      at += 1 + rand_time(r, uint64_t(1) << 50);
      o.change_rate(at, rand_range(r, -100'000, 100'000), c % 2 ? rand_range(r, -50'000, 50'000) : 0);
      ASSERT_NE(o.osc_ps(oscillator::max_time_ps), before);   // control: the edge did move
      expect_edge(o);
    }
    o.break_clock(at + 1, 50'000'000, 0, 100'000'000);   // 5 % fast from then on
    expect_edge(o);
    if (HasFailure()) return;
  }
}

TEST(Oscillator, CyclesAndEdges) {
  rng r(5);
  for (int c = 0; c < 40; ++c) {
    oscillator_config cfg;
    cfg.ppb = rand_range(r, -100'000, 100'000);
    cfg.drift_ppb_per_s = c % 2 ? rand_range(r, -1'000'000, 1'000'000) : 0;
    cfg.period_ps = 1 + r.below(10'000);
    const oscillator o(cfg);
    for (int i = 0; i < 100; ++i) {
      const uint64_t t = rand_time(r, uint64_t(1) << 50);
      const uint64_t n = o.cycles(t);
      ASSERT_EQ(n, o.osc_ps(t) / cfg.period_ps);
      const uint64_t e = o.cycle_edge(n);
      ASSERT_LE(e, t);
      ASSERT_EQ(o.cycles(e), n);
      if (e > 0) {
        ASSERT_EQ(o.cycles(e - 1), n - 1);
      }
      const uint64_t e1 = o.cycle_edge(n + 1);
      ASSERT_GT(e1, t);
      ASSERT_EQ(o.cycles(e1), n + 1);
    }
  }
  // Nominal period, constant rate: the n-th edge is ceil(n P 1e9 / (1e9 + ppb)).
  oscillator_config k;
  k.ppb = 73'000;
  const oscillator o(k);
  for (uint64_t n : {1ull, 999ull, 123'456'789ull}) {
    const u128 num = u128(n) * 1000 * 1'000'000'000;
    EXPECT_EQ(o.cycle_edge(n), uint64_t((num + 1'000'073'000 - 1) / 1'000'073'000));
  }
}

TEST(Oscillator, AdjustmentStepsTheLocalClockOnly) {
  oscillator_config cfg;
  cfg.ppb = 30'000;
  oscillator o(cfg);
  const uint64_t t = 7'777'777'777;
  const uint64_t osc = o.osc_ps(t), cyc = o.cycles(t);
  o.adjust(-123'456);
  EXPECT_EQ(o.local_ps(t), int64_t(osc) - 123'456);
  EXPECT_EQ(o.osc_ps(t), osc);
  EXPECT_EQ(o.cycles(t), cyc);
  EXPECT_EQ(o.adjustment(), -123'456);
  const int64_t target = o.local_ps(t) + 1'000'000;
  const uint64_t when = o.true_at_local(target);
  EXPECT_GE(o.local_ps(when), target);
  EXPECT_LT(o.local_ps(when - 1), target);
  EXPECT_EQ(o.true_at_local(o.adjustment() - 5), 0u);   // already read at true time 0
}

TEST(Oscillator, LimitsAndBadConfiguration) {
  const oscillator o{oscillator_config{}};
  EXPECT_THROW(o.osc_ps(oscillator::max_time_ps + 1), std::out_of_range);
  EXPECT_EQ(o.true_at_osc(UINT64_MAX), oscillator::never);
  EXPECT_EQ(o.cycle_edge(UINT64_MAX), oscillator::never);
  auto expect_field = [](oscillator_config c, const std::string& field) {
    try {
      oscillator bad(c);
      ADD_FAILURE() << field << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  oscillator_config c;
  c.period_ps = 0;
  expect_field(c, "period_ps");
  c = {};
  c.ppb = 100'001;
  expect_field(c, "ppb");
  c = {};
  c.bound_ppb = -1;
  expect_field(c, "bound_ppb");
  c = {};
  c.drift_ppb_per_s = oscillator::max_slope_ppb_per_s + 1;
  expect_field(c, "drift_ppb_per_s");
  c = {};
  c.broken = true;
  c.broken_limit_ppb = 1'000'000'000;
  expect_field(c, "broken_limit_ppb");
  c = {};
  c.broken = true;
  c.broken_ppb = 200'000'000;
  expect_field(c, "broken_ppb");
  c = {};
  c.broken = true;
  c.broken_at_ps = oscillator::max_time_ps + 1;
  expect_field(c, "broken_at_ps");
}
