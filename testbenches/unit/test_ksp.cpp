// k shortest loopless paths (Yen), the Flattened Clos paper's 32-way KSP baseline (Fig. 7):
// against brute force (every simple path by depth-first search, sorted by length) on small
// random multigraphs, and the shortest-path enumeration ECMP's throughput uses against the
// count of shortest paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <vector>

#include "common/rng.h"
#include "topology/ksp.h"
#include "topology_checks.h"

using namespace netasic;
using topo_check::random_multigraph;

namespace {

// Lengths of every simple path from s to d over switch links, sorted.
std::vector<size_t> all_simple_lengths(const topology& t, unsigned s, unsigned d) {
  std::vector<size_t> out;
  std::vector<char> on(t.nodes.size(), 0);
  std::function<void(unsigned, size_t)> walk = [&](unsigned x, size_t len) {
    if (x == d) return out.push_back(len);
    on[x] = 1;
    for (unsigned li : t.nodes[x].port_link) {
      const unsigned y = t.links[li].other(x);
      if (t.nodes[y].kind == node_kind::sw && !on[y]) walk(y, len + 1);
    }
    on[x] = 0;
  };
  walk(s, 0);
  std::sort(out.begin(), out.end());
  return out;
}

void expect_valid(const topology& t, const route_path& p, unsigned s, unsigned d) {
  ASSERT_EQ(p.nodes.size(), p.links.size() + 1);
  EXPECT_EQ(p.nodes.front(), s);
  EXPECT_EQ(p.nodes.back(), d);
  EXPECT_EQ(std::set<unsigned>(p.nodes.begin(), p.nodes.end()).size(), p.nodes.size());
  for (size_t i = 0; i < p.links.size(); ++i) {
    const topo_link& l = t.links[p.links[i]];
    EXPECT_TRUE((l.a == p.nodes[i] && l.b == p.nodes[i + 1]) || (l.b == p.nodes[i] && l.a == p.nodes[i + 1]));
  }
}

}  // namespace

TEST(Ksp, YenMatchesBruteForceOnRandomMultigraphs) {
  rng r(77);
  for (int trial = 0; trial < 300; ++trial) {
    const unsigned n = 3 + unsigned(r.below(5)), m = unsigned(r.below(3 * n));
    const topology t = random_multigraph(n, m, r);
    const unsigned s = unsigned(r.below(n)), d = unsigned((s + 1 + r.below(n - 1)) % n), k = 1 + unsigned(r.below(12));
    const std::vector<size_t> all = all_simple_lengths(t, s, d);
    const std::vector<route_path> got = k_shortest_paths(t, s, d, k);
    ASSERT_EQ(got.size(), std::min<size_t>(k, all.size())) << "trial " << trial;
    std::set<std::vector<unsigned>> distinct;
    for (size_t i = 0; i < got.size(); ++i) {
      expect_valid(t, got[i], s, d);
      EXPECT_EQ(got[i].links.size(), all[i]) << "trial " << trial << ", path " << i;   // the i-th shortest length
      distinct.insert(got[i].links);
    }
    EXPECT_EQ(distinct.size(), got.size());
  }
}

TEST(Ksp, ShortestPathEnumerationCountsEveryShortestPath) {
  rng r(5);
  const topology t = random_multigraph(8, 20, r);
  for (const pair_paths& pp : all_shortest_paths(t, 4096)) {
    const std::vector<size_t> all = all_simple_lengths(t, pp.src, pp.dst);
    const size_t shortest = all.front(), count = size_t(std::count(all.begin(), all.end(), shortest));
    ASSERT_EQ(pp.paths.size(), count);
    for (const route_path& p : pp.paths) {
      expect_valid(t, p, pp.src, pp.dst);
      EXPECT_EQ(p.links.size(), shortest);
    }
  }
  EXPECT_THROW(all_shortest_paths(t, 1), std::invalid_argument);   // some pair has two
}
