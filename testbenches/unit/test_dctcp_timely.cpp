// DCTCP: alpha against the per-window formula over random mark patterns in a closed loop
// (the window drives the sender), plus the cut, CWR, additive increase, floor and cap.
// TIMELY: each branch of Algorithm 1 against rates worked out by hand, and every update of
// random RTT walks checked against the range its branch allows (computed in long double from
// the paper's definitions, not the core's double operations).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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
//
// Closed forms of Algorithm 1 (TIMELY, Mittal et al., SIGCOMM'15, Sec. 4.2 and Algorithm 1) at
// the defaults: line rate 100 Gb/s, delta = 10 Mb/s x 100G/10G = 100 Mb/s, alpha = 0.875,
// beta = 0.8, T_low = 50 us, T_high = 500 us, min_rtt = 20 us, N = 5 after 5 updates with a
// non-positive gradient, min rate 1 Gb/s. Expected rates are literals worked out by hand; a cut
// is a product in double truncated to whole bit/s, so each cut may land up to 1 bit/s below the
// exact product, and a chain of k cuts up to k bit/s below.

namespace {

constexpr uint64_t Mbps = 1'000'000, Gbps = 1'000'000'000;

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

// After a chain of at most 3 cuts: the exact product, or up to 3 bit/s below it.
void expect_cut(uint64_t got, uint64_t exact) {
  EXPECT_LE(got, exact);
  EXPECT_GE(got + 3, exact);
}

}  // namespace

TEST(timely_cc, below_t_low_adds_delta) {
  timely_driver d(timely_config{}, 30 * us);
  d.rtt(1000 * us);   // above T_high: x (1 - 0.8 x (1 - 500/1000)) = x 0.6 -> 60 Gb/s
  expect_cut(d.t.rate(), 60 * Gbps);
  const uint64_t r0 = d.t.rate();
  d.rtt(40 * us);     // below T_low: + 100 Mb/s, whatever the gradient
  EXPECT_EQ(d.t.rate(), r0 + 100 * Mbps);
  d.rtt(45 * us);     // a rising RTT (positive gradient), still below T_low: + 100 Mb/s
  EXPECT_EQ(d.t.rate(), r0 + 200 * Mbps);
  EXPECT_EQ(d.t.config().delta_bps, 100 * Mbps);
}

