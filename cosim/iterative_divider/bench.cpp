// iterative_divider (rtl/iterative_divider.sv) against exact integer division: x / n and x % n
// in 128-bit arithmetic, the quotient saturated to 2^Q_BITS - 1 and flagged when it needs more
// bits, n = 0 refused. The latency is checked too: every result must come
// reciprocal_table::iterative_divider_cycles(Q_BITS) cycles after its issue, counting both, and
// in_ready must be low exactly while a division runs.
//
// Directed corners first: divide by 1 (x = 0, 1, max, and x whose quotient just fits or just
// overflows), x = 0, x < n, x = n - 1, n, n + 1, x = k * n and k * n - 1 for the largest k that
// fits, n = max with x = max, n = 0, powers of two on both sides, back-to-back issues (the next
// issued in the cycle the result appears). Then random: x and n of random bit length, a
// quotient near 2^Q_BITS, idle gaps of 0 to 3 cycles between divisions.
#include <deque>
#include <stdexcept>
#include <string>

#include "blocks/reciprocal_table.h"
#include "cosim/harness/cosim_bench.h"
#include "cosim/harness/stimulus_rng.h"
#include "Viterative_divider.h"
#include "Viterative_divider___024root.h"
#include "Viterative_divider_set2.h"
#include "Viterative_divider_set2___024root.h"
#include "rtl_bench_sets.h"

namespace netasic::cosim {
namespace {

__extension__ typedef unsigned __int128 u128;

// The RTL's default parameters: HPCC's Wc * eta (56 bits) / U (23 bits) for a 32-bit window.
struct hpcc_widths {
  static constexpr unsigned x_bits = 56, n_bits = 23, q_bits = 32;
};

// The second set (rtl/bench_sets.txt): the full 64-bit quotient of the table's dividend port.
struct set2_widths {
  static constexpr unsigned x_bits = set2::iterative_divider::X_BITS, n_bits = 23, q_bits = set2::iterative_divider::Q_BITS;
  static_assert(set2::iterative_divider::count == 2, "iterative_divider bench: reads X_BITS and Q_BITS of its second set only");
};

struct division {
  bool valid = false;
  uint64_t x = 0, n = 0;
};

struct result {
  bool valid = false, refused = false, overflow = false;
  uint64_t quotient = 0, remainder = 0;
};

template <class V, class P>
class iterative_divider_bench : public bench {
  static_assert(P::q_bits >= 2 && P::q_bits <= P::x_bits && P::x_bits <= 64 && P::n_bits <= 63,
                "iterative_divider bench: Q_BITS in [2, X_BITS], X_BITS <= 64, N_BITS <= 63");
  static constexpr uint64_t ones(unsigned b) { return b >= 64 ? UINT64_MAX : (uint64_t(1) << b) - 1; }
  static constexpr uint64_t x_max = ones(P::x_bits), n_max = ones(P::n_bits), q_max = ones(P::q_bits);

 public:
  void reset(uint64_t seed) override {
    cycles_ = reciprocal_table::iterative_divider_cycles(P::q_bits);
    rtl_ = std::make_unique<dut<V>>();
    rng_ = std::make_unique<stimulus_rng>(seed);
    directed_.clear();
    make_directed();
    busy_ = 0;
    gap_ = 0;
    (*rtl_)->in_valid = 0;
    rtl_->reset();
  }

  void step(side s, std::vector<mismatch>& out) override {
    // Issue when the divider is free (the model's busy count), after the gap drawn.
    division d;
    if (busy_ == 0) {
      if (gap_ > 0) {
        --gap_;
      } else {
        d = next_division();
        gap_ = directed_.empty() ? unsigned(rng_->below(4)) : 0;
      }
    }
    result want;
    bool ready = busy_ == 0;
    if (d.valid) {
      pending_ = exact(d);
      busy_ = cycles_;
    }
    if (busy_ > 0 && --busy_ == 0) want = pending_;   // the result of this cycle's edge
    if (s != side::core) {
      auto& m = *rtl_;
      if (s == side::both && bool(m->in_ready) != ready) out.push_back({"in_ready", ready, m->in_ready});
      m->in_valid = d.valid;
      m->in_x = d.x;
      m->in_n = uint32_t(d.n);
      rtl_->tick();
    }
    if (s == side::both) {
      auto& m = *rtl_;
      auto cmp = [&](const char* name, uint64_t core, uint64_t rtl) { compare_output(out, name, core, rtl); };
      cmp("out_valid", want.valid, m->out_valid);
      if (want.valid) {
        cmp("out_refused", want.refused, m->out_refused);
        cmp("out_overflow", want.overflow, m->out_overflow);
        cmp("out_quotient", want.quotient, m->out_quotient);
        cmp("out_remainder", want.remainder, m->out_remainder);
      }
    }
  }

