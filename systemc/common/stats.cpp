#include "common/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
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

namespace {

// Continued fraction of the regularized incomplete beta function (modified Lentz's method,
// Numerical Recipes 3rd ed. section 6.4); converges fast for x < (a + 1) / (a + b + 2).
double beta_fraction(double a, double b, double x) {
  const double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  d = 1 / (std::fabs(d) < tiny ? tiny : d);
  double h = d;
  for (int m = 1; m <= 1000; ++m) {
    for (int half = 0; half < 2; ++half) {
      const double num = half == 0 ? m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
                                   : -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
      d = 1 + num * d;
      d = 1 / (std::fabs(d) < tiny ? tiny : d);
      c = 1 + num / c;
      if (std::fabs(c) < tiny) c = tiny;
      h *= d * c;
      if (half == 1 && std::fabs(d * c - 1) < 1e-15) return h;
    }
  }
  return h;
}

// I_x(a, b), the regularized incomplete beta function.
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

// P(T <= t) for Student's t with df degrees of freedom.
double student_t_cdf(double t, double df) {
  const double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
  return t >= 0 ? 1 - tail : tail;
}

}  // namespace

double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("student_t_quantile: p must be in (0, 1)");
  if (!(df > 0)) throw std::invalid_argument("student_t_quantile: df must be above 0");
  if (p < 0.5) return -student_t_quantile(1 - p, df);
  // Bracket, then bisect the monotone CDF: 200 halvings reach the resolution of a double.
  double lo = 0, hi = 1;
  while (student_t_cdf(hi, df) < p) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (student_t_cdf(mid, df) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

sample_spread spread_of(const std::vector<double>& values, double confidence) {
  if (values.empty()) throw std::invalid_argument("spread_of: no values");
  if (!(confidence > 0 && confidence < 1)) throw std::invalid_argument("spread_of: confidence must be in (0, 1)");
  sample_spread s;
  s.n = values.size();
  s.confidence = confidence;
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / double(s.n);
  if (s.n < 2) {
    s.half_width = std::numeric_limits<double>::quiet_NaN();
    return s;
  }
  double ss = 0;
  for (double v : values) ss += (v - s.mean) * (v - s.mean);
  s.sd = std::sqrt(ss / double(s.n - 1));
  s.half_width = student_t_quantile((1 + confidence) / 2, double(s.n - 1)) * s.sd / std::sqrt(double(s.n));
  return s;
}

}  // namespace netasic
