// The benches' stimulus source: xoshiro256** (Blackman and Vigna, 2018), its state seeded through
// splitmix64. A draw is about ten instructions where the run's Mersenne Twister (common/rng.h)
// takes about 25, and a bench draws up to ten a cycle. Only the benches use it: the simulator's
// runs keep rng, whose sequence every shipped scenario's outputs follow. Same seed, same
// sequence, on every machine.
#pragma once
#include <cstdint>

namespace netasic::cosim {

class stimulus_rng {
 public:
  explicit stimulus_rng(uint64_t seed) {
    for (uint64_t& w : s_) {   // splitmix64: distinct, well-mixed words from any seed, 0 included
      seed += 0x9E3779B97F4A7C15ull;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      w = z ^ (z >> 31);
    }
  }
  // The generator's own state, as the reference implementation takes it (not all zero).
  explicit stimulus_rng(const uint64_t (&state)[4]) : s_{state[0], state[1], state[2], state[3]} {}
  uint64_t next() {
    const uint64_t out = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return out;
  }
  // Uniform integer in [0, n), n > 0, without modulo bias (as rng::below).
  uint64_t below(uint64_t n) { return range(n)(*this); }

  // below(n) for an n fixed at reset, its rejection limit computed once: the same draws.
  struct range {
    uint64_t n = 1, limit = UINT64_MAX;
    range() = default;
    explicit range(uint64_t n) : n(n), limit(UINT64_MAX - UINT64_MAX % n) {}
    uint64_t operator()(stimulus_rng& r) const {
      uint64_t x;
      do { x = r.next(); } while (x >= limit);
      return x % n;
    }
  };

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace netasic::cosim
