// DCQCN reaction point against an event-driven reference written from the specification: a
// priority queue of timer events, processed one at a time, with CNPs and byte-counter events
// in between. Random CNP/send/query sequences must give the same state, with no tolerance.
// The reference does the same integer and double operations in the same order: the cut
// floor(RC·(1-alpha/2)) in double, the midpoint ceil((RC+RT)/2) and alpha in double. Only
// the event handling differs, so any gap is a catch-up bug. Then directed checks: the cut,
// alpha decay, fast recovery, additive and hyper increase, floor, cap, and the NP's CNP interval.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <queue>
#include <vector>

#include "common/rng.h"
#include "nic/cc/dcqcn.h"

using namespace netasic;

namespace {

constexpr uint64_t us = 1'000'000;   // ps

// The RP as a discrete-event model. Timers are events in a queue; restarting a timer bumps its
// generation so the pending event goes stale. At equal times: increase, alpha, decrease check.
class reference_rp {
 public:
  explicit reference_rp(const dcqcn_config& c) : rc(c.line_rate_bps), rt(c.line_rate_bps), c_(c) {}

  uint64_t rc, rt;
  double alpha = 1.0;
  uint64_t T = 0, BC = 0, bytes = 0;

  void run_until(uint64_t now) {
    while (!q_.empty() && q_.top().at <= now) {
      const event e = q_.top();
      q_.pop();
      if (e.gen == gen_[e.kind]) fire(e);
    }
  }

  void cnp(uint64_t now) {
    run_until(now);
    if (c_.variant == dcqcn_variant::mlx) {
      dec_cnp_ = true;
      if (!seen_cnp_) {
        seen_cnp_ = true;
        alpha = 1.0;
        alpha_cnp_ = false;
        schedule(alpha_timer, now + c_.alpha_resume_interval_ps);
        schedule(decrease_check, now + c_.rate_decrease_interval_ps + 1000);   // ns-3's +1 ns
        const auto r = static_cast<uint64_t>(static_cast<double>(rc) * c_.rate_on_first_cnp);
        rc = rt = std::clamp(r, c_.min_rate_bps, c_.line_rate_bps);
      } else {
        alpha_cnp_ = true;
      }
    } else {
      if (!cut_once_ || now - last_cut_ >= c_.rate_decrease_interval_ps) cut(now);
      alpha = (1 - c_.g) * alpha + c_.g;
      restart(alpha_timer, now + c_.alpha_resume_interval_ps);
    }
  }

  void send(uint64_t now, uint32_t n) {
    run_until(now);
    if (!increasing_ || c_.byte_counter_bytes == 0) return;
    bytes += n;
    while (bytes >= c_.byte_counter_bytes) {   // the byte counter expires every B bytes
      bytes -= c_.byte_counter_bytes;
      rate_increase(false);
    }
  }

 private:
  enum kind { increase_timer = 0, alpha_timer = 1, decrease_check = 2 };
  struct event {
    uint64_t at;
    int kind;
    uint64_t gen;
    bool operator>(const event& o) const { return at != o.at ? at > o.at : kind > o.kind; }
  };

  void schedule(int k, uint64_t at) { q_.push({at, k, gen_[k]}); }
  void restart(int k, uint64_t at) {
    ++gen_[k];
    schedule(k, at);
  }

  void fire(const event& e) {
    switch (e.kind) {
      case increase_timer:
        schedule(increase_timer, e.at + c_.rp_timer_ps);
        rate_increase(true);
        break;
      case alpha_timer:
        schedule(alpha_timer, e.at + c_.alpha_resume_interval_ps);
        alpha = alpha_cnp_ ? (1 - c_.g) * alpha + c_.g : (1 - c_.g) * alpha;
        alpha_cnp_ = false;
        break;
      case decrease_check:
        schedule(decrease_check, e.at + c_.rate_decrease_interval_ps);
        if (dec_cnp_) {
          cut(e.at);
          dec_cnp_ = false;
        }
        break;
    }
  }

