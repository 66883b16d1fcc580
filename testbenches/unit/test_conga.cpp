// CONGA. The DRE against a reference that applies every T_dre decrement one period at a time,
// and against the closed form for constant-rate input (X_k = B (1 - a) / a * (1 - (1 - a)^k),
// tending to R * tau). The leaf against a golden leaf written here from the CONGA description
// (maps for the two tables, the per-period DREs above, a list of tied uplinks) on random streams
// of sends and receives, comparing every decision, header and table entry. Directed tests: the
// feedback round robin, aging, tie-breaking shares, and a closed loop of two leaves and two spines
// where feedback steers new flowlets off a congested spine downlink.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "blocks/conga.h"
#include "common/rng.h"

using namespace netasic;

namespace {

// ---- reference DRE: one decrement per period, no shortcuts -------------------------------------

struct ref_dre {
  uint64_t x = 0, T, next;
  uint32_t a, q;
  uint64_t full;
  ref_dre(uint64_t t_dre, uint32_t alpha_q16, uint32_t q_bits, uint64_t full_raw)
      : T(t_dre), next(t_dre), a(alpha_q16), q(q_bits), full(full_raw) {}
  void to(uint64_t now) {
    for (; next <= now; next += T) x -= (x * a) >> 16;
  }
  void add(uint64_t now, uint32_t bytes) { to(now); x += uint64_t(bytes) * 256; }
  uint32_t metric(uint64_t now) {
    to(now);
    const uint64_t top = (1u << q) - 1, m = x * (uint64_t(1) << q) / full;   // small x in tests
    return uint32_t(m > top ? top : m);
  }
};

// C * tau in 1/256 bytes, computed the long way round.
uint64_t full_scale(double gbps, uint64_t t_dre_ps, uint32_t alpha_q16) {
  const double tau_s = double(t_dre_ps) * 1e-12 / (double(alpha_q16) / 65536.0);
  return uint64_t(std::llround(gbps * 1e9 / 8 * tau_s * 256));
}

}  // namespace

TEST(Dre, MatchesPerPeriodReference) {
  rng r(0xD4E);
  const double alphas[] = {0.1, 0.5, 0.125, 1.0, 0.03, 0.9};
  uint64_t steps = 0, nonzero_metrics = 0;
  for (double alpha : alphas)
    for (int trial = 0; trial < 10; ++trial) {
      dre_config cfg;
      cfg.alpha = alpha;
      cfg.t_dre_ps = 1000 + r.below(50'000'000);
      cfg.link_gbps = 1 + double(r.below(400));
      cfg.q_bits = 1 + unsigned(r.below(8));
      dre d(cfg);
      ASSERT_EQ(d.alpha_q16(), uint32_t(std::lround(alpha * 65536)));
      ASSERT_EQ(d.full_scale_raw(), full_scale(cfg.link_gbps, cfg.t_dre_ps, d.alpha_q16()));
      ref_dre ref(cfg.t_dre_ps, d.alpha_q16(), cfg.q_bits, d.full_scale_raw());
      // Bursts sized to the full scale so the metric visits every level.
      const uint64_t full_bytes = d.full_scale_raw() / 256 + 1;
      uint64_t now = 0;
      for (int n = 0; n < 3000; ++n) {
        switch (r.below(6)) {
          case 0: now += r.below(cfg.t_dre_ps / 8 + 1); break;
          case 1: now += r.below(3 * cfg.t_dre_ps); break;
          case 2: now += r.below(300 * cfg.t_dre_ps); break;   // long idle: the lazy decay's shortcut
          default: now += r.below(cfg.t_dre_ps / 100 + 1); break;
        }
        if (r.below(4)) {
          const uint32_t bytes = uint32_t(1 + r.below(std::min<uint64_t>(full_bytes / 8 + 64, 1u << 20)));
          d.add(now, bytes);
          ref.add(now, bytes);
        }
        ASSERT_EQ(d.raw(now), (ref.to(now), ref.x)) << "step " << n << " alpha " << alpha;
        const uint32_t m = d.metric(now);
        ASSERT_EQ(m, ref.metric(now));
        nonzero_metrics += m != 0;
        ++steps;
      }
      EXPECT_EQ(d.decrements(), now / cfg.t_dre_ps);
    }
  EXPECT_GT(nonzero_metrics, steps / 4);
}

