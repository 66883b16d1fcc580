// KSP installed as per-(source ToR, destination ToR, path id) entries, end to end: on a random
// Jellyfish with topology.routing = "ksp", every path a delivered data packet took (the switches
// its path_sw recorded, per flow in the run's records) is one of its ToR pair's k shortest paths,
// computed here by Yen's algorithm on the same topology (the golden), and flows spread over more
// than one path per pair. The control runs the former per-ingress-port tables
// (topology.ksp_tables = "ingress_port") and must deliver some packet over a path that is none of
// its pair's k paths. `netasic resources` and `netasic paths` count the path entries.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "harness.h"
#include "run/run.h"
#include "run_cli.h"
#include "scenario/scenario.h"
#include "topology/ksp.h"

using namespace netasic;

namespace {

constexpr unsigned k = 6;

using sets = std::vector<std::pair<std::string, std::string>>;

sets ksp_sets(const std::string& tables) {
  return {{"topology.kind", "jellyfish"},     {"topology.tors", "12"},         {"topology.fabric_ports", "4"},
          {"topology.hosts_per_tor", "2"},    {"topology.routing", "ksp"},     {"topology.ksp_paths", std::to_string(k)},
          {"topology.ksp_tables", tables},    {"traffic.pattern", "all_to_all"}, {"traffic.flow_size", "20000"}};
}

// A leaf-spine: its spines carry paths but are no ToR pair's source, so they hold path entries
// and no path counts.
sets leaf_spine_sets() {
  return {{"topology.kind", "leaf_spine"},   {"topology.leaves", "4"},       {"topology.spines", "3"},
          {"topology.hosts_per_leaf", "3"}, {"topology.routing", "ksp"},    {"topology.ksp_paths", std::to_string(k)},
          {"traffic.pattern", "all_to_all"}, {"traffic.flow_size", "20000"}};
}

struct path_check {
  size_t checked = 0, off_list = 0;    // delivered paths, and those none of the pair's k paths
  size_t pairs_with_several = 0;       // ToR pairs whose flows took more than one path
  uint64_t delivered = 0;
  std::string examples;                // the first few off-list paths
};

path_check check_run(const sets& with) {
  const config c = small_config(with);
  const fabric_config fc = make_fabric_config(c);
  const topology& t = fc.topo;
  // The golden: each ToR pair's k paths as switch names, "tor0>tor5>tor3" as the records spell them.
  std::map<std::pair<unsigned, unsigned>, std::set<std::string>> allowed;
  for (const pair_paths& pp : ksp_paths(t, k))
    for (const route_path& p : pp.paths) {
      std::string name;
      for (unsigned n : p.nodes) name += (name.empty() ? "" : ">") + t.nodes[n].name;
      allowed[{pp.src, pp.dst}].insert(name);
    }
  const run_result r = run_scenario(c, progress_mode::none);
  expect_accounting(r);
  path_check out;
  out.delivered = r.summary["packets"]["delivered"].get<uint64_t>();
  std::map<std::pair<unsigned, unsigned>, std::set<std::string>> used;
  for (const flow_record& f : r.flows) {
    const unsigned s = t.host_switch(f.src), d = t.host_switch(f.dst);
    if (s == d) continue;   // one switch: no fabric path
    const auto& ok = allowed.at({s, d});
    for (const auto& [name, bytes] : f.path_bytes) {
      ++out.checked;
      used[{s, d}].insert(name);
      if (!ok.count(name) && out.off_list++ < 3) out.examples += t.nodes[s].name + " -> " + t.nodes[d].name + ": " + name + "\n";
    }
  }
  for (const auto& [pair, names] : used) out.pairs_with_several += names.size() > 1;
  ::testing::Test::RecordProperty("paths_checked", int(out.checked));
  ::testing::Test::RecordProperty("paths_off_list", int(out.off_list));
  ::testing::Test::RecordProperty("pairs_with_several_paths", int(out.pairs_with_several));
  return out;
}

TEST(KspPathTable, EveryDeliveredPathIsOneOfItsPairsKPaths) {
  const path_check c = check_run(ksp_sets("path"));
  EXPECT_GT(c.checked, 300u);
  EXPECT_EQ(c.off_list, 0u) << c.examples;
  EXPECT_GT(c.pairs_with_several, 10u);   // the tag spreads a pair's flows over its paths
  EXPECT_GT(c.delivered, 0u);
}

TEST(KspPathTable, TransitSwitchesWithoutPathCountsCarryThePaths) {
  const path_check c = check_run(leaf_spine_sets());
  EXPECT_GT(c.checked, 100u);   // 12 hosts, all to all, 108 flows between leaves
  EXPECT_EQ(c.off_list, 0u) << c.examples;
  EXPECT_GT(c.pairs_with_several, 3u);
}

TEST(KspPathTable, IngressPortTablesDeliverOverHybridPaths) {   // the control
  const path_check c = check_run(ksp_sets("ingress_port"));
  EXPECT_GT(c.checked, 300u);
  EXPECT_GT(c.off_list, 0u) << "every path of the per-ingress-port tables was one of its pair's k paths";
}

TEST(KspPathTable, ResourcesAndPathsCountThePathEntries) {
  // The 32-ToR Flattened Clos under 4-way KSP: 32 prefixes, 5 bits each.
  const std::string base = NETASIC_SOURCE_DIR "/scenarios/clos/fc32_updown.toml --set topology.routing=ksp --set topology.ksp_paths=4";
  outcome o = netasic_cli("resources " + base);
  EXPECT_NE(o.output.find("path table (topology.routing = \"ksp\"):"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("match key 18 bits (source prefix 5 + destination prefix 5 + path id 8)"), std::string::npos) << o.output;
  o = netasic_cli("paths " + base);
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("(source, destination, path id) entries"), std::string::npos) << o.output;
  o = netasic_cli("paths " + base + " --set topology.ksp_tables=ingress_port");   // the control: no path table
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_EQ(o.output.find("(source, destination, path id) entries"), std::string::npos) << o.output;
  o = netasic_cli("resources " + base + " --set topology.ksp_paths=257");   // more paths than the tag holds
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("topology.ksp_paths"), std::string::npos) << o.output;
}

}  // namespace
