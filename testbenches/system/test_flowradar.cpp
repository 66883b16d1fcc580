// FlowRadar end to end (scenarios/telemetry/flowradar.toml): every switch's encoded flowset,
// decoded by the collector epoch by epoch, against the simulator's own flows at every switch.
//  - Table large enough: every flow at every switch in every epoch is decoded, with its exact
//    packet count, and nothing that was not sent. Control: a table far too small (16 cells for
//    8-20 flows) must miss flows.
//  - Same seed, same flowradar.csv, bit for bit.
//  - Bad input refused before the run, naming the key.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_cli.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string scenario = std::string(NETASIC_SOURCE_DIR) + "/scenarios/telemetry/flowradar.toml";
const std::string shorter = " --set sim.duration=15000";   // two epochs

json run(const fs::path& out, const std::string& sets) {
  const outcome o = netasic_cli("run " + scenario + " --quiet --out " + out.string() + shorter + sets);
  EXPECT_EQ(o.code, 0) << o.output;
  return json::parse(slurp(out / "summary.json"))["flowradar"];
}

bool all_decoded(const json& f) {
  return f["flows"].get<uint64_t>() > 0 && f["decoded_flows"] == f["flows"] && f["missed_flows"] == 0 &&
         f["wrong_flows"] == 0 && f["counted_flows"] == f["flows"] && f["wrong_counter_flows"] == 0;
}

TEST(FlowRadar, DecodesEveryFlowAndCounterAtEverySwitch) {
  const fs::path d = scratch("FlowRadar", "decode");
  const json big = run(d / "big", "");
  EXPECT_TRUE(all_decoded(big)) << big.dump(1);
  EXPECT_GE(big["epochs"].get<uint64_t>(), 2u);
  // Every row of flowradar.csv: flows = decoded, none missed or wrong.
  const std::string csv = slurp(d / "big" / "flowradar.csv");
  size_t rows = 0;
  std::istringstream lines(csv);
  for (std::string line; std::getline(lines, line);) {
    const std::vector<std::string> row = cells(line);
    if (row.size() < 10 || row[0] == "epoch") continue;
    ++rows;
    EXPECT_EQ(row[3], row[5]) << "switch " << row[2];
    EXPECT_EQ(row[6], "0");
    EXPECT_EQ(row[7], "0");
    EXPECT_EQ(row[9], "0");
  }
  EXPECT_GT(rows, 20u);
  // Control: 4 cells cannot hold the flows of a busy switch: flows are missed, none invented,
  // and no counter that CounterDecode cannot prove.
  const json small = run(d / "small", " --set telemetry.flowradar_cells=4");
  EXPECT_FALSE(all_decoded(small));
  EXPECT_GT(small["missed_flows"].get<uint64_t>(), 0u);
  EXPECT_EQ(small["wrong_flows"], 0);
  EXPECT_EQ(small["wrong_counter_flows"], 0);
  // NetDecode at work: 9 cells, below SingleDecode's threshold at busy switches; FlowDecode
  // across neighbours still finds every flow SingleDecode left.
  const json net = run(d / "net", " --set telemetry.flowradar_cells=9");
  EXPECT_LT(net["single_decoded_flows"].get<uint64_t>(), net["flows"].get<uint64_t>());
  EXPECT_EQ(net["decoded_flows"], net["flows"]);
  EXPECT_EQ(net["wrong_flows"], 0);
  EXPECT_EQ(net["wrong_counter_flows"], 0);
  EXPECT_EQ(small["flows"], big["flows"]);   // the same traffic: FlowRadar only watches
}

TEST(FlowRadar, SameSeedSameCsv) {
  const fs::path d = scratch("FlowRadar", "repeat");
  run(d / "a", "");
  run(d / "b", "");
  EXPECT_EQ(slurp(d / "a" / "flowradar.csv"), slurp(d / "b" / "flowradar.csv"));
}

// Bytes sent on the link into `host` (links.csv).
uint64_t bytes_into(const fs::path& run_dir, const std::string& host) {
  for (auto& c : csv_rows(run_dir / "links.csv"))
    if (c["to"] == host) return std::stoull(c["bytes"]);
  ADD_FAILURE() << "no link into " << host;
  return 0;
}

