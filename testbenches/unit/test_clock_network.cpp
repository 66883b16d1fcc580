// The clock layer over a fabric's topology: Sundial and the PTP+eps baselines side by side.
// Steady state reproduces Eq. 3.1 at every depth; under every fault kind (link, device, root,
// domain, broken clock) on random seeds and times, no healthy device's true offset ever leaves
// its epsilon, Sundial recovers locally within the timeouts' arithmetic, the baselines only
// with the controller; message rates are the interval times the tree's edges; bad fault items
// are named in the error.
// Sections (§) and figures are those of Sundial (Li et al., OSDI 2020) as numbered in chapter 3
// of Li's thesis.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "clock/clock_domains.h"
#include "clock/clock_network.h"
#include "clock/sundial_planner.h"
#include "common/params.h"
#include "common/rng.h"

using namespace netasic;

namespace {

constexpr uint64_t us = 1'000'000;

topology fat_tree(unsigned k) {
  fat_tree_spec s;
  s.k = k;
  s.host_rate_bps = 100'000'000'000;
  s.uplink_rate_bps = 400'000'000'000;
  s.delay_ps = 1'000'000;
  return build_fat_tree(s);
}

topology leaf_spine() {
  leaf_spine_spec s;
  s.leaves = 4;
  s.spines = 3;
  s.hosts_per_leaf = 2;
  s.host_rate_bps = 100'000'000'000;
  s.uplink_rate_bps = 400'000'000'000;
  s.delay_ps = 500'000;
  return build_leaf_spine(s);
}

clock_network_config all_three(uint64_t duration_ps, uint64_t seed = 1) {
  clock_network_config c;
  c.algorithms = {clock_algorithm::sundial, clock_algorithm::ptp, clock_algorithm::ptp_fast};
  c.duration_ps = duration_ps;
  c.seed = seed;
  return c;
}

const clock_algorithm_result& of(const clock_result& r, clock_algorithm a) {
  for (const clock_algorithm_result& x : r.algorithms)
    if (x.algorithm == a) return x;
  throw std::logic_error("algorithm not run");
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const config_error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(ClockNetwork, SteadyStateIsEquation31AtEveryDepth) {
  const topology t = fat_tree(4);
  const clock_result r = run_clock_network(t, all_three(5'000 * us));
  const clock_algorithm_result& s = of(r, clock_algorithm::sundial);
  EXPECT_EQ(s.bound_violations, 0u);
  EXPECT_GT(s.bound_checks, 10'000u);
  EXPECT_EQ(s.summary["first_timeouts"], 0);
  EXPECT_EQ(s.summary["plan_status"], "ok");
  // The top of the sawtooth: 5 ns x depth + 90 us x 200 ppm = 18 ns, within the clocks' +-100
  // ppm on the interval (+-0.002 ns) and a ps of rounding (§3.6.1.2: 43 ns at depth 5).
  const auto& by_depth = s.summary["epsilon_max_by_depth_ns"];
  ASSERT_GE(by_depth.size(), 6u);
  for (size_t d = 1; d < by_depth.size(); ++d) EXPECT_NEAR(by_depth[d].get<double>(), 5.0 * double(d) + 18.0, 0.01) << "depth " << d;
  EXPECT_NEAR(by_depth[5].get<double>(), 43.0, 0.01);
  // PTP+DTP+eps: the root's children 5 ns + 5 us x 200 ppm = 6 ns, the others 100 ms x 200 ppm
  // more: the paper's 6 ns and 20 us (§3.6.1.2). PTP+eps: T_recovery 2 s alone is 400 us.
  const auto& fast = of(r, clock_algorithm::ptp_fast).summary["epsilon_max_by_depth_ns"];
  EXPECT_NEAR(fast[1].get<double>(), 6.0, 0.01);
  EXPECT_NEAR(fast[2].get<double>(), 10.0 + 20'000.0 + 1.0, 0.1);
  EXPECT_GT(of(r, clock_algorithm::ptp).summary["epsilon_p50_ns"].get<double>(), 400'000.0);
  for (const clock_algorithm_result& a : r.algorithms) {
    EXPECT_EQ(a.bound_violations, 0u) << clock_algorithm_name(a.algorithm);
    EXPECT_EQ(a.epsilon_ps.size(), t.nodes.size());
    EXPECT_EQ(a.epsilon_ps[0].size(), r.t_ps.size());
  }
}

// Every fault kind, on random seeds, targets and times (within an interval of 1 ms), on a fat
// tree and a leaf-spine. The controller reacts 1 ms later, so replanning and reconfiguration run too.
TEST(ClockNetwork, TheBoundHoldsUnderEveryFaultType) {
  const std::vector<std::pair<std::string, topology>> topos = {{"fat_tree", fat_tree(4)}, {"leaf_spine", leaf_spine()}};
  const char* kinds[] = {"link", "device", "root", "domain", "broken_clock", "broken_root"};
  uint64_t checks = 0;
  for (const auto& [tname, t] : topos) {
    const clock_domains doms = make_clock_domains(t);
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      rng pick(seed * 7919);
      for (const char* kind : kinds) {
        clock_network_config c = all_three(4'000 * us, seed);
        c.controller_delay_ps = 1'000 * us;
        const uint64_t at_us = 1'000 + pick.below(90);
        const std::string root = t.nodes[t.switches.back()].tier == 3 ? "core0" : "spine0";
        std::string item;
        const std::string k = kind;
        if (k == "link") {
          std::vector<std::string> names;
          for (const topo_link& l : t.links)
            if (t.nodes[l.a].kind == node_kind::sw && t.nodes[l.b].kind == node_kind::sw) names.push_back(l.name);
          item = "link " + names[pick.below(names.size())];
        } else if (k == "device" || k == "broken_clock") {
          std::string name = root;
          while (name == root) name = t.nodes[t.switches[pick.below(t.switches.size())]].name;
          item = k + " " + name;
        } else if (k == "domain") {
          item = "domain " + doms.names[pick.below(doms.names.size())];
        } else if (k == "root") {
          item = "root";
        } else {
          item = "broken_clock " + root;
        }
        item += " @ " + std::to_string(at_us);
        c.faults = {parse_clock_fault(item)};
        const clock_result r = run_clock_network(t, c);
        const std::string where = tname + " seed " + std::to_string(seed) + " \"" + item + "\"";
        for (const clock_algorithm_result& a : r.algorithms) {
          EXPECT_EQ(a.bound_violations, 0u) << where << " " << clock_algorithm_name(a.algorithm) << ": worst |offset|/eps "
                                            << a.worst_offset_over_epsilon;
          EXPECT_GT(a.bound_checks, 1'000u) << where;
          checks += a.bound_checks;
          ASSERT_EQ(a.failures.size(), 1u);
        }
        // Sundial recovers every affected survivor locally, before the controller. Not after a
        // broken root: until its children detect it, its time spreads (§3.4.4), and a host (no
        // backup parent) then rejects the new root's until its epsilon has grown to cover it.
        const clock_failure_result& f = of(r, clock_algorithm::sundial).failures[0];
        EXPECT_TRUE(f.all_recovered) << where << ": " << f.recovered << " of " << f.affected << ", slowest " << f.slowest;
        if (f.all_recovered && k != "broken_root") {
          EXPECT_LT(f.resync_ps, c.controller_delay_ps) << where;
        }
        if (k == "broken_clock" || k == "broken_root") {
          EXPECT_GE(of(r, clock_algorithm::sundial).summary["evictions"].get<int>() +
                        of(r, clock_algorithm::sundial).summary["elections"].get<int>(), 1)
              << where;
        }
      }
    }
  }
  EXPECT_GT(checks, 1'000'000u);
}

TEST(ClockNetwork, TheCheckCanFail) {
  // max_drift below the clocks' real relative drift: epsilon is no bound any more.
  clock_network_config c = all_three(3'000 * us);
  c.algorithms = {clock_algorithm::sundial};
  c.max_drift_ppb = 20'000;
  c.eps_per_hop_ps = 0;
  const clock_result r = run_clock_network(fat_tree(4), c);
  EXPECT_GT(r.algorithms[0].bound_violations, 0u);
  EXPECT_GT(r.algorithms[0].worst_offset_over_epsilon, 1.0);
}

TEST(ClockNetwork, LinkFailureRecoveryFollowsTheTimeouts) {
  const topology t = fat_tree(4);
  clock_network_config c = all_three(4'000 * us);
  const std::string br = run_clock_network(t, c).summary["sundial"]["backup_root"];
  c.faults = {parse_clock_fault("link core0-" + br + " @ 1000")};
  c.controller_delay_ps = 2'000 * us;
  const clock_result r = run_clock_network(t, c);
  const clock_failure_result& f = of(r, clock_algorithm::sundial).failures[0];
  ASSERT_GT(f.affected, 0u);
  ASSERT_TRUE(f.all_recovered);
  // From the last message: the 185 us timeout, then the next message on the backup path. That is
  // the root's third after the last (270 us in §3.6.1.3), or its second when the backup path is more
  // than 5 us longer and brings it after the timeout (here 1.4 us a hop).
  EXPECT_GE(f.max_outage_ps, c.first_timeout_ps);
  EXPECT_LE(f.max_outage_ps, c.first_timeout_ps + c.sync_interval_ps + 20 * us);
  // From the failure, which came at most one interval after the last message.
  EXPECT_GE(f.resync_ps, c.first_timeout_ps - c.sync_interval_ps);
  EXPECT_LE(f.resync_ps, f.max_outage_ps);
  // Peak: eps_base_backup + the outage x 200 ppm (84 ns = 30 + 270 x 0.2 in the paper).
  EXPECT_LE(f.peak_epsilon_ps - f.peak_epsilon_base_ps, int64_t(double(f.max_outage_ps) * 200e-6 * 1.0002) + 1);
  EXPECT_GE(f.peak_epsilon_ps - f.peak_epsilon_base_ps, int64_t(double(c.first_timeout_ps) * 200e-6));
  // The baselines wait for the controller.
  const clock_failure_result& p = of(r, clock_algorithm::ptp_fast).failures[0];
  if (p.affected > 0) {
    ASSERT_TRUE(p.all_recovered);
    EXPECT_GE(p.resync_ps, c.controller_delay_ps);
    EXPECT_GT(p.peak_epsilon_ps, f.peak_epsilon_ps);
  }
}

TEST(ClockNetwork, RootFailureRecoveryIsBothTimeouts) {
  const topology t = fat_tree(4);
  clock_network_config c = all_three(4'000 * us);
  c.faults = {parse_clock_fault("root @ 1000")};
  const clock_result r = run_clock_network(t, c);
  const clock_algorithm_result& s = of(r, clock_algorithm::sundial);
  EXPECT_EQ(s.summary["elections"], 1);
  const clock_failure_result& f = s.failures[0];
  EXPECT_EQ(f.target, "core0");
  EXPECT_EQ(f.affected, uint32_t(t.nodes.size() - 1));
  ASSERT_TRUE(f.all_recovered);
  // 185 + 180 us after the last message the backup root elects itself and sends at once (§3.6.1.3).
  EXPECT_GE(f.max_outage_ps, c.first_timeout_ps + c.second_timeout_ps);
  EXPECT_NEAR(double(f.max_outage_ps) / us, 365.0, 20.0);
  EXPECT_GE(f.resync_ps, c.first_timeout_ps + c.second_timeout_ps - c.sync_interval_ps);
  EXPECT_EQ(s.bound_violations, 0u);
  // PTP+DTP+eps: the controller names a new grandmaster after its delay (100 ms: beyond the run).
  EXPECT_FALSE(of(r, clock_algorithm::ptp_fast).failures[0].all_recovered);
}

TEST(ClockNetwork, MessagesPerSecondIsTheIntervalTimesTheEdges) {
  const topology t = fat_tree(4);
  const clock_result r = run_clock_network(t, all_three(20'000 * us));
  // Sundial sends on primary and backup edges (§3.4.3): every non-root switch has one of each, and
  // each host hangs off its switch.
  const double switches = double(t.switches.size()), hosts = double(t.hosts.size());
  const double sundial = (2 * (switches - 1) + hosts) / 90e-6;
  EXPECT_NEAR(of(r, clock_algorithm::sundial).messages_per_s / sundial, 1.0, 0.01);
  const double fast = (switches + hosts - 1) / 5e-6;
  EXPECT_NEAR(of(r, clock_algorithm::ptp_fast).messages_per_s / fast, 1.0, 0.01);
  EXPECT_LT(of(r, clock_algorithm::ptp).messages_per_s, (switches + hosts) / 0.02);   // at most one round in 20 ms
}

TEST(ClockNetwork, BaselinesBoundIsLooserThanSundials) {
  const topology t = fat_tree(4);
  for (const char* fault : {"", "link agg0-core0 @ 1000", "domain pod0 @ 1000"}) {
    clock_network_config c = all_three(3'000 * us, 3);
    if (*fault) c.faults = {parse_clock_fault(fault)};
    const clock_result r = run_clock_network(t, c);
    const nlohmann::json& s = r.summary["sundial"];
    for (const char* b : {"ptp", "ptp_fast"}) {
      const nlohmann::json& p = r.summary[b];
      for (const char* k : {"epsilon_p50_ns", "epsilon_p99_ns", "epsilon_max_ns"})
        EXPECT_GT(p[k].get<double>(), 10 * s[k].get<double>()) << fault << " " << b << " " << k;
    }
    EXPECT_GT(r.summary["ptp"]["epsilon_p50_ns"].get<double>(), r.summary["ptp_fast"]["epsilon_p50_ns"].get<double>());
  }
}

TEST(ClockNetwork, ABrokenClockIsEvictedAndItsSubtreeRecovers) {
  const topology t = fat_tree(4);
  clock_network_config c = all_three(3'000 * us);
  c.faults = {parse_clock_fault("broken_clock agg0 @ 1000")};
  const clock_result r = run_clock_network(t, c);
  const clock_algorithm_result& s = of(r, clock_algorithm::sundial);
  EXPECT_EQ(s.summary["evictions"], 1);
  EXPECT_EQ(s.bound_violations, 0u);
  EXPECT_TRUE(s.failures[0].all_recovered);
  // Evicted: no bound from then on.
  uint32_t agg0 = 0;
  while (r.devices[agg0] != "agg0") ++agg0;
  EXPECT_EQ(s.epsilon_ps[agg0].back(), clock_result::no_bound);
  // The baselines keep reporting agg0's epsilon: it cannot be trusted, and is not checked.
  EXPECT_NE(of(r, clock_algorithm::ptp_fast).epsilon_ps[agg0].back(), clock_result::no_bound);
}

TEST(ClockNetwork, ACutOffHostIsNotCountedAsRecoverable) {
  const topology t = fat_tree(4);
  clock_network_config c = all_three(2'000 * us);
  c.faults = {parse_clock_fault("link host0-edge0 @ 1000")};
  const clock_result r = run_clock_network(t, c);
  for (const clock_algorithm_result& a : r.algorithms) {
    EXPECT_EQ(a.failures[0].cut_off, 1u);
    EXPECT_EQ(a.failures[0].affected, 0u);
    EXPECT_TRUE(a.failures[0].all_recovered);
  }
  // host0 keeps its bound, which grows at 200 ppm for the second millisecond.
  uint32_t h = 0;
  while (r.devices[h] != "host0") ++h;
  const int64_t eps = of(r, clock_algorithm::sundial).epsilon_ps[h].back();
  EXPECT_GT(eps, 190'000);
  EXPECT_EQ(of(r, clock_algorithm::sundial).bound_violations, 0u);
}

TEST(ClockNetwork, SameSeedSameResults) {
  const topology t = fat_tree(4);
  clock_network_config c = all_three(2'000 * us, 9);
  c.faults = {parse_clock_fault("root @ 500"), parse_clock_fault("link agg3-core2 @ 700")};
  c.controller_delay_ps = 600 * us;
  const clock_result a = run_clock_network(t, c), b = run_clock_network(t, c);
  EXPECT_EQ(a.summary.dump(), b.summary.dump());
  for (size_t i = 0; i < a.algorithms.size(); ++i) {
    EXPECT_EQ(a.algorithms[i].epsilon_ps, b.algorithms[i].epsilon_ps);
    EXPECT_EQ(a.algorithms[i].offset_ps, b.algorithms[i].offset_ps);
  }
  c.seed = 10;
  EXPECT_NE(run_clock_network(t, c).algorithms[0].offset_ps, a.algorithms[0].offset_ps);
}

TEST(ClockNetwork, FaultErrorsNameTheItem) {
  struct bad { const char* item; const char* says; };
  for (const bad& b : {bad{"link agg0-core0", "no '@ TIME_US'"}, bad{"link agg0 @ 100", "A-B"},
                       bad{"flood agg0 @ 100", "unknown kind 'flood'"}, bad{"root core0 @ 100", "root takes no target"},
                       bad{"device @ 100", "needs a target"}, bad{"device agg0 @ soon", "not a number"},
                       bad{"device agg0 @ -5", "outside"}, bad{"device agg0 @ 1 @ 2", "more than one"}}) {
    const std::string e = error_of([&] { parse_clock_fault(b.item); });
    EXPECT_NE(e.find(std::string("\"") + b.item + "\""), std::string::npos) << e;
    EXPECT_NE(e.find(b.says), std::string::npos) << e;
  }
  const topology t = fat_tree(4);
  for (const bad& b : {bad{"device nosuch @ 10", "no device named 'nosuch'"}, bad{"link edge0-core0 @ 10", "no link joins"},
                       bad{"link agg0-core0#2 @ 10", "#2 does not exist"}, bad{"domain pod9 @ 10", "pod9"},
                       bad{"device agg0 @ 5000", "after the end"}}) {
    clock_network_config c = all_three(1'000 * us);
    c.faults = {parse_clock_fault(b.item)};
    const std::string e = error_of([&] { run_clock_network(t, c); });
    EXPECT_NE(e.find(b.item), std::string::npos) << e;
    EXPECT_NE(e.find(b.says), std::string::npos) << e;
  }
  clock_network_config c = all_three(1'000 * us);
  c.faults = {parse_clock_fault("broken_clock agg1 @ 10"), parse_clock_fault("broken_clock agg1 @ 20")};
  EXPECT_NE(error_of([&] { run_clock_network(t, c); }).find("already broken"), std::string::npos);
  c.faults.clear();
  c.root = "host3";
  EXPECT_NE(error_of([&] { run_clock_network(t, c); }).find("is a host"), std::string::npos);
  c.root = "core9";
  EXPECT_NE(error_of([&] { check_clock_network(t, c); }).find("'core9' is not a device"), std::string::npos);
  EXPECT_THROW(parse_clock_algorithm("ntp"), config_error);
}

TEST(ClockNetwork, DomainsArePodsRacksAndTopSwitches) {
  const topology ft = fat_tree(4);
  const clock_domains d = make_clock_domains(ft);
  auto dom = [&](const topology& t, const clock_domains& x, const std::string& n) {
    for (size_t u = 0; u < t.nodes.size(); ++u)
      if (t.nodes[u].name == n) return x.names[x.of_node[u]];
    return std::string("?");
  };
  EXPECT_EQ(dom(ft, d, "edge0"), "pod0");
  EXPECT_EQ(dom(ft, d, "agg1"), "pod0");
  EXPECT_EQ(dom(ft, d, "edge5"), "pod2");
  EXPECT_EQ(dom(ft, d, "host15"), "pod3");
  EXPECT_EQ(dom(ft, d, "core2"), "core2");
  const topology ls = leaf_spine();
  const clock_domains e = make_clock_domains(ls);
  EXPECT_EQ(dom(ls, e, "leaf2"), "rack2");
  EXPECT_EQ(dom(ls, e, "host5"), "rack2");
  EXPECT_EQ(dom(ls, e, "spine1"), "spine1");
}

TEST(ClockNetwork, MemoryIsBounded) {
  clock_network_config c = all_three(10'000 * us);
  c.sample_interval_ps = 1 * us;
  c.max_values = 1'000'000;
  EXPECT_THROW(run_clock_network(fat_tree(4), c), std::invalid_argument);
}

TEST(ClockNetwork, AKEightFatTreeHoldsItsBound) {
  // 208 devices, 20 ms at 90 us, epsilon sampled every 10 us (the scenarios' setting).
  const topology t = fat_tree(8);
  clock_network_config c;
  c.duration_ps = 20'000 * us;
  const clock_result r = run_clock_network(t, c);
  EXPECT_EQ(r.devices.size(), 208u);
  EXPECT_GT(r.algorithms[0].bound_checks, 100'000u);
  EXPECT_EQ(r.algorithms[0].bound_violations, 0u);
}

// The register path: the switches and NICs configured from the writes a sundial_planner makes (at
// t = 0 and at each fault + controller delay, as sundial_controller does over the bus) give the
// same run as the clock layer configuring them from its own planner, for each kind of fault of the
// Sundial scenarios. Both react through the one sundial_reaction; what this checks is the way
// through the registers: the plan written as register values and read back (timeouts in
// oscillator cycles), each device's children found from its neighbours' registers, the writes
// taken at their times.
TEST(ClockNetwork, RegisterConfiguredSundialMatchesItsOwnController) {
  const topology t = fat_tree(4);
  for (const char* fault : {"link agg0-core0 @ 1000", "root @ 1000", "domain pod0 @ 1000", "broken_clock agg0 @ 1000",
                            "device agg3 @ 1000"}) {
    clock_network_config c;
    c.root = "core0";
    c.duration_ps = 3'000 * us;
    c.controller_delay_ps = 1'000 * us;
    c.faults = {parse_clock_fault(fault)};
    const clock_result own = run_clock_network(t, c);
    sundial_planner planner(t, c);
    auto write_blocks = [&](uint64_t at, const std::vector<sundial_regs>& regs, const std::vector<unsigned>& nodes) {
      for (uint32_t i = 0; i < regs.size(); ++i)
        for (uint32_t f = 0; f < sundial_regs::fields; ++f)
          c.sundial_writes.push_back({at, nodes[i], sundial_regs::offset(sundial_regs::field(f)), regs[i].value[f]});
    };
    auto write_all = [&](uint64_t at) {   // every switch's block, then every NIC's
      write_blocks(at, planner.registers(), t.switches);
      write_blocks(at, planner.host_registers(), t.hosts);
    };
    write_all(0);
    for (size_t i = 0; i < planner.faults(); ++i) {
      planner.learn(i);
      write_all(planner.fault_at_ps(i) + c.controller_delay_ps);
    }
    const clock_result regs = run_clock_network(t, c);
    EXPECT_EQ(regs.summary["sundial"], own.summary["sundial"]) << fault;
    EXPECT_EQ(regs.algorithms[0].epsilon_ps, own.algorithms[0].epsilon_ps) << fault;
    EXPECT_EQ(regs.algorithms[0].offset_ps, own.algorithms[0].offset_ps) << fault;
  }
}

// The offset from ideal time is the root's own error plus the offset from the root, to the
// picosecond, at every sample of every device and algorithm. The root's error is its oscillator
// alone: its initial offset (within 1 us) plus a constant rate (within the 100 ppm bound), so it
// grows linearly and nothing bounds it by epsilon.
TEST(ClockNetwork, OffsetFromIdealTimeIsTheRootsErrorPlusTheOffset) {
  const topology t = fat_tree(4);
  const clock_network_config c = all_three(2'000 * us, 3);
  const clock_result r = run_clock_network(t, c);
  const size_t root = size_t(std::find(r.devices.begin(), r.devices.end(), r.summary["root"].get<std::string>()) - r.devices.begin());
  ASSERT_LT(root, r.devices.size());
  for (const clock_algorithm_result& a : r.algorithms) {
    ASSERT_EQ(a.offset_ideal_ps.size(), r.devices.size());
    const std::vector<int64_t>& own = a.offset_ideal_ps[root];
    ASSERT_EQ(own.size(), r.t_ps.size());
    for (size_t u = 0; u < r.devices.size(); ++u)
      for (size_t k = 0; k < r.t_ps.size(); ++k)
        ASSERT_EQ(a.offset_ideal_ps[u][k] - own[k], a.offset_ps[u][k]) << r.devices[u] << " sample " << k;
    for (size_t k = 0; k < r.t_ps.size(); ++k) {
      EXPECT_LE(std::abs(own[k]), int64_t(c.initial_offset_ps) + int64_t(r.t_ps[k] / 10'000));   // 100 ppm of t
      if (k >= 2) {   // a constant rate
        EXPECT_NEAR(double(own[k] - 2 * own[k - 1] + own[k - 2]), 0.0, 2.0);
      }
    }
    EXPECT_NE(own.back() - own.front(), 0);
  }
}

// After the controller's reaction every device is back on the plan's primary parent, including
// those whose configuration the new plan did not change but which a failure had moved to their
// backup parent (the subtree below the failed link times out together). Left on the backup, a
// device would be stranded by the next failure of that path until the controller's next reaction.
TEST(ClockNetwork, TheControllerPutsEveryDeviceBackOnItsPrimary) {
  const topology t = fat_tree(4);
  clock_network_config c;
  c.root = "core0";
  c.duration_ps = 3'000 * us;
  c.controller_delay_ps = 1'000 * us;
  // The switch below the failed link and its subtree move to their backups, and the new plan
  // gives at least one of them the configuration it had.
  c.faults = {parse_clock_fault("link agg1-core2 @ 1000")};
  clock_layer layer(t, c, nullptr);
  layer.advance(1'500 * us);   // after the failure, before the controller
  size_t on_backup = 0;
  for (unsigned s : t.switches) on_backup += layer.sundial_state(s) == sundial_regs::state_backup;
  EXPECT_GE(on_backup, 1u);
  layer.advance(2'500 * us);   // after the controller
  for (unsigned s : t.switches) {
    const uint32_t st = layer.sundial_state(s);
    EXPECT_TRUE(st == sundial_regs::state_primary || st == sundial_regs::state_root) << t.nodes[s].name << " " << st;
  }
  const clock_result r = layer.finish(c.duration_ps);
  EXPECT_EQ(r.algorithms[0].bound_violations, 0u);
}

// The blast radius of one failure (Fig. 3.20) is each affected device's outage, summed: between
// the affected count times the shortest possible outage (the first timeout) and that count times
// the longest outage measured.
TEST(ClockNetwork, ImpactedDeviceTimeIsTheAffectedDevicesOutages) {
  const topology t = fat_tree(4);
  clock_network_config c;
  c.root = "core0";
  c.duration_ps = 2'000 * us;
  c.faults = {parse_clock_fault("link agg0-core0 @ 1000")};
  const clock_result r = run_clock_network(t, c);
  const clock_failure_result& f = r.algorithms[0].failures.at(0);
  ASSERT_TRUE(f.all_recovered);
  ASSERT_GT(f.affected, 1u);
  EXPECT_GE(f.impacted_ps, uint64_t(f.affected) * c.first_timeout_ps);
  EXPECT_LE(f.impacted_ps, uint64_t(f.affected) * f.max_outage_ps);
  EXPECT_DOUBLE_EQ(r.algorithms[0].summary["impacted_device_time_ms"].get<double>(), double(f.impacted_ps) / 1e9);
}

// The switches' part of the blast radius. The link above edge1 affects edge1 and its two hosts,
// which hear again one hop after it does: the switch's part is a third of the total, to within
// that hop. Above a subtree of switches and hosts the part lies strictly between 0 and the total.
TEST(ClockNetwork, ImpactedSwitchTimeIsTheSwitchesPart) {
  const topology t = fat_tree(4);
  clock_network_config c;
  c.root = "core0";
  c.duration_ps = 3'000 * us;
  c.faults = {parse_clock_fault("link edge1-agg0 @ 1000"), parse_clock_fault("link agg2-core0 @ 2000")};
  const clock_result r = run_clock_network(t, c);
  const clock_failure_result& rack = r.algorithms[0].failures.at(0);
  const clock_failure_result& pod = r.algorithms[0].failures.at(1);
  ASSERT_TRUE(rack.all_recovered && pod.all_recovered);
  ASSERT_EQ(rack.affected, 3u) << "edge1's primary parent is no longer agg0: pick its uplink";
  const uint64_t hop_ps = 2 * (1'000'000 + c.forward_delay_ps);   // link delay, frame and forwarding, both ways
  EXPECT_NEAR(double(rack.impacted_switch_ps) * 3, double(rack.impacted_ps), double(2 * hop_ps));
  EXPECT_GT(pod.impacted_switch_ps, 0u);
  EXPECT_LT(pod.impacted_switch_ps, pod.impacted_ps);
  EXPECT_DOUBLE_EQ(r.algorithms[0].summary["impacted_switch_time_ms"].get<double>(),
                   double(rack.impacted_switch_ps + pod.impacted_switch_ps) / 1e9);
}

// The paper's recovery arithmetic (§3.4.1.2, §3.6.1.3): an affected device times out T after its
// last valid message and takes the root's next message over its backup path, so its outage (from
// that last message) lies in (T, T + I + D_b], D_b the backup path's propagation: here at most
// (max depth_backup + 1) hops of link delay, frame time and forwarding. The bound holds at every
// phase of the sync interval the failure lands on, on five seeds; the resync time from the failure
// moves with the phase, the outage does not. Control: without a backup plan the same failure
// leaves the devices waiting for the controller, far beyond the bound.
TEST(ClockNetwork, OutageIsWithinTimeoutPlusIntervalPlusBackupPathAtEveryPhase) {
  const topology t = fat_tree(4);
  constexpr uint64_t phases = 10;
  auto run = [&](uint64_t seed, uint64_t phase, bool backup) {
    clock_network_config c = all_three(2'500 * us, seed);
    c.algorithms = {clock_algorithm::sundial};
    c.controller_delay_ps = 1'000 * us;
    c.backup_plan = backup;
    c.faults = {parse_clock_fault("link agg0-core0 @ 1000")};
    c.faults[0].at_ps += phase * c.sync_interval_ps / phases;
    return run_clock_network(t, c);
  };
  const clock_network_config d;
  const uint64_t hop_ps = t.links[0].delay_ps + 100 * 8 * 1'000'000'000'000 / 400'000'000'000 + d.forward_delay_ps;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    uint64_t out_lo = UINT64_MAX, out_hi = 0, resync_lo = UINT64_MAX, resync_hi = 0;
    for (uint64_t phase = 0; phase < phases; ++phase) {
      const clock_result r = run(seed, phase, true);
      const clock_algorithm_result& s = r.algorithms[0];
      const clock_failure_result& f = s.failures[0];
      const std::string where = "seed " + std::to_string(seed) + " phase " + std::to_string(phase);
      ASSERT_TRUE(f.all_recovered && f.outage_known) << where;
      const uint64_t d_b = (s.summary["max_depth_backup"].get<uint64_t>() + 1) * hop_ps;
      // Oscillators within +-100 ppm stretch the root's interval and the device's timeout.
      const double bound = double(d.first_timeout_ps + d.sync_interval_ps + d_b) * (1 + 2e-4);
      EXPECT_GT(double(f.min_outage_ps), double(d.first_timeout_ps) * (1 - 2e-4)) << where;
      EXPECT_LE(double(f.max_outage_ps), bound) << where;
      // From the failure: at most the same bound (a message in flight at the failure can shorten
      // a device's outage below its resync time), and at least the timeout less one interval.
      EXPECT_LE(double(f.resync_ps), bound) << where;
      EXPECT_GT(double(f.min_resync_ps), double(d.first_timeout_ps - d.sync_interval_ps)) << where;
      out_lo = std::min(out_lo, f.max_outage_ps);
      out_hi = std::max(out_hi, f.max_outage_ps);
      resync_lo = std::min(resync_lo, f.resync_ps);
      resync_hi = std::max(resync_hi, f.resync_ps);
    }
    // The outage is the tree's, whatever the phase (up to the clocks' rates); the resync time
    // follows the phase across the interval.
    EXPECT_LT(out_hi - out_lo, 100'000u) << "seed " << seed;
    EXPECT_GT(resync_hi - resync_lo, d.sync_interval_ps * (phases - 1) / phases - 1'000'000) << "seed " << seed;
  }
  // The control: no backup parents, so the devices wait for the controller's plan.
  const clock_result off = run(1, 0, false);
  const clock_failure_result& f = off.algorithms[0].failures[0];
  ASSERT_TRUE(f.all_recovered && f.outage_known);
  const clock_network_config c;
  EXPECT_GT(double(f.max_outage_ps), 3.0 * double(c.first_timeout_ps + c.sync_interval_ps + 20 * hop_ps));
  EXPECT_GE(f.resync_ps, 1'000 * us);
}

// In a fabric run the fabric steps the layer through every event before the run's end; a
// message that falls due at the end itself lies past the run (the fabric has stopped and freed
// its frames), so finish sends nothing. Stepped as the fabric steps it, with a transport that
// records the sends: the first time a send falls due is made the run's end.
TEST(ClockNetwork, InAFabricRunNothingIsSentAtTheEnd) {
  struct recording : sync_transport {
    size_t sends = 0;
    void send_sync(uint32_t, uint32_t, const sync_header&) override { ++sends; }
  };
  const topology t = fat_tree(4);
  clock_network_config c;
  c.root = "core0";
  c.duration_ps = 1'000 * us;
  // The first time after 0 at which a send falls due, stepping event by event.
  uint64_t end = 0;
  size_t before_end = 0;   // the sends before it
  {
    recording tr;
    clock_layer layer(t, c, &tr);
    layer.advance(0);
    before_end = tr.sends;
    while (tr.sends == before_end) {
      end = layer.next_event_ps();
      ASSERT_LT(end, c.duration_ps);
      layer.advance(end);
    }
  }
  ASSERT_GT(end, 0u);
  recording tr;
  clock_layer layer(t, c, &tr);
  layer.advance(0);
  while (layer.next_event_ps() < end) layer.advance(layer.next_event_ps());
  EXPECT_EQ(tr.sends, before_end);
  const clock_result r = layer.finish(end);
  EXPECT_EQ(tr.sends, before_end) << "finish ran a send due at the run's end";
  EXPECT_EQ(r.algorithms[0].summary["messages"], before_end);
  // Standalone (no transport), the same end runs what is due then, sends included.
  clock_layer alone(t, c, nullptr);
  EXPECT_GT(alone.finish(end).algorithms[0].summary["messages"].get<uint64_t>(), before_end);
}
