// The topology keys (topology.*): the builder, its shape, link rates and delays, failed and
// degraded links.
#pragma once
#include "common/params.h"
#include "switch/switch.h"
#include "topology/topology.h"

namespace netasic {

void declare_topology_keys(param_registry& r);

topology read_topology(const config& c);

// topology.routing: the route set the controller installs, and the route table's ingress
// classes it needs (route_table.h).
void read_routing(const config& c, const topology& t, switch_config& sw);

}  // namespace netasic
