// The RTL as a user reaches it: `netasic synth` counts what the design must hold (registers and
// memory bits follow from its parameters), a misspelt parameter stops before Yosys runs, the
// save files name real signals, and a run with a block's RTL in the loop gives the core run's
// summary. The lockstep benches themselves are ctest entries cosim.BLOCK and .fault_caught.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_cli.h"

namespace {

uint64_t field(const std::string& out, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(out, m, std::regex(name + "\\s+([0-9]+)"))) return UINT64_MAX;
  return std::stoull(m[1]);
}

}  // namespace

TEST(Rtl, SynthCountsTheHashUnitsRegisters) {
  // crc_hash registers its hash and a valid bit: WIDTH + 1 flip-flops, no memory.
  outcome o = netasic_cli("synth crc_hash");
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_EQ(field(o.output, "flip-flops"), 33u) << o.output;
  EXPECT_EQ(field(o.output, "memories"), 0u) << o.output;
  o = netasic_cli("synth crc_hash -p WIDTH=16 -p POLY=4129 -p XOROUT=0 -p REFLECT=0");
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_EQ(field(o.output, "flip-flops"), 17u) << o.output;
  // A shorter key is a smaller XOR tree.
  const outcome small = netasic_cli("synth crc_hash -p KEY_BYTES=4");
  EXPECT_LT(field(small.output, "logic cells"), field(netasic_cli("synth crc_hash").output, "logic cells"));
}

// A block's count does not depend on the other blocks' files: Yosys maps in an order that follows
// the names it has read, so a synth that read every file in rtl/ counted crc_hash at 1,381 cells
// with an unrelated module added to balance_sketch.sv (read first), against 1,376 without.
TEST(Rtl, SynthReadsOnlyTheBlocksOwnRtl) {
  namespace fs = std::filesystem;
  const fs::path rtl = scratch("rtl", "rtl");
  for (const auto& e : fs::directory_iterator(NETASIC_SOURCE_DIR "/rtl")) fs::copy(e.path(), rtl / e.path().filename());
  std::ofstream(rtl / "balance_sketch.sv", std::ios::app) << [] {
    std::string m = "module unrelated_padding (input logic clk, input logic [7:0] a, output logic [7:0] y);\n";
    for (int i = 0; i < 100; ++i)
      m += "  logic [7:0] pad_" + std::to_string(i) + ";\n  always_ff @(posedge clk) pad_" + std::to_string(i) + " <= a + 8'd" +
           std::to_string(i) + ";\n";
    return m + "  assign y = pad_0;\nendmodule\n";
  }();
  const outcome own = netasic_cli("synth crc_hash"), padded = netasic_cli("synth crc_hash --rtl-dir " + rtl.string());
  ASSERT_EQ(own.code, 0) << own.output;
  ASSERT_EQ(padded.code, 0) << padded.output;
  EXPECT_EQ(field(padded.output, "logic cells"), field(own.output, "logic cells")) << own.output << padded.output;
}

// A parameter given at its default value is the default design, and counts as it: Yosys re-
// elaborating it under new names (chparam) counted crc_hash at 1,381 cells with -p KEY_BYTES=13
// against 1,376 without.
TEST(Rtl, SynthOfADefaultValueIsTheDefaultDesign) {
  const outcome plain = netasic_cli("synth crc_hash");
  const outcome given = netasic_cli("synth crc_hash -p KEY_BYTES=13 -p POLY=79764919");   // the RTL's 32'h04C11DB7
  ASSERT_EQ(plain.code, 0) << plain.output;
  ASSERT_EQ(given.code, 0) << given.output;
  EXPECT_EQ(field(given.output, "logic cells"), field(plain.output, "logic cells")) << plain.output << given.output;
  // A value that differs still reaches Yosys.
  EXPECT_LT(field(netasic_cli("synth crc_hash -p KEY_BYTES=12").output, "logic cells"), field(plain.output, "logic cells"));
}

