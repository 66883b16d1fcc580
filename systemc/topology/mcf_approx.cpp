#include "topology/mcf_approx.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "topology/cbd_check.h"
#include "topology/mcf_throughput.h"

namespace netasic {

namespace {

// The demands' paths, flattened: path q of demand c is paths [path_begin[c], path_begin[c + 1]),
// its links (compact indices of the directed links some path uses) link_of[link_begin[q] ..].
struct flat_paths {
  std::vector<size_t> path_begin{0}, link_begin{0};
  std::vector<unsigned> link_of;
  std::vector<double> capacity;   // per compact directed link, host line rates
};

flat_paths flatten(const topology& t, const std::vector<pair_paths>& paths, const traffic_matrix& tm) {
  std::map<std::pair<unsigned, unsigned>, const pair_paths*> by_pair;
  for (const pair_paths& pp : paths) by_pair[{pp.src, pp.dst}] = &pp;
  flat_paths f;
  std::vector<unsigned> compact(2 * t.links.size(), ~0u);
  for (const demand& d : tm.demands) {
    const auto it = by_pair.find({d.src, d.dst});
    if (it == by_pair.end() || it->second->paths.empty())
      throw std::invalid_argument(fmt::format("throughput: {} -> {} has demand but no path", t.nodes[d.src].name, t.nodes[d.dst].name));
    for (const route_path& p : it->second->paths) {
      for (size_t i = 0; i < p.links.size(); ++i) {
        const unsigned dl = directed_link(t, p.links[i], p.nodes[i]);
        if (compact[dl] == ~0u) compact[dl] = unsigned(f.capacity.size()), f.capacity.push_back(link_capacity(t, p.links[i]));
        f.link_of.push_back(compact[dl]);
      }
      f.link_begin.push_back(f.link_of.size());
    }
    f.path_begin.push_back(f.link_begin.size() - 1);
  }
  return f;
}

// The shortest of demand c's paths under `length`: (its index, its length).
std::pair<size_t, double> shortest(const flat_paths& f, size_t c, const std::vector<double>& length) {
  size_t best = f.path_begin[c];
  double best_len = std::numeric_limits<double>::infinity();
  for (size_t q = f.path_begin[c]; q < f.path_begin[c + 1]; ++q) {
    double len = 0;
    for (size_t i = f.link_begin[q]; i < f.link_begin[q + 1]; ++i) len += length[f.link_of[i]];
    if (len < best_len) best = q, best_len = len;
  }
  return {best, best_len};
}

// The dual bound sum_e c_e l_e / sum_c D_c dist_c(l).
double dual_bound(const flat_paths& f, const traffic_matrix& tm, const std::vector<double>& length) {
  double volume = 0, alpha = 0;
  for (size_t e = 0; e < length.size(); ++e) volume += f.capacity[e] * length[e];
  for (size_t c = 0; c < tm.demands.size(); ++c) alpha += tm.demands[c].rate * shortest(f, c, length).second;
  return volume / alpha;
}

// The flow accumulated since a checkpoint: phases routed, and per path and per link how much.
struct checkpoint {
  size_t phase = 0;
  std::vector<double> path_flow, link_load;
};

}  // namespace

mcf_bounds max_concurrent_flow_bounds(const topology& t, const std::vector<pair_paths>& paths, const traffic_matrix& tm,
                                      const mcf_approx_options& opt) {
  if (!(opt.gap > 0 && opt.gap < 1) || !(opt.eps > 0 && opt.eps < 1) || opt.max_phases < 1)
    throw std::invalid_argument(fmt::format("throughput: the approximation needs gap and eps in (0, 1) and max_phases >= 1 "
                                            "(gap {}, eps {}, max_phases {})", opt.gap, opt.eps, opt.max_phases));
  const auto start = std::chrono::steady_clock::now();
  const flat_paths f = flatten(t, paths, tm);
  const size_t demands = tm.demands.size(), links = f.capacity.size();
  mcf_bounds r;
  r.split.resize(demands);
  for (size_t c = 0; c < demands; ++c) r.split[c].assign(f.path_begin[c + 1] - f.path_begin[c], 0);
  if (demands == 0) {
    r.lower = r.upper = std::numeric_limits<double>::infinity();
    r.converged = true;
    return r;
  }
  // Lengths start at 1 / capacity. A phase routes `scale` times each demand's rate, scale the
  // dual bound at these lengths, so a phase is about as much flow as the fabric takes at once.
  std::vector<double> length(links);
  for (size_t e = 0; e < links; ++e) length[e] = 1 / f.capacity[e];
  r.upper = dual_bound(f, tm, length);
  const double scale = r.upper;
  checkpoint now, older, newer;   // now: everything; older, newer: at the last two powers of 2 phases
  now.path_flow.assign(f.link_begin.size() - 1, 0), now.link_load.assign(links, 0);
  older = newer = now;
  checkpoint origin;              // phase 0: the whole flow
  origin.link_load.assign(links, 0);
  std::vector<double> best_flow;
  double best_factor = 0;         // best_flow x best_factor is the feasible flow of r.lower
  // The flow since checkpoint `from`, scaled to the most loaded link: its throughput.
  const auto throughput_since = [&](const checkpoint& from, double& factor) {
    double congestion = 0;
    for (size_t e = 0; e < links; ++e) congestion = std::max(congestion, (now.link_load[e] - from.link_load[e]) / f.capacity[e]);
    factor = 1 / congestion;
    return double(now.phase - from.phase) * scale / congestion;
  };
  while (r.phases < opt.max_phases && !r.converged) {
    for (size_t c = 0; c < demands; ++c) {
      double left = tm.demands[c].rate * scale;
      while (left > 0) {
        const size_t q = shortest(f, c, length).first;
        double bottleneck = std::numeric_limits<double>::infinity();
        for (size_t i = f.link_begin[q]; i < f.link_begin[q + 1]; ++i) bottleneck = std::min(bottleneck, f.capacity[f.link_of[i]]);
        const double sent = std::min(left, bottleneck);
        now.path_flow[q] += sent;
        for (size_t i = f.link_begin[q]; i < f.link_begin[q + 1]; ++i) {
          const unsigned e = f.link_of[i];
          now.link_load[e] += sent;
          length[e] *= 1 + opt.eps * sent / f.capacity[e];
        }
        left = sent < left ? left - sent : 0;
      }
    }
    ++r.phases, ++now.phase;
    // Lengths only matter relative to each other: keep them in range.
    const double longest = *std::max_element(length.begin(), length.end());
    if (longest > 1e100)
      for (double& l : length) l /= longest;
    r.upper = std::min(r.upper, dual_bound(f, tm, length));
    for (const checkpoint* from : {&origin, &older, &newer}) {
      if (from->phase >= now.phase) continue;
      double factor = 0;
      const double lower = throughput_since(*from, factor);
      if (lower > r.lower) {
        r.lower = lower;
        best_flow = now.path_flow;
        if (from != &origin)
          for (size_t q = 0; q < best_flow.size(); ++q) best_flow[q] -= from->path_flow[q];
        best_factor = factor;
      }
    }
    r.converged = r.upper <= (1 + opt.gap) * r.lower;
    if ((now.phase & (now.phase - 1)) == 0) older = std::move(newer), newer = now;   // a power of 2
  }
  for (size_t c = 0; c < demands; ++c)
    for (size_t q = f.path_begin[c]; q < f.path_begin[c + 1]; ++q) r.split[c][q - f.path_begin[c]] = best_flow[q] * best_factor;
  r.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace netasic
