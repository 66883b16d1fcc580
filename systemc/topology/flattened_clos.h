// Flattened Clos (Zhao et al., NSDI'23, §3.1): N ToRs, each with h host ports and s fabric ports
// split into k virtual layers; random bipartite wiring between adjacent layers only, never a ToR
// to itself and (fc_wiring::simple) never twice between two ToRs. The result is an s-regular
// random graph whose ports carry their layer (topo_node::port_layer), which the up-down routing
// (updown_routing.h) reads.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "topology/topology.h"

namespace netasic {

// How the random bipartite graphs between adjacent layers are drawn. per_layer: no pair repeats
// within a layer pair, but two ToRs may be cabled again in another layer pair (or in the other
// direction), a multigraph. simple: no two ToRs are cabled twice anywhere, as in Jellyfish. The
// paper says "a random bipartite graph" and not which; validation/flattened-clos.md measures both.
enum class fc_wiring { per_layer, simple };

struct flattened_clos_spec {
  unsigned tors = 16, fabric_ports = 4, host_ports = 4;
  unsigned layers = 0;                   // k; 0 = the paper's k_min (Eq. 4)
  std::vector<unsigned> layer_ports;     // [l_1..l_k]; empty = a_j spread evenly (Eq. 2)
  uint64_t seed = 1;
  fc_wiring wiring = fc_wiring::simple;
  uint64_t host_rate_bps = 0, uplink_rate_bps = 0, delay_ps = 0;
};

// The smallest k >= 2 with (1 + s/(2(k-1)))^(k-1) > sqrt(2 N ln N) (Eq. 4 with eps -> 0, §3.2.3),
// or 0 when no k up to s/2 + 1 satisfies it.
unsigned fc_min_layers(unsigned tors, unsigned fabric_ports);

// The bipartite degrees a_1..a_{k-1} (Eq. 2) of a layer vector, or why it has none: l_1 = a_1,
// l_j = a_{j-1} + a_j, l_k = a_{k-1}, every a_j >= 1.
bool fc_degrees(const std::vector<unsigned>& layer_ports, std::vector<unsigned>& a, std::string& why);

// The layer vector for k layers with sum(a_j) = s/2 spread evenly; the remainder goes to the end
// layers first, as the paper's vectors [7,13,13,7] and [2,4,4,5,3] have it (Tables 2, 6).
std::vector<unsigned> fc_even_layers(unsigned fabric_ports, unsigned layers);

// Throws std::invalid_argument naming the field at fault (tors, fabric_ports, layers,
// layer_ports, wiring) when the parameters admit no Flattened Clos.
topology build_flattened_clos(const flattened_clos_spec& s);

}  // namespace netasic
