// Congestion-control keys: cc.* for every QP, and each algorithm's own (hpcc.*, dcqcn.*,
// dctcp.*, timely.*), applied only when that algorithm runs.
#pragma once
#include "common/params.h"
#include "nic/host.h"
#include "switch/switch.h"

namespace netasic {

void declare_cc_keys(param_registry& r);

// Into nic.cc; after read_nic (the +win windows' floor is nic.mtu) and read_switch (an
// algorithm must get the signal it reacts to: INT for HPCC, ECN marks for DCQCN and DCTCP).
void read_cc(const config& c, const switch_config& sw, nic_config& nic);

}  // namespace netasic
