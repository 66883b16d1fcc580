// The switch's keys: its pipeline (switch.*), its stage budget (switch.stage.*), the traffic
// manager with ECN and PFC (tm.*, ecn.*, pfc.*) and the mirror session (mirror.*).
#pragma once
#include "common/params.h"
#include "sizing/resources.h"
#include "switch/switch.h"
#include "topology/topology.h"

namespace netasic {

void declare_switch_keys(param_registry& r);

// Pipeline, traffic manager, ECN and PFC; checked against the topology's port counts.
void read_switch(const config& c, const topology& t, switch_config& sw);
// The mirror session; after read_switch (a lossless priority must not carry copies).
void read_mirror(const config& c, const topology& t, switch_config& sw);
// The buffer must hold a data frame, and the PFC headroom must leave a shared pool.
struct fabric_config;
void check_switch_buffer(const config& c, const fabric_config& fc);

// The budget `netasic resources` places each switch's program in: the target (switch.target)
// with the switch.stage.* keys that are not 0 in its place. Throws config_error.
stage_budget make_stage_budget(const config& c);

}  // namespace netasic
