// One definition of each statistic a run reports, so that summary.json and report.html show the
// same figure for the same thing.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace netasic {

// Nearest-rank percentile of sorted values, p in 0..100: the value of rank ceil(p/100 x n)
// (1-based; rank 0 is the first value). 0 for no values. Always one of the values: a reported
// p99 is a flow or a sample that happened, not a point between two.
double percentile(const std::vector<double>& sorted, double p);
// The same percentile of values in any order, found by selection (it reorders them): for
// millions of samples, where sorting would cost more.
double percentile_unsorted(std::vector<double>& values, double p);
// 0-based index of that rank among n > 0 sorted values.
size_t percentile_index(size_t n, double p);

// A completed flow as the slowdown statistics see it.
struct sized_slowdown {
  uint64_t size_bytes = 0;   // payload bytes
  double slowdown = 0;       // FCT over the FCT of the same flow alone on an idle fabric
};

// FCT slowdown by flow size, in HPCC's style (its Fig. 9): short flows' tails are where
// congestion control shows. Fixed bins of payload bytes, [min_bytes, max_bytes), each 4x the one
// before: 0, 3 kB, 12 kB, 48 kB, 192 kB, 768 kB, 3 MB and up. Empty bins are left out.
struct slowdown_bin {
  static constexpr uint64_t no_upper_bound = UINT64_MAX;
  uint64_t min_bytes = 0, max_bytes = 0;   // max_bytes: no_upper_bound for the last bin
  size_t flows = 0;
  double median_bytes = 0;                 // percentile 50 of the flows' sizes (where a plot puts the bin)
  double p50 = 0, p95 = 0, p99 = 0;        // percentiles of the slowdown
};
const std::vector<uint64_t>& slowdown_bin_edges();   // min_bytes of each bin, then no_upper_bound
std::vector<slowdown_bin> slowdown_by_size(const std::vector<sized_slowdown>& flows);

// Quantile of Student's t distribution with `df` > 0 degrees of freedom: the t with
// P(T <= t) = p, 0 < p < 1. Computed by inverting the CDF (regularized incomplete beta function,
// continued fraction) to about 1e-12, so t(0.975, 4) = 2.776445... for any df, not a table.
double student_t_quantile(double p, double df);

// A metric over n repeated runs (seeds): mean, extremes, sample standard deviation (n - 1) and
// the two-sided Student t confidence interval of the mean, mean +- t((1 + c) / 2, n - 1) s / sqrt(n).
// With fewer than two values the interval is unknown: half_width is NaN.
struct sample_spread {
  size_t n = 0;
  double mean = 0, min = 0, max = 0, sd = 0;
  double confidence = 0;   // c, e.g. 0.95
  double half_width = 0;   // NaN when n < 2
  double ci_low() const { return mean - half_width; }
  double ci_high() const { return mean + half_width; }
  bool has_interval() const { return half_width == half_width; }
};
// Throws std::invalid_argument for no values or a confidence outside (0, 1).
sample_spread spread_of(const std::vector<double>& values, double confidence);

}  // namespace netasic
