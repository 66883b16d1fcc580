// HPCC's reciprocal table against exact arithmetic. Every n in [1, 2^22] is looked up for
// three epsilons and its stored value checked against 1/n in 128-bit integers (the bound must
// hold for every n, including the mantissa rounding); the kept keys are checked against the
// build rule itself; divide() is checked against x / n over 100k random operands; the entry
// count against the analytic expectation; storage, cycles and bad inputs directed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "blocks/reciprocal_table.h"

using namespace netasic;

namespace {
__extension__ typedef unsigned __int128 u128;

reciprocal_table_config with(double eps, unsigned input_bits = 22, unsigned mantissa_bits = 24) {
  reciprocal_table_config c;
  c.epsilon = eps;
  c.input_bits = input_bits;
  c.mantissa_bits = mantissa_bits;
  return c;
}

// |m * 2^-s - 1/n| / (1/n) = |m n - 2^s| / 2^s, exact before the conversion.
double rel_error(reciprocal_table::value v, uint64_t n) {
  const u128 p = u128(v.mantissa) * n, one = u128(1) << v.shift;
  return double(p > one ? p - one : one - p) * std::ldexp(1.0, -int(v.shift));
}

// Every n, one lookup each: the bound, the normalised mantissa, one value per range.
void check_every_n(const reciprocal_table& t) {
  const reciprocal_table_config& c = t.config();
  const uint64_t top = uint64_t(1) << c.input_bits;
  const std::vector<uint64_t>& keys = t.keys();
  double worst = 0;
  size_t k = 0;
  reciprocal_table::value range_value{0, 0};
  for (uint64_t n = 1; n <= top; ++n) {
    const reciprocal_table::value v = t.lookup(n);
    if (k < keys.size() && keys[k] == n) {
      range_value = v;
      ++k;
    } else if (v.mantissa != range_value.mantissa || v.shift != range_value.shift) {
      ADD_FAILURE() << "n = " << n << " does not read its range's value";
      return;
    }
    if (v.mantissa < (uint64_t(1) << (c.mantissa_bits - 1)) || v.mantissa >= (uint64_t(1) << c.mantissa_bits)) {
      ADD_FAILURE() << "mantissa of n = " << n << " not normalised: " << v.mantissa;
      return;
    }
    const double e = rel_error(v, n);
    if (e > c.epsilon) {
      ADD_FAILURE() << "n = " << n << ": relative error " << e << " > epsilon " << c.epsilon;
      return;
    }
    worst = std::max(worst, e);
  }
  EXPECT_EQ(k, keys.size());
  EXPECT_LE(worst, t.error_bound());
  EXPECT_LE(t.error_bound(), c.epsilon);
  EXPECT_DOUBLE_EQ(t.worst_relative_error(), worst);
}

// The kept keys are exactly the paper's rule: n_{k+1} = first n > n_k with n (1 - eps) >= n_k.
void check_build_rule(const reciprocal_table& t) {
  const double keep = 1.0 - t.config().epsilon;
  const std::vector<uint64_t>& keys = t.keys();
  ASSERT_FALSE(keys.empty());
  EXPECT_EQ(keys.front(), 1u);
  for (size_t k = 0; k + 1 < keys.size(); ++k) {
    ASSERT_GE(double(keys[k + 1]) * keep, double(keys[k])) << "k = " << k;
    if (keys[k + 1] - 1 > keys[k]) {
      ASSERT_LT(double(keys[k + 1] - 1) * keep, double(keys[k])) << "k = " << k;
    }
  }
  EXPECT_LE(keys.back(), uint64_t(1) << t.config().input_bits);
}
}  // namespace

TEST(ReciprocalTable, EveryNWithinEpsilon) {
  for (double eps : {1.0 / 64, 1.0 / 128, 1.0 / 512}) {
    SCOPED_TRACE(eps);
    const reciprocal_table t(with(eps));
    check_build_rule(t);
    check_every_n(t);
    // The midpoint value gives about eps/2, not eps: the rule alone is twice as safe.
    EXPECT_LT(t.worst_relative_error(), eps / 2 * 1.01);
  }
}

