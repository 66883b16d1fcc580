// DCQCN (Zhu et al., SIGCOMM 2015), one object per queue pair (core, no SystemC): the reaction
// point (RP) that sets the flow's rate from CNPs, and the notification point (NP) that turns
// CE-marked arrivals into CNPs at the receiver.
//
// Two RP variants, because the paper and the simulator HPCC's evaluation ran disagree:
//  * mlx (default): "Mellanox's version of DCQCN" in HPCC's ns-3
//    (alibaba-edu/High-Precision-Congestion-Control, simulation/src/point-to-point/model/
//    rdma-hw.cc). A CNP only sets two flags. Every K the alpha timer does
//    alpha = (1-g)·alpha + g if a CNP came in that period, else (1-g)·alpha. Every T_d the
//    decrease timer cuts the rate if a CNP came since the last check. Both timers start at the
//    first CNP; the first check is T_d + 1 ns after it, as in ns-3. There is no byte counter.
//  * paper: the paper's §3.1. A CNP cuts the rate at once (at most one cut per T_d; a CNP inside
//    T_d only updates alpha), then alpha = (1-g)·alpha + g. K is restarted by every CNP and
//    decays alpha while no CNP comes. The byte counter is used.
// Common to both: a cut does RT = RC (see clamp_target_rate), RC = max(min_rate,
// RC·(1 - alpha/2)), and clears the increase stages and the byte count. Each T_i, and each B
// bytes sent after the first cut, is a rate-increase event. The event is judged on the stage
// counts before it (T timer events, BC byte events; with no byte counter BC is taken as T):
//   max(T, BC) <  F  fast recovery     RC = (RT + RC)/2
//   min(T, BC) >  F  hyper increase    RT += R_HAI, RC = (RT + RC)/2
//   otherwise        additive increase RT += R_AI,  RC = (RT + RC)/2
// Then its counter goes up by one. With no byte counter this is ns-3's rule: stage < F,
// == F, > F. RT is capped at line rate. The midpoint rounds up, so RC reaches RT exactly.
//
// Timers are lazy and exact. Every call that carries a time first applies each timer expiry
// up to and including that time, in time order. The state is then what an event-driven model
// would hold at that time. At equal times the order is: increase timer, alpha timer,
// decrease check, then the caller's event. Time never runs back: an earlier time counts as the
// last one seen.
#pragma once
#include <cstdint>

#include "nic/cc/congestion_control.h"

namespace netasic {

enum class dcqcn_variant { mlx, paper };

// Defaults are HPCC's simulation settings: run.py's "dcqcn" case, the NIC vendor's (T_i, T_d) =
// (300 us, 4 us). R_AI and R_HAI left at 0 scale with the line rate as run.py does, so a copy
// with only line_rate_bps changed stays HPCC's setting. Sources are in
// docs/datasheets/cc_baselines.md.
struct dcqcn_config {
  dcqcn_variant variant = dcqcn_variant::mlx;
  uint64_t line_rate_bps = 100'000'000'000;
  uint64_t base_rtt_ps = 13'000'000;                 // T for "+win": HPCC's simulated 13 us
  bool with_window = false;                          // "+win": window = RC × base_rtt
  uint32_t mtu_bytes = 1000;                         // floor of the +win window
  double g = 1.0 / 256;                              // run.py EWMA_GAIN 0.00390625
  uint64_t alpha_resume_interval_ps = 1'000'000;     // K: run.py ALPHA_RESUME_INTERVAL 1 us
  uint64_t rate_decrease_interval_ps = 4'000'000;    // T_d: run.py RATE_DECREASE_INTERVAL 4 us
  uint64_t rp_timer_ps = 300'000'000;                // T_i: run.py RP_TIMER 300 us
  uint64_t byte_counter_bytes = 0;                   // B; 0 = none (ns-3 has none)
  uint32_t fast_recovery_times = 1;                  // F: run.py FAST_RECOVERY_TIMES 1
  uint64_t rate_ai_bps = 0;                          // R_AI; 0 = run.py RATE_AI 5 Mb/s × Bw/25G
  uint64_t rate_hai_bps = 0;                         // R_HAI; 0 = run.py RATE_HAI 50 Mb/s × Bw/25G
  uint64_t min_rate_bps = 1'000'000'000;             // run.py MIN_RATE 1000Mb/s
  bool clamp_target_rate = false;                    // false: RT = RC only if an increase ran since the last cut
  double rate_on_first_cnp = 1.0;                    // mlx: RT = RC = this × RC on the first CNP
  uint32_t update_cycles = 4;                        // assumed; see the datasheet

