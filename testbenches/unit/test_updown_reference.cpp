// The up-down paths' min-cost flow searches only the nodes on some s-t path. Its golden model is
// the solver it replaced, kept here as it was: successive shortest paths with a FIFO
// Bellman-Ford over the whole residual graph, the flows of every solve cleared first. The fast
// solver must give the same flow on every arc (not only the same value and cost), so the paths
// decomposed from it, and the up-down path sets of a Flattened Clos, are the same. The control
// is the golden model with its queue taken last-in first-out: the same values and costs, other
// flows on some instance, so the comparisons see which of the equal-cost flows a search picks.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "common/rng.h"
#include "topology/flattened_clos.h"
#include "topology/min_cost_flow.h"
#include "topology/traffic_matrix.h"
#include "topology/updown_routing.h"

using namespace netasic;

namespace {

// The replaced solver, verbatim but for `lifo` (the control).
class whole_graph_min_cost_flow {
 public:
  static constexpr int64_t infinite = min_cost_flow::infinite;
  explicit whole_graph_min_cost_flow(unsigned nodes, bool lifo = false) : out_(nodes), lifo_(lifo) {}
  unsigned add_arc(unsigned from, unsigned to, int64_t capacity, int64_t cost) {
    const unsigned id = unsigned(arcs_.size());
    arcs_.push_back({to, capacity, cost, 0});
    arcs_.push_back({from, 0, -cost, 0});
    out_[from].push_back(id);
    out_[to].push_back(id + 1);
    return id;
  }
  int64_t solve(unsigned s, unsigned t) {
    for (arc& a : arcs_) a.flow = 0;
    cost_ = 0;
    int64_t total = 0;
    constexpr int64_t inf = std::numeric_limits<int64_t>::max();
    const size_t n = out_.size();
    std::vector<int64_t> dist(n);
    std::vector<unsigned> via(n);
    std::vector<char> queued(n);
    for (;;) {
      std::fill(dist.begin(), dist.end(), inf);
      std::fill(queued.begin(), queued.end(), 0);
      std::deque<unsigned> q{s};
      dist[s] = 0;
      while (!q.empty()) {
        const unsigned u = lifo_ ? q.back() : q.front();
        lifo_ ? q.pop_back() : q.pop_front();
        queued[u] = 0;
        for (unsigned id : out_[u]) {
          const arc& a = arcs_[id];
          if (a.cap - a.flow <= 0 || dist[u] + a.cost >= dist[a.to]) continue;
          dist[a.to] = dist[u] + a.cost;
          via[a.to] = id;
          if (!queued[a.to]) queued[a.to] = 1, q.push_back(a.to);
        }
      }
      if (dist[t] == inf) return total;
      int64_t push = infinite;
      for (unsigned v = t; v != s; v = arcs_[via[v] ^ 1].to) push = std::min(push, arcs_[via[v]].cap - arcs_[via[v]].flow);
      for (unsigned v = t; v != s; v = arcs_[via[v] ^ 1].to) {
        arcs_[via[v]].flow += push;
        arcs_[via[v] ^ 1].flow -= push;
      }
      total += push;
      cost_ += push * dist[t];
    }
  }
  int64_t cost() const { return cost_; }
  int64_t flow(unsigned arc) const { return arcs_[arc].flow; }
  void take(unsigned arc, int64_t f) { arcs_[arc].flow -= f; }
  unsigned head(unsigned arc) const { return arcs_[arc].to; }
  const std::vector<unsigned>& arcs_from(unsigned node) const { return out_[node]; }