// A -p value that is not a Verilog number, or past 64 bits, is refused before Yosys runs, naming it.
TEST(Rtl, SynthRefusesAValueThatIsNotANumber) {
  for (const char* p : {"KEY_BYTES=12x", "POLY=18446744073709551616", "POLY=32'hXYZ"}) {
    const outcome o = netasic_cli(std::string("synth crc_hash -p \"") + p + "\"");
    EXPECT_NE(o.code, 0) << p;
    EXPECT_NE(o.output.find(std::string("-p '") + p + "': NAME must be a Verilog identifier and VALUE a number"), std::string::npos) << o.output;
  }
  // At the edge: 2^64 - 1 is a number (its count is Yosys's business).
  EXPECT_EQ(netasic_cli("synth crc_hash -p POLY=18446744073709551615").output.find("VALUE a number"), std::string::npos);
}

// docs/cosim.md's Sizes table is what `netasic synth` gives for each row's block and parameters,
// logic cells and flip-flops, with today's RTL. Every block's synthesis is minutes in all: label long.
TEST(LongRtl, SizesTableIsWhatSynthGives) {
  std::ifstream doc(NETASIC_SOURCE_DIR "/docs/cosim.md");
  ASSERT_TRUE(doc) << "docs/cosim.md";
  const std::regex row(R"(^\| `([a-z_]+)` \| ([^|]*) \| ([0-9 ]+) \| ([0-9 ]+) \|)");
  const std::regex param(R"([A-Z][A-Z0-9_]*=[0-9]+)");
  auto number = [](std::string s) {
    s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
    return std::stoull(s);
  };
  bool in_sizes = false;
  unsigned rows = 0;
  for (std::string line; std::getline(doc, line);) {
    if (line.rfind("## ", 0) == 0) in_sizes = line.rfind("## Sizes", 0) == 0;
    std::smatch m;
    if (!in_sizes || !std::regex_search(line, m, row)) continue;
    std::string cmd = "synth " + m[1].str();
    const std::string params = m[2].str();
    for (auto p = std::sregex_iterator(params.begin(), params.end(), param); p != std::sregex_iterator(); ++p)
      cmd += " -p " + p->str();
    const outcome o = netasic_cli(cmd);
    ASSERT_EQ(o.code, 0) << cmd << "\n" << o.output;
    EXPECT_EQ(field(o.output, "logic cells"), number(m[3])) << line;
    EXPECT_EQ(field(o.output, "flip-flops"), number(m[4])) << line;
    ++rows;
  }
  EXPECT_GE(rows, 13u) << "the Sizes table of docs/cosim.md was not found";
}

TEST(Rtl, SynthKeepsTheFlowletTableAsOneMemory) {
  // The table is one SRAM of entries x {valid, age bits, port}: the core's memory_bits(), and
  // its logic does not grow with the table.
  for (const auto& [entries, age_bits] : {std::pair{4096, 1}, std::pair{16384, 2}}) {
    const outcome o = netasic_cli("synth flowlet_table -p ENTRIES=" + std::to_string(entries) + " -p AGE_BITS=" + std::to_string(age_bits));
    ASSERT_EQ(o.code, 0) << o.output;
    EXPECT_EQ(field(o.output, "memories"), 1u) << o.output;
    EXPECT_NE(o.output.find("(" + std::to_string(uint64_t(entries) * (1 + age_bits + 8)) + " bits"), std::string::npos) << o.output;
    EXPECT_LT(field(o.output, "flip-flops"), 1000u) << o.output;
  }
}

TEST(Rtl, SynthNamesABadParameterOrBlock) {
  outcome o = netasic_cli("synth crc_hash -p ENTRIES=4096");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("crc_hash has no parameter ENTRIES (parameters: WIDTH, POLY, REFLECT, XOROUT, KEY_BYTES)"),
            std::string::npos) << o.output;
  o = netasic_cli("synth crc_hash -p WIDTH");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("expected NAME=VALUE"), std::string::npos) << o.output;
  o = netasic_cli("synth no_such_block");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("no RTL for block 'no_such_block'"), std::string::npos) << o.output;
}

