// summary.json's memory: what a packet in flight costs, by exact sizeof arithmetic, and the fixed
// bytes per switch, NIC and link, against an independent measure: the peak resident memory that
// a larger fabric adds over a smaller one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "protocol/packet.h"
#include "run_cli.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A k-ary fat tree with 1 ns of arrivals and no drain: the fabric built, almost no traffic.
json built_fat_tree(unsigned k) {
  const fs::path d = scratch("memory", "k" + std::to_string(k));
  const outcome o = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/fat_tree_k8.toml --quiet --out " + d.string() +
                                " --set topology.k=" + std::to_string(k) +
                                " --set 'topology.failed_links=[]' --set sim.duration=0.001 --set sim.drain=0"
                                " --set sim.probe_interval=1000000");
  EXPECT_EQ(o.code, 0) << o.output;
  return json::parse(slurp(d / "summary.json"));
}

// The fabric's fixed bytes from the summary: switches, NICs and links times their bytes each.
double fixed_bytes(const json& s, bool with_switches = true) {
  const json& t = s["topology"];
  const json& m = s["memory"];
  return (with_switches ? t["switches"].get<double>() * m["per_switch_bytes"].get<double>() : 0.0) +
         t["hosts"].get<double>() * m["per_host_bytes"].get<double>() + t["links"].get<double>() * m["per_link_bytes"].get<double>();
}

}  // namespace

// A packet in flight costs its pool slot plus, at most, the (arrival time, pointer) entry of the
// link FIFO or switch parser FIFO it waits in: 8 + 8 bytes on LP64. Switch queues link packets
// through packet::next, so they add nothing. The goal of issue 18: at most 1 KiB.
TEST(Memory, APacketInFlightCostsItsSlotAndOneFifoEntryWellUnderOneKiB) {
  const fs::path d = scratch("memory", "demo");
  const outcome o = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/demo.toml --quiet --out " + d.string() +
                                " --set topology.hosts_per_leaf=4 --set sim.duration=200 --set 'traffic.flows=[]'");
  ASSERT_EQ(o.code, 0) << o.output;
  const json m = json::parse(slurp(d / "summary.json"))["memory"];
  EXPECT_EQ(m["packet_bytes"].get<uint64_t>(), sizeof(netasic::packet));
  EXPECT_EQ(m["in_flight_packet_bytes"].get<uint64_t>(), sizeof(netasic::packet) + 8 + 8);
  EXPECT_LE(m["in_flight_packet_bytes"].get<uint64_t>(), 1024u);
}

// The fixed bytes add up: going from a k=8 fat tree (128 hosts, 80 switches, 384 links) to k=12
// (432, 180, 1296), the peak resident memory grows by what the summary says the extra switches,
// NICs and links take, within 25 % (the rest: the topology graph, the route plan, flows, the
// allocator's own pages). Control: the same sum without the switches misses by more than that.
TEST(Memory, FixedBytesPerSwitchHostAndLinkAddUpToThePeakMemoryOfALargerFabric) {
  const json small = built_fat_tree(8), large = built_fat_tree(12);
  const double measured = large["peak_memory_bytes"].get<double>() - small["peak_memory_bytes"].get<double>();
  const double predicted = fixed_bytes(large) - fixed_bytes(small);
  ASSERT_GT(measured, 0);
  EXPECT_LT(std::fabs(predicted - measured), 0.25 * measured)
      << "predicted " << predicted << " B, measured " << measured << " B of peak memory";
  const double without_switches = fixed_bytes(large, false) - fixed_bytes(small, false);
  EXPECT_GT(std::fabs(without_switches - measured), 0.25 * measured)
      << "the control (no switch bytes) also agrees: " << without_switches << " B against " << measured << " B";
}
