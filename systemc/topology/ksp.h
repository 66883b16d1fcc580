// k-shortest loopless paths (Yen 1971), the Flattened Clos paper's 32-way KSP baseline (Zhao et
// al., NSDI'23, Fig. 7): the k shortest ToR-to-ToR paths in links, over switch links that are
// up. Parallel links give distinct paths. Ties are broken by link indices, so the set is
// deterministic.
#pragma once
#include <vector>

#include "topology/topology.h"
#include "topology/updown_routing.h"

namespace netasic {

// The k shortest loopless paths from switch node src to switch node dst (fewer when fewer exist).
std::vector<route_path> k_shortest_paths(const topology& t, unsigned src, unsigned dst, unsigned k);

// Every ordered pair of distinct ToRs (switches with a host) with its k shortest paths.
std::vector<pair_paths> ksp_paths(const topology& t, unsigned k);

// Every shortest path of every ToR pair (what ECMP spreads over), as paths. Throws
// std::invalid_argument when some pair has more than `cap` of them.
std::vector<pair_paths> all_shortest_paths(const topology& t, unsigned cap);

}  // namespace netasic
