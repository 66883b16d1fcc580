// Topology builders and shortest-path ECMP planning, checked against the structure of
// leaf-spine and k-ary fat-tree networks worked out by hand.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "common/params.h"
#include "common/rng.h"
#include "fabric/route_controller.h"
#include "topology/topology.h"
#include "topology_checks.h"
#include "tlm/link.h"

using namespace netasic;

namespace {
unsigned group_size(const route_plan& p, unsigned sw, unsigned host) { return p.entry(sw, host) & 0xFFFF; }
unsigned sw_index(const topology& t, const std::string& name) {
  for (unsigned i = 0; i < t.switches.size(); ++i) if (t.nodes[t.switches[i]].name == name) return i;
  ADD_FAILURE() << "no switch " << name;
  return 0;
}
leaf_spine_spec ls(unsigned leaves, unsigned spines, unsigned hpl, unsigned par) {
  leaf_spine_spec s;
  s.leaves = leaves;
  s.spines = spines;
  s.hosts_per_leaf = hpl;
  s.parallel_links = par;
  s.host_rate_bps = 100'000'000'000;
  s.uplink_rate_bps = 400'000'000'000;
  s.delay_ps = 1'000'000;
  return s;
}
}  // namespace

TEST(Topology, LeafSpineShape) {
  const topology t = build_leaf_spine(ls(8, 4, 16, 2));
  EXPECT_EQ(t.hosts.size(), 128u);
  EXPECT_EQ(t.switches.size(), 12u);
  EXPECT_EQ(t.links.size(), 128u + 8 * 4 * 2);
  EXPECT_EQ(t.nodes[t.switches[sw_index(t, "leaf0")]].port_link.size(), 16u + 8);
  EXPECT_EQ(t.nodes[t.switches[sw_index(t, "spine0")]].port_link.size(), 16u);
}

TEST(Topology, LeafSpineEcmpGroups) {
  topology t = build_leaf_spine(ls(4, 2, 4, 2));
  route_plan p = plan_routes(t);
  EXPECT_EQ(group_size(p, sw_index(t, "leaf0"), 15), 4u);   // 2 spines x 2 parallel links
  EXPECT_EQ(group_size(p, sw_index(t, "leaf3"), 15), 1u);   // local host
  EXPECT_EQ(group_size(p, sw_index(t, "spine1"), 15), 2u);  // 2 parallel links down to leaf3
  EXPECT_TRUE(p.unreachable.empty());

  apply_failed_links(t, {"leaf0-spine1"}, "topology.failed_links");
  p = plan_routes(t);
  EXPECT_EQ(group_size(p, sw_index(t, "leaf0"), 15), 2u);   // only spine0 remains
  EXPECT_EQ(group_size(p, sw_index(t, "leaf1"), 0), 2u);    // towards leaf0: only via spine0
  apply_failed_links(t, {"leaf0-spine0#1"}, "topology.failed_links");
  EXPECT_EQ(group_size(plan_routes(t), sw_index(t, "leaf0"), 15), 1u);
}

TEST(Topology, FatTreeShapeAndGroups) {
  fat_tree_spec s;
  s.k = 4;
  s.host_rate_bps = s.uplink_rate_bps = 100'000'000'000;
  const topology t = build_fat_tree(s);
  EXPECT_EQ(t.hosts.size(), 16u);             // k^3/4
  EXPECT_EQ(t.switches.size(), 20u);          // 5k^2/4
  EXPECT_EQ(t.links.size(), 16u + 16 + 16);
  const route_plan p = plan_routes(t);
  // host15 sits under edge7 in pod 3.
  EXPECT_EQ(group_size(p, sw_index(t, "edge0"), 15), 2u);   // up to both aggs of pod 0
  EXPECT_EQ(group_size(p, sw_index(t, "agg0"), 15), 2u);    // up to both of its cores
  EXPECT_EQ(group_size(p, sw_index(t, "core0"), 15), 1u);   // down to pod 3
  EXPECT_EQ(group_size(p, sw_index(t, "agg6"), 15), 1u);    // pod 3 agg down to edge7
  EXPECT_EQ(group_size(p, sw_index(t, "edge6"), 15), 2u);   // same pod, other edge: via both aggs
  EXPECT_EQ(t.distances_from(t.hosts[0])[t.hosts[15]], 6u);
}

