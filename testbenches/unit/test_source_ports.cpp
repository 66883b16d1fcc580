// The flows' ephemeral source ports (fabric/fabric.h, assign_source_ports), against a golden
// model written here: each flow in id order takes its hashed port (49152 + the top 14 bits of
// id x 2654435761, mod 2^32) or, if a flow between its two hosts (either way: a RoCE ACK carries
// its flow's ports back) already holds that port, the first free one after it, cyclically; a port
// the trace gave is kept. Random flow sets with few hosts, so hashed ports collide often.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "fabric/fabric.h"

using namespace netasic;

namespace {

constexpr uint32_t first_port = 49152, ports = 16384;

uint16_t hashed(uint32_t id) { return uint16_t(first_port + uint32_t(uint64_t(id) * 2654435761u % (uint64_t(1) << 32) >> 18)); }

using host_pair = std::pair<uint32_t, uint32_t>;
host_pair pair_of(const flow_ctx& f) { return {std::min(f.src, f.dst), std::max(f.src, f.dst)}; }

std::vector<uint16_t> golden(const std::vector<flow_ctx>& flows) {
  std::map<host_pair, std::set<uint16_t>> held;
  for (const flow_ctx& f : flows)
    if (f.src_port) held[pair_of(f)].insert(f.src_port);
  std::vector<uint16_t> out;
  for (const flow_ctx& f : flows) {
    if (f.src_port) {
      out.push_back(f.src_port);
      continue;
    }
    std::set<uint16_t>& h = held[pair_of(f)];
    uint16_t p = hashed(f.id);
    for (uint32_t tries = 0; tries < ports && h.count(p); ++tries) p = uint16_t(p == 65535 ? first_port : p + 1);
    h.insert(p);
    out.push_back(p);
  }
  return out;
}

std::vector<flow_ctx> random_flows(std::mt19937_64& rng, size_t n, unsigned hosts, bool with_trace_ports) {
  std::vector<flow_ctx> flows(n);
  for (size_t i = 0; i < n; ++i) {
    flows[i].id = uint32_t(i);
    flows[i].src = uint32_t(rng() % hosts);
    flows[i].dst = uint32_t(rng() % hosts);
    if (with_trace_ports && rng() % 8 == 0) flows[i].src_port = uint16_t(first_port + rng() % 64);   // crowded
  }
  return flows;
}

}  // namespace

TEST(SourcePorts, MatchTheGoldenModel) {
  std::mt19937_64 rng(7);
  size_t moved = 0;
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<flow_ctx> flows = random_flows(rng, 2000 + rng() % 3000, 2 + rng() % 3, trial % 2 == 1);
    const std::vector<uint16_t> want = golden(flows);
    assign_source_ports(flows);
    for (size_t i = 0; i < flows.size(); ++i) {
      ASSERT_EQ(flows[i].src_port, want[i]) << "trial " << trial << " flow " << i;
      moved += flows[i].src_port != hashed(flows[i].id);
    }
  }
  EXPECT_GT(moved, 1000u);   // the trials did collide
}

// The property itself: between two hosts, either way, no two flows share a source port while
// they have ports to spare; a flow whose hashed port is free keeps it (so runs without
// collisions keep their paths).
TEST(SourcePorts, DistinctWithinEachHostPair) {
  std::mt19937_64 rng(11);
  std::vector<flow_ctx> flows = random_flows(rng, 20000, 3, false);
  assign_source_ports(flows);
  std::map<host_pair, std::set<uint16_t>> seen;
  for (const flow_ctx& f : flows) {
    EXPECT_GE(f.src_port, first_port);
    const bool fresh = seen[pair_of(f)].insert(f.src_port).second;
    EXPECT_TRUE(fresh) << "flow " << f.id << " repeats port " << f.src_port;
  }
  std::vector<flow_ctx> alone(1);
  alone[0].id = 12345;
  assign_source_ports(alone);
  EXPECT_EQ(alone[0].src_port, hashed(12345));
}

// More flows in one pair than ephemeral ports: every port is used once, then one repeats.
TEST(SourcePorts, APairWithMoreFlowsThanPortsRepeatsOnlyThen) {
  std::vector<flow_ctx> flows(ports + 1);
  for (uint32_t i = 0; i <= ports; ++i) flows[i].id = i;
  assign_source_ports(flows);
  std::set<uint16_t> used;
  for (uint32_t i = 0; i < ports; ++i) used.insert(flows[i].src_port);
  EXPECT_EQ(used.size(), ports);
  EXPECT_EQ(flows[ports].src_port, hashed(ports));
}