TEST(timely_cc, above_t_high_cuts_by_how_far_above) {
  // rtt = 750 us: 1 - 0.8 x (1 - 500/750) = 1 - 0.8/3 = 11/15; 100 Gb/s x 11/15 = 73333333333.3
  timely_driver a(timely_config{}, 100 * us);
  a.rtt(750 * us);
  expect_cut(a.t.rate(), 73'333'333'333);
  // rtt = 2500 us: 1 - 0.8 x (1 - 0.2) = 0.36 -> 36 Gb/s; then 0.36 again -> 12.96 Gb/s.
  timely_driver b(timely_config{}, 100 * us);
  b.rtt(2500 * us);
  expect_cut(b.t.rate(), 36 * Gbps);
  b.rtt(2500 * us);   // the same RTT (gradient <= 0) still cuts: T_high comes before the gradient
  expect_cut(b.t.rate(), 12'960'000'000);
}

TEST(timely_cc, gradient_is_the_ewma_of_rtt_differences_over_min_rtt) {
  timely_driver d(timely_config{}, 100 * us);
  // +10 us: rtt_diff = 0.875 x 10 = 8.75 us, gradient 0.4375, x (1 - 0.35) = 0.65 -> 65 Gb/s.
  d.rtt(110 * us);
  EXPECT_DOUBLE_EQ(d.t.rtt_diff(), 8.75 * us);
  expect_cut(d.t.rate(), 65 * Gbps);
  // +10 us: rtt_diff = 0.125 x 8.75 + 8.75 = 9.84375 us, gradient 0.4921875, x 0.60625
  // -> 65e9 x 0.60625 = 39406250000.
  d.rtt(120 * us);
  EXPECT_DOUBLE_EQ(d.t.rtt_diff(), 9.84375 * us);
  expect_cut(d.t.rate(), 39'406'250'000);
  // Flat: rtt_diff = 0.125 x 9.84375 = 1.23046875 us > 0, so a flat RTT still cuts while the
  // EWMA remembers the rise: x (1 - 0.8 x 0.0615234375) = x 0.95078125 -> 37466723632.8.
  d.rtt(120 * us);
  expect_cut(d.t.rate(), 37'466'723'632);
  const uint64_t r = d.t.rate();
  // -1 us: rtt_diff = 0.15380859375 - 0.875 = -0.72119140625 us < 0: + delta.
  d.rtt(119 * us);
  EXPECT_DOUBLE_EQ(d.t.rtt_diff(), -0.72119140625 * us);
  EXPECT_EQ(d.t.rate(), r + 100 * Mbps);
  // A steep rise: gradient = (0.125 x -0.72119140625 + 0.875 x 31) / 20 = 1.35 > 1/beta: the
  // factor 1 - 0.8 x 1.35 < 0 is held at 0, so the rate falls to the 1 Gb/s floor.
  d.rtt(150 * us);
  EXPECT_EQ(d.t.rate(), 1 * Gbps);
}

TEST(timely_cc, negative_gradient_adds_delta_then_hai_after_five) {
  timely_config c;
  timely_driver d(c, 400 * us);
  d.rtt(1000 * us);   // x 0.6 -> 60 Gb/s; gradient > 0
  d.rtt(900 * us);    // above T_high: x (1 - 0.8 x (1 - 5/9)) = x 29/45 -> 38666666666.6; gradient < 0 (1 in a row)
  expect_cut(d.t.rate(), 38'666'666'666);
  // Slowly falling RTT inside [T_low, T_high]: updates 2..5 of the run add delta (N = 1), the
  // 6th and later add N x delta = 500 Mb/s (HAI).
  uint64_t rate = d.t.rate();
  uint64_t rtt = 400 * us;
  for (int i = 0; i < 4; ++i) {
    d.rtt(rtt -= 1 * us);
    EXPECT_EQ(d.t.rate(), rate + 100 * Mbps) << i;
    rate = d.t.rate();
  }
  EXPECT_EQ(d.t.neg_gradient_count(), 5u);
  for (int i = 0; i < 3; ++i) {
    d.rtt(rtt -= 1 * us);
    EXPECT_EQ(d.t.rate(), rate + 500 * Mbps) << i;
    rate = d.t.rate();
  }
  // One rise resets the run: the rate is cut, and the next fall adds delta, not N x delta.
  d.rtt(rtt += 20 * us);
  EXPECT_LT(d.t.rate(), rate);
  EXPECT_EQ(d.t.neg_gradient_count(), 0u);
  d.rtt(rtt = 300 * us);
  rate = d.t.rate();
  d.rtt(rtt -= 1 * us);
  EXPECT_EQ(d.t.rate(), rate + 100 * Mbps);
}

TEST(timely_cc, positive_gradient_cuts_by_beta_times_gradient) {
  timely_config c;
  c.alpha = 1.0;   // rtt_diff = the last difference
  timely_driver d(c, 100 * us);
  d.rtt(110 * us);   // gradient = 10 us / 20 us = 0.5: x (1 - 0.8 x 0.5) = x 0.6 -> 60 Gb/s
  expect_cut(d.t.rate(), 60 * Gbps);
  d.rtt(140 * us);   // gradient 1.5: factor below 0, held at 0, so the 1 Gb/s floor
  EXPECT_EQ(d.t.rate(), 1 * Gbps);
}

TEST(timely_cc, gating_and_rate_limits) {
  timely_config c;
  timely t(c);
  t.on_ack(ack(1000, 50'000, 1000, false, 100 * us));   // first sample: marker 50000
  t.on_ack(ack(2000, 51'000, 1000, false, 900 * us));   // inside the window: ignored
  t.on_ack(ack(60'000, 90'000, 58'000, false, 0));      // no RTT sample: ignored
  EXPECT_EQ(t.updates(), 0u);
  EXPECT_EQ(t.rate(), 100 * Gbps);
  t.on_ack(ack(50'001, 90'000, 1000, false, 10 * us));  // update, below T_low: capped at line rate
  EXPECT_EQ(t.updates(), 1u);
  EXPECT_EQ(t.rate(), 100 * Gbps);
  uint64_t seq = 90'000;
  auto next = [&](uint64_t rtt) {
    ++seq;
    t.on_ack(ack(seq, seq, 1, false, rtt));
  };
  // 5000 us: x (1 - 0.8 x 0.9) = x 0.28 per update; 100 Gb/s x 0.28^4 = 614.7 Mb/s < 1 Gb/s.
  for (int i = 0; i < 3; ++i) next(5000 * us);
  expect_cut(t.rate(), 2'195'200'000);   // 100e9 x 0.28^3
  next(5000 * us);
  EXPECT_EQ(t.rate(), 1 * Gbps);
  // Below T_low: + 100 Mb/s per update, 990 updates from 1 Gb/s to 100 Gb/s, then capped.
  for (int i = 0; i < 989; ++i) next(10 * us);
  EXPECT_EQ(t.rate(), 99'900'000'000u);
  next(10 * us);
  EXPECT_EQ(t.rate(), 100 * Gbps);
  next(10 * us);
  EXPECT_EQ(t.rate(), 100 * Gbps);
}

TEST(timely_cc, window_is_rate_times_base_rtt) {
  timely_config c;
  EXPECT_EQ(timely(c).window_bytes(), UINT64_MAX);
  c.with_window = true;
  timely t(c);
  EXPECT_STREQ(t.name(), "timely+win");
  EXPECT_EQ(t.window_bytes(), 162'500u);   // 100 Gb/s x 13 us / 8
  c.line_rate_bps = 10'000'000'000;
  EXPECT_EQ(timely(c).config().delta_bps, 10'000'000u);   // run.py: 10 Mb/s per 10 Gbps
}

namespace {

// What one update may do, by Algorithm 1's branches, for the sample `rtt` and a gradient whose
// sign is `sign` (-1, +1, or 0 when too close to zero to call): the set of rates allowed after
// it, as [lo, hi] ranges. `hai`: the run of non-positive gradients before this update is long
// enough for N.
struct allowed_range { uint64_t lo, hi; };

std::vector<allowed_range> timely_allows(const timely_config& c, uint64_t rate, uint64_t rtt, long double gradient,
                                         bool hai, bool sign_known) {
  auto clamp = [&](long double r) {
    return std::clamp<long double>(r, (long double)c.min_rate_bps, (long double)c.line_rate_bps);
  };
  auto cut = [&](long double factor) {   // the exact product, within 2 bit/s for the double product
    const long double r = clamp(std::floor((long double)rate * std::max(0.0L, factor)));
    return allowed_range{uint64_t(std::max<long double>(clamp(r - 2), 0)), uint64_t(clamp(r + 2))};
  };
  auto add = [&](uint64_t n) {
    const uint64_t r = std::min(c.line_rate_bps, rate + n * c.delta_bps);
    return allowed_range{r, r};
  };
  if (rtt < c.t_low_ps) return {add(1)};
  if (rtt > c.t_high_ps) return {cut(1 - (long double)c.beta * (1 - (long double)c.t_high_ps / rtt))};
  std::vector<allowed_range> out;
  if (!sign_known || gradient <= 0) out.push_back(add(hai ? c.hai_n : 1));
  if (!sign_known || gradient > 0) out.push_back(cut(1 - (long double)c.beta * gradient));
  return out;
}

}  // namespace

TEST(timely_cc, every_update_is_one_of_algorithm_1s_branches) {
  // Random RTT walks across T_low and T_high, with flat stretches (HAI) and missing samples.
  // Each update must land in the range its branch allows, computed here in long double from
  // the paper's definitions; updates happen exactly on the first ACK past the marker.
  uint64_t checked = 0, hai_steps = 0, cuts = 0, ambiguous = 0;
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
    const uint64_t window = 1000 * (1 + r.below(16));   // bytes in flight
    uint64_t acked = 0, marker = 0, prev = 0, updates = 0;
    bool started = false;
    long double rtt_diff = 0;
    uint32_t run = 0;   // updates in a row with gradient <= 0
    int64_t rtt = static_cast<int64_t>(20 + r.below(500)) * static_cast<int64_t>(us);
    for (int step = 0; step < 300; ++step) {
      const uint64_t mode = r.below(10);
      if (mode < 4) rtt += static_cast<int64_t>(r.below(41 * us)) - static_cast<int64_t>(20 * us);
      else if (mode < 6) rtt -= static_cast<int64_t>(r.below(3 * us));
      else if (mode == 6) rtt = static_cast<int64_t>(5 + r.below(700)) * static_cast<int64_t>(us);
      rtt = std::clamp<int64_t>(rtt, 1 * us, 1000 * us);
      const uint64_t sample = r.below(20) == 0 ? 0 : static_cast<uint64_t>(rtt);
      acked += 1000 * (1 + r.below(2));
      const uint64_t snd_nxt = acked + window, before = t.rate();
      t.on_ack(ack(acked, snd_nxt, 1000, false, sample));
      const bool update = sample && started && acked > marker;
      if (sample && (!started || update)) marker = snd_nxt;
      if (!update) {
        if (sample && !started) { started = true; prev = sample; }
        ASSERT_EQ(t.rate(), before) << "seed " << seed << " step " << step << ": not an update";
        continue;
      }
      ++updates;
      rtt_diff = (1 - (long double)c.alpha) * rtt_diff + (long double)c.alpha * ((long double)sample - (long double)prev);
      prev = sample;
      const long double gradient = rtt_diff / (long double)c.min_rtt_ps;
      const bool sign_known = rtt_diff == 0 || std::fabs(rtt_diff) > 1e-6L * (long double)us;
      const auto allowed = timely_allows(c, before, sample, gradient, run >= c.hai_after, sign_known);
      bool hit = false;
      for (const allowed_range& a : allowed) hit = hit || (t.rate() >= a.lo && t.rate() <= a.hi);
      ASSERT_TRUE(hit) << "seed " << seed << " step " << step << ": rate " << before << " -> " << t.rate()
                       << " rtt " << sample << " gradient " << double(gradient);
      ASSERT_EQ(t.updates(), updates);
      ASSERT_NEAR(t.rtt_diff(), double(rtt_diff), 1e-6 * us);
      ++checked;
      if (!sign_known) ++ambiguous;
      if (sample >= c.t_low_ps && sample <= c.t_high_ps && gradient <= 0 && run >= c.hai_after) ++hai_steps;
      if (t.rate() < before) ++cuts;
      run = gradient <= 0 ? run + 1 : 0;
    }
  }
  // The walks reach every branch, HAI included; a gradient too close to 0 to call is rare.
  EXPECT_GT(checked, 150'000u);
  EXPECT_GT(hai_steps, 10'000u);
  EXPECT_GT(cuts, 10'000u);
  EXPECT_LT(ambiguous, checked / 100);
}
