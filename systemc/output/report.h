// report.html: one self-contained page per run (inline CSS and SVG, no script, no URL) with
// the summary table and the FCT and probe plots. The plots need gnuplot (see plot.h).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "output/run_data.h"

namespace netasic {

// Every scalar of a JSON document under its dotted path ("fct_slowdown.p99"); elements of an
// array of objects are "key.0.x", ...; an array of scalars stays one entry (an array value).
// Objects are walked in key order, so the result is stable.
std::vector<std::pair<std::string, nlohmann::json>> flatten_json(const nlohmann::json& doc);

// Unit of a summary value from its key's suffix, as stored (no scaling): "_s" -> "s",
// "_us" -> "us", "_bytes" -> "bytes", "_per_s" -> "1/s", "_gbps" -> "Gb/s", "_pct" -> "%",
// a slowdown -> "x ideal FCT", ... ; "" when the key names no unit.
std::string unit_of_key(const std::string& key);

// A summary value for people: "12.5 us", "1,500,000 bytes (1.5 MB)", "3.2 M/s", "1.42x".
std::string format_value(const std::string& key, const nlohmann::json& value);

std::string html_escape(const std::string& s);

// Percentile (p in [0, 1]) of sorted values, interpolating linearly between closest ranks.
double percentile(const std::vector<double>& sorted, double p);

// Completed flows binned by size with about the same number of flows per bin (flows of one
// size never straddle two bins; one bin per size when there are at most max_bins sizes).
struct size_bin {
  uint64_t min_bytes = 0, max_bytes = 0;
  double median_bytes = 0;
  size_t flows = 0;
  double p50 = 0, p95 = 0, p99 = 0;   // FCT slowdown
};
std::vector<size_bin> slowdown_by_size(const std::vector<flow_record>& flows, size_t max_bins = 10);

// The scenario name from summary "scenario" (a string, or an object with "name") or "name".
std::string scenario_name(const nlohmann::json& summary);

// The page, and writing it to a file (std::runtime_error on I/O errors or without gnuplot).
std::string report_html(const nlohmann::json& summary, const std::vector<flow_record>& flows,
                        const probe_set& probes);
void write_report_html(const std::string& path, const nlohmann::json& summary,
                       const std::vector<flow_record>& flows, const probe_set& probes);

// Shared with the sweep page: the <head> with the page's CSS, up to and including <body>.
std::string html_page_head(const std::string& title);

}  // namespace netasic
