#include "topology/updown_routing.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "common/rng.h"
#include "topology/min_cost_flow.h"
#include "topology/traffic_matrix.h"

namespace netasic {

unsigned layer_count(const topology& t) {
  unsigned k = 0;
  for (unsigned s : t.switches)
    for (unsigned l : t.nodes[s].port_layer) k = std::max(k, l);
  return k;
}

namespace {

// A fabric link that is up, by its lower end: switch lo's port of layer j joins switch hi's port
// of layer j + 1 (lo = ~0u: not a working switch-to-switch link).
struct layered_link {
  unsigned lo = ~0u, hi = ~0u, j = 0;
};

layered_link layered(const topology& t, unsigned li) {
  const topo_link& l = t.links[li];
  if (l.failed || t.nodes[l.a].kind != node_kind::sw || t.nodes[l.b].kind != node_kind::sw) return {};
  if (t.nodes[l.a].port_layer.size() <= l.a_port || t.nodes[l.b].port_layer.size() <= l.b_port)
    throw std::invalid_argument(fmt::format("link {}: a port without a virtual layer", l.name));
  unsigned lo = l.a, hi = l.b, jl = t.nodes[l.a].port_layer[l.a_port], jh = t.nodes[l.b].port_layer[l.b_port];
  if (jl > jh) std::swap(lo, hi), std::swap(jl, jh);
  if (jl == 0 || jh != jl + 1)
    throw std::invalid_argument(fmt::format("link {} joins layers {} and {}; up-down routing needs adjacent layers", l.name, jl, jh));
  return {lo, hi, jl};
}

unsigned routing_layers(const topology& t) {
  const unsigned k = layer_count(t);
  if (k < 2) throw std::invalid_argument("up-down routing needs a topology whose switch ports carry virtual layers (k >= 2)");
  return k;
}

// The virtual up-down graph (Fig. 4c): per switch index i, up nodes U(i,1..k-1), down nodes
// D(i,1..k-1) and the unsplit top T(i). Solid arcs (one per physical link and direction of
// travel) cost one hop; dashed arcs inside a switch cost almost nothing ("eps", Alg. 1 line 1).
class virtual_graph {
 public:
  explicit virtual_graph(const topology& t);
  // The physical paths of one pair, contracted and without repeats.
  std::vector<route_path> paths(unsigned src_sw, unsigned dst_sw);

