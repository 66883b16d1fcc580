// The files of a run directory.
#pragma once
#include <string>

#include "common/params.h"
#include "run/run.h"

namespace netasic {

// Writes summary.json, flows.csv, links.csv, probes.csv, config.toml, report.html (and waves.vcd
// plus waves.gtkw when `vcd`) into `dir`, creating it. Throws std::runtime_error naming the file
// that could not be written.
void write_run_outputs(const std::string& dir, const config& cfg, const run_result& r, bool vcd);

}  // namespace netasic
