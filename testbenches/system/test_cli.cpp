// The netasic command as a user runs it: outputs, determinism, and configuration errors that
// stop the run before it simulates.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "run_cli.h"

namespace fs = std::filesystem;

namespace {

// The demo shrunk; without its incast, whose hosts would not exist.
const std::string small = " --set topology.hosts_per_leaf=4 --set sim.duration=200 --set traffic.load=0.3 --set 'traffic.flows=[]'";

}  // namespace

TEST(Cli, RunWritesEveryOutput) {
  const fs::path d = scratch("cli", "outputs");
  const outcome o = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/demo.toml --quiet --vcd --out " + d.string() + small);
  ASSERT_EQ(o.code, 0) << o.output;
  for (const char* f : {"summary.json", "flows.csv", "links.csv", "probes.csv", "config.toml", "report.html", "waves.vcd", "waves.gtkw"})
    EXPECT_TRUE(fs::exists(d / f)) << f;
  const auto s = nlohmann::json::parse(slurp(d / "summary.json"));
  for (const char* k : {"scenario", "seed", "sim_time_s", "wall_time_s", "packet_hops", "packet_hops_per_s"})
    EXPECT_TRUE(s.contains(k)) << k;
  for (const char* k : {"sent", "delivered", "dropped", "in_flight"}) EXPECT_TRUE(s["packets"].contains(k)) << k;
  for (const char* k : {"p50", "p95", "p99"}) EXPECT_TRUE(s["fct_slowdown"].contains(k)) << k;
  EXPECT_GT(s["flows"]["completed"].get<uint64_t>(), 0u);
  EXPECT_EQ(s["flows"]["started"], s["flows"]["completed"]);
  // The resolved config reproduces the run: same flows, byte for byte.
  const fs::path d2 = scratch("cli", "rerun");
  const outcome o2 = netasic_cli("run " + (d / "config.toml").string() + " --quiet --out " + d2.string());
  ASSERT_EQ(o2.code, 0) << o2.output;
  EXPECT_EQ(slurp(d / "flows.csv"), slurp(d2 / "flows.csv"));
}

TEST(Cli, SameSeedSameResultsBitForBit) {
  const fs::path a = scratch("cli", "seed_a"), b = scratch("cli", "seed_b"), c = scratch("cli", "seed_c");
  const std::string base = "run " NETASIC_SOURCE_DIR "/scenarios/demo.toml --quiet" + small;
  ASSERT_EQ(netasic_cli(base + " --seed 5 --out " + a.string()).code, 0);
  ASSERT_EQ(netasic_cli(base + " --seed 5 --out " + b.string()).code, 0);
  ASSERT_EQ(netasic_cli(base + " --seed 6 --out " + c.string()).code, 0);
  EXPECT_EQ(slurp(a / "flows.csv"), slurp(b / "flows.csv"));
  EXPECT_EQ(slurp(a / "probes.csv"), slurp(b / "probes.csv"));
  auto strip = [](nlohmann::json j) {
    for (const char* k : {"wall_time_s", "packet_hops_per_s", "peak_memory_bytes"}) j.erase(k);
    j.erase("memory");   // measured by the allocator, as peak memory is by the kernel
    return j.dump();
  };
  EXPECT_EQ(strip(nlohmann::json::parse(slurp(a / "summary.json"))), strip(nlohmann::json::parse(slurp(b / "summary.json"))));
  EXPECT_NE(slurp(a / "flows.csv"), slurp(c / "flows.csv"));
}

