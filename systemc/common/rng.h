// The one random source of a run. Same seed, same sequence, on every machine: only the raw
// 64-bit Mersenne Twister output is used; the transforms below are written out, not taken
// from <random>'s distributions, whose results the standard leaves to the library.
#pragma once
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>

namespace netasic {

class rng {
 public:
  explicit rng(uint64_t seed) : gen_(seed) {}
  uint64_t next() { return gen_(); }
  // Uniform in [0, 1), 53 random bits.
  double uniform() { return double(gen_() >> 11) * (1.0 / 9007199254740992.0); }
  // Uniform integer in [0, n), n > 0, without modulo bias.
  uint64_t below(uint64_t n) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do { x = gen_(); } while (x >= limit);
    return x % n;
  }
  // Exponential with the given mean.
  double exponential(double mean) { return -mean * std::log1p(-uniform()); }

 private:
  std::mt19937_64 gen_;
};

// The same draws as rng(seed), but the generator's 2.5 KiB of state is made at the first draw.
// For sources most instances never draw from (a switch's ECN and load-balancer draws, a NIC's
// Flowcut entropy): a k = 32 fat tree has 9,472 switches and NICs.
class lazy_rng {
 public:
  explicit lazy_rng(uint64_t seed) : seed_(seed) {}
  uint64_t next() { return get().next(); }
  double uniform() { return get().uniform(); }
  uint64_t below(uint64_t n) { return get().below(n); }

 private:
  rng& get() {
    if (!gen_) gen_ = std::make_unique<rng>(seed_);
    return *gen_;
  }
  uint64_t seed_;
  std::unique_ptr<rng> gen_;
};

}  // namespace netasic
