// `netasic paths`: the path statistics of a scenario's topology (the Flattened Clos paper's
// Tables 1 and 2: paths per ToR pair, path length, shortest path, fewest paths of a pair) for
// its up-down paths and its shortest paths, and the static deadlock check of the routes the
// scenario installs (topology.routing): whether their link dependency graph has a cycle, and
// one cycle as a list of links when it does.
#pragma once
#include <string>

#include "common/params.h"

namespace netasic {

std::string paths_report(const config& cfg, bool& cbd_free);

}  // namespace netasic
