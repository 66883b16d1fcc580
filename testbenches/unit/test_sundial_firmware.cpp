// Sundial failure handler. First the state machine on one unit with hand-made messages: first
// timeout -> backup parent and eps_base_backup; backup root -> second timeout -> root (a valid
// message cancels); the broken-clock two steps (parent broken: switch and carry on; own clock
// broken: invalid from both parents, evict). Then a k = 4 fat-tree of devices (oscillator +
// unit + firmware each), programmed from compute_backup_plan, run event by event: steady state,
// a link failure, a root failure, a broken root clock and a broken device clock. Throughout,
// every device synchronised in the current root's epoch stays within its epsilon of that root,
// and the recovery times are the paper's: timeout + next message, and the two timeouts.
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

#include "clock/backup_plan.h"
#include "testbenches/unit/sync_fat_tree.h"
#include "clock/sundial_firmware.h"
#include "clock/sundial_unit.h"
#include "common/rng.h"

using namespace netasic;

namespace {

constexpr uint64_t us = 1'000'000;
constexpr uint32_t no_port = sundial_firmware_config::no_port;

// A member on ports: 0 primary parent, 1 backup parent, 2 a child.
struct bench {
  oscillator clk{oscillator_config{}};
  sundial_unit unit;
  sundial_firmware fw;
  explicit bench(uint64_t second_timeout_ps = 0, uint32_t backup = 1)
      : unit(unit_config(), clk), fw(fw_config(second_timeout_ps, backup), unit) {}
  static sundial_unit_config unit_config() {
    sundial_unit_config c;
    c.ports = 3;
    c.parent_port = 0;
    c.tx_ports = {2};
    c.depth = 2;
    return c;
  }
  static sundial_firmware_config fw_config(uint64_t second, uint32_t backup) {
    sundial_firmware_config f;
    f.primary_parent = 0;
    f.backup_parent = backup;
    f.eps_base_ps = 10'000;
    f.eps_base_backup_ps = 30'000;
    f.second_timeout_ps = second;
    return f;
  }
  // Runs the unit to t, handing interrupts to the firmware.
  std::vector<sundial_event> run_to(uint64_t t) {
    std::vector<sundial_event> all;
    for (;;) {
      const std::vector<sundial_event> ev = unit.advance(t);
      if (ev.empty()) return all;
      for (const sundial_event& e : ev) {
        fw.on_event(e);
        all.push_back(e);
      }
    }
  }
  sundial_rx deliver(uint64_t t, uint32_t port, int64_t offset) {
    run_to(t);
    const sundial_rx rx = unit.on_sync(t, port, unit.local_ps(t) + offset);
    fw.on_rx(t, port, rx);
    return rx;
  }
};

}  // namespace

