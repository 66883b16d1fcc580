// The names of the clock algorithms and fault kinds, and the fault grammar of clock.faults.
#pragma once
#include <string>

#include "clock/clock_config.h"

namespace netasic {

const char* clock_algorithm_name(clock_algorithm a);
// Throws config_error listing the names.
clock_algorithm parse_clock_algorithm(const std::string& name);

const char* clock_fault_kind_name(clock_fault::kind k);
// "KIND [TARGET] @ TIME_US": "link agg0-core0 @ 1000", "device agg3 @ 1500", "root @ 2000",
// "domain pod2 @ 2500", "broken_clock edge4 @ 3000". A link target is read by parse_link_name
// (topology/topology.h). Throws config_error naming the item.
clock_fault parse_clock_fault(const std::string& item);

}  // namespace netasic