  void cut(uint64_t at) {
    if (c_.clamp_target_rate || T > 0 || BC > 0) rt = rc;
    rc = std::max(c_.min_rate_bps, static_cast<uint64_t>(static_cast<double>(rc) * (1 - alpha / 2)));
    T = BC = bytes = 0;
    increasing_ = true;
    restart(increase_timer, at + c_.rp_timer_ps);
    cut_once_ = true;
    last_cut_ = at;
  }

  // Fast recovery while both counts are below F, hyper increase once both exceed it, additive
  // increase otherwise. Without a byte counter the timer count alone decides, as in ns-3.
  void rate_increase(bool timer) {
    const uint64_t f = c_.fast_recovery_times;
    bool fast, hyper;
    if (c_.byte_counter_bytes == 0) {
      fast = T < f;
      hyper = T > f;
    } else {
      fast = T < f && BC < f;
      hyper = T > f && BC > f;
    }
    if (!fast) rt = std::min(c_.line_rate_bps, rt + (hyper ? c_.rate_hai_bps : c_.rate_ai_bps));
    rc = (rc + rt + 1) / 2;
    if (timer) ++T; else ++BC;
  }

  dcqcn_config c_;
  std::priority_queue<event, std::vector<event>, std::greater<event>> q_;
  uint64_t gen_[3] = {0, 0, 0};
  bool seen_cnp_ = false, increasing_ = false, cut_once_ = false;
  bool alpha_cnp_ = false, dec_cnp_ = false;
  uint64_t last_cut_ = 0;
};

template <class T>
T pick(rng& r, std::initializer_list<T> v) { return v.begin()[r.below(v.size())]; }

dcqcn_config random_config(rng& r) {
  dcqcn_config c;
  c.variant = r.below(2) ? dcqcn_variant::paper : dcqcn_variant::mlx;
  c.line_rate_bps = pick<uint64_t>(r, {25'000'000'000, 100'000'000'000, 400'000'000'000});
  c.g = pick(r, {1.0 / 256, 1.0 / 16, 0.5});
  c.alpha_resume_interval_ps = pick<uint64_t>(r, {1 * us, 4 * us, 50 * us, 55 * us});
  c.rate_decrease_interval_ps = pick<uint64_t>(r, {4 * us, 50 * us});
  c.rp_timer_ps = pick<uint64_t>(r, {4 * us, 55 * us, 300 * us});   // 4 us < T_d too
  c.byte_counter_bytes = pick<uint64_t>(r, {0, 4000, 64'000});
  c.fast_recovery_times = pick<uint32_t>(r, {0, 1, 5});
  c.rate_ai_bps = c.line_rate_bps / pick<uint64_t>(r, {5000, 200});
  c.rate_hai_bps = c.rate_ai_bps * pick<uint64_t>(r, {1, 10});
  c.min_rate_bps = c.line_rate_bps / pick<uint64_t>(r, {100, 4});
  c.clamp_target_rate = r.below(2);
  c.rate_on_first_cnp = pick(r, {1.0, 0.5});
  return c;
}

void expect_same(const dcqcn& a, const reference_rp& b, uint64_t seed, int step) {
  ASSERT_EQ(a.current_rate(), b.rc) << "seed " << seed << " step " << step;
  ASSERT_EQ(a.target_rate(), b.rt) << "seed " << seed << " step " << step;
  ASSERT_EQ(a.alpha(), b.alpha) << "seed " << seed << " step " << step;
  ASSERT_EQ(a.timer_stage(), b.T) << "seed " << seed << " step " << step;
  ASSERT_EQ(a.byte_stage(), b.BC) << "seed " << seed << " step " << step;
  ASSERT_EQ(a.byte_count(), b.bytes) << "seed " << seed << " step " << step;
}

}  // namespace

TEST(dcqcn_rp, lazy_timers_match_event_driven_reference) {
  for (uint64_t seed = 1; seed <= 2000; ++seed) {
    rng r(seed);
    const dcqcn_config c = random_config(r);
    dcqcn rp(c);
    reference_rp ref(c);
    uint64_t now = 0;
    double cnp_p = 0.2;
    for (int step = 0; step < 300; ++step) {
      // Whole microseconds (often 0) so that calls land on timer expiries; rare long idles.
      const uint64_t roll = r.below(100);
      if (roll < 20) {
      } else if (roll < 96) {
        now += r.below(9) * us;
      } else {
        now += (100 + r.below(2900)) * us;
      }
      if (r.below(50) == 0) cnp_p = pick(r, {0.0, 0.05, 0.3, 0.8});   // congestion comes and goes
      const double op = r.uniform();
      if (op < cnp_p) {
        rp.on_cnp(now);
        ref.cnp(now);
      } else if (op < cnp_p + (1 - cnp_p) * 0.6) {
        const auto n = static_cast<uint32_t>(64 + r.below(4000));
        rp.on_send(now, n);
        ref.send(now, n);
      } else if (r.below(2)) {
        cc_feedback fb;
        fb.now_ps = now;
        rp.on_ack(fb);
        ref.run_until(now);
      } else {
        ref.run_until(now);
        ASSERT_EQ(rp.rate_bps(now), ref.rc) << "seed " << seed << " step " << step;
      }
      expect_same(rp, ref, seed, step);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(dcqcn_rp, one_cnp_halves_the_line_rate_with_alpha_one) {
  dcqcn_config c = dcqcn_config::paper(100'000'000'000);
  dcqcn rp(c);
  EXPECT_EQ(rp.rate_bps(0), 100'000'000'000u);
  rp.on_cnp(10 * us);
  EXPECT_EQ(rp.current_rate(), 50'000'000'000u);
  EXPECT_EQ(rp.target_rate(), 100'000'000'000u);
  EXPECT_EQ(rp.alpha(), 1.0);   // (1-g)·1 + g

  // ns-3's variant cuts at the first check, T_d + 1 ns after the CNP (here K > T_d, so alpha is still 1).
  c = dcqcn_config{};
  c.alpha_resume_interval_ps = 55 * us;
  c.rate_decrease_interval_ps = 50 * us;
  dcqcn mlx(c);
  mlx.on_cnp(10 * us);
  EXPECT_EQ(mlx.rate_bps(60 * us), 100'000'000'000u);
  EXPECT_EQ(mlx.rate_bps(60 * us + 999), 100'000'000'000u);
  EXPECT_EQ(mlx.rate_bps(60 * us + 1000), 50'000'000'000u);
  EXPECT_EQ(mlx.target_rate(), 100'000'000'000u);
}

TEST(dcqcn_rp, alpha_decays_by_one_minus_g_per_k) {
  dcqcn_config c = dcqcn_config::paper(100'000'000'000);
  c.g = 1.0 / 16;
  dcqcn rp(c);
  rp.on_cnp(0);
  double expect = 1.0;
  for (int n = 1; n <= 20; ++n) {
    rp.advance(n * c.alpha_resume_interval_ps - 1);
    EXPECT_EQ(rp.alpha(), expect);
    rp.advance(n * c.alpha_resume_interval_ps);
    expect *= 1 - c.g;
    EXPECT_EQ(rp.alpha(), expect);
  }
  // A CNP restarts K: the next decay is K after it.
  const uint64_t t = 20 * c.alpha_resume_interval_ps + 7 * us;
  rp.on_cnp(t);
  expect = (1 - c.g) * expect + c.g;
  EXPECT_EQ(rp.alpha(), expect);
  rp.advance(t + c.alpha_resume_interval_ps - 1);
  EXPECT_EQ(rp.alpha(), expect);
  rp.advance(t + c.alpha_resume_interval_ps);
  EXPECT_EQ(rp.alpha(), (1 - c.g) * expect);
  // After a long idle alpha reaches its floor (rounding stops it at a subnormal) and stays there.
  rp.advance(t + 100'000 * c.alpha_resume_interval_ps);
  const double floor = rp.alpha();
  EXPECT_LT(floor, 1e-320);
  EXPECT_EQ((1 - c.g) * floor, floor);
  rp.advance(t + 1'000'000'000 * c.alpha_resume_interval_ps);   // 15 h: O(1), not 1e9 steps
  EXPECT_EQ(rp.alpha(), floor);

  // ns-3: each period adds g if a CNP came in it.
  dcqcn_config m;
  m.g = 1.0 / 16;
  dcqcn mlx(m);
  mlx.on_cnp(0);   // alpha = 1, period starts
  mlx.advance(1 * us);
  EXPECT_EQ(mlx.alpha(), 1 - m.g);
  mlx.on_cnp(1 * us + 300'000);
  mlx.on_cnp(1 * us + 600'000);   // two CNPs, one +g
  mlx.advance(2 * us);
  EXPECT_EQ(mlx.alpha(), (1 - m.g) * (1 - m.g) + m.g);
}

TEST(dcqcn_rp, fast_recovery_halves_the_gap_each_timer_period) {
  dcqcn_config c = dcqcn_config::paper(100'000'000'000);
  c.byte_counter_bytes = 0;   // timer only
  dcqcn rp(c);
  rp.on_cnp(0);
  const uint64_t rt = rp.target_rate();
  const uint64_t gap0 = rt - rp.current_rate();
  for (uint32_t i = 1; i <= c.fast_recovery_times; ++i) {
    const uint64_t before = rp.current_rate();
    rp.advance(i * c.rp_timer_ps);
    EXPECT_EQ(rp.current_rate(), (before + rt + 1) / 2);
    EXPECT_EQ(rp.target_rate(), rt);
    EXPECT_EQ(rp.timer_stage(), i);
  }
  EXPECT_LE(rt - rp.current_rate(), gap0 / 32 + 1);
}

TEST(dcqcn_rp, additive_then_hyper_increase) {
  // Timer only (ns-3's rule): stage < F fast recovery, == F additive, > F hyper.
  dcqcn_config c;
  c.fast_recovery_times = 5;
  c.rate_on_first_cnp = 0.5;   // RT below line rate, so additions show
  c.rate_ai_bps = 40'000'000;
  c.rate_hai_bps = 400'000'000;
  dcqcn rp(c);
  rp.on_cnp(0);
  const uint64_t t0 = c.rate_decrease_interval_ps + dcqcn::mlx_first_check_delay_ps;
  rp.advance(t0);   // cut
  const uint64_t rt0 = rp.target_rate();
  rp.advance(t0 + 5 * c.rp_timer_ps);
  EXPECT_EQ(rp.target_rate(), rt0);   // five fast recoveries
  uint64_t rc = rp.current_rate();
  rp.advance(t0 + 6 * c.rp_timer_ps);
  EXPECT_EQ(rp.target_rate(), std::min(rt0 + c.rate_ai_bps, c.line_rate_bps));
  rc = (rc + rp.target_rate() + 1) / 2;
  EXPECT_EQ(rp.current_rate(), rc);
  const uint64_t rt1 = rp.target_rate();
  rp.advance(t0 + 7 * c.rp_timer_ps);
  EXPECT_EQ(rp.target_rate(), std::min(rt1 + c.rate_hai_bps, c.line_rate_bps));
  EXPECT_EQ(rp.current_rate(), (rc + rp.target_rate() + 1) / 2);

  // Paper, timer and byte counter: additive while only one count has passed F, hyper once both have.
  dcqcn_config p = dcqcn_config::paper(100'000'000'000);
  p.byte_counter_bytes = 1000;
  p.rp_timer_ps = 10 * us;
  p.rate_decrease_interval_ps = 1 * us;
  dcqcn paper(p);
  paper.on_cnp(0);
  paper.on_cnp(2 * us);   // second cut (clamp on): RT = 50 Gbps, below line rate
  paper.advance(2 * us + 6 * p.rp_timer_ps);   // T = 6 > F, BC = 0
  const uint64_t rt = paper.target_rate();
  paper.on_send(2 * us + 6 * p.rp_timer_ps, 1000);   // BC 0 -> 1: T > F but BC < F: additive
  EXPECT_EQ(paper.target_rate(), rt + p.rate_ai_bps);
  for (int i = 0; i < 5; ++i) paper.on_send(2 * us + 6 * p.rp_timer_ps, 1000);   // BC up to 6
  const uint64_t rt2 = paper.target_rate();
  paper.on_send(2 * us + 6 * p.rp_timer_ps, 1000);   // judged at T = 6, BC = 6: hyper
  EXPECT_EQ(paper.target_rate(), rt2 + p.rate_hai_bps);
  EXPECT_EQ(paper.byte_stage(), 7u);
}

TEST(dcqcn_rp, min_rate_floor_and_line_rate_cap) {
  dcqcn_config c = dcqcn_config::paper(100'000'000'000);
  c.min_rate_bps = 5'000'000'000;
  dcqcn rp(c);
  uint64_t t = 0;
  for (int i = 0; i < 40; ++i, t += c.rate_decrease_interval_ps) rp.on_cnp(t);
  EXPECT_EQ(rp.current_rate(), c.min_rate_bps);
  // Recovery stops exactly at line rate, for RT and RC.
  rp.advance(t + 200'000 * c.rp_timer_ps);
  EXPECT_EQ(rp.target_rate(), c.line_rate_bps);
  EXPECT_EQ(rp.current_rate(), c.line_rate_bps);
  for (int i = 0; i < 1000; ++i) rp.on_send(t + 200'000 * c.rp_timer_ps, 100'000);
  EXPECT_EQ(rp.current_rate(), c.line_rate_bps);
}

TEST(dcqcn_rp, window_is_rate_times_base_rtt) {
  dcqcn_config c;
  EXPECT_EQ(dcqcn(c).window_bytes(), UINT64_MAX);
  EXPECT_STREQ(dcqcn(c).name(), "dcqcn");
  c.with_window = true;
  dcqcn rp(c);
  EXPECT_STREQ(rp.name(), "dcqcn+win");
  EXPECT_EQ(rp.window_bytes(), 162'500u);   // 100 Gbps × 13 us
  rp.on_cnp(0);
  rp.advance(10 * us);
  EXPECT_EQ(rp.window_bytes(), rp.current_rate() * 13 / 8'000'000);
}

TEST(dcqcn_rp, default_increase_steps_scale_with_bandwidth) {
  dcqcn_config c;
  c.line_rate_bps = 25'000'000'000;
  const dcqcn rp(c);
  EXPECT_EQ(rp.config().rate_ai_bps, 5'000'000u);     // run.py: 5 and 50 Mb/s per 25 Gbps
  EXPECT_EQ(rp.config().rate_hai_bps, 50'000'000u);
  c.line_rate_bps = 100'000'000'000;
  c.rate_ai_bps = 7;
  EXPECT_EQ(dcqcn(c).config().rate_ai_bps, 7u);       // explicit values stay
  EXPECT_EQ(dcqcn(c).config().rate_hai_bps, 200'000'000u);
}

TEST(dcqcn_np, at_most_one_cnp_per_interval) {
  dcqcn_np np(dcqcn_np::paper_cnp_interval_ps);
  std::vector<uint64_t> sent;
  for (uint64_t t = 0; t < 500 * us; t += 1 * us) {
    EXPECT_FALSE(np.should_send_cnp(t, false));
    if (np.should_send_cnp(t, true)) sent.push_back(t);
  }
  ASSERT_EQ(sent.size(), 10u);
  for (size_t i = 0; i < sent.size(); ++i) EXPECT_EQ(sent[i], i * 50 * us);

  dcqcn_np every;   // HPCC's ns-3: every marked packet
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(every.should_send_cnp(7, true));
  EXPECT_EQ(every.cnps_sent(), 5u);
}
