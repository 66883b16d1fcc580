// `netasic resources`: the switch's program placed in the stage budget (switch/resources.h),
// as text, for every switch of a scenario's fabric.
#pragma once
#include <string>

#include "common/params.h"

namespace netasic {

// Switches grouped by port count (the program depends on it), each group's allocation per stage
// (format_allocation). The budget comes from the switch.stage.* keys of `cfg`, the program from
// the fabric the scenario builds. `fits` says whether every switch fits. Throws config_error like
// run_scenario.
std::string resources_report(const config& cfg, bool& fits);

}  // namespace netasic
