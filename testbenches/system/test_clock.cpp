// The clock layer in a run, in this process: a Sundial fabric through a root failure, with
// summary.json's "clock" and the epsilon and offset probes of every device and algorithm.
// The command-line side (scenario files, outputs, errors) is test_clock_cli.cpp.
// Sections (§) and figures are those of Sundial (Li et al., OSDI 2020) as numbered in chapter 3
// of Li's thesis.
#include <algorithm>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fabric/fabric.h"
#include "run/run.h"
#include "harness.h"

using namespace netasic;

TEST(Clock, SundialRunInProcess) {
  const run_result r = run_scenario(small_config({{"topology.kind", "fat_tree"}, {"topology.k", "4"},
                                                  {"traffic.pattern", "list"}, {"sim.duration", "2000"},
                                                  {"sim.drain", "0"}, {"sim.probe_interval", "10"},
                                                  {"clock.algorithm", "sundial"}, {"clock.baselines", "ptp_fast"},
                                                  {"clock.controller_delay", "500"},
                                                  {"clock.faults", "[\"root @ 1000\"]"}}),
                                    progress_mode::none);
  const auto& c = r.summary["clock"];
  EXPECT_EQ(c["algorithms"], nlohmann::json({"sundial", "ptp_fast"}));
  EXPECT_EQ(c["devices"], 36);
  EXPECT_NEAR(r.summary["sim_time_s"].get<double>(), 2e-3, 1e-5);   // no flows: the clock's run
  for (const char* a : {"sundial", "ptp_fast"}) {
    EXPECT_EQ(c[a]["bound_violations"], 0) << a;
    EXPECT_GT(c[a]["bound_checks"].get<uint64_t>(), 1000u) << a;
    ASSERT_EQ(c[a]["failures"].size(), 1u);
    EXPECT_EQ(c[a]["failures"][0]["kind"], "root");
    EXPECT_EQ(c[a]["failures"][0]["target"], "core0");
  }
  const auto& f = c["sundial"]["failures"][0];
  EXPECT_TRUE(f["recovered"].get<bool>());
  EXPECT_NEAR(f["max_outage_us"].get<double>(), 365.0, 20.0);   // both timeouts (§3.6.1.3)
  EXPECT_EQ(c["sundial"]["elections"], 1);
  // Both series of every device and algorithm, in ns, one sample per probe time.
  size_t eps = 0, off = 0;
  for (const probe_series& s : r.probes.series) {
    if (s.name.rfind("clock.", 0) != 0) continue;
    EXPECT_EQ(s.unit, "ns");
    EXPECT_EQ(s.samples.size(), r.probes.t_s.size());
    eps += s.name.size() > 8 && s.name.compare(s.name.size() - 8, 8, ".epsilon") == 0;
    off += s.name.size() > 7 && s.name.compare(s.name.size() - 7, 7, ".offset") == 0;
  }
  EXPECT_EQ(eps, 2u * 36);
  EXPECT_EQ(off, 2u * 36);
  expect_accounting(r);
}

// Sundial's controller programs every switch and every NIC over the register bus (8 registers
// each) at t = 0 and again after the failure; the clock layer runs from those registers. The
// k = 4 fat tree has 20 switches and 16 hosts. The results are docs/validation/sundial.md's link
// failure: recovery ~270 us.
TEST(Clock, SundialControllerProgramsRegisters) {
  const run_result r = run_scenario(small_config({{"topology.kind", "fat_tree"}, {"topology.k", "4"},
                                                  {"topology.link_delay", "1000"}, {"traffic.pattern", "list"},
                                                  {"sim.duration", "1500"}, {"sim.drain", "0"}, {"sim.probe_interval", "10"},
                                                  {"clock.algorithm", "sundial"}, {"clock.root", "core0"},
                                                  {"clock.controller_delay", "500"},
                                                  {"clock.faults", "[\"link agg0-core0 @ 500\"]"}}),
                                    progress_mode::none);
  const auto& s = r.summary["clock"]["sundial"];
  EXPECT_EQ(s["configured_from"], "registers");
  // 2 programmings (t = 0, after the failure) x (20 switches + 16 NICs) x 8 registers.
  EXPECT_EQ(s["register_writes"], 2u * (20 + 16) * 8);
  EXPECT_EQ(s["register_reads"], 2u * (20 + 16) * 8);   // each write read back
  EXPECT_EQ(s["register_readback_mismatches"], 0u);
  EXPECT_EQ(s["controller_replans"], 1u);
  EXPECT_EQ(s["replans"], 1u);
  EXPECT_EQ(s["bound_violations"], 0u);
  ASSERT_EQ(s["failures"].size(), 1u);
  const auto& f = s["failures"][0];
  EXPECT_TRUE(f["recovered"].get<bool>());
  EXPECT_NEAR(f["max_outage_us"].get<double>(), 270.0, 10.0);   // first timeout + one interval (§3.6.1.3)
  EXPECT_GT(s["reconfigured_devices"].get<uint64_t>(), 0u);
}

// A NIC's own register block, as the controller's first programming leaves it: a leaf under its
// switch, EPS_BASE one hop more than the switch's (0 on the root), no backup parent.
TEST(Clock, SundialControllerProgramsTheNics) {
  fat_tree_spec spec;
  spec.k = 4;
  spec.host_rate_bps = spec.uplink_rate_bps = 100'000'000'000;
  spec.delay_ps = 1'000'000;
  fabric_config fc;
  fc.topo = build_fat_tree(spec);
  fc.routes = plan_routes(fc.topo);
  clock_network_config k;
  k.root = "core0";
  k.duration_ps = 10'000'000;   // 10 us: the registers are written at t = 0
  k.sundial_live_registers = true;
  fc.clock = &k;
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  fabric fab("fabric", fc, {});
  sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_US));
  const topology& t = fc.topo;
  ASSERT_EQ(fab.hosts().size(), 16u);
  for (unsigned h = 0; h < t.hosts.size(); ++h) {
    const unsigned tor = t.host_switch(h);
    const unsigned s = unsigned(std::find(t.switches.begin(), t.switches.end(), tor) - t.switches.begin());
    const sundial_regs& sw = fab.switches()[s]->sundial_registers();
    const sundial_regs& nic = fab.hosts()[h]->sundial_registers();
    EXPECT_EQ(nic[sundial_regs::valid], 1u) << h;
    EXPECT_EQ(nic[sundial_regs::root], 0u) << h;
    EXPECT_EQ(nic[sundial_regs::parent], 0u) << h;
    EXPECT_EQ(nic[sundial_regs::backup_parent], sundial_regs::none) << h;
    EXPECT_EQ(nic[sundial_regs::second_timeout], 0u) << h;
    EXPECT_EQ(nic[sundial_regs::first_timeout], sw[sundial_regs::first_timeout]) << h;
    EXPECT_EQ(nic[sundial_regs::eps_base], sw[sundial_regs::eps_base] + k.eps_per_hop_ps) << h;
    EXPECT_EQ(nic[sundial_regs::eps_base_backup], nic[sundial_regs::eps_base]) << h;
  }
  // The edge switches are two hops below core0: their NICs are three.
  EXPECT_EQ(fab.hosts()[0]->sundial_registers()[sundial_regs::eps_base], 3 * k.eps_per_hop_ps);
  EXPECT_EQ(fab.sundial()->register_writes(), uint64_t(20 + 16) * 8);
  EXPECT_EQ(fab.sundial()->readback_mismatches(), 0u);
}
