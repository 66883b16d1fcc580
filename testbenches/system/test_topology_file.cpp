// A fabric read from a topology file, end to end: the shipped example (scenarios/topology/
// ring.topo) builds the switches, hosts, ports, rates, delays and faults the file declares; the
// route controller routes around its failed link; a run over it delivers every packet on the
// detour. The control is the same file with the link up: the route and the hop count change.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "fabric/route_planner.h"
#include "run_cli.h"
#include "scenario/scenario.h"
#include "topology/topology_file.h"

namespace fs = std::filesystem;
using namespace netasic;

namespace {
const std::string dir = NETASIC_SOURCE_DIR "/scenarios/topology/";

const topo_link& link_named(const topology& t, const std::string& name) {
  const link_match m = t.find_links(name);
  EXPECT_EQ(m.links.size(), 1u) << name << ": " << m.error;
  return t.links[m.links.at(0)];
}

// The ports sw0's route table sends host2's frames to (ring.topo: host2 = h2, under sw1).
std::vector<unsigned> sw0_ports_to_h2(const fabric_config& fc) {
  const route_plan plan = plan_fabric_routes(fc.topo, fc.sw);
  const auto& r = plan.per_switch[0];   // sw0 is the first switch of the file
  const uint32_t e = plan.entry(0, 2);
  std::vector<unsigned> ports;
  for (uint32_t i = 0; i < (e & 0xFFFF); ++i) ports.push_back(r.members[(e >> 16) + i]);
  return ports;
}

// ring.topo with its failed link up.
std::string ring_up() {
  std::string text = slurp(dir + "ring.topo");
  const std::string failed = "link sw0:2 sw1 failed";
  const size_t at = text.find(failed);
  EXPECT_NE(at, std::string::npos);
  if (at != std::string::npos) text.replace(at, failed.size(), "link sw0:2 sw1");
  return text;
}

topology_file_defaults defaults_of(const fabric_config& fc) {
  topology_file_defaults d;
  d.host_rate_bps = fc.topo.links[fc.topo.find_links("h0-sw0").links.at(0)].rate_bps;
  d.uplink_rate_bps = fc.topo.links[fc.topo.find_links("sw1-sw2").links.at(0)].rate_bps;
  d.delay_ps = fc.topo.links[fc.topo.find_links("sw1-sw2").links.at(0)].delay_ps;
  return d;
}

// A one-flow run from host 0 (h0, sw0) to host 2 (h2, sw1) over the given topology file: packet
// hops per packet sent (the data and its ACKs all take paths of one length here).
double hops_per_packet(const fs::path& out, const std::string& topo_file) {
  const fs::path scenario = out / "one_flow.toml";
  std::ofstream(scenario) << "[sim]\nduration = 50\ndrain = 5000\n[topology]\nkind = \"file\"\nfile = \"" << topo_file
                          << "\"\nhost_rate = 25\nuplink_rate = 100\n[traffic]\npattern = \"list\"\nflows = [\"0->2 100000@0\"]\n";
  const outcome o = netasic_cli("run " + scenario.string() + " --quiet --out " + (out / "run").string());
  EXPECT_EQ(o.code, 0) << o.output;
  const auto s = nlohmann::json::parse(slurp(out / "run" / "summary.json"));
  EXPECT_EQ(s["flows"]["completed"].get<uint64_t>(), 1u);
  EXPECT_EQ(s["packets"]["dropped"].get<uint64_t>(), 0u);
  return double(s["packet_hops"].get<uint64_t>()) / double(s["packets"]["sent"].get<uint64_t>());
}
}  // namespace

