#include "topology/traffic_matrix.h"

#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "common/rng.h"

namespace netasic {

unsigned hosts_on(const topology& t, unsigned node) {
  unsigned h = 0;
  for (unsigned li : t.nodes[node].port_link) h += t.nodes[t.links[li].other(node)].kind == node_kind::host;
  return h;
}

std::vector<unsigned> tor_switches(const topology& t) {
  std::vector<unsigned> tors;
  for (unsigned n : t.switches)
    if (hosts_on(t, n) > 0) tors.push_back(n);
  return tors;
}

traffic_matrix all_to_all_traffic(const topology& t) {
  traffic_matrix m{"all_to_all", {}};
  const std::vector<unsigned> tors = tor_switches(t);
  double all = 0;
  for (unsigned s : tors) all += hosts_on(t, s);
  for (unsigned s : tors)
    for (unsigned d : tors)
      if (s != d) m.demands.push_back({s, d, hosts_on(t, s) * double(hosts_on(t, d)) / (all - hosts_on(t, s))});
  return m;
}

traffic_matrix uniform_random_traffic(const topology& t, double p, uint64_t seed) {
  if (!(p > 0 && p <= 1)) throw std::invalid_argument(fmt::format("uniform traffic needs a fraction p in (0, 1], not {}", p));
  traffic_matrix m{fmt::format("uniform:{} (seed {})", p, seed), {}};
  const std::vector<unsigned> tors = tor_switches(t);
  if (tors.size() < 2) return m;
  const unsigned n = unsigned(tors.size());
  const unsigned picks = std::max(1u, unsigned(std::lround(p * (n - 1))));
  rng r(seed);
  for (unsigned i = 0; i < n; ++i) {
    std::vector<unsigned> others;
    for (unsigned j = 0; j < n; ++j)
      if (j != i) others.push_back(j);
    for (unsigned k = 0; k < picks; ++k) std::swap(others[k], others[k + r.below(others.size() - k)]);
    for (unsigned k = 0; k < picks; ++k) m.demands.push_back({tors[i], tors[others[k]], double(hosts_on(t, tors[i])) / picks});
  }
  return m;
}

// Kuhn-Munkres with potentials (the O(n^3) form): minimises the cost -w.
std::vector<unsigned> max_weight_assignment(const std::vector<std::vector<double>>& w) {
  const size_t n = w.size();
  constexpr double inf = std::numeric_limits<double>::infinity();
  std::vector<double> u(n + 1, 0), v(n + 1, 0);
  std::vector<size_t> match(n + 1, 0), way(n + 1, 0);   // match[column] = row, 1-based, 0 = free
  for (size_t i = 1; i <= n; ++i) {
    match[0] = i;
    size_t j0 = 0;
    std::vector<double> minv(n + 1, inf);
    std::vector<char> used(n + 1, 0);
    do {
      used[j0] = 1;
      const size_t i0 = match[j0];
      double delta = inf;
      size_t j1 = 0;
      for (size_t j = 1; j <= n; ++j) {
        if (used[j]) continue;
        const double cur = -w[i0 - 1][j - 1] - u[i0] - v[j];
        if (cur < minv[j]) minv[j] = cur, way[j] = j0;
        if (minv[j] < delta) delta = minv[j], j1 = j;
      }
      for (size_t j = 0; j <= n; ++j)
        if (used[j]) u[match[j]] += delta, v[j] -= delta;
        else minv[j] -= delta;
      j0 = j1;
    } while (match[j0] != 0);
    do {
      const size_t j1 = way[j0];
      match[j0] = match[j1];
      j0 = j1;
    } while (j0 != 0);
  }
  std::vector<unsigned> pi(n);
  for (size_t j = 1; j <= n; ++j) pi[match[j] - 1] = unsigned(j - 1);
  return pi;
}

traffic_matrix near_worst_permutation(const topology& t) {
  traffic_matrix m{"permutation", {}};
  const std::vector<unsigned> tors = tor_switches(t);
  const size_t n = tors.size();
  if (n < 2) return m;
  // A fixed point weighs less than any real pair could, so the matching never picks one.
  const double forbid = -1e6 * double(t.nodes.size());
  std::vector<std::vector<double>> w(n, std::vector<double>(n, forbid));
  for (size_t i = 0; i < n; ++i) {
    const std::vector<unsigned> d = t.distances_from(tors[i]);
    for (size_t j = 0; j < n; ++j)
      if (j != i) {
        if (d[tors[j]] == std::numeric_limits<unsigned>::max())
          throw std::invalid_argument(fmt::format("{} cannot reach {}", t.nodes[tors[i]].name, t.nodes[tors[j]].name));
        w[i][j] = d[tors[j]];
      }
  }
  const std::vector<unsigned> pi = max_weight_assignment(w);
  for (size_t i = 0; i < n; ++i) m.demands.push_back({tors[i], tors[pi[i]], double(hosts_on(t, tors[i]))});
  return m;
}

}  // namespace netasic
