// CSV writers for a run: flows.csv (one row per flow) and probes.csv (one column per probe).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "output/run_data.h"

namespace netasic {

// "leaf0.port3.qdepth_bytes": device, name and unit joined; the probes.csv column name.
std::string probe_column_name(const probe_series& s);

// Quotes a field (RFC 4180) only when it holds a comma, quote or line break.
std::string csv_escape(const std::string& field);

// Throws std::invalid_argument when a series has a sample count other than t_s.size(), or
// when the sample times decrease: every writer relies on both.
void validate_probe_set(const probe_set& probes);

// flows.csv: id,src,dst,size_bytes,start_us,fct_us,ideal_fct_us,slowdown,retransmitted_packets,
// path_changes,out_of_order_packets,max_reorder_packets,path,path_bytes. Times in microseconds
// with 6 decimals (exact to the picosecond); a flow that did not complete has empty fct_us and
// slowdown cells. Throws std::runtime_error if the file cannot be written.
void write_flows_csv(const std::string& path, const std::vector<flow_record>& flows);

// flows.csv's path_bytes cell: "PATH:BYTES" per path, joined by ';' (payload bytes).
std::string path_bytes_field(const std::vector<std::pair<std::string, uint64_t>>& paths);

// probes.csv, wide: time_us, then one integer column per series in probe_set order.
void write_probes_csv(const std::string& path, const probe_set& probes);

// links.csv: from,to,rate_gbps,bytes,utilization (one row per switch port with a link).
void write_links_csv(const std::string& path, const std::vector<link_record>& links);

}  // namespace netasic