  std::string parameters() const override {
    return "X_BITS=" + std::to_string(P::x_bits) + " N_BITS=" + std::to_string(P::n_bits) +
           " Q_BITS=" + std::to_string(P::q_bits) + " (" +
           std::to_string(reciprocal_table::iterative_divider_cycles(P::q_bits)) + " cycles a division)";
  }
  void trace(VerilatedVcdC* vcd) override { rtl_->trace(vcd); }

 private:
  // The golden model: exact division.
  static result exact(const division& d) {
    result r;
    r.valid = true;
    if (d.n == 0) {
      r.refused = true;
      return r;
    }
    const u128 q = u128(d.x) / d.n;
    if (q > q_max) {
      r.overflow = true;
      r.quotient = q_max;
      return r;
    }
    r.quotient = uint64_t(q);
    r.remainder = d.x % d.n;
    return r;
  }

  division next_division() {
    if (!directed_.empty()) {
      const division d = directed_.front();
      directed_.pop_front();
      return d;
    }
    division d{true, 0, 0};
    const unsigned xb = unsigned(rng_->below(P::x_bits + 1)), nb = unsigned(rng_->below(P::n_bits + 1));
    d.x = xb == 0 ? 0 : rng_->next() >> (64 - xb);
    d.n = nb == 0 ? 0 : rng_->next() >> (64 - nb);
    if (rng_->below(8) == 0 && d.n > 0) {   // a quotient at the edge of Q_BITS
      const u128 x = u128(q_max) * d.n + rng_->below(2 * d.n) - (rng_->below(2) ? d.n : 0);
      d.x = x > x_max ? x_max : uint64_t(x);
    }
    if (rng_->below(64) == 0) d.n = 0;
    return d;
  }

  void make_directed() {
    auto div = [&](u128 x, uint64_t n) { directed_.push_back({true, x > x_max ? x_max : uint64_t(x), n}); };
    for (u128 x : {u128(0), u128(1), u128(x_max), u128(q_max), u128(q_max) + 1}) div(x, 1);
    for (uint64_t n : {uint64_t(1), uint64_t(2), uint64_t(3), uint64_t(7), n_max - 1, n_max}) {
      for (u128 x : {u128(0), u128(n) - 1, u128(n), u128(n) + 1, u128(n) * 2, u128(q_max) * n - 1, u128(q_max) * n,
                     u128(q_max) * n + n - 1, u128(q_max) * n + n, u128(x_max)})
        div(x, n);
    }
    for (unsigned e = 0; e < P::n_bits; ++e)
      for (unsigned f = 0; f < P::x_bits; f += 7) div(u128(1) << f, uint64_t(1) << e);
    div(x_max, 0);
    div(0, 0);
    div(12345, n_max);
  }

  std::unique_ptr<dut<V>> rtl_;
  std::unique_ptr<stimulus_rng> rng_;
  std::deque<division> directed_;
  uint32_t cycles_ = 0;     // reciprocal_table::iterative_divider_cycles(Q_BITS)
  uint32_t busy_ = 0;       // cycles until the pending result, counting this one
  unsigned gap_ = 0;
  result pending_;
};

}  // namespace

std::unique_ptr<bench> make_iterative_divider_bench() {
  return std::make_unique<iterative_divider_bench<Viterative_divider, hpcc_widths>>();
}
std::unique_ptr<bench> make_iterative_divider_set2_bench() {
  return std::make_unique<iterative_divider_bench<Viterative_divider_set2, set2_widths>>();
}

}  // namespace netasic::cosim
