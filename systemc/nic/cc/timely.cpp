#include "nic/cc/timely.h"

#include <algorithm>
#include <stdexcept>

namespace netasic {

timely::timely(const timely_config& cfg) : cfg_(cfg), rate_(cfg.line_rate_bps) {
  if (cfg_.min_rtt_ps == 0 || cfg_.line_rate_bps == 0 || cfg_.min_rate_bps > cfg_.line_rate_bps)
    throw std::invalid_argument("timely: need min_rtt > 0 and 0 < min_rate <= line_rate");
  if (cfg_.delta_bps == 0) cfg_.delta_bps = mul_div(10'000'000, cfg_.line_rate_bps, 10'000'000'000);
}

void timely::on_ack(const cc_feedback& fb) {
  if (fb.rtt_ps == 0) return;   // no sample
  const uint64_t new_rtt = fb.rtt_ps;
  if (!started_) {
    started_ = true;
    prev_rtt_ = new_rtt;
    marker_ = fb.snd_nxt_bytes;
    return;
  }
  if (fb.ack_bytes <= marker_) return;   // not yet a full window since the last update
  marker_ = fb.snd_nxt_bytes;
  ++updates_;

  const auto new_rtt_diff = static_cast<double>(static_cast<int64_t>(new_rtt - prev_rtt_));
  prev_rtt_ = new_rtt;
  rtt_diff_ = (1 - cfg_.alpha) * rtt_diff_ + cfg_.alpha * new_rtt_diff;
  const double gradient = rtt_diff_ / static_cast<double>(cfg_.min_rtt_ps);
  const bool hai = neg_count_ >= cfg_.hai_after;
  neg_count_ = gradient <= 0 ? neg_count_ + 1 : 0;

  auto add = [&](uint64_t step) { rate_ = std::min(cfg_.line_rate_bps, rate_ + step); };
  auto scale = [&](double c) {
    rate_ = std::max(cfg_.min_rate_bps, static_cast<uint64_t>(static_cast<double>(rate_) * c));
  };
  if (new_rtt < cfg_.t_low_ps) {
    add(cfg_.delta_bps);
  } else if (new_rtt > cfg_.t_high_ps) {
    scale(1 - cfg_.beta * (1 - static_cast<double>(cfg_.t_high_ps) / static_cast<double>(new_rtt)));
  } else if (gradient <= 0) {
    add(hai ? uint64_t{cfg_.hai_n} * cfg_.delta_bps : cfg_.delta_bps);
  } else {
    scale(std::max(0.0, 1 - cfg_.beta * gradient));
  }
}

uint64_t timely::window_bytes() const {
  if (!cfg_.with_window) return UINT64_MAX;
  return std::max<uint64_t>(cfg_.mtu_bytes, mul_div(rate_, cfg_.base_rtt_ps, ps_bits_per_byte));
}

}  // namespace netasic
