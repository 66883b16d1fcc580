#include "topology/jellyfish.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_set>

#include <fmt/format.h>

#include "common/rng.h"

namespace netasic {

namespace {

// The graph as it grows: adjacency sets, the free ports of each vertex, the edge list.
struct rrg {
  std::vector<std::unordered_set<unsigned>> adj;
  std::vector<unsigned> free;
  std::vector<std::pair<unsigned, unsigned>> edges;

  rrg(unsigned n, unsigned r) : adj(n), free(n, r) {}
  bool can_join(unsigned u, unsigned v) const { return u != v && !adj[u].count(v); }
  void join(unsigned u, unsigned v) {
    adj[u].insert(v), adj[v].insert(u), --free[u], --free[v];
    edges.push_back({u, v});
  }
  void cut(size_t e) {
    const auto [x, y] = edges[e];
    adj[x].erase(y), adj[y].erase(x), ++free[x], ++free[y];
    edges[e] = edges.back();
    edges.pop_back();
  }
  std::vector<unsigned> with_free() const {
    std::vector<unsigned> out;
    for (unsigned u = 0; u < free.size(); ++u)
      if (free[u]) out.push_back(u);
    return out;
  }
};

// Phase 1: random pairs of vertices with free ports that are not yet neighbours.
void join_random_pairs(rrg& g, rng& r) {
  for (;;) {
    const std::vector<unsigned> open = g.with_free();
    if (open.size() < 2) return;
    bool joined = false;
    for (unsigned tries = 0; tries < 64 && !joined; ++tries) {
      const unsigned u = open[r.below(open.size())], v = open[r.below(open.size())];
      if (g.can_join(u, v)) g.join(u, v), joined = true;
    }
    if (joined) continue;
    // Random draws keep missing: find a joinable pair by search, or stop.
    std::vector<std::pair<unsigned, unsigned>> pairs;
    for (size_t i = 0; i < open.size(); ++i)
      for (size_t j = i + 1; j < open.size(); ++j)
        if (g.can_join(open[i], open[j])) pairs.push_back({open[i], open[j]});
    if (pairs.empty()) return;
    const auto [u, v] = pairs[r.below(pairs.size())];
    g.join(u, v);
  }
}

// Phase 2 (§3, "incorporate the remaining ports"): a vertex u with a free port and a vertex v with
// one (v = u when u has two) take over a random link x-y: remove it, add u-x and v-y.
bool splice_free_ports(rrg& g, rng& r) {
  for (unsigned rounds = 0; rounds < 100000; ++rounds) {
    const std::vector<unsigned> open = g.with_free();
    if (open.empty()) return true;
    const unsigned u = open[r.below(open.size())];
    unsigned v = u;
    if (g.free[u] < 2) {
      if (open.size() < 2) return false;   // one free port in the whole graph: N*r is odd
      do v = open[r.below(open.size())]; while (v == u);
    }
    if (g.edges.empty()) return false;
    const size_t e = r.below(g.edges.size());
    auto [x, y] = g.edges[e];
    if (r.below(2)) std::swap(x, y);
    if (x == u || x == v || y == u || y == v || !g.can_join(u, x) || !g.can_join(v, y)) continue;
    g.cut(e);
    g.join(u, x);
    g.join(v, y);
  }
  return false;
}

}  // namespace

topology build_tor_fabric(unsigned n, const std::vector<std::pair<unsigned, unsigned>>& edges, unsigned host_ports,
                          uint64_t host_rate_bps, uint64_t uplink_rate_bps, uint64_t delay_ps) {
  topology t;
  std::vector<unsigned> tor;
  for (unsigned i = 0; i < n; ++i) tor.push_back(t.add_node(node_kind::sw, fmt::format("tor{}", i), 1));
  for (unsigned i = 0; i < n; ++i)
    for (unsigned h = 0; h < host_ports; ++h) {
      const unsigned host = t.add_node(node_kind::host, fmt::format("host{}", i * host_ports + h), 0);
      t.connect(host, tor[i], host_rate_bps, delay_ps, fmt::format("{}-tor{}", t.nodes[host].name, i));
    }
  for (const auto& [x, y] : edges) t.connect(tor[x], tor[y], uplink_rate_bps, delay_ps, fmt::format("tor{}-tor{}#0", x, y));
  return t;
}

std::vector<std::pair<unsigned, unsigned>> jellyfish_edges(unsigned n, unsigned r, uint64_t seed) {
  rng rand(seed);
  rrg g(n, r);
  join_random_pairs(g, rand);
  if (!splice_free_ports(g, rand)) return {};
  for (auto& [x, y] : g.edges)
    if (x > y) std::swap(x, y);
  std::sort(g.edges.begin(), g.edges.end());
  return g.edges;
}

topology build_jellyfish(const jellyfish_spec& s) {
  const unsigned n = s.tors, r = s.fabric_ports;
  if (n < 2) throw std::invalid_argument("tors: Jellyfish needs at least 2 ToRs");
  if (r < 1) throw std::invalid_argument("fabric_ports: Jellyfish needs at least 1 fabric port per ToR");
  if (r >= n)
    throw std::invalid_argument(fmt::format("fabric_ports: {} fabric ports need at least {} ToRs (no parallel links, no "
                                            "link to itself), but tors = {}", r, r + 1, n));
  if (uint64_t(n) * r % 2)
    throw std::invalid_argument(fmt::format("fabric_ports: {} ToRs x {} fabric ports = {} link ends, an odd number; a "
                                            "regular graph needs N*r even", n, r, uint64_t(n) * r));
  if (r < 2 && n > 2)
    throw std::invalid_argument(fmt::format("fabric_ports: with 1 fabric port per ToR, {} ToRs fall apart into pairs", n));
  // A stalled or disconnected draw (rare for r >= 3) is redrawn from the next seed of the same
  // stream, so the result stays a function of the seed.
  std::vector<std::pair<unsigned, unsigned>> edges;
  for (uint64_t attempt = 0; attempt < 64 && edges.empty(); ++attempt) {
    edges = jellyfish_edges(n, r, s.seed + attempt * 0x9E3779B97F4A7C15ull);
    if (!edges.empty() && !edges_connected(n, edges)) edges.clear();
  }
  if (edges.empty())
    throw std::invalid_argument(fmt::format("tors: no connected {}-regular graph on {} ToRs was found in 64 draws", r, n));
  return build_tor_fabric(n, edges, s.host_ports, s.host_rate_bps, s.uplink_rate_bps, s.delay_ps);
}

}  // namespace netasic
