// System tests: small fabrics run end to end. Each test elaborates SystemC, so ctest runs each
// in its own process (the kernel cannot be restarted).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "common/params.h"
#include "run/run.h"
#include "harness.h"
#include "switch/switch.h"
#include "tlm/link.h"
#include "tlm/regbus.h"

using namespace netasic;

namespace {

// Sends frames into one link direction and records when each arrives at the far end.
struct endpoint : sc_core::sc_module, pkt_receiver {
  pkt_tx_port tx;
  pkt_rx_port rx() { return {this, 0}; }
  std::vector<uint64_t> arrivals;
  explicit endpoint(sc_core::sc_module_name n) : sc_core::sc_module(n) {}
  void pkt_receive(unsigned, packet& p, uint64_t now) override {
    arrivals.push_back(now);
    EXPECT_EQ(now, now_ps());
    (void)p;
  }
};

}  // namespace

TEST(Link, DeliversAtTheExactPicosecond) {
  endpoint a("a"), b("b");
  event_queue events("events");
  const link_timing exact{100'000'000'000ull, 1'234'567, 1};   // receiver clock of 1 ps: no alignment
  packet_link link(exact, exact, events);
  connect(a.tx, link.a_to_b, b.rx());
  connect(b.tx, link.b_to_a, a.rx());
  uint64_t hops = 0;
  for (auto* d : {&link.a_to_b, &link.b_to_a}) d->hop_counter = &hops;
  packet p1, p2, p3;
  p1.payload_bytes = 1000;   // 1062-byte frame
  p2.payload_bytes = 0;      // padded to the 64-byte minimum
  p3.payload_bytes = 9000;
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  // 100 Gb/s is 80 ps per byte; each frame also carries 8 bytes of preamble, then 12 of gap.
  const uint64_t next1 = a.tx.send(p1, 0);
  EXPECT_EQ(next1, (1062u + 20) * 80);
  const uint64_t next2 = a.tx.send(p2, next1);
  EXPECT_EQ(next2, next1 + (64u + 20) * 80);
  a.tx.send(p3, next2 + 5);   // an idle gap of 5 ps
  sc_core::sc_start();
  ASSERT_EQ(b.arrivals.size(), 3u);
  EXPECT_EQ(b.arrivals[0], (1062u + 8) * 80 + 1'234'567);
  EXPECT_EQ(b.arrivals[1], next1 + (64u + 8) * 80 + 1'234'567);
  EXPECT_EQ(b.arrivals[2], next2 + 5 + (9062u + 8) * 80 + 1'234'567);
  EXPECT_EQ(hops, 3u);
  EXPECT_EQ(link.a_to_b.counters().bytes, 1062u + 64 + 9062);
}

TEST(RegisterBus, RoutesAreWrittenAndReadBack) {
  struct driver : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<reg_driver> out{"out"};
    explicit driver(sc_core::sc_module_name n) : sc_core::sc_module(n) {}
  } drv("drv");
  run_stats stats;
  switch_config cfg;
  cfg.tm.buffer_bytes = 1 << 20;
  event_queue events("events");
  const uint64_t g100 = 100'000'000'000ull;
  switch_model sw0("sw0", 7, std::vector<uint64_t>(4, g100), 16, cfg, stats, events),
      sw1("sw1", 8, std::vector<uint64_t>(6, g100), 16, cfg, stats, events);
  regbus bus("bus");
  drv.out.bind(bus.in);
  const unsigned d0 = bus.attach(sw0.csr), d1 = bus.attach(sw1.csr);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);   // binding completes at the end of elaboration
  reg_driver r(drv.out);
  EXPECT_EQ(r.read32(regbus::address(d0, route_table::reg_switch_id)), 7u);
  EXPECT_EQ(r.read32(regbus::address(d1, route_table::reg_num_ports)), 6u);
  r.write32(regbus::address(d1, route_table::reg_member + 8), 5);
  r.write32(regbus::address(d1, route_table::reg_route + 4 * 3), (2u << 16) | 1);
  EXPECT_EQ(r.read32(regbus::address(d1, route_table::reg_route + 4 * 3)), (2u << 16) | 1);
  EXPECT_EQ(r.read32(regbus::address(d0, route_table::reg_route + 4 * 3)), 0u);   // other device untouched
  EXPECT_THROW(r.write32(regbus::address(d1, route_table::reg_member), 6), std::runtime_error);   // no port 6
  EXPECT_THROW(r.read32(regbus::address(5, 0)), std::runtime_error);                             // no device 5
  EXPECT_THROW(r.write32(regbus::address(d0, 0x4000'0000), 1), std::runtime_error);   // unmapped
  // The Sundial block (sundial_regs.h): read back; ROOT and VALID take 0 or 1 only.
  r.write32(regbus::address(d0, sundial_regs::offset(sundial_regs::eps_base)), 15'000);
  EXPECT_EQ(r.read32(regbus::address(d0, sundial_regs::offset(sundial_regs::eps_base))), 15'000u);
  EXPECT_EQ(sw0.sundial_registers()[sundial_regs::eps_base], 15'000u);
  EXPECT_THROW(r.write32(regbus::address(d0, sundial_regs::offset(sundial_regs::valid)), 2), std::runtime_error);
}

TEST(Fabric, LoneFlowFinishesInItsIdealTime) {
  // One 1 MB flow across the spine, window larger than the BDP: nothing queues, so its FCT is
  // the analytic ideal up to the switch clock alignment (at most one period per switch pass).
  const run_result r = run_scenario(
      small_config({{"traffic.pattern", "incast"}, {"traffic.incast.senders", "1"}, {"traffic.incast.receiver", "7"},
                    {"traffic.flow_size", "1000000"}, {"nic.window", "100000"}, {"topology.hosts_per_leaf", "4"}}),
      progress_mode::none);
  ASSERT_EQ(r.flows.size(), 1u);
  const flow_record& f = r.flows[0];
  ASSERT_GT(f.fct_s, 0);
  // Data and ACK each cross 3 switches (leaf, spine, leaf), or 1 when both hosts share a leaf,
  // and are then received on a NIC clock edge.
  const double clock_s = 1e-9, passes = 2 * (f.src / 4 == f.dst / 4 ? 2 : 4);
  EXPECT_GE(f.fct_s, f.ideal_fct_s - 1e-12);
  EXPECT_LE(f.fct_s, f.ideal_fct_s + passes * clock_s);
  EXPECT_EQ(r.summary["packets"]["dropped"].get<uint64_t>(), 0u);
  expect_accounting(r);
}

TEST(Fabric, IncastWithSmallBufferDropsAndStillCompletes) {
  const run_result r = run_scenario(
      small_config({{"traffic.pattern", "incast"}, {"traffic.incast.senders", "15"}, {"traffic.flow_size", "200000"},
                    {"topology.hosts_per_leaf", "8"}, {"switch.buffer", "100"}, {"nic.window", "64"}, {"nic.rto", "100"},
                    {"pfc.priorities", "[]"}, {"tm.alpha", "[0,0,0,0,0,0,0,0]"}}),   // lossy, tail drop
      progress_mode::none);
  EXPECT_GT(r.summary["drops"]["buffer_full"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["flows"]["completed"].get<uint64_t>(), 15u);
  EXPECT_GT(r.summary["flows"]["retransmitted_packets"].get<uint64_t>(), 0u);
  EXPECT_LE(r.summary["queue"]["peak_bytes"].get<uint64_t>(), 100u * 1024);
  expect_accounting(r);
}

TEST(Fabric, IncastWithLargeBufferDropsNothing) {
  const run_result r = run_scenario(
      small_config({{"traffic.pattern", "incast"}, {"traffic.incast.senders", "15"}, {"traffic.flow_size", "200000"},
                    {"topology.hosts_per_leaf", "8"}, {"switch.buffer", "65536"}, {"nic.window", "64"}}),
      progress_mode::none);
  EXPECT_EQ(r.summary["packets"]["dropped"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["flows"]["completed"].get<uint64_t>(), 15u);
  EXPECT_EQ(r.summary["flows"]["retransmitted_packets"].get<uint64_t>(), 0u);
  // 15 senders into one 100G port: the receiver's queue must have built up.
  EXPECT_GT(r.summary["queue"]["peak_bytes"].get<uint64_t>(), 64u * 1024);
  expect_accounting(r);
}

TEST(Fabric, PoissonOnLeafSpineWithFailedLinkCompletesEveryFlow) {
  const run_result r = run_scenario(
      small_config({{"topology.leaves", "4"}, {"topology.spines", "2"}, {"topology.hosts_per_leaf", "4"},
                    {"topology.failed_links", "leaf0-spine1"}, {"topology.degraded_links", "leaf1-spine0#0=100"},
                    {"traffic.load", "0.4"}, {"sim.duration", "600"}}),
      progress_mode::none);
  const uint64_t total = r.summary["flows"]["total"].get<uint64_t>();
  EXPECT_GT(total, 20u);
  EXPECT_EQ(r.summary["flows"]["completed"].get<uint64_t>(), total);
  EXPECT_EQ(r.summary["drops"]["link_down"].get<uint64_t>(), 0u);   // routes avoid the failed link
  EXPECT_EQ(r.summary["drops"]["no_route"].get<uint64_t>(), 0u);
  for (const auto& f : r.flows) EXPECT_GE(f.slowdown(), 1.0 - 1e-9) << "flow " << f.id;
  expect_accounting(r);
}

TEST(Fabric, FatTreePermutationCompletes) {
  const run_result r = run_scenario(
      small_config({{"topology.kind", "fat_tree"}, {"topology.k", "4"}, {"topology.uplink_rate", "100"},
                    {"traffic.pattern", "permutation"}, {"traffic.flow_size", "300000"}}),
      progress_mode::none);
  EXPECT_EQ(r.summary["flows"]["completed"].get<uint64_t>(), 16u);
  EXPECT_EQ(r.summary["topology"]["switches"].get<uint64_t>(), 20u);
  // Fat-tree paths are at most 6 links; every packet-hop is a link traversal.
  const auto& p = r.summary["packets"];
  EXPECT_LE(r.summary["packet_hops"].get<uint64_t>(), 6 * p["delivered"].get<uint64_t>());
  expect_accounting(r);
}

TEST(Fabric, PathBytesAddUpToEachFlowAndToTheUplinkCounters) {
  // 2 leaves, 2 spines, 4 hosts each; every other host sends 200 KB to host 4 (leaf1), sprayed at random
  // packet by packet over the spines so each leaf0 flow splits. Per flow, the bytes on its paths
  // are the payload it sent (1000 B packets, retransmissions included). leaf0's uplinks carry
  // only those flows' data (their ACKs come back over leaf1's uplinks, PAUSE frames are not
  // counted), so each uplink's bytes are the bytes of the paths through its spine, at 1062 frame
  // bytes per 1000 payload bytes (14 Ethernet + 20 IPv4 + 8 UDP + 12 BTH + 4 ICRC + 4 FCS).
  const run_result r = run_scenario(
      small_config({{"topology.leaves", "2"}, {"topology.spines", "2"}, {"topology.hosts_per_leaf", "4"},
                    {"traffic.pattern", "incast"}, {"traffic.incast.senders", "7"}, {"traffic.incast.receiver", "4"},
                    {"traffic.flow_size", "200000"}, {"lb.mode", "spray_random"}}),
      progress_mode::none);
  ASSERT_EQ(r.flows.size(), 7u);
  std::map<std::string, uint64_t> via;           // all flows' bytes per path
  std::map<std::string, uint64_t> last_path_only;   // control: each flow's bytes on its last path
  unsigned split = 0;
  for (const flow_record& f : r.flows) {
    ASSERT_GT(f.fct_s, 0);
    uint64_t sum = 0;
    for (const auto& [path, bytes] : f.path_bytes) {
      sum += bytes;
      via[path] += bytes;
      if (f.src < 4) {
        EXPECT_TRUE(path == "leaf0>spine0>leaf1" || path == "leaf0>spine1>leaf1") << path;
      } else {
        EXPECT_EQ(path, "leaf1") << "flow " << f.id;   // under one leaf: one switch
      }
    }
    EXPECT_EQ(sum, 200'000u + 1000ull * f.retransmitted_packets) << "flow " << f.id;
    last_path_only[f.path] += sum;
    split += f.path_bytes.size() == 2;
  }
  EXPECT_EQ(split, 4u);   // every leaf0 flow used both spines
  for (unsigned s = 0; s < 2; ++s) {
    const std::string spine = "spine" + std::to_string(s), path = "leaf0>" + spine + ">leaf1";
    const auto up = std::find_if(r.links.begin(), r.links.end(),
                                 [&](const link_record& l) { return l.from.rfind("leaf0.", 0) == 0 && l.to == spine; });
    ASSERT_NE(up, r.links.end());
    EXPECT_EQ(up->bytes, via[path] / 1000 * 1062) << spine;
    EXPECT_EQ(via[path] % 1000, 0u);
    // Control: putting a flow's bytes on the path it ended on misses the uplink's count.
    EXPECT_NE(up->bytes, last_path_only[path] / 1000 * 1062) << spine;
  }
  expect_accounting(r);
}
