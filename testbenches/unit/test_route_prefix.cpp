// Route tables keyed by destination prefix (switch/route_table.h, fabric/route_controller.h):
// the tables the planners install, looked up in the core as the switch looks them up, give the
// same next hops as per-host routes computed here independently (a BFS per destination host and
// ECMP over every shortest next hop; for up-down routing, the turns the paths make, per host).
// Random fabrics of every builder, hosts hung off non-edge switches (a /32 beside its switch's
// prefix), failed fabric and host links; thousands of random lookups each.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "common/rng.h"
#include "fabric/route_controller.h"
#include "fabric/route_planner.h"
#include "topology/cbd_check.h"
#include "topology/flattened_clos.h"
#include "topology/jellyfish.h"
#include "topology/topology.h"
#include "topology/updown_routing.h"
#include "topology/xpander.h"

using namespace netasic;

namespace {

constexpr uint64_t g100 = 100'000'000'000;

// Per-host ECMP, the golden model: at each switch the ascending ports to a neighbour switch one
// hop closer to the destination's switch over links that are up; at that switch the host's port.
std::vector<std::vector<std::vector<unsigned>>> per_host_ecmp(const topology& t) {
  std::vector<std::vector<std::vector<unsigned>>> ports(t.switches.size(), std::vector<std::vector<unsigned>>(t.hosts.size()));
  for (unsigned d = 0; d < t.hosts.size(); ++d) {
    const topo_link& hl = t.links[t.nodes[t.hosts[d]].port_link[0]];
    if (hl.failed) continue;
    const unsigned edge = hl.other(t.hosts[d]);
    std::vector<unsigned> dist(t.nodes.size(), ~0u);
    std::deque<unsigned> q{edge};
    dist[edge] = 0;
    while (!q.empty()) {
      const unsigned u = q.front();
      q.pop_front();
      for (unsigned li : t.nodes[u].port_link) {
        const unsigned v = t.links[li].other(u);
        if (!t.links[li].failed && t.nodes[v].kind == node_kind::sw && dist[v] == ~0u) dist[v] = dist[u] + 1, q.push_back(v);
      }
    }
    for (unsigned s = 0; s < t.switches.size(); ++s) {
      const unsigned node = t.switches[s];
      const auto& pl = t.nodes[node].port_link;
      for (unsigned p = 0; p < pl.size(); ++p) {
        const unsigned v = t.links[pl[p]].other(node);
        if (node == edge ? pl[p] == t.nodes[t.hosts[d]].port_link[0]
                         : !t.links[pl[p]].failed && t.nodes[v].kind == node_kind::sw && dist[node] != ~0u && dist[v] + 1 == dist[node])
          ports[s][d].push_back(p);
      }
    }
  }
  return ports;
}

// The plan written into one prefix-keyed core per switch, register by register as the route
// controller writes it.
std::vector<route_table> install(const topology& t, const route_plan& plan) {
  std::vector<route_table> tables;
  for (unsigned s = 0; s < t.switches.size(); ++s) {
    const auto& r = plan.per_switch[s];
    route_table rt(s, unsigned(t.nodes[t.switches[s]].port_link.size()), plan.addresses, unsigned(r.members.size()) + 1, plan.classes);
    for (unsigned p = 0; p < r.port_class.size(); ++p) EXPECT_TRUE(rt.write(route_table::reg_port_class + 4 * p, r.port_class[p]));
    for (unsigned i = 0; i < r.members.size(); ++i) EXPECT_TRUE(rt.write(route_table::reg_member + 4 * i, r.members[i]));
    for (unsigned i = 0; i < r.route.size(); ++i) EXPECT_TRUE(rt.write(route_table::reg_route + 4 * i, r.route[i]));
    EXPECT_TRUE(rt.write(route_table::reg_host_clear, 1));
    for (const auto& [h, e] : r.host_routes) EXPECT_TRUE(rt.write(route_table::reg_host_route + 4 * h, e));
    tables.push_back(std::move(rt));
  }
  return tables;
}

// Random lookups: the core's egress port against the golden group's member at hash mod size.
void expect_same_next_hops(const topology& t, uint64_t seed, unsigned lookups) {
  const route_plan plan = plan_routes(t);
  const auto golden = per_host_ecmp(t);
  const std::vector<route_table> tables = install(t, plan);
  rng r(seed);
  unsigned routed = 0;
  for (unsigned i = 0; i < lookups; ++i) {
    const unsigned s = unsigned(r.below(t.switches.size())), d = unsigned(r.below(t.hosts.size()));
    const uint32_t hash = uint32_t(r.next());
    const auto& g = golden[s][d];
    const int want = g.empty() ? -1 : int(g[hash % g.size()]);
    ASSERT_EQ(tables[s].lookup(d, hash), want) << t.nodes[t.switches[s]].name << " -> " << t.nodes[t.hosts[d]].name;
    routed += !g.empty();
  }
  EXPECT_GT(routed, lookups / 2);
  // Every (switch, host) pair once, the group's size included.
  for (unsigned s = 0; s < t.switches.size(); ++s)
    for (unsigned d = 0; d < t.hosts.size(); ++d) ASSERT_EQ(plan.entry(s, d) & 0xFFFF, golden[s][d].size());
  // The static deadlock check walks one host per prefix: the same graph (and the same cycle) as
  // the per-host routes walked for every host.
  const dependency_graph want = dependencies_of(t, [&](unsigned s, unsigned, unsigned d, std::vector<unsigned>& ports) {
    ports.insert(ports.end(), golden[s][d].begin(), golden[s][d].end());
  });
  const dependency_graph got = plan_dependencies(t, plan);
  EXPECT_EQ(got.arcs(), want.arcs());
  EXPECT_EQ(got.find_cycle(), want.find_cycle());
}

// Fail a random fraction of the links (host links among them).
void fail_some(topology& t, rng& r, unsigned per_mille) {
  for (auto& l : t.links) l.failed = r.below(1000) < per_mille;
}

// Extra hosts hung off switches that are not edge switches: numbered after every other host.
void hang_hosts(topology& t, const std::vector<unsigned>& switch_index) {
  for (unsigned i = 0; i < switch_index.size(); ++i) {
    const unsigned sw = t.switches[switch_index[i]];
    const unsigned h = t.add_node(node_kind::host, "extra" + std::to_string(i), 0);
    t.connect(h, sw, g100, 1000, "extra" + std::to_string(i) + "-" + t.nodes[sw].name);
  }
}

}  // namespace

