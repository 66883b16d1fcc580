// The clock layer's keys (clock.*): Sundial and its PTP+eps baselines (docs/datasheets/sundial.md).
#pragma once
#include "clock/clock_network.h"
#include "common/params.h"
#include "fabric/fabric.h"

namespace netasic {

void declare_clock_keys(param_registry& r);

// The clock layer's algorithms, parameters and faults, checked here so that a bad key stops the
// run before it simulates. False when clock.algorithm is off. After make_fabric_config: sync-
// messages go through the switches' pipelines at clock.priority (set in f).
bool make_clock_config(const config& c, fabric_config& f, clock_network_config& k);

}  // namespace netasic
