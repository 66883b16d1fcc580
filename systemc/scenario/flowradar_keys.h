// FlowRadar's keys (telemetry.flowradar*): the encoded flowset in every switch
// (docs/datasheets/flowradar.md).
#pragma once
#include "common/params.h"
#include "fabric/fabric.h"

namespace netasic {

void declare_flowradar_keys(param_registry& r);

// Reads telemetry.flowradar* into f.sw.flowradar; checks what the keys alone decide (cells and
// filter bits per hash, an epoch long enough to export one bank on the CPU port). Widths against
// the flows and packets are checked by the run (run/flowradar_collector.h), which knows them.
void read_flowradar(const config& c, fabric_config& f);

}  // namespace netasic
