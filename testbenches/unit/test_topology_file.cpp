// The topology file (topology/topology_file.h): a small fabric read back device by device and
// port by port, and every kind of bad input rejected with the file, the line and what is wrong.
#include <gtest/gtest.h>

#include <string>

#include "common/params.h"
#include "topology/topology_file.h"
#include "topology_checks.h"

using namespace netasic;

namespace {
topology_file_defaults defaults() {
  topology_file_defaults d;
  d.host_rate_bps = 100'000'000'000, d.uplink_rate_bps = 400'000'000'000, d.delay_ps = 1'000'000;
  return d;
}
std::string error_of(const std::string& text) {
  try {
    parse_topology_text(text, "fab.topo", defaults());
  } catch (const config_error& e) {
    return e.what();
  }
  return "no error";
}
// Two switches, three hosts, two parallel links (one named by port, one failed), a degraded link.
const std::string ring = R"(# a test fabric
switch s0 ports=5 tier=1
switch s1                  # as many ports as links
switch s2 tier=2
host h0
host h1
host h2
link h0 s0
link h1 s0:3               # port 3 of s0
link s0 s1 rate=25 delay=250
link s0:4 s1 failed
link s1 s2 degraded=10
link s2 h2 rate=50
link s0 s2
)";
}  // namespace

