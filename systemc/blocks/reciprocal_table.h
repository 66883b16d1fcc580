// Reciprocal lookup table (core, no SystemC): HPCC's replacement for the division in its
// window update (Li et al., SIGCOMM'19 §5.3 / thesis §2.5.3). x / n becomes x * (1/n), with 1/n
// read from a table of {1/n | 1 <= n <= 2^input_bits} that keeps only reciprocals at least
// epsilon apart in relative terms, so the table is small (about 10 KB in the paper).
//
// Build rule. Walk n upward from n_0 = 1. The next kept key n_{k+1} is the first n > n_k whose
// reciprocal is at least epsilon below 1/n_k in relative terms (the paper's rule):
//     n_{k+1} = min { n > n_k : n * (1 - epsilon) >= n_k }
// Every n in [a, b] = [n_k, n_{k+1} - 1] reads ONE stored value: 2 / (a + b), the value that
// minimises max |v * n - 1| over the range, rounded to nearest to a normalised mantissa of
// mantissa_bits bits, v = mantissa * 2^-shift with 2^(mantissa_bits-1) <= mantissa < 2^mantissa_bits.
// Below about 1/epsilon every n is kept (ranges of one n), above it the keys are geometric.
//
// Error bound. b < a / (1 - epsilon), so over the range |v * n - 1| <= (b - a) / (a + b)
// < epsilon / (2 - epsilon); the mantissa rounding adds at most 2^-mantissa_bits (times
// 1 + that). The constructor refuses an epsilon too small to hold that sum (error_bound() > epsilon),
// so the worst relative error |stored - 1/n| / (1/n) over every n is <= epsilon by construction.
//
// Storage (bytes()): each entry holds its key (input_bits + 1 bits, since n runs to 2^input_bits
// inclusive), its mantissa (mantissa_bits, the leading 1 stored explicitly) and its shift
// (enough bits for the largest shift in the table):
//     bytes = ceil(entries * (input_bits + 1 + mantissa_bits + shift_bits) / 8)
//
// Timing. lookup_cycles (default 3): (1) leading-one detect on n picks the octave [2^e, 2^(e+1)),
// (2) compare n in parallel against that octave's keys (at most about ln 2 / epsilon of them,
// 89 for epsilon = 1/128) and priority-encode the match, (3) read the entry from RAM. The
// multiply is one more cycle, so a division costs lookup_cycles + 1 = 4 cycles against 33 for a
// radix-2 restoring divider producing a 32-bit quotient: 8.25x, the paper's "about 8x".
// The model finds the entry through a software index, not the hardware's comparators (only the
// cycle count is hardware): each octave is cut into 128 slices of equal width, each slice keeps
// the entry that covers its first n, and a lookup searches only the keys between its slice's
// entry and the next slice's (one to three at epsilon = 1/128) instead of the whole table (a
// binary search of 1,400 keys was most of an HPCC division's cost in the lockstep bench).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace netasic {

struct reciprocal_table_config {
  double epsilon = 1.0 / 128;    // relative spacing of kept reciprocals, in (0, 0.5)
  unsigned input_bits = 22;      // n runs over [1, 2^input_bits], input_bits in [1, 32]
  unsigned mantissa_bits = 24;   // stored mantissa width, in [8, 53]
  uint32_t lookup_cycles = 3;    // find and read one entry (the multiply is not included)
};

// What HPCC's window update calls to divide: the table below, or with `netasic run --rtl
// reciprocal_table` its Verilated RTL loaded from the table
// (cosim/reciprocal_table/reciprocal_table_rtl.h).
class reciprocal_table_if {
 public:
  virtual ~reciprocal_table_if() = default;
  // x / n as reciprocal_table::divide computes it.
  virtual uint64_t divide(uint64_t x, uint64_t n) const = 0;
};

class reciprocal_table : public reciprocal_table_if {
 public:
  // 1/n as mantissa * 2^-shift (the hardware's floating-point-like entry).
  struct value {
    uint64_t mantissa;
    unsigned shift;
  };

  // Throws std::invalid_argument, naming the field, on a bad config or on an epsilon too small
  // for mantissa_bits (the bound above would exceed epsilon).
  explicit reciprocal_table(const reciprocal_table_config& cfg = {});

  // The divisors the table holds: 1 <= n <= 2^input_bits. lookup and divide throw
  // std::out_of_range for any other n (the RTL raises its refusal for the same n).
  bool accepts(uint64_t n) const { return n != 0 && n <= (uint64_t(1) << cfg_.input_bits); }
  // For n that accepts(n); std::out_of_range otherwise.
  value lookup(uint64_t n) const;
  // x / n through the table: (x * mantissa) >> shift, truncated, as the hardware's multiplier
  // does. Exact 128-bit product, so any 64-bit x is safe; the result is within
  // x/n * worst_relative_error() + 1 of x / n.
  uint64_t divide(uint64_t x, uint64_t n) const override;

  size_t entries() const { return keys_.size(); }
  unsigned shift_bits() const { return shift_bits_; }
  unsigned entry_bits() const { return cfg_.input_bits + 1 + cfg_.mantissa_bits + shift_bits_; }
  uint64_t bytes() const { return (uint64_t(entries()) * entry_bits() + 7) / 8; }

  // max over every n in [1, 2^input_bits] of |stored(n) - 1/n| / (1/n), exact, computed on each
  // call from each range's two ends (the error is V-shaped in n within a range).
  double worst_relative_error() const;
  // The analytic bound epsilon/(2-epsilon) + 2^-mantissa_bits * (1 + epsilon/(2-epsilon)).
  double error_bound() const { return bound_; }

  uint32_t lookup_cycles() const { return cfg_.lookup_cycles; }
  uint32_t divide_cycles() const { return cfg_.lookup_cycles + 1; }   // lookup, then multiply
  const reciprocal_table_config& config() const { return cfg_; }
  const std::vector<uint64_t>& keys() const { return keys_; }

  // Radix-2 restoring divider: one quotient bit per cycle, plus one to set up. The baseline the
  // paper's "about 8x faster" compares against.
  static uint32_t iterative_divider_cycles(unsigned quotient_bits) { return quotient_bits + 1; }

 private:
  reciprocal_table_config cfg_;
  double bound_;
  std::vector<uint64_t> keys_;   // n_k, ascending, keys_[0] = 1
  std::vector<value> values_;    // the value every n in [keys_[k], keys_[k+1]) reads
  // slice_entry_[e * 128 + j]: the entry that covers the first n of slice j of octave e
  // (n = (128 + j) * 2^(e-7), rounded up); one more at the end, for 2^input_bits.
  static constexpr unsigned slice_bits = 7;
  std::vector<uint32_t> slice_entry_;
  unsigned shift_bits_ = 0;
};

}  // namespace netasic
