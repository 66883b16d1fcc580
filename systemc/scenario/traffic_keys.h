// The traffic keys (traffic.*): the arrival pattern, flow sizes and listed flows.
#pragma once
#include <vector>

#include "common/params.h"
#include "fabric/fabric.h"
#include "workload/packet_trace.h"
#include "workload/traffic.h"

namespace netasic {

void declare_traffic_keys(param_registry& r);

// The run's flows over f's topology and arrival window; a clock-only run (the list pattern with
// no flows, clock.algorithm on) has none.
// (None when traffic.trace_mode = "packets".)
std::vector<flow_spec> make_flows(const config& c, const fabric_config& f);

// traffic.trace_mode = "packets": reads the trace into one packet_trace per source host, points
// f.replay at them (the NICs send them open-loop, as a DETER replay) and ends f's arrivals at the
// last frame. Refused (config_error naming the key) with a flow list, deter.mode, another pattern
// or traffic.flows. False, and nothing changed, in flows mode.
bool prepare_packet_trace(const config& c, fabric_config& f, std::vector<packet_trace>& traces);

}  // namespace netasic
