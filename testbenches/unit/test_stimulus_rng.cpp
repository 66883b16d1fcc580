// The benches' stimulus source against the published algorithms: xoshiro256** from a given state
// (the reference implementation's output for state {1, 2, 3, 4}), its seeding by splitmix64, and
// below(n) as rng::below draws it.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cosim/harness/stimulus_rng.h"

using netasic::cosim::stimulus_rng;

TEST(StimulusRng, XoshiroStarStarFromAStateIsTheReferences) {
  const uint64_t state[4] = {1, 2, 3, 4};
  stimulus_rng r(state);
  for (const uint64_t want : {uint64_t(11520), uint64_t(0), uint64_t(1509978240), uint64_t(1215971899390074240)})
    EXPECT_EQ(r.next(), want);
}

TEST(StimulusRng, SeedFillsTheStateWithSplitmix64) {
  // splitmix64 from 0 gives 0xe220a8397b1dcdaf first; the state is its first four outputs, so
  // the seeded generator and the one given those four words draw alike.
  uint64_t x = 0, words[4];
  for (uint64_t& w : words) {
    x += 0x9E3779B97F4A7C15ull;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    w = z ^ (z >> 31);
  }
  EXPECT_EQ(words[0], 0xe220a8397b1dcdafull);
  stimulus_rng seeded(0), given(words);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(seeded.next(), given.next()) << i;
  // Distinct seeds, distinct streams.
  EXPECT_NE(stimulus_rng(1).next(), stimulus_rng(2).next());
}

TEST(StimulusRng, BelowIsUniformOverItsRange) {
  stimulus_rng r(7);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(r.below(1), 0u);
  // 10 bins, 200,000 draws: chi-square with 9 degrees of freedom; 27.9 is its 0.1 % tail.
  std::vector<uint64_t> bins(10);
  const int draws = 200000;
  for (int i = 0; i < draws; ++i) {
    const uint64_t v = r.below(10);
    ASSERT_LT(v, 10u);
    ++bins[v];
  }
  double chi2 = 0;
  for (const uint64_t b : bins) chi2 += (double(b) - draws / 10.0) * (double(b) - draws / 10.0) / (draws / 10.0);
  EXPECT_LT(chi2, 27.9);
  // A range just past half of 2^64 rejects about half the draws, and still lands inside it.
  const uint64_t n = (uint64_t(1) << 63) + 1;
  for (int i = 0; i < 1000; ++i) ASSERT_LT(r.below(n), n);
}
