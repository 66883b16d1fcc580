#include "nic/cc/dctcp.h"

#include <algorithm>
#include <stdexcept>

namespace netasic {

dctcp::dctcp(const dctcp_config& cfg) : cfg_(cfg) {
  if (cfg_.line_rate_bps == 0 || cfg_.base_rtt_ps == 0 || cfg_.mss_bytes == 0)
    throw std::invalid_argument("dctcp: line rate, base RTT and MSS must be positive");
  bdp_ = mul_div(cfg_.line_rate_bps, cfg_.base_rtt_ps, ps_bits_per_byte);
  min_cwnd_ = cfg_.min_cwnd_bytes ? cfg_.min_cwnd_bytes : cfg_.mss_bytes;
  max_cwnd_ = std::max(min_cwnd_, cfg_.max_cwnd_bytes ? cfg_.max_cwnd_bytes : bdp_);
  cwnd_ = std::clamp(cfg_.init_cwnd_bytes ? cfg_.init_cwnd_bytes : bdp_, min_cwnd_, max_cwnd_);
}

void dctcp::on_ack(const cc_feedback& fb) {
  // 1. alpha over one window of data
  bool window_closed = false;
  acked_ += fb.newly_acked_bytes;
  if (fb.ecn_echo) marked_ += fb.newly_acked_bytes;
  if (!started_) {
    started_ = true;
    marker_ = fb.snd_nxt_bytes;
  } else if (fb.ack_bytes > marker_) {
    const double f = acked_ ? static_cast<double>(marked_) / static_cast<double>(acked_) : 0.0;
    alpha_ = (1 - cfg_.g) * alpha_ + cfg_.g * f;
    acked_ = marked_ = 0;
    marker_ = fb.snd_nxt_bytes;
    window_closed = true;
    ++windows_;
  }
  // 2-3. one cut per window of data
  if (in_cwr_ && fb.ack_bytes > high_seq_) in_cwr_ = false;
  if (fb.ecn_echo && !in_cwr_) {
    const auto cut = static_cast<uint64_t>(static_cast<double>(cwnd_) * (1 - alpha_ / 2));
    cwnd_ = std::max(min_cwnd_, cut);
    in_cwr_ = true;
    high_seq_ = fb.snd_nxt_bytes;
  }
  // 4. one MSS per window of data without a cut
  if (!in_cwr_ && window_closed) cwnd_ = std::min(max_cwnd_, cwnd_ + cfg_.mss_bytes);
}

uint64_t dctcp::rate_bps(uint64_t /*now_ps*/) {
  if (!cfg_.pace) return cfg_.line_rate_bps;
  return std::min(cfg_.line_rate_bps, mul_div(cwnd_, ps_bits_per_byte, cfg_.base_rtt_ps));
}

uint64_t dctcp::window_bytes() const { return cfg_.with_window ? cwnd_ : UINT64_MAX; }

}  // namespace netasic
