// FlowRadar's loss map and black holes end to end (thesis §4.6; docs/datasheets/flowradar.md):
// a k = 4 fat tree with TCP flows that all finish, FlowRadar on every switch with 1 ms epochs.
//  - A planted 5% drop on edge0 -> agg0: the loss map reports losses on that segment with the
//    drop log's exact count for every flowlet, and nowhere a loss the drop log does not have.
//    Control: without the fault nothing is reported there.
//  - Too few cells: flows are reported undecoded, never lossless, and no loss is miscounted.
//  - A black hole at agg0 for host15: the flows stopped at agg0 are found, each one, and
//    nothing else is called stopped. Control: without it no flow stops.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_cli.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* base_scenario = R"(scenario.name = "flowradar loss map test"
[sim]
seed = 3
duration = 2000
drain = 60000
[topology]
kind = "fat_tree"
k = 4
host_rate = 10
uplink_rate = 10
link_delay = 1000
[pfc]
priorities = []
[nic]
transport = "tcp"
[cc]
algorithm = "none"
[traffic]
pattern = "poisson"
cdf = "websearch"
load = 0.2
flows = ["0->12 1000000@0", "1->13 1000000@0", "0->14 1000000@100", "1->15 1000000@100",
         "0->9 500000@300", "1->11 500000@300", "0->15 500000@500", "1->14 500000@500"]
[telemetry]
lossradar = true       # only for its drop log file, the test's truth
flowradar = true
flowradar_filter_bits = 8192
flowradar_cells = 192
flowradar_epoch = 1
)";

struct run_out {
  fs::path dir;
  json fr, summary;
};

run_out run(const std::string& name, const std::string& extra, const std::string& sets = "") {
  const fs::path d = scratch("FlowRadarLossMap", name);
  std::ofstream(d / "s.toml") << base_scenario << extra;
  const outcome o = netasic_cli("run " + (d / "s.toml").string() + " --quiet --out " + (d / "run").string() + sets);
  EXPECT_EQ(o.code, 0) << o.output;
  run_out r{d / "run", {}, {}};
  if (o.code == 0) {
    r.summary = json::parse(slurp(r.dir / "summary.json"));
    r.fr = r.summary["flowradar"];
  }
  return r;
}

struct loss_row {
  std::string up, down, status;
  uint64_t lost = 0, dropped = 0;
};

std::vector<loss_row> rows(const fs::path& dir) {
  std::vector<loss_row> out;
  std::stringstream in(slurp(dir / "flowradar_loss.csv"));
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> head = cells(line);
  EXPECT_EQ(head.at(8), "upstream");
  EXPECT_EQ(head.at(13), "lost_packets");
  while (std::getline(in, line)) {
    const std::vector<std::string> c = cells(line);
    out.push_back({c.at(8), c.at(9), c.at(10), std::stoull(c.at(13)), std::stoull(c.at(14))});
  }
  return out;
}

// Data packets (to the TCP server port, 5001) that the fault dropped on edge0 -> agg0, from the
// drop log as lossradar_drops.csv writes it; ACKs (from port 5001) are not counted by FlowRadar.
uint64_t data_dropped_on_edge0_agg0(const fs::path& dir) {
  std::stringstream in(slurp(dir / "lossradar_drops.csv"));
  std::string line;
  std::getline(in, line);
  std::map<std::string, size_t> col;
  const std::vector<std::string> head = cells(line);
  for (size_t i = 0; i < head.size(); ++i) col[head[i]] = i;
  uint64_t n = 0;
  while (std::getline(in, line)) {
    const std::vector<std::string> c = cells(line);
    const std::string& seg = c.at(col.at("segment"));
    n += seg.rfind("edge0:", 0) == 0 && seg.find(">agg0:") != std::string::npos && c.at(col.at("reason")) == "link_fault" &&
         c.at(col.at("dport")) == "5001";
  }
  return n;
}

uint64_t lost_on(const std::vector<loss_row>& rs, const std::string& up, const std::string& down) {
  uint64_t n = 0;
  for (const loss_row& r : rs)
    if (r.status == "lost" && r.up == up && r.down == down) n += r.lost;
  return n;
}

const std::string link_fault = "[faults]\nlink_drop = [\"edge0-agg0=0.05\"]\n";