// Constant rate R: S bytes every T_dre / 64. Sampled at k T_dre (after that decrement, before the
// packet at the same instant) X_k = B (1 - a)/a (1 - (1 - a)^k) with B = 64 S; just before the
// decrement X_k / (1 - a) -> R tau. So the metric is floor(R / C 2^Q) before, floor((1 - a) R / C
// 2^Q) after, clamped to 2^Q - 1.
TEST(Dre, ConstantRateMatchesClosedForm) {
  dre_config cfg;   // 16 us, alpha 0.1, 40 Gb/s, Q = 3: C tau = 800 kB
  const uint64_t T = cfg.t_dre_ps, p = T / 64;
  // S = R p: at 40 Gb/s (5 bytes/ns), p = 250 ns carries 1250 bytes at full rate.
  const uint32_t sizes[] = {375, 700, 1000, 1200, 1250};     // R/C = 0.3, 0.56, 0.8, 0.96, 1.0
  for (uint32_t S : sizes) {
    dre d(cfg);
    const double a = d.alpha_q16() / 65536.0, B = 64.0 * S;
    const double tol = (1 / a + 1) / 256.0;   // each decrement floors by under one 1/256 byte
    const double C_tau = double(d.full_scale_raw()) / 256;
    uint64_t now = 0;
    for (uint64_t k = 1; k <= 400; ++k) {
      for (uint64_t j = 0; j < 64; ++j, now += p) d.add(now, S);
      // now == k T
      const double before = B * (1 - std::pow(1 - a, double(k))) / a;   // X just before the k-th decrement
      EXPECT_NEAR(d.bytes(now - 1), before, tol) << "S " << S << " k " << k;
      const double after = before * (1 - a);
      EXPECT_NEAR(d.bytes(now), after, tol) << "S " << S << " k " << k;
      if (k == 400) {
        const double R_over_C = double(S) / 1250.0;
        EXPECT_NEAR(before / C_tau, R_over_C, 1e-6);   // X -> R tau
        auto level = [&](double x) { return std::min(7.0, std::floor(x / C_tau * 8)); };
        for (double x : {before, after}) ASSERT_EQ(level(x - tol), level(x + tol)) << "sample too near a level boundary";
        // Query order matters: metric(now - 1) must come first (time does not go back).
        dre again(cfg);
        uint64_t t = 0;
        for (uint64_t kk = 1; kk <= 400; ++kk)
          for (uint64_t j = 0; j < 64; ++j, t += p) again.add(t, S);
        EXPECT_EQ(again.metric(t - 1), uint32_t(level(before))) << "S " << S;
        EXPECT_EQ(again.metric(t), uint32_t(level(after))) << "S " << S;
      }
    }
  }
  // The headline numbers: R/C = 0.8 reads 6 of 7 before the decrement; 1.0 saturates at 7.
  dre d(cfg);
  uint64_t now = 0;
  for (int j = 0; j < 64 * 300; ++j, now += p) d.add(now, 1000);
  EXPECT_EQ(d.metric(now - 1), 6u);
  EXPECT_NEAR(d.tau_ps(), 160e6, 160e6 * 1e-4);   // tau = T_dre / alpha = 160 us (alpha held as 6554 / 2^16)
}

