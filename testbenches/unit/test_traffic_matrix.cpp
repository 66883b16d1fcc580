// Traffic matrices of the throughput analysis (Flattened Clos paper, §4.2): the Hungarian
// assignment against every permutation of small random matrices, the near-worst permutation on
// a ring (each ToR to the opposite one), uniform random's fraction and seeding, and all-to-all's
// per-host normalisation.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <vector>

#include "common/rng.h"
#include "topology/traffic_matrix.h"

using namespace netasic;

namespace {

// n switches in a ring, `hosts` hosts each.
topology ring(unsigned n, unsigned hosts) {
  topology t;
  for (unsigned i = 0; i < n; ++i) t.add_node(node_kind::sw, "s" + std::to_string(i), 1);
  for (unsigned i = 0; i < n; ++i)
    for (unsigned h = 0; h < hosts; ++h) t.connect(t.add_node(node_kind::host, "h", 0), i, 1, 1, "h");
  for (unsigned i = 0; i < n; ++i) t.connect(i, (i + 1) % n, 1, 1, "r");
  return t;
}

}  // namespace

TEST(TrafficMatrix, HungarianFindsTheBestPermutation) {
  rng r(9);
  for (int trial = 0; trial < 200; ++trial) {
    const size_t n = 1 + r.below(6);
    std::vector<std::vector<double>> w(n, std::vector<double>(n));
    for (auto& row : w)
      for (double& x : row) x = double(r.below(10));
    std::vector<unsigned> p(n);
    std::iota(p.begin(), p.end(), 0u);
    double best = -1;
    do {
      double s = 0;
      for (size_t i = 0; i < n; ++i) s += w[i][p[i]];
      best = std::max(best, s);
    } while (std::next_permutation(p.begin(), p.end()));
    const std::vector<unsigned> got = max_weight_assignment(w);
    EXPECT_EQ(std::set<unsigned>(got.begin(), got.end()).size(), n);
    double s = 0;
    for (size_t i = 0; i < n; ++i) s += w[i][got[i]];
    EXPECT_EQ(s, best) << "trial " << trial;
  }
}

TEST(TrafficMatrix, NearWorstPermutationOnARingIsOpposite) {
  const topology t = ring(6, 2);
  const traffic_matrix m = near_worst_permutation(t);
  ASSERT_EQ(m.demands.size(), 6u);
  for (const demand& d : m.demands) {
    EXPECT_EQ((d.src + 3) % 6, d.dst);   // distance 3, the most any pair has
    EXPECT_EQ(d.rate, 2.0);              // both hosts at line rate
  }
}

TEST(TrafficMatrix, UniformRandomPicksAFractionSeeded) {
  const topology t = ring(21, 1);
  const traffic_matrix a = uniform_random_traffic(t, 0.1, 1), b = uniform_random_traffic(t, 0.1, 1), c = uniform_random_traffic(t, 0.1, 2);
  std::map<unsigned, std::set<unsigned>> to;
  for (const demand& d : a.demands) {
    EXPECT_NE(d.src, d.dst);
    EXPECT_EQ(d.rate, 0.5);   // round(0.1 * 20) = 2 peers, half a line rate each
    EXPECT_TRUE(to[d.src].insert(d.dst).second);
  }
  EXPECT_EQ(to.size(), 21u);
  for (const auto& [s, peers] : to) EXPECT_EQ(peers.size(), 2u);
  auto same = [](const traffic_matrix& x, const traffic_matrix& y) {
    return std::equal(x.demands.begin(), x.demands.end(), y.demands.begin(), y.demands.end(),
                      [](const demand& p, const demand& q) { return p.src == q.src && p.dst == q.dst; });
  };
  EXPECT_TRUE(same(a, b));
  EXPECT_FALSE(same(a, c));
  EXPECT_THROW(uniform_random_traffic(t, 0, 1), std::invalid_argument);
  EXPECT_THROW(uniform_random_traffic(t, 1.5, 1), std::invalid_argument);
}

TEST(TrafficMatrix, AllToAllSendsEachHostsLineRate) {
  const topology t = ring(5, 3);
  const traffic_matrix m = all_to_all_traffic(t);
  EXPECT_EQ(m.demands.size(), 20u);
  std::map<unsigned, double> out;
  for (const demand& d : m.demands) out[d.src] += d.rate;
  for (const auto& [s, rate] : out) EXPECT_NEAR(rate, 3.0, 1e-12);   // 3 hosts x line rate
}
