// The 3-tier Clos builder against arithmetic (counts, the degree of every switch, links only
// between adjacent tiers, each aggregation switch in its spine plane) and against the k-ary fat
// tree it must equal for P = k, T = A = k/2, S = k^2/4 (Al-Fares et al., SIGCOMM'08, §3).
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "topology/three_tier_clos.h"
#include "topology_checks.h"

using namespace netasic;

namespace {
three_tier_clos_spec clos(unsigned p, unsigned t, unsigned a, unsigned s, unsigned h) {
  three_tier_clos_spec c;
  c.pods = p, c.tors_per_pod = t, c.aggs_per_pod = a, c.spines = s, c.hosts_per_tor = h;
  c.host_rate_bps = 100'000'000'000, c.uplink_rate_bps = 400'000'000'000, c.delay_ps = 1'000'000;
  return c;
}
unsigned number_in(const std::string& name) { return unsigned(std::atoi(name.c_str() + name.find_first_of("0123456789"))); }
}  // namespace

TEST(TopologyClos, CountsDegreesAndTiers) {
  struct shape { unsigned p, t, a, s, h; };
  for (const shape z : {shape{1, 1, 1, 1, 1}, shape{2, 3, 2, 4, 5}, shape{6, 4, 3, 9, 2}, shape{3, 8, 4, 4, 16}}) {
    const topology t = build_three_tier_clos(clos(z.p, z.t, z.a, z.s, z.h));
    SCOPED_TRACE(testing::Message() << z.p << " pods, " << z.t << " ToRs, " << z.a << " aggs, " << z.s << " spines");
    const unsigned tors = z.p * z.t, aggs = z.p * z.a, plane = z.s / z.a;
    ASSERT_EQ(t.switches.size(), tors + aggs + z.s);
    ASSERT_EQ(t.hosts.size(), tors * z.h);
    ASSERT_EQ(t.links.size(), tors * z.h + tors * z.a + aggs * plane);
    const auto fab = topo_check::fabric_degree(t), hosts = topo_check::host_degree(t);
    for (unsigned s : t.switches) {
      const topo_node& n = t.nodes[s];
      const unsigned want_fab = n.tier == 1 ? z.a : n.tier == 2 ? z.t + plane : z.p;
      EXPECT_EQ(fab[s], want_fab) << n.name;
      EXPECT_EQ(hosts[s], n.tier == 1 ? z.h : 0u) << n.name;
    }
    for (const auto& l : t.links) {
      ASSERT_EQ(t.nodes[l.b].tier, t.nodes[l.a].tier + 1) << l.name;   // adjacent tiers only, lower end first
      const unsigned a = number_in(t.nodes[l.a].name), b = number_in(t.nodes[l.b].name);
      if (t.nodes[l.a].tier == 1) {
        EXPECT_EQ(a / z.t, b / z.a) << l.name;     // a ToR's aggs are in its pod
      } else if (t.nodes[l.a].tier == 2) {
        EXPECT_EQ(a % z.a, b / plane) << l.name;   // agg j reaches plane j only
      }
    }
    for (const auto& [pair, count] : topo_check::pair_counts(t)) ASSERT_EQ(count, 1u);
    ASSERT_TRUE(topo_check::switches_connected(t));
    ASSERT_TRUE(topo_check::ports_consistent(t));
    // Any two ToRs in different pods are 4 switch hops apart (ToR-agg-spine-agg-ToR); same pod, 2.
    const auto d = topo_check::switch_hops(t, t.switches[0]);
    for (unsigned i = 1; i < tors; ++i) EXPECT_EQ(d[t.switches[i]], i / z.t == 0 ? 2u : 4u);
  }
}

TEST(TopologyClos, EqualsTheKaryFatTree) {
  for (unsigned k : {2u, 4u, 6u, 8u}) {
    fat_tree_spec f;
    f.k = k, f.host_rate_bps = 100'000'000'000, f.uplink_rate_bps = 400'000'000'000, f.delay_ps = 1'000'000;
    const topology ft = build_fat_tree(f), c = build_three_tier_clos(clos(k, k / 2, k / 2, k * k / 4, k / 2));
    ASSERT_EQ(ft.nodes.size(), c.nodes.size());
    ASSERT_EQ(ft.links.size(), c.links.size());
    for (size_t i = 0; i < ft.links.size(); ++i) {
      EXPECT_EQ(ft.links[i].a, c.links[i].a);
      EXPECT_EQ(ft.links[i].b, c.links[i].b);
      EXPECT_EQ(ft.links[i].a_port, c.links[i].a_port);
      EXPECT_EQ(ft.links[i].b_port, c.links[i].b_port);
      EXPECT_EQ(ft.links[i].rate_bps, c.links[i].rate_bps);
    }
    for (size_t u = 0; u < ft.nodes.size(); ++u) EXPECT_EQ(ft.nodes[u].tier, c.nodes[u].tier);
  }
}

TEST(TopologyClos, SpinesMustFormEqualPlanes) {
  for (unsigned s : {2u, 5u}) {
    try {
      build_three_tier_clos(clos(2, 2, 3, s, 1));
      ADD_FAILURE() << s << " spines over 3 planes";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind("spines: " + std::to_string(s) + " spines cannot form 3 equal planes", 0), 0u) << e.what();
    }
  }
}
