// Maximum concurrent flow throughput of a topology and a path set (the Flattened Clos paper's
// throughput analysis, Zhao et al., NSDI'23, §4.2, Fig. 7: "computed via MCF", not even
// splitting). The path-based LP: maximise t such that every demand c gets t * D_c, split over
// its allowed paths as the LP likes, with every directed link's load within its capacity. Solved
// with GLPK's simplex. Rates are in host line rates (the rate of the first host's link), so t
// is the throughput per host as a fraction of its line rate; host links are not constraints, as
// in the paper, where a Clos reaches (p - h)/h > 1 (Appendix A.3).
#pragma once
#include <vector>

#include "topology/topology.h"
#include "topology/traffic_matrix.h"
#include "topology/updown_routing.h"

namespace netasic {

struct mcf_result {
  double throughput = 0;                   // t: host line rates per host
  std::vector<std::vector<double>> split;  // per demand, per path of its pair: rate (host line rates)
  size_t rows = 0, columns = 0;            // LP size
  double solve_seconds = 0;                // wall time of the simplex (varies run to run)
};

// The allowed paths of each demand are those of pair (src, dst) in `paths`. Throws
// std::invalid_argument when a demand's pair has no path, and std::runtime_error when GLPK does
// not reach an optimum.
mcf_result max_concurrent_flow(const topology& t, const std::vector<pair_paths>& paths, const traffic_matrix& tm);

// The capacity of a directed link in host line rates (its rate over the first host link's).
double link_capacity(const topology& t, unsigned link);

}  // namespace netasic