 private:
  struct arc {
    unsigned to;
    int64_t cap, cost, flow;
  };
  std::vector<arc> arcs_;
  std::vector<std::vector<unsigned>> out_;
  int64_t cost_ = 0;
  bool lifo_;
};

// The up-down paths as updown_routing.cpp computed them before the region search, on the golden
// solver: the virtual graph of Fig. 4c with its arcs added in the same order (links in link order,
// then the dashed arcs per switch), Alg. 1's decomposition and Lemma 4's contraction.
std::vector<pair_paths> reference_updown_paths(const topology& t, bool lifo) {
  const unsigned k = layer_count(t), per = 2 * k - 1;
  const auto node = [&](unsigned i, unsigned j, bool up) { return i * per + (j == k ? 2 * (k - 1) : (up ? 0 : k - 1) + j - 1); };
  whole_graph_min_cost_flow g(unsigned(t.switches.size()) * per, lifo);
  std::vector<unsigned> arc_link, arc_to;   // forward arc id / 2 -> link (or none), switch entered
  std::vector<unsigned> sw_index(t.nodes.size(), ~0u);
  for (unsigned i = 0; i < t.switches.size(); ++i) sw_index[t.switches[i]] = i;
  const auto add = [&](unsigned from, unsigned to, int64_t cap, int64_t cost, unsigned link, unsigned enters) {
    g.add_arc(from, to, cap, cost);
    arc_link.push_back(link);
    arc_to.push_back(enters);
  };
  constexpr int64_t solid = int64_t(1) << 20, dashed = 1;
  for (unsigned li = 0; li < t.links.size(); ++li) {
    const topo_link& l = t.links[li];
    if (l.failed || t.nodes[l.a].kind != node_kind::sw || t.nodes[l.b].kind != node_kind::sw) continue;
    unsigned lo = l.a, hi = l.b, jl = t.nodes[l.a].port_layer[l.a_port], jh = t.nodes[l.b].port_layer[l.b_port];
    if (jl > jh) std::swap(lo, hi), std::swap(jl, jh);
    add(node(sw_index[lo], jl, true), node(sw_index[hi], jh, true), 1, solid, li, hi);
    add(node(sw_index[hi], jh, false), node(sw_index[lo], jl, false), 1, solid, li, lo);
  }
  for (unsigned i = 0; i < t.switches.size(); ++i)
    for (unsigned j = 1; j < k; ++j) {
      add(node(i, j, true), node(i, j + 1, true), min_cost_flow::infinite, dashed, ~0u, t.switches[i]);
      add(node(i, j + 1, false), node(i, j, false), min_cost_flow::infinite, dashed, ~0u, t.switches[i]);
    }
  std::vector<pair_paths> out;
  for (unsigned i = 0; i < t.switches.size(); ++i)
    for (unsigned j = 0; j < t.switches.size(); ++j) {
      if (i == j || !hosts_on(t, t.switches[i]) || !hosts_on(t, t.switches[j])) continue;
      pair_paths pp{t.switches[i], t.switches[j], {}};
      const unsigned s = node(i, 1, true), d = node(j, 1, false);
      const int64_t f = g.solve(s, d);
      for (int64_t n = 0; n < f; ++n) {
        route_path p;
        p.nodes.push_back(t.switches[i]);
        for (unsigned v = s; v != d;) {
          unsigned next = ~0u;
          for (unsigned a : g.arcs_from(v))
            if (a % 2 == 0 && g.flow(a) >= 1) {
              next = a;
              break;
            }
          if (next == ~0u) throw std::logic_error("reference decomposition lost its way");
          g.take(next, 1);
          v = g.head(next);
          if (arc_link[next / 2] == ~0u) continue;
          const auto seen = std::find(p.nodes.begin(), p.nodes.end(), arc_to[next / 2]);
          if (seen != p.nodes.end()) {
            p.nodes.erase(seen + 1, p.nodes.end());
            p.links.resize(p.nodes.size() - 1);
            continue;
          }
          p.nodes.push_back(arc_to[next / 2]);
          p.links.push_back(arc_link[next / 2]);
        }
        if (std::none_of(pp.paths.begin(), pp.paths.end(), [&](const route_path& q) { return q.links == p.links; }))
          pp.paths.push_back(std::move(p));
      }
      out.push_back(std::move(pp));
    }
  return out;
}

bool same_paths(const std::vector<pair_paths>& a, const std::vector<pair_paths>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].src != b[i].src || a[i].dst != b[i].dst || a[i].paths.size() != b[i].paths.size()) return false;
    for (size_t p = 0; p < a[i].paths.size(); ++p)
      if (a[i].paths[p].nodes != b[i].paths[p].nodes || a[i].paths[p].links != b[i].paths[p].links) return false;
  }
  return true;
}

}  // namespace

