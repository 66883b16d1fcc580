// Xpander (Valadarsky, Shahaf, Dinitz and Schapira, "Xpander: Towards Optimal-Performance
// Datacenters", CoNEXT'16, §3): a d-regular expander of ToRs built as a random L-lift of the
// complete graph K_{d+1}. Each vertex i of K_{d+1} becomes L ToRs (i, 0..L-1), and each edge i-j
// becomes a random perfect matching between the two sets of L, so the fabric has (d+1)L ToRs,
// each with d fabric ports. Seeded and reproducible.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "topology/topology.h"

namespace netasic {

struct xpander_spec {
  unsigned degree = 4, lifts = 4, host_ports = 4;   // d, L, hosts per ToR
  uint64_t seed = 1;
  uint64_t host_rate_bps = 0, uplink_rate_bps = 0, delay_ps = 0;
};

// The ToR-to-ToR edges (x < y, sorted) of one random L-lift of K_{d+1}; ToR (i, a) is i*L + a.
// A lift never joins a ToR to itself (the two ends lie over different vertices of K_{d+1}) and
// never twice to the same ToR (one matching per edge of K_{d+1}, one partner per ToR in each),
// so the graph is always simple; it can be disconnected.
std::vector<std::pair<unsigned, unsigned>> xpander_edges(unsigned degree, unsigned lifts, uint64_t seed);

// Throws std::invalid_argument naming the field at fault (fabric_ports, lifts) when the shape is
// impossible, or when no connected lift was drawn in 64 tries (from one seeded stream).
topology build_xpander(const xpander_spec& s);

}  // namespace netasic
