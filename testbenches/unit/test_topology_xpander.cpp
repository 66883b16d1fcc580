// Xpander (Valadarsky et al., CoNEXT'16, §3): a random L-lift of K_{d+1}, checked against
// arithmetic on many seeds and sizes: (d+1)L ToRs, each with exactly d fabric links and h hosts,
// no self-loops or parallel links, connected, N*h + N*d/2 links, every link between two
// different vertices of K_{d+1} and each K_{d+1} edge lifted to a perfect matching; the same seed
// gives the same graph. Then the Flattened Clos paper's Fig. 3 claim in a small form: shortest-
// path ECMP on an Xpander of tens of ToRs has a cyclic buffer dependency.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>

#include "fabric/route_controller.h"
#include "fabric/route_planner.h"
#include "topology/xpander.h"
#include "topology_checks.h"

using namespace netasic;

namespace {
xpander_spec xp(unsigned d, unsigned lifts, unsigned h, uint64_t seed) {
  xpander_spec s;
  s.degree = d, s.lifts = lifts, s.host_ports = h, s.seed = seed;
  s.host_rate_bps = 25'000'000'000, s.uplink_rate_bps = 100'000'000'000, s.delay_ps = 500'000;
  return s;
}
std::string thrown(const xpander_spec& s) {
  try {
    build_xpander(s);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(TopologyXpander, RegularSimpleConnectedLiftsOfTheCompleteGraph) {
  struct size { unsigned d, L; };
  for (const size z : {size{2, 1}, size{2, 5}, size{3, 2}, size{4, 4}, size{5, 6}, size{7, 9}, size{13, 20}})
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      SCOPED_TRACE(testing::Message() << "d=" << z.d << " L=" << z.L << " seed=" << seed);
      const topology t = build_xpander(xp(z.d, z.L, 2, seed));
      const unsigned n = (z.d + 1) * z.L;
      ASSERT_EQ(t.switches.size(), n);
      ASSERT_EQ(t.hosts.size(), n * 2);
      ASSERT_EQ(t.links.size(), n * 2 + n * z.d / 2);
      const auto fab = topo_check::fabric_degree(t), hosts = topo_check::host_degree(t);
      for (unsigned s : t.switches) {
        ASSERT_EQ(fab[s], z.d) << t.nodes[s].name;
        ASSERT_EQ(hosts[s], 2u) << t.nodes[s].name;
      }
      ASSERT_EQ(topo_check::self_loops(t), 0u);
      for (const auto& [pair, count] : topo_check::pair_counts(t)) ASSERT_EQ(count, 1u) << t.nodes[pair.first].name << "-" << t.nodes[pair.second].name;
      ASSERT_TRUE(topo_check::switches_connected(t));
      ASSERT_TRUE(topo_check::ports_consistent(t));
    }
  // The lift's structure, from the edge list: ToR x lies over vertex x / L of K_{d+1}; every edge
  // joins two different vertices, and each vertex pair gets exactly L edges, one per ToR of each.
  const unsigned d = 6, L = 7;
  const auto edges = xpander_edges(d, L, 11);
  ASSERT_EQ(edges.size(), (d + 1) * d / 2 * L);
  std::map<std::pair<unsigned, unsigned>, unsigned> per_pair;
  std::map<std::pair<unsigned, unsigned>, unsigned> per_tor_and_vertex;   // (ToR, other vertex) -> links
  for (const auto& [x, y] : edges) {
    ASSERT_NE(x / L, y / L);
    ++per_pair[{x / L, y / L}];
    ++per_tor_and_vertex[{x, y / L}], ++per_tor_and_vertex[{y, x / L}];
  }
  EXPECT_EQ(per_pair.size(), (d + 1) * d / 2);
  for (const auto& [p, c] : per_pair) EXPECT_EQ(c, L);
  EXPECT_EQ(per_tor_and_vertex.size(), (d + 1) * L * d);
  for (const auto& [p, c] : per_tor_and_vertex) EXPECT_EQ(c, 1u);
}

TEST(TopologyXpander, SeededAndReproducible) {
  EXPECT_EQ(xpander_edges(5, 8, 3), xpander_edges(5, 8, 3));
  EXPECT_NE(xpander_edges(5, 8, 3), xpander_edges(5, 8, 4));
  const topology x = build_xpander(xp(4, 6, 1, 9)), y = build_xpander(xp(4, 6, 1, 9));
  ASSERT_EQ(x.links.size(), y.links.size());
  for (size_t i = 0; i < x.links.size(); ++i) EXPECT_EQ(x.links[i].name, y.links[i].name);
  // L = 1 is K_{d+1} itself.
  EXPECT_EQ(build_xpander(xp(4, 1, 1, 1)).links.size(), 5u + 10u);
}

TEST(TopologyXpander, ImpossibleShapesNameTheirKey) {
  EXPECT_EQ(thrown(xp(1, 4, 1, 1)).rfind("fabric_ports:", 0), 0u);
  EXPECT_EQ(thrown(xp(3, 0, 1, 1)).rfind("lifts:", 0), 0u);
  EXPECT_EQ(thrown(xp(3, 4, 1, 1)), "");
}

// Fig. 3 of the Flattened Clos paper (notes L117-131): with shortest-path ECMP the probability of
// a CBD on an expander quickly reaches one with tens of ToRs. Xpanders of d = 5 and 30 to 48
// ToRs, ten seeds each, all have one; the control, K_6 (L = 1: every path one hop), has none.
TEST(TopologyXpander, ShortestPathEcmpHasACyclicBufferDependency) {
  switch_config sw;
  for (const unsigned L : {5u, 8u})
    for (uint64_t seed = 1; seed <= 10; ++seed) {
      const topology t = build_xpander(xp(5, L, 1, seed));
      const route_plan plan = plan_fabric_routes(t, sw);
      EXPECT_FALSE(plan.cbd_cycle.empty()) << "L=" << L << " seed " << seed;
    }
  const route_plan k6 = plan_fabric_routes(build_xpander(xp(5, 1, 1, 1)), sw);
  EXPECT_TRUE(k6.cbd_cycle.empty()) << k6.cbd_cycle;
}
