// Edge-disjoint spanning trees (the Flattened Clos paper's EDST baseline, §4.1): the matroid
// partition against the Nash-Williams-Tutte theorem on small random multigraphs (a graph has K
// edge-disjoint spanning trees iff every partition P of its nodes has at least K(|P| - 1) links
// between parts), the paper's s/2 trees on 18-regular Flattened Clos wirings, the tree paths, and
// the installed tables' freedom from cyclic buffer dependencies, with ECMP on the same wiring as
// the control that must have a cycle.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <numeric>
#include <set>
#include <vector>

#include "common/rng.h"
#include "fabric/route_planner.h"
#include "topology/cbd_check.h"
#include "topology/edst.h"
#include "topology/flattened_clos.h"
#include "topology/three_tier_clos.h"
#include "topology_checks.h"

using namespace netasic;
using topo_check::random_multigraph;

namespace {

// Nash-Williams-Tutte: min over partitions of floor(crossing / (parts - 1)), over every set
// partition of the n switches (restricted growth strings).
unsigned tree_packing_number(const topology& t, unsigned n) {
  std::vector<unsigned> part(n, 0);
  unsigned best = ~0u;
  for (;;) {
    const unsigned parts = *std::max_element(part.begin(), part.end()) + 1;
    if (parts > 1) {
      unsigned cross = 0;
      for (const topo_link& l : t.links)
        if (l.a < n && l.b < n && part[l.a] != part[l.b]) ++cross;
      best = std::min(best, cross / (parts - 1));
    }
    // Next restricted growth string: part[i] <= 1 + max(part[0..i-1]).
    int i = int(n) - 1;
    for (; i > 0; --i) {
      const unsigned lim = *std::max_element(part.begin(), part.begin() + i) + 1;
      if (part[unsigned(i)] < lim) break;
    }
    if (i == 0) return best;
    ++part[unsigned(i)];
    std::fill(part.begin() + i + 1, part.end(), 0u);
  }
}

// Every tree has n - 1 links joining all switches, and no link is in two trees.
void expect_disjoint_spanning(const topology& t, const spanning_trees& st) {
  std::set<unsigned> used;
  for (unsigned k = 0; k < st.trees.size(); ++k) {
    const auto& tree = st.trees[k];
    EXPECT_EQ(tree.size(), t.switches.size() - 1);
    std::vector<unsigned> up(t.nodes.size());
    std::iota(up.begin(), up.end(), 0u);
    auto root = [&](unsigned x) {
      while (up[x] != x) x = up[x] = up[up[x]];
      return x;
    };
    for (unsigned li : tree) {
      EXPECT_TRUE(used.insert(li).second) << "link " << li << " in two trees";
      EXPECT_EQ(st.tree_of_link[li], k);
      up[root(t.links[li].a)] = root(t.links[li].b);
    }
    for (unsigned s : t.switches) EXPECT_EQ(root(s), root(t.switches[0])) << "tree " << k << " does not span";
  }
}

// The golden model: the matroid partition as first written, each forest an adjacency list and
// each tree path a breadth-first search, K from floor(m / (n - 1)) down. The model keeps each
// forest rooted instead (a tree path read off parent links), which must not change a single
// tree. `lifo` searches the swaps last-in-first-out: the control, which finds other trees.
std::vector<std::vector<unsigned>> reference_trees(const topology& t, bool lifo = false) {
  struct edge {
    unsigned u, v, link;
  };
  std::vector<unsigned> idx(t.nodes.size(), ~0u);
  for (unsigned i = 0; i < t.switches.size(); ++i) idx[t.switches[i]] = i;
  std::vector<edge> edges;
  for (unsigned li = 0; li < t.links.size(); ++li) {
    const topo_link& l = t.links[li];
    if (!l.failed && idx[l.a] != ~0u && idx[l.b] != ~0u && l.a != l.b) edges.push_back({idx[l.a], idx[l.b], li});
  }
  const unsigned n = unsigned(t.switches.size());
  if (n < 2) return {};
  for (unsigned k = unsigned(edges.size() / (n - 1)); k >= 1; --k) {
    std::vector<std::vector<std::vector<std::pair<unsigned, unsigned>>>> adj(k, std::vector<std::vector<std::pair<unsigned, unsigned>>>(n));
    std::vector<int> forest(edges.size(), -1);
    auto path = [&](unsigned f, unsigned u, unsigned v) {
      std::vector<unsigned> via(n, ~0u), out;
      std::vector<char> seen(n, 0);
      std::deque<unsigned> q{u};
      seen[u] = 1;
      while (!q.empty() && !seen[v]) {
        const unsigned x = q.front();
        q.pop_front();
        for (auto [y, e] : adj[f][x])
          if (!seen[y]) seen[y] = 1, via[y] = e, q.push_back(y);
      }
      if (seen[v])
        for (unsigned x = v; x != u; x = edges[via[x]].u == x ? edges[via[x]].v : edges[via[x]].u) out.push_back(via[x]);
      return out;
    };
    auto move = [&](unsigned e, int to) {
      for (unsigned x : {edges[e].u, edges[e].v})
        if (forest[e] >= 0) {
          auto& a = adj[unsigned(forest[e])][x];
          a.erase(std::find_if(a.begin(), a.end(), [&](auto p) { return p.second == e; }));
        }
      forest[e] = to;
      adj[unsigned(to)][edges[e].u].push_back({edges[e].v, e});
      adj[unsigned(to)][edges[e].v].push_back({edges[e].u, e});
    };
    for (unsigned e = 0; e < edges.size(); ++e) {
      std::vector<std::pair<unsigned, int>> label(edges.size(), {~0u, -1});
      std::vector<char> seen(edges.size(), 0);
      std::deque<unsigned> q{e};
      seen[e] = 1;
      bool done = false;
      while (!q.empty() && !done) {
        const unsigned x = lifo ? q.back() : q.front();
        lifo ? q.pop_back() : q.pop_front();
        for (unsigned f = 0; f < k && !done; ++f) {
          if (forest[x] == int(f)) continue;
          const std::vector<unsigned> cycle = path(f, edges[x].u, edges[x].v);
          if (cycle.empty()) {
            for (unsigned y = x;; y = label[y].first) {
              const int from = forest[y];
              move(y, int(f));
              if (y == e) break;
              f = unsigned(from);
            }
            done = true;
            break;
          }
          for (unsigned y : cycle)
            if (!seen[y]) seen[y] = 1, label[y] = {x, int(f)}, q.push_back(y);
        }
      }
    }
    std::vector<std::vector<unsigned>> trees(k);
    for (unsigned e = 0; e < edges.size(); ++e)
      if (forest[e] >= 0) trees[unsigned(forest[e])].push_back(edges[e].link);
    if (std::all_of(trees.begin(), trees.end(), [&](const auto& tr) { return tr.size() == n - 1; })) return trees;
  }
  return {};
}

// `count` random multigraphs of 2 to `most` switches, each with up to `per_switch` links a switch.
std::vector<topology> random_multigraphs(uint64_t seed, int count, unsigned most, unsigned per_switch) {
  rng r(seed);
  std::vector<topology> nets;
  for (int trial = 0; trial < count; ++trial) {
    const unsigned n = 2 + unsigned(r.below(most - 1));
    nets.push_back(random_multigraph(n, unsigned(r.below(per_switch * n + 1)), r));
  }
  return nets;
}

flattened_clos_spec fc(unsigned n, unsigned s, std::vector<unsigned> l, uint64_t seed) {
  flattened_clos_spec sp;
  sp.tors = n, sp.fabric_ports = s, sp.host_ports = 1, sp.layer_ports = std::move(l), sp.seed = seed;
  sp.host_rate_bps = sp.uplink_rate_bps = 25'000'000'000;
  sp.delay_ps = 1'000'000;
  return sp;
}

}  // namespace

