// Jellyfish (Singla et al., NSDI'12, §3): N ToRs, each with h host ports and r fabric ports,
// wired as a random r-regular graph. Seeded and reproducible; no self-loops, no parallel links,
// connected.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "topology/topology.h"

namespace netasic {

struct jellyfish_spec {
  unsigned tors = 16, fabric_ports = 4, host_ports = 4;
  uint64_t seed = 1;
  uint64_t host_rate_bps = 0, uplink_rate_bps = 0, delay_ps = 0;
};

// The switch-to-switch edges (x < y, sorted) of a random r-regular simple graph on n vertices,
// built as the paper's §3 does: join random non-adjacent pairs with free ports until none is
// left, then splice the remaining free ports into random existing links (remove x-y, add u-x and
// v-y). Returns an empty vector if the splicing stalls.
// A ToR-only fabric: n ToRs (tor0..), host_ports hosts on each (host0.. in ToR order), and the
// given ToR-to-ToR wiring. Jellyfish and Xpander differ only in how they draw the wiring.
topology build_tor_fabric(unsigned n, const std::vector<std::pair<unsigned, unsigned>>& edges, unsigned host_ports,
                          uint64_t host_rate_bps, uint64_t uplink_rate_bps, uint64_t delay_ps);

std::vector<std::pair<unsigned, unsigned>> jellyfish_edges(unsigned n, unsigned r, uint64_t seed);

// Throws std::invalid_argument naming the field at fault (tors, fabric_ports) when no connected
// r-regular simple graph on N switches exists (N*r odd, r >= N, r < 2 with N > 2).
topology build_jellyfish(const jellyfish_spec& s);

}  // namespace netasic
