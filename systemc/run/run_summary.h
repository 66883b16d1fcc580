// What a run collects once the kernel has stopped: the flow and link records, the clock layer's
// result, and summary.json, one function per section (docs/outputs.md lists every key).
#pragma once
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "clock/clock_network.h"
#include "common/params.h"
#include "fabric/fabric.h"
#include "output/run_data.h"

namespace netasic {

struct run_result;

// One record per flow, in flow order, and one per switch port's link (one direction).
std::vector<flow_record> flow_records(const fabric& fab);
std::vector<link_record> link_records(const fabric& fab, uint64_t sim_end_ps);

// Ends the clock layer at the current time and appends three series per device and algorithm
// to `probes`, in ns: epsilon rounded up (-1 = no bound); the offset from the device's root,
// truncated toward zero so a sample never shows a violation the model did not have; and the
// offset from ideal time. The result keeps everything but those series (held once, in `probes`).
clock_result clock_records(fabric& fab, probe_set& probes);

// summary.json of a finished run whose records `r` holds.
nlohmann::json run_summary(const config& cfg, const fabric& fab, const run_result& r, double wall_s,
                           uint64_t sim_end_ps);

// Warnings about a finished run on stderr: a Sundial run without a complete backup plan, a NIC
// flow scheduler that kept wires idle, lossless frames dropped for want of headroom.
void warn_about_run(const config& cfg, const fabric& fab, const run_result& r);

}  // namespace netasic
