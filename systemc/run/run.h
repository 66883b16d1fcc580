// One scenario run: resolve the configuration, build the fabric, simulate, collect results.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "clock/clock_network.h"
#include "common/params.h"
#include "common/progress.h"
#include "common/wave_trace.h"
#include "output/report_telemetry.h"
#include "output/run_data.h"

namespace netasic {

struct run_result {
  nlohmann::json summary;           // summary.json (run_summary.h)
  std::vector<flow_record> flows;
  probe_set probes;
  std::vector<link_record> links;   // every switch port's link, one direction
  // With the clock layer: its result. Its per-sample series are in `probes` ("clock.ALG.*").
  std::optional<clock_result> clock;
  telemetry_result telemetry;       // FlowRadar's and LossRadar's figures for the report (neither on: empty)
  std::optional<wave_dump> waves;   // --vcd / --fst: the traced signals (fabric/wave_signals.h)
  std::vector<std::pair<std::string, std::string>> files;   // more files for the run directory (name, bytes): DETER's
  bool accounting_ok = false;
};

class fabric;

// What watches the wire during a run.
struct run_taps {
  std::string pcap_ports;   // --pcap (run/pcap_capture.h); empty: no capture
  std::string run_dir;      // the run directory the pcap files go into (its pcap/)
  // --vcd/--fst: trace the signals these comma-separated globs select (fabric/wave_signals.h);
  // empty: the first switch's. A pattern that selects nothing is a config_error before the run.
  bool waves = false;
  std::string wave_patterns;
  // Called once the fabric is built, before any capture attaches (tests: their own taps).
  std::function<void(fabric&)> on_built;
  // Called once every check has passed (the last ones on the fabric as built: its congestion
  // control, DETER's connections), before anything is captured or simulated: the command line
  // prepares the run directory there.
  std::function<void()> checks_passed;
};

// Elaborates and simulates in this process (the SystemC kernel runs once per process).
// Throws config_error for a configuration that cannot be built, before simulating anything.
run_result run_scenario(const config& cfg, progress_mode progress, const run_taps& taps = {});

}  // namespace netasic
