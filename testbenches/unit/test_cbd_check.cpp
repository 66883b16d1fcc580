// The static deadlock check's dependency graph (topology/cbd_check.*) against a golden model
// written from its definition: for every destination, a breadth-first walk from every other
// host's uplink over the links the tables send its frames on, asking the switch at each link
// for its next hops, and an arc from the link to each egress link towards a switch (added with
// dependency_graph::add, which keeps the first of each). The check asks a switch once per
// destination and ingress class when told the classes, and keeps its arcs as bits: the arcs out
// of every directed link must be the golden model's, in the same order, and so must the cycle
// the search finds. Random fabrics (fat trees, leaf-spines and Jellyfish, with failed links),
// random tables keyed by (switch, class, destination) with ports in any order, repeated, and
// towards hosts, and random ingress classes.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "common/rng.h"
#include "topology/cbd_check.h"
#include "topology/topology.h"
#include "topology_checks.h"

using namespace netasic;

namespace {

// A random table: per switch, a class for each in-port, and per (switch, class, destination) a
// list of egress ports. Ordered, a switch sends only to hosts and to switches of a higher index,
// so every chain of arcs climbs and the graph has no cycle.
struct random_tables {
  std::vector<std::vector<unsigned>> cls;   // [switch][port]
  std::map<std::tuple<unsigned, unsigned, unsigned>, std::vector<unsigned>> ports;
  uint64_t asked = 0;   // next_hops calls

  random_tables(const topology& t, rng& r, unsigned classes, bool ordered) {
    std::vector<unsigned> sw_of(t.nodes.size(), ~0u);
    for (unsigned s = 0; s < t.switches.size(); ++s) sw_of[t.switches[s]] = s;
    for (unsigned s = 0; s < t.switches.size(); ++s) {
      const unsigned node = t.switches[s];
      const unsigned n = unsigned(t.nodes[node].port_link.size());
      std::vector<unsigned> allowed;
      for (unsigned p = 0; p < n; ++p) {
        const unsigned to = t.links[t.nodes[node].port_link[p]].other(node);
        if (!ordered || sw_of[to] == ~0u || sw_of[to] > s) allowed.push_back(p);
      }
      cls.emplace_back(n);
      for (unsigned& c : cls.back()) c = unsigned(r.below(classes));
      for (unsigned c = 0; c < classes; ++c)
        for (unsigned d = 0; d < t.hosts.size(); ++d) {
          std::vector<unsigned>& v = ports[{s, c, d}];
          const unsigned k = allowed.empty() ? 0 : unsigned(r.below(4));   // 0 (a dead end) to 3, a port twice now and then
          for (unsigned i = 0; i < k; ++i) v.push_back(allowed[r.below(allowed.size())]);
        }
    }
  }
  next_hops_fn next_hops() {
    return [this](unsigned s, unsigned in_port, unsigned d, std::vector<unsigned>& out) {
      ++asked;
      const std::vector<unsigned>& v = ports.at({s, cls[s][in_port], d});
      out.insert(out.end(), v.begin(), v.end());
    };
  }
  in_port_class_fn in_class() const {
    return [this](unsigned s, unsigned in_port) { return cls[s][in_port]; };
  }
};

// The golden model, from the definition.
dependency_graph golden(const topology& t, const next_hops_fn& next_hops) {
  dependency_graph g(t);
  std::vector<unsigned> sw_of(t.nodes.size(), ~0u);
  for (unsigned s = 0; s < t.switches.size(); ++s) sw_of[t.switches[s]] = s;
  for (unsigned d = 0; d < t.hosts.size(); ++d) {
    std::vector<bool> seen(2 * t.links.size(), false);
    std::deque<unsigned> q;
    for (unsigned h = 0; h < t.hosts.size(); ++h) {
      const unsigned li = t.nodes[t.hosts[h]].port_link[0];
      if (h == d || t.links[li].failed) continue;
      const unsigned up = directed_link(t, li, t.hosts[h]);
      seen[up] = true;
      q.push_back(up);
    }
    while (!q.empty()) {
      const unsigned in = q.front();
      q.pop_front();
      const topo_link& l = t.links[in / 2];
      const unsigned from = in % 2 ? l.b : l.a, to = in % 2 ? l.a : l.b, to_port = in % 2 ? l.a_port : l.b_port;
      std::vector<unsigned> ports;
      next_hops(sw_of[to], to_port, d, ports);
      for (unsigned p : ports) {
        const unsigned li = t.nodes[to].port_link[p];
        if (t.nodes[t.links[li].other(to)].kind != node_kind::sw) continue;   // delivered
        const unsigned out = directed_link(t, li, to);
        if (t.nodes[from].kind == node_kind::sw) g.add(in, out);
        if (!seen[out]) seen[out] = true, q.push_back(out);
      }
    }
  }
  return g;
}

void fail_some(topology& t, rng& r) {
  for (topo_link& l : t.links) l.failed = r.below(12) == 0;
}

}  // namespace

TEST(CbdCheck, AskingOncePerClassGivesTheGoldenGraphArcForArc) {
  rng r(20261128);
  uint64_t arcs = 0, cycles = 0, acyclic = 0;
  for (int n = 0; n < 120; ++n) {
    topology t = topo_check::small_fabric(n);
    if (n % 2) fail_some(t, r);
    random_tables tables(t, r, 1 + unsigned(n % 3), n % 4 == 3);
    const std::string where = "fabric " + std::to_string(n);
    const dependency_graph want = golden(t, tables.next_hops());
    std::vector<unsigned> every(t.hosts.size());
    for (unsigned d = 0; d < every.size(); ++d) every[d] = d;
    tables.asked = 0;
    const dependency_graph by_port = dependencies_of(t, tables.next_hops(), every);
    const uint64_t asked_by_port = tables.asked;
    tables.asked = 0;
    const dependency_graph by_class = dependencies_of(t, tables.next_hops(), every, tables.in_class());
    const uint64_t asked_by_class = tables.asked;
    for (unsigned dl = 0; dl < 2 * t.links.size(); ++dl) {
      ASSERT_EQ(by_port.next(dl), want.next(dl)) << where << " directed link " << dl;
      ASSERT_EQ(by_class.next(dl), want.next(dl)) << where << " directed link " << dl << ", by class";
    }
    const std::vector<unsigned> cycle = want.find_cycle();
    EXPECT_EQ(by_class.find_cycle(), cycle) << where;
    arcs += want.arcs();
    cycles += !cycle.empty();
    acyclic += cycle.empty();
    // The control: with classes the switches are asked once per class and destination, fewer
    // times than once per link (the golden model's way, and the check's without classes).
    unsigned classes = 0;
    for (const auto& c : tables.cls) classes += *std::max_element(c.begin(), c.end()) + 1;
    EXPECT_LE(asked_by_class, uint64_t(classes) * t.hosts.size()) << where;
    EXPECT_LT(asked_by_class, asked_by_port) << where;
  }
  // The random tables reach what the test is for: many arcs, graphs with a cycle and (the ordered
  // tables) without.
  EXPECT_GT(arcs, 5000u);
  EXPECT_GT(acyclic, 20u);
  EXPECT_GT(cycles, 20u);
}
