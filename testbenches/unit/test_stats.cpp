// The statistics summary.json and report.html share (common/stats.h): nearest-rank percentiles
// and FCT slowdown by flow size, against values worked out by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "common/stats.h"

using namespace netasic;

TEST(Percentile, EmptyGivesZero) {
  EXPECT_EQ(percentile({}, 0), 0);
  EXPECT_EQ(percentile({}, 50), 0);
  EXPECT_EQ(percentile({}, 100), 0);
}

TEST(Percentile, OneValueIsEveryPercentile) {
  for (double p : {0.0, 1.0, 50.0, 99.0, 100.0}) EXPECT_EQ(percentile({7}, p), 7) << p;
}

TEST(Percentile, NearestRankIsAlwaysOneOfTheValues) {
  const std::vector<double> v = {1, 2, 3, 4, 5};
  EXPECT_EQ(percentile(v, 0), 1);     // rank 0: the first value
  EXPECT_EQ(percentile(v, 20), 1);    // ceil(1.0) = 1
  EXPECT_EQ(percentile(v, 21), 2);    // ceil(1.05) = 2
  EXPECT_EQ(percentile(v, 50), 3);    // ceil(2.5) = 3
  EXPECT_EQ(percentile(v, 80), 4);    // ceil(4.0) = 4
  EXPECT_EQ(percentile(v, 99), 5);    // ceil(4.95) = 5, where interpolation would give 4.96
  EXPECT_EQ(percentile(v, 100), 5);
  const std::vector<double> ten = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(percentile(ten, 90), 9);    // ceil(9.0) = 9
  EXPECT_EQ(percentile(ten, 95), 10);   // ceil(9.5) = 10, where interpolation would give 9.55
  std::vector<double> hundred;
  for (int i = 1; i <= 100; ++i) hundred.push_back(i);
  EXPECT_EQ(percentile(hundred, 50), 50);
  EXPECT_EQ(percentile(hundred, 95), 95);
  EXPECT_EQ(percentile(hundred, 99), 99);
}

// Ranks are exact: p99.9 of 1000 values is rank 999 (99.9 / 100 x 1000 in floating point is a
// hair above 999, whose ceiling would be rank 1000).
TEST(Percentile, RankIsExactWherePTimesNIsWhole) {
  std::vector<double> thousand;
  for (int i = 1; i <= 1000; ++i) thousand.push_back(i);
  EXPECT_EQ(percentile(thousand, 99.9), 999);
  EXPECT_EQ(percentile(thousand, 99.95), 1000);   // ceil(999.5)
  EXPECT_EQ(percentile(thousand, 0.1), 1);        // ceil(1.0)
  EXPECT_EQ(percentile(thousand, 0.15), 2);       // ceil(1.5)
}

TEST(Percentile, TiesHoldTheirRanks) {
  const std::vector<double> v = {2, 2, 2, 9};
  EXPECT_EQ(percentile(v, 50), 2);   // rank 2
  EXPECT_EQ(percentile(v, 75), 2);   // rank 3, still a 2
  EXPECT_EQ(percentile(v, 76), 9);   // ceil(3.04) = rank 4
  EXPECT_EQ(percentile({4, 4}, 0), 4);
  EXPECT_EQ(percentile({4, 4}, 100), 4);
}