TEST(Cli, ConfigErrorsStopBeforeSimulating) {
  const fs::path d = scratch("cli", "errors");
  std::ofstream(d / "bad.toml") << "[topology]\nleaves = 4\nleafs = 2\n";
  const fs::path out = d / "run";
  outcome o = netasic_cli("run " + (d / "bad.toml").string() + " --out " + out.string());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("bad.toml:3"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("did you mean 'topology.leaves'"), std::string::npos) << o.output;
  EXPECT_FALSE(fs::exists(out)) << "nothing may be written when the configuration is bad";

  std::ofstream(d / "range.toml") << "[traffic]\nload = 1.5\n";
  o = netasic_cli("run " + (d / "range.toml").string() + " --out " + out.string());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("range.toml:2"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("traffic.load"), std::string::npos) << o.output;

  std::ofstream(d / "clock.toml") << "[switch]\nclock = 3000\n";   // 333.3 ps period
  o = netasic_cli("run " + (d / "clock.toml").string() + " --out " + out.string());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("clock.toml:2: key 'switch.clock'"), std::string::npos) << o.output;

  std::ofstream(d / "unused.toml") << "[topology]\nkind = \"fat_tree\"\nleaves = 8\n";   // leaves: leaf_spine only
  o = netasic_cli("run " + (d / "unused.toml").string() + " --out " + out.string());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("unused.toml:3: key 'topology.leaves': is not used when topology.kind is fat_tree"),
            std::string::npos) << o.output;

  o = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/demo.toml --set topology.failed_links=leaf9-spine0 --out " + out.string());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("leaf9-spine0"), std::string::npos) << o.output;

  // Congestion control without its signal.
  o = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/demo.toml --set nic.int_padding=false --out " + out.string());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("key 'nic.int_padding'"), std::string::npos) << o.output;
  o = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/demo.toml --set cc.algorithm=dctcp --set nic.data_priority=2 --out " + out.string());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("key 'ecn.priorities'"), std::string::npos) << o.output;
  // HPCC's initial window (line rate x base RTT: 1 Mbps x 5 us) below its additive step: refused
  // before the run simulates, where the first flow's start stopped the kernel.
  o = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/demo.toml --set topology.host_rate=0.001 --set cc.base_rtt=5 --out " + out.string());
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("key 'cc.algorithm': \"hpcc\" is refused at a host line rate of 0.001 Gbps"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("below w_ai_bytes"), std::string::npos) << o.output;

  // Flowcut in the switches counts bytes until their ACKs return: data must be lossless; and it
  // picks paths itself, so not under LetFlow.
  o = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/lb/flowcut_fattree.toml --set flowcut.form=switch --set 'pfc.priorities=[]' "
              "--out " + out.string());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("key 'flowcut.form'"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("pfc.priorities"), std::string::npos) << o.output;
  o = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/demo.toml --set flowcut.form=ingress --out " + out.string());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("key 'flowcut.form'"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("lb.mode = \"letflow\""), std::string::npos) << o.output;

  // A BalanceSketch whose 8-bit timestamps cannot span Delta in slices of delta (1000 > 254).
  o = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/lb/burstbalancer_testbed.toml --set lb.sketch.flowlet_timeout=2 "
              "--set lb.sketch.flow_timeout=2000 --out " + out.string());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("key 'lb.sketch.flow_timeout'"), std::string::npos) << o.output;
  EXPECT_FALSE(fs::exists(out));

  // RED's kmin above its kmax: the error names the key that was set, kmin when kmax is the default.
  const std::string kmin = " --set 'ecn.kmin=[2000,2000,2000,2000,2000,2000,2000,2000]'";
  o = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/fat_tree_k8.toml --set 'ecn.priorities=[0]'" + kmin + " --out " + out.string());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("--set: key 'ecn.kmin': priority 0: kmin 2000 KiB is above ecn.kmax's default of 1600 KiB"),
            std::string::npos) << o.output;
  o = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/demo.toml" + kmin + " --out " + out.string());   // the demo sets kmax
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("demo.toml:"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("key 'ecn.kmax': priority 3: kmax 1600 KiB is below kmin 2000 KiB (ecn.kmin from --set)"),
            std::string::npos) << o.output;

  // An empty --out is refused, not taken as the default directory; the same for sweep and size.
  for (const std::string cmd : {"run", "sweep", "size"}) {
    const std::string extra = cmd == "sweep" ? " --grid traffic.load=0.3" : cmd == "size" ? " --param lb.flowlet.entries --goal 'fct_slowdown.p99 <= 2'" : "";
    o = netasic_cli(cmd + " " NETASIC_SOURCE_DIR "/scenarios/demo.toml" + extra + " --out ''");
    EXPECT_EQ(o.code, 2) << cmd << ": " << o.output;
    EXPECT_NE(o.output.find("--out"), std::string::npos) << cmd << ": " << o.output;
    EXPECT_NE(o.output.find("is empty"), std::string::npos) << cmd << ": " << o.output;
  }
}

