// DETER's rate-based sampler (Algorithm 12) against the exact +-th bound on random send-time
// series, and the strawman it replaces (gap-based sampling) failing on a drifting rate, as the
// chapter's Figure 6.5 shows.
#include <cstdlib>
#include <vector>

#include <gtest/gtest.h>

#include "blocks/deter_sampler.h"
#include "common/rng.h"

namespace netasic {
namespace {

// The strawman of §6.3.3 as the brief states it: a new sample whenever the inter-packet gap
// changes by more than th; the packets after it are inferred at the sample's gap.
struct gap_sampler {
  struct sample { uint64_t index, time_ps, gap_ps; };
  std::vector<sample> s;
  uint64_t th, last_time = 0;
  explicit gap_sampler(uint64_t th_ps) : th(th_ps) {}
  void add(uint64_t i, uint64_t t) {
    if (s.empty()) s.push_back({i, t, 0});
    else {
      const uint64_t gap = t - last_time;
      if (s.back().index + 1 == i) s.back().gap_ps = gap;   // the first gap of a sample sets its rate
      else if (uint64_t(std::llabs(int64_t(gap) - int64_t(s.back().gap_ps))) > th) s.push_back({i, t, gap});
    }
    last_time = t;
  }
  uint64_t time_of(uint64_t i) const {
    const sample* at = &s.front();
    for (const sample& x : s)
      if (x.index <= i) at = &x;
    return at->time_ps + (i - at->index) * at->gap_ps;
  }
};

// A send-time series: bursts at line rate or paced, idle gaps, and rate drift inside bursts.
std::vector<uint64_t> random_series(rng& r, size_t n) {
  std::vector<uint64_t> t(n);
  uint64_t now = r.below(1'000'000), gap = 1'200'000;
  for (size_t i = 0; i < n; ++i) {
    t[i] = now;
    switch (r.below(10)) {
      case 0: gap = 100'000 + r.below(20'000'000); break;           // a new rate
      case 1: now += r.below(200'000'000); break;                    // idle (RTO, window)
      case 2: gap = gap + r.below(200'000) - std::min<uint64_t>(gap, 100'000); break;   // drift
      default: break;
    }
    now += gap + r.below(3) * r.below(50'000);                       // jitter
  }
  return t;
}

TEST(DeterSampler, EveryPacketWithinThresholdOnRandomSeries) {
  rng r(7);
  uint64_t packets = 0, samples = 0;
  for (int series = 0; series < 3000; ++series) {
    const uint64_t th = series % 5 == 0 ? 0 : r.below(10'000'000);   // 0 to 10 us, th = 0 every fifth
    const std::vector<uint64_t> t = random_series(r, 1 + r.below(400));
    deter_sampler s(th);
    for (size_t i = 0; i < t.size(); ++i) s.add(i, t[i]);
    s.finish();
    const std::vector<uint64_t> rebuilt = deter_sampler::times(s.samples(), 0, t.size());
    for (size_t i = 0; i < t.size(); ++i) {
      ASSERT_LE(uint64_t(std::llabs(int64_t(rebuilt[i]) - int64_t(t[i]))), th) << "series " << series << " packet " << i;
      ASSERT_EQ(rebuilt[i], deter_sampler::time_of(s.samples(), i));
    }
    packets += t.size();
    samples += s.samples().size();
  }
  EXPECT_LT(samples, packets);   // it does sample
}

TEST(DeterSampler, ConstantRateIsOneSampleAndThZeroIsExact) {
  deter_sampler s(0);
  for (uint64_t i = 0; i < 1000; ++i) s.add(i, 5'000 + i * 1'230'400);
  s.finish();
  ASSERT_EQ(s.samples().size(), 1u);
  for (uint64_t i = 0; i < 1000; ++i) EXPECT_EQ(deter_sampler::time_of(s.samples(), i), 5'000 + i * 1'230'400);
}

TEST(DeterSampler, RejectsTimesGoingBack) {
  deter_sampler s(5'000'000);
  s.add(0, 100);
  EXPECT_THROW(s.add(1, 99), std::invalid_argument);
}

// Figure 6.5's case: one burst with no idle gap whose rate drifts (a second flow joins the
// link). Each gap differs from the last by less than th, so the gap-based sampler never samples
// again and its error grows far past th; the rate-based sampler stays within th.
TEST(DeterSampler, GapSamplerFailsOnDriftingRateWhereRateSamplerHolds) {
  const uint64_t th = 5'000'000;   // 5 us
  std::vector<uint64_t> t;
  uint64_t now = 0, gap = 1'200'000;   // 1500 B at 10G
  for (int i = 0; i < 500; ++i) {
    t.push_back(now);
    now += gap;
    if (i >= 96 && gap < 2'400'000) gap += 20'000;   // drifts to half rate: 20 ns more per packet
  }
  gap_sampler g(th);
  deter_sampler s(th);
  for (size_t i = 0; i < t.size(); ++i) {
    g.add(i, t[i]);
    s.add(i, t[i]);
  }
  s.finish();
  uint64_t gap_err = 0, rate_err = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    gap_err = std::max<uint64_t>(gap_err, uint64_t(std::llabs(int64_t(g.time_of(i)) - int64_t(t[i]))));
    rate_err = std::max<uint64_t>(rate_err, uint64_t(std::llabs(int64_t(deter_sampler::time_of(s.samples(), i)) - int64_t(t[i]))));
  }
  EXPECT_EQ(g.s.size(), 1u);     // never resampled
  EXPECT_GT(gap_err, 5 * th);    // the control fails: its error grows unbounded
  EXPECT_LE(rate_err, th);
  EXPECT_GT(s.samples().size(), 1u);
}

}  // namespace
}  // namespace netasic
