// DCTCP: alpha against the per-window formula over random mark patterns in a closed loop
// (the window drives the sender), plus the cut, CWR, additive increase, floor and cap.
// TIMELY: each branch of Algorithm 1, and a reference written from the paper's pseudocode
// compared over random RTT sequences with no tolerance. The reference does the same double
// operations in the same order, so it must agree to the bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <vector>

#include "common/rng.h"
#include "nic/cc/dctcp.h"
#include "nic/cc/timely.h"

using namespace netasic;

namespace {

constexpr uint64_t us = 1'000'000;   // ps

template <class T>
T pick(rng& r, std::initializer_list<T> v) { return v.begin()[r.below(v.size())]; }

cc_feedback ack(uint64_t ack_bytes, uint64_t snd_nxt, uint64_t newly, bool ecn, uint64_t rtt = 0) {
  cc_feedback fb;
  fb.ack_bytes = ack_bytes;
  fb.snd_nxt_bytes = snd_nxt;
  fb.newly_acked_bytes = newly;
  fb.ecn_echo = ecn;
  fb.rtt_ps = rtt;
  return fb;
}

// ---------------------------------------------------------------- DCTCP

struct ack_record {
  uint64_t ack, snd_nxt, newly;
  bool ecn;
  double alpha_after;
};

// Offline: split the ACKs into windows (a window ends at the first ACK beyond the snd_nxt seen
// when it began), then alpha_k = (1-g)·alpha_{k-1} + g·(marked bytes / acked bytes of window k).
std::vector<double> reference_alpha(const std::vector<ack_record>& acks, double g) {
  std::vector<size_t> ends;
  uint64_t marker = acks.empty() ? 0 : acks[0].snd_nxt;
  for (size_t i = 1; i < acks.size(); ++i)
    if (acks[i].ack > marker) {
      ends.push_back(i);
      marker = acks[i].snd_nxt;
    }
  std::vector<double> alpha_at(acks.size(), 1.0);
  double alpha = 1.0;
  size_t begin = 0, next_end = 0;
  for (size_t i = 0; i < acks.size(); ++i) {
    if (next_end < ends.size() && ends[next_end] == i) {
      uint64_t acked = 0, marked = 0;
      for (size_t j = begin; j <= i; ++j) {
        acked += acks[j].newly;
        if (acks[j].ecn) marked += acks[j].newly;
      }
      const double f = acked ? static_cast<double>(marked) / static_cast<double>(acked) : 0.0;
      alpha = (1 - g) * alpha + g * f;
      begin = i + 1;
      ++next_end;
    }
    alpha_at[i] = alpha;
  }
  return alpha_at;
}

}  // namespace

TEST(dctcp_cc, alpha_follows_the_per_window_formula) {
  for (uint64_t seed = 1; seed <= 1000; ++seed) {
    rng r(seed);
    dctcp_config c;
    c.line_rate_bps = pick<uint64_t>(r, {10'000'000'000, 100'000'000'000});
    c.base_rtt_ps = pick<uint64_t>(r, {5 * us, 13 * us});
    c.g = pick(r, {1.0 / 16, 1.0 / 4});
    dctcp cc(c);
    std::deque<uint64_t> inflight;   // end byte of each packet in flight
    uint64_t snd_nxt = 0, una = 0;
    double p = 0.2;
    std::vector<ack_record> trace;
    for (int step = 0; step < 400; ++step) {
      while (snd_nxt + c.mss_bytes - una <= cc.window_bytes()) inflight.push_back(snd_nxt += c.mss_bytes);
      if (r.below(30) == 0) p = pick(r, {0.0, 0.05, 0.5, 1.0});
      const size_t k = std::min<size_t>(inflight.size(), 1 + r.below(3));   // cumulative ACKs
      const uint64_t a = inflight[k - 1];
      inflight.erase(inflight.begin(), inflight.begin() + static_cast<long>(k));
      const bool ecn = r.uniform() < p;
      cc.on_ack(ack(a, snd_nxt, a - una, ecn));
      trace.push_back({a, snd_nxt, a - una, ecn, cc.alpha()});
      una = a;
      ASSERT_GE(cc.cwnd(), cc.min_cwnd());
      ASSERT_LE(cc.cwnd(), cc.max_cwnd());
    }
    const auto expect = reference_alpha(trace, c.g);
    for (size_t i = 0; i < trace.size(); ++i)
      ASSERT_EQ(trace[i].alpha_after, expect[i]) << "seed " << seed << " ack " << i;
  }
}