TEST(Cli, KeysOfAModeNotSelectedAreRefusedUnlessKeptForASweep) {
  const fs::path d = scratch("cli", "unselected");
  std::ofstream(d / "modes.toml") << "[lb]\nmode = \"ecmp\"\nflowlet.timeout = 50\n\n[hpcc]\neta = 0.9\n";
  outcome o = netasic_cli("run " + (d / "modes.toml").string() + small + " --quiet --out " + (d / "run").string());
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("error: " + (d / "modes.toml").string() + ":3: key 'lb.flowlet.timeout': has no effect with lb.mode = \"ecmp\""),
            std::string::npos) << o.output;
  EXPECT_FALSE(fs::exists(d / "run"));
  // Kept for a scenario swept over modes: the same file runs, and says what it does not use.
  o = netasic_cli("run " + (d / "modes.toml").string() + small + " --set sim.unused_keys=warn --quiet --out " + (d / "run").string());
  EXPECT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("warning: " + (d / "modes.toml").string() + ":3: key 'lb.flowlet.timeout' has no effect with lb.mode = \"ecmp\""),
            std::string::npos) << o.output;
  EXPECT_NE(o.output.find("modes.toml:6: key 'hpcc.eta' has no effect with cc.algorithm = \"none\""), std::string::npos) << o.output;
  // A mode chosen on the command line (a comparison, a sweep's grid) keeps the file's keys of the
  // file's own mode with a warning; the same key typed on the command line is still refused.
  std::ofstream(d / "letflow.toml") << "[lb]\nmode = \"letflow\"\nflowlet.timeout = 50\n";
  o = netasic_cli("run " + (d / "letflow.toml").string() + small + " --set lb.mode=ecmp --quiet --out " + (d / "run2").string());
  EXPECT_EQ(o.code, 0) << o.output;
  const std::string said = "warning: " + (d / "letflow.toml").string() + ":3: key 'lb.flowlet.timeout' has no effect";
  EXPECT_NE(o.output.find(said), std::string::npos) << o.output;
  // Once, though the report reads the scenario again after the run.
  EXPECT_EQ(o.output.find(said, o.output.find(said) + 1), std::string::npos) << o.output;
  o = netasic_cli("run " + (d / "letflow.toml").string() + small + " --set lb.mode=ecmp --set lb.flowlet.sweep_width=4 --quiet --out " +
                  (d / "run3").string());
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("key 'lb.flowlet.sweep_width': has no effect with lb.mode"), std::string::npos) << o.output;
}

TEST(Cli, ConfigReferenceIsCurrent) {
  const outcome o = netasic_cli("params --markdown");
  ASSERT_EQ(o.code, 0);
  EXPECT_EQ(o.output, slurp(NETASIC_SOURCE_DIR "/docs/config-reference.md"))
      << "docs/config-reference.md is stale: run `make docs`";
}

TEST(Cli, ParamsListsDeclaredKeys) {
  const outcome o = netasic_cli("params topology");
  EXPECT_EQ(o.code, 0);
  EXPECT_NE(o.output.find("topology.leaves"), std::string::npos);
  EXPECT_NE(o.output.find("Gbps"), std::string::npos);
  EXPECT_EQ(o.output.find("traffic.load"), std::string::npos);
}

