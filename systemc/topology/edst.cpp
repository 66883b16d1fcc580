#include "topology/edst.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "topology/traffic_matrix.h"

namespace netasic {

namespace {

struct edge {
  unsigned u, v, link;   // switch indices and the physical link
};

// K forests over n switches. Each forest is kept rooted: up_[f][x] is x's parent link (edge
// index, ~0u at a root), so the path joining two switches is two walks up to where they meet,
// as long as the trees are deep, not as long as they are wide. forest_of[e] = -1 while edge e is
// in none.
class forest_partition {
 public:
  forest_partition(unsigned n, unsigned k, const std::vector<edge>& edges)
      : edges_(edges), up_(k, std::vector<unsigned>(n, ~0u)), size_(k, 0), forest_of_(edges.size(), -1),
        mark_(n, 0), label_(edges.size(), {~0u, -1}), seen_(edges.size(), 0) {}
  bool insert(unsigned e);
  int forest_of(unsigned e) const { return forest_of_[e]; }
  size_t size(unsigned f) const { return size_[f]; }

 private:
  unsigned other(unsigned e, unsigned x) const { return edges_[e].u == x ? edges_[e].v : edges_[e].u; }
  bool tree_path(unsigned f, unsigned u, unsigned v, std::vector<unsigned>& path);
  void move(unsigned e, int to);
  const std::vector<edge>& edges_;
  std::vector<std::vector<unsigned>> up_;
  std::vector<size_t> size_;
  std::vector<int> forest_of_;
  std::vector<unsigned> mark_;   // == stamp_ on the switches above u in the current tree_path
  unsigned stamp_ = 0;
  std::vector<std::pair<unsigned, int>> label_;   // insert's search state, reset edge by edge
  std::vector<char> seen_;
};

// The edges of the path from v to u in forest f (v's end first); false when they are not joined.
bool forest_partition::tree_path(unsigned f, unsigned u, unsigned v, std::vector<unsigned>& path) {
  const std::vector<unsigned>& up = up_[f];
  path.clear();
  if (++stamp_ == 0) std::fill(mark_.begin(), mark_.end(), 0u), stamp_ = 1;
  for (unsigned x = u;; x = other(up[x], x)) {
    mark_[x] = stamp_;
    if (up[x] == ~0u) break;
  }
  unsigned meet = v;
  for (; mark_[meet] != stamp_; meet = other(up[meet], meet)) {
    if (up[meet] == ~0u) return false;   // v's root is not u's
    path.push_back(up[meet]);
  }
  const size_t down = path.size();
  for (unsigned x = u; x != meet; x = other(up[x], x)) path.push_back(up[x]);
  std::reverse(path.begin() + long(down), path.end());
  return true;
}

// Take e out of its forest (cut it from its child's side) and link it into forest `to`, after
// making e's end u the root of its tree there (reversing the parent links above u).
void forest_partition::move(unsigned e, int to) {
  const edge& d = edges_[e];
  if (forest_of_[e] >= 0) {
    std::vector<unsigned>& up = up_[unsigned(forest_of_[e])];
    (up[d.u] == e ? up[d.u] : up[d.v]) = ~0u;
    --size_[unsigned(forest_of_[e])];
  }
  forest_of_[e] = to;
  std::vector<unsigned>& up = up_[unsigned(to)];
  auto root = [&](unsigned x) {
    while (up[x] != ~0u) x = other(up[x], x);
    return x;
  };
  if (root(d.u) == root(d.v)) throw std::logic_error("edge-disjoint spanning trees: a swap closed a cycle");
  unsigned x = d.u, carry = e;
  while (x != ~0u) {
    const unsigned next = up[x] == ~0u ? ~0u : other(up[x], x);
    std::swap(up[x], carry);
    x = next;
  }
  ++size_[unsigned(to)];
}

// Matroid partitioning: a breadth-first search over swaps. Edge y is labelled (x, f) when y is
// in forest f and on the cycle x would close there, so x may take y's place; the first edge that
// fits a forest outright ends a shortest chain of swaps, which keeps every forest acyclic.
bool forest_partition::insert(unsigned e) {
  std::vector<unsigned> queue{e}, cycle;
  seen_[e] = 1;
  bool fitted = false;
  for (size_t head = 0; head < queue.size() && !fitted; ++head) {
    const unsigned x = queue[head];
    for (unsigned f = 0; f < up_.size() && !fitted; ++f) {
      if (forest_of_[x] == int(f)) continue;
      if (!tree_path(f, edges_[x].u, edges_[x].v, cycle)) {   // x fits forest f: shift the chain along
        for (unsigned y = x;;) {
          const int from = forest_of_[y];
          move(y, int(f));
          if (y == e) break;
          f = unsigned(from);
          y = label_[y].first;
        }
        fitted = true;
        break;
      }
      for (unsigned y : cycle)
        if (!seen_[y]) seen_[y] = 1, label_[y] = {x, int(f)}, queue.push_back(y);
    }
  }
  for (unsigned y : queue) seen_[y] = 0, label_[y] = {~0u, -1};
  return fitted;
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
  const std::vector<unsigned> sw_index = t.switch_index();
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
