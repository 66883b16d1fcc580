// Flow-size distributions given as an empirical CDF (workloads/*.cdf) and sampled by inverse
// transform with linear interpolation between the points, the convention of the simulators the
// published CDF files come from.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/rng.h"

namespace netasic {

// The CDFs compiled into the binary: name (file name without .cdf) -> file text. Defined in a
// file CMake generates from workloads/*.cdf, so the binary runs from any directory.
const std::map<std::string, std::string>& builtin_cdfs();

struct cdf_point {
  double size_bytes;   // >= 0
  double percent;      // cumulative, 0..100
};

class flow_size_cdf {
 public:
  // Text format: '#' starts a comment, blank lines are skipped, every other line is
  // "SIZE_BYTES CUMULATIVE_PERCENT". Sizes and percents never decrease, percents are within
  // 0..100, the last one is 100, at least 2 points, the largest size is > 0.
  // A first percent above 0 is a point mass: that share of flows has exactly the first size.
  // Throws config_error "SOURCE:LINE: ..." on the first violation.
  static flow_size_cdf parse(const std::string& text, const std::string& source_name);
  // A builtin name (see builtin_cdfs()), otherwise a path to a file in the format above.
  // Throws config_error naming the builtins when it is neither.
  // A builtin by name, else a file; a relative file path is read against `base_dir` ("" = the
  // current directory).
  static flow_size_cdf load(const std::string& name_or_path, const std::string& base_dir = "");

  // Inverse transform of one uniform draw, rounded to whole bytes, at least 1 byte.
  uint64_t sample(rng& r) const;
  // Size at a cumulative percent (0 <= pct < 100), interpolated, not rounded: the inverse CDF
  // that sample() evaluates.
  double size_at_percent(double pct) const;

  // Exact mean of the piecewise-linear distribution (point mass at the first point, uniform
  // between consecutive points). sample() differs from it only by its rounding to whole bytes
  // and its 1-byte floor, both well under a byte on average for the builtin CDFs.
  double mean_bytes() const { return mean_; }
  const std::vector<cdf_point>& points() const { return points_; }
  double min_bytes() const { return points_.front().size_bytes; }
  double max_bytes() const { return points_.back().size_bytes; }
  const std::string& source() const { return source_; }

 private:
  flow_size_cdf() = default;
  std::vector<cdf_point> points_;
  double mean_ = 0;
  std::string source_;
};

}  // namespace netasic
