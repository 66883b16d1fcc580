#include "workload/cdf.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/file_io.h"
#include "common/params.h"

namespace netasic {

namespace {

// Locale-independent and strict: the whole token must be a finite number.
bool parse_number(const std::string& token, double& out) {
  const char* first = token.data();
  const char* last = first + token.size();
  const auto res = std::from_chars(first, last, out);
  return res.ec == std::errc() && res.ptr == last && std::isfinite(out);
}

std::string format_number(double v) {
  std::ostringstream os;
  os.precision(12);
  os << v;
  return os.str();
}

[[noreturn]] void fail(const std::string& source, size_t line, const std::string& what) {
  throw config_error(source + ":" + std::to_string(line) + ": " + what);
}

}  // namespace

flow_size_cdf flow_size_cdf::parse(const std::string& text, const std::string& source_name) {
  flow_size_cdf cdf;
  cdf.source_ = source_name;
  std::istringstream in(text);
  std::string raw;
  size_t line_no = 0, last_point_line = 0;
  while (std::getline(in, raw)) {
    ++line_no;
    const std::string line = raw.substr(0, raw.find('#'));
    std::istringstream fields(line);
    std::vector<std::string> tokens;
    for (std::string t; fields >> t;) tokens.push_back(t);
    if (tokens.empty()) continue;
    if (tokens.size() != 2)
      fail(source_name, line_no, "expected 'SIZE_BYTES CUMULATIVE_PERCENT', got '" + line + "'");
    cdf_point p{};
    if (!parse_number(tokens[0], p.size_bytes))
      fail(source_name, line_no, "size '" + tokens[0] + "' is not a number");
    if (!parse_number(tokens[1], p.percent))
      fail(source_name, line_no, "cumulative percent '" + tokens[1] + "' is not a number");
    if (p.size_bytes < 0) fail(source_name, line_no, "size " + tokens[0] + " is negative");
    if (p.percent < 0 || p.percent > 100)
      fail(source_name, line_no, "cumulative percent " + tokens[1] + " is outside 0..100");
    if (!cdf.points_.empty()) {
      const cdf_point& prev = cdf.points_.back();
      if (p.size_bytes < prev.size_bytes)
        fail(source_name, line_no,
             "size " + tokens[0] + " is smaller than the previous point's " + format_number(prev.size_bytes) +
                 " (sizes must not decrease)");
      if (p.percent < prev.percent)
        fail(source_name, line_no,
             "cumulative percent " + tokens[1] + " is smaller than the previous point's " +
                 format_number(prev.percent) + " (percents must not decrease)");
    }
    cdf.points_.push_back(p);
    last_point_line = line_no;
  }
  const size_t report_line = last_point_line ? last_point_line : std::max<size_t>(line_no, 1);
  if (cdf.points_.size() < 2)
    fail(source_name, report_line,
         "a CDF needs at least 2 points, found " + std::to_string(cdf.points_.size()));
  if (cdf.points_.back().percent != 100)
    fail(source_name, report_line,
         "the last point's cumulative percent is " + format_number(cdf.points_.back().percent) +
             ", it must be 100");
  if (cdf.points_.back().size_bytes <= 0)
    fail(source_name, report_line, "the largest size is 0: every flow would be empty");

  // Point mass at the first size, then uniform density on each segment.
  const auto& pts = cdf.points_;
  double mean = pts.front().size_bytes * pts.front().percent;
  for (size_t i = 1; i < pts.size(); ++i)
    mean += (pts[i].percent - pts[i - 1].percent) * 0.5 * (pts[i].size_bytes + pts[i - 1].size_bytes);
  cdf.mean_ = mean / 100.0;
  return cdf;
}

flow_size_cdf flow_size_cdf::load(const std::string& name_or_path, const std::string& base_dir) {
  const auto& builtins = builtin_cdfs();
  if (auto it = builtins.find(name_or_path); it != builtins.end())
    return parse(it->second, "workloads/" + name_or_path + ".cdf");
  const std::string path = base_dir.empty() || std::filesystem::path(name_or_path).is_absolute()
                               ? name_or_path : (std::filesystem::path(base_dir) / name_or_path).string();
  std::ifstream f;
  if (!open_input(f, path, std::ios::binary)) {
    std::string names;
    for (const auto& [name, text] : builtins) names += (names.empty() ? "" : ", ") + name;
    throw config_error("flow-size CDF '" + name_or_path + "' is neither a builtin CDF (" + names +
                       ") nor a readable file" + (path != name_or_path ? " (looked for " + path + ")" : ""));
  }
  std::ostringstream text;
  text << f.rdbuf();
  return parse(text.str(), path);
}

double flow_size_cdf::size_at_percent(double pct) const {
  // First point whose percent exceeds pct; below the first point's percent is its point mass.
  const auto it = std::upper_bound(points_.begin(), points_.end(), pct,
                                   [](double v, const cdf_point& p) { return v < p.percent; });
  if (it == points_.begin()) return points_.front().size_bytes;
  if (it == points_.end()) return points_.back().size_bytes;   // pct >= 100
  const cdf_point& hi = *it;
  const cdf_point& lo = *(it - 1);
  // hi.percent > pct >= lo.percent, so the division is safe.
  return lo.size_bytes + (pct - lo.percent) / (hi.percent - lo.percent) * (hi.size_bytes - lo.size_bytes);
}

uint64_t flow_size_cdf::sample(rng& r) const {
  const double bytes = size_at_percent(r.uniform() * 100.0);
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(bytes)));
}

}  // namespace netasic