 private:
  static constexpr int64_t solid = int64_t(1) << 20, dashed = 1;
  unsigned node(unsigned i, unsigned j, bool up) const { return i * per_ + (j == k_ ? 2 * (k_ - 1) : (up ? 0 : k_ - 1) + j - 1); }
  route_path contract(const std::vector<unsigned>& arcs, unsigned src_node) const;
  const topology& t_;
  unsigned k_, per_;
  min_cost_flow g_;
  std::vector<unsigned> arc_link_;   // forward arc id / 2 -> physical link, or none
  std::vector<unsigned> arc_to_;     // forward arc id / 2 -> switch node it enters
};

virtual_graph::virtual_graph(const topology& t)
    : t_(t), k_(routing_layers(t)), per_(2 * k_ - 1), g_(unsigned(t.switches.size()) * (2 * k_ - 1)) {
  const std::vector<unsigned> sw_index = t.switch_index();
  auto add = [&](unsigned from, unsigned to, int64_t cap, int64_t cost, unsigned link, unsigned enters) {
    g_.add_arc(from, to, cap, cost);
    arc_link_.push_back(link);
    arc_to_.push_back(enters);
  };
  for (unsigned li = 0; li < t.links.size(); ++li) {
    const layered_link l = layered(t, li);
    if (l.lo == ~0u) continue;
    add(node(sw_index[l.lo], l.j, true), node(sw_index[l.hi], l.j + 1, true), 1, solid, li, l.hi);
    add(node(sw_index[l.hi], l.j + 1, false), node(sw_index[l.lo], l.j, false), 1, solid, li, l.lo);
  }
  for (unsigned i = 0; i < t.switches.size(); ++i)
    for (unsigned j = 1; j < k_; ++j) {
      add(node(i, j, true), node(i, j + 1, true), min_cost_flow::infinite, dashed, ~0u, t.switches[i]);
      add(node(i, j + 1, false), node(i, j, false), min_cost_flow::infinite, dashed, ~0u, t.switches[i]);
    }
}

// Lemma 4, item 3: virtual nodes become their physical switch; a switch met again closes a
// cycle, which is cut out.
route_path virtual_graph::contract(const std::vector<unsigned>& arcs, unsigned src_node) const {
  route_path p;
  p.nodes.push_back(src_node);
  for (unsigned a : arcs) {
    const unsigned li = arc_link_[a / 2];
    if (li == ~0u) continue;   // a dashed arc stays inside the switch
    const unsigned to = arc_to_[a / 2];
    const auto seen = std::find(p.nodes.begin(), p.nodes.end(), to);
    if (seen != p.nodes.end()) {
      p.nodes.erase(seen + 1, p.nodes.end());
      p.links.resize(p.nodes.size() - 1);
      continue;
    }
    p.nodes.push_back(to);
    p.links.push_back(li);
  }
  return p;
}

std::vector<route_path> virtual_graph::paths(unsigned src_sw, unsigned dst_sw) {
  const unsigned s = node(src_sw, 1, true), d = node(dst_sw, 1, false);
  const int64_t f = g_.solve(s, d);
  std::vector<route_path> out;
  for (int64_t n = 0; n < f; ++n) {
    // Alg. 1, lines 4-9: follow arcs that still carry flow; a min-cost flow has no cycle.
    std::vector<unsigned> arcs;
    for (unsigned v = s; v != d;) {
      unsigned next = ~0u;
      for (unsigned a : g_.arcs_from(v))
        if (a % 2 == 0 && g_.flow(a) >= 1) {
          next = a;
          break;
        }
      if (next == ~0u) throw std::logic_error("up-down routing: flow decomposition lost its way");
      g_.take(next, 1);
      arcs.push_back(next);
      v = g_.head(next);
    }
    route_path p = contract(arcs, t_.switches[src_sw]);
    const bool repeat = std::any_of(out.begin(), out.end(), [&](const route_path& q) { return q.links == p.links; });
    if (!repeat) out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

std::vector<pair_paths> updown_paths(const topology& t) {
  virtual_graph g(t);
  std::vector<pair_paths> out;
  for (unsigned i = 0; i < t.switches.size(); ++i) {
    if (!hosts_on(t, t.switches[i])) continue;
    for (unsigned j = 0; j < t.switches.size(); ++j) {
      if (i == j || !hosts_on(t, t.switches[j])) continue;
      out.push_back({t.switches[i], t.switches[j], g.paths(i, j)});
    }
  }
  return out;
}

std::vector<std::pair<unsigned, unsigned>> pairs_without_updown_path(const topology& t) {
  const unsigned k = routing_layers(t), n = unsigned(t.switches.size());
  const std::vector<unsigned> sw_index = t.switch_index();
  std::vector<std::vector<unsigned>> up(size_t(n) * k);   // (switch index, layer j) -> switches one link up
  for (unsigned li = 0; li < t.links.size(); ++li) {
    const layered_link l = layered(t, li);
    if (l.lo != ~0u) up[size_t(sw_index[l.lo]) * k + l.j - 1].push_back(sw_index[l.hi]);
  }
  // top[i]: the switches whose top layer switch i's layer 1 climbs to.
  std::vector<std::vector<char>> top(n, std::vector<char>(n, 0));
  std::vector<char> seen(size_t(n) * k);
  std::vector<unsigned> todo;
  for (unsigned i = 0; i < n; ++i) {
    std::fill(seen.begin(), seen.end(), 0);
    todo.assign(1, i * k);
    seen[i * k] = 1;
    while (!todo.empty()) {
      const unsigned x = todo.back(), sw = x / k, j = x % k + 1;
      todo.pop_back();
      if (j == k) {
        top[i][sw] = 1;
        continue;
      }
      const auto visit = [&](unsigned y) { if (!seen[y]) seen[y] = 1, todo.push_back(y); };
      visit(x + 1);
      for (unsigned m : up[x]) visit(m * k + j);
    }
  }
  std::vector<char> tor(n);
  for (unsigned i = 0; i < n; ++i) tor[i] = hosts_on(t, t.switches[i]) > 0;
  std::vector<std::pair<unsigned, unsigned>> out;
  for (unsigned i = 0; i < n; ++i) {
    if (!tor[i]) continue;
    for (unsigned j = 0; j < n; ++j) {
      if (i == j || !tor[j]) continue;
      bool common = false;
      for (unsigned x = 0; x < n && !common; ++x) common = top[i][x] && top[j][x];
      if (!common) out.push_back({t.switches[i], t.switches[j]});
    }
  }
  return out;
}

void path_stats_sum::add(unsigned paths, double hops, unsigned shortest, unsigned longest) {
  ++s_.pairs;
  s_.min_paths = std::min(s_.min_paths, paths);
  if (paths == 0) {
    ++s_.unrouted;
    return;
  }
  paths_ += paths;
  hops_ += hops;
  shortest_ += shortest;
  paths_sq_ += double(paths) * paths;
  hops_sq_ += hops * hops;
  paths_hops_ += paths * hops;
  shortest_sq_ += double(shortest) * shortest;
  s_.max_length = std::max(s_.max_length, longest);
}

void path_stats_sum::add(const std::vector<route_path>& paths) {
  double hops = 0;
  unsigned shortest = ~0u, longest = 0;
  for (const route_path& p : paths) {
    hops += double(p.links.size());
    shortest = std::min(shortest, unsigned(p.links.size()));
    longest = std::max(longest, unsigned(p.links.size()));
  }
  add(unsigned(paths.size()), hops, shortest, longest);
}

void path_stats_sum::add(const path_stats_sum& o) {
  s_.pairs += o.s_.pairs;
  s_.min_paths = std::min(s_.min_paths, o.s_.min_paths);
  s_.unrouted += o.s_.unrouted;
  s_.max_length = std::max(s_.max_length, o.s_.max_length);
  paths_ += o.paths_;
  hops_ += o.hops_;
  shortest_ += o.shortest_;
  paths_sq_ += o.paths_sq_;
  hops_sq_ += o.hops_sq_;
  paths_hops_ += o.paths_hops_;
  shortest_sq_ += o.shortest_sq_;
}

path_stats path_stats_sum::result() const {
  path_stats s = s_;
  if (s.pairs == 0) return s;
  s.mean_paths = paths_ / s.pairs;
  s.mean_length = paths_ > 0 ? hops_ / paths_ : 0;
  s.mean_shortest = s.pairs > s.unrouted ? shortest_ / (s.pairs - s.unrouted) : 0;
  return s;
}

path_stats_estimate path_stats_sum::estimate(uint64_t population) const {
  path_stats_estimate e;
  e.sample = result();
  e.population = population;
  const double n = s_.pairs, routed = double(s_.pairs) - s_.unrouted;
  // 1.96: the normal distribution's two-sided 95% quantile; 1 - n / N: drawn without replacement
  // (the routed pairs in the sample are the same fraction of all routed pairs).
  const double unsampled = population > 0 ? 1 - n / double(population) : 0;
  const auto half = [&](double variance_of_one, double count) {
    return 1.96 * std::sqrt(std::max(0.0, variance_of_one) / count * unsampled);
  };
  if (n >= 2) e.paths_half = half((paths_sq_ - paths_ * paths_ / n) / (n - 1), n);
  // The shortest path is averaged over the routed pairs: a sample of them.
  if (routed >= 2) e.shortest_half = half((shortest_sq_ - shortest_ * shortest_ / routed) / (routed - 1), routed);
  if (n >= 2 && paths_ > 0) {
    // mean_length = hops / paths: its variance is that of the residuals hops - R paths over the
    // mean paths per pair squared.
    const double r = hops_ / paths_, mean_paths = paths_ / n;
    const double residual = (hops_sq_ - 2 * r * paths_hops_ + r * r * paths_sq_) / (n - 1);
    e.length_half = half(residual / (mean_paths * mean_paths), n);
  }
  return e;
}

path_stats stats_of(const std::vector<pair_paths>& pairs) {
  path_stats_sum sum;
  for (const pair_paths& pp : pairs) sum.add(pp.paths);
  return sum.result();
}

namespace {

// Solves the pairs of sources 0 .. sources - 1 on `threads` threads, each with its own flow graph
// and taking the next source when done (the flow graph keeps a source's reach while it repeats):
// solve(g, i, sum) adds source i's pairs to its thread's sum. The calling thread tells `progress`.
template <class Solve>
path_stats_sum sum_over_sources(const topology& t, unsigned threads, unsigned sources, const source_progress& progress, Solve solve) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  routing_layers(t);   // a topology without layers throws here, not in a thread
  std::atomic<unsigned> next{0}, done{0};
  std::vector<path_stats_sum> share(threads);
  std::vector<std::exception_ptr> failed(threads);
  auto work = [&](unsigned w) {
    try {
      virtual_graph g(t);
      for (unsigned i; (i = next++) < sources;) {
        solve(g, i, share[w]);
        const unsigned d = ++done;
        if (w == 0 && progress) progress(d, sources);
      }
    } catch (...) {
      failed[w] = std::current_exception();
      next = sources;
    }
  };
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < threads; ++w) pool.emplace_back(work, w);
  work(0);
  for (std::thread& th : pool) th.join();
  path_stats_sum sum;
  for (unsigned w = 0; w < threads; ++w) {
    if (failed[w]) std::rethrow_exception(failed[w]);
    sum.add(share[w]);
  }
  return sum;
}

// Switch indices (into t.switches) of the ToRs, the switches with hosts.
std::vector<unsigned> tor_indices(const topology& t) {
  std::vector<unsigned> out;
  for (unsigned i = 0; i < t.switches.size(); ++i)
    if (hosts_on(t, t.switches[i])) out.push_back(i);
  return out;
}

// Every ordered pair of distinct ToRs.
path_stats_sum sum_all_pairs(const topology& t, unsigned threads, const source_progress& progress) {
  const std::vector<unsigned> tors = tor_indices(t);
  return sum_over_sources(t, threads, unsigned(tors.size()), progress, [&](virtual_graph& g, unsigned i, path_stats_sum& sum) {
    for (unsigned j : tors)
      if (j != tors[i]) sum.add(g.paths(tors[i], j));
  });
}

}  // namespace

path_stats updown_path_stats(const topology& t, unsigned threads, const source_progress& progress) {
  return sum_all_pairs(t, threads, progress).result();
}

std::vector<uint64_t> sample_indices(uint64_t population, uint64_t pairs, uint64_t seed) {
  // Selection sampling (Knuth's Algorithm S): index x is taken with probability (indices still
  // wanted) / (indices left), which gives every subset of that size the same chance, in order.
  std::vector<uint64_t> chosen;
  chosen.reserve(std::min(pairs, population));
  rng draws(seed);
  for (uint64_t x = 0; x < population && chosen.size() < pairs; ++x)
    if (pairs >= population || draws.uniform() * double(population - x) < double(pairs - chosen.size())) chosen.push_back(x);
  return chosen;
}

path_stats_estimate updown_path_sample(const topology& t, uint64_t pairs, uint64_t seed, unsigned threads,
                                       const source_progress& progress) {
  const std::vector<unsigned> tors = tor_indices(t);
  const uint64_t m = tors.size(), population = m * (m > 0 ? m - 1 : 0);
  if (pairs >= population) return sum_all_pairs(t, threads, progress).estimate(population);
  const std::vector<uint64_t> chosen = sample_indices(population, pairs, seed);
  std::vector<size_t> first(m + 1, 0);   // chosen[first[i]] .. chosen[first[i + 1] - 1]: source i's
  for (uint64_t x : chosen) ++first[x / (m - 1) + 1];
  for (uint64_t i = 0; i < m; ++i) first[i + 1] += first[i];
  return sum_over_sources(t, threads, unsigned(m), progress, [&](virtual_graph& g, unsigned i, path_stats_sum& sum) {
           for (size_t c = first[i]; c < first[i + 1]; ++c) {
             const unsigned other = unsigned(chosen[c] % (m - 1));
             sum.add(g.paths(tors[i], tors[other < i ? other : other + 1]));
           }
         }).estimate(population);
}

path_stats shortest_path_stats(const topology& t) {
  path_stats s;
  s.min_paths = std::numeric_limits<unsigned>::max();
  const std::vector<unsigned> tors = tor_switches(t);
  double paths = 0, hops = 0, shortest = 0;
  constexpr unsigned inf = std::numeric_limits<unsigned>::max();
  for (unsigned src : tors) {
    const std::vector<unsigned> d = t.distances_from(src);
    // Shortest paths counted in order of distance: each node sums the counts of its predecessors.
    std::vector<unsigned> order;
    for (unsigned n = 0; n < t.nodes.size(); ++n)
      if (d[n] != inf && t.nodes[n].kind == node_kind::sw) order.push_back(n);
    std::sort(order.begin(), order.end(), [&](unsigned x, unsigned y) { return d[x] < d[y]; });
    std::vector<double> count(t.nodes.size(), 0);
    count[src] = 1;
    for (unsigned n : order)
      for (unsigned li : t.nodes[n].port_link) {
        const topo_link& l = t.links[li];
        const unsigned m = l.other(n);
        if (!l.failed && t.nodes[m].kind == node_kind::sw && d[m] != inf && d[m] + 1 == d[n]) count[n] += count[m];
      }
    for (unsigned dst : tors) {
      if (dst == src) continue;
      ++s.pairs;
      if (d[dst] == inf) {
        ++s.unrouted;
        s.min_paths = 0;
        continue;
      }
      s.min_paths = std::min(s.min_paths, unsigned(std::min(count[dst], 4e9)));
      s.max_length = std::max(s.max_length, d[dst]);
      paths += count[dst];
      hops += count[dst] * d[dst];
      shortest += d[dst];
    }
  }
  if (s.pairs == 0) return s;
  s.mean_paths = paths / s.pairs;
  s.mean_length = paths > 0 ? hops / paths : 0;
  s.mean_shortest = s.pairs > s.unrouted ? shortest / (s.pairs - s.unrouted) : 0;
  return s;
}

}  // namespace netasic