  // The paper's RP: T_i = K = 55 us, T_d = 50 us (the NP's CNP interval), B = 10 MB, F = 5,
  // R_AI = 40 Mbps × Bw/40G, R_HAI = 10 × R_AI (ratio taken from run.py), RT = RC on every cut.
  // R_AI and R_HAI are set for this line rate; they do not follow a later change of it.
  static dcqcn_config paper(uint64_t line_rate_bps);
};

class dcqcn final : public congestion_control {
 public:
  // ns-3's first decrease check comes 1 ns after T_d "to make sure rate decrease is after alpha update".
  static constexpr uint64_t mlx_first_check_delay_ps = 1000;

  explicit dcqcn(const dcqcn_config& cfg = {});

  const char* name() const override;
  void on_ack(const cc_feedback& fb) override;   // catches up the timers only
  void on_cnp(uint64_t now_ps) override;
  void on_send(uint64_t now_ps, uint32_t bytes) override;
  uint64_t rate_bps(uint64_t now_ps) override;
  uint64_t window_bytes() const override;      // as of the last time given
  uint32_t update_cycles() const override { return cfg_.update_cycles; }

  // Applies every timer expiry up to now_ps. The accessors show the state at the last time given.
  void advance(uint64_t now_ps);
  uint64_t current_rate() const { return rc_; }
  uint64_t target_rate() const { return rt_; }
  double alpha() const { return alpha_; }
  uint64_t timer_stage() const { return t_; }
  uint64_t byte_stage() const { return bc_; }
  uint64_t byte_count() const { return bytes_; }   // bytes toward the next byte-counter event
  bool reacting() const { return active_; }        // a CNP has been seen
  const dcqcn_config& config() const { return cfg_; }   // with R_AI and R_HAI resolved

 private:
  void run_alpha(uint64_t until);
  void run_increase(uint64_t until);
  void cut(uint64_t at);
  void increase(bool from_timer);

  dcqcn_config cfg_;
  uint64_t rc_, rt_;
  double alpha_ = 1.0;
  uint64_t t_ = 0, bc_ = 0, bytes_ = 0;
  uint64_t now_ = 0;
  bool active_ = false;          // first CNP seen: alpha (and, mlx, decrease) timers run
  bool increasing_ = false;      // first cut done: T_i timer and byte counter run
  uint64_t next_alpha_ = 0, next_dec_ = 0, next_inc_ = 0;
  bool alpha_cnp_ = false, dec_cnp_ = false;   // mlx: a CNP came in the current period
  bool cut_once_ = false;                      // paper: T_d is measured from the last cut
  uint64_t last_cut_ = 0;
};

// Notification point, one per flow at the receiver: a CNP for a CE-marked arrival unless one
// went out less than the CNP interval ago. 0 sends one per marked packet, which is what HPCC's
// ns-3 does: the ACK of every marked packet carries the CNP flag (rdma-hw.cc ReceiveUdp). The
// RP's T_d check then rate-limits the cuts. The paper's NP uses 50 us.
class dcqcn_np {
 public:
  static constexpr uint64_t paper_cnp_interval_ps = 50'000'000;

  explicit dcqcn_np(uint64_t cnp_interval_ps = 0) : interval_(cnp_interval_ps) {}
  bool should_send_cnp(uint64_t now_ps, bool ce_marked);
  uint64_t cnps_sent() const { return sent_; }

 private:
  uint64_t interval_;
  uint64_t last_ = 0;
  uint64_t sent_ = 0;
};

}  // namespace netasic