TEST(SlowdownBySize, FixedBinsHalfOpenEmptyOnesLeftOut) {
  const std::vector<uint64_t>& e = slowdown_bin_edges();
  EXPECT_EQ(e, (std::vector<uint64_t>{0, 3'000, 12'000, 48'000, 192'000, 768'000, 3'000'000,
                                      slowdown_bin::no_upper_bound}));
  // Given out of order: each edge belongs to the bin it opens.
  const std::vector<sized_slowdown> flows = {{3'000'000, 6}, {11'999, 4}, {0, 1},  {12'000, 5},
                                             {2'999, 2},     {3'000, 3},  {UINT64_MAX - 1, 7}};
  const std::vector<slowdown_bin> b = slowdown_by_size(flows);
  ASSERT_EQ(b.size(), 4u);
  // [0, 3 kB): slowdowns {1, 2}, sizes {0, 2999}. p50 rank 1; p95 rank ceil(1.9) = 2.
  EXPECT_EQ(b[0].min_bytes, 0u);
  EXPECT_EQ(b[0].max_bytes, 3'000u);
  EXPECT_EQ(b[0].flows, 2u);
  EXPECT_EQ(b[0].median_bytes, 0);
  EXPECT_EQ(b[0].p50, 1);
  EXPECT_EQ(b[0].p95, 2);
  EXPECT_EQ(b[0].p99, 2);
  // [3 kB, 12 kB): {3, 4}.
  EXPECT_EQ(b[1].min_bytes, 3'000u);
  EXPECT_EQ(b[1].max_bytes, 12'000u);
  EXPECT_EQ(b[1].flows, 2u);
  EXPECT_EQ(b[1].median_bytes, 3'000);
  EXPECT_EQ(b[1].p50, 3);
  EXPECT_EQ(b[1].p99, 4);
  // [12 kB, 48 kB): the one flow is every percentile.
  EXPECT_EQ(b[2].min_bytes, 12'000u);
  EXPECT_EQ(b[2].flows, 1u);
  EXPECT_EQ(b[2].median_bytes, 12'000);
  EXPECT_EQ(b[2].p50, 5);
  EXPECT_EQ(b[2].p99, 5);
  // 48 kB to 3 MB: no flow, no bin. 3 MB and up: open ended.
  EXPECT_EQ(b[3].min_bytes, 3'000'000u);
  EXPECT_EQ(b[3].max_bytes, slowdown_bin::no_upper_bound);
  EXPECT_EQ(b[3].flows, 2u);
  EXPECT_EQ(b[3].p50, 6);
  EXPECT_EQ(b[3].p95, 7);
}

TEST(SlowdownBySize, PercentilesWithinABin) {
  // 100 flows of 1 kB with slowdowns 100, 99, ..., 1: nearest rank gives p50 = 50, p95 = 95,
  // p99 = 99 whatever the input order.
  std::vector<sized_slowdown> flows;
  for (int i = 100; i >= 1; --i) flows.push_back({1'000, double(i)});
  const std::vector<slowdown_bin> b = slowdown_by_size(flows);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].flows, 100u);
  EXPECT_EQ(b[0].median_bytes, 1'000);
  EXPECT_EQ(b[0].p50, 50);
  EXPECT_EQ(b[0].p95, 95);
  EXPECT_EQ(b[0].p99, 99);
  EXPECT_TRUE(slowdown_by_size({}).empty());
}

// By selection, in any order, the same value as in sorted order: a shuffled 1..1000 gives the
// rank itself.
TEST(Percentile, UnsortedBySelectionGivesTheSameRank) {
  std::vector<double> v;
  for (int i = 1; i <= 1000; ++i) v.push_back(i);
  std::reverse(v.begin(), v.begin() + 500);
  std::rotate(v.begin(), v.begin() + 337, v.end());
  for (const auto& [p, want] : std::vector<std::pair<double, double>>{{0, 1}, {50, 500}, {99, 990}, {99.9, 999}, {100, 1000}}) {
    std::vector<double> w = v;
    EXPECT_EQ(percentile_unsorted(w, p), want) << p;
  }
  std::vector<double> none;
  EXPECT_EQ(percentile_unsorted(none, 50), 0);
}

// A percentile outside 0..100 is a caller's bug: it is refused, not clamped.
TEST(Percentile, OutsideZeroToHundredIsRefused) {
  const std::vector<double> v = {1, 2, 3};
  EXPECT_THROW(percentile(v, -1), std::invalid_argument);
  EXPECT_THROW(percentile(v, 100.5), std::invalid_argument);
  EXPECT_EQ(percentile(v, 100), 3);
}

// Student t quantiles against published table values (e.g. NIST/SEMATECH e-Handbook, table
// 1.3.6.7.2) and the two closed forms: df 1 is Cauchy, tan(pi (p - 1/2)); df 2 is
// (2p - 1) / sqrt(2p (1 - p)).
TEST(StudentT, QuantilesMatchTablesAndClosedForms) {
  const double pi = std::acos(-1.0);
  for (double p : {0.6, 0.9, 0.975, 0.995}) {
    EXPECT_NEAR(student_t_quantile(p, 1), std::tan(pi * (p - 0.5)), 1e-9 * std::tan(pi * (p - 0.5))) << p;
    EXPECT_NEAR(student_t_quantile(p, 2), (2 * p - 1) / std::sqrt(2 * p * (1 - p)), 1e-10) << p;
  }
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.706, 5e-4);
  EXPECT_NEAR(student_t_quantile(0.975, 2), 4.303, 5e-4);
  EXPECT_NEAR(student_t_quantile(0.975, 4), 2.776, 5e-4);
  EXPECT_NEAR(student_t_quantile(0.975, 9), 2.262, 5e-4);
  EXPECT_NEAR(student_t_quantile(0.975, 29), 2.045, 5e-4);
  EXPECT_NEAR(student_t_quantile(0.995, 4), 4.604, 5e-4);
  EXPECT_NEAR(student_t_quantile(0.95, 10), 1.812, 5e-4);
  EXPECT_NEAR(student_t_quantile(0.975, 1e7), 1.959964, 1e-5);   // the normal's 97.5 % point
  EXPECT_DOUBLE_EQ(student_t_quantile(0.025, 4), -student_t_quantile(0.975, 4));
  EXPECT_THROW(student_t_quantile(1, 4), std::invalid_argument);
  EXPECT_THROW(student_t_quantile(0.9, 0), std::invalid_argument);
}

// Five seeds 1, 2, 3, 4, 10: mean 4, squares about the mean 9 + 4 + 1 + 0 + 36 = 50, s = sqrt(50/4)
// = 3.5355; the 95 % interval is 4 +- 2.776445 x 3.5355 / sqrt(5) = 4 +- 4.3899.
TEST(SampleSpread, MeanAndStudentIntervalByHand) {
  const sample_spread s = spread_of({3, 1, 10, 4, 2}, 0.95);
  EXPECT_EQ(s.n, 5u);
  EXPECT_DOUBLE_EQ(s.mean, 4);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_NEAR(s.sd, 3.5355339, 1e-7);
  EXPECT_NEAR(s.half_width, 4.3899, 1e-4);
  EXPECT_NEAR(s.ci_low(), -0.3899, 1e-4);
  EXPECT_NEAR(s.ci_high(), 8.3899, 1e-4);
  // Two values 10 and 12: mean 11, s = sqrt(2), t(0.975, 1) = 12.7062: 11 +- 12.7062.
  const sample_spread two = spread_of({10, 12}, 0.95);
  EXPECT_NEAR(two.half_width, 12.7062, 1e-4);
  // Equal values: no spread, an interval of width 0.
  const sample_spread flat = spread_of({7, 7, 7}, 0.99);
  EXPECT_EQ(flat.half_width, 0);
  EXPECT_TRUE(flat.has_interval());
  // One value: a mean, no interval.
  EXPECT_FALSE(spread_of({5}, 0.95).has_interval());
  EXPECT_THROW(spread_of({}, 0.95), std::invalid_argument);
  EXPECT_THROW(spread_of({1, 2}, 1.0), std::invalid_argument);
}
