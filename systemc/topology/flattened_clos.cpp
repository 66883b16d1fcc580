#include "topology/flattened_clos.h"

#include <cmath>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "common/rng.h"

namespace netasic {

unsigned fc_min_layers(unsigned tors, unsigned fabric_ports) {
  if (tors < 2) return 2;
  const double need = std::sqrt(2.0 * tors * std::log(double(tors)));
  for (unsigned k = 2; k <= fabric_ports / 2 + 1; ++k)
    if (std::pow(1.0 + fabric_ports / (2.0 * (k - 1)), double(k - 1)) > need) return k;
  return 0;
}

bool fc_degrees(const std::vector<unsigned>& l, std::vector<unsigned>& a, std::string& why) {
  a.clear();
  if (l.size() < 2) {
    why = "needs at least 2 layers";
    return false;
  }
  unsigned prev = 0;
  for (size_t j = 0; j + 1 < l.size(); ++j) {
    if (l[j] <= prev) {
      why = fmt::format("layer {} has {} ports, which leaves no link up to layer {} (l_j = a_(j-1) + a_j, a_j >= 1)",
                        j + 1, l[j], j + 2);
      return false;
    }
    a.push_back(l[j] - prev);
    prev = a.back();
  }
  if (l.back() != prev) {
    why = fmt::format("the top layer has {} ports but layer {} sends {} links up to it (l_k must equal a_(k-1))",
                      l.back(), l.size() - 1, prev);
    return false;
  }
  return true;
}

std::vector<unsigned> fc_even_layers(unsigned s, unsigned k) {
  const unsigned m = k - 1, half = s / 2;
  std::vector<unsigned> a(m, half / m);
  for (unsigned r = 0; r < half % m; ++r) ++a[r % 2 == 0 ? m - 1 - r / 2 : r / 2];   // last, first, second-last, ...
  std::vector<unsigned> l(k, 0);
  for (unsigned j = 0; j < m; ++j) {
    l[j] += a[j];
    l[j + 1] += a[j];
  }
  return l;
}

namespace {

using tor_pair = std::pair<unsigned, unsigned>;

// A random a-regular bipartite graph between {0..n-1} (layer j) and {0..n-1} (layer j+1) with no
// pair (i, i): the stubs of the upper side in random order, then swaps that repair every self pair
// and, as far as a bounded number of swaps can, every repeated pair. Repeated means the same
// (lower, upper) pair; with `cabled` (the ToR pairs the earlier layer pairs cabled, lower ToR
// first), the same two ToRs in either order or already cabled, and a repeat the swaps leave is an
// error.
std::vector<tor_pair> random_bipartite(unsigned n, unsigned a, rng& r, const std::map<tor_pair, unsigned>* cabled) {
  std::vector<unsigned> lower, upper;
  for (unsigned i = 0; i < n; ++i)
    for (unsigned d = 0; d < a; ++d) lower.push_back(i), upper.push_back(i);
  for (size_t i = upper.size(); i > 1; --i) std::swap(upper[i - 1], upper[r.below(i)]);
  auto key = [&](size_t i) {
    return cabled ? tor_pair{std::min(lower[i], upper[i]), std::max(lower[i], upper[i])} : tor_pair{lower[i], upper[i]};
  };
  auto count_pairs = [&] {
    std::map<tor_pair, unsigned> c;
    if (cabled)
      for (const auto& [pair, links] : *cabled) c[pair] = 1;
    for (size_t i = 0; i < lower.size(); ++i) ++c[key(i)];
    return c;
  };
  for (unsigned pass = 0; pass < 64; ++pass) {
    auto seen = count_pairs();
    bool clean = true;
    for (size_t i = 0; i < lower.size(); ++i) {
      const bool self = lower[i] == upper[i];
      if (!self && (pass >= 32 || seen[key(i)] == 1)) continue;   // later passes: self pairs only
      clean = false;
      for (unsigned tries = 0; tries < 64; ++tries) {
        const size_t q = r.below(lower.size());
        if (lower[q] == upper[i] || lower[i] == upper[q]) continue;
        --seen[key(i)];
        --seen[key(q)];
        std::swap(upper[i], upper[q]);
        ++seen[key(i)];
        ++seen[key(q)];
        break;
      }
    }
    if (clean) break;
  }
  const auto seen = cabled ? count_pairs() : std::map<tor_pair, unsigned>{};
  std::vector<tor_pair> e;
  for (size_t i = 0; i < lower.size(); ++i) {
    if (lower[i] == upper[i]) throw std::invalid_argument("tors: too few ToRs to wire a layer without linking a ToR to itself");
    if (cabled && seen.at(key(i)) > 1)
      throw std::invalid_argument(fmt::format(
          "wiring: found no wiring of {} ToRs with these layers that cables no two ToRs twice (tor{} and tor{} twice); "
          "each ToR needs as many distinct neighbours as it has fabric ports: more ToRs, or \"per_layer\", which allows "
          "two cables between two ToRs", n, key(i).first, key(i).second));
    e.push_back({lower[i], upper[i]});
  }
  return e;
}

void check_spec(const flattened_clos_spec& s, std::vector<unsigned>& l, std::vector<unsigned>& a) {
  if (s.tors < 2) throw std::invalid_argument("tors: a Flattened Clos needs at least 2 ToRs");
  if (s.fabric_ports % 2 || s.fabric_ports < 2)
    throw std::invalid_argument(fmt::format("fabric_ports: {} is odd or below 2; the layers' degrees sum to s/2 (§3.2.3)",
                                            s.fabric_ports));
  l = s.layer_ports;
  if (l.empty()) {
    unsigned k = s.layers ? s.layers : fc_min_layers(s.tors, s.fabric_ports);
    if (k == 0) k = s.fabric_ports / 2 + 1;   // Eq. 4 has no solution: the most layers the ports allow
    if (k < 2 || k > s.fabric_ports / 2 + 1)
      throw std::invalid_argument(fmt::format("layers: {} layers need between 2 and s/2 + 1 = {}", k, s.fabric_ports / 2 + 1));
    l = fc_even_layers(s.fabric_ports, k);
  }
  if (s.layers && s.layers != l.size())
    throw std::invalid_argument(fmt::format("layer_ports: {} entries but layers = {}", l.size(), s.layers));
  unsigned sum = 0;
  for (unsigned x : l) sum += x;
  if (sum != s.fabric_ports)
    throw std::invalid_argument(fmt::format("layer_ports: the layers hold {} ports but fabric_ports = {} (Eq. 1)", sum, s.fabric_ports));
  std::string why;
  if (!fc_degrees(l, a, why)) throw std::invalid_argument("layer_ports: " + why);
}

}  // namespace

topology build_flattened_clos(const flattened_clos_spec& s) {
  std::vector<unsigned> l, a;
  check_spec(s, l, a);
  topology t;
  std::vector<unsigned> tor;
  for (unsigned i = 0; i < s.tors; ++i) tor.push_back(t.add_node(node_kind::sw, fmt::format("tor{}", i), 1));
  for (unsigned i = 0; i < s.tors; ++i)
    for (unsigned h = 0; h < s.host_ports; ++h) {
      const unsigned host = t.add_node(node_kind::host, fmt::format("host{}", i * s.host_ports + h), 0);
      t.connect(host, tor[i], s.host_rate_bps, s.delay_ps, fmt::format("{}-tor{}", t.nodes[host].name, i));
      t.nodes[tor[i]].port_layer.push_back(0);
    }
  rng r(s.seed);
  std::map<tor_pair, unsigned> parallel;   // links so far between two ToRs, lower first
  for (unsigned j = 0; j + 1 < l.size(); ++j)
    for (const auto& [x, y] : random_bipartite(s.tors, a[j], r, s.wiring == fc_wiring::simple ? &parallel : nullptr)) {
      const unsigned lo = std::min(x, y), hi = std::max(x, y);
      const unsigned idx = parallel[{lo, hi}]++;
      t.connect(tor[x], tor[y], s.uplink_rate_bps, s.delay_ps, fmt::format("tor{}-tor{}#{}", x, y, idx));
      t.nodes[tor[x]].port_layer.push_back(j + 1);   // x's end is its layer-j port, y's its layer-(j+1) port
      t.nodes[tor[y]].port_layer.push_back(j + 2);
    }
  return t;
}

}  // namespace netasic
