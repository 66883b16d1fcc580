// The clock layer inside the packet fabric: sync-messages are frames on the links and in the
// switches' strict-priority queues, clock faults take links down for the traffic, and the
// Sundial controller reads the switches' STATE registers before it replans.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "run/run.h"
#include "harness.h"
#include "tlm/link.h"
#include "protocol/packet.h"

using namespace netasic;

namespace {

// A k = 4 fat tree (20 switches, 16 hosts) with Sundial rooted at core0, and 1 us links.
config fat_tree(std::vector<std::pair<std::string, std::string>> more) {
  std::vector<std::pair<std::string, std::string>> sets = {
      {"topology.kind", "fat_tree"}, {"topology.k", "4"}, {"topology.link_delay", "1000"},
      {"sim.probe_interval", "10"},  {"clock.algorithm", "sundial"}, {"clock.root", "core0"}};
  sets.insert(sets.end(), more.begin(), more.end());
  return small_config(sets);
}

uint64_t link_bytes(const run_result& r) {
  uint64_t b = 0;
  for (const link_record& l : r.links) b += l.bytes;
  return b;
}

}  // namespace

// With no traffic, every byte the switches put on the links is a sync-message: the count the
// clock layer sent times the 100-byte frame. The run ends 50 us after the root's last message
// (90 us interval), so none is still in flight, and every one reached a live receiver.
TEST(ClockFabric, SyncMessagesAreTheOnlyFramesOnIdleLinks) {
  const run_result r = run_scenario(fat_tree({{"traffic.pattern", "list"}, {"sim.duration", "1040"}, {"sim.drain", "0"}}),
                                    progress_mode::none);
  const auto& c = r.summary["clock"];
  const uint64_t sent = c["sundial"]["messages"];
  EXPECT_GT(sent, 11u * 19);   // at least one message per switch-to-switch tree edge and interval
  EXPECT_EQ(c["sundial"]["messages_delivered"], sent);
  EXPECT_EQ(link_bytes(r), sent * 100);
  EXPECT_EQ(c["sync_dropped"], 0u);
  EXPECT_EQ(r.summary["packet_hops"], 0u);   // sync frames are not traffic
}

// Under heavy traffic a sync-message waits at most for the frame ahead of it on the wire (the
// egress pipe keeps the wire busy with frames it dequeued before), never for the data queues:
// it is queued at a strict priority. Timestamps are taken at egress, so the wait does not enter
// the offset, and the bound holds.
TEST(ClockFabric, StrictPriorityKeepsSyncMessagesAheadOfData) {
  const config cfg = fat_tree({{"traffic.pattern", "poisson"}, {"traffic.cdf", "websearch"}, {"traffic.load", "0.8"},
                               {"sim.duration", "1500"}, {"sim.drain", "0"}});
  const run_result r = run_scenario(cfg, progress_mode::none);
  ASSERT_GT(r.summary["packet_hops"].get<uint64_t>(), 100000u);
  const auto& c = r.summary["clock"];
  packet biggest;
  biggest.payload_bytes = uint32_t(cfg.integer("nic.mtu"));
  biggest.int_enabled = true;
  const double frame_ns = double(link_timing{100'000'000'000ull}.occupancy_ps(biggest.frame_bytes())) / 1e3;
  const double wait = c["sync_wait_max_ns"];
  EXPECT_GT(wait, 10.0);                 // it did wait behind data on the wire
  EXPECT_LE(wait, frame_ns + 10.0);      // one frame, and a few cycles of the shared egress pipe
  EXPECT_EQ(c["sundial"]["bound_violations"], 0u);
  EXPECT_GT(c["sundial"]["bound_checks"].get<uint64_t>(), 1000u);
  EXPECT_LT(c["sundial"]["max_abs_offset_ns"].get<double>(), c["sundial"]["epsilon_max_ns"].get<double>());
  expect_accounting(r);
}

// A clock fault is a fault of the fabric: the link is down for the traffic too, frames sent on it
// are lost, and clock.controller_delay later the route controller routes around it, after which
// every flow completes.
TEST(ClockFabric, AClockFaultTakesTheLinkDownUntilTheRoutesChange) {
  const run_result r = run_scenario(fat_tree({{"traffic.pattern", "poisson"}, {"traffic.cdf", "websearch"},
                                              {"traffic.load", "0.5"}, {"sim.duration", "1500"}, {"sim.drain", "6000"},
                                              {"clock.controller_delay", "300"},
                                              {"clock.faults", "[\"link agg0-core0 @ 500\"]"}}),
                                    progress_mode::none);
  const auto& c = r.summary["clock"];
  EXPECT_EQ(c["reroutes"], 1u);
  EXPECT_GT(r.summary["drops"]["link_down"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["flows"]["completed"], r.summary["flows"]["total"]);
  EXPECT_GT(r.summary["flows"]["total"].get<uint64_t>(), 50u);
  EXPECT_EQ(c["sundial"]["bound_violations"], 0u);
  expect_accounting(r);
}

// After the root fails, the backup root elects itself at its second timeout. The controller,
// 500 us after the failure, reads every switch's STATE register, sees the election and keeps
// that switch as the root of its new plan.
TEST(ClockFabric, TheControllerReadsStateAndKeepsTheElectedRoot) {
  const run_result r = run_scenario(fat_tree({{"traffic.pattern", "list"}, {"sim.duration", "2000"}, {"sim.drain", "0"},
                                              {"clock.controller_delay", "500"}, {"clock.faults", "[\"root @ 1000\"]"}}),
                                    progress_mode::none);
  const auto& s = r.summary["clock"]["sundial"];
  EXPECT_EQ(s["elections"], 1u);
  EXPECT_EQ(s["controller_saw_elections"], 1u);
  EXPECT_EQ(s["state_reads"], 20u);   // every switch, once (NICs cannot elect or evict themselves)
  EXPECT_EQ(s["controller_replans"], 1u);
  EXPECT_EQ(s["bound_violations"], 0u);
  EXPECT_EQ(r.summary["clock"]["reroutes"], 1u);   // core0's links are down for the traffic too
}
