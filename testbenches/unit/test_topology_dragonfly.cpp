// Dragonfly (Kim et al., ISCA'08, §3) against arithmetic: router degrees, complete groups, m
// global links between every pair of groups, each arrangement's rule for where a global port
// lands (Camarero et al., TACO 2014, §2.3: palm tree, group g's port q reaches group g + q + 1),
// at most local-global-local between any two routers, and the Alps-like system of the Flowcut
// paper (4 groups x 16 routers, 16 links between each pair of groups).
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>

#include "topology/dragonfly.h"
#include "topology_checks.h"

using namespace netasic;

namespace {
dragonfly_spec df(unsigned g, unsigned r, unsigned h, unsigned l, global_arrangement a) {
  dragonfly_spec s;
  s.groups = g, s.routers_per_group = r, s.hosts_per_router = h, s.global_links = l, s.arrangement = a;
  s.host_rate_bps = 200'000'000'000, s.uplink_rate_bps = 200'000'000'000, s.delay_ps = 1'000'000;
  return s;
}
unsigned group_of(const topology& t, unsigned node) { return unsigned(std::stoul(t.nodes[node].name.substr(1))); }
}  // namespace

TEST(TopologyDragonfly, DegreesGroupsAndGlobalLinkCounts) {
  struct shape { unsigned g, r, h, l; };
  for (const auto a : {global_arrangement::consecutive, global_arrangement::palm_tree})
    for (const shape z : {shape{2, 1, 1, 1}, shape{5, 4, 2, 1}, shape{9, 4, 2, 2}, shape{4, 16, 16, 3}, shape{7, 3, 1, 4}}) {
      const topology t = build_dragonfly(df(z.g, z.r, z.h, z.l, a));
      SCOPED_TRACE(testing::Message() << z.g << " groups x " << z.r << " routers, " << z.l << " global");
      const unsigned m = z.r * z.l / (z.g - 1);
      ASSERT_EQ(t.switches.size(), z.g * z.r);
      ASSERT_EQ(t.hosts.size(), z.g * z.r * z.h);
      ASSERT_EQ(t.links.size(), z.g * z.r * z.h + z.g * z.r * (z.r - 1) / 2 + z.g * z.r * z.l / 2);
      const auto fab = topo_check::fabric_degree(t), hosts = topo_check::host_degree(t);
      std::map<std::pair<unsigned, unsigned>, unsigned> between;   // (group, group) -> global links
      for (unsigned s : t.switches) {
        ASSERT_EQ(fab[s], z.r - 1 + z.l);
        ASSERT_EQ(hosts[s], z.h);
      }
      for (const auto& [pair, count] : topo_check::pair_counts(t)) {
        if (t.nodes[pair.first].kind == node_kind::host || t.nodes[pair.second].kind == node_kind::host) continue;
        const unsigned ga = group_of(t, pair.first), gb = group_of(t, pair.second);
        if (ga == gb) ASSERT_EQ(count, 1u);   // one local link per router pair of a group
        else between[{std::min(ga, gb), std::max(ga, gb)}] += count;
      }
      ASSERT_EQ(between.size(), z.g * (z.g - 1) / 2);
      for (const auto& [pair, count] : between) ASSERT_EQ(count, m) << pair.first << "-" << pair.second;
      ASSERT_EQ(topo_check::self_loops(t), 0u);
      ASSERT_TRUE(topo_check::ports_consistent(t));
      for (unsigned s : t.switches) {   // a local hop, a global hop and a local hop reach any router
        const auto d = topo_check::switch_hops(t, s);
        for (unsigned o : t.switches) ASSERT_LE(d[o], 3u);
      }
    }
}

TEST(TopologyDragonfly, ArrangementRules) {
  // Palm tree (m = 1): port q of group g reaches group g + q + 1 and meets its port G - 2 - q.
  const dragonfly_spec p = df(9, 4, 1, 2, global_arrangement::palm_tree);
  for (unsigned g = 0; g < 9; ++g)
    for (unsigned q = 0; q < 8; ++q) {
      const global_end e = dragonfly_peer(p, g, q);
      EXPECT_EQ(e.group, (g + q + 1) % 9);
      EXPECT_EQ(e.port, 9 - 2 - q);
    }
  // Consecutive: group g's ports reach the other groups in increasing order, each m times in turn.
  const dragonfly_spec c = df(4, 16, 1, 3, global_arrangement::consecutive);
  for (unsigned g = 0; g < 4; ++g) {
    unsigned q = 0;
    for (unsigned copy = 0; copy < 16; ++copy)
      for (unsigned o = 0; o < 4; ++o) {
        if (o == g) continue;
        EXPECT_EQ(dragonfly_peer(c, g, q).group, o) << g << ":" << q;
        ++q;
      }
  }
  for (const auto& s : {p, c})   // every link is met from both ends
    for (unsigned g = 0; g < s.groups; ++g)
      for (unsigned q = 0; q < s.routers_per_group * s.global_links; ++q) {
        const global_end e = dragonfly_peer(s, g, q), back = dragonfly_peer(s, e.group, e.port);
        EXPECT_EQ(back.group, g);
        EXPECT_EQ(back.port, q);
      }
}

TEST(TopologyDragonfly, GlobalPortsMustSpreadEvenly) {
  try {
    build_dragonfly(df(4, 4, 1, 1, global_arrangement::palm_tree));   // 4 ports over 3 groups
    ADD_FAILURE() << "uneven global ports accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("global_links: a group's 4 routers x 1 global links = 4 global ports cannot be spread evenly over the 3 other groups", 0), 0u) << e.what();
  }
}
