// Sundial hardware unit. The timeout counter is compared, event by event, with a reference that
// walks every oscillator cycle (edge times from the closed form of a constant-rate oscillator)
// on random streams of valid, invalid and foreign-port messages. Epsilon is Eq. 3.1 computed
// here in 128 bits, and the paper's figures (43, 84, 103 ns) come out. A small event loop runs a
// root and a chain or tree of devices with +-100 ppm oscillators, measured link delays,
// forwarding delays and random message loss, and checks at every event and every few us that
// each synchronised device's true offset from the root is within its epsilon (and that the check
// does catch a max_drift_rate set below the real drift).
// Sections (§) and figures are those of Sundial (Li et al., OSDI 2020) as numbered in chapter 3
// of Li's thesis.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <queue>
#include <stdexcept>
#include <string>
#include <vector>

#include "clock/sundial_unit.h"
#include "common/rng.h"

using namespace netasic;

namespace {

__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 i128;

int64_t rand_range(rng& r, int64_t lo, int64_t hi) { return lo + int64_t(r.below(uint64_t(hi - lo + 1))); }

// Eq. 3.1 written out: eps_base + ceil((now - T_last_sync) * rate / 1e9), in local ps.
int64_t eq31(uint64_t eps_base, int64_t now_local, int64_t last_sync, uint64_t max_drift_ppb) {
  const i128 since = now_local - last_sync;
  return int64_t(eps_base + (since * max_drift_ppb + 999'999'999) / 1'000'000'000);
}

sundial_unit_config member_config(uint32_t ports = 2, uint32_t parent = 0) {
  sundial_unit_config c;
  c.ports = ports;
  c.parent_port = parent;
  return c;
}

// A message that lands exactly `offset` away from the receiver's clock.
int64_t tx_for_offset(const sundial_unit& u, uint64_t t, uint32_t port, int64_t offset) {
  return u.local_ps(t) - u.link_delay_ps(port) + offset;
}

}  // namespace

TEST(SundialUnit, LinkDelayIsFigure31) {
  EXPECT_EQ(measure_link_delay(0, 0, 0, 5), 2);      // RTT 5: floored
  EXPECT_EQ(measure_link_delay(0, 10, 10, -1), -1);  // a negative RTT floors too
  EXPECT_EQ(measure_link_delay(100, 1100, 5100, 6100), 1000);
  rng r(11);
  for (int i = 0; i < 2000; ++i) {
    oscillator_config ca, cb;
    ca.ppb = rand_range(r, -100'000, 100'000);
    cb.ppb = rand_range(r, -100'000, 100'000);
    ca.initial_offset_ps = rand_range(r, -1'000'000'000, 1'000'000'000);
    cb.initial_offset_ps = rand_range(r, -1'000'000'000, 1'000'000'000);
    const oscillator a(ca), b(cb);
    const uint64_t d = uint64_t(rand_range(r, 100'000, 5'000'000));
    const uint64_t turn = uint64_t(rand_range(r, 0, 10'000'000));
    const uint64_t t1 = r.below(1'000'000'000'000);
    const int64_t t1a = a.local_ps(t1), t1b = b.local_ps(t1 + d);
    const int64_t t2b = b.local_ps(t1 + d + turn), t2a = a.local_ps(t1 + 2 * d + turn);
    const int64_t got = measure_link_delay(t1a, t1b, t2b, t2a);
    const int64_t rtt = (t2a - t1a) - (t2b - t1b);
    ASSERT_EQ(got, rtt >= 0 ? rtt / 2 : -((-rtt + 1) / 2));
    // The estimate is off by the clocks' rates only: d * rA + turn * (rA - rB) / 2, plus rounding.
    const int64_t slack = int64_t((d + turn) / 10'000) + 2;
    ASSERT_LE(std::abs(got - int64_t(d)), slack) << "d " << d << " turn " << turn;
  }
}

TEST(SundialUnit, EpsilonIsEquation31AndGivesThePapersFigures) {
  rng r(12);
  for (int c = 0; c < 50; ++c) {
    oscillator_config oc;
    oc.ppb = rand_range(r, -100'000, 100'000);
    oscillator clk(oc);
    sundial_unit_config cfg = member_config();
    cfg.depth = 1 + uint32_t(r.below(8));
    cfg.max_drift_ppb = uint64_t(rand_range(r, 1, 1'000'000));
    sundial_unit u(cfg, clk);
    EXPECT_EQ(u.epsilon_ps(0), sundial_unit::unbounded);   // never synced
    u.set_link_delay(0, rand_range(r, 0, 3'000'000));
    uint64_t t = r.below(1'000'000'000);
    u.advance(t);   // the first timeout may have passed
    const int64_t tx = rand_range(r, -1'000'000'000, 1'000'000'000);
    const sundial_rx rx = u.on_sync(t, 0, tx);
    ASSERT_EQ(rx.verdict, sundial_verdict::valid);   // an unsynchronised device takes any
    ASSERT_EQ(u.local_ps(t), tx + u.link_delay_ps(0));
    const int64_t last = u.last_sync_local_ps();
    EXPECT_EQ(last, tx + u.link_delay_ps(0));
    for (int i = 0; i < 100; ++i) {
      t += r.below(50'000'000);
      ASSERT_EQ(u.epsilon_ps(t), eq31(cfg.depth * 5'000ull, u.local_ps(t), last, cfg.max_drift_ppb));
    }
  }
  // Testbed: depth 5 at the end of a 90 us interval: 25 + 18 = 43 ns (§3.6.1.2).
  oscillator clk{oscillator_config{}};
  sundial_unit_config cfg = member_config();
  cfg.depth = 5;
  sundial_unit u(cfg, clk);
  u.on_sync(0, 0, 0);
  EXPECT_EQ(u.epsilon_ps(90'000'000), 43'000);
  EXPECT_EQ(u.epsilon_ps(90'000'001), 43'001);   // rounded up: 18000.0002 ns -> 18001 ps
  // After a link failure: eps_base_backup 30 ns, next message 270 us after the last: 84 ns
  // (§3.6.1.3); a root failure (365 us): 103 ns (the same section).
  u.set_eps_base(30'000);
  EXPECT_EQ(u.epsilon_ps(270'000'000), 84'000);
  EXPECT_EQ(u.epsilon_ps(365'000'000), 103'000);
  // The root's epsilon is 0; an evicted device has none.
  oscillator rc{oscillator_config{}};
  sundial_unit_config rcfg;
  rcfg.root = true;
  const sundial_unit root(rcfg, rc);
  EXPECT_EQ(root.epsilon_ps(123), 0);
  u.evict(400'000'000);
  EXPECT_EQ(u.epsilon_ps(400'000'000), sundial_unit::unbounded);
}

TEST(SundialUnit, RootSendsAtOnceThenEverySyncIntervalOfItsOwnCycles) {
  rng r(13);
  for (int c = 0; c < 30; ++c) {
    oscillator_config oc;
    oc.ppb = rand_range(r, -100'000, 100'000);
    oc.period_ps = 1 + r.below(8'000);
    oscillator clk(oc);
    sundial_unit_config cfg;
    cfg.root = true;
    cfg.ports = 3;
    cfg.tx_ports = {0, 2};
    cfg.sync_interval_ps = 1 + r.below(200'000'000);
    const uint64_t start = r.below(1'000'000'000);
    sundial_unit u(cfg, clk, start);
    const uint64_t n = (cfg.sync_interval_ps + oc.period_ps - 1) / oc.period_ps;
    EXPECT_EQ(u.interval_cycles(), n);
    const uint64_t c0 = clk.cycles(start);
    std::vector<sundial_event> ev = u.advance(start);
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].at_ps, start);
    for (uint64_t k = 1; k <= 20; ++k) {
      const uint64_t next = u.next_event_ps();
      ASSERT_EQ(clk.osc_ps(next), (c0 + k * n) * oc.period_ps) << "edge of cycle c0 + k n";
      ASSERT_LT(clk.osc_ps(next - 1), (c0 + k * n) * oc.period_ps);
      EXPECT_TRUE(u.advance(next - 1).empty());
      ev = u.advance(next);
      ASSERT_EQ(ev.size(), 1u);
      EXPECT_EQ(ev[0].what, sundial_event::kind::send);
      EXPECT_EQ(ev[0].at_ps, next);
    }
    EXPECT_EQ(u.counters().sent, 21u);
    // Late polling returns every missed send, in order, at its own time.
    const uint64_t later = u.next_event_ps() + 3 * cfg.sync_interval_ps;
    ev = u.advance(later);
    ASSERT_GE(ev.size(), 3u);
    for (size_t i = 1; i < ev.size(); ++i) EXPECT_GT(ev[i].at_ps, ev[i - 1].at_ps);
    // The root ignores sync-messages.
    EXPECT_EQ(u.on_sync(later, 0, 0).verdict, sundial_verdict::ignored);
    EXPECT_EQ(u.epsilon_ps(later), 0);
  }
}

TEST(SundialUnit, ValidInvalidAndIgnoredMessages) {
  oscillator_config oc;
  oc.ppb = 40'000;
  oscillator clk(oc);
  sundial_unit_config cfg = member_config(3, 1);
  cfg.tx_ports = {0, 2};
  cfg.depth = 2;
  sundial_unit u(cfg, clk);
  u.set_link_delay(1, 500'000);
  ASSERT_EQ(u.on_sync(1'000'000, 1, 777).verdict, sundial_verdict::valid);
  EXPECT_EQ(u.local_ps(1'000'000), 777 + 500'000);
  // On the boundary: |offset| == eps is valid, and the clock steps by exactly the offset.
  uint64_t t = 60'000'000;
  int64_t eps = u.epsilon_ps(t);
  const int64_t before = u.local_ps(t);
  sundial_rx rx = u.on_sync(t, 1, tx_for_offset(u, t, 1, -eps));
  ASSERT_EQ(rx.verdict, sundial_verdict::valid);
  EXPECT_EQ(rx.offset_ps, -eps);
  EXPECT_EQ(rx.epsilon_ps, eps);
  EXPECT_EQ(u.local_ps(t), before - eps);
  EXPECT_EQ(u.last_sync_local_ps(), before - eps);
  EXPECT_EQ(rx.forward, (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(u.timeout_counter(t), 0u);
  // One ps past the bound: invalid, nothing changes.
  t = 100'000'000;
  eps = u.epsilon_ps(t);
  const int64_t local = u.local_ps(t), last = u.last_sync_local_ps();
  const uint64_t counter = u.timeout_counter(t);
  rx = u.on_sync(t, 1, tx_for_offset(u, t, 1, eps + 1));
  EXPECT_EQ(rx.verdict, sundial_verdict::invalid);
  EXPECT_EQ(rx.offset_ps, eps + 1);
  EXPECT_TRUE(rx.forward.empty());
  EXPECT_EQ(u.local_ps(t), local);
  EXPECT_EQ(u.last_sync_local_ps(), last);
  EXPECT_EQ(u.timeout_counter(t), counter);
  // A garbled timestamp is invalid, without overflow.
  EXPECT_EQ(u.on_sync(t, 1, INT64_MAX).verdict, sundial_verdict::invalid);
  EXPECT_EQ(u.on_sync(t, 1, INT64_MIN).verdict, sundial_verdict::invalid);
  // Other ports are ignored; so is everything once evicted.
  EXPECT_EQ(u.on_sync(t, 0, tx_for_offset(u, t, 0, 0)).verdict, sundial_verdict::ignored);
  EXPECT_EQ(u.on_sync(t, 2, tx_for_offset(u, t, 2, 0)).verdict, sundial_verdict::ignored);
  const sundial_counters& k = u.counters();
  EXPECT_EQ(k.received, 7u);
  EXPECT_EQ(k.valid, 2u);
  EXPECT_EQ(k.invalid, 3u);
  EXPECT_EQ(k.ignored, 2u);
  EXPECT_EQ(k.forwarded, 2u);
  u.evict(t);
  EXPECT_EQ(u.on_sync(t, 1, tx_for_offset(u, t, 1, 0)).verdict, sundial_verdict::ignored);
  EXPECT_EQ(u.next_event_ps(), sundial_unit::never);
  // After the firmware moves the parent, the old parent is ignored.
  oscillator c2{oscillator_config{}};
  sundial_unit w(member_config(3, 0), c2);
  w.on_sync(10, 0, 0);
  w.set_parent_port(2);
  EXPECT_EQ(w.on_sync(20, 0, w.local_ps(20)).verdict, sundial_verdict::ignored);
  EXPECT_EQ(w.on_sync(30, 2, w.local_ps(30)).verdict, sundial_verdict::valid);
}

namespace {

// The timeout counter, one oscillator cycle at a time. Edge n of a constant-rate oscillator
// (offset ppb, period P) is at ceil(n P 1e9 / (1e9 + ppb)).
struct ref_timeout {
  int64_t ppb = 0;
  uint64_t period = 1, first = 0, second = 0;   // limits in cycles; second 0 = not armed
  uint64_t n = 1;                       // next edge
  uint64_t counter = 0;
  bool synced = false;
  std::vector<sundial_event> events;

  uint64_t edge(uint64_t k) const {
    const u128 num = u128(k) * period * 1'000'000'000;
    const u128 den = u128(1'000'000'000 + ppb);
    return uint64_t((num + den - 1) / den);
  }
  void run_to(uint64_t t, uint64_t arm_cycles) {
    while (edge(n) <= t) {
      ++counter;
      if (counter == first + 1) {
        events.push_back({sundial_event::kind::first_timeout, edge(n)});
        second = arm_cycles;   // the firmware arms it at the interrupt
      }
      if (second && counter == first + second + 1) events.push_back({sundial_event::kind::second_timeout, edge(n)});
      ++n;
    }
  }
  void valid() {
    counter = 0;
    second = 0;
  }
};

}  // namespace

TEST(SundialUnit, TimeoutMatchesAPerCycleReference) {
  rng r(14);
  uint64_t firsts = 0, seconds = 0;
  for (int c = 0; c < 60; ++c) {
    oscillator_config oc;
    oc.ppb = rand_range(r, -100'000, 100'000);
    oc.period_ps = 1 + r.below(3'000);
    oscillator clk(oc);
    sundial_unit_config cfg = member_config(3, 1);
    const uint64_t first_cycles = 50 + r.below(400);
    cfg.first_timeout_ps = first_cycles * oc.period_ps - r.below(oc.period_ps);   // rounds up to first_cycles
    const uint64_t second_cycles = r.below(2) ? 1 + r.below(300) : 0;
    const uint64_t second_ps = second_cycles * oc.period_ps;
    sundial_unit u(cfg, clk);
    ASSERT_EQ(u.first_timeout_cycles(), first_cycles);
    ref_timeout ref;
    ref.ppb = oc.ppb;
    ref.period = oc.period_ps;
    ref.first = first_cycles;
    std::vector<sundial_event> got;
    auto take = [&](uint64_t t) {
      for (const sundial_event& e : u.advance(t)) {
        got.push_back(e);
        if (e.what == sundial_event::kind::first_timeout && second_ps) {
          u.arm_second_timeout(second_ps);
          for (const sundial_event& e2 : u.advance(t)) got.push_back(e2);   // may already be due
        }
      }
    };
    uint64_t t = 0;
    for (int m = 0; m < 300; ++m) {
      // Gaps from nothing to beyond both timeouts, in true ps; sometimes on an edge exactly.
      const uint64_t span = (first_cycles + second_cycles + 50) * oc.period_ps;
      t += r.below(3) == 0 ? r.below(span) : r.below(span / 3);
      if (r.below(5) == 0) t = std::max(t, ref.edge(ref.n));
      take(t);
      ref.run_to(t, second_cycles);
      const uint64_t kind = m == 0 ? 0 : r.below(10);
      if (kind < 6) {   // valid
        ASSERT_EQ(u.on_sync(t, 1, tx_for_offset(u, t, 1, 0)).verdict, sundial_verdict::valid);
        ref.valid();
      } else if (kind < 8) {   // invalid: far outside epsilon
        ASSERT_EQ(u.on_sync(t, 1, tx_for_offset(u, t, 1, 1'000'000'000)).verdict, sundial_verdict::invalid);
      } else {   // another port
        ASSERT_EQ(u.on_sync(t, 2, tx_for_offset(u, t, 2, 0)).verdict, sundial_verdict::ignored);
      }
      ASSERT_EQ(u.timeout_counter(t), ref.counter) << "message " << m;
    }
    t += 2 * (first_cycles + second_cycles + 2) * oc.period_ps;
    take(t);
    ref.run_to(t, second_cycles);
    ASSERT_EQ(got.size(), ref.events.size()) << "config " << c;
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].what, ref.events[i].what) << "config " << c << " event " << i;
      ASSERT_EQ(got[i].at_ps, ref.events[i].at_ps) << "config " << c << " event " << i;
      (got[i].what == sundial_event::kind::first_timeout ? firsts : seconds)++;
    }
    EXPECT_EQ(u.counters().timeouts + u.counters().second_timeouts, got.size());
  }
  EXPECT_GT(firsts, 100u);
  EXPECT_GT(seconds, 20u);
}

TEST(SundialUnit, AnOccasionalLostMessageNeverTimesOut) {
  // Worst case for the receiver: the root runs 100 ppm slow, the child 100 ppm fast, so two
  // intervals last 180.036 us of the child's cycles (< 185 us, §3.6.1.1).
  oscillator_config slow, fast;
  slow.ppb = -100'000;
  fast.ppb = 100'000;
  oscillator rc(slow), cc(fast);
  sundial_unit_config rcfg;
  rcfg.root = true;
  sundial_unit root(rcfg, rc);
  sundial_unit child(member_config(), cc);
  child.set_link_delay(0, 1'000'000);
  rng r(15);
  bool lost_last = false;
  uint64_t lost = 0, t_last = 0;
  for (int k = 0; k < 3000; ++k) {
    const uint64_t t = root.next_event_ps();
    root.advance(t);
    const bool lose = !lost_last && k > 0 && r.below(3) == 0;   // never two in a row
    lost_last = lose;
    if (lose) {
      ++lost;
      continue;
    }
    const uint64_t egress = t + r.below(500'001);   // up to 0.5 us in the root's queue
    const uint64_t at = egress + 1'000'000;          // 1 us link
    ASSERT_TRUE(child.advance(at).empty()) << "timeout after message " << k;
    ASSERT_EQ(child.on_sync(at, 0, root.local_ps(egress)).verdict, sundial_verdict::valid);
    t_last = at;
  }
  EXPECT_GT(lost, 500u);
  EXPECT_EQ(child.counters().timeouts, 0u);
  // Two in a row do time out, at the edge where the counter passes 185 us of cycles.
  const uint64_t deadline = child.first_timeout_deadline_ps();
  EXPECT_EQ(deadline, cc.cycle_edge(cc.cycles(t_last) + 185'000 + 1));
  EXPECT_TRUE(child.advance(deadline - 1).empty());
  const std::vector<sundial_event> ev = child.advance(deadline);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].what, sundial_event::kind::first_timeout);
  EXPECT_EQ(child.timeout_counter(deadline), 185'001u);
}

TEST(SundialUnit, InvalidMessagesDoNotResetTheTimeout) {
  oscillator clk{oscillator_config{}};
  sundial_unit u(member_config(), clk);
  u.on_sync(5'000'000, 0, 5'000'000);
  const uint64_t deadline = u.first_timeout_deadline_ps();
  EXPECT_EQ(deadline, 5'000'000 + 185'001'000ull);
  for (uint64_t t = 5'000'000 + 50'000'000; t < deadline; t += 50'000'000)
    ASSERT_EQ(u.on_sync(t, 0, u.local_ps(t) + 10'000'000).verdict, sundial_verdict::invalid);
  EXPECT_EQ(u.first_timeout_deadline_ps(), deadline);
  EXPECT_EQ(u.advance(deadline).size(), 1u);
  EXPECT_EQ(u.first_timeout_deadline_ps(), sundial_unit::never);   // raised once per silence
}

TEST(SundialUnit, MisuseAndBadConfiguration) {
  oscillator clk{oscillator_config{}};
  sundial_unit u(member_config(), clk);
  EXPECT_THROW(u.on_sync(200'000'000, 0, 0), std::logic_error);   // the timeout is due: advance first
  u.advance(200'000'000);
  EXPECT_THROW(u.advance(100), std::logic_error);
  EXPECT_THROW(u.set_parent_port(2), std::invalid_argument);
  EXPECT_THROW(u.set_link_delay(0, -1), std::invalid_argument);
  EXPECT_THROW(u.set_tx_ports({0, 5}), std::invalid_argument);
  auto expect_field = [&](sundial_unit_config c, const std::string& field) {
    try {
      sundial_unit bad(c, clk);
      ADD_FAILURE() << field << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  sundial_unit_config c = member_config();
  c.ports = 0;
  expect_field(c, "ports");
  c = member_config();
  c.parent_port = 2;
  expect_field(c, "parent_port");
  c = member_config();
  c.sync_interval_ps = 0;
  expect_field(c, "sync_interval_ps");
  c = member_config();
  c.first_timeout_ps = 0;
  expect_field(c, "first_timeout_ps");
  c = member_config();
  c.max_drift_ppb = 1'000'000'000;
  expect_field(c, "max_drift_ppb");
  c = member_config();
  c.tx_ports = {7};
  expect_field(c, "tx_ports");
}

// ---- a small network, event by event ------------------------------------------------------------

namespace {

struct net_config {
  uint32_t nodes = 12;
  bool chain = false;
  int64_t ppb_bound = 100'000;
  bool extreme = false;          // root at -bound, everyone else at +bound
  uint64_t max_drift_ppb = 200'000;
  uint64_t eps_per_hop_ps = 5'000;
  unsigned loss_percent = 10;
  uint64_t run_ps = 30'000'000'000;   // 30 ms
  uint64_t seed = 1;
};

struct net_result {
  uint64_t checks = 0, violations = 0, valid = 0, timeouts = 0;
  double worst_ratio = 0;   // max |offset| / eps
};

// Root 0; node i > 0 hangs off parent[i] on its port 0, children on ports 1.. .
net_result run_net(const net_config& nc) {
  rng r(nc.seed);
  const uint32_t n = nc.nodes;
  std::vector<uint32_t> parent(n, 0), depth(n, 0);
  std::vector<std::vector<uint32_t>> kids(n);
  for (uint32_t i = 1; i < n; ++i) {
    parent[i] = nc.chain ? i - 1 : uint32_t(r.below(i));
    depth[i] = depth[parent[i]] + 1;
    kids[parent[i]].push_back(i);
  }
  std::vector<std::unique_ptr<oscillator>> osc;
  std::vector<std::unique_ptr<sundial_unit>> unit;
  std::vector<uint64_t> delay(n, 0);   // true one-way delay of the link to the parent
  for (uint32_t i = 0; i < n; ++i) {
    oscillator_config oc;
    oc.bound_ppb = nc.ppb_bound;
    oc.ppb = nc.extreme ? (i == 0 ? -nc.ppb_bound : nc.ppb_bound) : rand_range(r, -nc.ppb_bound, nc.ppb_bound);
    oc.initial_offset_ps = rand_range(r, -1'000'000'000, 1'000'000'000);
    osc.push_back(std::make_unique<oscillator>(oc));
    delay[i] = uint64_t(rand_range(r, 100'000, 3'000'000));
  }
  for (uint32_t i = 0; i < n; ++i) {
    sundial_unit_config cfg;
    cfg.root = i == 0;
    cfg.ports = uint32_t(kids[i].size()) + 1;
    cfg.parent_port = 0;
    for (uint32_t p = 1; p < cfg.ports; ++p) cfg.tx_ports.push_back(p);
    cfg.depth = depth[i];
    cfg.eps_per_hop_ps = nc.eps_per_hop_ps;
    cfg.max_drift_ppb = nc.max_drift_ppb;
    unit.push_back(std::make_unique<sundial_unit>(cfg, *osc[i], 0));
    if (i == 0) continue;
    // Fig. 3.1 on the link, parent A and child B, before anything is synchronised.
    const oscillator &a = *osc[parent[i]], &b = *osc[i];
    const uint64_t t1 = 1'000, turn = uint64_t(rand_range(r, 0, 2'000'000));
    unit[i]->set_link_delay(0, measure_link_delay(a.local_ps(t1), b.local_ps(t1 + delay[i]), b.local_ps(t1 + delay[i] + turn),
                                                  a.local_ps(t1 + 2 * delay[i] + turn)));
  }
  // Events: 0 unit timer, 1 egress (node, port), 2 arrival (node, port 0, timestamp).
  struct ev {
    uint64_t t, seq;
    int kind;
    uint32_t node, port;
    int64_t ts;
    bool operator>(const ev& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  std::priority_queue<ev, std::vector<ev>, std::greater<ev>> q;
  uint64_t seq = 0;
  std::vector<uint64_t> timer(n, sundial_unit::never);
  auto arm = [&](uint32_t i) {
    const uint64_t t = unit[i]->next_event_ps();
    if (t != timer[i] && t != sundial_unit::never) q.push({t, seq++, 0, i, 0, 0});
    timer[i] = t;
  };
  auto send_all = [&](uint32_t i, uint64_t t, const std::vector<uint32_t>& ports) {
    for (uint32_t p : ports) q.push({t, seq++, 1, i, p, 0});
  };
  net_result res;
  auto check = [&](uint64_t t) {
    const int64_t ref = unit[0]->local_ps(t);
    for (uint32_t i = 1; i < n; ++i) {
      if (!unit[i]->synced()) continue;
      const int64_t eps = unit[i]->epsilon_ps(t);
      const int64_t off = std::abs(unit[i]->local_ps(t) - ref);
      ++res.checks;
      if (off > eps) ++res.violations;
      res.worst_ratio = std::max(res.worst_ratio, double(off) / double(eps));
    }
  };
  for (uint32_t i = 0; i < n; ++i) arm(i);
  for (uint64_t s = 0; s < nc.run_ps; s += 3'000'000) q.push({s, seq++, 3, 0, 0, 0});   // samples
  while (!q.empty() && q.top().t < nc.run_ps) {
    const ev e = q.top();
    q.pop();
    const uint32_t i = e.node;
    if (e.kind == 3) {
      check(e.t);
      continue;
    }
    if (e.kind == 0) {
      if (timer[i] != e.t) continue;   // superseded
      for (const sundial_event& x : unit[i]->advance(e.t)) {
        if (x.what == sundial_event::kind::send) send_all(i, x.at_ps, unit[i]->tx_ports());
        else ++res.timeouts;
      }
      timer[i] = sundial_unit::never;
      arm(i);
    } else if (e.kind == 1) {
      // Egress: the timestamp is the sender's clock now; the child is kids[i][port - 1].
      const uint32_t child = kids[i][e.port - 1];
      if (r.below(100) < nc.loss_percent) continue;
      q.push({e.t + delay[child], seq++, 2, child, 0, unit[i]->local_ps(e.t)});
    } else {
      for (const sundial_event& x : unit[i]->advance(e.t))
        if (x.what != sundial_event::kind::send) ++res.timeouts;
      const sundial_rx rx = unit[i]->on_sync(e.t, e.port, e.ts);
      if (rx.verdict == sundial_verdict::valid) {
        ++res.valid;
        check(e.t);
        send_all(i, e.t + uint64_t(rand_range(r, 50'000, 500'000)), rx.forward);   // forwarding delay
      }
      arm(i);
    }
  }
  return res;
}

}  // namespace

TEST(SundialUnit, EpsilonBoundsTheTrueOffsetInAChainAndATree) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    net_config nc;
    nc.seed = seed;
    nc.chain = seed % 2 == 0;
    nc.nodes = nc.chain ? 8 : 14;
    nc.extreme = seed == 3 || seed == 4;
    const net_result res = run_net(nc);
    EXPECT_EQ(res.violations, 0u) << "seed " << seed << " worst |offset| / eps " << res.worst_ratio;
    std::printf("seed %llu (%s, %u nodes): %llu checks, %llu syncs, %llu timeouts, worst |offset|/eps %.3f\n",
                (unsigned long long)seed, nc.chain ? "chain" : "tree", nc.nodes, (unsigned long long)res.checks,
                (unsigned long long)res.valid, (unsigned long long)res.timeouts, res.worst_ratio);
    EXPECT_GT(res.checks, 10'000u);
    EXPECT_GT(res.valid, 1'000u);
  }
}

TEST(SundialUnit, TheBoundCheckCatchesATooSmallMaxDriftRate) {
  // 20 ppm against clocks 200 ppm apart, with little eps_base: the offset outgrows epsilon.
  net_config nc;
  nc.extreme = true;
  nc.max_drift_ppb = 20'000;
  nc.eps_per_hop_ps = 1'000;
  nc.chain = true;
  nc.nodes = 4;
  const net_result res = run_net(nc);
  EXPECT_GT(res.violations, 0u);
  EXPECT_GT(res.worst_ratio, 1.0);
}
