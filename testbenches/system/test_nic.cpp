// System tests of the NIC: its pipes and flow scheduler, and congestion control end to end on
// HPCC's testbed incast (scenarios/hpcc/incast.toml).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/params.h"
#include "run/run.h"
#include "scenario/scenario.h"
#include "harness.h"
#include "tlm/link.h"

using namespace netasic;

namespace {

run_result incast(const std::string& algorithm) {
  return run_scenario(load_scenario(NETASIC_SOURCE_DIR "/scenarios/hpcc/incast.toml", {"cc.algorithm=" + algorithm}),
                      progress_mode::none);
}

// HPCC caps the bytes each sender has in flight at W <= W_init = line rate x T, so the queue at
// the receiver's port can never hold more than the senders' initial windows (in frame bytes).
uint64_t hpcc_incast_queue_bound(const run_result& r) {
  const config c = load_scenario(NETASIC_SOURCE_DIR "/scenarios/hpcc/incast.toml", {});
  const double w_init = c.real("topology.host_rate") * 1e9 / 8 * r.summary["nic"]["base_rtt_s"].get<double>();
  packet full;
  full.payload_bytes = uint32_t(c.integer("nic.mtu"));
  full.int_enabled = true;
  const double per_payload_byte = double(full.frame_bytes()) / full.payload_bytes;
  // One more frame per sender: the window admits a packet while W has not been reached.
  return uint64_t(double(c.integer("traffic.incast.senders")) * (w_init * per_payload_byte + full.frame_bytes()));
}

}  // namespace

TEST(Cc, DcqcnExceedsHpccsWindowBound) {
  // HPCC caps each sender's bytes in flight at W_init; DCQCN reacts to ECN marks through CNPs, not to a window: the burst queues far deeper.
  const run_result r = incast("dcqcn");
  EXPECT_GT(r.summary["queue"]["peak_bytes"].get<uint64_t>(), 2 * hpcc_incast_queue_bound(r));
  EXPECT_GT(r.summary["nic"]["cnps_sent"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["flows"]["completed"].get<uint64_t>(), 7u);
  expect_accounting(r);
}

TEST(Nic, AQpSendsAtMostOnePacketPerEngineVisit) {
  // One QP on one engine visited every 1000 cycles (1 us at 1 GHz), far longer than a frame:
  // the flow's packets leave one per microsecond, so its FCT is set by the visits.
  const run_result r = run_scenario(
      small_config({{"traffic.pattern", "incast"}, {"traffic.incast.senders", "1"}, {"traffic.incast.receiver", "7"},
                    {"traffic.flow_size", "50000"}, {"topology.hosts_per_leaf", "4"},
                    {"nic.scheduler.engines", "1"}, {"nic.scheduler.visit_cycles", "1000"}}),
      progress_mode::none);
  ASSERT_EQ(r.flows.size(), 1u);
  const flow_record& f = r.flows[0];
  const double visit_s = 1e-6, packets = 50;
  // The first packet goes at once, then one per visit; the last one still has to cross and be acknowledged.
  EXPECT_GE(f.fct_s, (packets - 1) * visit_s);
  EXPECT_LE(f.fct_s, (packets - 1) * visit_s + f.ideal_fct_s);
  EXPECT_GT(r.summary["nic"]["scheduler_bound_time_s"].get<double>(), 0.9 * (packets - 1) * visit_s - f.ideal_fct_s);
  expect_accounting(r);
}

TEST(Nic, PipesAddTheirCyclesToTheIdeal) {
  // 1000 cycles in each pipe: 4 us more per flow (data out, ACK built, ACK handled). The ideal
  // counts them, and a NIC that skipped them would finish below it.
  const run_result r = run_scenario(
      small_config({{"traffic.pattern", "incast"}, {"traffic.incast.senders", "1"}, {"traffic.incast.receiver", "7"},
                    {"traffic.flow_size", "100000"}, {"nic.window", "100000"}, {"topology.hosts_per_leaf", "4"},
                    {"nic.rx_pipe_cycles", "1000"}, {"nic.tx_pipe_cycles", "1000"}}),
      progress_mode::none);
  ASSERT_EQ(r.flows.size(), 1u);
  const flow_record& f = r.flows[0];
  EXPECT_GE(f.fct_s, f.ideal_fct_s - 1e-12);
  EXPECT_LE(f.fct_s, f.ideal_fct_s + 8e-9);   // clock alignment, as for the pipes of 16 cycles
  EXPECT_GT(f.ideal_fct_s, 4e-6);
}
