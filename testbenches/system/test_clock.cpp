// The clock layer in a run, in this process: a Sundial fabric through a root failure, with
// summary.json's "clock" and the epsilon and offset probes of every device and algorithm.
// The command-line side (scenario files, outputs, errors) is test_clock_cli.cpp.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fabric/run.h"
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
  EXPECT_NEAR(f["max_outage_us"].get<double>(), 365.0, 20.0);   // both timeouts [L1566]
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

// Sundial's controller programs every switch over the register bus (8 registers each) at t = 0
// and again after the failure; the clock layer runs from those registers. The k = 4 fat tree has
// 20 switches. The results are docs/validation/sundial.md's link failure: recovery ~270 us.
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
  EXPECT_EQ(s["register_writes"], 2u * 20 * 8);   // at t = 0 and after the failure
  EXPECT_EQ(s["register_reads"], 2u * 20 * 8);
  EXPECT_EQ(s["register_readback_mismatches"], 0u);
  EXPECT_EQ(s["controller_replans"], 1u);
  EXPECT_EQ(s["replans"], 1u);
  EXPECT_EQ(s["bound_violations"], 0u);
  ASSERT_EQ(s["failures"].size(), 1u);
  const auto& f = s["failures"][0];
  EXPECT_TRUE(f["recovered"].get<bool>());
  EXPECT_NEAR(f["max_outage_us"].get<double>(), 270.0, 10.0);   // first timeout + one interval [L1564]
  EXPECT_GT(s["reconfigured_devices"].get<uint64_t>(), 0u);
}
