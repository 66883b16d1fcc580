#include "nic/cc/hpcc.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "blocks/rtl_loop.h"

namespace netasic {
namespace {
__extension__ typedef unsigned __int128 u128;

constexpr uint64_t ps_per_s = 1'000'000'000'000ull;
constexpr uint32_t ts_mask = (1u << 24) - 1;   // INT TS: 24 bits of ns
constexpr uint32_t tx_mask = (1u << 20) - 1;   // INT txBytes: 20 bits of 128-byte units

// Nearest integer to num / den (halves up); den > 0.
u128 div_round(u128 num, u128 den) { return (num + den / 2) / den; }

void fail(const std::string& what) { throw std::invalid_argument("hpcc: " + what); }
}  // namespace

uint64_t hpcc::speed_bps(unsigned code, uint64_t fallback_bps) {
  constexpr uint64_t g = 1'000'000'000ull;
  constexpr uint64_t rates[] = {10 * g, 25 * g, 40 * g, 50 * g, 100 * g, 200 * g, 400 * g, 800 * g};
  return code >= 1 && code <= 8 ? rates[code - 1] : fallback_bps;
}

hpcc::hpcc(const hpcc_config& cfg, const reciprocal_table* table) : cfg_(cfg), table_(table) {
  if (cfg.line_rate_bps == 0) fail("line_rate_bps must be > 0");
  if (cfg.base_rtt_ps == 0) fail("base_rtt_ps must be > 0");
  if (!(cfg.eta > 0.0 && cfg.eta <= 1.0)) fail("eta must be in (0, 1], got " + std::to_string(cfg.eta));
  if (cfg.w_ai_bytes == 0) fail("w_ai_bytes must be > 0");
  // F <= 24 keeps Wc * eta_fx (< 2^32 * 2^24) inside 64 bits.
  if (cfg.u_frac_bits < 1 || cfg.u_frac_bits > 24)
    fail("u_frac_bits must be in [1, 24], got " + std::to_string(cfg.u_frac_bits));
  if (cfg.division != hpcc_config::divider::table && cfg.division != hpcc_config::divider::exact)
    fail("division out of range");
  if (cfg.division == hpcc_config::divider::table) {
    if (!table) fail("division = table needs a reciprocal_table (got null)");
    divider_ = reciprocal_table_unit(*table);
    const reciprocal_table_config& t = table->config();
    if (t.epsilon != cfg.table.epsilon || t.input_bits != cfg.table.input_bits ||
        t.mantissa_bits != cfg.table.mantissa_bits || t.lookup_cycles != cfg.table.lookup_cycles)
      fail("the reciprocal_table passed was not built from cfg.table");
  }
  const u128 w_init = u128(cfg.line_rate_bps) * cfg.base_rtt_ps / (8 * ps_per_s);
  if (w_init < cfg.w_ai_bytes)
    fail("W_init = line_rate_bps * base_rtt_ps / 8e12 = " + std::to_string(uint64_t(w_init)) +
         " bytes is below w_ai_bytes");
  if (w_init >> window_bits) fail("W_init does not fit the 32-bit window register");
  w_init_ = uint64_t(w_init);
  one_ = uint64_t(1) << cfg.u_frac_bits;
  eta_fx_ = uint64_t(std::llround(cfg.eta * double(one_)));
  if (eta_fx_ == 0) fail("eta rounds to 0 with u_frac_bits = " + std::to_string(cfg.u_frac_bits));
  w_ = wc_ = w_init_;
  u_ = one_;   // ns-3's HPCC starts U at 1
}

double hpcc::utilization() const { return std::ldexp(double(u_), -int(cfg_.u_frac_bits)); }

uint32_t hpcc::update_cycles() const {
  const uint32_t division = cfg_.division == hpcc_config::divider::table
                                ? table_->lookup_cycles() + 1   // lookup, then one multiply
                                : reciprocal_table::iterative_divider_cycles(window_bits);
  return cfg_.base_cycles + division;
}

uint64_t hpcc::rate_bps(uint64_t /*now_ps*/) {
  return uint64_t(u128(w_) * 8 * ps_per_s / cfg_.base_rtt_ps);
}

void hpcc::measure_inflight(const int_stack& s) {
  const unsigned F = cfg_.u_frac_bits;
  const uint64_t T = cfg_.base_rtt_ps;
  const unsigned hops = std::min<unsigned>(s.n_hop, int_stack::max_hops);
  bool any = false;
  uint64_t u = 0, tau_ns = 0;
  for (unsigned i = 0; i < hops; ++i) {
    const int_hop& a = s.hop[i];
    const int_hop& l = last_[i];
    const uint64_t d_ts = (uint32_t(a.ts) - uint32_t(l.ts)) & ts_mask;   // ns
    if (d_ts == 0) continue;   // no time between the records: no rate to measure
    const uint64_t d_tx = uint64_t((uint32_t(a.tx_bytes) - uint32_t(l.tx_bytes)) & tx_mask) * int_hop::tx_bytes_unit;
    const uint64_t qlen = uint64_t(std::min(a.qlen, l.qlen)) * int_hop::qlen_unit;
    const uint64_t B = speed_bps(a.b, cfg_.line_rate_bps);
    // qlen / (B T): bytes over bytes-per-RTT; txRate / B = d_tx * 8 / (d_ts * 1e-9) / B.
    const uint64_t q_term = uint64_t(div_round((u128(qlen) * 8 * ps_per_s) << F, u128(B) * T));
    const uint64_t r_term = uint64_t(div_round((u128(d_tx) * 8'000'000'000ull) << F, u128(d_ts) * B));
    const uint64_t u_hop = q_term + r_term;
    if (!any || u_hop > u) {   // the first usable hop seeds the max, so tau is always defined
      u = u_hop;
      tau_ns = d_ts;
      any = true;
    }
  }
  if (!any) return;   // tau = 0: the EWMA leaves U as it is
  const uint64_t tau = std::min(tau_ns * 1000, T);   // ps
  u_ = uint64_t(div_round(u128(T - tau) * u_ + u128(tau) * u, T));
}

void hpcc::compute_wind(bool update_wc) {
  uint64_t w;
  if (u_ >= eta_fx_ || inc_stage_ >= cfg_.max_stage) {
    // Wc / (U / eta) = Wc * eta_fx / U_fx: the 2^F scales cancel.
    uint64_t n = u_;
    if (n == 0) { n = 1; ++u_underflows_; }   // U below one unit: Algorithm 1 would divide by 0
    const uint64_t x = wc_ * eta_fx_;
    uint64_t q;
    if (cfg_.division == hpcc_config::divider::table) {
      const uint64_t top = uint64_t(1) << table_->config().input_bits;
      if (n > top) { n = top; ++u_saturations_; }
      q = divider_->divide(x, n);
    } else {
      q = x / n;
    }
    // q <= Wc * eta_fx < 2^56, so the sum cannot wrap.
    w = std::clamp(q + cfg_.w_ai_bytes, cfg_.w_ai_bytes, w_init_);
    if (update_wc) { inc_stage_ = 0; wc_ = w; }
  } else {
    w = std::clamp(wc_ + cfg_.w_ai_bytes, cfg_.w_ai_bytes, w_init_);
    if (update_wc) { ++inc_stage_; wc_ = w; }
  }
  w_ = w;
}

void hpcc::on_ack(const cc_feedback& fb) {
  if (!fb.intx) return;   // no INT in this ACK: nothing to measure
  const int_stack& s = *fb.intx;
  const unsigned hops = std::min<unsigned>(s.n_hop, int_stack::max_hops);
  if (!have_records_ || s.path_id != path_id_ || s.n_hop != n_hop_) {
    // First records, or the path changed: the old per-link records describe other links.
    have_records_ = true;
    path_id_ = s.path_id;
    n_hop_ = s.n_hop;
    last_ = {};
    std::copy(s.hop, s.hop + hops, last_.begin());
    return;
  }
  measure_inflight(s);
  if (fb.ack_bytes > last_update_seq_) {
    compute_wind(true);
    last_update_seq_ = fb.snd_nxt_bytes;
  } else {
    compute_wind(false);
  }
  std::copy(s.hop, s.hop + hops, last_.begin());   // L = ack.L; R follows W in rate_bps()
}

}  // namespace netasic
