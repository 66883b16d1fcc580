// The failure domains of a topology's devices, as Sundial's controller plans around them
// (§3.4.2.1 Centralized controller, the disjoint-failure-domain property).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "topology/topology.h"

namespace netasic {

// The failure domain of every node and the domains' names: a fat-tree pod ("podN": its edge and
// aggregation switches and their hosts), a leaf-spine rack ("rackN": a leaf and its hosts),
// and each top-tier switch alone (named after it).
struct clock_domains {
  std::vector<uint32_t> of_node;
  std::vector<std::string> names;
};
clock_domains make_clock_domains(const topology& topo);

}  // namespace netasic
