// Load balancing keys (lb.*): the mode, WCMP, LetFlow's flowlet table, CONGA and BalanceSketch.
#pragma once
#include "common/params.h"
#include "switch/switch.h"

namespace netasic {

void declare_lb_keys(param_registry& r);

// Into sw.lb; after read_switch (the flowlet table runs on the switch clock, and the sketch's
// next hops are bounded by the member table).
void read_lb(const config& c, switch_config& sw);

}  // namespace netasic