// lookup(n) reads the entry of the last key <= n, with the value the build rule gives that range
// (2 / (a + b), rounded to a normalised mantissa), found here by a plain search of keys(): every
// n up to 2^16, every key and its neighbours, and log-uniform n above. The tables include one
// with thousands of keys in each of the lookup's slices (epsilon 10^-4 over 32 bits) and ones
// with fewer keys than slices.
TEST(ReciprocalTable, LookupReadsTheEntryOfTheLastKeyAtOrBelowN) {
  for (const reciprocal_table_config& c : {with(1.0 / 128), with(1e-4, 32), with(1.0 / 16, 10, 8), with(0.49, 1, 8),
                                           with(0.3, 32, 8)}) {
    SCOPED_TRACE(std::to_string(c.epsilon) + " over " + std::to_string(c.input_bits) + " bits");
    const reciprocal_table t(c);
    const std::vector<uint64_t>& keys = t.keys();
    const uint64_t top = uint64_t(1) << c.input_bits;
    auto check = [&](uint64_t n) {
      const size_t k = size_t(std::upper_bound(keys.begin(), keys.end(), n) - keys.begin()) - 1;
      const uint64_t a = keys[k], b = k + 1 < keys.size() ? keys[k + 1] - 1 : top, d = a + b;
      const unsigned bits = 64 - unsigned(__builtin_clzll(d));
      unsigned s = c.mantissa_bits - 2 + bits;
      uint64_t m = uint64_t(((u128(1) << (s + 1)) + d / 2) / d);
      if (m == (uint64_t(1) << c.mantissa_bits)) { m >>= 1; --s; }
      const reciprocal_table::value v = t.lookup(n);
      ASSERT_EQ(v.mantissa, m) << "n = " << n << " (entry " << k << ")";
      ASSERT_EQ(v.shift, s) << "n = " << n << " (entry " << k << ")";
    };
    for (uint64_t n = 1; n <= std::min<uint64_t>(top, 1 << 16); ++n) ASSERT_NO_FATAL_FAILURE(check(n));
    for (const uint64_t key : keys) {
      for (const uint64_t n : {key - 1, key, key + 1}) {
        if (n >= 1 && n <= top) {
          ASSERT_NO_FATAL_FAILURE(check(n));
        }
      }
    }
    std::mt19937_64 g(7);
    for (int i = 0; i < 100000; ++i) {
      const unsigned e = unsigned(g() % (c.input_bits + 1));
      ASSERT_NO_FATAL_FAILURE(check(std::min(top, (uint64_t(1) << e) + (g() & ((uint64_t(1) << e) - 1)))));
    }
  }
}

TEST(ReciprocalTable, NarrowMantissaAndSmallInputs) {
  // A 12-bit mantissa makes the rounding visible; small input widths hit the last range's end.
  for (const reciprocal_table_config& c : {with(1.0 / 64, 22, 12), with(1.0 / 16, 10, 8), with(0.49, 1, 8),
                                           with(1.0 / 1024, 16, 16)}) {
    SCOPED_TRACE(c.epsilon);
    const reciprocal_table t(c);
    check_build_rule(t);
    check_every_n(t);
  }
}

TEST(ReciprocalTable, DivideMatchesExactWithinBound) {
  for (double eps : {1.0 / 128, 1.0 / 64}) {
    const reciprocal_table t(with(eps));
    const double worst = t.worst_relative_error();
    std::mt19937_64 g(42);
    std::uniform_int_distribution<uint64_t> xs(0, (uint64_t(1) << 40));
    std::uniform_real_distribution<double> log_n(0.0, 22.0);
    for (int i = 0; i < 100000; ++i) {
      const uint64_t x = i % 4 == 0 ? g() >> (g() % 64) : xs(g);   // some x past 2^40, up to 2^64 - 1
      // Log-uniform n so small n (every n kept) and large n (geometric keys) both get hit.
      uint64_t n = std::min<uint64_t>(uint64_t(std::exp2(log_n(g))), uint64_t(1) << 22);
      if (i % 97 == 0) n = uint64_t(1) << 22;
      if (i % 89 == 0) n = 1;
      const uint64_t q = t.divide(x, n);
      const long double exact = (long double)x / (long double)n;
      ASSERT_LE(std::fabs((long double)q - exact), exact * (long double)worst + 1.0L) << "x = " << x << " n = " << n;
    }
    EXPECT_EQ(t.divide(UINT64_MAX, 1), UINT64_MAX);   // n = 1 stores exactly 1
    EXPECT_EQ(t.divide(0, 12345), 0u);
  }
}

TEST(ReciprocalTable, EntryCountMatchesAnalysis) {
  const double n_max = std::ldexp(1.0, 22);
  for (double eps : {1.0 / 64, 1.0 / 128, 1.0 / 256, 1.0 / 512}) {
    SCOPED_TRACE(eps);
    const reciprocal_table t(with(eps));
    // Every n up to 1/eps is kept: n + 1 qualifies while (n + 1)(1 - eps) >= n, i.e. n <= 1/eps - 1.
    const uint64_t dense = uint64_t(std::llround(1.0 / eps));
    for (uint64_t i = 0; i < dense; ++i) ASSERT_EQ(t.keys()[i], i + 1);
    EXPECT_NE(t.keys()[dense], dense + 1);
    // Above that the keys are geometric: about ln(2^22 eps) / -ln(1 - eps) more. The ceiling in
    // n_{k+1} = ceil(n_k / (1 - eps)) makes the steps slightly longer, so the real count is
    // 3-5% under this; within 6%.
    const double simple = 1.0 / eps + std::log(n_max * eps) / -std::log(1.0 - eps);
    EXPECT_NEAR(double(t.entries()), simple, 0.06 * simple);
    EXPECT_LT(double(t.entries()), simple);
    // With the ceiling as +1/2 per step: dn/dk = c n + 1/2, c = eps / (1 - eps); within 1%.
    const double c = eps / (1.0 - eps);
    const double refined = 1.0 / eps + std::log((c * n_max + 0.5) / (c / eps + 0.5)) / c;
    EXPECT_NEAR(double(t.entries()), refined, 0.01 * refined);
  }
}

