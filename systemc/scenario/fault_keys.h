// Injected faults (faults.*): random drops on a link direction and destination black holes on a
// switch, the losses LossRadar locates and classifies (docs/datasheets/lossradar.md).
#pragma once
#include "common/params.h"
#include "fabric/fabric.h"

namespace netasic {

void declare_fault_keys(param_registry& r);

// Reads faults.* against f.topo into f.faults; a bad entry throws config_error naming the key.
void read_faults(const config& c, fabric_config& f);

}  // namespace netasic