TEST(Edst, MatchesNashWilliamsTutteOnRandomMultigraphs) {
  rng r(2024);
  unsigned with_trees = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const unsigned n = 2 + unsigned(r.below(6)), m = unsigned(r.below(4 * n + 1));
    const topology t = random_multigraph(n, m, r);
    const spanning_trees st = edge_disjoint_spanning_trees(t);
    ASSERT_EQ(st.trees.size(), tree_packing_number(t, n)) << "trial " << trial << ": n " << n << ", m " << m;
    expect_disjoint_spanning(t, st);
    with_trees += st.trees.size() >= 2;
  }
  EXPECT_GT(with_trees, 50u);   // the trials reach the augmenting swaps, not only the greedy case
}

// The rooted forests find the very trees of the breadth-first reference, link for link, on
// random multigraphs and Flattened Clos wirings (what keeps every figure measured before the
// change); the last-in-first-out control finds other trees on some of them.
TEST(Edst, PartitionEqualsTheBreadthFirstReference) {
  std::vector<topology> nets = random_multigraphs(4242, 400, 11, 5);
  for (uint64_t seed = 1; seed <= 4; ++seed) nets.push_back(build_flattened_clos(fc(60, 18, {3, 6, 6, 3}, seed)));
  unsigned trees = 0, control_differs = 0;
  for (size_t i = 0; i < nets.size(); ++i) {
    const spanning_trees st = edge_disjoint_spanning_trees(nets[i]);
    ASSERT_EQ(st.trees, reference_trees(nets[i])) << "net " << i;
    trees += unsigned(st.trees.size());
    control_differs += st.trees != reference_trees(nets[i], true);
  }
  EXPECT_GT(trees, 300u);
  EXPECT_GT(control_differs, 10u);
}

