// LossRadar's keys (telemetry.lossradar*): the meters' digests, batches and the loss analyzer's
// parameters (docs/datasheets/lossradar.md).
#pragma once
#include "common/params.h"
#include "fabric/fabric.h"

namespace netasic {

void declare_lossradar_keys(param_registry& r);

// Reads telemetry.lossradar* into f.lossradar; its keys are an error while it is off.
void read_lossradar(const config& c, fabric_config& f);

}  // namespace netasic
