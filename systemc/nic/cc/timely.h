// TIMELY (Mittal et al., SIGCOMM 2015), RTT-gradient rate control, one object per queue pair
// (core, no SystemC). It runs Algorithm 1 of the paper once per window of data, as HPCC's ns-3
// does (rdma-hw.cc HandleAckTimely). The paper runs it once per "completion event" of
// 16-64 KB. The first measured ACK only records prev_rtt and sets marker = snd_nxt. After
// that, the first ACK with ack > marker is an update and sets marker = snd_nxt again; the ACKs
// between are ignored, as are ACKs without an RTT sample (rtt_ps == 0). An update does:
//   new_rtt_diff = new_rtt - prev_rtt;  prev_rtt = new_rtt
//   rtt_diff = (1 - alpha)·rtt_diff + alpha·new_rtt_diff
//   gradient = rtt_diff / min_rtt
//   new_rtt < T_low          rate += delta
//   new_rtt > T_high         rate ·= 1 - beta·(1 - T_high/new_rtt)
//   gradient <= 0            rate += N·delta: N = hai_n once the hai_after updates before this
//                            one all had gradient <= 0 (HAI), else N = 1
//   otherwise                rate ·= max(0, 1 - beta·gradient)
// The rate stays in [min_rate, line_rate]; a cut rounds down to whole bps.
#pragma once
#include <cstdint>

#include "nic/cc/congestion_control.h"

namespace netasic {

// Defaults are HPCC's simulation settings (run.py "timely" and the rdma-hw.cc attribute
// defaults). delta left at 0 scales with the line rate as run.py does. See
// docs/datasheets/cc_baselines.md.
struct timely_config {
  uint64_t line_rate_bps = 100'000'000'000;
  uint64_t base_rtt_ps = 13'000'000;        // T for "+win": HPCC's simulated 13 us
  bool with_window = false;                 // "+win": window = rate × base_rtt
  uint32_t mtu_bytes = 1000;                // floor of the +win window
  double alpha = 0.875;                     // TimelyAlpha
  double beta = 0.8;                        // TimelyBeta
  uint64_t t_low_ps = 50'000'000;           // TimelyTLow 50 us
  uint64_t t_high_ps = 500'000'000;         // TimelyTHigh 500 us
  uint64_t min_rtt_ps = 20'000'000;         // TimelyMinRtt 20 us (gradient normaliser)
  uint64_t delta_bps = 0;                   // delta; 0 = run.py RATE_AI 10 Mb/s × Bw/10G
  uint32_t hai_n = 5;                       // N in HAI (run.py RATE_HAI = 5 × RATE_AI)
  uint32_t hai_after = 5;                   // consecutive gradient <= 0 updates before HAI
  uint64_t min_rate_bps = 1'000'000'000;    // run.py MIN_RATE 1000Mb/s
  uint32_t update_cycles = 6;               // assumed; see the datasheet
};

class timely final : public congestion_control {
 public:
  explicit timely(const timely_config& cfg = {});

  const char* name() const override { return cfg_.with_window ? "timely+win" : "timely"; }
  void on_ack(const cc_feedback& fb) override;
  uint64_t rate_bps(uint64_t /*now_ps*/) override { return rate_; }
  uint64_t window_bytes() const override;
  uint32_t update_cycles() const override { return cfg_.update_cycles; }

  uint64_t rate() const { return rate_; }
  const timely_config& config() const { return cfg_; }   // with delta resolved
  double rtt_diff() const { return rtt_diff_; }
  uint64_t prev_rtt() const { return prev_rtt_; }
  uint32_t neg_gradient_count() const { return neg_count_; }
  uint64_t updates() const { return updates_; }

 private:
  timely_config cfg_;
  uint64_t rate_;
  double rtt_diff_ = 0.0;
  uint64_t prev_rtt_ = 0;
  bool started_ = false;
  uint64_t marker_ = 0;
  uint32_t neg_count_ = 0;        // consecutive updates with gradient <= 0
  uint64_t updates_ = 0;
};

}  // namespace netasic
