// LossRadar's root cause analyzer (Algorithms 10 and 11, Table 5.3's parameters) on loss
// patterns built from the chapter's descriptions (§5.5.1.1): congestion is bursty with mixed
// flows, a black hole loses consecutive packets of a flow (or its SYNs), random drops spread
// evenly over time. Each expected class follows from the algorithm's rules, stated per test.
#include <vector>

#include <gtest/gtest.h>

#include "blocks/lossradar_analyzer.h"
#include "common/rng.h"

namespace netasic {
namespace {

constexpr uint64_t us = 1'000'000;

analyzed_loss loss(uint32_t src, uint32_t dst, uint16_t ip_id, uint64_t t_ps, bool syn = false, uint64_t batch = 0) {
  analyzed_loss l;
  l.t_ps = t_ps;
  l.batch = batch;
  l.sig.a = uint64_t(src) << 32 | dst;
  l.sig.b = uint64_t(1000 + src) << 48 | uint64_t(4791) << 32 | uint64_t(17) << 16 | ip_id;
  l.sig.ext = uint16_t((syn ? 1u : 0u) << 15 | 1u << 14);
  return l;
}

size_t count(const std::vector<analyzed_loss>& v, loss_class c) {
  size_t n = 0;
  for (const analyzed_loss& l : v) n += l.cls == c;
  return n;
}

TEST(LossRadarAnalyzer, ConsecutiveIpIdsWrapAtSixteenBits) {
  EXPECT_TRUE(consecutive_ip_ids({}));
  EXPECT_TRUE(consecutive_ip_ids({7}));
  EXPECT_TRUE(consecutive_ip_ids({9, 7, 8}));
  EXPECT_FALSE(consecutive_ip_ids({7, 9}));
  EXPECT_TRUE(consecutive_ip_ids({65534, 65535, 0, 1}));
  EXPECT_FALSE(consecutive_ip_ids({65534, 0, 1}));
}

// Eight flows each losing every third packet, 2 us apart: one burst (gaps < t_gap = 20 us,
// >= n_burst = 5 losses) with non-consecutive IP_IDs in a flow -> all congestion (lines 13-16).
TEST(LossRadarAnalyzer, AMixedBurstIsCongestion) {
  std::vector<analyzed_loss> v;
  for (unsigned i = 0; i < 40; ++i) v.push_back(loss(i % 8, 99, uint16_t(3 * (i / 8)), 1000 * us + i * 2 * us));
  lossradar_analyze(v, {});
  EXPECT_EQ(count(v, loss_class::congestion), v.size());
}

// One flow losing 40 consecutive packets 1.2 us apart (more than n_bb = 30) beside three flows
// losing one packet each: the flow is a bursty black hole, the rest congestion (lines 17-19).
TEST(LossRadarAnalyzer, AFlowLosingAWindowInABurstIsABlackHole) {
  std::vector<analyzed_loss> v;
  for (unsigned i = 0; i < 40; ++i) v.push_back(loss(1, 2, uint16_t(100 + i), 500 * us + i * 1200 * 1000));
  for (unsigned f = 0; f < 3; ++f) v.push_back(loss(10 + f, 2, 5, 500 * us + f * 3 * us + 500 * 1000));
  lossradar_analyze(v, {});
  EXPECT_EQ(count(v, loss_class::black_hole), 40u);
  EXPECT_EQ(count(v, loss_class::congestion), 3u);
}

// Below n_bb the same consecutive burst is congestion (design principle 3: when unsure, say
// congestion).
TEST(LossRadarAnalyzer, AShortConsecutiveBurstIsCongestion) {
  std::vector<analyzed_loss> v;
  for (unsigned i = 0; i < 20; ++i) v.push_back(loss(1, 2, uint16_t(i), 10 * us + i * us));
  lossradar_analyze(v, {});
  EXPECT_EQ(count(v, loss_class::congestion), 20u);
}

// A small flow losing 6 consecutive packets 5 ms apart (no burst; >= n_nb = 5): a non-bursty
// black hole (Algorithm 11 lines 2-4).
TEST(LossRadarAnalyzer, SpreadConsecutiveLossesOfAFlowAreABlackHole) {
  std::vector<analyzed_loss> v;
  for (unsigned i = 0; i < 6; ++i) v.push_back(loss(3, 4, uint16_t(70 + i), 1 * us + i * 5000 * us));
  lossradar_analyze(v, {});
  EXPECT_EQ(count(v, loss_class::black_hole), 6u);
}

// Twenty SYNs of twenty flows (one loss per flow, spread out) and one other loss: the SYN share
// 20/21 > p_syn = 0.9, so the SYNs are a black hole (lines 6-8).
TEST(LossRadarAnalyzer, MostlySynLossesAreABlackHole) {
  std::vector<analyzed_loss> v;
  for (unsigned i = 0; i < 20; ++i) v.push_back(loss(i, 50, 0, i * 4000 * us, true));
  v.push_back(loss(77, 50, 9, 1234 * us));
  lossradar_analyze(v, {});
  EXPECT_EQ(count(v, loss_class::black_hole), 20u);
}

// Losses of many flows at uniformly random times over the 100 ms interval: the share of
// non-empty bins is about 0.63 > p_rand = 0.5 (lines 9-10). The same number packed into the
// first 10 ms (no bursts: 200 us apart) fills at most a tenth of the bins: not random.
TEST(LossRadarAnalyzer, EvenlySpreadLossesAreRandomAndClusteredOnesAreNot) {
  rng r(9);
  std::vector<analyzed_loss> spread, clustered;
  for (unsigned i = 0; i < 50; ++i) {
    spread.push_back(loss(i, 60, uint16_t(r.below(60000)), r.below(100'000) * us));
    clustered.push_back(loss(i, 60, uint16_t(r.below(60000)), i * 200 * us));
  }
  lossradar_analyze(spread, {});
  lossradar_analyze(clustered, {});
  EXPECT_EQ(count(spread, loss_class::random), 50u);
  EXPECT_EQ(count(clustered, loss_class::random), 0u);
  EXPECT_EQ(count(clustered, loss_class::unknown), 50u);
}

TEST(LossRadarAnalyzer, TtlZeroLossesAreSetApart) {
  std::vector<analyzed_loss> v{loss(1, 2, 3, 5 * us)};
  v[0].sig.ext = 0;
  lossradar_analyze(v, {});
  EXPECT_EQ(v[0].cls, loss_class::loop);
}

}  // namespace
}  // namespace netasic
