// reciprocal_table (rtl/reciprocal_table.sv) against reciprocal_table::divide and ::lookup with the
// default table (epsilon 1/128, 22-bit n, 24-bit mantissas: 1400 entries), as HPCC's window
// update divides Wc * eta by U.
//
// Table load. reset() builds the core's table, recomputes every stored value from the build
// rule in the core's header (2 / (a + b) rounded to a normalised mantissa) and checks it
// against lookup(), then writes the RTL's RAMs through its tbl_* port: entry k = {mantissa,
// shift}, key k into slot (k - first key of its octave) of its octave, and each octave's
// header {keys below 2^e, keys in the octave}. The load is not part of the cycles run.
//
// Directed corners first: n = a and n = b of every range [a, b] (x = max, 0, 1, 2^56 - 1 or
// random), n = 1 and n = 2^22 with x = 0, 1 and max, n = 2^e - 1 and 2^e for every octave e
// (a range that began in the octave below), back-to-back n in far-apart octaves (2^e then
// 2^(22-e)), n = 0, 2^22 + 1 and 2^23 - 1 (refused by both), idle cycles. Then random: n a key,
// a key - 1 or + 1, log-uniform, uniform, or 1 / 2^22; x of random bit length, 0, max or
// uniform; one cycle in eight idle and a few n out of range.
//
// Compared every cycle, 4 cycles after issue (the RTL's latency = lookup_cycles + 1):
// out_valid, out_refused (= !accepts(n)), out_quotient (= divide(x, n)), out_mantissa and
// out_shift (= lookup(n)). A refused n must also make divide throw: checked on every directed
// refusal and on one random refusal in 16, as a C++ exception costs more than ten cycles of the
// rest of the bench.
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "cosim/harness/cosim_bench.h"
#include "cosim/harness/stimulus_rng.h"
#include "cosim/reciprocal_table/reciprocal_table_rtl.h"
#include "blocks/reciprocal_table.h"
#include "Vreciprocal_table.h"
#include "Vreciprocal_table___024root.h"
#include "Vreciprocal_table_set2.h"
#include "Vreciprocal_table_set2___024root.h"
#include "rtl_bench_sets.h"

namespace netasic::cosim {
namespace {

// The RTL's parameters: its defaults (the table of epsilon 1/128), and its second set
// (rtl/bench_sets.txt). reset() checks that the core's table, built with input_bits and
// mantissa_bits, has these sizes.
struct default_table {
  static constexpr unsigned input_bits = 22, mantissa_bits = 24, shift_bits = 6;
  static constexpr uint32_t entries = 1400;
};
struct set2_table {
  static_assert(set2::reciprocal_table::count == 4,
                "reciprocal_table bench: reads INPUT_BITS, MANTISSA_BITS, ENTRIES and SHIFT_BITS of its second set only");
  static constexpr unsigned input_bits = unsigned(set2::reciprocal_table::INPUT_BITS);
  static constexpr unsigned mantissa_bits = unsigned(set2::reciprocal_table::MANTISSA_BITS);
  static constexpr unsigned shift_bits = unsigned(set2::reciprocal_table::SHIFT_BITS);
  static constexpr uint32_t entries = uint32_t(set2::reciprocal_table::ENTRIES);
};

unsigned bit_length(uint64_t v) {
  unsigned n = 0;
  while (v) { ++n; v >>= 1; }
  return n;
}
unsigned octave_of(uint64_t n) { return bit_length(n) - 1; }

struct division {
  bool valid = false;
  uint64_t x = 0, n = 0;
};

struct expected {
  bool valid = false, refused = false;
  uint64_t quotient = 0, mantissa = 0, shift = 0;
};

template <class V, class P>
class reciprocal_table_bench : public bench {
  static constexpr unsigned input_bits = P::input_bits, mantissa_bits = P::mantissa_bits, shift_bits = P::shift_bits;
  static constexpr unsigned x_bits = 64;
  static constexpr uint32_t entries = P::entries, octave_keys = 89;   // about ln 2 / epsilon at every size
  static constexpr unsigned rtl_latency = 4;
  static constexpr uint64_t top = uint64_t(1) << input_bits;
  static constexpr uint64_t n_port_max = (uint64_t(1) << (input_bits + 1)) - 1;   // in_n is input_bits + 1 wide
  static_assert(input_bits >= 8 && input_bits <= 31, "reciprocal_table bench: INPUT_BITS in [8, 31]");

