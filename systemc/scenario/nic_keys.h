// The NIC's keys (nic.*) and Flowcut's (flowcut.*), whose tables sit in the NICs or the switches.
#pragma once
#include "common/params.h"
#include "nic/host.h"
#include "switch/switch.h"

namespace netasic {

void declare_nic_keys(param_registry& r);

// After read_switch: a NIC answers PAUSEs as the switches do.
void read_nic(const config& c, const switch_config& sw, nic_config& nic);
// Flowcut in the NICs (nic_only) or in the switches; after read_lb and read_nic.
void read_flowcut(const config& c, switch_config& sw, nic_config& nic);

}  // namespace netasic
