// --pcap's port grammar (run/pcap_capture.h) on a small leaf-spine: names, ports, directions, files.
#include <gtest/gtest.h>

#include <string>

#include "common/params.h"
#include "run/pcap_capture.h"

using namespace netasic;

namespace {
topology small() {
  leaf_spine_spec s;
  s.leaves = 2;
  s.spines = 2;
  s.hosts_per_leaf = 2;
  s.host_rate_bps = s.uplink_rate_bps = 100'000'000'000ull;
  return build_leaf_spine(s);
}
}  // namespace

TEST(PcapPorts, EachPortGivesItsTwoDirections) {
  const topology t = small();
  const auto pts = parse_pcap_ports(t, "leaf0:1,host0,leaf0:1");
  ASSERT_EQ(pts.size(), 4u);   // the repeated port once
  const unsigned leaf0 = t.find_node("leaf0"), host0 = t.find_node("host0");
  EXPECT_EQ(pts[0].file, "pcap/leaf0.p1.tx.pcap");
  EXPECT_EQ(pts[1].file, "pcap/leaf0.p1.rx.pcap");
  EXPECT_EQ(pts[2].file, "pcap/host0.p0.tx.pcap");
  EXPECT_EQ(pts[3].file, "pcap/host0.p0.rx.pcap");
  const topo_link& l = t.links[pts[0].link];
  EXPECT_EQ(pts[0].link, t.nodes[leaf0].port_link[1]);
  // tx: the direction whose transmitter is the named node.
  EXPECT_EQ(pts[0].a_to_b, l.a == leaf0);
  EXPECT_EQ(pts[1].a_to_b, l.a != leaf0);
  EXPECT_EQ(pts[2].link, t.nodes[host0].port_link[0]);
  EXPECT_EQ(pts[2].a_to_b, t.links[pts[2].link].a == host0);
}

TEST(PcapPorts, StarAndBareNameTakeEveryPort) {
  const topology t = small();
  EXPECT_EQ(parse_pcap_ports(t, "spine1:*").size(), 4u);   // two leaves: 2 ports x 2 directions
  EXPECT_EQ(parse_pcap_ports(t, "leaf1").size(), 8u);      // 2 hosts + 2 spines
  EXPECT_TRUE(parse_pcap_ports(t, "").empty());
}

TEST(PcapPorts, BadItemsNameTheValidOnes) {
  const topology t = small();
  const auto error = [&](const std::string& spec) {
    try {
      parse_pcap_ports(t, spec);
    } catch (const config_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error("leaf2:0"), "--pcap: 'leaf2:0' names no node of the topology (nodes: leaf0..leaf1, spine0..spine1, host0..host3)");
  EXPECT_EQ(error("host0,"), "--pcap: '' names no node of the topology (nodes: leaf0..leaf1, spine0..spine1, host0..host3)");
  EXPECT_EQ(error("host1:1"), "--pcap: 'host1:1': host1 has ports 0..0 (or * for all)");
  EXPECT_EQ(error("leaf0:x"), "--pcap: 'leaf0:x': leaf0 has ports 0..3 (or * for all)");
  EXPECT_EQ(error("leaf0:-1"), "--pcap: 'leaf0:-1': leaf0 has ports 0..3 (or * for all)");
}