TEST(TopologyFileRun, BuildsTheFabricTheFileDeclares) {
  const fabric_config fc = make_fabric_config(load_scenario(dir + "file_ring.toml", {}));
  const topology& t = fc.topo;
  ASSERT_EQ(t.switches.size(), 4u);
  ASSERT_EQ(t.hosts.size(), 8u);
  ASSERT_EQ(t.links.size(), 13u);   // 8 host links, 4 ring links, the chord
  const unsigned sw0 = t.find_node("sw0");
  ASSERT_EQ(t.nodes[sw0].port_link.size(), 5u);
  EXPECT_EQ(t.links[t.nodes[sw0].port_link[4]].name, "sw0-sw2#0");   // the chord on sw0:4, sw2:4
  EXPECT_EQ(t.links[t.nodes[sw0].port_link[4]].port_on(t.find_node("sw2")), 4u);
  EXPECT_TRUE(link_named(t, "sw0-sw1").failed);
  EXPECT_EQ(link_named(t, "sw2-sw3").rate_bps, 10'000'000'000u);   // degraded from 40
  EXPECT_EQ(link_named(t, "h7-sw3").rate_bps, 10'000'000'000u);
  EXPECT_EQ(link_named(t, "h0-sw0").rate_bps, 25'000'000'000u);    // topology.host_rate
  EXPECT_EQ(link_named(t, "sw1-sw2").rate_bps, 100'000'000'000u);  // topology.uplink_rate
  EXPECT_EQ(link_named(t, "sw3-sw0").delay_ps, 500'000u);
  EXPECT_EQ(link_named(t, "sw1-sw2").delay_ps, 1'000'000u);        // topology.link_delay
  // sw1's hosts are reached over the chord only (sw0-sw2-sw1, 2 switch hops; sw0-sw3-sw2-sw1 is 3).
  EXPECT_EQ(sw0_ports_to_h2(fc), std::vector<unsigned>{4});
  // The control: the same file with sw0-sw1 up; sw0 sends to sw1 directly, on port 2.
  fabric_config up = fc;
  up.topo = parse_topology_text(ring_up(), "ring_up.topo", defaults_of(fc));
  EXPECT_EQ(sw0_ports_to_h2(up), std::vector<unsigned>{2});
}

TEST(TopologyFileRun, RunsRoutedAroundTheFailedLink) {
  const fs::path out = scratch("topology_file", "failed"), ctl = scratch("topology_file", "up");
  // h0 -> sw0 -> sw2 -> sw1 -> h2: 4 links. The control, the same file with sw0-sw1 up: 3 links.
  EXPECT_DOUBLE_EQ(hops_per_packet(out, dir + "ring.topo"), 4.0);
  std::ofstream(ctl / "ring_up.topo") << ring_up();
  const double control = hops_per_packet(ctl, (ctl / "ring_up.topo").string());
  EXPECT_DOUBLE_EQ(control, 3.0);
  EXPECT_NE(control, 4.0);   // the check above fails without the failed link
}

TEST(TopologyFileRun, ShippedScenarioRunsAndPathsCommandReadsIt) {
  const fs::path out = scratch("topology_file", "shipped");
  outcome o = netasic_cli("run " + dir + "file_ring.toml --quiet --set sim.duration=50 --out " + out.string());
  ASSERT_EQ(o.code, 0) << o.output;
  const auto s = nlohmann::json::parse(slurp(out / "summary.json"));
  EXPECT_EQ(s["flows"]["started"], s["flows"]["completed"]);
  o = netasic_cli("paths " + dir + "file_ring.toml");
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("topology file: 4 switches, 8 hosts, 13 links"), std::string::npos) << o.output;
  // Bad input stops before the run, naming the scenario key, the file and the line.
  const fs::path bad = scratch("topology_file", "bad");
  std::ofstream(bad / "bad.topo") << "switch a\nswitch b\nhost h\nlink h a\nlink a a\n";
  o = netasic_cli("run " + dir + "file_ring.toml --quiet --set topology.file=" + (bad / "bad.topo").string());
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("key 'topology.file': " + (bad / "bad.topo").string() + ":5: the link joins a to itself"), std::string::npos)
      << o.output;
}