TEST(TopologyFile, ReadsDevicesPortsRatesAndFaults) {
  const topology t = parse_topology_text(ring, "fab.topo", defaults());
  ASSERT_EQ(t.switches.size(), 3u);
  ASSERT_EQ(t.hosts.size(), 3u);
  ASSERT_EQ(t.links.size(), 7u);
  EXPECT_TRUE(topo_check::ports_consistent(t));
  const unsigned s0 = t.find_node("s0"), s1 = t.find_node("s1"), s2 = t.find_node("s2");
  // s0: h0 takes the lowest port no END names (0), h1 port 3, the s1 links ports 1 and 4, s2 port 2.
  ASSERT_EQ(t.nodes[s0].port_link.size(), 5u);
  EXPECT_EQ(t.links[t.nodes[s0].port_link[0]].name, "h0-s0");
  EXPECT_EQ(t.links[t.nodes[s0].port_link[3]].name, "h1-s0");
  EXPECT_EQ(t.links[t.nodes[s0].port_link[1]].name, "s0-s1#0");
  EXPECT_EQ(t.links[t.nodes[s0].port_link[4]].name, "s0-s1#1");
  EXPECT_EQ(t.links[t.nodes[s0].port_link[2]].name, "s0-s2#0");
  const topo_link& fast = t.links[t.find_links("s0-s1#0").links.at(0)];
  EXPECT_EQ(fast.rate_bps, 25'000'000'000u);
  EXPECT_EQ(fast.delay_ps, 250'000u);
  EXPECT_FALSE(fast.failed);
  EXPECT_TRUE(t.links[t.find_links("s0-s1#1").links.at(0)].failed);
  EXPECT_EQ(t.links[t.find_links("s0-s1#1").links.at(0)].rate_bps, 400'000'000'000u);   // the default
  EXPECT_EQ(t.links[t.find_links("s1-s2").links.at(0)].rate_bps, 10'000'000'000u);      // degraded
  EXPECT_EQ(t.links[t.find_links("h0-s0").links.at(0)].rate_bps, 100'000'000'000u);     // host default
  EXPECT_EQ(t.links[t.find_links("h0-s0").links.at(0)].delay_ps, 1'000'000u);
  // h2's link was written "s2 h2": the host end comes first, as the builders have it.
  const topo_link& h2 = t.links[t.find_links("h2-s2").links.at(0)];
  EXPECT_EQ(t.nodes[h2.a].name, "h2");
  EXPECT_EQ(h2.rate_bps, 50'000'000'000u);
  EXPECT_EQ(t.nodes[s2].tier, 2u);
  EXPECT_EQ(t.nodes[s1].port_link.size(), 3u);
  EXPECT_EQ(t.host_switch(2), s2);
  EXPECT_EQ(t.nodes[t.hosts[1]].name, "h1");   // host numbers are declaration order
}

TEST(TopologyFile, BadInputNamesFileLineAndFault) {
  const std::string head = "switch a\nswitch b\nhost h\nlink h a\n";   // lines 1-4
  struct bad { std::string text, error; };
  const bad cases[] = {
      {head + "link a b\nlink a a\n", "fab.topo:6: the link joins a to itself"},
      {head + "link a b\nswitch b\n", "fab.topo:6: 'b' is already declared on line 2"},
      {head + "link a c\n", "fab.topo:5: no switch or host is named 'c'"},
      {head + "link a:1 b\nlink a:1 b\n", "fab.topo:6: port 1 of a is already used by the link on line 5"},
      {"switch a ports=3\nswitch b\nhost h\nlink h a\nlink a b\n", "fab.topo:1: port 2 of a is dangling: a has 3 ports but no link uses port 2"},
      {"switch a\nswitch b\nhost h\nlink h a\nlink a:3 b\n", "fab.topo:1: port 1 of a is dangling"},
      {"switch a ports=2\nswitch b\nhost h\nlink h a\nlink a:2 b\n", "fab.topo:5: a has 2 ports (ports=2 on line 1); port 2 does not exist"},
      {"switch a ports=1\nswitch b\nhost h\nlink h a\nlink a b\n", "fab.topo:5: a has no free port left (ports=1 on line 1)"},
      {head + "link a b\nhost g\n", "fab.topo:6: host g is on no switch: no link names it"},
      {head + "link a b\nlink h b\n", "fab.topo:6: host h is already on the link on line 4; a host has one port"},
      {head + "link a b\nhost g\nlink g h\n", "fab.topo:7: the link joins two hosts (g and h); a host hangs off a switch"},
      {head + "switch c\nswitch d\nlink a b\nlink c d\n", "fab.topo:5: the fabric is disconnected: switch c cannot reach switch a (line 1)"},
      {head + "link a b\nhost g\nlink g b\nhost h2\nlink h2 a\n", "fab.topo:8: host h2 hangs off a, whose other hosts end with h on line 3"},
      {head + "link a b rate=fast\n", "fab.topo:5: rate=fast: 'fast' is not a number"},
      {head + "link a b rate=0\n", "fab.topo:5: rate=0: must be between 0.001 and 100000"},
      {head + "link a b colour=red\n", "fab.topo:5: 'colour=red' is not an attribute of a link"},
      {head + "link a b failed degraded=1\n", "fab.topo:5: a link is failed or degraded, not both"},
      {head + "link a b rate=10 degraded=10\n", "fab.topo:5: degraded=10 Gbps is not below the link's rate of 10 Gbps"},
      {head + "link a b\nrouter r\n", "fab.topo:6: 'router' is not a statement"},
      {head + "link a b\nswitch x-y\n", "fab.topo:6: 'x-y' is not a name"},
      {head + "link a b\nswitch z ports=2.5\n", "fab.topo:6: ports=2.5: must be a whole number"},
      {head + "link a h:1\n", "fab.topo:5: host h has one port, 0; there is no port 1"},
      {"switch a\n", "fab.topo:1: the file declares no host"},
      {"host h\n", "fab.topo:1: the file declares no switch"},
  };
  for (const bad& b : cases) {
    const std::string e = error_of(b.text);
    EXPECT_EQ(e.rfind(b.error, 0), 0u) << "got: " << e << "\nwanted: " << b.error << "\nfile:\n" << b.text;
  }
}

TEST(TopologyFile, UnreadableFileIsNamed) {
  try {
    read_topology_file("no/such/file.topo", defaults());
    ADD_FAILURE();
  } catch (const config_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot read the topology file 'no/such/file.topo'");
  }
}
