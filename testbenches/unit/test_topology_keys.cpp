// The topology keys of the new builders: each builder's bad shapes stop the scenario with the key
// at fault, another builder's keys are rejected, and the scenario's keys reach the builder
// (counts from the keys' arithmetic).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/params.h"
#include "scenario/scenario.h"

using namespace netasic;

namespace {
// The defaults with "key=value" settings, as --set gives them.
config with(const std::vector<std::string>& settings) {
  config c = default_scenario();
  for (const std::string& s : settings) c.set_from_text(s.substr(0, s.find('=')), s.substr(s.find('=') + 1), "--set");
  return c;
}
std::string error_of(const std::vector<std::string>& overrides) {
  try {
    make_fabric_config(with(overrides));
  } catch (const config_error& e) {
    return e.what();
  }
  return "no error";
}
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
}  // namespace

TEST(TopologyKeys, BuildersReadTheirKeys) {
  const topology j = make_fabric_config(with({"topology.kind=jellyfish", "topology.tors=10", "topology.fabric_ports=3",
                                                           "topology.hosts_per_tor=2"})).topo;
  EXPECT_EQ(j.switches.size(), 10u);
  EXPECT_EQ(j.links.size(), 10u * 2 + 10 * 3 / 2);
  const topology c = make_fabric_config(with({"topology.kind=clos", "topology.pods=3", "topology.tors_per_pod=4",
                                                           "topology.aggs_per_pod=2", "topology.spines=6", "topology.hosts_per_tor=5"})).topo;
  EXPECT_EQ(c.switches.size(), 3u * 4 + 3 * 2 + 6);
  EXPECT_EQ(c.hosts.size(), 3u * 4 * 5);
  const topology d = make_fabric_config(with({"topology.kind=dragonfly", "topology.groups=4", "topology.routers_per_group=3",
                                                           "topology.global_links=2", "topology.hosts_per_tor=1"})).topo;
  EXPECT_EQ(d.switches.size(), 12u);
  EXPECT_EQ(d.links.size(), 12u + 4 * 3 + 12 * 2 / 2);
}

TEST(TopologyKeys, BadShapesNameTheKey) {
  EXPECT_TRUE(has(error_of({"topology.kind=jellyfish", "topology.tors=5", "topology.fabric_ports=3"}),
                  "key 'topology.fabric_ports': 5 ToRs x 3 fabric ports = 15 link ends"));
  EXPECT_TRUE(has(error_of({"topology.kind=clos", "topology.aggs_per_pod=3", "topology.spines=4"}),
                  "key 'topology.spines': 4 spines cannot form 3 equal planes"));
  EXPECT_TRUE(has(error_of({"topology.kind=dragonfly", "topology.groups=4", "topology.routers_per_group=4"}),
                  "key 'topology.global_links': a group's 4 routers x 1 global links"));
  EXPECT_TRUE(has(error_of({"topology.kind=file"}), "key 'topology.kind': \"file\" needs topology.file"));
  EXPECT_TRUE(has(error_of({"topology.kind=file", "topology.file=no_such.topo"}), "key 'topology.file': cannot read the topology file"));
  EXPECT_TRUE(has(error_of({"topology.kind=fat_tree", "topology.pods=3"}), "key 'topology.pods': is not used when topology.kind is fat_tree"));
  EXPECT_TRUE(has(error_of({"topology.kind=jellyfish", "topology.layers=3"}), "key 'topology.layers': is not used when topology.kind is jellyfish"));
  EXPECT_TRUE(has(error_of({"topology.kind=clos", "topology.file=x.topo"}), "key 'topology.file': is not used when topology.kind is clos"));
  EXPECT_TRUE(has(error_of({"topology.kind=dragonfly", "topology.global_arrangement=consecutive", "topology.leaves=3"}),
                  "key 'topology.leaves': is not used when topology.kind is dragonfly"));
}
