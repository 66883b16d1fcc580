// Jellyfish (Singla et al., NSDI'12, §3): the random regular graph checked against arithmetic on
// many seeds and sizes: every ToR has exactly r fabric links and h hosts, no self-loops or
// parallel links, one connected fabric, N*h + N*r/2 links, and the same seed gives the same graph.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "topology/jellyfish.h"
#include "topology_checks.h"

using namespace netasic;

namespace {
jellyfish_spec jf(unsigned n, unsigned r, unsigned h, uint64_t seed) {
  jellyfish_spec s;
  s.tors = n, s.fabric_ports = r, s.host_ports = h, s.seed = seed;
  s.host_rate_bps = 25'000'000'000, s.uplink_rate_bps = 100'000'000'000, s.delay_ps = 500'000;
  return s;
}
std::string thrown(const jellyfish_spec& s) {
  try {
    build_jellyfish(s);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(TopologyJellyfish, RegularSimpleConnectedOnManySeedsAndSizes) {
  struct size { unsigned n, r; };
  for (const size z : {size{4, 3}, size{5, 2}, size{6, 5}, size{10, 3}, size{16, 4}, size{33, 6}, size{64, 7}, size{200, 12}})
    for (uint64_t seed = 1; seed <= 25; ++seed) {
      const topology t = build_jellyfish(jf(z.n, z.r, 3, seed));
      SCOPED_TRACE(testing::Message() << "N=" << z.n << " r=" << z.r << " seed=" << seed);
      ASSERT_EQ(t.switches.size(), z.n);
      ASSERT_EQ(t.hosts.size(), z.n * 3);
      ASSERT_EQ(t.links.size(), z.n * 3 + z.n * z.r / 2);
      const auto fab = topo_check::fabric_degree(t), hosts = topo_check::host_degree(t);
      for (unsigned s : t.switches) {
        ASSERT_EQ(fab[s], z.r) << t.nodes[s].name;
        ASSERT_EQ(hosts[s], 3u) << t.nodes[s].name;
      }
      ASSERT_EQ(topo_check::self_loops(t), 0u);
      for (const auto& [pair, count] : topo_check::pair_counts(t)) ASSERT_EQ(count, 1u) << t.nodes[pair.first].name << "-" << t.nodes[pair.second].name;
      ASSERT_TRUE(topo_check::switches_connected(t));
      ASSERT_TRUE(topo_check::ports_consistent(t));
    }
}

TEST(TopologyJellyfish, SeededAndReproducible) {
  const auto a = jellyfish_edges(40, 5, 7), b = jellyfish_edges(40, 5, 7), c = jellyfish_edges(40, 5, 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  const topology x = build_jellyfish(jf(40, 6, 2, 3)), y = build_jellyfish(jf(40, 6, 2, 3));
  ASSERT_EQ(x.links.size(), y.links.size());
  for (size_t i = 0; i < x.links.size(); ++i) {
    EXPECT_EQ(x.links[i].name, y.links[i].name);
    EXPECT_EQ(x.links[i].a_port, y.links[i].a_port);
  }
}

TEST(TopologyJellyfish, RatesDelaysAndNames) {
  const topology t = build_jellyfish(jf(8, 3, 2, 1));
  for (const auto& l : t.links) {
    const bool host = t.nodes[l.a].kind == node_kind::host;
    EXPECT_EQ(l.rate_bps, host ? 25'000'000'000u : 100'000'000'000u);
    EXPECT_EQ(l.delay_ps, 500'000u);
    EXPECT_EQ(t.find_links(l.name).links.size(), 1u) << l.name;   // the failed_links grammar finds each
  }
  EXPECT_EQ(t.nodes[t.host_switch(5)].name, "tor2");   // hosts numbered by ToR, h = 2
}

TEST(TopologyJellyfish, ImpossibleShapesAreErrorsNamingTheField) {
  EXPECT_EQ(thrown(jf(5, 3, 1, 1)).rfind("fabric_ports: 5 ToRs x 3 fabric ports = 15", 0), 0u);   // N*r odd
  EXPECT_EQ(thrown(jf(4, 4, 1, 1)).rfind("fabric_ports: 4 fabric ports need at least 5 ToRs", 0), 0u);
  EXPECT_EQ(thrown(jf(6, 1, 1, 1)).rfind("fabric_ports:", 0), 0u);   // a perfect matching is not connected
  EXPECT_EQ(thrown(jf(1, 1, 1, 1)).rfind("tors:", 0), 0u);
  EXPECT_EQ(thrown(jf(2, 1, 1, 1)), "");                              // two ToRs and one link is a fabric
}