TEST(Cli, SweepRunsEveryPoint) {
  const fs::path d = scratch("cli", "sweep");
  const outcome o = netasic_cli("sweep " NETASIC_SOURCE_DIR "/scenarios/demo.toml --quiet -j 2 --out " + d.string() +
                            " --grid traffic.load=0.2,0.4 --grid topology.spines=1,2 --set topology.hosts_per_leaf=2 --set 'traffic.flows=[]'"
                            " --set sim.duration=100");
  ASSERT_EQ(o.code, 0) << o.output;
  std::istringstream csv(slurp(d / "sweep.csv"));
  std::string line;
  int rows = 0;
  std::getline(csv, line);
  EXPECT_NE(line.find("traffic.load"), std::string::npos);
  while (std::getline(csv, line)) ++rows;
  EXPECT_EQ(rows, 4);
  EXPECT_TRUE(fs::exists(d / "sweep.html"));
}

TEST(Cli, SweepChecksEveryPointBeforeRunningAny) {
  const fs::path d = scratch("cli", "sweep_bad");
  const outcome o = netasic_cli("sweep " NETASIC_SOURCE_DIR "/scenarios/demo.toml --quiet --out " + d.string() +
                            " --grid traffic.load=0.2,1.5");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("traffic.load"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("1.5"), std::string::npos) << o.output;
  EXPECT_FALSE(fs::exists(d / "point-001")) << "no point may run when one is invalid";
  EXPECT_EQ(netasic_cli("sweep " NETASIC_SOURCE_DIR "/scenarios/demo.toml --quiet --out " + d.string() +
                    " --grid topology.leafs=2").code, 2);
}

TEST(Cli, ResourcesSaysWhetherTheProgramFits) {
  const std::string demo = std::string(NETASIC_SOURCE_DIR) + "/scenarios/demo.toml";
  const outcome ok = netasic_cli("resources " + demo);
  EXPECT_EQ(ok.code, 0) << ok.output;
  EXPECT_NE(ok.output.find("8 switches with 20 ports"), std::string::npos) << ok.output;
  EXPECT_NE(ok.output.find("route"), std::string::npos) << ok.output;
  EXPECT_NE(ok.output.find("\nfits"), std::string::npos) << ok.output;
  // INT's register array needs a stateful ALU; one stage with one ALU cannot also hold the
  // route table and the ECMP table after it.
  const outcome no = netasic_cli("resources " + demo + " --set nic.int_padding=true --set switch.stages=1");
  EXPECT_EQ(no.code, 4) << no.output;
  EXPECT_NE(no.output.find("does not fit"), std::string::npos) << no.output;
  EXPECT_NE(no.output.find("'ecmp_member'"), std::string::npos) << no.output;
}

namespace {

const std::string tiny_lb = NETASIC_SOURCE_DIR "/scenarios/demo.toml --set topology.leaves=2 --set topology.hosts_per_leaf=2 --set 'traffic.flows=[]'"
                            " --set sim.duration=20 --set sim.drain=200 --set clock.algorithm=off --set clock.root=";

}  // namespace

// The table's size is in the summary (load_balancer.table_entries), so a goal on it has an
// exact answer known without the tool: >= 0.25 x the reference's 64 entries is 16 entries.
// The control: a goal no candidate meets ends with the documented exit code and the best value.
TEST(Cli, SizeFindsTheSmallestValueAndSaysWhenNoneMeetsTheGoal) {
  const fs::path d = scratch("cli", "size");
  const std::string base = "size " + tiny_lb + " --param lb.flowlet.entries --pow2 4..64 --seeds 2 -j 2 --quiet --no-synth";
  const outcome o = netasic_cli(base + " --goal 'load_balancer.table_entries >= 0.25 * ref' --goal 'flows.max_reorder_packets <= 0'"
                                   " --ref lb.flowlet.entries=64 --out " + d.string());
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("lb.flowlet.entries = 16 entries"), std::string::npos) << o.output;
  const std::string csv = slurp(d / "size.csv");
  EXPECT_NE(csv.find("\n8,2,not met,8,8,8,8,8,16,not met,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n16,2,met,16,16,16,16,16,16,met,"), std::string::npos) << csv;
  const std::string html = slurp(d / "size.html");
  EXPECT_NE(html.find("<b>lb.flowlet.entries = 16 entries</b>"), std::string::npos);
  EXPECT_NE(html.find("Placement on the target"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);

  const fs::path n = scratch("cli", "size_never");
  const outcome never = netasic_cli(base + " --goal 'load_balancer.table_entries >= 1000' --out " + n.string());
  EXPECT_EQ(never.code, 6) << never.output;
  EXPECT_NE(never.output.find("the best seen is 64"), std::string::npos) << never.output;
  EXPECT_NE(slurp(n / "size.html").find("No value from 4 to 64 entries meets every goal."), std::string::npos);
}

