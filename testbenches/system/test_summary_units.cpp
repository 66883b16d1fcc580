// Every number a run's summary.json holds has a unit: by its key's name or declared in one table
// (output/format.cpp). Runs scenarios that between them write every section of the summary.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "output/format.h"
#include "run_cli.h"

namespace fs = std::filesystem;

TEST(SummaryUnits, EveryNumberOfEverySectionHasAUnit) {
  const fs::path d = scratch("summary_units", "all");
  const std::string src = NETASIC_SOURCE_DIR "/scenarios/";
  const std::vector<std::string> runs = {
      "demo.toml --set topology.leaves=2 --set topology.hosts_per_leaf=2 --set 'traffic.flows=[]' --set sim.duration=50 --pcap host0"
      " --set 'faults.link_flap=[\"leaf0-spine0 down@10 up@20\"]'",
      "lb/burstbalancer_leafspine.toml --set topology.leaves=2 --set topology.hosts_per_leaf=4 --set sim.duration=50",
      "lb/flowcut_fattree.toml --set sim.duration=20",
      "sundial/link_failure.toml --set 'clock.baselines=[\"ptp\"]'",
      "tcp/incast.toml",
      "clos/fc32_updown.toml --set sim.duration=20",
      "telemetry/flowradar_loop.toml --set telemetry.flowradar_hosts=true --set telemetry.lossradar=true",
  };
  size_t numbers = 0;
  std::vector<std::string> missing;
  for (size_t i = 0; i < runs.size(); ++i) {
    const fs::path out = d / std::to_string(i);
    const outcome o = netasic_cli("run " + src + runs[i] + " --quiet --out " + out.string());
    ASSERT_EQ(o.code, 0) << runs[i] << "\n" << o.output;
    std::ifstream in(out / "summary.json");
    for (const auto& [key, value] : netasic::flatten_json(nlohmann::json::parse(in))) {
      const bool number = value.is_number() || (value.is_array() && !value.empty() && value.front().is_number());
      if (!number) continue;
      ++numbers;
      if (!netasic::unit_declared(key)) missing.push_back(key);
    }
  }
  EXPECT_GT(numbers, 150u);   // the runs did write the sections
  EXPECT_TRUE(missing.empty()) << "numbers without a unit: " << ::testing::PrintToString(missing);
  // The control: a key neither named for a unit nor declared has none.
  EXPECT_FALSE(netasic::unit_declared("load_balancer.widgets"));
  EXPECT_EQ(netasic::unit_of_key("flows.path_changes"), "packets");   // its parent would say "flows"
  EXPECT_EQ(netasic::unit_of_key("pfc.pause_frames_received_by_switches"), "frames");
}
