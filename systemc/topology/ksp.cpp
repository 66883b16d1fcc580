#include "topology/ksp.h"

#include <algorithm>
#include <deque>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "topology/traffic_matrix.h"

namespace netasic {

namespace {

bool is_switch(const topology& t, unsigned n) { return t.nodes[n].kind == node_kind::sw; }

// Fewest links from src to dst through switches, avoiding blocked nodes and links; ports in
// order, so ties go to the lower port. Empty path (no nodes) when there is none.
route_path bfs_path(const topology& t, unsigned src, unsigned dst, const std::vector<char>& node_blocked,
                    const std::vector<char>& link_blocked) {
  std::vector<unsigned> via(t.nodes.size(), ~0u);
  std::vector<char> seen(t.nodes.size(), 0);
  std::deque<unsigned> q{src};
  seen[src] = 1;
  while (!q.empty() && !seen[dst]) {
    const unsigned x = q.front();
    q.pop_front();
    for (unsigned li : t.nodes[x].port_link) {
      const topo_link& l = t.links[li];
      const unsigned y = l.other(x);
      if (l.failed || link_blocked[li] || seen[y] || node_blocked[y] || !is_switch(t, y)) continue;
      seen[y] = 1, via[y] = li, q.push_back(y);
    }
  }
  route_path p;
  if (!seen[dst]) return p;
  for (unsigned x = dst; x != src; x = t.links[via[x]].other(x)) p.nodes.push_back(x), p.links.push_back(via[x]);
  p.nodes.push_back(src);
  std::reverse(p.nodes.begin(), p.nodes.end());
  std::reverse(p.links.begin(), p.links.end());
  return p;
}

struct by_length {
  bool operator()(const route_path& a, const route_path& b) const {
    return a.links.size() != b.links.size() ? a.links.size() < b.links.size() : a.links < b.links;
  }
};

}  // namespace

// Yen's algorithm: the i-th path's spur from each of its nodes, with the root's nodes blocked and
// the next link of every accepted path sharing that root removed; the best candidate is next.
std::vector<route_path> k_shortest_paths(const topology& t, unsigned src, unsigned dst, unsigned k) {
  std::vector<char> node_blocked(t.nodes.size(), 0), link_blocked(t.links.size(), 0);
  std::vector<route_path> a;
  route_path first = bfs_path(t, src, dst, node_blocked, link_blocked);
  if (first.nodes.empty() || k == 0) return a;
  a.push_back(std::move(first));
  std::set<route_path, by_length> b;
  while (a.size() < k) {
    const route_path prev = a.back();
    for (size_t i = 0; i < prev.links.size(); ++i) {
      const std::vector<unsigned> root(prev.links.begin(), prev.links.begin() + long(i));
      for (const route_path& p : a)
        if (p.links.size() > i && std::equal(root.begin(), root.end(), p.links.begin())) link_blocked[p.links[i]] = 1;
      for (size_t j = 0; j < i; ++j) node_blocked[prev.nodes[j]] = 1;
      route_path spur = bfs_path(t, prev.nodes[i], dst, node_blocked, link_blocked);
      std::fill(node_blocked.begin(), node_blocked.end(), 0);
      std::fill(link_blocked.begin(), link_blocked.end(), 0);
      if (spur.nodes.empty()) continue;
      route_path total{{prev.nodes.begin(), prev.nodes.begin() + long(i)}, root};
      total.nodes.insert(total.nodes.end(), spur.nodes.begin(), spur.nodes.end());
      total.links.insert(total.links.end(), spur.links.begin(), spur.links.end());
      const bool accepted = std::any_of(a.begin(), a.end(), [&](const route_path& p) { return p.links == total.links; });
      if (!accepted) b.insert(std::move(total));
    }
    if (b.empty()) break;
    a.push_back(*b.begin());
    b.erase(b.begin());
  }
  return a;
}

std::vector<pair_paths> ksp_paths(const topology& t, unsigned k) {
  const std::vector<unsigned> tors = tor_switches(t);
  std::vector<pair_paths> out;
  for (unsigned s : tors)
    for (unsigned d : tors)
      if (s != d) out.push_back({s, d, k_shortest_paths(t, s, d, k)});
  return out;
}

std::vector<pair_paths> all_shortest_paths(const topology& t, unsigned cap) {
  const std::vector<unsigned> tors = tor_switches(t);
  std::vector<pair_paths> out;
  for (unsigned d : tors) {
    const std::vector<unsigned> dist = t.distances_from(d);
    for (unsigned s : tors) {
      if (s == d) continue;
      pair_paths pp{s, d, {}};
      // Depth-first along links that bring the frame one hop closer to d.
      route_path cur{{s}, {}};
      auto walk = [&](auto&& self, unsigned x) -> void {
        if (x == d) {
          if (pp.paths.size() == cap)
            throw std::invalid_argument(fmt::format("{} -> {} has more than {} shortest paths", t.nodes[s].name, t.nodes[d].name, cap));
          pp.paths.push_back(cur);
          return;
        }
        for (unsigned li : t.nodes[x].port_link) {
          const topo_link& l = t.links[li];
          const unsigned y = l.other(x);
          if (l.failed || !is_switch(t, y) || dist[y] + 1 != dist[x]) continue;
          cur.nodes.push_back(y), cur.links.push_back(li);
          self(self, y);
          cur.nodes.pop_back(), cur.links.pop_back();
        }
      };
      if (dist[s] != ~0u) walk(walk, s);
      out.push_back(std::move(pp));
    }
  }
  return out;
}

}  // namespace netasic
