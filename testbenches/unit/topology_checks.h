// Graph facts the topology tests check, computed here from the link list alone (not through the
// topology's own helpers): degrees, parallel links, connectivity, hosts per switch.
#pragma once
#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/rng.h"
#include <gtest/gtest.h>

#include "topology/jellyfish.h"
#include "topology/topology.h"
#include "topology/updown_routing.h"

namespace topo_check {

using netasic::node_kind;
using netasic::topology;

// The n-th of three small fabrics in turn: a k = 4 fat tree, a leaf-spine (single and parallel
// uplinks in turn) and a Jellyfish (a seed of its own): the kinds the tests on random fabrics run.
inline topology small_fabric(int n) {
  switch (n % 3) {
    case 0: return netasic::build_fat_tree({4});
    case 1: return netasic::build_leaf_spine({3, 2, 3, unsigned(1 + n % 2)});
    default: return netasic::build_jellyfish({10, 3, 2, uint64_t(n)});
  }
}

// n switches with a host each and m switch-to-switch links between random distinct ends
// (parallel links allowed): the random graphs the routing tests (EDST, KSP) run on.
inline topology random_multigraph(unsigned n, unsigned m, netasic::rng& r) {
  topology t;
  for (unsigned i = 0; i < n; ++i) t.add_node(node_kind::sw, "s" + std::to_string(i), 1);
  for (unsigned i = 0; i < n; ++i) t.connect(t.add_node(node_kind::host, "h" + std::to_string(i), 0), i, 1, 1, "h");
  for (unsigned e = 0; e < m; ++e) {
    const unsigned a = unsigned(r.below(n)), b = unsigned((a + 1 + r.below(n - 1)) % n);
    t.connect(a, b, 1, 1, "l" + std::to_string(e));
  }
  return t;
}

// Switch-to-switch links at each node.
inline std::vector<unsigned> fabric_degree(const topology& t) {
  std::vector<unsigned> d(t.nodes.size(), 0);
  for (const auto& l : t.links)
    if (t.nodes[l.a].kind == node_kind::sw && t.nodes[l.b].kind == node_kind::sw) ++d[l.a], ++d[l.b];
  return d;
}

// Host links at each switch.
inline std::vector<unsigned> host_degree(const topology& t) {
  std::vector<unsigned> d(t.nodes.size(), 0);
  for (const auto& l : t.links) {
    if (t.nodes[l.a].kind == node_kind::host) ++d[l.b];
    if (t.nodes[l.b].kind == node_kind::host) ++d[l.a];
  }
  return d;
}

// Self-loops and repeated switch pairs.
inline unsigned self_loops(const topology& t) {
  unsigned n = 0;
  for (const auto& l : t.links) n += l.a == l.b;
  return n;
}
inline std::map<std::pair<unsigned, unsigned>, unsigned> pair_counts(const topology& t) {
  std::map<std::pair<unsigned, unsigned>, unsigned> c;
  for (const auto& l : t.links) ++c[{std::min(l.a, l.b), std::max(l.a, l.b)}];
  return c;
}

// Switch hops between two switches over switch-to-switch links (BFS), ~0u if none.
inline std::vector<unsigned> switch_hops(const topology& t, unsigned from) {
  std::vector<std::vector<unsigned>> adj(t.nodes.size());
  for (const auto& l : t.links)
    if (t.nodes[l.a].kind == node_kind::sw && t.nodes[l.b].kind == node_kind::sw) adj[l.a].push_back(l.b), adj[l.b].push_back(l.a);
  std::vector<unsigned> d(t.nodes.size(), ~0u);
  std::deque<unsigned> q{from};
  d[from] = 0;
  while (!q.empty()) {
    const unsigned u = q.front();
    q.pop_front();
    for (unsigned v : adj[u])
      if (d[v] == ~0u) d[v] = d[u] + 1, q.push_back(v);
  }
  return d;
}
inline bool switches_connected(const topology& t) {
  const std::vector<unsigned> d = switch_hops(t, t.switches[0]);
  for (unsigned s : t.switches)
    if (d[s] == ~0u) return false;
  return true;
}

// Every port of every node names a link that names that node and port back.
inline bool ports_consistent(const topology& t) {
  for (unsigned u = 0; u < t.nodes.size(); ++u)
    for (unsigned p = 0; p < t.nodes[u].port_link.size(); ++p) {
      const auto& l = t.links[t.nodes[u].port_link[p]];
      if (!((l.a == u && l.a_port == p) || (l.b == u && l.b_port == p))) return false;
    }
  return true;
}

// Path statistics computed two ways (from the paths, and streamed) agree in every field.
inline void expect_same_stats(const netasic::path_stats& got, const netasic::path_stats& want, const std::string& what) {
  EXPECT_EQ(got.pairs, want.pairs) << what;
  EXPECT_EQ(got.min_paths, want.min_paths) << what;
  EXPECT_EQ(got.unrouted, want.unrouted) << what;
  EXPECT_EQ(got.max_length, want.max_length) << what;
  EXPECT_DOUBLE_EQ(got.mean_paths, want.mean_paths) << what;
  EXPECT_DOUBLE_EQ(got.mean_length, want.mean_length) << what;
  EXPECT_DOUBLE_EQ(got.mean_shortest, want.mean_shortest) << what;
}

}  // namespace topo_check
