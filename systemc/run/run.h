// One scenario run: resolve the configuration, build the fabric, simulate, collect results.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/params.h"
#include "output/run_data.h"

namespace netasic {

struct run_result {
  nlohmann::json summary;
  std::vector<flow_record> flows;
  probe_set probes;
  std::vector<link_record> links;   // every switch port's link, one direction
  bool accounting_ok = false;
};

enum class progress_mode { none, terminal, lines };

// Elaborates and simulates in this process (the SystemC kernel runs once per process).
// Throws config_error for a configuration that cannot be built, before simulating anything.
run_result run_scenario(const config& cfg, progress_mode progress);

// Writes summary.json, flows.csv, links.csv, probes.csv, config.toml, report.html (and waves.vcd plus
// waves.gtkw when `vcd`) into `dir`.
void write_run_outputs(const std::string& dir, const config& cfg, const run_result& r, bool vcd);

// `netasic resources`: each switch's program placed in the stage budget, per stage and per
// device; `fits` says whether every device fits. Throws config_error like run_scenario.
std::string resources_report(const config& cfg, bool& fits);

// Nearest-rank percentile of sorted values (p in 0..100); 0 for an empty vector.
double percentile_sorted(const std::vector<double>& v, double p);

}  // namespace netasic