TEST(Dre, IdleDecaysToNearZeroAndRejectsBadConfig) {
  dre d(dre_config{});
  d.add(0, 1'000'000);
  EXPECT_EQ(d.metric(0), 7u);                // 1 MB over an 800 kB full scale: saturated
  EXPECT_EQ(d.metric(1'000'000'000), 0u);    // 1 ms = 62 periods: 1 MB * 0.9^62 = 1.5 kB
  EXPECT_LT(d.raw(100'000'000'000), 10u);    // stops where X * alpha rounds to zero: under 10/256 byte
  EXPECT_THROW(d.add(5, 1), std::logic_error);
  auto make = [](auto edit) { dre_config c; edit(c); return dre(c); };
  EXPECT_THROW(make([](dre_config& c) { c.t_dre_ps = 0; }), std::invalid_argument);
  EXPECT_THROW(make([](dre_config& c) { c.alpha = 0; }), std::invalid_argument);
  EXPECT_THROW(make([](dre_config& c) { c.alpha = 1.5; }), std::invalid_argument);
  EXPECT_THROW(make([](dre_config& c) { c.q_bits = 0; }), std::invalid_argument);
  EXPECT_THROW(make([](dre_config& c) { c.q_bits = 9; }), std::invalid_argument);
  EXPECT_THROW(make([](dre_config& c) { c.link_gbps = 0; }), std::invalid_argument);
}

// ---- golden leaf ------------------------------------------------------------------------------------

namespace {

struct golden_leaf {
  conga_config cfg;
  std::vector<ref_dre> dres;
  flowlet_table ft;   // tested on its own in test_flowlet_table.cpp
  rng r;
  struct to_e { uint32_t metric; uint64_t at; };
  struct from_e { uint32_t metric; bool changed; uint64_t at; };
  std::map<std::pair<uint32_t, uint32_t>, to_e> to;
  std::map<std::pair<uint32_t, uint32_t>, from_e> from;
  std::vector<uint32_t> rr;
  uint64_t kept = 0, randoms = 0, fb_sent = 0, fb_changed = 0;

  explicit golden_leaf(const conga_config& c) : cfg(c), ft(c.flowlet), r(c.seed), rr(c.leaves, 0) {
    for (uint32_t u = 0; u < c.uplinks; ++u) {
      const double gbps = c.uplink_gbps.empty() ? c.dre.link_gbps : c.uplink_gbps[u];
      const uint32_t a = uint32_t(std::lround(c.dre.alpha * 65536));
      dres.emplace_back(c.dre.t_dre_ps, a, c.dre.q_bits, full_scale(gbps, c.dre.t_dre_ps, a));
    }
  }
  bool young(uint64_t at, uint64_t now) const { return cfg.aging_ps == 0 || now - at < cfg.aging_ps; }
  uint32_t remote(uint32_t leaf, uint32_t u, uint64_t now) const {
    auto it = to.find({leaf, u});
    return it != to.end() && young(it->second.at, now) ? it->second.metric : 0;
  }
  uint32_t choose(uint32_t dst, uint64_t now, uint32_t cached, uint32_t allowed) {
    std::vector<uint32_t> best;
    uint32_t lowest = 1000;
    for (uint32_t u = 0; u < cfg.uplinks; ++u) {
      if (!(allowed & (1u << u))) continue;
      const uint32_t c = std::max(dres[u].metric(now), remote(dst, u, now));
      if (c < lowest) { lowest = c; best.clear(); }
      if (c == lowest) best.push_back(u);
    }
    for (uint32_t u : best)
      if (u == cached) { ++kept; return u; }
    if (best.size() == 1) return best[0];
    ++randoms;
    return best[r.below(best.size())];
  }
  conga_send send(uint64_t hash, uint32_t dst, uint32_t bytes, uint64_t now, uint32_t allowed) {
    const flowlet_result f = ft.lookup_with(hash, now, [&](uint32_t cached) { return choose(dst, now, cached, allowed); });
    dres[f.port].add(now, bytes);
    conga_send out{f.port, f.new_flowlet, {}};
    out.header.lbtag = uint8_t(f.port);
    // Feedback: the first changed fresh entry from the pointer on, else the first fresh one.
    std::vector<uint32_t> order;
    for (uint32_t k = 0; k < cfg.uplinks; ++k) order.push_back((rr[dst] + k) % cfg.uplinks);
    const from_e* chosen = nullptr;
    uint32_t tag = 0;
    for (bool want_changed : {true, false}) {
      for (uint32_t j : order) {
        auto it = from.find({dst, j});
        if (it == from.end() || !young(it->second.at, now)) continue;
        if (want_changed && !it->second.changed) continue;
        chosen = &it->second;
        tag = j;
        break;
      }
      if (chosen) break;
    }
    if (chosen) {
      from_e& e = from[{dst, tag}];
      out.header.fb_valid = true;
      out.header.fb_lbtag = uint8_t(tag);
      out.header.fb_metric = uint8_t(e.metric);
      ++fb_sent;
      fb_changed += e.changed;
      e.changed = false;
      rr[dst] = (tag + 1) % cfg.uplinks;
    }
    return out;
  }
  void receive(uint32_t src, const conga_header& h, uint64_t now) {
    from[{src, h.lbtag}] = {h.ce, true, now};
    if (h.fb_valid) to[{src, h.fb_lbtag}] = {h.fb_metric, now};
  }
};

}  // namespace

TEST(Conga, LeafMatchesGoldenOnRandomStreams) {
  rng r(0xC0A6A);
  uint64_t sends = 0, new_flowlets = 0, randoms = 0, kept = 0, fb = 0, high_metrics = 0;
  for (int trial = 0; trial < 40; ++trial) {
    conga_config cfg;
    cfg.leaves = 2 + uint32_t(r.below(6));
    cfg.leaf_id = uint32_t(r.below(cfg.leaves));
    cfg.uplinks = 1 + uint32_t(r.below(8));
    cfg.dre.q_bits = 1 + unsigned(r.below(4));
    cfg.dre.alpha = r.below(2) ? 0.1 : 0.25;
    cfg.dre.t_dre_ps = 4'000'000 + r.below(30'000'000);
    cfg.dre.link_gbps = 1 + double(r.below(10));   // small C tau, so metrics move
    if (r.below(2))
      for (uint32_t u = 0; u < cfg.uplinks; ++u) cfg.uplink_gbps.push_back(1 + double(r.below(10)));
    cfg.flowlet.entries = 64 + uint32_t(r.below(1000));
    cfg.flowlet.delta_ps = 20'000'000 + r.below(500'000'000);
    cfg.aging_ps = r.below(4) == 0 ? 0 : 500'000'000 + r.below(10'000'000'000);
    cfg.seed = r.next();
    conga_leaf dut(cfg);
    golden_leaf ref(cfg);
    const uint32_t top = (1u << cfg.dre.q_bits) - 1;
    auto other_leaf = [&]() {
      uint32_t l = uint32_t(r.below(cfg.leaves - 1));
      return l >= cfg.leaf_id ? l + 1 : l;
    };
    std::vector<uint64_t> flows(1 + r.below(r.below(2) ? 8 : 300));   // few flows: flowlets hit too
    for (auto& f : flows) f = r.next();
    uint64_t now = 0;
    for (int n = 0; n < 4000; ++n) {
      switch (r.below(5)) {
        case 0: now += r.below(cfg.flowlet.delta_ps * 3); break;
        case 1: now += r.below(cfg.dre.t_dre_ps); break;
        default: now += r.below(200'000); break;
      }
      if (r.below(3)) {
        const uint32_t dst = other_leaf();
        const uint64_t h = flows[r.below(flows.size())];
        const uint32_t bytes = 64 + uint32_t(r.below(9000));
        uint32_t allowed = conga_leaf::all_uplinks;
        if (r.below(4) == 0) {
          allowed = uint32_t(r.next()) & ((1u << cfg.uplinks) - 1);
          if (!allowed) allowed = 1;
        }
        const conga_send got = dut.send(h, dst, bytes, now, allowed);
        const conga_send want = ref.send(h, dst, bytes, now, allowed);
        ASSERT_EQ(got.uplink, want.uplink) << "trial " << trial << " step " << n;
        ASSERT_EQ(got.new_flowlet, want.new_flowlet);
        ASSERT_EQ(got.header.lbtag, want.header.lbtag);
        ASSERT_EQ(got.header.ce, 0u);
        ASSERT_EQ(got.header.fb_valid, want.header.fb_valid) << "trial " << trial << " step " << n;
        if (want.header.fb_valid) {
          ASSERT_EQ(got.header.fb_lbtag, want.header.fb_lbtag);
          ASSERT_EQ(got.header.fb_metric, want.header.fb_metric);
        }
        ++sends;
        new_flowlets += got.new_flowlet;
      } else {
        conga_header h;
        h.lbtag = uint8_t(r.below(cfg.uplinks));
        h.ce = uint8_t(r.below(top + 1));
        h.fb_valid = r.below(4) != 0;
        h.fb_lbtag = uint8_t(r.below(cfg.uplinks));
        h.fb_metric = uint8_t(r.below(top + 1));
        const uint32_t src = other_leaf();
        dut.receive(src, h, now);
        ref.receive(src, h, now);
      }
      if (n % 50 == 0) {
        for (uint32_t l = 0; l < cfg.leaves; ++l)
          for (uint32_t u = 0; u < cfg.uplinks; ++u) {
            if (l == cfg.leaf_id) continue;
            ASSERT_EQ(dut.to_leaf(l, u, now), ref.remote(l, u, now));
            const conga_from_entry e = dut.from_leaf(l, u, now);
            auto it = ref.from.find({l, u});
            const bool fresh = it != ref.from.end() && ref.young(it->second.at, now);
            ASSERT_EQ(e.fresh, fresh);
            if (it != ref.from.end()) {
              ASSERT_EQ(e.metric, it->second.metric);
              ASSERT_EQ(e.changed, it->second.changed);
            }
          }
        for (uint32_t u = 0; u < cfg.uplinks; ++u) {
          const uint32_t m = dut.local_metric(u, now);
          ASSERT_EQ(m, ref.dres[u].metric(now));
          high_metrics += m == top;
        }
      }
    }
    const conga_counters& c = dut.counters();
    EXPECT_EQ(c.kept_cached, ref.kept);
    EXPECT_EQ(c.random_choices, ref.randoms);
    EXPECT_EQ(c.feedback_sent, ref.fb_sent);
    EXPECT_EQ(c.feedback_changed, ref.fb_changed);
    EXPECT_EQ(c.new_flowlets, dut.flowlets().counters().new_flowlets);
    randoms += c.random_choices;
    kept += c.kept_cached;
    fb += c.feedback_sent;
  }
  EXPECT_GT(randoms, 1000u);
  EXPECT_GT(kept, 1000u);
  EXPECT_GT(fb, 10000u);
  EXPECT_GT(high_metrics, 100u);
  std::printf("[          ] %llu sends, %llu new flowlets, %llu random ties, %llu kept cached, %llu feedback\n",
              (unsigned long long)sends, (unsigned long long)new_flowlets, (unsigned long long)randoms,
              (unsigned long long)kept, (unsigned long long)fb);
}

// ---- directed ------------------------------------------------------------------------------------

namespace {
conga_config four_uplinks() {
  conga_config c;
  c.leaves = 3;
  c.leaf_id = 1;
  c.uplinks = 4;
  return c;
}
}  // namespace

TEST(Conga, FeedbackRoundRobinPrefersChanged) {
  conga_leaf b(four_uplinks());
  uint64_t now = 1000;
  EXPECT_FALSE(b.send(1, 0, 100, now, conga_leaf::all_uplinks).header.fb_valid);   // nothing to feed back
  for (uint8_t tag : {2, 0, 3}) {   // CE from leaf 0 on three of its uplinks
    conga_header h;
    h.lbtag = tag;
    h.ce = uint8_t(tag + 1);
    b.receive(0, h, now);
  }
  // Changed entries first, in round robin order from the pointer (0): 0, 2, 3.
  std::vector<int> tags;
  for (int k = 0; k < 3; ++k) {
    const conga_header h = b.send(uint64_t(k), 0, 100, ++now).header;
    ASSERT_TRUE(h.fb_valid);
    EXPECT_EQ(h.fb_metric, h.fb_lbtag + 1);
    tags.push_back(h.fb_lbtag);
  }
  EXPECT_EQ(tags, (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(b.counters().feedback_changed, 3u);
  // Nothing changed: plain round robin over the written entries, from after 3: 0, 2, 3, 0.
  tags.clear();
  for (int k = 0; k < 4; ++k) tags.push_back(b.send(7, 0, 100, ++now).header.fb_lbtag);
  EXPECT_EQ(tags, (std::vector<int>{0, 2, 3, 0}));
  // A fresh CE on 3 jumps the queue (pointer at 2).
  conga_header h;
  h.lbtag = 3;
  h.ce = 7;
  b.receive(0, h, ++now);
  const conga_header f = b.send(7, 0, 100, ++now).header;
  EXPECT_EQ(f.fb_lbtag, 3);
  EXPECT_EQ(f.fb_metric, 7);
  // Row 2 (the other leaf) is separate.
  EXPECT_FALSE(b.send(7, 2, 100, ++now).header.fb_valid);
}

TEST(Conga, MetricsAgeOut) {
  conga_config cfg = four_uplinks();
  cfg.aging_ps = 10'000'000'000;   // 10 ms
  conga_leaf a(cfg);
  conga_header h;
  h.lbtag = 1;
  h.ce = 5;
  h.fb_valid = true;
  h.fb_lbtag = 2;
  h.fb_metric = 6;
  a.receive(0, h, 1'000'000);
  EXPECT_EQ(a.to_leaf(0, 2, 1'000'000), 6u);
  EXPECT_EQ(a.to_leaf(0, 2, 10'000'999'999), 6u);
  EXPECT_EQ(a.to_leaf(0, 2, 10'001'000'000), 0u);   // 10 ms without a refresh
  EXPECT_TRUE(a.from_leaf(0, 1, 10'000'999'999).fresh);
  EXPECT_FALSE(a.from_leaf(0, 1, 10'001'000'000).fresh);
  EXPECT_FALSE(a.send(3, 0, 100, 10'001'000'000).header.fb_valid);   // stale: not fed back
  EXPECT_EQ(a.from_leaf(0, 1, 10'001'000'000).metric, 5u);            // the bits are still there
  // Refreshed, it counts again and repels new flowlets from uplink 2.
  a.receive(0, h, 10'002'000'000);
  for (int k = 0; k < 50; ++k) EXPECT_NE(a.choose_uplink(0, 10'002'000'000, flowlet_table::no_port), 2u);
  cfg.aging_ps = 0;   // never ages
  conga_leaf never(cfg);
  never.receive(0, h, 0);
  EXPECT_EQ(never.to_leaf(0, 2, 1'000'000'000'000), 6u);
}

// All uplinks equal: a flowlet whose entry holds an uplink keeps it; a fresh one is uniform.
TEST(Conga, TiesKeepCachedElseUniform) {
  conga_leaf a(four_uplinks());
  for (uint32_t u = 0; u < 4; ++u) EXPECT_EQ(a.choose_uplink(0, 0, u), u);
  EXPECT_EQ(a.counters().kept_cached, 4u);
  std::vector<uint64_t> hits(4, 0);
  const uint64_t n = 40'000;
  for (uint64_t k = 0; k < n; ++k) ++hits[a.choose_uplink(2, 0, flowlet_table::no_port)];
  for (uint32_t u = 0; u < 4; ++u) EXPECT_NEAR(double(hits[u]), n / 4.0, 5 * std::sqrt(n * 0.25 * 0.75));
  // Restricted to uplinks 1 and 3, a cached 0 is not eligible.
  for (int k = 0; k < 100; ++k) {
    const uint32_t u = a.choose_uplink(0, 0, 0, 0b1010);
    EXPECT_TRUE(u == 1 || u == 3);
  }
  // A strictly better uplink wins over the cached one: load uplink 0's DRE.
  a.uplink_dre(0).add(1, 500'000);   // 500 kB of 800 kB: metric 5
  EXPECT_EQ(a.local_metric(0, 1), 5u);
  EXPECT_NE(a.choose_uplink(0, 1, 0), 0u);
}

// Two leaves (0, 1), two spines; spine 1's downlink to leaf 1 carries 90% background load. Leaf 0
// sends flowlets to leaf 1; leaf 1 sends reverse traffic that carries the feedback. Once the
// feedback arrives, new flowlets avoid uplink 1.
TEST(Conga, FeedbackSteersFlowletsOffCongestedPath) {
  conga_config c0;
  c0.leaf_id = 0;
  c0.flowlet.delta_ps = 50'000'000;   // 50 us: many flowlets
  conga_config c1 = c0;
  c1.leaf_id = 1;
  c1.seed = 2;
  conga_leaf l0(c0), l1(c1);
  std::vector<dre> down;   // spine s -> leaf 1
  for (int s = 0; s < 2; ++s) down.emplace_back(dre_config{});
  rng r(11);
  std::vector<uint64_t> late(2, 0);
  uint64_t now = 0;
  const uint64_t end = 20'000'000'000;   // 20 ms
  uint64_t next_bg = 0;
  while (now < end) {
    now += 200'000 + r.below(2'000'000);   // a packet every ~1 us, bursts with gaps over Delta
    // Background on spine 1's downlink: 36 Gb/s of 40 (4.5 bytes/ns).
    for (; next_bg <= now; next_bg += 1'000'000) down[1].add(next_bg, 4500);
    const conga_send s = l0.send(r.below(64), 1, 1500, now);
    conga_header h = s.header;
    down[s.uplink].add(now, 1500);
    conga_hop(h, down[s.uplink].metric(now));
    l1.receive(0, h, now);
    if (r.below(2)) l0.receive(1, l1.send(r.below(64), 0, 100, now).header, now);   // reverse traffic
    if (s.new_flowlet && now > end / 2) ++late[s.uplink];
  }
  EXPECT_GE(l0.to_leaf(1, 1, now), 6u);
  EXPECT_LE(l0.to_leaf(1, 0, now), 1u);
  EXPECT_GT(late[0], 20 * late[1]) << late[0] << " vs " << late[1];
  std::printf("[          ] new flowlets in the second half: uplink 0: %llu, uplink 1 (congested): %llu\n",
              (unsigned long long)late[0], (unsigned long long)late[1]);
}

TEST(Conga, RejectsBadConfigAndHeaders) {
  auto make = [](auto edit) { conga_config c; edit(c); return conga_leaf(c); };
  EXPECT_THROW(make([](conga_config& c) { c.leaves = 1; }), std::invalid_argument);
  EXPECT_THROW(make([](conga_config& c) { c.leaf_id = 2; }), std::invalid_argument);
  EXPECT_THROW(make([](conga_config& c) { c.uplinks = 0; }), std::invalid_argument);
  EXPECT_THROW(make([](conga_config& c) { c.uplinks = 33; }), std::invalid_argument);
  EXPECT_THROW(make([](conga_config& c) { c.uplink_gbps = {40}; }), std::invalid_argument);
  EXPECT_THROW(make([](conga_config& c) { c.dre.q_bits = 0; }), std::invalid_argument);
  EXPECT_THROW(make([](conga_config& c) { c.flowlet.entries = 0; }), std::invalid_argument);
  conga_leaf a(four_uplinks());
  EXPECT_THROW(a.send(1, 1, 100, 0), std::invalid_argument);   // to itself
  EXPECT_THROW(a.send(1, 3, 100, 0), std::out_of_range);
  EXPECT_THROW(a.send(1, 0, 100, 0, 0b10000), std::invalid_argument);   // no allowed uplink
  conga_header h;
  h.lbtag = 4;
  EXPECT_THROW(a.receive(0, h, 0), std::invalid_argument);
  h.lbtag = 0;
  h.ce = 8;
  EXPECT_THROW(a.receive(0, h, 0), std::invalid_argument);
  h.ce = 0;
  h.fb_valid = true;
  h.fb_lbtag = 9;
  EXPECT_THROW(a.receive(0, h, 0), std::invalid_argument);
  a.send(1, 0, 100, 100);
  EXPECT_THROW(a.send(1, 0, 100, 99), std::logic_error);
  EXPECT_EQ(a.counters().received, 0u);
  EXPECT_EQ(a.table_bits(), 3u * 4 * (2 * 3 + 2));
}
