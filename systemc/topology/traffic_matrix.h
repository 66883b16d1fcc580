// ToR-to-ToR traffic matrices for the throughput analysis of the Flattened Clos paper (Zhao et
// al., NSDI'23, §4.2, Fig. 7): all-to-all, uniform random (each ToR talks to a fraction p of
// the ToRs, §2.3 and §4.2) and near-worst permutation (the permutation of ToRs that maximises the
// total shortest-path distance, a maximum-weight perfect matching on the bipartite graph of
// ToRs weighted by distance, §4.2). Rates are in host line rates: every host sends 1, so a ToR
// with h hosts sends h in all.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "topology/topology.h"

namespace netasic {

struct demand {
  unsigned src = 0, dst = 0;   // ToR switch nodes
  double rate = 0;             // host line rates
};

struct traffic_matrix {
  std::string name;            // "all_to_all", "uniform:0.1 (seed 1)", "permutation"
  std::vector<demand> demands;
};

// The switches with hosts, in switch order, and how many hosts each has.
std::vector<unsigned> tor_switches(const topology& t);
unsigned hosts_on(const topology& t, unsigned node);

// Each host sends to every host on other ToRs alike: D(i,j) = h_i h_j / (H - h_i).
traffic_matrix all_to_all_traffic(const topology& t);
// Each ToR picks max(1, round(p (N-1))) other ToRs at random (seeded Fisher-Yates over
// common/rng.h) and splits its h_i evenly over them. p in (0, 1].
traffic_matrix uniform_random_traffic(const topology& t, double p, uint64_t seed);
// ToR i sends h_i to pi(i), pi a permutation with no fixed point that maximises the sum of
// shortest-path distances (Hungarian algorithm, deterministic among ties).
traffic_matrix near_worst_permutation(const topology& t);

// The permutation of indices 0..n-1 that maximises sum w[i][pi(i)] (Hungarian algorithm, O(n^3)).
std::vector<unsigned> max_weight_assignment(const std::vector<std::vector<double>>& w);

}  // namespace netasic