 public:
  void reset(uint64_t seed) override {
    reciprocal_table_config c;
    c.input_bits = input_bits;
    c.mantissa_bits = mantissa_bits;
    table_ = std::make_unique<reciprocal_table>(c);
    check_table();
    rtl_ = std::make_unique<dut<V>>();
    rng_ = std::make_unique<stimulus_rng>(seed);
    cycle_ = 0;
    pipe_.fill(expected{});
    directed_.clear();
    directed_pos_ = 0;
    refusals_ = 0;
    make_directed();
    auto& m = *rtl_;
    m->in_valid = 0;
    m->tbl_we_entry = m->tbl_we_key = m->tbl_we_octave = 0;
    rtl_->reset();
    load_tables();
  }

  void step(side s, std::vector<mismatch>& out) override {
    const bool directed = directed_pos_ < directed_.size();
    const division d = directed ? directed_[directed_pos_++] : random_division();

    if (s != side::rtl) {
      expected e;
      if (d.valid) {
        if (!table_->accepts(d.n)) {
          e.refused = true;
          if (directed || refusals_++ % 16 == 0) {
            try {
              table_->divide(d.x, d.n);
              throw std::logic_error("reciprocal_table bench: core divided by n outside [1, 2^input_bits]");
            } catch (const std::out_of_range&) {
            }
          }
        } else {
          const reciprocal_table::value v = table_->lookup(d.n);
          e.valid = true;
          e.quotient = table_->divide(d.x, d.n);
          e.mantissa = v.mantissa;
          e.shift = v.shift;
        }
      }
      pipe_[cycle_ % rtl_latency] = e;
    }
    if (s != side::core) {
      auto& m = *rtl_;
      m->in_valid = d.valid;
      m->in_x = d.x;
      m->in_n = uint32_t(d.n);
      rtl_->tick();
    }
    if (s == side::both) {
      auto& m = *rtl_;
      const expected& x = pipe_[(cycle_ + 1) % rtl_latency];   // issued 3 cycles before this one
      auto cmp = [&](const char* name, uint64_t core, uint64_t rtl) { compare_output(out, name, core, rtl); };
      cmp("out_valid", x.valid, m->out_valid);
      cmp("out_refused", x.refused, m->out_refused);
      cmp("out_quotient", x.quotient, m->out_quotient);
      cmp("out_mantissa", x.mantissa, m->out_mantissa);
      cmp("out_shift", x.shift, m->out_shift);
    }
    ++cycle_;
  }

  std::string parameters() const override {
    return "INPUT_BITS=" + std::to_string(input_bits) + " MANTISSA_BITS=" + std::to_string(mantissa_bits) +
           " ENTRIES=" + std::to_string(entries) + " SHIFT_BITS=" + std::to_string(shift_bits) +
           " OCTAVE_KEYS=" + std::to_string(octave_keys) + " X_BITS=" + std::to_string(x_bits);
  }
  void trace(VerilatedVcdC* vcd) override { rtl_->trace(vcd); }

 private:
  // b of range k: the last n that reads entry k.
  uint64_t range_end(size_t k) const {
    const auto& keys = table_->keys();
    return k + 1 < keys.size() ? keys[k + 1] - 1 : top;
  }

  // The table the RTL is built for, and the stored values by the build rule = lookup().
  void check_table() const {
    const reciprocal_table_config& c = table_->config();
    auto fail = [](const std::string& what) { throw std::logic_error("reciprocal_table bench: " + what); };
    if (c.input_bits != input_bits || c.mantissa_bits != mantissa_bits || table_->entries() != entries ||
        table_->shift_bits() != shift_bits || table_->divide_cycles() != rtl_latency)
      fail("the core's table differs from the RTL's parameters");
    __extension__ typedef unsigned __int128 u128;
    const auto& keys = table_->keys();
    std::vector<uint32_t> per_octave(input_bits + 1, 0);
    for (size_t k = 0; k < keys.size(); ++k) {
      ++per_octave[octave_of(keys[k])];
      const uint64_t a = keys[k], b = range_end(k), d = a + b;
      unsigned s = mantissa_bits - 2 + bit_length(d);
      uint64_t m = uint64_t(((u128(1) << (s + 1)) + d / 2) / d);
      if (m == (uint64_t(1) << mantissa_bits)) { m >>= 1; --s; }
      const reciprocal_table::value v = table_->lookup(a);
      if (v.mantissa != m || v.shift != s || table_->lookup(b).mantissa != m)
        fail("entry " + std::to_string(k) + " differs from the build rule");
    }
    if (*std::max_element(per_octave.begin(), per_octave.end()) != octave_keys)
      fail("the most keys in one octave differs from OCTAVE_KEYS");
  }

