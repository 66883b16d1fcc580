// ECMP polarisation across tiers. A CRC is linear in its seed, so seeding each switch's hash
// unit differently only relabels a power-of-two group's members: on a fat tree a flow's uplink
// at the aggregation switch would be fixed by its uplink at the edge. With switch.hash_tier_offset
// each tier takes other bits of the hash and the aggregation switch splits every edge's flows
// binomially over its core uplinks; the control (offset 0, by the CLI) puts all of an edge's
// flows through an aggregation switch onto one core uplink.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "harness.h"
#include "switch/switch.h"

using namespace netasic;

TEST(EcmpPolarisation, TierRotationTakesOtherBitsOfTheHash) {
  EXPECT_EQ(flow_hash_rotate(0x12345678u, 32, 1, 8), 0x12345678u);   // leaf/edge: the hash itself
  EXPECT_EQ(flow_hash_rotate(0x12345678u, 32, 2, 8), 0x78123456u);   // spine/agg: 8 bits right
  EXPECT_EQ(flow_hash_rotate(0x12345678u, 32, 3, 8), 0x56781234u);   // core: 16 bits right
  EXPECT_EQ(flow_hash_rotate(0x12345678u, 32, 3, 0), 0x12345678u);   // offset 0: polarised
  EXPECT_EQ(flow_hash_rotate(0x0000ABCDu, 16, 2, 8), 0x0000CDABu);   // within a 16-bit CRC
  EXPECT_EQ(flow_hash_rotate(0x0000ABCDu, 16, 2, 4), 0x0000DABCu);
  EXPECT_EQ(flow_hash_rotate(0x0000ABCDu, 16, 3, 8), 0x0000ABCDu);   // 16 mod 16
  EXPECT_EQ(flow_hash_rotate(0x80000001u, 32, 2, 1), 0xC0000000u);
}

namespace {

// k=4 fat tree: edge0's two hosts send 20 flows of 4000 bytes each to every host of the other
// pods (hosts 4..15): 480 flows, each with its own source port, all leaving pod 0 by a core.
constexpr unsigned flows_per_pair = 20, senders = 2, remote_hosts = 12;
constexpr unsigned flows = flows_per_pair * senders * remote_hosts;

std::vector<std::pair<std::string, std::string>> fat_tree_sets() {
  std::string list = "[";
  for (unsigned s = 0; s < senders; ++s)
    for (unsigned d = 4; d < 16; ++d)
      list += (list.size() > 1 ? "," : "") + std::string("\"") + std::to_string(s) + "->" + std::to_string(d) +
              " 4000@0+2x" + std::to_string(flows_per_pair) + "\"";
  return {{"topology.kind", "fat_tree"}, {"topology.k", "4"}, {"traffic.pattern", "list"},
          {"traffic.flows", list + "]"}, {"sim.duration", "50"}};
}

// Bytes each aggregation switch of pod 0 sent to each core: agg -> core -> bytes.
using uplinks = std::map<std::string, std::map<std::string, uint64_t>>;

void add_link(uplinks& u, const std::string& from, const std::string& to, uint64_t bytes) {
  const std::string sw = from.substr(0, from.find('.'));
  if ((sw == "agg0" || sw == "agg1") && to.rfind("core", 0) == 0) u[sw][to] += bytes;
}

// Every flow crosses exactly one of pod 0's four agg->core links with the same frame bytes, so
// a link's bytes are a whole number of flows: the count of flows on each.
std::map<std::string, std::map<std::string, uint64_t>> flow_counts(const uplinks& u) {
  uint64_t total = 0;
  for (const auto& [a, cores] : u)
    for (const auto& [c, b] : cores) total += b;
  EXPECT_EQ(total % flows, 0u) << "uplink bytes " << total << " are not " << flows << " equal flows";
  const uint64_t per_flow = total / flows;
  std::map<std::string, std::map<std::string, uint64_t>> n;
  for (const auto& [a, cores] : u)
    for (const auto& [c, b] : cores) {
      EXPECT_EQ(b % per_flow, 0u) << a << "->" << c;
      n[a][c] = per_flow ? b / per_flow : 0;
    }
  return n;
}

uplinks cli_uplinks(const std::vector<std::pair<std::string, std::string>>& sets) {
  const std::filesystem::path out = run_with_sets("EcmpPolarisation", "control", sets);
  uplinks u;
  std::ifstream csv(out / "links.csv");
  std::string line;
  std::getline(csv, line);   // from,to,rate_gbps,bytes,utilization
  while (std::getline(csv, line)) {
    std::vector<std::string> f;
    std::stringstream cells(line);
    for (std::string c; std::getline(cells, c, ',');) f.push_back(c);
    if (f.size() >= 4) add_link(u, f[0], f[1], std::stoull(f[3]));
  }
  return u;
}

}  // namespace

TEST(EcmpPolarisation, AggregationSwitchesSpreadAnEdgesFlowsOverTheirCoreUplinks) {
  const run_result r = run_scenario(small_config(fat_tree_sets()), progress_mode::none);
  ASSERT_EQ(r.summary["flows"]["completed"].get<uint64_t>(), flows);
  expect_accounting(r);
  uplinks u;
  for (const link_record& l : r.links) add_link(u, l.from, l.to, l.bytes);
  const auto n = flow_counts(u);
  ASSERT_EQ(n.size(), 2u);
  for (const auto& [agg, cores] : n) {
    ASSERT_EQ(cores.size(), 2u) << agg;
    uint64_t through = 0;
    for (const auto& [c, k] : cores) through += k;
    ASSERT_GT(through, 0u) << agg;
    // Each flow's core uplink is an independent fair coin: within four standard deviations.
    const double sigma = std::sqrt(through / 4.0);
    for (const auto& [c, k] : cores)
      EXPECT_NEAR(double(k), through / 2.0, 4 * sigma) << agg << "->" << c << ": " << k << " of " << through << " flows";
  }

  // Control: every tier on the same bits. All of an agg's flows from edge0 take one core uplink.
  auto sets = fat_tree_sets();
  sets.push_back({"switch.hash_tier_offset", "0"});
  const auto control = flow_counts(cli_uplinks(sets));
  ASSERT_EQ(control.size(), 2u);
  for (const auto& [agg, cores] : control) {
    ASSERT_EQ(cores.size(), 2u) << agg;
    uint64_t through = 0, idle = 0;
    for (const auto& [c, k] : cores) through += k, idle += k == 0;
    EXPECT_GT(through, 0u) << agg;
    EXPECT_EQ(idle, 1u) << agg << ": the control should use exactly one core uplink (polarised)";
  }
}
