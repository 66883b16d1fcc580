// CUBIC's window (RFC 9438) against the RFC's closed forms, computed here on their own:
//  - after a loss at W_max = 100 segments: ssthresh = 0.7 W_max, K = cbrt(0.3 W_max / C);
//  - on a 100 ms ACK clock cwnd follows W_cubic(t) = C (t - K)^3 + W_max round by round (or the
//    Reno-friendly line where that is higher), concave below W_max and convex above it, reaching
//    130 segments at t = 2K;
//  - on a 100 us ACK clock the curve is flat and the Reno-friendly line 3 (1 - beta)/(1 + beta)
//    per RTT sets the growth instead;
//  - fast convergence, the 2-segment floor of ssthresh and the 1.5 cwnd cap per RTT;
//  - in the sender: the third duplicate ACK keeps 0.7 cwnd where NewReno keeps FlightSize / 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "nic/tcp/cubic.h"
#include "nic/tcp/tcp_sender.h"

using namespace netasic;

namespace {

constexpr uint64_t mss = 1000;
constexpr uint64_t s_ps = 1'000'000'000'000ull;

// One round of a steady ACK clock: cwnd segments acknowledged one by one, then one RTT passes.
uint64_t round_trip(cubic_window& w, uint64_t cwnd, uint64_t rtt, uint64_t& now) {
  const uint64_t acks = cwnd / mss;
  for (uint64_t i = 0; i < acks; ++i) cwnd = w.on_ack(cwnd, mss, mss, rtt, now);
  now += rtt;
  return cwnd;
}

TEST(Cubic, LossSetsSsthreshAndK) {
  cubic_window w(0.7, 0.4);
  EXPECT_EQ(w.on_congestion(100 * mss, mss), 70 * mss);
  EXPECT_DOUBLE_EQ(w.w_max(), 100.0);
  w.on_ack(70 * mss, mss, mss, 0, 0);   // the first ACK in congestion avoidance starts the epoch
  EXPECT_NEAR(w.k(), 4.2171633265087, 1e-12);   // cbrt(30 / 0.4) = cbrt(75)
}

TEST(Cubic, FollowsTheCurveConcaveThenConvex) {
  cubic_window w(0.7, 0.4);
  uint64_t cwnd = w.on_congestion(100 * mss, mss), now = 0;
  const uint64_t rtt = 100'000'000'000ull;   // 100 ms
  const double K = std::cbrt(0.3 * 100 / 0.4);
  std::vector<double> seen;
  for (int n = 0; n * 0.1 <= 2 * K + 1e-9; ++n) {
    const double t = n * 0.1;
    // The larger of the curve and the Reno-friendly line: alpha per round from 70 segments up
    // to the old window of 100, one per round after it.
    const double alpha = 3 * (1 - 0.7) / (1 + 0.7), n_prior = 30 / alpha;
    const double reno = n <= n_prior ? 70 + alpha * n : 100 + (n - n_prior);
    const double curve = std::max(0.4 * std::pow(t - K, 3) + 100, reno);
    ASSERT_NEAR(double(cwnd) / mss, curve, 2.5) << "t = " << t << " s";
    seen.push_back(double(cwnd) / mss);
    cwnd = round_trip(w, cwnd, rtt, now);
  }
  EXPECT_NEAR(seen.back(), 130.0, 2.5);   // W_max + C K^3 at t = 2K
  // Growth per round shrinks toward W_max and grows past it.
  const size_t k_round = size_t(K / 0.1);
  EXPECT_GT(seen[2] - seen[1], seen[k_round - 1] - seen[k_round - 2]);
  EXPECT_LT(seen[k_round + 2] - seen[k_round + 1], seen.back() - seen[seen.size() - 2]);
}

TEST(Cubic, RenoFriendlyLineSetsGrowthAtShortRtt) {
  cubic_window w(0.7, 0.4);
  uint64_t cwnd = w.on_congestion(100 * mss, mss), now = 0;
  const uint64_t rtt = 100'000'000;   // 100 us: W_cubic stays near 70 segments for 4 ms
  const double alpha = 3 * (1 - 0.7) / (1 + 0.7);
  for (int n = 1; n <= 40; ++n) {
    cwnd = round_trip(w, cwnd, rtt, now);
    // W_est adds alpha per cwnd of segments acknowledged; the whole bytes lag it by < 1 segment.
    ASSERT_NEAR(double(cwnd) / mss, 70 + alpha * n, 1.0) << "round " << n;
  }
  EXPECT_LT(w.w_cubic(double(now) / s_ps), w.w_est());
}

TEST(Cubic, FastConvergenceYieldsBelowTheLastWmax) {
  cubic_window fc(0.7, 0.4), plain(0.7, 0.4, false);
  for (cubic_window* w : {&fc, &plain}) {
    w->on_congestion(100 * mss, mss);
    w->on_congestion(90 * mss, mss);
  }
  EXPECT_DOUBLE_EQ(fc.w_max(), 90 * (1 + 0.7) / 2);
  EXPECT_DOUBLE_EQ(plain.w_max(), 90.0);
}

TEST(Cubic, SsthreshNeverBelowTwoSegments) {
  cubic_window w(0.7, 0.4);
  EXPECT_EQ(w.on_congestion(2 * mss, mss), 2 * mss);   // 1.4 segments would be below the floor
  EXPECT_EQ(w.on_congestion(3 * mss, mss), 2100u);
}

TEST(Cubic, GrowthPerRttCappedAtHalfTheWindow) {
  cubic_window w(0.7, 10);   // a steep curve: the target is far above 1.5 cwnd
  w.on_congestion(100 * mss, mss);
  uint64_t now = 0, cwnd = 70 * mss;
  w.on_ack(cwnd, 0, mss, 0, now);    // start the epoch
  now = 10 * s_ps;                   // far past K: W_cubic(t) is huge
  const uint64_t before = cwnd;
  cwnd = round_trip(w, cwnd, 100'000'000'000ull, now);
  EXPECT_LE(cwnd, before * 3 / 2);
  EXPECT_GT(cwnd, before * 13 / 10);   // yet it grows by more than Reno's one segment
}

// The sender: ten segments out, segment 0 lost, three duplicate ACKs.
uint64_t ssthresh_after_fast_retransmit(tcp_cc cc) {
  tcp_config c;
  c.mss_bytes = mss;
  c.cc = cc;
  c.init_cwnd_segments = 20;
  tcp_sender s(c, 100 * mss);
  for (int i = 0; i < 10; ++i) s.next_segment(0);   // FlightSize 10 segments, cwnd 20
  for (int d = 0; d < 3; ++d) s.on_ack(0, false, 1 << 30, 1);
  EXPECT_TRUE(s.in_recovery());
  return s.ssthresh();
}

TEST(Cubic, SenderKeepsSevenTenthsOfCwndWhereNewRenoHalvesFlight) {
  EXPECT_EQ(ssthresh_after_fast_retransmit(tcp_cc::cubic), 14 * mss);    // 0.7 x 20 segments
  EXPECT_EQ(ssthresh_after_fast_retransmit(tcp_cc::newreno), 5 * mss);   // control: 10 / 2
}

}  // namespace