// Random digraphs with many equal-cost choices (costs 0-2, unit and unbounded capacities, nodes
// off every s-t path), each graph solved for a run of pairs so flows of one solve must not leak
// into the next, and the kept reach of a repeated source is used.
TEST(MinCostFlow, RegionSearchGivesTheWholeGraphFlows) {
  rng r(7);
  unsigned lifo_differs = 0, solves = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const unsigned n = 4 + unsigned(r.below(12));
    min_cost_flow fast(n);
    whole_graph_min_cost_flow gold(n), lifo(n, true);
    std::vector<unsigned> ids;
    for (unsigned u = 0; u < n; ++u)
      for (unsigned v = 0; v < n; ++v)
        if (u != v && r.below(100) < 30) {
          const int64_t cap = r.below(4) == 0 ? min_cost_flow::infinite : 1, cost = int64_t(r.below(3));
          ids.push_back(fast.add_arc(u, v, cap, cost));
          gold.add_arc(u, v, cap, cost);
          lifo.add_arc(u, v, cap, cost);
        }
    for (int q = 0; q < 6; ++q) {
      const unsigned s = q < 3 ? 0 : unsigned(r.below(n)), t = 1 + unsigned(r.below(n - 1));   // three with one source
      if (s == t) continue;
      const int64_t f = fast.solve(s, t);
      ++solves;
      ASSERT_EQ(f, gold.solve(s, t)) << "trial " << trial;
      ASSERT_EQ(fast.cost(), gold.cost()) << "trial " << trial;
      for (unsigned id = 0; id < 2 * ids.size(); ++id) ASSERT_EQ(fast.flow(id), gold.flow(id)) << "trial " << trial << " arc " << id;
      // The control: the same optimum, found along other paths on some graphs.
      ASSERT_EQ(lifo.solve(s, t), f);
      ASSERT_EQ(lifo.cost(), gold.cost());
      bool differs = false;
      for (unsigned id = 0; id < 2 * ids.size(); ++id) differs |= lifo.flow(id) != gold.flow(id);
      lifo_differs += differs;
    }
  }
  EXPECT_GT(solves, 1000u);
  EXPECT_GT(lifo_differs, 10u);
}

// Random small Flattened Clos instances, some with failed links: the up-down path sets (every
// pair, every path, node by node, in order) equal the golden model's.
TEST(UpDownRouting, SamePathSetsAsTheWholeGraphReference) {
  struct shape {
    unsigned tors, s;
    std::vector<unsigned> layers;
  };
  const std::vector<shape> shapes{{12, 4, {1, 2, 1}}, {20, 6, {1, 3, 2}}, {24, 8, {2, 4, 2}}, {24, 8, {1, 2, 3, 2}}, {30, 8, {1, 3, 3, 1}}};
  rng r(3);
  unsigned lifo_differs = 0, checked = 0;
  for (const shape& sh : shapes)
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      flattened_clos_spec sp;
      sp.tors = sh.tors;
      sp.fabric_ports = sh.s;
      sp.host_ports = 1;
      sp.layer_ports = sh.layers;
      sp.seed = seed;
      sp.host_rate_bps = sp.uplink_rate_bps = 25'000'000'000;
      sp.delay_ps = 1'000'000;
      topology t = build_flattened_clos(sp);
      if (seed % 2 == 0)   // a few failed fabric links: irregular graphs, pairs with fewer paths
        for (int f = 0; f < 3; ++f) {
          const unsigned li = unsigned(r.below(t.links.size()));
          if (t.nodes[t.links[li].a].kind == node_kind::sw && t.nodes[t.links[li].b].kind == node_kind::sw) t.links[li].failed = true;
        }
      const std::vector<pair_paths> fast = updown_paths(t);
      ASSERT_TRUE(same_paths(fast, reference_updown_paths(t, false))) << sh.tors << " ToRs, seed " << seed;
      lifo_differs += !same_paths(fast, reference_updown_paths(t, true));
      ++checked;
    }
  EXPECT_EQ(checked, 20u);
  EXPECT_GT(lifo_differs, 0u);   // the control: another search order, other path sets
}
