// `netasic resources`: the switch's program placed in the stage budget (switch/resources.h),
// as text, for every switch of a scenario's fabric.
#pragma once
#include <string>

#include "common/params.h"
#include "fabric/fabric.h"

namespace netasic {

// Switches grouped by port count (the program depends on it), each group's allocation per stage
// (format_allocation). The budget comes from the switch.stage.* keys of `cfg`, the program from
// `fc`. `fits` says whether every switch fits. run.h's resources_report builds `fc` first.
std::string resources_report(const config& cfg, const fabric_config& fc, bool& fits);

}  // namespace netasic