TEST(Edst, RegularFlattenedClosHasHalfItsDegreeInTrees) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const topology t = build_flattened_clos(fc(50, 18, {3, 6, 6, 3}, seed));
    const spanning_trees st = edge_disjoint_spanning_trees(t);
    EXPECT_EQ(st.trees.size(), 9u) << "seed " << seed;   // s/2 (§4.1)
    expect_disjoint_spanning(t, st);
  }
}

TEST(Edst, PairPathsFollowEachTreeAndAreDisjoint) {
  const topology t = build_flattened_clos(fc(20, 6, {}, 3));
  const spanning_trees st = edge_disjoint_spanning_trees(t);
  ASSERT_EQ(st.trees.size(), 3u);
  const auto pairs = edst_paths(t, st);
  EXPECT_EQ(pairs.size(), 20u * 19u);
  for (const pair_paths& pp : pairs) {
    ASSERT_EQ(pp.paths.size(), 3u);
    std::set<unsigned> links;
    for (unsigned k = 0; k < 3; ++k) {
      const route_path& p = pp.paths[k];
      ASSERT_EQ(p.nodes.size(), p.links.size() + 1);
      EXPECT_EQ(p.nodes.front(), pp.src);
      EXPECT_EQ(p.nodes.back(), pp.dst);
      EXPECT_EQ(std::set<unsigned>(p.nodes.begin(), p.nodes.end()).size(), p.nodes.size());   // loopless
      for (size_t i = 0; i < p.links.size(); ++i) {
        const topo_link& l = t.links[p.links[i]];
        EXPECT_EQ(st.tree_of_link[p.links[i]], k);
        EXPECT_TRUE((l.a == p.nodes[i] && l.b == p.nodes[i + 1]) || (l.b == p.nodes[i] && l.a == p.nodes[i + 1]));
        EXPECT_TRUE(links.insert(p.links[i]).second);
      }
    }
  }
}