TEST(Rtl, EveryWaveformSaveFileNamesSignalsItsBenchWrites) {
  // waveforms/BLOCK.gtkw must open the VCD of `netasic cosim BLOCK --vcd`: every signal it lists
  // is declared there, scope path and bit range included.
  namespace fs = std::filesystem;
  unsigned files = 0;
  for (const auto& e : fs::directory_iterator(NETASIC_SOURCE_DIR "/waveforms")) {
    if (e.path().extension() != ".gtkw") continue;
    ++files;
    const std::string block = e.path().stem().string();
    const fs::path vcd = fs::path(::testing::TempDir()) / (block + "_gtkw_check.vcd");
    const outcome o = netasic_cli("cosim " + block + " --cycles 50 --no-timing --vcd " + vcd.string());
    ASSERT_EQ(o.code, 0) << o.output;
    std::set<std::string> declared;
    std::vector<std::string> scope;
    std::ifstream in(vcd);
    for (std::string tok; in >> tok;) {
      if (tok == "$scope") {
        std::string kind, name;
        in >> kind >> name;
        scope.push_back(name);
      } else if (tok == "$upscope") {
        scope.pop_back();
      } else if (tok == "$var") {
        std::string type, width, id, name, range;
        in >> type >> width >> id >> name >> range;
        std::string path;
        for (const auto& s : scope) path += s + ".";
        declared.insert(path + name + (range == "$end" ? "" : range));
      } else if (tok == "$enddefinitions") {
        break;
      }
    }
    std::ifstream save(e.path());
    unsigned signals = 0;
    for (std::string line; std::getline(save, line);) {
      if (line.empty() || line[0] == '@' || line[0] == '[' || line[0] == '-' || line[0] == '*') continue;
      ++signals;
      EXPECT_TRUE(declared.count(line)) << e.path().filename() << " names " << line << ", which the bench's VCD lacks";
    }
    EXPECT_GT(signals, 3u) << e.path();
  }
  EXPECT_GT(files, 0u);
}

namespace {

// summary.json of a small run, without the fields that measure the host machine or the model's heap.
nlohmann::json summary_of(const std::string& args, const std::string& dir) {
  const outcome o = netasic_cli("run " + args + " --quiet --out " + dir);
  EXPECT_EQ(o.code, 0) << o.output;
  nlohmann::json s;
  std::ifstream(dir + "/summary.json") >> s;
  for (const char* k : {"wall_time_s", "packet_hops_per_s", "peak_memory_bytes"}) s.erase(k);
  s.erase("memory");   // the model's own heap: a Verilated block in place of its core takes other bytes
  if (s.contains("flowradar"))   // the collector's decode times, measured on the host
    for (const char* k : {"single_decode_wall_s", "flow_decode_wall_s", "counter_decode_wall_s"}) s["flowradar"].erase(k);
  return s;
}

// The same run with the block's core (in DIR/core) and with its Verilated RTL in the loop
// (DIR/rtl): summary.json (but for what the RTL did and the host's measures), flows.csv and
// probes.csv must be the same, byte for byte. `name` tells apart the runs of one test (DIR is the
// test's and the name's). Returns DIR; the core run's summary and the RTL's counts go to *core
// and *loop when given.
std::string rtl_in_the_loop_changes_nothing(const std::string& scenario_and_sets, const std::string& block,
                                            const std::string& name, nlohmann::json* core = nullptr,
                                            nlohmann::json* loop = nullptr) {
  const std::string d = scratch("rtl_loop", name).string();
  const nlohmann::json c = summary_of(scenario_and_sets, d + "/core");
  nlohmann::json rtl = summary_of(scenario_and_sets + " --rtl " + block, d + "/rtl");
  EXPECT_FALSE(c.empty()) << name;
  EXPECT_FALSE(c.contains("rtl_in_loop")) << name;
  if (!rtl.contains("rtl_in_loop")) {
    ADD_FAILURE() << name << ": the RTL was not used";
    return d;
  }
  const nlohmann::json counts = rtl["rtl_in_loop"][block];
  const uint64_t calls = counts["calls"].get<uint64_t>();
  EXPECT_GT(calls, 1000u) << name << ": the RTL answered too few calls to prove much";
  // Each call takes one of the RTL's cycles at least, clocked or stepped over as quiet; the
  // flowlet table's two lanes take two lookups in one.
  const uint64_t calls_a_cycle = block == "flowlet_table" ? 2 : 1;
  EXPECT_GE((counts["cycles"].get<uint64_t>() + counts["quiet_cycles_skipped"].get<uint64_t>()) * calls_a_cycle, calls)
      << name << ": the RTL's cycles are not all counted";
  rtl.erase("rtl_in_loop");
  EXPECT_EQ(c.dump(1), rtl.dump(1)) << name;
  for (const char* f : {"/flows.csv", "/probes.csv"}) {
    const std::string a = slurp(d + "/core" + f);
    EXPECT_GT(a.size(), 100u) << name << f;
    EXPECT_TRUE(a == slurp(d + "/rtl" + f)) << name << f << " differs";
  }
  if (core) *core = c;
  if (loop) *loop = counts;
  return d;
}

const std::string small_leaf_spine =
    " --set topology.leaves=2 --set topology.spines=4 --set topology.hosts_per_leaf=8 --set sim.duration=200 --set 'traffic.flows=[]'"
    " --set sim.probe_interval=20";

}  // namespace

