#include "output/csv.h"

#include <ostream>
#include <stdexcept>

#include <fmt/format.h>

#include "common/file_io.h"

namespace netasic {

namespace {

// Microseconds with 6 decimals: one picosecond resolution, fixed notation for spreadsheets.
std::string us(double seconds) { return fmt::format("{:.6f}", seconds * 1e6); }

}  // namespace

std::string path_bytes_field(const std::vector<std::pair<std::string, uint64_t>>& paths) {
  std::string s;
  for (const auto& [path, bytes] : paths) {
    if (!s.empty()) s += ';';
    s += fmt::format("{}:{}", path, bytes);
  }
  return s;
}

std::string probe_column_name(const probe_series& s) {
  std::string n = s.device.empty() ? s.name : s.device + "." + s.name;
  if (!s.unit.empty()) n += "_" + s.unit;
  return n;
}

std::string csv_escape(const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string q = "\"";
  for (char c : field) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

void validate_probe_set(const probe_set& probes) {
  for (const auto& s : probes.series)
    if (s.samples.size() != probes.t_s.size())
      throw std::invalid_argument(fmt::format("probe {} has {} samples but there are {} sample times",
                                              probe_column_name(s), s.samples.size(), probes.t_s.size()));
  for (size_t i = 1; i < probes.t_s.size(); ++i)
    if (probes.t_s[i] < probes.t_s[i - 1])
      throw std::invalid_argument(fmt::format("probe sample times decrease at index {} ({} s after {} s)", i,
                                              probes.t_s[i], probes.t_s[i - 1]));
}

void write_flows_csv(const std::string& path, const std::vector<flow_record>& flows) {
  write_file(path, [&](std::ostream& out) {
    out << "id,src,dst,size_bytes,start_us,fct_us,ideal_fct_us,slowdown,retransmitted_packets,path_changes,"
           "out_of_order_packets,max_reorder_packets,path,path_bytes\n";
    fmt::memory_buffer line;
    for (const auto& f : flows) {
      line.clear();
      const bool done = f.fct_s >= 0;
      fmt::format_to(std::back_inserter(line), "{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", f.id, f.src, f.dst, f.size_bytes,
                     us(f.start_s), done ? us(f.fct_s) : "", us(f.ideal_fct_s),
                     done && f.ideal_fct_s > 0 ? fmt::format("{:.6f}", f.slowdown()) : "", f.retransmitted_packets,
                     f.path_changes, f.out_of_order_packets, f.max_reorder_packets, csv_escape(f.path),
                     csv_escape(path_bytes_field(f.path_bytes)));
      out.write(line.data(), static_cast<std::streamsize>(line.size()));
    }
  });
}

void write_probes_csv(const std::string& path, const probe_set& probes) {
  validate_probe_set(probes);
  write_file(path, [&](std::ostream& out) {
    out << "time_us";
    for (const auto& s : probes.series) out << ',' << csv_escape(probe_column_name(s));
    out << '\n';
    fmt::memory_buffer line;
    for (size_t i = 0; i < probes.t_s.size(); ++i) {
      line.clear();
      fmt::format_to(std::back_inserter(line), "{}", us(probes.t_s[i]));
      for (const auto& s : probes.series) fmt::format_to(std::back_inserter(line), ",{}", s.samples[i]);
      line.push_back('\n');
      out.write(line.data(), static_cast<std::streamsize>(line.size()));
    }
  });
}

void write_links_csv(const std::string& path, const std::vector<link_record>& links) {
  std::string text = "from,to,rate_gbps,bytes,utilization\n";
  for (const link_record& l : links)
    text += fmt::format("{},{},{:g},{},{:.6f}\n", l.from, l.to, double(l.rate_bps) / 1e9, l.bytes, l.utilization);
  write_file(path, text);
}

}  // namespace netasic
