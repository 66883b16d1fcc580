// A Flattened Clos run end to end: the up-down routes installed over the register bus deliver
// every packet and the run reports them free of cyclic buffer dependencies; the control, ECMP
// over shortest paths on the same wiring, must report a cycle. `netasic paths` says the same.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "run_cli.h"

namespace fs = std::filesystem;

namespace {
const std::string scenario = NETASIC_SOURCE_DIR "/scenarios/clos/fc32_updown.toml";
const std::string shorter = " --set sim.duration=300";
}  // namespace

TEST(FlattenedClosRun, UpDownIsCbdFreeAndDeliversShortestPathIsNot) {
  const fs::path up = scratch("clos", "updown"), sp = scratch("clos", "shortest");
  outcome o = netasic_cli("run " + scenario + " --quiet --out " + up.string() + shorter);
  ASSERT_EQ(o.code, 0) << o.output;
  o = netasic_cli("run " + scenario + " --quiet --set topology.routing=shortest_path --out " + sp.string() + shorter);
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("warning: the routes have a cyclic buffer dependency"), std::string::npos) << o.output;
  const auto a = nlohmann::json::parse(slurp(up / "summary.json")), b = nlohmann::json::parse(slurp(sp / "summary.json"));
  EXPECT_TRUE(a["routing"]["cbd_free"].get<bool>());
  EXPECT_EQ(a["routing"]["ingress_classes"].get<unsigned>(), 7u);   // k = 3: host, up/down at each layer
  EXPECT_FALSE(b["routing"]["cbd_free"].get<bool>());               // the control
  EXPECT_FALSE(b["routing"]["cbd_cycle"].get<std::string>().empty());
  for (const auto* s : {&a, &b}) {
    EXPECT_EQ((*s)["packets"]["dropped"].get<uint64_t>(), 0u);
    EXPECT_EQ((*s)["flows"]["started"], (*s)["flows"]["completed"]);
    EXPECT_GT((*s)["flows"]["completed"].get<uint64_t>(), 0u);
  }
  // Up-down paths are longer than shortest paths (§4.2, Table 2): the same packets take more hops.
  EXPECT_EQ(a["packets"]["sent"], b["packets"]["sent"]);
  EXPECT_GT(a["packet_hops"].get<uint64_t>(), b["packet_hops"].get<uint64_t>());
}

TEST(FlattenedClosRun, PathsCommandAndBadParameters) {
  outcome o = netasic_cli("paths " + scenario);
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("3 virtual layers [3,6,3] ports"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("no cycle"), std::string::npos) << o.output;
  o = netasic_cli("paths " + scenario + " --set topology.routing=shortest_path");
  EXPECT_NE(o.output.find("CYCLIC BUFFER DEPENDENCY"), std::string::npos) << o.output;
  o = netasic_cli("paths " + scenario + " --set topology.fabric_ports=7");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("key 'topology.fabric_ports'"), std::string::npos) << o.output;
  o = netasic_cli("paths " + scenario + " --set topology.layer_ports=[3,3,3]");
  EXPECT_NE(o.output.find("key 'topology.layer_ports'"), std::string::npos) << o.output;
  // Two layers of 6 ports: some of the 992 pairs share no top-layer ToR. The flows count them
  // under shortest-path routing; up-down routing refuses the same wiring before the run, naming
  // as many.
  o = netasic_cli("paths " + scenario + " --set topology.layer_ports=[6,6] --set topology.routing=shortest_path");
  std::smatch counted;
  ASSERT_TRUE(std::regex_search(o.output, counted, std::regex(R"(up-down paths: .* (\d+) pairs without a path)"))) << o.output;
  const std::string unrouted = counted[1];
  EXPECT_GT(std::stoi(unrouted), 0);
  o = netasic_cli("paths " + scenario + " --set topology.layer_ports=[6,6]");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("key 'topology.layers': " + unrouted + " of 992 ToR pairs have no up-down path"), std::string::npos)
      << o.output;
  // 8 ToRs cannot give each of 12 fabric ports its own neighbour: the default wiring refuses, the
  // former one (two cables between two ToRs allowed) wires it.
  o = netasic_cli("paths " + scenario + " --set topology.tors=8");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("key 'topology.wiring'"), std::string::npos) << o.output;
  o = netasic_cli("paths " + scenario + " --set topology.tors=8 --set topology.wiring=per_layer");
  EXPECT_EQ(o.code, 0) << o.output;
  o = netasic_cli("paths " + scenario + " --set topology.kind=fat_tree");
  EXPECT_NE(o.output.find("topology.tors"), std::string::npos) << o.output;   // a flattened_clos key set for a fat tree
}