TEST(Rtl, FlowletTableInTheLoopGivesTheCoresSummary) {
  rtl_in_the_loop_changes_nothing(NETASIC_SOURCE_DIR "/scenarios/demo.toml" + small_leaf_spine, "flowlet_table", "flowlet_table");
}

TEST(Rtl, CrcHashInTheLoopGivesTheCoresSummary) {
  rtl_in_the_loop_changes_nothing(NETASIC_SOURCE_DIR "/scenarios/demo.toml" + small_leaf_spine, "crc_hash", "crc_hash");
}

TEST(Rtl, RecipDividerInTheLoopGivesTheCoresSummary) {
  rtl_in_the_loop_changes_nothing(NETASIC_SOURCE_DIR "/scenarios/demo.toml" + small_leaf_spine, "reciprocal_table", "reciprocal_table");
}

TEST(Rtl, BalanceSketchInTheLoopGivesTheCoresSummary) {
  rtl_in_the_loop_changes_nothing(NETASIC_SOURCE_DIR "/scenarios/lb/burstbalancer_leafspine.toml --set topology.leaves=2 "
                                  "--set topology.spines=4 --set topology.hosts_per_leaf=8 --set sim.duration=300",
                                  "balance_sketch", "balance_sketch");
}

// Every register program of a run on the Verilated ALU: FlowRadar's cells (dual 16-bit cell
// arrays, 32-bit lanes and packet counters), BalanceSketch's four registers in its stateful_alu
// form (16-, 8-, 32- and 8-bit words: all three models) and LossRadar's meters (32 and 16 bits).
TEST(Rtl, StatefulAluInTheLoopGivesTheCoresSummary) {
  const std::string flowradar = NETASIC_SOURCE_DIR "/scenarios/telemetry/flowradar.toml --set sim.duration=10000 "
                                "--set telemetry.flowradar_epoch=2";
  nlohmann::json s;
  rtl_in_the_loop_changes_nothing(flowradar, "stateful_alu", "flowradar", &s);
  // Not vacuous: the collector decoded every flow and its packet count from the cells the RTL
  // held. Control: the same summary with the cells spread over two hashes instead of three (other
  // packets meet in each cell) differs, so the comparison sees what the arrays hold.
  ASSERT_TRUE(s.contains("flowradar"));
  EXPECT_GT(s["flowradar"]["flows"].get<uint64_t>(), 100u);
  EXPECT_EQ(s["flowradar"]["decoded_flows"], s["flowradar"]["flows"]);
  EXPECT_EQ(s["flowradar"]["counted_flows"], s["flowradar"]["flows"]);
  const nlohmann::json other = summary_of(flowradar + " --set telemetry.flowradar_cell_hashes=2",
                                          ::testing::TempDir() + "netasic_rtl_loop_alu_control");
  EXPECT_NE(s.dump(1), other.dump(1));

  rtl_in_the_loop_changes_nothing(NETASIC_SOURCE_DIR "/scenarios/lb/burstbalancer_leafspine.toml --set topology.leaves=2 "
                                  "--set topology.spines=4 --set topology.hosts_per_leaf=8 --set sim.duration=300 "
                                  "--set lb.sketch.form=stateful_alu",
                                  "stateful_alu", "balance_sketch_form");
  // LossRadar: every meter's two digests (5,760 ALUs on the k = 4 fat tree); every drop listed.
  nlohmann::json lr;
  rtl_in_the_loop_changes_nothing(NETASIC_SOURCE_DIR "/scenarios/telemetry/lossradar.toml --set sim.duration=2000", "stateful_alu",
                                  "lossradar", &lr);
  ASSERT_TRUE(lr.contains("lossradar"));
  EXPECT_GT(lr["lossradar"]["dropped_packets"].get<uint64_t>(), 100u);
  EXPECT_EQ(lr["lossradar"]["matched_packets"], lr["lossradar"]["dropped_packets"]);
}