TEST(RoutePrefix, AddressPlanIsOnePrefixPerSwitchWithHosts) {
  fat_tree_spec s;
  s.k = 4, s.host_rate_bps = s.uplink_rate_bps = g100;
  topology t = build_fat_tree(s);
  hang_hosts(t, {unsigned(t.switches.size() - 1)});   // a core switch gets a host: it becomes a prefix too
  const auto a = address_plan_of(t);
  EXPECT_EQ(a->prefixes, 4u * 4 / 2 + 1);   // k^2/2 edge switches and the core
  ASSERT_EQ(a->prefix_of_host.size(), 17u);
  for (unsigned h = 0; h < 16; ++h) EXPECT_EQ(a->prefix_of_host[h], a->prefix_of_host[h - h % 2]) << h;   // k/2 per edge
  EXPECT_EQ(a->prefix_of_host[16], 8u);
}

TEST(RoutePrefix, EcmpLookupsMatchPerHostRoutesOnRandomFabrics) {
  rng r(2024);
  for (unsigned round = 0; round < 6; ++round) {
    SCOPED_TRACE(testing::Message() << "round " << round);
    fat_tree_spec ft;
    ft.k = 4 + 2 * unsigned(r.below(2)), ft.host_rate_bps = ft.uplink_rate_bps = g100;
    topology f = build_fat_tree(ft);
    hang_hosts(f, {unsigned(f.switches.size() - 1), unsigned(f.switches.size() / 2)});   // a core and an aggregation switch
    if (round % 2) fail_some(f, r, 60);
    expect_same_next_hops(f, r.next(), 4000);

    jellyfish_spec jf;
    jf.tors = 8 + unsigned(r.below(24)), jf.fabric_ports = 3 + unsigned(r.below(3)), jf.host_ports = 1 + unsigned(r.below(4));
    if (jf.tors * jf.fabric_ports % 2) ++jf.tors;
    jf.seed = r.next(), jf.host_rate_bps = jf.uplink_rate_bps = g100;
    topology j = build_jellyfish(jf);
    if (round % 2) fail_some(j, r, 40);
    expect_same_next_hops(j, r.next(), 4000);

    xpander_spec xp;
    xp.degree = 3 + unsigned(r.below(3)), xp.lifts = 2 + unsigned(r.below(4)), xp.host_ports = 2, xp.seed = r.next();
    xp.host_rate_bps = xp.uplink_rate_bps = g100;
    topology x = build_xpander(xp);
    if (round % 2) fail_some(x, r, 40);
    expect_same_next_hops(x, r.next(), 4000);

    leaf_spine_spec ls;
    ls.leaves = 2 + unsigned(r.below(6)), ls.spines = 1 + unsigned(r.below(4)), ls.hosts_per_leaf = 1 + unsigned(r.below(5));
    ls.parallel_links = 1 + unsigned(r.below(3)), ls.host_rate_bps = ls.uplink_rate_bps = g100;
    topology l = build_leaf_spine(ls);
    hang_hosts(l, {ls.leaves});   // spine0
    if (round % 2) fail_some(l, r, 80);
    expect_same_next_hops(l, r.next(), 4000);
  }
}