// Every run places its switch programs on the target (summary.json's resources, the report's
// first table, a warning). By hand: a LetFlow entry is 16 bits, so 2^20 entries fill
// 2^20 x 16 / (1024 words x 128 bits) = 128 SRAM blocks plus the read-modify-write spare, 129,
// against a stage's 80; 2^19 entries take 64 + 1. The control, 1024 entries, fits.
TEST(Cli, ARunPlacesItsTablesOnTheTargetAndSaysWhatDoesNotFit) {
  auto run = [](const std::string& entries) {
    const fs::path d = scratch("cli", "placed_" + entries);
    const outcome o = netasic_cli("run " + tiny_lb + " --set lb.flowlet.entries=" + entries + " --out " + d.string());
    EXPECT_EQ(o.code, 0) << o.output;
    return std::make_pair(o, d);
  };
  const auto [big, big_dir] = run("1048576");
  const auto res = nlohmann::json::parse(slurp(big_dir / "summary.json"))["resources"];
  EXPECT_FALSE(res["fits"].get<bool>());
  EXPECT_EQ(res["binding_resource"], "SRAM blocks");
  EXPECT_EQ(res["binding_item"], "flowlet");
  EXPECT_NE(res["advice"].get<std::string>().find("2^19 (524288)"), std::string::npos) << res;
  EXPECT_NE(big.output.find("warning: the switch program does not fit on target generic"), std::string::npos) << big.output;
  EXPECT_NE(slurp(big_dir / "report.html").find("does NOT fit on target generic"), std::string::npos);

  const auto [small_table, small_dir] = run("1024");
  EXPECT_TRUE(nlohmann::json::parse(slurp(small_dir / "summary.json"))["resources"]["fits"].get<bool>());
  EXPECT_EQ(small_table.output.find("does not fit"), std::string::npos) << small_table.output;
  EXPECT_NE(slurp(small_dir / "report.html").find("fits on target generic"), std::string::npos);
}

TEST(Cli, SizeRefusesBadInputBeforeAnyRun) {
  const fs::path d = scratch("cli", "size_bad");
  const std::string base = "size " + tiny_lb + " --pow2 4..64 --quiet --out " + d.string();
  auto refused = [&](const std::string& args, const std::string& says) {
    const outcome o = netasic_cli(base + " " + args);
    EXPECT_EQ(o.code, 2) << args << "\n" << o.output;
    EXPECT_NE(o.output.find(says), std::string::npos) << args << "\n" << o.output;
    EXPECT_FALSE(fs::exists(d / "size.csv")) << args;
  };
  refused("--param lb.flowlet.entries --goal 'flows.max_reorder_packet <= 0'",
          "no metric 'flows.max_reorder_packet'; the closest is 'flows.max_reorder_packets'");
  refused("--param lb.mode --goal 'flows.max_reorder_packets <= 0'", "--param 'lb.mode': not a number");
  refused("--param lb.flowlet.entrys --goal 'flows.max_reorder_packets <= 0'", "did you mean 'lb.flowlet.entries'");
  refused("--param lb.flowlet.entries --goal 'flows.max_reorder_packets == 0'", "unknown operator '=='");
  refused("--param lb.flowlet.entries --goal 'fct_slowdown.p99 <= 1.05 * ref'", "no --ref");
  refused("--param lb.flowlet.entries --goal 'fct_slowdown.p99 <= 2' --ref lb.flowlet.entries=64", "no --goal uses ref");
  refused("--param lb.flowlet.ports --goal 'fct_slowdown.p99 <= 2'", "lb.flowlet.ports");   // 32, 64 out of range
}