// The banks as frames to a collector host: every switch sends one bank at every epoch boundary
// the run passed, each the bank's export frames (exact arithmetic from the table's size), the
// collector receives them all, and they are on the collector's link. Control: the run without a
// collector sends none, and its link into host15 carries that many bytes less.
TEST(FlowRadar, ExportsTheBanksAsFramesToTheCollector) {
  const fs::path a = scratch("FlowRadar", "export"), b = scratch("FlowRadar", "no_export");
  const json f = run(a, " --set telemetry.flowradar_collector=15");
  const json none = run(b, "");
  const uint64_t per_bank = f["epoch_export_bytes"], frames_per_bank = f["export_frames_per_bank"];
  EXPECT_EQ(frames_per_bank, 2u);   // 512 filter bytes + 64 cells x 19 bytes = 1,728 bytes over 1,472-byte payloads
  const uint64_t frames = f["export_frames_sent"];
  ASSERT_GT(frames, 0u);
  const json s = json::parse(slurp(a / "summary.json"));
  const uint64_t boundaries = uint64_t(s["sim_time_s"].get<double>() * 1e3 / 10.0);   // 10 ms epochs
  EXPECT_EQ(frames, f["switches"].get<uint64_t>() * boundaries * frames_per_bank);
  EXPECT_EQ(f["export_bytes_sent"].get<uint64_t>(), frames / frames_per_bank * per_bank);
  EXPECT_EQ(f["export_frames_dropped"], 0);
  EXPECT_EQ(f["collector_frames_received"], f["export_frames_sent"]);
  EXPECT_EQ(f["collector_bytes_received"], f["export_bytes_sent"]);
  EXPECT_TRUE(all_decoded(f));
  EXPECT_FALSE(none.contains("export_frames_sent"));
  const double extra = double(bytes_into(a, "host15")) - double(bytes_into(b, "host15"));
  EXPECT_NEAR(extra, f["export_bytes_sent"].get<double>(), 0.01 * f["export_bytes_sent"].get<double>());
}

// The thesis's §4.6.1 test (scenarios/telemetry/flowradar_loop.toml): persistent flows between
// every pair of 16 hosts, one packet each every 5 ms; from 10 ms edge0 sends host0's packets to
// agg0, which sends them back (a loop), and from 20 ms edge3 drops everything to host2. The
// expected figures are the trace's arithmetic: 15 flows into host0 loop, and each of their 6
// packets after 10 ms dies of TTL (90); host6's and host7's flows to host2 lose their 4 packets
// after 20 ms (8). With hosts counting too, every loop and black hole is found, within one slot
// for the loops and two for the black holes (the thesis: 10 ms and 20 ms), and nothing else.
// Controls: without host counters the loop through the source's own edge switch (host1 ->
// host0) hides, as its first hop's count is inflated too; without the stale entry nothing loops.
TEST(FlowRadar, FindsTheTransientLoopAndTheBlackHoleOfSection461) {
  const std::string loop = std::string(NETASIC_SOURCE_DIR) + "/scenarios/telemetry/flowradar_loop.toml";
  auto run_loop = [&](const std::string& name, const std::string& sets) {
    const fs::path d = scratch("FlowRadar", name);
    const outcome o = netasic_cli("run " + loop + " --quiet --out " + d.string() + sets);
    EXPECT_EQ(o.code, 0) << o.output;
    return json::parse(slurp(d / "summary.json"));
  };
  const json s = run_loop("loop_hosts", " --set telemetry.flowradar_hosts=true");
  const json& f = s["flowradar"];
  EXPECT_EQ(s["drops"]["ttl_expired"], 90);
  EXPECT_EQ(s["drops"]["black_hole"], 8);
  EXPECT_EQ(f["hosts"], 16);
  EXPECT_TRUE(all_decoded(f)) << f.dump(1);
  EXPECT_EQ(f["loop_true_flows"], 15);
  EXPECT_EQ(f["loop_found_flows"], 15);
  EXPECT_EQ(f["loop_matched_flows"], 15);
  EXPECT_EQ(f["loop_within_10ms_pct"], 100.0);
  EXPECT_EQ(f["black_hole_true_pairs"], 2);
  EXPECT_EQ(f["black_hole_found_pairs"], 2);
  EXPECT_EQ(f["black_hole_matched_pairs"], 2);
  EXPECT_EQ(f["black_hole_within_20ms_pct"], 100.0);
  // The loops' flowlets are set apart, and the black holes' losses are on the map exactly.
  EXPECT_EQ(f["loss_map_looped_flowlets"], 15);
  EXPECT_EQ(f["loss_map_loop_drops"], 90);
  EXPECT_EQ(f["loss_map_precision_pct"], 100.0);
  EXPECT_EQ(f["loss_map_exact_segments"], f["loss_map_true_segments"]);
  const json switches_only = run_loop("loop_switches", "")["flowradar"];
  EXPECT_EQ(switches_only["loop_true_flows"], 15);
  EXPECT_LT(switches_only["loop_matched_flows"].get<int>(), 15);
  const json none = run_loop("no_loop", " --set telemetry.flowradar_hosts=true --set 'faults.misroute=[]'");
  EXPECT_EQ(none["drops"].value("ttl_expired", 0), 0);   // shown only with a misroute, or when nonzero
  EXPECT_EQ(none["flowradar"]["loop_true_flows"], 0);
  EXPECT_EQ(none["flowradar"]["loop_found_flows"], 0);
}