TEST(dctcp_cc, starts_at_bdp_and_line_rate) {
  dctcp cc;
  EXPECT_EQ(cc.bdp_bytes(), 162'500u);   // 100 Gbps × 13 us
  EXPECT_EQ(cc.cwnd(), 162'500u);
  EXPECT_EQ(cc.window_bytes(), 162'500u);
  EXPECT_EQ(cc.rate_bps(0), 100'000'000'000u);
  EXPECT_EQ(cc.alpha(), 1.0);
}

TEST(dctcp_cc, one_cut_per_window_then_additive_increase) {
  dctcp cc;
  cc.on_ack(ack(1000, 160'000, 1000, false));   // sets the marker at 160000
  cc.on_ack(ack(2000, 161'000, 1000, true));    // alpha = 1: cwnd halves, CWR until 161000
  EXPECT_EQ(cc.cwnd(), 81'250u);
  EXPECT_EQ(cc.rate_bps(0), 50'000'000'000u);   // paced at cwnd / base RTT
  EXPECT_TRUE(cc.in_cwr());
  cc.on_ack(ack(3000, 161'000, 1000, true));    // same window: no second cut
  cc.on_ack(ack(160'000, 161'000, 157'000, true));
  EXPECT_EQ(cc.cwnd(), 81'250u);
  EXPECT_EQ(cc.windows_closed(), 0u);           // ack must pass the marker, not reach it
  // The first window closes: F = 160000 marked of 161000 acked. Still in CWR (ack = high_seq).
  cc.on_ack(ack(161'000, 250'000, 1000, true));
  EXPECT_EQ(cc.windows_closed(), 1u);
  const double a = (1 - 1.0 / 16) * 1.0 + (1.0 / 16) * (160'000.0 / 161'000.0);
  EXPECT_EQ(cc.alpha(), a);
  EXPECT_EQ(cc.cwnd(), 81'250u);
  EXPECT_TRUE(cc.in_cwr());
  // Past high_seq, a new mark cuts again with the new alpha.
  cc.on_ack(ack(162'000, 250'000, 1000, true));
  EXPECT_EQ(cc.cwnd(), static_cast<uint64_t>(81'250.0 * (1 - a / 2)));
  const uint64_t after_cut = cc.cwnd();
  // An unmarked window outside CWR closes: one MSS more.
  cc.on_ack(ack(250'001, 300'000, 88'001, false));   // past high_seq 250000 and the marker
  EXPECT_FALSE(cc.in_cwr());
  EXPECT_EQ(cc.windows_closed(), 2u);
  EXPECT_EQ(cc.cwnd(), after_cut + 1000);
  cc.on_ack(ack(250'500, 300'000, 499, false));      // inside the window: nothing
  EXPECT_EQ(cc.cwnd(), after_cut + 1000);
  cc.on_ack(ack(300'001, 350'000, 49'501, false));
  EXPECT_EQ(cc.cwnd(), after_cut + 2000);
}

TEST(dctcp_cc, floor_and_cap) {
  dctcp_config c;
  c.g = 1.0;   // alpha = fraction of the last window
  dctcp cc(c);
  uint64_t seq = 0;
  auto next = [&](bool ecn) {   // each ACK passes the marker: a window per ACK
    seq += 1000;
    cc.on_ack(ack(seq, seq + 1, 1000, ecn));
  };
  next(false);
  for (int i = 0; i < 100; ++i) next(true);
  EXPECT_EQ(cc.cwnd(), c.mss_bytes);
  EXPECT_EQ(cc.rate_bps(0), 1000u * 8'000'000'000'000 / c.base_rtt_ps);
  for (int i = 0; i < 1000; ++i) next(false);
  EXPECT_EQ(cc.cwnd(), cc.bdp_bytes());   // additive increase stops at the BDP
  EXPECT_EQ(cc.rate_bps(0), c.line_rate_bps);

  c.with_window = false;
  c.pace = false;
  dctcp rate_only(c);
  EXPECT_EQ(rate_only.window_bytes(), UINT64_MAX);
  EXPECT_EQ(rate_only.rate_bps(0), c.line_rate_bps);
}

// ---------------------------------------------------------------- TIMELY

namespace {

// Algorithm 1 of the TIMELY paper, run on the first ACK past the window marker.
class reference_timely {
 public:
  explicit reference_timely(const timely_config& c) : rate(c.line_rate_bps), c_(c) {}
  uint64_t rate;
  double rtt_diff = 0;
  uint32_t neg = 0;

  void on_ack(uint64_t ack, uint64_t snd_nxt, uint64_t new_rtt) {
    if (new_rtt == 0) return;
    if (!have_prev_) {
      have_prev_ = true;
      prev_rtt_ = new_rtt;
      marker_ = snd_nxt;
      return;
    }
    if (ack <= marker_) return;
    marker_ = snd_nxt;
    const double new_rtt_diff = static_cast<double>(static_cast<int64_t>(new_rtt) - static_cast<int64_t>(prev_rtt_));
    prev_rtt_ = new_rtt;
    rtt_diff = (1 - c_.alpha) * rtt_diff + c_.alpha * new_rtt_diff;
    const double gradient = rtt_diff / static_cast<double>(c_.min_rtt_ps);
    if (new_rtt < c_.t_low_ps) {
      rate = std::min(c_.line_rate_bps, rate + c_.delta_bps);
    } else if (new_rtt > c_.t_high_ps) {
      const double m = 1 - c_.beta * (1 - static_cast<double>(c_.t_high_ps) / static_cast<double>(new_rtt));
      rate = std::max(c_.min_rate_bps, static_cast<uint64_t>(static_cast<double>(rate) * m));
    } else if (gradient <= 0) {
      const uint64_t n = neg >= c_.hai_after ? c_.hai_n : 1;   // HAI after hai_after in a row
      rate = std::min(c_.line_rate_bps, rate + n * c_.delta_bps);
    } else {
      const double m = std::max(0.0, 1 - c_.beta * gradient);
      rate = std::max(c_.min_rate_bps, static_cast<uint64_t>(static_cast<double>(rate) * m));
    }
    neg = gradient <= 0 ? neg + 1 : 0;
  }

 private:
  timely_config c_;
  bool have_prev_ = false;
  uint64_t prev_rtt_ = 0, marker_ = 0;
};

// Feeds a fresh TIMELY one update per ACK (each ACK passes the marker), starting from `first`.
struct timely_driver {
  timely t;
  uint64_t seq = 0;
  explicit timely_driver(const timely_config& c, uint64_t first) : t(c) { rtt(first); }
  void rtt(uint64_t r) {
    seq += 1000;
    t.on_ack(ack(seq, seq + 1, 1000, false, r));
  }
};

}  // namespace

TEST(timely_cc, below_t_low_adds_delta) {
  timely_config c;
  c.line_rate_bps = 100'000'000'000;
  timely_driver d(c, 30 * us);
  // Start below line rate: one cut above T_high, then a rising RTT under T_low still adds delta.
  d.rtt(1000 * us);
  const uint64_t r0 = d.t.rate();
  d.rtt(40 * us);
  EXPECT_EQ(d.t.rate(), r0 + d.t.config().delta_bps);
  d.rtt(45 * us);   // positive gradient, but below T_low
  EXPECT_EQ(d.t.rate(), r0 + 2 * d.t.config().delta_bps);
}

TEST(timely_cc, above_t_high_cuts_by_how_far_above) {
  timely_config c;
  timely_driver d(c, 100 * us);
  d.rtt(1000 * us);   // 1 - 0.8 × (1 - 500/1000) = 0.6
  EXPECT_EQ(d.t.rate(), static_cast<uint64_t>(100e9 * (1 - 0.8 * (1 - 500.0 / 1000.0))));
}

TEST(timely_cc, negative_gradient_adds_delta_then_hai_after_five) {
  timely_config c;
  timely_driver d(c, 400 * us);
  d.rtt(1000 * us);   // cut to make room
  d.rtt(900 * us);    // still above T_high: cut again, gradient < 0 (1 in a row)
  // Slowly falling RTT inside [T_low, T_high]. Counting the update above, the run of
  // non-positive gradients is 1 before this loop: four more updates add delta, then HAI.
  uint64_t rate = d.t.rate();
  uint64_t rtt = 400 * us;
  for (int i = 0; i < 4; ++i) {
    d.rtt(rtt -= 1 * us);
    EXPECT_EQ(d.t.rate(), rate + d.t.config().delta_bps) << i;
    rate = d.t.rate();
  }
  EXPECT_EQ(d.t.neg_gradient_count(), 5u);
  for (int i = 0; i < 3; ++i) {
    d.rtt(rtt -= 1 * us);
    EXPECT_EQ(d.t.rate(), rate + c.hai_n * d.t.config().delta_bps) << i;
    rate = d.t.rate();
  }
}

TEST(timely_cc, positive_gradient_cuts_by_beta_times_gradient) {
  timely_config c;
  c.alpha = 1.0;   // rtt_diff = the last difference
  timely_driver d(c, 100 * us);
  d.rtt(110 * us);   // gradient = 10 us / 20 us = 0.5: × (1 - 0.8 × 0.5)
  EXPECT_EQ(d.t.rate(), static_cast<uint64_t>(100e9 * (1 - 0.8 * 0.5)));
  d.rtt(140 * us);   // gradient 1.5: factor below 0, held at 0, so min rate
  EXPECT_EQ(d.t.rate(), c.min_rate_bps);
}

TEST(timely_cc, gating_and_rate_limits) {
  timely_config c;
  timely t(c);
  t.on_ack(ack(1000, 50'000, 1000, false, 100 * us));   // first sample: marker 50000
  t.on_ack(ack(2000, 51'000, 1000, false, 900 * us));   // inside the window: ignored
  t.on_ack(ack(60'000, 90'000, 58'000, false, 0));      // no RTT sample: ignored
  EXPECT_EQ(t.updates(), 0u);
  EXPECT_EQ(t.rate(), c.line_rate_bps);
  t.on_ack(ack(50'001, 90'000, 1000, false, 10 * us));  // update, below T_low: capped at line rate
  EXPECT_EQ(t.updates(), 1u);
  EXPECT_EQ(t.rate(), c.line_rate_bps);
  uint64_t seq = 90'000;
  auto next = [&](uint64_t rtt) {
    ++seq;
    t.on_ack(ack(seq, seq, 1, false, rtt));
  };
  for (int i = 0; i < 100; ++i) next(5000 * us);
  EXPECT_EQ(t.rate(), c.min_rate_bps);
  for (int i = 0; i < 100'000; ++i) next(10 * us);
  EXPECT_EQ(t.rate(), c.line_rate_bps);
}

TEST(timely_cc, window_is_rate_times_base_rtt) {
  timely_config c;
  EXPECT_EQ(timely(c).window_bytes(), UINT64_MAX);
  c.with_window = true;
  timely t(c);
  EXPECT_STREQ(t.name(), "timely+win");
  EXPECT_EQ(t.window_bytes(), 162'500u);
  c.line_rate_bps = 10'000'000'000;
  EXPECT_EQ(timely(c).config().delta_bps, 10'000'000u);   // run.py: 10 Mb/s per 10 Gbps
}

TEST(timely_cc, matches_reference_over_random_rtt_sequences) {
  for (uint64_t seed = 1; seed <= 3000; ++seed) {
    rng r(seed);
    timely_config c;
    c.line_rate_bps = pick<uint64_t>(r, {25'000'000'000, 100'000'000'000});
    c.alpha = pick(r, {0.875, 0.3, 1.0});
    c.beta = pick(r, {0.8, 0.3});
    c.min_rtt_ps = pick<uint64_t>(r, {20 * us, 5 * us});
    c.delta_bps = c.line_rate_bps / pick<uint64_t>(r, {1000, 50});
    c.hai_after = pick<uint32_t>(r, {5, 0, 2});
    c.hai_n = pick<uint32_t>(r, {5, 3});
    c.min_rate_bps = c.line_rate_bps / pick<uint64_t>(r, {100, 2});
    timely t(c);
    reference_timely ref(c);
    const uint64_t window = 1000 * (1 + r.below(16));   // bytes in flight
    uint64_t acked = 0;
    int64_t rtt = static_cast<int64_t>(20 + r.below(500)) * static_cast<int64_t>(us);
    for (int step = 0; step < 300; ++step) {
      // A random walk across T_low and T_high, with flat stretches for HAI and missing samples.
      const uint64_t mode = r.below(10);
      if (mode < 4) rtt += static_cast<int64_t>(r.below(41 * us)) - static_cast<int64_t>(20 * us);
      else if (mode < 6) rtt -= static_cast<int64_t>(r.below(3 * us));
      else if (mode == 6) rtt = static_cast<int64_t>(5 + r.below(700)) * static_cast<int64_t>(us);
      rtt = std::clamp<int64_t>(rtt, 1 * us, 1000 * us);
      const uint64_t sample = r.below(20) == 0 ? 0 : static_cast<uint64_t>(rtt);
      acked += 1000 * (1 + r.below(2));
      const uint64_t snd_nxt = acked + window;
      t.on_ack(ack(acked, snd_nxt, 1000, false, sample));
      ref.on_ack(acked, snd_nxt, sample);
      ASSERT_EQ(t.rate(), ref.rate) << "seed " << seed << " step " << step;
      ASSERT_EQ(t.rtt_diff(), ref.rtt_diff) << "seed " << seed << " step " << step;
      ASSERT_EQ(t.neg_gradient_count(), ref.neg) << "seed " << seed << " step " << step;
      ASSERT_GE(t.rate(), c.min_rate_bps);
      ASSERT_LE(t.rate(), c.line_rate_bps);
    }
  }
}
