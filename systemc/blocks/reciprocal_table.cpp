#include "blocks/reciprocal_table.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace netasic {
namespace {
__extension__ typedef unsigned __int128 u128;

unsigned bit_length(uint64_t v) { return v ? 64 - unsigned(__builtin_clzll(v)) : 0; }

// Refuse tables that would not fit a sane model (tiny epsilon over 32-bit inputs).
constexpr size_t max_entries = size_t(1) << 24;
}  // namespace

reciprocal_table::reciprocal_table(const reciprocal_table_config& cfg) : cfg_(cfg) {
  if (!(cfg.epsilon > 0.0 && cfg.epsilon < 0.5))
    throw std::invalid_argument("reciprocal_table: epsilon must be in (0, 0.5), got " + std::to_string(cfg.epsilon));
  if (cfg.input_bits < 1 || cfg.input_bits > 32)
    throw std::invalid_argument("reciprocal_table: input_bits must be in [1, 32], got " + std::to_string(cfg.input_bits));
  if (cfg.mantissa_bits < 8 || cfg.mantissa_bits > 53)
    throw std::invalid_argument("reciprocal_table: mantissa_bits must be in [8, 53], got " + std::to_string(cfg.mantissa_bits));
  const double r = cfg.epsilon / (2.0 - cfg.epsilon);
  bound_ = r + std::ldexp(1.0, -int(cfg.mantissa_bits)) * (1.0 + r);
  // The range error and the rounding must both fit inside epsilon, or the promise breaks.
  if (bound_ > cfg.epsilon)
    throw std::invalid_argument("reciprocal_table: epsilon " + std::to_string(cfg.epsilon) + " is too small for " +
                                std::to_string(cfg.mantissa_bits) + " mantissa bits (the rounding alone is 2^-" +
                                std::to_string(cfg.mantissa_bits) + "); use a larger epsilon or more mantissa bits");

  const uint64_t top = uint64_t(1) << cfg.input_bits;
  const double keep = 1.0 - cfg.epsilon;
  const unsigned mb = cfg.mantissa_bits;
  unsigned max_shift = 0;
  for (uint64_t a = 1; a <= top;) {
    // First n > a with n * (1 - eps) >= a: start from the real quotient and settle the rounding.
    uint64_t next = std::max<uint64_t>(a + 1, uint64_t(std::floor(double(a) / keep)));
    while (next > a + 1 && double(next - 1) * keep >= double(a)) --next;
    while (double(next) * keep < double(a)) ++next;
    const uint64_t b = std::min(next - 1, top);

    // 2 / (a + b) with a normalised mantissa: 2^(L-1) <= d < 2^L gives 2^(s+1)/d in
    // (2^(mb-1), 2^mb]; a power-of-two d (or rounding up) lands on 2^mb, one bit too many.
    const uint64_t d = a + b;
    unsigned s = mb - 2 + bit_length(d);
    const u128 num = u128(1) << (s + 1);
    uint64_t m = uint64_t((num + d / 2) / d);
    if (m == (uint64_t(1) << mb)) { m >>= 1; --s; }
    keys_.push_back(a);
    values_.push_back({m, s});
    max_shift = std::max(max_shift, s);
    if (keys_.size() > max_entries)
      throw std::invalid_argument("reciprocal_table: more than 2^24 entries; epsilon " + std::to_string(cfg.epsilon) +
                                  " is too small for input_bits " + std::to_string(cfg.input_bits));
    a = next;
  }
  shift_bits_ = bit_length(max_shift);

  // The entry covering each slice's first n: any n in the slice lies between that n and the
  // next slice's first, so its entry lies between theirs (entries ascend with n).
  constexpr unsigned b = slice_bits;
  const unsigned octaves = cfg.input_bits + 1;
  slice_entry_.resize(size_t(octaves) << b | 1);
  for (size_t i = 0; i < slice_entry_.size(); ++i) {
    const unsigned e = unsigned(i >> b);
    const uint64_t v = (uint64_t(1) << b) + (i & ((uint64_t(1) << b) - 1));   // n * 2^(b-e) at the slice's start
    const uint64_t first = e >= b ? v << (e - b) : (v + (uint64_t(1) << (b - e)) - 1) >> (b - e);
    const uint64_t n = std::min(first, top);
    slice_entry_[i] = uint32_t(std::upper_bound(keys_.begin(), keys_.end(), n) - keys_.begin() - 1);
  }
}

reciprocal_table::value reciprocal_table::lookup(uint64_t n) const {
  if (!accepts(n))
    throw std::out_of_range("reciprocal_table: n = " + std::to_string(n) + " outside [1, 2^" +
                            std::to_string(cfg_.input_bits) + "]");
  constexpr unsigned b = slice_bits;
  const unsigned e = bit_length(n) - 1;
  // n's top b + 1 bits (zeros below octave b, where some slices hold no integer n) name its slice.
  const uint64_t lead = e >= b ? n >> (e - b) : n << (b - e);
  const size_t i = size_t(e) << b | size_t(lead - (uint64_t(1) << b));
  // The entry is one of slice_entry_[i] .. slice_entry_[i + 1]: the last key <= n among them.
  const auto first = keys_.begin() + slice_entry_[i], last = keys_.begin() + slice_entry_[i + 1];
  const size_t k = size_t(std::upper_bound(first + 1, last + 1, n) - keys_.begin()) - 1;
  return values_[k];
}

uint64_t reciprocal_table::divide(uint64_t x, uint64_t n) const {
  const value v = lookup(n);
  // n = 1 stores exactly 1, so the quotient never exceeds x and always fits 64 bits.
  return uint64_t((u128(x) * v.mantissa) >> v.shift);
}

double reciprocal_table::worst_relative_error() const {
  const uint64_t top = uint64_t(1) << cfg_.input_bits;
  double worst = 0.0;
  for (size_t k = 0; k < keys_.size(); ++k) {
    const uint64_t end = k + 1 < keys_.size() ? keys_[k + 1] : top + 1;
    const value v = values_[k];
    const u128 one = u128(1) << v.shift;
    const double scale = std::ldexp(1.0, -int(v.shift));
    // |m n - 2^s| / 2^s = |stored - 1/n| / (1/n), exact in 128 bits before the conversion. It is
    // V-shaped in n, so over the range it is largest at one of the two ends.
    for (const uint64_t n : {keys_[k], end - 1}) {
      const u128 p = u128(v.mantissa) * n;
      const u128 diff = p > one ? p - one : one - p;
      worst = std::max(worst, double(diff) * scale);
    }
  }
  return worst;
}

}  // namespace netasic
