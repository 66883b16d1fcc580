// Flow-size CDFs: parsing and its errors, the exact mean, and the sampler against both.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "common/params.h"
#include "workload/cdf.h"

using netasic::config_error;
using netasic::flow_size_cdf;

namespace {

// Moments of the piecewise-linear distribution, written out here independently of cdf.cpp:
// point mass p0 at the first size, then uniform on [a, b] with mass dp for each segment.
struct moments {
  double mean, var;
};
moments exact_moments(const flow_size_cdf& c) {
  const auto& pts = c.points();
  double m1 = pts[0].percent / 100 * pts[0].size_bytes;
  double m2 = pts[0].percent / 100 * pts[0].size_bytes * pts[0].size_bytes;
  for (size_t i = 1; i < pts.size(); ++i) {
    const double dp = (pts[i].percent - pts[i - 1].percent) / 100;
    const double a = pts[i - 1].size_bytes, b = pts[i].size_bytes;
    m1 += dp * (a + b) / 2;
    m2 += dp * (a * a + a * b + b * b) / 3;
  }
  return {m1, m2 - m1 * m1};
}

// The CDF at size x (continuous part by interpolation), also written out independently.
double cdf_at(const flow_size_cdf& c, double x) {
  const auto& pts = c.points();
  if (x < pts.front().size_bytes) return 0;
  double p = pts.front().percent;
  for (size_t i = 1; i < pts.size(); ++i) {
    const double a = pts[i - 1].size_bytes, b = pts[i].size_bytes;
    if (x >= b) { p = pts[i].percent; continue; }
    if (x > a) p = pts[i - 1].percent + (x - a) / (b - a) * (pts[i].percent - pts[i - 1].percent);
    break;
  }
  return p / 100;
}

std::string parse_error(const std::string& text) {
  try {
    flow_size_cdf::parse(text, "t.cdf");
  } catch (const config_error& e) {
    return e.what();
  }
  return "(no error)";
}

const std::vector<std::string> kBuiltins = {"datamining", "enterprise", "fb_hadoop", "websearch"};

}  // namespace

TEST(Cdf, MeanOfTinyCdfByHand) {
  // Uniform on [100,200] with mass 1/2 and on [200,1000] with mass 1/2: 0.5*150 + 0.5*600.
  const auto c = flow_size_cdf::parse("100 0\n200 50\n1000 100\n", "tiny");
  EXPECT_DOUBLE_EQ(c.mean_bytes(), 375.0);
  EXPECT_DOUBLE_EQ(c.min_bytes(), 100);
  EXPECT_DOUBLE_EQ(c.max_bytes(), 1000);
  ASSERT_EQ(c.points().size(), 3u);
  // First percent above 0 is a point mass: 20% exactly 100 B, 80% uniform on [100,300].
  const auto atom = flow_size_cdf::parse("100 20\n300 100\n", "atom");
  EXPECT_DOUBLE_EQ(atom.mean_bytes(), 0.2 * 100 + 0.8 * 200);
  // A repeated size is a point mass inside the CDF: 50% at 10, 50% at 30 -> mean 20.
  const auto steps = flow_size_cdf::parse("10 0\n10 50\n30 50\n30 100\n", "steps");
  EXPECT_DOUBLE_EQ(steps.mean_bytes(), 20.0);
}

TEST(Cdf, InverseInterpolatesLinearly) {
  const auto c = flow_size_cdf::parse("100 0\n200 50\n1000 100\n", "tiny");
  EXPECT_DOUBLE_EQ(c.size_at_percent(0), 100);
  EXPECT_DOUBLE_EQ(c.size_at_percent(25), 150);
  EXPECT_DOUBLE_EQ(c.size_at_percent(50), 200);
  EXPECT_DOUBLE_EQ(c.size_at_percent(75), 600);
  const auto atom = flow_size_cdf::parse("100 20\n300 100\n", "atom");
  EXPECT_DOUBLE_EQ(atom.size_at_percent(5), 100);
  EXPECT_DOUBLE_EQ(atom.size_at_percent(60), 200);
}