TEST(ReciprocalTable, StorageFigures) {
  // bytes = ceil(entries * (input_bits + 1 + mantissa_bits + shift_bits) / 8), shift_bits wide
  // enough for the largest shift stored.
  const double paper_bytes = 10'000;   // "about 10KB"
  double best_gap = 1e30, best_eps = 0;
  for (double eps : {1.0 / 64, 1.0 / 128, 1.0 / 256, 1.0 / 512}) {
    const reciprocal_table t(with(eps));
    unsigned max_shift = 0;
    for (uint64_t key : t.keys()) max_shift = std::max(max_shift, t.lookup(key).shift);
    unsigned shift_bits = 0;
    while ((1u << shift_bits) <= max_shift) ++shift_bits;
    EXPECT_EQ(t.shift_bits(), shift_bits);
    EXPECT_EQ(t.entry_bits(), 22u + 1 + 24 + shift_bits);
    EXPECT_EQ(t.bytes(), (t.entries() * t.entry_bits() + 7) / 8);
    const double gap = std::fabs(double(t.bytes()) - paper_bytes);
    if (gap < best_gap) { best_gap = gap; best_eps = eps; }
  }
  EXPECT_EQ(best_eps, 1.0 / 128);   // the default is the paper's size
}

TEST(ReciprocalTable, OutOfRangeThrows) {
  const reciprocal_table t;
  EXPECT_THROW(t.lookup(0), std::out_of_range);
  EXPECT_THROW(t.lookup((uint64_t(1) << 22) + 1), std::out_of_range);
  EXPECT_THROW(t.lookup(UINT64_MAX), std::out_of_range);
  EXPECT_THROW(t.divide(100, 0), std::out_of_range);
  EXPECT_NO_THROW(t.lookup(1));
  EXPECT_NO_THROW(t.lookup(uint64_t(1) << 22));
  // 32-bit inputs: the top of the range works, one past it throws.
  const reciprocal_table wide(with(1.0 / 128, 32, 24));
  EXPECT_NEAR(double(wide.divide(uint64_t(1) << 40, uint64_t(1) << 32)), 256.0, 256.0 / 128 + 1);
  EXPECT_THROW(wide.lookup((uint64_t(1) << 32) + 1), std::out_of_range);
  // accepts(n) names exactly the n that lookup takes.
  for (const uint64_t n : {uint64_t(0), uint64_t(1), uint64_t(2), uint64_t(1) << 22, (uint64_t(1) << 22) + 1, UINT64_MAX}) {
    bool threw = false;
    try {
      t.lookup(n);
    } catch (const std::out_of_range&) {
      threw = true;
    }
    EXPECT_EQ(t.accepts(n), !threw) << n;
  }
}

TEST(ReciprocalTable, BadConfigsThrow) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double eps : {0.0, -0.01, 0.5, 0.7, nan}) EXPECT_THROW(reciprocal_table{with(eps)}, std::invalid_argument) << eps;
  EXPECT_THROW(reciprocal_table{with(1.0 / 128, 0)}, std::invalid_argument);
  EXPECT_THROW(reciprocal_table{with(1.0 / 128, 33)}, std::invalid_argument);
  EXPECT_THROW(reciprocal_table{with(1.0 / 128, 22, 7)}, std::invalid_argument);
  EXPECT_THROW(reciprocal_table{with(1.0 / 128, 22, 54)}, std::invalid_argument);
  // The rounding of an 8-bit mantissa (2^-8) cannot fit under epsilon = 2^-9.
  EXPECT_THROW(reciprocal_table{with(1.0 / 512, 22, 8)}, std::invalid_argument);
  try {
    reciprocal_table{with(0.0)};
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("epsilon"), std::string::npos);
  }
}

TEST(ReciprocalTable, CyclesAgainstIterativeDivider) {
  EXPECT_EQ(reciprocal_table::iterative_divider_cycles(32), 33u);
  EXPECT_EQ(reciprocal_table::iterative_divider_cycles(16), 17u);
  const reciprocal_table t;
  EXPECT_EQ(t.lookup_cycles(), 3u);
  EXPECT_EQ(t.divide_cycles(), 4u);   // lookup, then one multiply
  // The paper: "about 8 times" faster. 33 / 4 = 8.25.
  EXPECT_GE(reciprocal_table::iterative_divider_cycles(32), 8 * t.divide_cycles());
}
