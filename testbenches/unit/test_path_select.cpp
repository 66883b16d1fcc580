// Path selection: ECMP is exactly members[hash % n] (as the route table computes it); shares over
// many random hashes or random sprays stay within 5 binomial standard deviations of their
// targets; WCMP replication is checked against a largest-remainder reference written here with
// independent integer arithmetic, its reported quantization error recomputed, and its realised
// shares tested against the replicated (quantised) targets; round robin is checked exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "blocks/path_select.h"
#include "common/rng.h"

using namespace netasic;

namespace {

// |count - n p| within 5 sigma of Binomial(n, p) (plus one for p near 0 or 1).
void expect_binomial(uint64_t count, uint64_t n, double p, const char* what, size_t j) {
  const double mean = double(n) * p, sd = std::sqrt(double(n) * p * (1 - p));
  EXPECT_LE(std::fabs(double(count) - mean), 5 * sd + 1) << what << " member " << j << " count " << count << " mean " << mean;
}

path_select_config group(path_mode mode, uint32_t n, std::vector<uint32_t> weights = {}, uint32_t table = 256, uint64_t seed = 1) {
  path_select_config c;
  c.mode = mode;
  for (uint32_t j = 0; j < n; ++j) c.members.push_back(100 + 3 * j);   // ports unlike indices
  c.weights = std::move(weights);
  c.table_size = table;
  c.seed = seed;
  return c;
}

// Largest remainder by sorting (quota floors, then the largest remainders T*w mod W, lower index
// first), valid when every nonzero quota is at least 1 so no minimum applies.
std::vector<uint32_t> hamilton(const std::vector<uint32_t>& w, uint32_t T) {
  uint64_t W = 0;
  for (uint32_t x : w) W += x;
  std::vector<uint32_t> r(w.size());
  std::vector<size_t> order(w.size());
  uint64_t given = 0;
  for (size_t j = 0; j < w.size(); ++j) {
    r[j] = uint32_t(uint64_t(T) * w[j] / W);
    given += r[j];
    order[j] = j;
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return uint64_t(T) * w[a] % W > uint64_t(T) * w[b] % W;
  });
  for (size_t k = 0; given < T; ++k, ++given) ++r[order[k]];
  return r;
}

}  // namespace

TEST(PathSelect, EcmpIsHashModuloMembers) {
  rng r(1);
  for (uint32_t n = 1; n <= 17; ++n) {
    path_select ps(group(path_mode::ecmp, n));
    for (int k = 0; k < 1000; ++k) {
      const uint64_t h = r.next() >> r.below(64);
      ASSERT_EQ(ps.select(h), 100 + 3 * uint32_t(h % n));
    }
    EXPECT_EQ(ps.quantization().table_entries, n);
    EXPECT_EQ(ps.quantization().max_share_error, 0.0);
  }
}

TEST(PathSelect, EcmpSharesWithinBinomialBounds) {
  rng r(2);
  for (uint32_t n : {2u, 3u, 4u, 7u, 8u, 16u, 48u}) {
    path_select ps(group(path_mode::ecmp, n));
    const uint64_t draws = 200'000;
    for (uint64_t k = 0; k < draws; ++k) ps.select(r.next());
    for (uint32_t j = 0; j < n; ++j) expect_binomial(ps.counters().per_member[j], draws, 1.0 / n, "ecmp", j);
    EXPECT_EQ(ps.counters().selections, draws);
  }
}