TEST(Cdf, ParsesCommentsBlankLinesAndCrlf) {
  const auto c = flow_size_cdf::parse("# header\n\n  0 0   # start\r\n1e3 100\r\n# end\n", "c");
  ASSERT_EQ(c.points().size(), 2u);
  EXPECT_DOUBLE_EQ(c.points()[1].size_bytes, 1000);
  EXPECT_DOUBLE_EQ(c.mean_bytes(), 500);
}

TEST(Cdf, ParseErrorsNameSourceAndLine) {
  EXPECT_EQ(parse_error("# c\n0 0\nabc 50\n10 100\n"), "t.cdf:3: size 'abc' is not a number");
  EXPECT_EQ(parse_error("0 0\n10 5x\n"), "t.cdf:2: cumulative percent '5x' is not a number");
  EXPECT_EQ(parse_error("0 0\n10\n"), "t.cdf:2: expected 'SIZE_BYTES CUMULATIVE_PERCENT', got '10'");
  EXPECT_EQ(parse_error("0 0\n10 20 30\n"),
            "t.cdf:2: expected 'SIZE_BYTES CUMULATIVE_PERCENT', got '10 20 30'");
  EXPECT_EQ(parse_error("0 0\n100 50\n\n50 100\n"),
            "t.cdf:4: size 50 is smaller than the previous point's 100 (sizes must not decrease)");
  EXPECT_EQ(parse_error("0 0\n100 50\n200 40\n300 100\n"),
            "t.cdf:3: cumulative percent 40 is smaller than the previous point's 50 "
            "(percents must not decrease)");
  EXPECT_EQ(parse_error("0 0\n100 101\n"), "t.cdf:2: cumulative percent 101 is outside 0..100");
  EXPECT_EQ(parse_error("0 -1\n100 100\n"), "t.cdf:1: cumulative percent -1 is outside 0..100");
  EXPECT_EQ(parse_error("-5 0\n100 100\n"), "t.cdf:1: size -5 is negative");
  EXPECT_EQ(parse_error("0 0\n100 50\n200 99.5\n# trailing\n"),
            "t.cdf:3: the last point's cumulative percent is 99.5, it must be 100");
  EXPECT_EQ(parse_error("# only\n100 100\n"), "t.cdf:2: a CDF needs at least 2 points, found 1");
  EXPECT_EQ(parse_error("# a\n# b\n"), "t.cdf:2: a CDF needs at least 2 points, found 0");
  EXPECT_EQ(parse_error("0 0\n0 100\n"), "t.cdf:2: the largest size is 0: every flow would be empty");
  EXPECT_EQ(parse_error("0 0\ninf 100\n"), "t.cdf:2: size 'inf' is not a number");
}

TEST(Cdf, BuiltinsAreTheFourWorkloadsWithTheirExactMeans) {
  std::vector<std::string> names;
  for (const auto& [name, text] : netasic::builtin_cdfs()) names.push_back(name);
  EXPECT_EQ(names, kBuiltins);
  // Means worked out from the data files separately (exact rational arithmetic).
  EXPECT_NEAR(flow_size_cdf::load("websearch").mean_bytes(), 1711250.0, 1e-6);
  EXPECT_NEAR(flow_size_cdf::load("fb_hadoop").mean_bytes(), 120420.75, 1e-6);
  EXPECT_NEAR(flow_size_cdf::load("datamining").mean_bytes(), 12658198.6, 1e-5);
  EXPECT_NEAR(flow_size_cdf::load("enterprise").mean_bytes(), 157357.422924, 1e-5);
  EXPECT_DOUBLE_EQ(flow_size_cdf::load("websearch").max_bytes(), 30e6);
  EXPECT_EQ(flow_size_cdf::load("enterprise").points().size(), 136u);
}

