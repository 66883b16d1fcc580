// The topology keys (topology.*): the builder, its shape, link rates and delays, failed and
// degraded links.
#pragma once
#include "common/params.h"
#include "topology/topology.h"

namespace netasic {

void declare_topology_keys(param_registry& r);

topology read_topology(const config& c);

}  // namespace netasic
