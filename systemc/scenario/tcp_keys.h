// The transport of every host (nic.transport) and the TCP host's keys (tcp.*).
#pragma once
#include "common/params.h"
#include "nic/host.h"
#include "switch/switch.h"

namespace netasic {

void declare_tcp_keys(param_registry& r);

// Into nic.transport and nic.tcp; after read_nic and read_flowcut (the RoCEv2-only settings a
// TCP host cannot honour are refused), before read_cc.
void read_tcp(const config& c, const switch_config& sw, nic_config& nic);

}  // namespace netasic