TEST(Cdf, LoadUnknownNameListsBuiltins) {
  try {
    flow_size_cdf::load("no_such_workload");
    FAIL() << "expected config_error";
  } catch (const config_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'no_such_workload'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("datamining, enterprise, fb_hadoop, websearch"), std::string::npos) << msg;
  }
}

TEST(Cdf, LoadReadsAFileAndReportsItsPath) {
  const std::string path = testing::TempDir() + "netasic_test_cdf.cdf";
  {
    std::ofstream f(path);
    f << "# test\n10 0\n30 100\n";
  }
  EXPECT_DOUBLE_EQ(flow_size_cdf::load(path).mean_bytes(), 20);
  {
    std::ofstream f(path);
    f << "10 0\n30 90\n";
  }
  try {
    flow_size_cdf::load(path);
    FAIL() << "expected config_error";
  } catch (const config_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ":2: ", 0), 0u) << e.what();
  }
  std::remove(path.c_str());
}

// Sample mean of n draws has standard error sd/sqrt(n). The tolerance is 5 standard errors
// (a correct sampler exceeds it with probability ~6e-7 under the normal approximation) plus
// 1 byte for the rounding to whole bytes. Relative tolerances at n = 1e6: websearch 1.2%,
// fb_hadoop 2.8%, datamining 3.4%, enterprise 11.7% (its top 1e-6 reaches 1.77 GB).
TEST(Cdf, SampleMeanMatchesExactMeanForEveryBuiltin) {
  constexpr int n = 1'000'000;
  for (const auto& name : kBuiltins) {
    const auto c = flow_size_cdf::load(name);
    const moments m = exact_moments(c);
    EXPECT_NEAR(m.mean, c.mean_bytes(), 1e-9 * m.mean) << name;
    netasic::rng r(42);
    double sum = 0;
    const uint64_t lo = std::max<uint64_t>(1, uint64_t(std::llround(c.min_bytes())));
    const uint64_t hi = uint64_t(std::llround(c.max_bytes()));
    for (int i = 0; i < n; ++i) {
      const uint64_t s = c.sample(r);
      ASSERT_GE(s, lo) << name;
      ASSERT_LE(s, hi) << name;
      sum += double(s);
    }
    const double tol = 5 * std::sqrt(m.var / n) + 1;
    EXPECT_NEAR(sum / n, c.mean_bytes(), tol) << name << ": tolerance " << tol / c.mean_bytes() * 100 << "%";
  }
}

// The body of the distribution, which the mean hardly sees: for every point, the share of
// samples at or below its size matches the CDF there (evaluated at size + 0.5 because samples
// are rounded to whole bytes), within 5 binomial standard errors.
TEST(Cdf, SampleQuantilesMatchEveryPointOfEveryBuiltin) {
  constexpr int n = 1'000'000;
  for (const auto& name : kBuiltins) {
    const auto c = flow_size_cdf::load(name);
    netasic::rng r(7);
    std::vector<uint64_t> samples(n);
    for (auto& s : samples) s = c.sample(r);
    std::sort(samples.begin(), samples.end());
    for (const auto& p : c.points()) {
      const double x = std::floor(p.size_bytes);
      if (x < 1) continue;   // the 1-byte floor moves mass there
      const double expected = cdf_at(c, x + 0.5);
      const double got =
          double(std::upper_bound(samples.begin(), samples.end(), uint64_t(x)) - samples.begin()) / n;
      const double tol = 5 * std::sqrt(std::max(expected * (1 - expected), 1e-6) / n);
      EXPECT_NEAR(got, expected, tol) << name << " at " << x << " bytes";
    }
  }
}

TEST(Cdf, SameSeedSameSamples) {
  const auto c = flow_size_cdf::load("websearch");
  netasic::rng a(5), b(5), d(6);
  bool differs = false;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t x = c.sample(a);
    EXPECT_EQ(x, c.sample(b));
    differs |= x != c.sample(d);
  }
  EXPECT_TRUE(differs);
}
