// The scenario reader: every key of netasic, declared once in the section file that applies it
// (topology, switch, lb, nic, cc, traffic, clock), and a resolved configuration turned into the
// typed configurations a run elaborates.
#pragma once
#include <string>
#include <vector>

#include "common/params.h"
#include "fabric/fabric.h"
#include "scenario/clock_keys.h"
#include "scenario/switch_keys.h"
#include "scenario/traffic_keys.h"

namespace netasic {

// Every key, in declaration order: `netasic params`, docs/config-reference.md, config.toml.
const param_registry& all_params();

// A scenario file with "key=value" overrides applied in order, or the defaults alone; errors as
// load_config.
config load_scenario(const std::string& path, const std::vector<std::string>& overrides);
config default_scenario();

// The fabric a run elaborates (topology, switches, NICs, the run's window and probes), checked
// so that a bad key throws config_error naming it before anything is simulated. Routes are left
// to the caller.
fabric_config make_fabric_config(const config& c);

}  // namespace netasic
