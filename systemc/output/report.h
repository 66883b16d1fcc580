// report.html: one self-contained page per run (inline CSS and SVG, no script, no URL): the
// headline figures first, the FCT, clock and probe plots, then every summary value. The plots need gnuplot (see plot.h).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "clock/clock_network.h"
#include "output/report_telemetry.h"
#include "output/run_data.h"

namespace netasic {

std::string html_escape(const std::string& s);

// The scenario name from summary "scenario" (a string, or an object with "name") or "name".
std::string scenario_name(const nlohmann::json& summary);

// The page, and writing it to a file (std::runtime_error on I/O errors or without gnuplot).
// It opens with "At a glance" (FCT slowdown by size, drops by reason, PFC pause time, peak
// queue, table occupancy against capacity, resources when the summary has them), then a
// section per block (flows, clock, telemetry, probes), and ends with every value of `summary`,
// grouped by its top-level key in collapsed <details>. The plots' figures come from the typed results:
// the flows, the probes, the clock layer's result (null without the clock layer) and
// FlowRadar's and LossRadar's (null, or neither on: no telemetry section).
std::string report_html(const nlohmann::json& summary, const std::vector<flow_record>& flows,
                        const probe_set& probes, const clock_result* clock = nullptr,
                        const telemetry_result* telemetry = nullptr);
void write_report_html(const std::string& path, const nlohmann::json& summary, const std::vector<flow_record>& flows,
                       const probe_set& probes, const clock_result* clock = nullptr,
                       const telemetry_result* telemetry = nullptr);

// Shared with the sweep page: the <head> with the page's CSS, up to and including <body>.
std::string html_page_head(const std::string& title);

}  // namespace netasic