// A failed host link is a null route in every switch: longer than its rack's prefix, so a frame
// for it is dropped where it enters, as per-host routes drop it, and its rack-mates still route.
TEST(RoutePrefix, AHostWhoseLinkIsDownIsANullRouteEverywhere) {
  leaf_spine_spec ls;
  ls.leaves = 3, ls.spines = 2, ls.hosts_per_leaf = 4, ls.host_rate_bps = ls.uplink_rate_bps = g100;
  topology t = build_leaf_spine(ls);
  t.links[t.nodes[t.hosts[5]].port_link[0]].failed = true;   // host5, under leaf1
  const route_plan plan = plan_routes(t);
  const std::vector<route_table> tables = install(t, plan);
  for (unsigned s = 0; s < t.switches.size(); ++s) {
    EXPECT_EQ(tables[s].lookup(5, 7), -1) << s;
    EXPECT_NE(tables[s].lookup(4, 7), -1) << s;
    EXPECT_EQ(tables[s].host_entries(), (s < 3 ? (s == 1 ? 3u : 4u) : 0u) + 1u) << s;   // attached hosts up + the null route
  }
  // Its control: with the link up every switch routes host5.
  t.links[t.nodes[t.hosts[5]].port_link[0]].failed = false;
  const std::vector<route_table> up = install(t, plan_routes(t));
  for (unsigned s = 0; s < t.switches.size(); ++s) EXPECT_NE(up[s].lookup(5, 7), -1) << s;
}

// Up-down routing: the prefix tables with ingress classes against the turns of the paths,
// expanded per destination host in the test.
TEST(RoutePrefix, UpDownLookupsMatchPerHostTurns) {
  rng r(77);
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    flattened_clos_spec s;
    s.tors = 16, s.fabric_ports = 8, s.host_ports = 3, s.seed = seed;
    s.host_rate_bps = s.uplink_rate_bps = g100;
    const topology t = build_flattened_clos(s);
    const auto pairs = updown_paths(t);
    const route_plan plan = plan_updown_routes(t, pairs);
    std::vector<unsigned> sw_index(t.nodes.size(), ~0u);
    for (unsigned i = 0; i < t.switches.size(); ++i) sw_index[t.switches[i]] = i;
    // (switch, destination host, class) -> ports, from the paths to the host's ToR.
    std::map<std::tuple<unsigned, unsigned, unsigned>, std::set<unsigned>> golden;
    for (const pair_paths& pp : pairs)
      for (const route_path& p : pp.paths)
        for (size_t i = 0; i < p.links.size(); ++i) {
          const unsigned x = p.nodes[i];
          const unsigned cls = i == 0 ? 0 : updown_port_class(t, x, t.links[p.links[i - 1]].port_on(x));
          for (unsigned d = 0; d < t.hosts.size(); ++d)
            if (t.host_switch(d) == pp.dst) golden[{sw_index[x], d, cls}].insert(t.links[p.links[i]].port_on(x));
        }
    const std::vector<route_table> tables = install(t, plan);
    for (unsigned i = 0; i < 5000; ++i) {
      const unsigned sw = unsigned(r.below(t.switches.size())), d = unsigned(r.below(t.hosts.size()));
      const auto& pl = t.nodes[t.switches[sw]].port_link;
      const unsigned in = unsigned(r.below(pl.size())), cls = updown_port_class(t, t.switches[sw], in);
      uint32_t base = 0, size = 0;
      const bool found = tables[sw].group(d, in, base, size);
      std::set<unsigned> got;
      for (uint32_t m = 0; found && m < size; ++m) got.insert(tables[sw].member(base + m));
      std::set<unsigned> want;
      if (t.host_switch(d) == t.switches[sw]) want = {t.links[t.nodes[t.hosts[d]].port_link[0]].port_on(t.switches[sw])};
      else if (const auto it = golden.find({sw, d, cls}); it != golden.end()) want = it->second;
      ASSERT_EQ(got, want) << "seed " << seed << " " << t.nodes[t.switches[sw]].name << " port " << in << " -> host" << d;
    }
  }
}
