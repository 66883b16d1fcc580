#include "common/stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace netasic {

size_t percentile_index(size_t n, double p) {
  // The rank in integers, with p taken to a millionth of a percent: in floating point,
  // 99.9 / 100 x 1000 is a hair above 999, and the ceiling would pick rank 1000.
  if (!(p >= 0 && p <= 100)) throw std::invalid_argument("percentile: p must be in 0..100 %");
  const uint64_t p_millionths = uint64_t(std::llround(p * 1e6));
  const uint64_t scale = 100'000'000;   // 100 % in millionths
  const size_t rank = size_t((p_millionths * uint64_t(n) + scale - 1) / scale);
  return std::min(rank == 0 ? 0 : rank - 1, n - 1);
}

double percentile(const std::vector<double>& sorted, double p) {
  return sorted.empty() ? 0 : sorted[percentile_index(sorted.size(), p)];
}

double percentile_unsorted(std::vector<double>& values, double p) {
  if (values.empty()) return 0;
  const auto it = values.begin() + long(percentile_index(values.size(), p));
  std::nth_element(values.begin(), it, values.end());
  return *it;
}

const std::vector<uint64_t>& slowdown_bin_edges() {
  static const std::vector<uint64_t> edges = {0, 3'000, 12'000, 48'000, 192'000, 768'000, 3'000'000,
                                              slowdown_bin::no_upper_bound};
  return edges;
}

std::vector<slowdown_bin> slowdown_by_size(const std::vector<sized_slowdown>& flows) {
  const std::vector<uint64_t>& edges = slowdown_bin_edges();
  std::vector<slowdown_bin> bins;
  for (size_t b = 0; b + 1 < edges.size(); ++b) {
    std::vector<double> sizes, slowdowns;
    for (const sized_slowdown& f : flows)
      if (f.size_bytes >= edges[b] && f.size_bytes < edges[b + 1]) {
        sizes.push_back(double(f.size_bytes));
        slowdowns.push_back(f.slowdown);
      }
    if (slowdowns.empty()) continue;
    std::sort(sizes.begin(), sizes.end());
    std::sort(slowdowns.begin(), slowdowns.end());
    slowdown_bin bin;
    bin.min_bytes = edges[b];
    bin.max_bytes = edges[b + 1];
    bin.flows = slowdowns.size();
    bin.median_bytes = percentile(sizes, 50);
    bin.p50 = percentile(slowdowns, 50);
    bin.p95 = percentile(slowdowns, 95);
    bin.p99 = percentile(slowdowns, 99);
    bins.push_back(bin);
  }
  return bins;
}

}  // namespace netasic
