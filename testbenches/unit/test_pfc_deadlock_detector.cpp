// The PFC deadlock detector's cycle walk (switch/pfc_deadlock_detector.h) on hand-made pause
// graphs (the 4-switch ring's cycle, a chain without one, two cycles, a cycle with one queue still
// sending) and on thousands of random graphs against an independent golden model: Kahn's
// topological sort says whether a graph has a cycle at all, and every cycle reported must be
// made of real edges, of distinct queues, and share no queue with another.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "common/rng.h"
#include "switch/pfc_deadlock_detector.h"

using namespace netasic;

namespace {

constexpr uint64_t us = 1'000'000;

// Queues paused at 0, never dequeued, waiting as given.
std::vector<paused_queue> graph_of(const std::vector<std::vector<unsigned>>& waits) {
  std::vector<paused_queue> g;
  for (const auto& w : waits) g.push_back({0, 0, w});
  return g;
}

// Kahn: true when the graph has a cycle (some node is never freed of in-edges).
bool golden_cyclic(const std::vector<std::vector<unsigned>>& g) {
  std::vector<unsigned> in(g.size());
  for (const auto& e : g)
    for (unsigned v : e) ++in[v];
  std::vector<unsigned> ready;
  for (unsigned i = 0; i < g.size(); ++i)
    if (!in[i]) ready.push_back(i);
  size_t done = 0;
  while (!ready.empty()) {
    const unsigned u = ready.back();
    ready.pop_back();
    ++done;
    for (unsigned v : g[u])
      if (--in[v] == 0) ready.push_back(v);
  }
  return done != g.size();
}

bool has_edge(const std::vector<std::vector<unsigned>>& g, unsigned a, unsigned b) {
  return std::find(g[a].begin(), g[a].end(), b) != g[a].end();
}

}  // namespace

TEST(PfcDeadlockDetector, RingCycleOfFourQueues) {
  // §6.2's CBD: e1 waits on e2, e2 on e3, e3 on e4, e4 on e1.
  const pfc_deadlock_detector d(500 * us);
  const auto cycles = d.check(graph_of({{1}, {2}, {3}, {0}}), 600 * us);
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0], (std::vector<unsigned>{0, 1, 2, 3}));
}

TEST(PfcDeadlockDetector, ChainWithoutCycleIsNoDeadlock) {
  // A congestion tree: every queue paused, but the last waits on nothing (its egress drains).
  const pfc_deadlock_detector d(500 * us);
  EXPECT_TRUE(d.check(graph_of({{1}, {2}, {3}, {}}), 600 * us).empty());
  EXPECT_TRUE(d.check(graph_of({{1, 2}, {3}, {3}, {}}), 600 * us).empty());   // a diamond
}

TEST(PfcDeadlockDetector, TwoCyclesAreBothReported) {
  // 0->1->2->0 and 3->4->3, with a chain 5->0 into the first.
  const pfc_deadlock_detector d(500 * us);
  const auto cycles = d.check(graph_of({{1}, {2}, {0}, {4}, {3}, {0}}), 600 * us);
  ASSERT_EQ(cycles.size(), 2u);
  EXPECT_EQ(cycles[0], (std::vector<unsigned>{0, 1, 2}));
  EXPECT_EQ(cycles[1], (std::vector<unsigned>{3, 4}));
}

TEST(PfcDeadlockDetector, OnlyStalledQueuesCount) {
  // The ring again, but queue 2 sent a frame 100 us ago, and queue 3's pause is 400 us old:
  // with 500 us to detect, neither is stalled, so no deadlock yet; 500 us later both are.
  std::vector<paused_queue> g = graph_of({{1}, {2}, {3}, {0}});
  g[2].last_dequeue_ps = 500 * us;
  g[3].paused_since_ps = 200 * us;
  const pfc_deadlock_detector d(500 * us);
  EXPECT_FALSE(d.stalled(g[2], 600 * us));
  EXPECT_FALSE(d.stalled(g[3], 600 * us));
  EXPECT_TRUE(d.check(g, 600 * us).empty());
  EXPECT_TRUE(d.check(g, 999 * us).empty());
  EXPECT_EQ(d.check(g, 1000 * us).size(), 1u);
}

TEST(PfcDeadlockDetector, RandomGraphsAgainstKahn) {
  rng r(7);
  unsigned cyclic = 0;
  for (int trial = 0; trial < 5000; ++trial) {
    const unsigned n = 1 + unsigned(r.uniform() * 12);
    const double p = r.uniform() * 0.3;
    std::vector<std::vector<unsigned>> g(n);
    for (unsigned a = 0; a < n; ++a)
      for (unsigned b = 0; b < n; ++b)
        if (r.uniform() < p) g[a].push_back(b);   // self-waits included: a one-queue cycle
    const auto cycles = find_wait_cycles(g);
    const bool golden = golden_cyclic(g);
    cyclic += golden;
    ASSERT_EQ(!cycles.empty(), golden) << "trial " << trial;
    std::set<unsigned> seen;
    for (const auto& c : cycles) {
      ASSERT_FALSE(c.empty());
      for (size_t i = 0; i < c.size(); ++i) {
        ASSERT_TRUE(has_edge(g, c[i], c[(i + 1) % c.size()])) << "trial " << trial;
        ASSERT_TRUE(seen.insert(c[i]).second) << "trial " << trial << ": queue " << c[i] << " twice";
      }
    }
    ASSERT_EQ(find_wait_cycles(g), cycles);   // deterministic
  }
  EXPECT_GT(cyclic, 1000u);   // both kinds were drawn often
  EXPECT_LT(cyclic, 4000u);
}
