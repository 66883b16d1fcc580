// DCTCP (Alizadeh et al., SIGCOMM 2010) as HPCC's evaluation ran it, one object per queue pair
// (core, no SystemC). It is window-based and has no slow start: cwnd starts at the BDP
// (line rate × base RTT).
//
// Per ACK, in the order HPCC's ns-3 uses (rdma-hw.cc HandleAckDctcp):
//  1. Alpha, once per window of data. The first ACK sets marker = snd_nxt. Each later ACK
//     counts its newly acknowledged bytes, and the marked ones if it echoes CE. When
//     ack > marker, F = marked/acked over that window and alpha = (1-g)·alpha + g·F; the
//     counts clear and marker = snd_nxt.
//  2. CWR ends once ack > high_seq.
//  3. An ECN echo outside CWR gives cwnd = cwnd·(1 - alpha/2) and enters CWR with
//     high_seq = snd_nxt, so there is at most one cut per window.
//  4. A window that closes outside CWR gives cwnd += one MSS (additive increase per RTT).
// cwnd is held in [min_cwnd, max_cwnd]. The pacing rate is cwnd / base RTT, as in HPCC's ns-3.
// That simulator keeps DCTCP as a rate plus a window of BDP × rate / line rate (VAR_WIN), which
// is the same control law.
#pragma once
#include <cstdint>

#include "nic/cc/congestion_control.h"

namespace netasic {

// Defaults are run.py's "dctcp" case at HPCC's 100 Gbps; see docs/datasheets/cc_baselines.md.
struct dctcp_config {
  uint64_t line_rate_bps = 100'000'000'000;
  uint64_t base_rtt_ps = 13'000'000;   // run.py: DCTCP_RATE_AI "calculated from RTT=13us"
  bool with_window = true;             // false: rate only (ns-3 with HAS_WIN 0)
  bool pace = true;                    // false: send at line rate, window only
  uint32_t mss_bytes = 1000;           // run.py PACKET_PAYLOAD_SIZE
  double g = 1.0 / 16;                 // run.py EWMA_GAIN 0.0625 for dctcp
  uint64_t init_cwnd_bytes = 0;        // 0 = BDP (no slow start)
  uint64_t max_cwnd_bytes = 0;         // 0 = BDP (ns-3 caps the rate at line rate)
  uint64_t min_cwnd_bytes = 0;         // 0 = one MSS
  uint32_t update_cycles = 4;          // assumed; see the datasheet
};

class dctcp final : public congestion_control {
 public:
  explicit dctcp(const dctcp_config& cfg = {});

  const char* name() const override { return "dctcp"; }
  void on_ack(const cc_feedback& fb) override;
  uint64_t rate_bps(uint64_t now_ps) override;
  uint64_t window_bytes() const override;
  uint32_t update_cycles() const override { return cfg_.update_cycles; }

  uint64_t cwnd() const { return cwnd_; }
  double alpha() const { return alpha_; }
  bool in_cwr() const { return in_cwr_; }
  uint64_t marker() const { return marker_; }
  uint64_t windows_closed() const { return windows_; }
  uint64_t bdp_bytes() const { return bdp_; }
  uint64_t min_cwnd() const { return min_cwnd_; }
  uint64_t max_cwnd() const { return max_cwnd_; }

 private:
  dctcp_config cfg_;
  uint64_t bdp_, min_cwnd_, max_cwnd_;
  uint64_t cwnd_;
  double alpha_ = 1.0;            // as ns-3 and Linux start it
  bool started_ = false;          // the first ACK has set the marker
  uint64_t marker_ = 0;
  uint64_t acked_ = 0, marked_ = 0;   // bytes in the current window
  bool in_cwr_ = false;
  uint64_t high_seq_ = 0;
  uint64_t windows_ = 0;
};

}  // namespace netasic