// The installed tables (ingress class = the tree of the ingress link) keep a frame on one tree:
// no cycle, on 5 wirings; ECMP over shortest paths on the same wirings has one on each.
TEST(Edst, InstalledTablesAreCbdFreeShortestPathsAreNot) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const topology t = build_flattened_clos(fc(32, 8, {}, seed));
    const spanning_trees st = edge_disjoint_spanning_trees(t);
    ASSERT_EQ(st.trees.size(), 4u);
    const route_plan plan = plan_path_routes(t, edst_paths(t, st), edst_classes(st),
                                             [&](unsigned n, unsigned p) { return edst_port_class(t, st, n, p); });
    EXPECT_TRUE(plan.unreachable.empty());
    const dependency_graph g = plan_dependencies(t, plan);
    EXPECT_GT(g.arcs(), 0u);
    EXPECT_TRUE(g.find_cycle().empty()) << "seed " << seed << ": " << g.describe(g.find_cycle());
    EXPECT_FALSE(plan_dependencies(t, plan_routes(t)).find_cycle().empty()) << "seed " << seed;   // the control
  }
}

// The tables and statistics made straight from the trees (what N = 1000 needs: its paths would
// not fit) equal those of the paths, entry for entry and group for group: on random multigraphs
// (some with no pair of trees, so every pair is unrouted), Flattened Clos wirings with a failed
// host link, and 3-tier Closes, whose aggregation and spine switches have no hosts.
TEST(Edst, TablesAndStatisticsFromTheTreesEqualThoseOfThePaths) {
  std::vector<topology> nets = random_multigraphs(77, 300, 8, 4);
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    topology t = build_flattened_clos(fc(24, 8, {}, seed));
    t.links[t.nodes[t.hosts[seed]].port_link[0]].failed = true;
    nets.push_back(std::move(t));
  }
  for (unsigned pods = 2; pods <= 4; ++pods) {
    three_tier_clos_spec s;
    s.pods = pods, s.tors_per_pod = 3, s.aggs_per_pod = 2, s.spines = 4, s.hosts_per_tor = 2;
    s.host_rate_bps = s.uplink_rate_bps = 1'000'000'000, s.delay_ps = 1'000'000;
    nets.push_back(build_three_tier_clos(s));
  }
  unsigned entries = 0;
  for (size_t i = 0; i < nets.size(); ++i) {
    const topology& t = nets[i];
    const spanning_trees st = edge_disjoint_spanning_trees(t);
    const std::vector<pair_paths> paths = edst_paths(t, st);
    const route_plan want = plan_path_routes(t, paths, edst_classes(st), [&](unsigned n, unsigned p) { return edst_port_class(t, st, n, p); });
    const route_plan got = plan_edst_routes(t, st);
    ASSERT_EQ(got.classes, want.classes) << "net " << i;
    ASSERT_EQ(got.per_switch.size(), want.per_switch.size()) << "net " << i;
    for (size_t s = 0; s < want.per_switch.size(); ++s) {
      EXPECT_EQ(got.per_switch[s].route, want.per_switch[s].route) << "net " << i << ", switch " << s;
      EXPECT_EQ(got.per_switch[s].members, want.per_switch[s].members) << "net " << i << ", switch " << s;
      EXPECT_EQ(got.per_switch[s].port_class, want.per_switch[s].port_class) << "net " << i << ", switch " << s;
      EXPECT_EQ(got.per_switch[s].host_routes, want.per_switch[s].host_routes) << "net " << i << ", switch " << s;
      for (uint32_t e : want.per_switch[s].route) entries += (e & 0xFFFF) != 0;
    }
    EXPECT_EQ(got.unreachable, want.unreachable) << "net " << i;
    topo_check::expect_same_stats(edst_path_stats(t, st), stats_of(paths), "net " + std::to_string(i));
  }
  EXPECT_GT(entries, 10000u);   // the comparison covers real tables, not empty ones
}