TEST(Topology, FaultErrorsNameKeyAndEntry) {
  topology t = build_leaf_spine(ls(2, 2, 1, 1));
  try {
    apply_failed_links(t, {"leaf0-spine9"}, "topology.failed_links");
    FAIL() << "expected config_error";
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find("topology.failed_links"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("leaf0-spine9"), std::string::npos);
  }
  EXPECT_THROW(apply_degraded_links(t, {"leaf0-spine1#0"}, "topology.degraded_links"), config_error);
  EXPECT_THROW(apply_degraded_links(t, {"leaf0-spine1#0=-3"}, "topology.degraded_links"), config_error);
  apply_degraded_links(t, {"spine1-leaf0#0=10"}, "topology.degraded_links");
  for (const auto& l : t.links)
    EXPECT_EQ(l.rate_bps, l.name == "leaf0-spine1#0" ? 10'000'000'000ull
                                                     : (l.name.rfind("host", 0) == 0 ? 100'000'000'000ull : 400'000'000'000ull));
}

// A link named twice (directly, or once by its pair and once by its index) is a typo for another
// link: refused, naming the link. A rate past what a 64-bit rate holds is "not below" the
// link's own, where converting it first wrapped and called it below the smallest rate.
TEST(Topology, ALinkListedTwiceOrAHugeRateIsRefused) {
  auto error = [](const std::function<void(topology&)>& f) {
    topology t = build_leaf_spine(ls(2, 2, 1, 2));
    try {
      f(t);
    } catch (const config_error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::string f = "topology.failed_links", d = "topology.degraded_links";
  EXPECT_EQ(error([&](topology& t) { apply_failed_links(t, {"leaf0-spine0#0", "spine0-leaf0#0"}, f); }),
            "key 'topology.failed_links': entry 'spine0-leaf0#0': link leaf0-spine0#0 is listed twice");
  EXPECT_EQ(error([&](topology& t) { apply_failed_links(t, {"leaf0-spine0#1", "leaf0-spine0"}, f); }),
            "key 'topology.failed_links': entry 'leaf0-spine0': link leaf0-spine0#1 is listed twice");
  EXPECT_EQ(error([&](topology& t) { apply_failed_links(t, {"leaf0-spine0#0", "leaf0-spine0#1"}, f); }), "(no error)");
  EXPECT_EQ(error([&](topology& t) { apply_degraded_links(t, {"leaf0-spine0#0=10", "leaf0-spine0#0=20"}, d); }),
            "key 'topology.degraded_links': entry 'leaf0-spine0#0=20': link leaf0-spine0#0 is listed twice");
  EXPECT_EQ(error([&](topology& t) { apply_degraded_links(t, {"leaf0-spine0#0=1e12"}, d); }),
            "key 'topology.degraded_links': entry 'leaf0-spine0#0=1e12': 1e12 Gbps is not below the link's own rate of 400 Gbps");
  EXPECT_EQ(error([&](topology& t) { apply_degraded_links(t, {"leaf0-spine0#0=1e-4"}, d); }),
            "key 'topology.degraded_links': entry 'leaf0-spine0#0=1e-4': 1e-4 Gbps is below the smallest rate, 0.001 Gbps");
}

// The A-B#i grammar on a leaf-spine of 2 leaves, 2 spines, a host each and 2 parallel uplinks.
// Links in order: host0-leaf0 (0), host1-leaf1 (1), leaf0-spine0 #0 #1 (2, 3), leaf0-spine1 #0 #1
// (4, 5), leaf1-spine0 (6, 7), leaf1-spine1 (8, 9).
TEST(Topology, FindLinksReadsTheLinkGrammar) {
  const topology t = build_leaf_spine(ls(2, 2, 1, 2));
  ASSERT_EQ(t.links.size(), 10u);
  EXPECT_EQ(t.find_links("leaf0-spine1").links, (std::vector<unsigned>{4, 5}));
  EXPECT_EQ(t.find_links("spine1-leaf0#1").links, (std::vector<unsigned>{5}));   // either order
  EXPECT_EQ(t.find_links("leaf1-host1").links, (std::vector<unsigned>{1}));
  EXPECT_EQ(t.find_links("host1-leaf1#0").links, (std::vector<unsigned>{1}));
  struct bad { const char* spec; const char* says; };
  for (const bad& b : {bad{"leaf0", "A-B"}, bad{"-leaf0", "A-B"}, bad{"leaf0-spine1#x", "'#x' must be the index"},
                       bad{"leaf0-spine9", "no device named 'spine9'"}, bad{"leaf0-leaf1", "no link joins leaf0 and leaf1"},
                       bad{"leaf0-spine1#2", "leaf0 and spine1 have 2 parallel links; #2 does not exist"},
                       bad{"host0-leaf0#1", "have 1 parallel link; #1 does not exist"}}) {
    const link_match m = t.find_links(b.spec);
    EXPECT_TRUE(m.links.empty()) << b.spec;
    EXPECT_NE(m.error.find(b.says), std::string::npos) << b.spec << ": " << m.error;
  }
  // leaf0-spine1#0: leaf0's fourth port (after host0 and the two to spine0), spine1's first.
  const topo_link& l = t.links[4];
  EXPECT_EQ(l.other(t.find_node("leaf0")), t.find_node("spine1"));
  EXPECT_EQ(l.port_on(t.find_node("leaf0")), 3u);
  EXPECT_EQ(l.port_on(t.find_node("spine1")), 0u);
  EXPECT_EQ(t.find_node("spine9"), topology::no_node);
}

TEST(LinkTiming, SerializationCountsPreambleAndGap) {
  // 100 Gb/s = 80 ps per byte. A 1086-byte frame: 1094 bytes with preamble to the last bit,
  // plus 12 bytes of gap before the next frame may start.
  const link_timing lt{100'000'000'000ull, 1'000'000};
  EXPECT_EQ(lt.arrival_after_ps(1086), 1094u * 80 + 1'000'000);
  EXPECT_EQ(lt.occupancy_ps(1086), 1106u * 80);
  const link_timing slow{25'000'000'000ull, 0};          // 320 ps per byte
  EXPECT_EQ(slow.occupancy_ps(64), 84u * 320);
  const link_timing odd{3'000'000'000ull, 0};            // 8/3 ns per byte: rounded up to the ps
  EXPECT_EQ(odd.wire_ps(1), 2667u);
  EXPECT_EQ(odd.wire_ps(3), 8000u);
}

// switch_graph (the route planner's and the ideal FCTs' searches) against topology::distances_from,
// which searches every node: from every switch, the same hop count to every switch, on fat trees,
// leaf-spines and Jellyfish with links failed at random. Control: the failures must change some
// distances and cut some switches off, so that links that are down are what the test reads.
TEST(SwitchGraph, DistancesAreTheTopologysFromEverySwitch) {
  rng r(20261129);
  uint64_t checked = 0, changed = 0, cut_off = 0;
  for (int n = 0; n < 60; ++n) {
    topology t = topo_check::small_fabric(n);
    const topology whole = t;
    for (topo_link& l : t.links) l.failed = r.below(6) == 0;
    const switch_graph g(t);
    std::vector<unsigned> dist, queue;
    for (unsigned s = 0; s < t.switches.size(); ++s) {
      ASSERT_EQ(g.index_of[t.switches[s]], s);
      const std::vector<unsigned> want = t.distances_from(t.switches[s]), before = whole.distances_from(whole.switches[s]);
      g.distances_from(s, dist, queue);
      ASSERT_EQ(dist.size(), t.switches.size());
      for (unsigned o = 0; o < t.switches.size(); ++o) {
        ASSERT_EQ(dist[o], want[t.switches[o]]) << "fabric " << n << ", from switch " << s << " to " << o;
        ++checked;
        changed += dist[o] != before[whole.switches[o]];
        cut_off += dist[o] == switch_graph::none;
      }
    }
    for (unsigned h : t.hosts) EXPECT_EQ(g.index_of[h], switch_graph::none);
  }
  EXPECT_GT(checked, 10000u);
  EXPECT_GT(changed, 100u);
  EXPECT_GT(cut_off, 10u);
}