TEST(Rtl, InTheLoopRefusesABlockTheScenarioDoesNotUse) {
  const outcome o = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/demo.toml --rtl balance_sketch --out " +
                            ::testing::TempDir() + "netasic_rtl_unused");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("--rtl balance_sketch: the scenario does not use this block"), std::string::npos) << o.output;
  // A block named twice is refused, as other repeated names are (it would be one block in the loop).
  const outcome twice = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/demo.toml --rtl flowlet_table --rtl flowlet_table --out " +
                                    ::testing::TempDir() + "netasic_rtl_twice");
  EXPECT_EQ(twice.code, 2) << twice.output;
  EXPECT_NE(twice.output.find("--rtl flowlet_table is given twice"), std::string::npos) << twice.output;
  EXPECT_FALSE(std::filesystem::exists(::testing::TempDir() + "netasic_rtl_twice"));
  // A table size the Verilated RTL was not built for is named by its key and where it was set.
  const outcome size = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/lb/burstbalancer_testbed.toml --rtl balance_sketch --out " +
                               ::testing::TempDir() + "netasic_rtl_size");
  EXPECT_EQ(size.code, 2);
  EXPECT_NE(size.output.find("burstbalancer_testbed.toml:46: key 'lb.sketch.buckets': is 128, but --rtl balance_sketch was "
                             "Verilated for 250"), std::string::npos) << size.output;
  // A register array bigger than the loop's Verilated ALU holds: named by its key, before the run.
  const outcome alu = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/telemetry/flowradar.toml --set telemetry.flowradar_cells=3075 "
                                  "--rtl stateful_alu --out " + ::testing::TempDir() + "netasic_rtl_alu_size");
  EXPECT_EQ(alu.code, 2);
  EXPECT_NE(alu.output.find("key 'telemetry.flowradar_cells': is 3075, but --rtl stateful_alu cannot take it: an array of "
                            "1025 entries; the stateful ALU's RTL in the loop holds 1024"), std::string::npos) << alu.output;
  EXPECT_FALSE(std::filesystem::exists(::testing::TempDir() + "netasic_rtl_alu_size"));
  const outcome unused = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/demo.toml --rtl stateful_alu --out " +
                                     ::testing::TempDir() + "netasic_rtl_alu_unused");
  EXPECT_EQ(unused.code, 2);
  EXPECT_NE(unused.output.find("--rtl stateful_alu: the scenario does not use this block (it needs telemetry.flowradar or "
                               "telemetry.lossradar = true"),
            std::string::npos) << unused.output;
}

namespace {

// Sundial on the k = 4 fat tree, its root failing at 1 ms: every device times out, the backup
// root is elected 365 us later, and the controller replans at 1.5 ms. Clock-only, 1.8 ms: every
// device's unit is clocked through about 1.8 M oscillator edges.
const std::string sundial_root_failure = NETASIC_SOURCE_DIR "/scenarios/sundial/root_failure.toml --set sim.duration=1800"
                                         " --set 'clock.faults=[\"root @ 1000\"]' --set clock.controller_delay=500";

}  // namespace

