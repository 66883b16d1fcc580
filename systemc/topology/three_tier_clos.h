// A 3-tier Clos of any size: P pods, each with T ToRs and A aggregation switches (a complete
// bipartite graph inside the pod), and S spines in A planes of S/A: aggregation switch j of
// every pod links to every spine of plane j (Al-Fares et al., SIGCOMM'08, §3, generalised past
// k-ary). P = k, T = A = k/2, S = k^2/4 is the k-ary fat tree. The Clos baseline of the Flattened
// Clos paper (§4, A.3) is one such Clos.
#pragma once
#include <cstdint>

#include "topology/topology.h"

namespace netasic {

struct three_tier_clos_spec {
  unsigned pods = 2, tors_per_pod = 2, aggs_per_pod = 2, spines = 2, hosts_per_tor = 4;
  uint64_t host_rate_bps = 0, uplink_rate_bps = 0, delay_ps = 0;
};

// Throws std::invalid_argument naming the field at fault (spines) when S is not a multiple of A.
topology build_three_tier_clos(const three_tier_clos_spec& s);

}  // namespace netasic