  void load_tables() {
    reciprocal_table_rtl::load(*rtl_->operator->(), *table_, [this] { rtl_->tick(); });
  }

  uint64_t corner_x(unsigned i) {
    switch (i % 5) {
      case 0: return UINT64_MAX;
      case 1: return 0;
      case 2: return 1;
      case 3: return (uint64_t(1) << 56) - 1;   // HPCC's largest Wc * eta
      default: return rng_->next();
    }
  }

  void make_directed() {
    auto div = [&](uint64_t x, uint64_t n) { directed_.push_back({true, x, n}); };
    auto idle = [&]() { directed_.push_back({}); };
    const auto& keys = table_->keys();
    for (size_t k = 0; k < keys.size(); ++k) {   // both ends of every range
      div(UINT64_MAX, keys[k]);
      div(corner_x(unsigned(k)), range_end(k));
    }
    idle();
    for (uint64_t x : {uint64_t(0), uint64_t(1), UINT64_MAX, uint64_t(12345)}) {
      div(x, 1);
      div(x, top);
    }
    for (unsigned e = 1; e <= input_bits; ++e) {   // octave edges
      div(UINT64_MAX, (uint64_t(1) << e) - 1);
      div(UINT64_MAX, uint64_t(1) << e);
    }
    for (unsigned e = 0; e <= input_bits; ++e) {   // back to back, far apart
      div(corner_x(e), uint64_t(1) << e);
      div(corner_x(e + 1), uint64_t(1) << (input_bits - e));
      div(corner_x(e + 2), (uint64_t(1) << e) + 1);
    }
    div(100, 0);
    div(100, 7);
    div(100, top + 1);
    div(100, top);
    div(100, n_port_max);
    idle();
    idle();
  }

  division random_division() {
    division d;
    const uint64_t r = rng_->below(64);
    if (r < 8) return d;   // idle
    d.valid = true;
    const auto& keys = table_->keys();
    if (r < 9) {
      const uint64_t bad[] = {0, top + 1, top + 1 + rng_->below(n_port_max - top)};
      d.n = bad[rng_->below(3)];
    } else if (r < 30) {   // at a range boundary
      d.n = keys[rng_->below(keys.size())] + rng_->below(3) - 1;
      d.n = std::clamp<uint64_t>(d.n, 1, top);
    } else if (r < 48) {   // log-uniform: every octave equally often
      const unsigned e = unsigned(rng_->below(input_bits + 1));
      d.n = std::min(top, (uint64_t(1) << e) + rng_->below(uint64_t(1) << e));
    } else if (r < 60) {
      d.n = 1 + rng_->below(top);
    } else {
      d.n = rng_->below(2) ? 1 : top;
    }
    switch (rng_->below(8)) {
      case 0: d.x = 0; break;
      case 1: d.x = UINT64_MAX; break;
      case 2: case 3: d.x = rng_->next(); break;
      default: {   // random bit length
        const unsigned bits = unsigned(rng_->below(65));
        d.x = bits == 0 ? 0 : rng_->next() >> (64 - bits);
      }
    }
    return d;
  }

  std::unique_ptr<reciprocal_table> table_;
  std::unique_ptr<dut<V>> rtl_;
  std::unique_ptr<stimulus_rng> rng_;
  uint64_t cycle_ = 0;
  std::vector<division> directed_;
  size_t directed_pos_ = 0;
  uint64_t refusals_ = 0;   // random refusals so far: one in 16 is also divided, to see it throw
  std::array<expected, rtl_latency> pipe_{};
};

}  // namespace

std::unique_ptr<bench> make_reciprocal_table_bench() {
  return std::make_unique<reciprocal_table_bench<Vreciprocal_table, default_table>>();
}
std::unique_ptr<bench> make_reciprocal_table_set2_bench() {
  return std::make_unique<reciprocal_table_bench<Vreciprocal_table_set2, set2_table>>();
}

}  // namespace netasic::cosim
