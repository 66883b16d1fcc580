// The traffic keys (traffic.*): the arrival pattern, flow sizes and listed flows.
#pragma once
#include <vector>

#include "common/params.h"
#include "fabric/fabric.h"
#include "workload/traffic.h"

namespace netasic {

void declare_traffic_keys(param_registry& r);

// The run's flows over f's topology and arrival window; a clock-only run (the list pattern with
// no flows, clock.algorithm on) has none.
std::vector<flow_spec> make_flows(const config& c, const fabric_config& f);

}  // namespace netasic
