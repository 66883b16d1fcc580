// HPCC's congestion-control module (core, no SystemC): Algorithm 1 of Li et al., SIGCOMM'19
// (thesis §2.3.2, L690-744), in fixed point, one object per flow. Names follow the paper.
//
//   MeasureInflight(ack)                    -> measure_inflight()
//     per hop i: txRate = dTxBytes / dTS, u' = min(qlen, L.qlen) / (B T) + txRate / B
//     u = max_i u', tau = dTS of that hop, tau = min(tau, T), U = (1 - tau/T) U + (tau/T) u
//   ComputeWind(U, updateWc)                -> compute_wind()
//     U >= eta or incStage >= maxStage:  W = Wc / (U/eta) + W_AI = Wc * eta / U + W_AI
//                                        updateWc: incStage = 0, Wc = W
//     else:                              W = Wc + W_AI;  updateWc: incStage++, Wc = W
//   NewAck(ack)                             -> on_ack()
//     ack.seq > lastUpdateSeq: ComputeWind(.., true), lastUpdateSeq = snd_nxt; else (.., false)
//     R = W / T; L = ack.L
//
// Fixed point. W, Wc, W_AI, W_init, lastUpdateSeq: bytes (integers). U, u', eta: unsigned,
// u_frac_bits fraction bits (U_fx = round(U * 2^F)). Each u' term and the EWMA are exact
// integer quotients rounded to nearest. The division by U is through the shared
// reciprocal_table (n = U_fx) or exact (128-bit integer division); the quotient is truncated.
//
// What the paper leaves open, as modelled here (the datasheet docs/datasheets/hpcc.md lists them):
//  - INT wrap: dTS = (ts - L.ts) mod 2^24 ns, dTxBytes = ((tx - L.tx) mod 2^20) * 128 bytes.
//  - A hop whose dTS is 0 gives no rate; it is skipped. No usable hop: tau = 0, U unchanged.
//  - u starts from the first usable hop (not from 0), so an idle path (u' = 0) still has a tau
//    and U decays; ties keep the lowest hop index.
//  - B from the new record's speed code (1=10G .. 8=800G); code 0 or unknown: line_rate_bps.
//  - The first ACK, or a pathID or nHop change: the per-link records are replaced and nothing
//    else changes (the paper: the sender discards the flow's records and builds new ones).
//  - An ACK without INT (intx == null) changes nothing.
//  - U starts at 1.0 (HPCC's ns-3 code, hp.u = 1); W = Wc = W_init.
//  - U_fx < 1 (below one unit) is taken as 1 unit, counted in u_underflows(); with the table,
//    U_fx > 2^input_bits saturates to 2^input_bits, counted in u_saturations().
//  - W is clamped to [W_AI, W_init] before Wc takes it, as HPCC's ns-3 clamps the rate to
//    [min_rate, line_rate]; so R = W/T <= line rate. Algorithm 1 already gives W >= W_AI, so
//    the lower clamp only catches truncation.
#pragma once
#include <array>
#include <cstdint>
#include <memory>

#include "blocks/reciprocal_table.h"
#include "nic/cc/congestion_control.h"
#include "protocol/headers.h"

namespace netasic {

struct hpcc_config {
  uint64_t line_rate_bps = 100'000'000'000;   // B_NIC: W_init = B_NIC * T
  uint64_t base_rtt_ps = 13'000'000;          // T (13 us, HPCC's simulations; 9 us on the testbed)
  double eta = 0.95;                          // target utilisation, in (0, 1]
  uint32_t max_stage = 0;                     // AI stages before MI (0 in simulation, 5 in hardware)
  uint64_t w_ai_bytes = 80;                   // W_AI (80 B: 100 flows at 100G)
  unsigned u_frac_bits = 16;                  // F, fraction bits of U, u', eta; in [1, 24]
  enum class divider { table, exact } division = divider::table;
  reciprocal_table_config table;              // the table the NIC builds; must match the one passed
  uint32_t base_cycles = 8;                   // CC cycles per ACK besides the division (assumption)
};

class hpcc : public congestion_control {
 public:
  // W and Wc are 32-bit registers: the exact divider produces a 32-bit quotient.
  static constexpr unsigned window_bits = 32;

  // `table` is owned by the NIC and shared by every flow; it may be null with divider::exact.
  // Throws std::invalid_argument on a bad config, a missing table, or a table built from a
  // config other than cfg.table.
  hpcc(const hpcc_config& cfg, const reciprocal_table* table);

  const char* name() const override { return "hpcc"; }
  void on_ack(const cc_feedback& fb) override;
  uint64_t rate_bps(uint64_t now_ps) override;                 // R = W * 8 / T
  uint64_t window_bytes() const override { return w_; }
  uint32_t update_cycles() const override;

  // State, for tests and statistics.
  uint64_t window() const { return w_; }
  uint64_t reference_window() const { return wc_; }
  double utilization() const;                                  // U as a real number
  uint64_t utilization_fixed() const { return u_; }            // U * 2^F
  uint32_t inc_stage() const { return inc_stage_; }
  uint64_t last_update_seq() const { return last_update_seq_; }
  uint64_t u_saturations() const { return u_saturations_; }
  uint64_t u_underflows() const { return u_underflows_; }
  uint64_t w_init() const { return w_init_; }
  uint64_t eta_fixed() const { return eta_fx_; }               // round(eta * 2^F)
  const hpcc_config& config() const { return cfg_; }

  // INT's 4-bit speed code: 1 = 10G, 2 = 25G, 3 = 40G, 4 = 50G, 5 = 100G, 6 = 200G, 7 = 400G,
  // 8 = 800G; anything else returns `fallback_bps`.
  static uint64_t speed_bps(unsigned code, uint64_t fallback_bps);

 private:
  void measure_inflight(const int_stack& s);
  void compute_wind(bool update_wc);

  hpcc_config cfg_;
  const reciprocal_table* table_;
  std::shared_ptr<const reciprocal_table_if> divider_;   // the table, or its RTL (--rtl reciprocal_table)
  uint64_t w_init_, eta_fx_, one_;

  uint64_t w_, wc_;              // W, Wc (bytes)
  uint64_t u_;                   // U * 2^F
  uint32_t inc_stage_ = 0;
  uint64_t last_update_seq_ = 0;
  bool have_records_ = false;    // L holds a previous ACK's records
  uint16_t path_id_ = 0;
  unsigned n_hop_ = 0;
  std::array<int_hop, int_stack::max_hops> last_{};   // L[i]
  uint64_t u_saturations_ = 0, u_underflows_ = 0;
};

}  // namespace netasic
