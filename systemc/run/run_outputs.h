// The files of a run directory.
#pragma once
#include <string>

#include "common/params.h"
#include "run/run.h"

namespace netasic {

// A run directory is complete or says it is not. Before a run simulates, prepare_run_dir empties
// `dir` of a previous run's files (keeping a sweep's log.txt) and leaves the marker file
// INCOMPLETE in it; write_run_outputs writes every file, summary.json last, and then removes the
// marker. A run stopped on the way leaves the marker and no summary.json. A folder that holds
// anything but a run's files is refused (config_error), so --out never empties a user's folder.
constexpr const char* incomplete_marker = "INCOMPLETE";
void prepare_run_dir(const std::string& dir);

// Writes summary.json, flows.csv, links.csv, probes.csv, config.toml, report.html (and, when the
// run was traced, waves.vcd, or waves.fst when `fst`, plus waves.gtkw) into `dir`, creating it.
// Throws std::runtime_error naming the file that could not be written.
void write_run_outputs(const std::string& dir, const config& cfg, const run_result& r, bool fst = false);

}  // namespace netasic
