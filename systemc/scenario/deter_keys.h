// DETER's keys (deter.*): record and replay of the switch queues (docs/datasheets/deter.md).
#pragma once
#include "common/params.h"
#include "fabric/fabric.h"

namespace netasic {

void declare_deter_keys(param_registry& r);

// Reads deter.* into f.deter and, for a replay with the drop rule, the traffic manager's rule
// (margin: 5 full frames). After read_nic. A replay's record is loaded by the run
// (run/deter_run.h), which checks it against this configuration.
void read_deter(const config& c, fabric_config& f);

}  // namespace netasic
