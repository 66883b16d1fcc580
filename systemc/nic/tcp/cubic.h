// CUBIC's window (core, no SystemC): RFC 9438, the growth of cwnd in congestion avoidance and
// its reduction on a congestion event, in segments and seconds as the RFC writes them.
// - W_cubic(t) = C (t - K)^3 + W_max, K = cbrt((W_max - cwnd_epoch) / C)           (section 4.2)
//   t runs from the start of the congestion-avoidance epoch (the first ACK after a reduction).
// - Each ACK moves cwnd toward target = W_cubic(t + RTT), held to [cwnd, 1.5 cwnd]:
//   cwnd += (target - cwnd) / cwnd per segment acknowledged                      (4.4, 4.5)
// - The Reno-friendly estimate W_est grows alpha_cubic per cwnd of segments acknowledged,
//   alpha_cubic = 3 (1 - beta) / (1 + beta), 1 once W_est reaches cwnd_prior; while
//   W_cubic(t) < W_est, cwnd = W_est                                                 (4.3)
// - A congestion event (third duplicate ACK, ECE, timeout): W_max = cwnd, or with fast
//   convergence cwnd (1 + beta) / 2 when cwnd fell short of the last W_max (4.7); ssthresh =
//   max(cwnd beta, 2 SMSS), beta = 0.7 (4.6; on cwnd as Linux and RFC 8312 do, the RFC also
//   allows FlightSize).
// Slow start, fast recovery and the timer stay the sender's (tcp_sender), as in Linux.
#pragma once
#include <cstdint>
#include <limits>

namespace netasic {

class cubic_window {
 public:
  static constexpr uint64_t never = std::numeric_limits<uint64_t>::max();
  cubic_window(double beta, double c, bool fast_convergence = true)
      : beta_(beta), c_(c), fast_convergence_(fast_convergence) {}

  // A congestion event at `cwnd` bytes: returns the new ssthresh in bytes. The next ACK in
  // congestion avoidance starts a new epoch.
  uint64_t on_congestion(uint64_t cwnd, uint64_t mss);
  // One ACK of `acked` bytes in congestion avoidance at time `now` (ps) with the smoothed RTT
  // `srtt` (ps): returns the new cwnd in bytes.
  uint64_t on_ack(uint64_t cwnd, uint64_t acked, uint64_t mss, uint64_t srtt, uint64_t now);

  double w_max() const { return w_max_; }       // segments
  double k() const { return k_; }               // seconds
  double w_est() const { return w_est_; }       // segments
  double w_cubic(double t) const;               // segments at t seconds into the epoch
  double alpha() const { return 3 * (1 - beta_) / (1 + beta_); }

 private:
  void start_epoch(double cwnd_seg, uint64_t now);

  double beta_, c_;
  bool fast_convergence_;
  double w_max_ = 0, k_ = 0, w_est_ = 0, cwnd_prior_ = 0;
  double grown_ = 0;               // bytes of growth not yet a whole byte of cwnd
  uint64_t epoch_start_ = never;   // ps; never = the next ACK starts an epoch
};

}  // namespace netasic
