// Maximum concurrent flow by Garg and Könemann's multiplicative lengths (Garg & Könemann, FOCS'98;
// Fleischer, SIAM J. Discrete Math. 2000), over the same given paths as the exact LP of
// mcf_throughput.h, for the LPs too large for GLPK's simplex (all-to-all at N = 144: 20,592
// demands and 128k path columns). It brackets the LP's optimum t*:
//
//   lower: a feasible flow. Each phase routes every demand's full rate, a step at a time, on its
//          shortest allowed path under the link lengths; after P phases every demand has P times
//          its rate, so the flow divided by its most loaded link's load / capacity is feasible
//          and gives every demand the same t. (The phases since a checkpoint are a flow of their
//          own, with the early phases' poor choices left out; the better of the two is kept.)
//   upper: LP duality. For any link lengths l >= 0, t* <= sum_e c_e l_e / sum_c D_c dist_c(l),
//          dist_c the shortest of demand c's allowed paths under l. Evaluated after every phase;
//          the least is kept.
//
// Every step multiplies the lengths of its path's links by 1 + eps (sent / capacity), so busy
// links grow long and flow moves elsewhere. It stops when upper <= (1 + gap) lower, or after
// max_phases. Deterministic: demands and paths in their given order, no randomness.
#pragma once
#include <cstddef>
#include <vector>

#include "topology/topology.h"
#include "topology/traffic_matrix.h"
#include "topology/updown_routing.h"

namespace netasic {

struct mcf_approx_options {
  double gap = 0.01;            // stop when upper / lower - 1 <= gap
  double eps = 0.02;            // length step (smaller: closer bounds at the end, more phases)
  size_t max_phases = 200000;   // stop here even if the gap is not reached
};

struct mcf_bounds {
  double lower = 0;                        // throughput of the feasible flow in `split` (host line rates per host)
  double upper = 0;                        // the least dual bound: t* <= upper
  std::vector<std::vector<double>> split;  // per demand, per path of its pair: rate of the feasible flow
  size_t phases = 0;
  double solve_seconds = 0;                // wall time (varies run to run)
  bool converged = false;                  // upper <= (1 + gap) lower
};

// Paths as for max_concurrent_flow. Throws std::invalid_argument when a demand's pair has no path
// or the options are out of range (gap and eps in (0, 1), max_phases >= 1).
mcf_bounds max_concurrent_flow_bounds(const topology& t, const std::vector<pair_paths>& paths, const traffic_matrix& tm,
                                      const mcf_approx_options& opt = {});

}  // namespace netasic