TEST(SundialFirmware, FirstTimeoutMovesToTheBackupParent) {
  bench b;
  EXPECT_EQ(b.fw.state(), firmware_state::primary);
  EXPECT_EQ(b.unit.eps_base_ps(), 10'000u);
  ASSERT_EQ(b.deliver(10 * us, 0, 0).verdict, sundial_verdict::valid);
  const uint64_t deadline = b.unit.first_timeout_deadline_ps();
  EXPECT_EQ(deadline, 10 * us + 185 * us + 1'000);   // the edge where the counter passes 185 us
  EXPECT_TRUE(b.run_to(deadline - 1).empty());
  ASSERT_EQ(b.run_to(deadline).size(), 1u);
  EXPECT_EQ(b.fw.state(), firmware_state::backup);
  EXPECT_EQ(b.unit.parent_port(), 1u);
  EXPECT_EQ(b.unit.eps_base_ps(), 30'000u);
  EXPECT_EQ(b.fw.counters().by_timeout, 1u);
  // Now the backup parent counts and the primary is ignored.
  EXPECT_EQ(b.deliver(deadline + 5 * us, 0, 0).verdict, sundial_verdict::ignored);
  EXPECT_EQ(b.deliver(deadline + 6 * us, 1, 0).verdict, sundial_verdict::valid);
  // 84 ns: eps_base_backup 30 ns + 270 us without a valid message (§3.6.1.3).
  bench c;
  c.deliver(0, 0, 0);
  c.run_to(270 * us);
  EXPECT_EQ(c.unit.epsilon_ps(270 * us), 84'000);
  // A second silence on the backup parent strands a device that is not the backup root.
  b.run_to(b.unit.first_timeout_deadline_ps());
  EXPECT_EQ(b.fw.state(), firmware_state::backup);
  EXPECT_EQ(b.fw.counters().stranded, 1u);
}

TEST(SundialFirmware, BackupRootElectsItselfAfterTheSecondTimeout) {
  bench b(180 * us);
  b.deliver(0, 0, 0);
  b.run_to(185 * us + 1'000);
  EXPECT_EQ(b.fw.state(), firmware_state::waiting_second);
  EXPECT_EQ(b.unit.parent_port(), 1u);
  const uint64_t second = b.unit.second_timeout_deadline_ps();
  EXPECT_EQ(second, 365 * us + 1'000);   // 185 + 180 us of cycles after the last message (§3.6.1.1)
  EXPECT_TRUE(b.run_to(second - 1).empty());
  const std::vector<sundial_event> ev = b.run_to(second);
  // The second timeout, then at once the new root's first sync-message.
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].what, sundial_event::kind::second_timeout);
  EXPECT_EQ(ev[1].what, sundial_event::kind::send);
  EXPECT_EQ(ev[1].at_ps, second);
  EXPECT_EQ(b.fw.state(), firmware_state::root);
  EXPECT_EQ(b.unit.current_mode(), sundial_unit::mode::root);
  EXPECT_EQ(b.unit.epsilon_ps(second), 0);
  EXPECT_EQ(b.fw.counters().elections, 1u);
  EXPECT_EQ(b.unit.next_event_ps(), b.clk.cycle_edge(b.clk.cycles(second) + 90'000));
  // The new root ignores its old parents.
  EXPECT_EQ(b.deliver(second + us, 1, 0).verdict, sundial_verdict::ignored);
}

TEST(SundialFirmware, AValidMessageCancelsTheElection) {
  bench b(180 * us);
  b.deliver(0, 0, 0);
  b.run_to(200 * us);
  ASSERT_EQ(b.fw.state(), firmware_state::waiting_second);
  ASSERT_EQ(b.deliver(300 * us, 1, 0).verdict, sundial_verdict::valid);   // the root is alive
  EXPECT_EQ(b.fw.state(), firmware_state::backup);
  EXPECT_EQ(b.unit.second_timeout_deadline_ps(), sundial_unit::never);
  EXPECT_EQ(b.fw.counters().cancelled_elections, 1u);
  // Silence again: the first timeout re-arms the wait, and then it elects.
  b.run_to(300 * us + 185 * us + 1'000);
  EXPECT_EQ(b.fw.state(), firmware_state::waiting_second);
  b.run_to(300 * us + 365 * us + 1'000);
  EXPECT_EQ(b.fw.state(), firmware_state::root);
}

TEST(SundialFirmware, BrokenParentClockSwitchesToTheBackup) {
  bench b;
  b.deliver(0, 0, 0);
  const int64_t eps = b.unit.epsilon_ps(90 * us);
  // The parent's timestamps are off by more than epsilon: step 1, switch.
  EXPECT_EQ(b.deliver(90 * us, 0, eps + 1).verdict, sundial_verdict::invalid);
  EXPECT_EQ(b.fw.state(), firmware_state::backup);
  EXPECT_TRUE(b.fw.invalid_from_primary());
  EXPECT_EQ(b.fw.counters().by_invalid, 1u);
  EXPECT_EQ(b.unit.parent_port(), 1u);
  EXPECT_EQ(b.unit.eps_base_ps(), 30'000u);
  // The backup parent agrees with this clock: the parent was broken; carry on.
  EXPECT_EQ(b.deliver(100 * us, 1, 0).verdict, sundial_verdict::valid);
  EXPECT_EQ(b.fw.state(), firmware_state::backup);
  EXPECT_EQ(b.unit.current_mode(), sundial_unit::mode::member);
  EXPECT_EQ(b.fw.counters().evictions, 0u);
}

TEST(SundialFirmware, OwnBrokenClockIsEvicted) {
  bench b;
  b.deliver(0, 0, 0);
  EXPECT_EQ(b.deliver(90 * us, 0, -1'000'000).verdict, sundial_verdict::invalid);
  EXPECT_EQ(b.fw.state(), firmware_state::backup);
  // Step 2: the backup parent disagrees too, so this clock is the broken one.
  EXPECT_EQ(b.deliver(95 * us, 1, -1'000'000).verdict, sundial_verdict::invalid);
  EXPECT_EQ(b.fw.state(), firmware_state::evicted);
  EXPECT_EQ(b.unit.current_mode(), sundial_unit::mode::evicted);
  EXPECT_EQ(b.unit.epsilon_ps(95 * us), sundial_unit::unbounded);
  EXPECT_EQ(b.unit.next_event_ps(), sundial_unit::never);
  EXPECT_EQ(b.deliver(100 * us, 1, 0).verdict, sundial_verdict::ignored);
  EXPECT_EQ(b.fw.counters().evictions, 1u);
  // On the backup after a timeout, an invalid backup message has no second opinion: stay.
  bench c;
  c.deliver(0, 0, 0);
  c.run_to(200 * us);
  ASSERT_EQ(c.fw.state(), firmware_state::backup);
  EXPECT_EQ(c.deliver(210 * us, 1, 1'000'000).verdict, sundial_verdict::invalid);
  EXPECT_EQ(c.fw.state(), firmware_state::backup);
  EXPECT_TRUE(c.fw.invalid_from_backup());
  EXPECT_FALSE(c.fw.invalid_from_primary());
}

TEST(SundialFirmware, NoBackupParentAndReconfiguration) {
  bench b(0, no_port);
  b.deliver(0, 0, 0);
  b.run_to(200 * us);
  EXPECT_EQ(b.fw.state(), firmware_state::primary);
  EXPECT_EQ(b.fw.counters().stranded, 1u);
  EXPECT_EQ(b.unit.parent_port(), 0u);
  // The controller's RPC: a new plan resets the state and the evidence.
  bench c;
  c.deliver(0, 0, 0);
  c.deliver(10 * us, 0, 1'000'000);
  ASSERT_EQ(c.fw.state(), firmware_state::backup);
  sundial_firmware_config f = bench::fw_config(0, 0);
  f.primary_parent = 1;
  f.backup_parent = 2;
  f.eps_base_ps = 15'000;
  f.first_timeout_ps = 100 * us;
  c.fw.configure(f);
  EXPECT_EQ(c.unit.first_timeout_cycles(), 100'000u);   // the RPC's first timeout, in cycles
  EXPECT_EQ(c.fw.state(), firmware_state::primary);
  EXPECT_FALSE(c.fw.invalid_from_primary());
  EXPECT_EQ(c.unit.parent_port(), 1u);
  EXPECT_EQ(c.unit.eps_base_ps(), 15'000u);
  auto expect_field = [&](sundial_firmware_config bad, const std::string& field) {
    try {
      c.fw.configure(bad);
      ADD_FAILURE() << field << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  sundial_firmware_config bad = f;
  bad.primary_parent = 3;
  expect_field(bad, "primary_parent");
  bad = f;
  bad.backup_parent = 1;
  expect_field(bad, "backup_parent");
  bad = f;
  bad.backup_parent = 9;
  expect_field(bad, "backup_parent");
  bad = f;
  bad.backup_parent = no_port;
  bad.second_timeout_ps = 180 * us;
  expect_field(bad, "second_timeout_ps");
  bad = f;
  bad.first_timeout_ps = 0;
  expect_field(bad, "first_timeout_ps");
  bad = f;
  bad.root = true;
  EXPECT_THROW(c.fw.configure(bad), std::logic_error);
}

// ---- a fat-tree of devices, programmed from the backup plan --------------------------------------

namespace {


struct network {
  sync_graph g;
  backup_plan plan;
  uint32_t n;
  std::vector<std::vector<uint32_t>> peer;        // [node][port] -> neighbour
  std::vector<std::vector<uint64_t>> delay;       // [node][port] -> true one-way delay
  std::vector<std::unique_ptr<oscillator>> osc;
  std::vector<std::unique_ptr<sundial_unit>> unit;
  std::vector<std::unique_ptr<sundial_firmware>> fw;
  std::vector<char> dead;
  std::vector<std::vector<char>> link_down;       // [node][port]
  std::vector<uint64_t> last_sync_true;           // true time of the last valid message
  std::vector<uint64_t> timer;
  rng r;
  uint32_t ref;                                   // the device whose clock is the reference
  uint64_t epoch = 0;                             // when ref became root
  uint64_t checks = 0, violations = 0;
  int64_t worst_excess = INT64_MIN;               // max |offset| - eps seen
  std::vector<int64_t> peak_eps;

  struct ev {
    uint64_t t, seq;
    int kind;   // 0 timer, 1 egress, 2 arrival, 3 sample
    uint32_t node, port;
    int64_t ts;
    bool operator>(const ev& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  std::priority_queue<ev, std::vector<ev>, std::greater<ev>> q;
  uint64_t seq = 0, now = 0;

  uint32_t port_to(uint32_t u, uint32_t v) const {
    for (uint32_t p = 0; p < peer[u].size(); ++p)
      if (peer[u][p] == v) return p;
    return no_port;
  }

  explicit network(uint64_t seed) : g(fat_tree(4)), r(seed) {
    plan = compute_backup_plan(g, 0);
    n = g.nodes();
    peer.assign(n, {});
    for (const sync_edge& e : g.edges) {
      peer[e.a].push_back(e.b);
      peer[e.b].push_back(e.a);
    }
    delay.assign(n, {});
    for (uint32_t u = 0; u < n; ++u) delay[u].assign(peer[u].size(), 0);
    for (uint32_t u = 0; u < n; ++u)
      for (uint32_t p = 0; p < peer[u].size(); ++p)
        if (u < peer[u][p]) delay[u][p] = delay[peer[u][p]][port_to(peer[u][p], u)] = 200'000 + r.below(2'000'000);
    for (uint32_t u = 0; u < n; ++u) {
      oscillator_config oc;
      oc.ppb = int64_t(r.below(200'001)) - 100'000;
      oc.initial_offset_ps = int64_t(r.below(2'000'000'001)) - 1'000'000'000;
      osc.push_back(std::make_unique<oscillator>(oc));
    }
    for (uint32_t u = 0; u < n; ++u) {
      sundial_unit_config c;
      c.root = u == plan.root;
      c.ports = uint32_t(peer[u].size());
      c.parent_port = c.root ? 0 : port_to(u, plan.parent[u]);
      for (uint32_t w = 0; w < n; ++w)   // TX on primary and backup edges (§3.4.3)
        if (w != plan.root && (plan.parent[w] == u || plan.backup_parent[w] == u)) c.tx_ports.push_back(port_to(u, w));
      std::sort(c.tx_ports.begin(), c.tx_ports.end());
      c.depth = plan.depth_primary[u];
      unit.push_back(std::make_unique<sundial_unit>(c, *osc[u], 0));
      for (uint32_t p = 0; p < peer[u].size(); ++p) {
        // Fig. 3.1 with the neighbour, before anything runs.
        const oscillator &a = *osc[peer[u][p]], &b = *osc[u];
        const uint64_t d = delay[u][p], t1 = 1'000, turn = r.below(1'000'000);
        unit[u]->set_link_delay(p, measure_link_delay(a.local_ps(t1), b.local_ps(t1 + d), b.local_ps(t1 + d + turn),
                                                      a.local_ps(t1 + 2 * d + turn)));
      }
      sundial_firmware_config f;
      f.root = c.root;
      if (!c.root) {
        f.primary_parent = c.parent_port;
        f.backup_parent = port_to(u, plan.backup_parent[u]);
        f.eps_base_ps = plan.eps_base_ps(u);
        f.eps_base_backup_ps = plan.eps_base_backup_ps(u);
        f.second_timeout_ps = u == plan.backup_root ? 180 * us : 0;
      }
      fw.push_back(std::make_unique<sundial_firmware>(f, *unit[u]));
    }
    dead.assign(n, 0);
    link_down.assign(n, {});
    for (uint32_t u = 0; u < n; ++u) link_down[u].assign(peer[u].size(), 0);
    last_sync_true.assign(n, 0);
    timer.assign(n, sundial_unit::never);
    peak_eps.assign(n, 0);
    ref = plan.root;
    for (uint32_t u = 0; u < n; ++u) arm(u);
  }

  void arm(uint32_t u) {
    const uint64_t t = unit[u]->next_event_ps();
    if (t != timer[u] && t != sundial_unit::never) q.push({std::max(t, now), seq++, 0, u, 0, 0});
    timer[u] = t;
  }
  void send(uint32_t u, uint64_t t, const std::vector<uint32_t>& ports) {
    for (uint32_t p : ports) q.push({t, seq++, 1, u, p, 0});
  }
  void handle(uint32_t u, const sundial_event& e) {
    fw[u]->on_event(e);
    if (e.what == sundial_event::kind::send) send(u, e.at_ps, unit[u]->tx_ports());
    if (e.what == sundial_event::kind::second_timeout && fw[u]->state() == firmware_state::root) {
      ref = u;   // elected: its clock is the reference from now on
      epoch = e.at_ps;
    }
  }
  void poll(uint32_t u, uint64_t t) {
    for (;;) {
      const std::vector<sundial_event> ev = unit[u]->advance(t);
      if (ev.empty()) break;
      for (const sundial_event& e : ev) handle(u, e);
    }
  }
  // Epsilon bounds the offset from the root between healthy clocks; a broken clock (the root's
  // or the device's own) is outside its promise until it is routed around or evicted (§3.4.4).
  void check(uint64_t t) {
    if (osc[ref]->broken_at(t)) return;
    const int64_t reference = unit[ref]->local_ps(t);
    for (uint32_t u = 0; u < n; ++u) {
      if (dead[u] || u == ref || !unit[u]->synced() || unit[u]->current_mode() != sundial_unit::mode::member) continue;
      if (osc[u]->broken_at(t)) continue;
      if (last_sync_true[u] < epoch) continue;   // still on the previous root's time
      const int64_t eps = unit[u]->epsilon_ps(t);
      const int64_t off = std::abs(unit[u]->local_ps(t) - reference);
      ++checks;
      if (off > eps) ++violations;
      worst_excess = std::max(worst_excess, off - eps);
      peak_eps[u] = std::max(peak_eps[u], eps);
    }
  }
  void run_until(uint64_t end) {
    for (uint64_t s = (now / (2 * us) + 1) * 2 * us; s < end; s += 2 * us) q.push({s, seq++, 3, 0, 0, 0});
    while (!q.empty() && q.top().t < end) {
      const ev e = q.top();
      q.pop();
      now = e.t;
      const uint32_t u = e.node;
      if (e.kind == 3) {
        check(e.t);
        continue;
      }
      if (dead[u]) continue;
      if (e.kind == 0) {
        if (timer[u] != e.t && !(e.t == now && timer[u] < now)) continue;   // superseded
        timer[u] = sundial_unit::never;
        poll(u, e.t);
        arm(u);
      } else if (e.kind == 1) {
        if (link_down[u][e.port] || unit[u]->current_mode() == sundial_unit::mode::evicted) continue;
        const uint32_t v = peer[u][e.port];
        q.push({e.t + delay[u][e.port], seq++, 2, v, port_to(v, u), unit[u]->local_ps(e.t)});
      } else {
        poll(u, e.t);
        const sundial_rx rx = unit[u]->on_sync(e.t, e.port, e.ts);
        fw[u]->on_rx(e.t, e.port, rx);
        if (rx.verdict == sundial_verdict::valid) {
          last_sync_true[u] = e.t;
          check(e.t);
          send(u, e.t + 100'000, rx.forward);   // 100 ns to the egress timestamp
        }
        arm(u);
      }
    }
    now = end;
  }
  void fail_link(uint32_t a, uint32_t b) {
    link_down[a][port_to(a, b)] = 1;
    link_down[b][port_to(b, a)] = 1;
  }
  uint64_t switched() const {
    uint64_t s = 0;
    for (const auto& f : fw) s += f->counters().switches_to_backup;
    return s;
  }
  uint64_t evictions() const {
    uint64_t s = 0;
    for (const auto& f : fw) s += f->counters().evictions;
    return s;
  }
  // Nodes in the primary subtree of s (s included).
  std::vector<char> subtree(uint32_t s) const {
    std::vector<char> in(n, 0);
    for (uint32_t u = 0; u < n; ++u)
      for (uint32_t w = u; w != backup_plan::none; w = w == plan.root ? backup_plan::none : plan.parent[w])
        if (w == s) in[u] = 1;
    return in;
  }
};

}  // namespace

TEST(SundialFirmware, FatTreeSteadyState) {
  network net(21);
  ASSERT_TRUE(net.plan.ok()) << net.plan.reason;
  net.run_until(5'000 * us);
  EXPECT_EQ(net.violations, 0u) << "worst excess " << net.worst_excess << " ps";
  EXPECT_GT(net.checks, 30'000u);
  EXPECT_EQ(net.switched(), 0u);
  for (uint32_t u = 0; u < net.n; ++u) {
    EXPECT_TRUE(net.unit[u]->synced()) << u;
    EXPECT_EQ(net.unit[u]->counters().timeouts, 0u) << u;
    // Eq. 3.1 at the end of an interval: 5 ns x depth + about 18 ns (§3.6.1.2).
    if (u != net.plan.root) {
      EXPECT_LE(net.peak_eps[u], int64_t(5'000 * net.plan.depth_primary[u] + 18'200)) << u;
    }
  }
}

TEST(SundialFirmware, FatTreeLinkFailureRecoversLocally) {
  network net(22);
  ASSERT_TRUE(net.plan.ok());
  net.run_until(3'000 * us);
  // Cut the primary link of a node two levels down, so that a whole subtree is affected.
  uint32_t s = backup_plan::none;
  for (uint32_t u = 0; u < net.n && s == backup_plan::none; ++u)
    if (net.plan.depth_primary[u] == 2) {
      for (uint32_t w = 0; w < net.n; ++w)
        if (w != net.plan.root && net.plan.parent[w] == u) s = u;
    }
  ASSERT_NE(s, backup_plan::none);
  const std::vector<char> affected = net.subtree(s);
  const uint64_t last = net.last_sync_true[s];
  net.fail_link(s, net.plan.parent[s]);
  std::fill(net.peak_eps.begin(), net.peak_eps.end(), 0);
  net.run_until(5'000 * us);
  EXPECT_EQ(net.violations, 0u) << "worst excess " << net.worst_excess << " ps";
  EXPECT_EQ(net.evictions(), 0u);
  for (uint32_t u = 0; u < net.n; ++u) {
    if (u == net.plan.root) continue;
    // Exactly the cut-off subtree turned to its backup parents (§3.4.2.1).
    EXPECT_EQ(net.fw[u]->state() == firmware_state::backup, bool(affected[u])) << u;
    EXPECT_GT(net.last_sync_true[u], 4'000 * us) << u << " still synchronised";
  }
  // s: timeout 185 us after its last message, then the next message within an interval.
  EXPECT_EQ(net.fw[s]->counters().by_timeout, 1u);
  // Peak eps of s: eps_base_backup + (185 + 90 us + propagation) x 200 ppm, as the 84 ns of §3.6.1.3.
  EXPECT_LE(net.peak_eps[s], int64_t(net.plan.eps_base_backup_ps(s) + (185 + 90 + 10) * 200));
  EXPECT_GT(last, 2'800 * us);
}

TEST(SundialFirmware, FatTreeRootFailureElectsTheBackupRoot) {
  network net(23);
  ASSERT_TRUE(net.plan.ok());
  net.run_until(3'000 * us);
  const uint32_t br = net.plan.backup_root;
  net.dead[net.plan.root] = 1;
  const uint64_t fail = net.now;
  net.run_until(6'000 * us);
  EXPECT_EQ(net.ref, br);
  EXPECT_EQ(net.fw[br]->state(), firmware_state::root);
  // Elected 185 + 180 us (of its cycles) after its last message, which came within one interval
  // before the failure (§3.6.1.3).
  EXPECT_GE(net.epoch, fail + 365 * us - 90 * us - 5 * us);
  EXPECT_LE(net.epoch, fail + 365 * us + 1 * us);
  EXPECT_EQ(net.violations, 0u) << "worst excess " << net.worst_excess << " ps";
  EXPECT_EQ(net.evictions(), 0u);
  for (uint32_t u = 0; u < net.n; ++u) {
    if (u == net.plan.root || u == br) continue;
    EXPECT_EQ(net.fw[u]->state(), firmware_state::backup) << u;
    EXPECT_GT(net.last_sync_true[u], net.epoch) << u << " synchronised to the new root";
  }
}

TEST(SundialFirmware, FatTreeBrokenRootClockIsRoutedAround) {
  network net(24);
  ASSERT_TRUE(net.plan.ok());
  net.run_until(3'000 * us);
  net.osc[net.plan.root]->break_clock(net.now, 2'000'000, 0, 10'000'000);   // 2000 ppm
  net.run_until(7'000 * us);
  // The root's children see invalid messages and leave it; the backup root takes over after the
  // timeouts; nobody healthy is evicted.
  uint64_t by_invalid = 0;
  for (uint32_t u = 0; u < net.n; ++u) by_invalid += net.fw[u]->counters().by_invalid;
  EXPECT_GE(by_invalid, 1u);
  EXPECT_EQ(net.ref, net.plan.backup_root);
  EXPECT_EQ(net.evictions(), 0u);
  EXPECT_EQ(net.violations, 0u) << "worst excess " << net.worst_excess << " ps";
  for (uint32_t u = 0; u < net.n; ++u)
    if (u != net.plan.root && u != net.ref) {
      EXPECT_GT(net.last_sync_true[u], net.epoch) << u;
    }
}

TEST(SundialFirmware, FatTreeBrokenDeviceClockIsEvicted) {
  network net(25);
  ASSERT_TRUE(net.plan.ok());
  net.run_until(3'000 * us);
  uint32_t p = backup_plan::none;   // a device with primary children
  for (uint32_t u = 0; u < net.n && p == backup_plan::none; ++u)
    if (u != net.plan.root && u != net.plan.backup_root && net.plan.depth_primary[u] == 2)
      for (uint32_t w = 0; w < net.n; ++w)
        if (net.plan.parent[w] == u) p = u;
  ASSERT_NE(p, backup_plan::none);
  net.osc[p]->break_clock(net.now, 2'000'000, 0, 10'000'000);
  net.run_until(6'000 * us);
  EXPECT_EQ(net.fw[p]->state(), firmware_state::evicted);
  EXPECT_EQ(net.evictions(), 1u);
  EXPECT_EQ(net.ref, net.plan.root);
  EXPECT_EQ(net.violations, 0u) << "worst excess " << net.worst_excess << " ps";
  for (uint32_t u = 0; u < net.n; ++u)
    if (u != p && u != net.plan.root) {
      EXPECT_GT(net.last_sync_true[u], 5'000 * us) << u << " kept synchronising";
    }
}