// Per-port flowsets (telemetry.flowradar_per_port, §4.5's other deployment): on the §4.6.1 loop
// scenario every port's flowset decodes, and merged port by port into their switches they give
// the same loss map, loops and black holes as one flowset per switch, row for row (in another
// order), with four
// times the memory at a 4-port switch. The thesis's reason to prefer per switch, multiplexing:
// on flowradar.toml the same cells in total (24 per switch, or 6 per port) decode more flows
// per switch (the control: the per-port flowsets, each with a quarter, decode fewer).
TEST(FlowRadar, PerPortFlowsetsGiveTheSameAnalysesAndMultiplexWorse) {
  const std::string loop = std::string(NETASIC_SOURCE_DIR) + "/scenarios/telemetry/flowradar_loop.toml";
  auto loop_run = [&](const std::string& name, const std::string& sets) {
    const fs::path d = scratch("FlowRadar", name);
    const outcome o = netasic_cli("run " + loop + " --quiet --out " + d.string() + " --set telemetry.flowradar_hosts=true" + sets);
    EXPECT_EQ(o.code, 0) << o.output;
    return d;
  };
  const fs::path sw = loop_run("per_switch", ""), port = loop_run("per_port", " --set telemetry.flowradar_per_port=true");
  const json a = json::parse(slurp(sw / "summary.json"))["flowradar"], b = json::parse(slurp(port / "summary.json"))["flowradar"];
  EXPECT_TRUE(all_decoded(b)) << b.dump(1);
  EXPECT_EQ(a["flowsets_per_switch_max"], 1);
  EXPECT_EQ(b["flowsets_per_switch_max"], 4);
  EXPECT_EQ(b["switch_memory_bits_max"].get<uint64_t>(), 4 * b["memory_bits"].get<uint64_t>());
  auto rows = [](const fs::path& csv) {   // the rows, in any order (decode order differs)
    std::multiset<std::string> out;
    std::istringstream in(slurp(csv));
    for (std::string line; std::getline(in, line);) out.insert(line);
    return out;
  };
  EXPECT_EQ(rows(port / "flowradar_loss.csv"), rows(sw / "flowradar_loss.csv"));
  EXPECT_GT(rows(sw / "flowradar_loss.csv").size(), 60u);
  for (const char* k : {"loop_found_flows", "loop_matched_flows", "black_hole_found_pairs", "black_hole_matched_pairs",
                        "loss_map_lost_segments", "loss_map_exact_segments"})
    EXPECT_EQ(a[k], b[k]) << k;
  size_t port_rows = 0;
  for (auto& r : csv_rows(port / "flowradar.csv")) port_rows += r["switch"].find(":p") != std::string::npos;
  EXPECT_GT(port_rows, 20u);
  // Multiplexing: the same 24 cells a switch.
  const json one = run(scratch("FlowRadar", "mux_switch"), " --set telemetry.flowradar_cells=24");
  const json four = run(scratch("FlowRadar", "mux_port"), " --set telemetry.flowradar_cells=6 --set telemetry.flowradar_per_port=true");
  EXPECT_EQ(one["flows"], four["flows"]);
  EXPECT_GT(one["single_decoded_flows"].get<uint64_t>(), four["single_decoded_flows"].get<uint64_t>() + 50);
}

TEST(FlowRadar, RefusesBadSizesBeforeTheRun) {
  const fs::path d = scratch("FlowRadar", "bad");
  auto refused = [&](const std::string& sets, const std::string& key) {
    const outcome o = netasic_cli("run " + scenario + " --quiet --out " + (d / "x").string() + sets);
    EXPECT_NE(o.code, 0) << sets;
    EXPECT_NE(o.output.find(key), std::string::npos) << o.output;
    EXPECT_FALSE(fs::exists(d / "x" / "summary.json"));
  };
  refused(" --set telemetry.flowradar_cells=0", "telemetry.flowradar_cells");
  refused(" --set telemetry.flowradar_cell_hashes=0", "telemetry.flowradar_cell_hashes");
  refused(" --set telemetry.flowradar_cells=2", "telemetry.flowradar_cells");   // fewer than 3 hashes
  refused(" --set telemetry.flowradar_flow_count_bits=12", "telemetry.flowradar_flow_count_bits");
  refused(" --set telemetry.flowradar_packet_count_bits=16", "telemetry.flowradar_packet_count_bits");
  // 100,000 cells: a 1.9 MB bank, 0.6 ms on the 25 Gb/s CPU port, longer than a 10 us epoch.
  refused(" --set telemetry.flowradar_cells=100000 --set telemetry.flowradar_epoch=0.01", "telemetry.flowradar_epoch");
  refused(" --set telemetry.flowradar_collector=16", "telemetry.flowradar_collector");   // hosts 0 to 15
  refused(" --set telemetry.flowradar_collector=3 --set 'pfc.priorities=[0]'", "telemetry.flowradar_collector");
}

}  // namespace