TEST(Rtl, SundialUnitInTheLoopGivesTheCoresRun) {
  // Every device's Sundial unit is its RTL: summary.json, flows.csv and probes.csv are the core run's.
  nlohmann::json core, loop;
  const std::string d = rtl_in_the_loop_changes_nothing(sundial_root_failure, "sundial_unit", "root_failure", &core, &loop);
  // 36 devices x 1.8 M edges, each clocked or stepped over as quiet (cosim/sundial_unit/sundial_unit_rtl.h).
  EXPECT_GT(loop["calls"].get<uint64_t>() + loop["quiet_cycles_skipped"].get<uint64_t>(), 36u * 1'700'000u);
  // The scenario reaches what the unit decides: timeouts, the election, the controller's replan.
  const nlohmann::json& s = core["clock"]["sundial"];
  EXPECT_EQ(s["elections"].get<uint64_t>(), 1u);
  EXPECT_EQ(s["first_timeouts"].get<uint64_t>(), 35u);
  EXPECT_EQ(s["replans"].get<uint64_t>(), 1u);
  // Control: the same comparison sees a unit that differs by one edge in 90 000 (a sync interval
  // of 90.001 us), so the equality above is not a comparison that cannot fail.
  const nlohmann::json other = summary_of(sundial_root_failure + " --set clock.sync_interval=90.001", d + "/other");
  EXPECT_NE(core.dump(1), other.dump(1));
  EXPECT_FALSE(slurp(d + "/core/probes.csv") == slurp(d + "/other/probes.csv"));
}

// Since quiet edges are stepped over, a shipped Sundial scenario runs with every unit's RTL in
// about the core's time: the short ones whole, each compared file by file with the core run (the
// root failure's control above shows the comparison can fail).
TEST(Rtl, SundialUnitInTheLoopGivesTheCoresRunInEveryShortScenario) {
  for (const char* s : {"no_failure", "link_failure", "domain_failure", "broken_clock"})
    rtl_in_the_loop_changes_nothing(NETASIC_SOURCE_DIR "/scenarios/sundial/" + std::string(s) + ".toml", "sundial_unit", s);
}

// The two long ones (minutes each): label long.
TEST(LongRtl, SundialUnitInTheLoopGivesTheCoresRunInTheLongScenarios) {
  for (const char* s : {"fifty_failures", "testbed_failures"})
    rtl_in_the_loop_changes_nothing(NETASIC_SOURCE_DIR "/scenarios/sundial/" + std::string(s) + ".toml", "sundial_unit", s);
}

TEST(Rtl, SundialUnitInTheLoopRefusesADeviceWiderThanItsPorts) {
  // A leaf with 64 hosts and 2 spines has 66 ports; the RTL was Verilated for 64. Refused before
  // the run, naming the device.
  const std::string dir = ::testing::TempDir() + "netasic_rtl_sundial_ports";
  const outcome o = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/sundial/root_failure.toml --set topology.kind=leaf_spine"
                                " --set topology.leaves=2 --set topology.spines=2 --set topology.hosts_per_leaf=64"
                                " --set clock.root=spine0 --set 'clock.faults=[]' --set sim.duration=100 --rtl sundial_unit --out " + dir);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("--rtl sundial_unit: a device has 66 ports, but the RTL was Verilated for PORTS = 64"), std::string::npos)
      << o.output;
  EXPECT_NE(o.output.find("(device leaf0)"), std::string::npos) << o.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/summary.json"));
  // A scenario without Sundial does not use the block.
  const outcome off = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/demo.toml --set clock.algorithm=off --rtl sundial_unit --out " +
                                  ::testing::TempDir() + "netasic_rtl_sundial_off");
  EXPECT_EQ(off.code, 2);
  EXPECT_NE(off.output.find("--rtl sundial_unit: the scenario does not use this block (it needs clock.algorithm = \"sundial\")"),
            std::string::npos) << off.output;
}