TEST(PathSelect, ReplicationExactWhenWeightsFit) {
  EXPECT_EQ(path_select::replicate({1, 2, 3}, 6), (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(path_select::replicate({10, 20, 30}, 6), (std::vector<uint32_t>{1, 2, 3}));   // divided by the gcd
  EXPECT_EQ(path_select::replicate({5, 0, 5}, 2), (std::vector<uint32_t>{1, 0, 1}));   // weight 0: no entry
}

TEST(PathSelect, ReplicationQuantisesLikeLargestRemainder) {
  rng r(3);
  int checked = 0, lifted = 0;
  for (int k = 0; k < 3000; ++k) {
    const size_t n = 1 + r.below(12);
    const uint32_t T = 1 + uint32_t(r.below(300));
    std::vector<uint32_t> w(n);
    const bool small = r.below(4) == 0;   // small weights mostly fit exactly
    for (auto& x : w) x = r.below(10) == 0 ? 0 : uint32_t(1 + r.below(small ? 10 : 100000));
    if (std::all_of(w.begin(), w.end(), [](uint32_t x) { return x == 0; })) w[0] = 1;
    const uint64_t nonzero = uint64_t(std::count_if(w.begin(), w.end(), [](uint32_t x) { return x != 0; }));
    if (nonzero > T) {
      uint64_t g = 0, s = 0;
      for (uint32_t x : w) g = std::gcd(g, uint64_t(x));
      for (uint32_t x : w) s += x / g;
      if (s > T) { EXPECT_THROW(path_select::replicate(w, T), std::invalid_argument); continue; }
    }
    const std::vector<uint32_t> got = path_select::replicate(w, T);
    uint64_t g = 0, W = 0, sum_reduced = 0, total = 0;
    for (uint32_t x : w) { g = std::gcd(g, uint64_t(x)); W += x; }
    for (uint32_t x : w) sum_reduced += x / g;
    for (size_t j = 0; j < n; ++j) {
      total += got[j];
      EXPECT_EQ(got[j] == 0, w[j] == 0) << "member " << j;   // zero weight only, and reachable otherwise
    }
    if (sum_reduced <= T) {
      for (size_t j = 0; j < n; ++j) EXPECT_EQ(got[j], w[j] / g);
      continue;
    }
    EXPECT_EQ(total, T);
    bool all_quota_ge_1 = true;
    for (size_t j = 0; j < n; ++j)
      if (w[j] && uint64_t(T) * w[j] < W) all_quota_ge_1 = false;
    if (all_quota_ge_1) {
      EXPECT_EQ(got, hamilton(w, T));
      for (size_t j = 0; j < n; ++j) {   // within one entry of the exact quota
        const double q = double(T) * w[j] / double(W);
        EXPECT_LT(std::fabs(got[j] - q), 1.0);
      }
      ++checked;
    } else {
      // Some member was lifted to its one entry: nobody else ends above the ceiling of its quota.
      for (size_t j = 0; j < n; ++j)
        if (w[j] && uint64_t(T) * w[j] >= W) { EXPECT_LE(got[j], (uint64_t(T) * w[j] + W - 1) / W); }
      ++lifted;
    }
  }
  EXPECT_GT(checked, 1000);
  EXPECT_GT(lifted, 100);
}

TEST(PathSelect, WcmpReportsQuantisationAndHonoursReplicas) {
  rng r(4);
  for (int k = 0; k < 40; ++k) {
    const uint32_t n = 2 + uint32_t(r.below(7));
    std::vector<uint32_t> w(n);
    for (auto& x : w) x = uint32_t(1 + r.below(1000));
    const uint32_t T = n + uint32_t(r.below(120));
    path_select ps(group(path_mode::wcmp, n, w, T));
    const wcmp_quantization& q = ps.quantization();
    ASSERT_EQ(q.table_entries, ps.table().size());
    // Reported error, recomputed.
    double W = 0, err = 0, over = 1;
    for (uint32_t x : w) W += x;
    for (uint32_t j = 0; j < n; ++j) {
      const double share = double(q.replicas[j]) / q.table_entries, target = w[j] / W;
      err = std::max(err, std::fabs(share - target));
      over = std::max(over, share / target);
      EXPECT_EQ(uint64_t(std::count(ps.table().begin(), ps.table().end(), j)), q.replicas[j]);
    }
    EXPECT_DOUBLE_EQ(q.max_share_error, err);
    EXPECT_DOUBLE_EQ(q.max_oversubscription, over);
    // Realised shares follow the replicas (the quantised weights), within binomial bounds.
    const uint64_t draws = 100'000;
    for (uint64_t d = 0; d < draws; ++d) ps.select(r.next());
    for (uint32_t j = 0; j < n; ++j)
      expect_binomial(ps.counters().per_member[j], draws, double(q.replicas[j]) / q.table_entries, "wcmp", j);
  }
  // A 1:1000 split in 64 entries: the small member keeps one entry (1/64, not 1/1001).
  path_select skew(group(path_mode::wcmp, 2, {1, 1000}, 64));
  EXPECT_EQ(skew.quantization().replicas, (std::vector<uint32_t>{1, 63}));
  EXPECT_NEAR(skew.quantization().max_oversubscription, (1.0 / 64) / (1.0 / 1001), 1e-9);
  EXPECT_NEAR(skew.quantization().max_share_error, 1.0 / 64 - 1.0 / 1001, 1e-12);
}

TEST(PathSelect, SprayRandomWithinBinomialBoundsAndReproducible) {
  for (uint32_t n : {2u, 5u, 16u}) {
    path_select ps(group(path_mode::spray_random, n, {}, 256, 42));
    const uint64_t draws = 200'000;
    for (uint64_t d = 0; d < draws; ++d) ps.select(0);   // hash ignored
    for (uint32_t j = 0; j < n; ++j) expect_binomial(ps.counters().per_member[j], draws, 1.0 / n, "spray", j);
  }
  path_select weighted(group(path_mode::spray_random, 3, {1, 2, 5}, 256, 9));
  for (int d = 0; d < 80'000; ++d) weighted.select(7);
  for (uint32_t j = 0; j < 3; ++j)
    expect_binomial(weighted.counters().per_member[j], 80'000, double(weighted.quantization().replicas[j]) / 8, "weighted spray", j);
  // Same seed, same sequence; another seed, another one.
  path_select a(group(path_mode::spray_random, 8, {}, 256, 5)), b(group(path_mode::spray_random, 8, {}, 256, 5)),
      c(group(path_mode::spray_random, 8, {}, 256, 6));
  int differ = 0;
  for (int d = 0; d < 1000; ++d) {
    const uint32_t x = a.select(0);
    ASSERT_EQ(x, b.select(0));
    differ += x != c.select(0);
  }
  EXPECT_GT(differ, 500);
}

TEST(PathSelect, RoundRobinExact) {
  path_select ps(group(path_mode::spray_round_robin, 5));
  for (int d = 0; d < 1003; ++d) ASSERT_EQ(ps.select(uint64_t(d) * 7919), 100 + 3 * uint32_t(d % 5));
  // Weighted: every window of one table length holds each member exactly its replicas, and the
  // turns are interleaved (smooth weighted round robin): 5:1:1 gives a a b a c a a.
  path_select w(group(path_mode::spray_round_robin, 3, {5, 1, 1}));
  std::vector<uint32_t> seq;
  for (int d = 0; d < 70; ++d) seq.push_back(w.select_member(0));
  EXPECT_EQ(std::vector<uint32_t>(seq.begin(), seq.begin() + 7), (std::vector<uint32_t>{0, 0, 1, 0, 2, 0, 0}));
  for (size_t s = 0; s + 7 <= seq.size(); ++s) {
    EXPECT_EQ(std::count(seq.begin() + long(s), seq.begin() + long(s) + 7, 0u), 5);
    EXPECT_EQ(std::count(seq.begin() + long(s), seq.begin() + long(s) + 7, 1u), 1);
  }
  rng r(8);
  for (int k = 0; k < 50; ++k) {
    const uint32_t n = 1 + uint32_t(r.below(8));
    std::vector<uint32_t> wt(n);
    for (auto& x : wt) x = uint32_t(r.below(6));
    wt[r.below(n)] = 1 + uint32_t(r.below(6));
    path_select p(group(path_mode::spray_round_robin, n, wt));
    const auto& rep = p.quantization().replicas;
    const uint32_t R = p.quantization().table_entries;
    std::vector<uint32_t> got;
    for (uint32_t d = 0; d < 3 * R; ++d) got.push_back(p.select_member(0));
    for (uint32_t s = 0; s + R <= got.size(); ++s)
      for (uint32_t j = 0; j < n; ++j)
        ASSERT_EQ(uint32_t(std::count(got.begin() + s, got.begin() + s + R, j)), rep[j]);
  }
}

TEST(PathSelect, RejectsBadConfigs) {
  EXPECT_THROW(path_select(group(path_mode::ecmp, 0)), std::invalid_argument);
  EXPECT_THROW(path_select(group(path_mode::ecmp, 2, {1, 2})), std::invalid_argument);
  EXPECT_THROW(path_select(group(path_mode::wcmp, 2, {1})), std::invalid_argument);
  EXPECT_THROW(path_select(group(path_mode::wcmp, 2, {0, 0})), std::invalid_argument);
  EXPECT_THROW(path_select(group(path_mode::wcmp, 3, {1, 1, 1000}, 2)), std::invalid_argument);
  EXPECT_THROW(path_select(group(path_mode::wcmp, 2, {1, 2}, 0)), std::invalid_argument);
  auto bad = group(path_mode::ecmp, 2);
  bad.mode = path_mode(9);
  EXPECT_THROW(path_select{bad}, std::invalid_argument);
}