TEST(FlowRadarLossMap, FindsThePlantedLossySegmentWithExactCounts) {
  const run_out r = run("planted", link_fault);
  const std::vector<loss_row> rs = rows(r.dir);
  const uint64_t dropped = data_dropped_on_edge0_agg0(r.dir);
  ASSERT_GE(dropped, 20u) << "the planted fault must drop enough packets to compare";
  EXPECT_EQ(r.fr["loss_map_open_flowlets"], 0) << "every flow ends: every flowlet closes";
  EXPECT_EQ(lost_on(rs, "edge0", "agg0"), dropped);
  for (const loss_row& x : rs)
    if (x.status == "lost") {
      EXPECT_EQ(x.lost, x.dropped) << x.up << ">" << x.down;
    }
  // Everywhere: every segment with drops found with its exact count, none without.
  EXPECT_EQ(r.fr["loss_map_matched_segments"], r.fr["loss_map_true_segments"]);
  EXPECT_EQ(r.fr["loss_map_exact_segments"], r.fr["loss_map_true_segments"]);
  EXPECT_EQ(r.fr["loss_map_lost_segments"], r.fr["loss_map_true_segments"]);
  EXPECT_EQ(r.fr["loss_map_lost_packets"], r.fr["loss_map_dropped_packets"]);
  EXPECT_DOUBLE_EQ(r.fr["loss_map_precision_pct"].get<double>(), 100.0);
  // Control: the same run without the fault has no loss there, and the check above fails on it.
  const run_out clean = run("clean", "");
  EXPECT_EQ(data_dropped_on_edge0_agg0(clean.dir), 0u);
  EXPECT_EQ(lost_on(rows(clean.dir), "edge0", "agg0"), 0u);
  EXPECT_NE(lost_on(rows(clean.dir), "edge0", "agg0"), dropped);
}

TEST(FlowRadarLossMap, TooFewCellsGivesUndecodedNeverLossless) {
  // Six cells: FlowDecode still finds the flows, but CounterDecode cannot count them (more flows
  // than cells at the busy switches): their segments are undecoded.
  const run_out r = run("tiny", link_fault, " --set telemetry.flowradar_cells=6");
  EXPECT_LT(r.fr["counted_flows"].get<uint64_t>(), r.fr["flows"].get<uint64_t>());
  EXPECT_GT(r.fr["loss_map_undecoded"].get<uint64_t>(), 0u);
  EXPECT_GT(r.fr["loss_map_undecoded_true_segments"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.fr["loss_map_missed_segments"], 0) << "a segment with drops reported lossless";
  EXPECT_LT(r.fr["loss_map_matched_segments"].get<uint64_t>(), r.fr["loss_map_true_segments"].get<uint64_t>());
  EXPECT_EQ(r.fr["loss_map_matched_segments"], r.fr["loss_map_lost_segments"]) << "a loss reported where there is none";
  for (const loss_row& x : rows(r.dir))
    if (x.status == "lost") {
      EXPECT_EQ(x.lost, x.dropped) << x.up << ">" << x.down;
    }
}

TEST(FlowRadarLossMap, FindsTheFlowsABlackHoleStops) {
  const run_out r = run("hole", "[faults]\nblack_hole = [\"agg0=host15\"]\n");
  ASSERT_GT(r.summary["drops"]["black_hole"].get<uint64_t>(), 0u);
  ASSERT_GT(r.fr["black_hole_true_pairs"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.fr["black_hole_matched_pairs"], r.fr["black_hole_true_pairs"]);
  EXPECT_EQ(r.fr["black_hole_found_pairs"], r.fr["black_hole_true_pairs"]);
  EXPECT_DOUBLE_EQ(r.fr["black_hole_precision_pct"].get<double>(), 100.0);
  uint64_t stopped = 0;
  for (const loss_row& x : rows(r.dir))
    if (x.status == "black_hole") {
      EXPECT_EQ(x.up, "agg0");
      EXPECT_EQ(x.down, "?");
      EXPECT_GT(x.dropped, 0u);
      ++stopped;
    }
  EXPECT_GT(stopped, 0u);
  // Control: without the black hole no flow stops anywhere.
  const run_out clean = run("hole_clean", "");
  EXPECT_EQ(clean.fr["black_hole_found_pairs"], 0);
  EXPECT_NE(clean.fr["black_hole_found_pairs"], r.fr["black_hole_found_pairs"]);
}

TEST(FlowRadarLossMap, SameSeedSameLossMap) {
  const run_out a = run("det_a", link_fault);
  const run_out b = run("det_b", link_fault);
  EXPECT_EQ(slurp(a.dir / "flowradar_loss.csv"), slurp(b.dir / "flowradar_loss.csv"));
}

}  // namespace
