#include "topology/xpander.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "common/rng.h"
#include "topology/jellyfish.h"

namespace netasic {

std::vector<std::pair<unsigned, unsigned>> xpander_edges(unsigned degree, unsigned lifts, uint64_t seed) {
  rng rand(seed);
  std::vector<std::pair<unsigned, unsigned>> edges;
  std::vector<unsigned> match(lifts);
  for (unsigned i = 0; i <= degree; ++i)
    for (unsigned j = i + 1; j <= degree; ++j) {
      // The matching of edge i-j: a uniform random permutation (Fisher-Yates).
      std::iota(match.begin(), match.end(), 0u);
      for (unsigned a = lifts; a > 1; --a) std::swap(match[a - 1], match[rand.below(a)]);
      for (unsigned a = 0; a < lifts; ++a) edges.push_back({i * lifts + a, j * lifts + match[a]});
    }
  std::sort(edges.begin(), edges.end());
  return edges;
}

topology build_xpander(const xpander_spec& s) {
  const unsigned d = s.degree, L = s.lifts;
  if (d < 2) throw std::invalid_argument("fabric_ports: an Xpander needs d >= 2 fabric ports per ToR (d = 1 is one link)");
  if (L < 1) throw std::invalid_argument("lifts: an Xpander needs L >= 1");
  const unsigned n = (d + 1) * L;
  // A disconnected lift (likely only for small d and L) is redrawn from the next value of a stream
  // seeded by `seed`, so the graph stays a function of the seed.
  std::vector<std::pair<unsigned, unsigned>> edges;
  for (uint64_t attempt = 0; attempt < 64 && edges.empty(); ++attempt) {
    edges = xpander_edges(d, L, s.seed + attempt * 0x9E3779B97F4A7C15ull);
    if (!edges_connected(n, edges)) edges.clear();
  }
  if (edges.empty())
    throw std::invalid_argument(fmt::format("lifts: no connected {}-lift of K_{} was drawn in 64 tries", L, d + 1));
  return build_tor_fabric(n, edges, s.host_ports, s.host_rate_bps, s.uplink_rate_bps, s.delay_ps);
}

}  // namespace netasic
