#include "nic/tcp/cubic.h"

#include <algorithm>
#include <cmath>

namespace netasic {

double cubic_window::w_cubic(double t) const { return c_ * std::pow(t - k_, 3) + w_max_; }

uint64_t cubic_window::on_congestion(uint64_t cwnd, uint64_t mss) {
  const double seg = double(cwnd) / double(mss);
  // Fast convergence (section 4.7): a flow whose window fell short of its last W_max yields.
  w_max_ = fast_convergence_ && seg < w_max_ ? seg * (1 + beta_) / 2 : seg;
  cwnd_prior_ = seg;
  epoch_start_ = never;
  grown_ = 0;
  return std::max(uint64_t(double(cwnd) * beta_), 2 * mss);
}

void cubic_window::start_epoch(double cwnd_seg, uint64_t now) {
  epoch_start_ = now;
  // Section 4.2: with no earlier reduction above the window (slow start ended it, or W_max is
  // below cwnd), the curve starts at its plateau: K = 0, W_max = cwnd.
  if (w_max_ <= cwnd_seg) {
    w_max_ = cwnd_seg;
    k_ = 0;
  } else {
    k_ = std::cbrt((w_max_ - cwnd_seg) / c_);
  }
  w_est_ = cwnd_seg;
  if (cwnd_prior_ == 0) cwnd_prior_ = cwnd_seg;
}

uint64_t cubic_window::on_ack(uint64_t cwnd, uint64_t acked, uint64_t mss, uint64_t srtt, uint64_t now) {
  const double seg = double(cwnd) / double(mss), acked_seg = double(acked) / double(mss);
  if (epoch_start_ == never) start_epoch(seg, now);
  const double t = double(now - epoch_start_) * 1e-12;
  // Reno-friendly estimate (section 4.3); alpha goes to 1 once it passes the old window.
  w_est_ += (w_est_ >= cwnd_prior_ ? 1.0 : alpha()) * acked_seg / seg;
  double next;
  if (w_cubic(t) < w_est_) {
    next = w_est_;
  } else {
    const double target = std::clamp(w_cubic(t + double(srtt) * 1e-12), seg, 1.5 * seg);
    next = seg + (target - seg) / seg * acked_seg;
  }
  grown_ += std::max(0.0, next - seg) * double(mss);
  const uint64_t whole = uint64_t(grown_);
  grown_ -= double(whole);
  return cwnd + whole;
}

}  // namespace netasic
