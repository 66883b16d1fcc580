// The statistics summary.json and report.html share (common/stats.h): nearest-rank percentiles
// and FCT slowdown by flow size, against values worked out by hand.
#include <gtest/gtest.h>

#include <algorithm>
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
