#include "topology/edst.h"

#include <algorithm>
#include <deque>
#include <numeric>
#include <stdexcept>

#include "topology/traffic_matrix.h"

namespace netasic {

namespace {

struct edge {
  unsigned u, v, link;   // switch indices and the physical link
};

// K forests over n switches, each an adjacency list of (neighbour, edge); forest_of[e] = -1
// while edge e is in none.
class forest_partition {
 public:
  forest_partition(unsigned n, unsigned k, const std::vector<edge>& edges)
      : edges_(edges), adj_(k, std::vector<std::vector<std::pair<unsigned, unsigned>>>(n)), forest_of_(edges.size(), -1) {}
  bool insert(unsigned e);
  int forest_of(unsigned e) const { return forest_of_[e]; }
  size_t size(unsigned f) const {
    size_t d = 0;
    for (const auto& a : adj_[f]) d += a.size();
    return d / 2;
  }

 private:
  std::vector<unsigned> tree_path(unsigned f, unsigned u, unsigned v) const;
  void move(unsigned e, int to);
  const std::vector<edge>& edges_;
  std::vector<std::vector<std::vector<std::pair<unsigned, unsigned>>>> adj_;
  std::vector<int> forest_of_;
};

// The edges of the path from u to v in forest f, empty when they are not joined (u != v).
std::vector<unsigned> forest_partition::tree_path(unsigned f, unsigned u, unsigned v) const {
  std::vector<unsigned> via(adj_[f].size(), ~0u);
  std::vector<char> seen(adj_[f].size(), 0);
  std::deque<unsigned> q{u};
  seen[u] = 1;
  while (!q.empty() && !seen[v]) {
    const unsigned x = q.front();
    q.pop_front();
    for (auto [y, e] : adj_[f][x])
      if (!seen[y]) seen[y] = 1, via[y] = e, q.push_back(y);
  }
  std::vector<unsigned> path;
  if (!seen[v]) return path;
  for (unsigned x = v; x != u;) {
    const unsigned e = via[x];
    path.push_back(e);
    x = edges_[e].u == x ? edges_[e].v : edges_[e].u;
  }
  return path;
}

void forest_partition::move(unsigned e, int to) {
  const edge& d = edges_[e];
  if (forest_of_[e] >= 0) {
    auto drop = [&](unsigned x) {
      auto& a = adj_[forest_of_[e]][x];
      for (size_t i = 0; i < a.size(); ++i)
        if (a[i].second == e) {
          a.erase(a.begin() + long(i));
          return;
        }
    };
    drop(d.u), drop(d.v);
  }
  forest_of_[e] = to;
  adj_[to][d.u].push_back({d.v, e});
  adj_[to][d.v].push_back({d.u, e});
}

// Matroid partitioning: a breadth-first search over swaps. Edge y is labelled (x, f) when y is
// in forest f and on the cycle x would close there, so x may take y's place; the first edge that
// fits a forest outright ends a shortest chain of swaps, which keeps every forest acyclic.
bool forest_partition::insert(unsigned e) {
  std::vector<std::pair<unsigned, int>> label(edges_.size(), {~0u, -1});
  std::vector<char> seen(edges_.size(), 0);
  std::deque<unsigned> q{e};
  seen[e] = 1;
  while (!q.empty()) {
    const unsigned x = q.front();
    q.pop_front();
    for (unsigned f = 0; f < adj_.size(); ++f) {
      if (forest_of_[x] == int(f)) continue;
      const std::vector<unsigned> cycle = tree_path(f, edges_[x].u, edges_[x].v);
      if (cycle.empty()) {   // x fits forest f: shift every edge of the chain along
        for (unsigned y = x; ; ) {
          const int from = forest_of_[y];
          move(y, int(f));
          if (y == e) return true;
          f = unsigned(from);
          y = label[y].first;
        }
      }
      for (unsigned y : cycle)
        if (!seen[y]) seen[y] = 1, label[y] = {x, int(f)}, q.push_back(y);
    }
  }
  return false;
}

// Every forest acyclic, by union-find: the check that the partition kept its promise.
void check_forests(const std::vector<std::vector<unsigned>>& trees, const topology& t) {
  for (const auto& tree : trees) {
    std::vector<unsigned> up(t.nodes.size());
    std::iota(up.begin(), up.end(), 0u);
    auto root = [&](unsigned x) {
      while (up[x] != x) x = up[x] = up[up[x]];
      return x;
    };
    for (unsigned li : tree) {
      const unsigned a = root(t.links[li].a), b = root(t.links[li].b);
      if (a == b) throw std::logic_error("edge-disjoint spanning trees: a forest closed a cycle");
      up[a] = b;
    }
  }
}

}  // namespace

spanning_trees edge_disjoint_spanning_trees(const topology& t) {
  std::vector<unsigned> sw_index(t.nodes.size(), ~0u);
  for (unsigned i = 0; i < t.switches.size(); ++i) sw_index[t.switches[i]] = i;
  std::vector<edge> edges;
  for (unsigned li = 0; li < t.links.size(); ++li) {
    const topo_link& l = t.links[li];
    if (!l.failed && sw_index[l.a] != ~0u && sw_index[l.b] != ~0u && l.a != l.b) edges.push_back({sw_index[l.a], sw_index[l.b], li});
  }
  spanning_trees st;
  st.tree_of_link.assign(t.links.size(), ~0u);
  const unsigned n = unsigned(t.switches.size());
  if (n < 2) return st;
  for (unsigned k = unsigned(edges.size() / (n - 1)); k >= 1; --k) {
    forest_partition p(n, k, edges);
    for (unsigned e = 0; e < edges.size(); ++e) p.insert(e);
    bool spanning = true;
    for (unsigned f = 0; f < k; ++f) spanning = spanning && p.size(f) == n - 1;
    if (!spanning) continue;
    st.trees.assign(k, {});
    for (unsigned e = 0; e < edges.size(); ++e)
      if (p.forest_of(e) >= 0) {
        st.trees[unsigned(p.forest_of(e))].push_back(edges[e].link);
        st.tree_of_link[edges[e].link] = unsigned(p.forest_of(e));
      }
    check_forests(st.trees, t);
    return st;
  }
  return st;
}

void tree_from(const topology& t, const spanning_trees& st, unsigned k, unsigned root, std::vector<unsigned>& via,
               std::vector<unsigned>& order) {
  via.assign(t.nodes.size(), ~0u);
  order.assign(1, root);
  for (size_t i = 0; i < order.size(); ++i) {
    const unsigned x = order[i];
    for (unsigned li : t.nodes[x].port_link) {
      const unsigned y = t.links[li].other(x);
      if (st.tree_of_link[li] == k && y != root && via[y] == ~0u) via[y] = li, order.push_back(y);
    }
  }
}

std::vector<pair_paths> edst_paths(const topology& t, const spanning_trees& st) {
  const std::vector<unsigned> tors = tor_switches(t);
  std::vector<pair_paths> out;
  std::vector<unsigned> via, order;
  std::vector<std::vector<route_path>> per_dst(t.nodes.size());
  for (unsigned src : tors) {
    for (unsigned d : tors) per_dst[d].clear();
    for (unsigned k = 0; k < st.trees.size(); ++k) {
      tree_from(t, st, k, src, via, order);
      for (unsigned dst : tors) {
        if (dst == src || via[dst] == ~0u) continue;
        route_path p;
        for (unsigned x = dst; x != src; x = t.links[via[x]].other(x)) p.nodes.push_back(x), p.links.push_back(via[x]);
        p.nodes.push_back(src);
        std::reverse(p.nodes.begin(), p.nodes.end());
        std::reverse(p.links.begin(), p.links.end());
        per_dst[dst].push_back(std::move(p));
      }
    }
    for (unsigned dst : tors)
      if (dst != src) out.push_back({src, dst, std::move(per_dst[dst])});
  }
  return out;
}

path_stats edst_path_stats(const topology& t, const spanning_trees& st) {
  const std::vector<unsigned> tors = tor_switches(t);
  path_stats_sum sum;
  // Per destination, over the trees walked from one source: paths, hops, shortest, longest.
  std::vector<unsigned> via, order, depth(t.nodes.size()), count(t.nodes.size()), best(t.nodes.size()), worst(t.nodes.size());
  std::vector<double> hops(t.nodes.size());
  for (unsigned src : tors) {
    std::fill(count.begin(), count.end(), 0u);
    std::fill(hops.begin(), hops.end(), 0.0);
    std::fill(best.begin(), best.end(), ~0u);
    std::fill(worst.begin(), worst.end(), 0u);
    for (unsigned k = 0; k < st.trees.size(); ++k) {
      tree_from(t, st, k, src, via, order);
      depth[src] = 0;
      for (size_t i = 1; i < order.size(); ++i) {   // breadth-first: a node's parent comes first
        const unsigned x = order[i];
        depth[x] = depth[t.links[via[x]].other(x)] + 1;
        ++count[x];
        hops[x] += depth[x];
        best[x] = std::min(best[x], depth[x]);
        worst[x] = std::max(worst[x], depth[x]);
      }
    }
    for (unsigned dst : tors)
      if (dst != src) sum.add(count[dst], hops[dst], best[dst], worst[dst]);
  }
  return sum.result();
}

}  // namespace netasic
