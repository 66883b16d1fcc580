// System tests of the switch pipeline and traffic manager: PFC end to end, the pause reaction of
// one switch port, the packet-rate limit of a pipe, INT, recirculation and cut-through.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "harness.h"
#include "switch/switch.h"
#include "tlm/link.h"
#include "tlm/regbus.h"

using namespace netasic;

namespace {

// 16 senders and the receiver under one leaf: the receiver's port is the bottleneck. 16 windows
// of 128 frames (2 MiB) do not fit a 1 MiB buffer.
std::vector<std::pair<std::string, std::string>> incast(std::vector<std::pair<std::string, std::string>> extra) {
  std::vector<std::pair<std::string, std::string>> sets = {
      {"topology.leaves", "1"},           {"topology.spines", "1"},         {"topology.hosts_per_leaf", "17"},
      {"traffic.pattern", "incast"},      {"traffic.incast.senders", "16"}, {"traffic.incast.receiver", "16"},
      {"traffic.flow_size", "400000"},    {"switch.buffer", "1024"},        {"nic.window", "128"},
      {"nic.rto", "200"}};
  sets.insert(sets.end(), extra.begin(), extra.end());
  return sets;
}

}  // namespace

TEST(Pfc, LosslessIncastWithEnoughHeadroomDropsNothing) {
  const run_result r = run_scenario(small_config(incast({})), progress_mode::none);
  EXPECT_EQ(r.summary["packets"]["dropped"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["flows"]["completed"].get<uint64_t>(), 16u);
  EXPECT_EQ(r.summary["flows"]["retransmitted_packets"].get<uint64_t>(), 0u);
  EXPECT_GT(r.summary["pfc"]["pause_frames_sent"].get<uint64_t>(), 0u);
  EXPECT_GT(r.summary["pfc"]["host_pause_time_s"].get<double>(), 0.0);
  EXPECT_LE(r.summary["queue"]["peak_bytes"].get<uint64_t>(), 1024u * 1024);
  expect_accounting(r);
}

TEST(Pfc, TooLittleHeadroomDropsAndSaysSo) {
  testing::internal::CaptureStderr();
  const run_result r = run_scenario(small_config(incast({{"pfc.headroom", "2"}})), progress_mode::none);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_GT(r.summary["drops"]["headroom"].get<uint64_t>(), 0u);
  EXPECT_NE(err.find("lossless priorities dropped"), std::string::npos) << err;
  EXPECT_NE(err.find("pfc.headroom = 2 KiB"), std::string::npos) << err;
  EXPECT_EQ(r.summary["flows"]["completed"].get<uint64_t>(), 16u);   // go-back-N recovers
  expect_accounting(r);
}

TEST(Pfc, WithoutPfcTheSameIncastDrops) {
  const run_result r = run_scenario(small_config(incast({{"pfc.priorities", "[]"}})), progress_mode::none);
  EXPECT_GT(r.summary["drops"]["dynamic_threshold"].get<uint64_t>() + r.summary["drops"]["buffer_full"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["pfc"]["pause_frames_sent"].get<uint64_t>(), 0u);
  expect_accounting(r);
}

TEST(Pfc, EcnMarksInTheCongestedIncast) {
  const run_result r = run_scenario(small_config(incast({{"ecn.priorities", "[3]"}, {"ecn.kmin", "[5,5,5,5,5,5,5,5]"},
                                                         {"ecn.kmax", "[50,50,50,50,50,50,50,50]"}})),
                                    progress_mode::none);
  EXPECT_GT(r.summary["ecn_marked_packets"].get<uint64_t>(), 0u);
  expect_accounting(r);
}

namespace {

// Sends a stream of frames into a switch port and records what arrives on another; can send
// PFC frames back from the receiving side.
struct endpoint : sc_core::sc_module, pkt_receiver {
  pkt_initiator_socket tx{"tx"};
  pkt_target_socket rx{"rx", *this, 0};
  run_stats& stats;
  std::vector<std::pair<uint64_t, uint32_t>> arrivals;   // (time, frame bytes)
  endpoint(sc_core::sc_module_name n, run_stats& s) : sc_core::sc_module(n), stats(s) {}
  void pkt_receive(unsigned, packet& p, uint64_t now) override {
    arrivals.push_back({now, p.frame_bytes()});
    stats.release(p);
  }
};

}  // namespace

TEST(Pfc, PauseStopsAndRestartsTheUpstreamPortWithinTheReactionTime) {
  run_stats stats;
  event_queue events("events");
  switch_config cfg;
  cfg.tm.buffer_bytes = 16 << 20;
  cfg.tm.lossless = 1u << 3;
  cfg.tm.xoff_bytes = 8 << 20;   // this switch itself never pauses the source
  cfg.tm.headroom_bytes = {1 << 20, 1 << 20};
  const uint64_t rate = 100'000'000'000ull, delay = 500'000, T = cfg.clock_period_ps;
  switch_model sw("sw", 1, {rate, rate}, 4, cfg, stats, events);
  endpoint src("src", stats), dst("dst", stats);
  const link_timing to_switch{rate, delay, T, cfg.ingress_ps()}, to_host{rate, delay, 1};
  packet_link in("in", to_switch, to_host, events), out("out", to_switch, to_host, events);
  src.tx.bind(in.a_to_b.in);
  in.a_to_b.out.bind(*sw.rx[0]);
  sw.tx[0]->bind(in.b_to_a.in);
  in.b_to_a.out.bind(src.rx);
  dst.tx.bind(out.a_to_b.in);
  out.a_to_b.out.bind(*sw.rx[1]);
  sw.tx[1]->bind(out.b_to_a.in);
  out.b_to_a.out.bind(dst.rx);
  uint64_t hops = 0;
  for (link_direction* d : {&in.a_to_b, &in.b_to_a, &out.a_to_b, &out.b_to_a}) d->hop_counter = &hops;
  struct driver : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<reg_driver> bus{"bus"};
    explicit driver(sc_core::sc_module_name n) : sc_core::sc_module(n) {}
  } drv("drv");
  regbus bus("regbus");
  drv.bus.bind(bus.in);
  const unsigned dev = bus.attach(sw.csr);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  reg_driver regs(drv.bus);
  regs.write32(regbus::address(dev, route_table::reg_member), 1);                 // member 0: port 1
  regs.write32(regbus::address(dev, route_table::reg_route + 4 * 2), (0u << 16) | 1);   // host 2 -> group {0, 1}

  // 300 back-to-back 1082-byte frames of priority 3 (about 26 us at 100 Gb/s).
  uint64_t start = 0;
  for (int i = 0; i < 300; ++i) {
    packet& p = *stats.pool.alloc();
    p.payload_bytes = 1000;
    p.prio = 3;
    p.ip.dst = 2;
    start = src.tx.send(p, start);
  }
  // The receiver pauses priority 3 at 5 us (quanta 0xFFFF: 335 us at 100 Gb/s) and resumes at 12 us.
  auto send_pfc = [&](uint16_t quanta, uint64_t at) {
    packet& f = *stats.alloc_internal();
    f.kind = pkt_kind::pause;
    f.pfc.class_enable = 1u << 3;
    f.pfc.quanta[3] = quanta;
    return dst.tx.send(f, at);
  };
  const uint64_t pause_at = 5'000'000, resume_at = 12'000'000;
  send_pfc(0xFFFF, pause_at);
  send_pfc(0, resume_at);
  sc_core::sc_start();

  // A PFC frame acts `pfc_response_cycles` after its last bit reaches the switch (next edge).
  const link_timing& back = out.a_to_b.timing();
  const uint64_t react = uint64_t(cfg.pfc_response_cycles) * T;
  const uint64_t paused = back.control_delivery_ps(pause_at, pfc_frame::bytes) + react;
  const uint64_t resumed = back.control_delivery_ps(resume_at, pfc_frame::bytes) + react;
  // Frames dequeued before `paused` still leave: at most until the egress pipeline and the
  // frame the MAC holds are through. After that nothing until `resumed`, then within the same.
  const uint64_t slack = cfg.egress_ps() + T;
  std::vector<uint64_t> starts;
  for (const auto& [t, bytes] : dst.arrivals)
    if (bytes > pfc_frame::bytes) starts.push_back(t - to_host.arrival_after_ps(bytes));
  ASSERT_EQ(starts.size(), 300u);   // lossless: every frame arrives
  size_t before = 0, during = 0, after = 0;
  uint64_t first_after = UINT64_MAX;
  for (uint64_t s : starts) {
    if (s <= paused + slack) ++before;
    else if (s < resumed) ++during;
    else {
      ++after;
      first_after = std::min(first_after, s);
    }
  }
  EXPECT_GT(before, 10u);
  EXPECT_EQ(during, 0u);
  EXPECT_GT(after, 10u);
  EXPECT_LE(first_after, resumed + slack);
  // The last frame before the pause left no earlier than the reaction allows, i.e. the port
  // kept sending right up to the pause taking effect (it was backlogged).
  uint64_t last_before = 0;
  for (uint64_t s : starts)
    if (s <= paused + slack) last_before = std::max(last_before, s);
  EXPECT_GE(last_before + to_host.occupancy_ps(1082 + 0), paused);
  // Pause time counted for port 1, priority 3: from `paused` to `resumed`.
  EXPECT_EQ(sw.paused_ps(1, 3, resumed + 1), resumed - paused);
  EXPECT_EQ(sw.counters().pfc_received, 2u);
}

// 64-byte frames at 100 Gb/s arrive every 6.72 ns. A 100 MHz pipe parses one per 10 ns, so its
// parser FIFO overflows; at 1 GHz it keeps up.
run_result small_frame_flood(const char* clock) {
  return run_scenario(small_config({{"traffic.pattern", "incast"}, {"traffic.incast.senders", "1"},
                                    {"traffic.incast.receiver", "1"}, {"topology.hosts_per_leaf", "2"},
                                    {"topology.leaves", "1"}, {"topology.spines", "1"}, {"nic.mtu", "1"},
                                    {"traffic.flow_size", "3000"}, {"nic.window", "100000"}, {"switch.clock", clock},
                                    {"switch.pipe_fifo", "16"}, {"pfc.priorities", "[]"}}),
                      progress_mode::none);
}

TEST(Pipeline, SmallFrameFloodOverrunsASlowPipe) {
  const run_result r = small_frame_flood("100");
  EXPECT_GT(r.summary["drops"]["pipe_overrun"].get<uint64_t>(), 0u);
  expect_accounting(r);
}

TEST(Pipeline, SmallFrameFloodFitsAFastPipe) {
  const run_result r = small_frame_flood("1000");
  EXPECT_EQ(r.summary["packets"]["dropped"].get<uint64_t>(), 0u);
  expect_accounting(r);
}

namespace {

// One 200 KB flow leaf -> spine -> leaf; nothing queues.
run_result lone_flow(std::vector<std::pair<std::string, std::string>> extra) {
  std::vector<std::pair<std::string, std::string>> sets = {
      {"traffic.pattern", "incast"}, {"traffic.incast.senders", "1"}, {"traffic.incast.receiver", "7"},
      {"traffic.flow_size", "200000"}, {"nic.window", "100000"}, {"topology.hosts_per_leaf", "4"}};
  sets.insert(sets.end(), extra.begin(), extra.end());
  return run_scenario(small_config(sets), progress_mode::none);
}

// Measured FCT against the analytic ideal: never faster, and slower by at most one clock period
// per pipeline pass (alignment to the switch clock) for data and ACK.
void expect_near_ideal(const run_result& r, unsigned passes_per_switch) {
  ASSERT_EQ(r.flows.size(), 1u);
  const flow_record& f = r.flows[0];
  ASSERT_GT(f.fct_s, 0);
  EXPECT_GE(f.fct_s, f.ideal_fct_s - 1e-12);
  EXPECT_LE(f.fct_s, f.ideal_fct_s + 2 * 3 * passes_per_switch * 1e-9 + 2e-9);
}

}  // namespace

TEST(Pipeline, IntRecordEveryHop) {
  const run_result r = lone_flow({{"nic.int_padding", "true"}});
  expect_near_ideal(r, 1);
  EXPECT_EQ(r.summary["int_records_written"].get<uint64_t>(), 3u * 200u);   // 200 packets, 3 switches
}

TEST(Pipeline, RecirculationCostsAPassAndItsPort) {
  // The ideal counts a second pass and the recirculation port at every switch: a switch that
  // skipped them would finish early and fail the lower bound.
  const run_result r = lone_flow({{"switch.recirculations", "1"}});
  expect_near_ideal(r, 2);
  EXPECT_EQ(r.summary["recirculated_packets"].get<uint64_t>(), 3u * 200u);
}

TEST(Pipeline, CutThroughMatchesItsIdeal) {
  // The cut-through ideal is well below store-and-forward's; a switch that waited for the last
  // bit would miss it by far more than the tolerance.
  const run_result r = lone_flow({{"switch.forwarding", "cut_through"}});
  expect_near_ideal(r, 1);
}

TEST(Pfc, HeadroomThatLeavesNoSharedBufferIsAConfigError) {
  // 18 ports (17 hosts, 1 spine) x 64 KiB of headroom is more than a 512 KiB buffer: refused before simulating.
  try {
    run_scenario(small_config(incast({{"switch.buffer", "512"}, {"pfc.headroom", "64"}})), progress_mode::none);
    FAIL() << "expected a configuration error";
  } catch (const config_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("key 'switch.buffer'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("leaves no shared buffer on leaf0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("1152.0 KiB"), std::string::npos) << msg;   // 18 x 64 KiB
  }
}

namespace {

// Bytes of one of the lone flow's data frames (nic.mtu bytes of payload).
uint32_t lone_flow_frame_bytes() {
  packet p;
  p.payload_bytes = uint32_t(default_scenario().integer("nic.mtu"));
  return p.frame_bytes();
}

}  // namespace

TEST(Mirror, CpuPortGetsOneInNTruncatedFrames) {
  // 200 data frames pass 3 switches; each switch's sampler copies frames 3, 6, ..., 198.
  const run_result r = lone_flow({{"mirror.to", "cpu"}, {"mirror.sample", "3"}, {"mirror.truncate", "128"}});
  const auto& m = r.summary["mirror"];
  EXPECT_EQ(m["copies_made"].get<uint64_t>(), 3u * (200 / 3));
  EXPECT_EQ(m["copies_delivered"].get<uint64_t>(), 3u * (200 / 3));
  EXPECT_EQ(m["bytes_delivered"].get<uint64_t>(), 3u * (200 / 3) * 128);
  EXPECT_EQ(m["copies_dropped"].get<uint64_t>(), 0u);
  // A copy takes its own egress slot on another port: the flow keeps its ideal.
  expect_near_ideal(r, 1);
  expect_accounting(r);
}

TEST(Mirror, CollectorReceivesEveryEncapsulatedCopy) {
  // Host 2 sits under the sender's leaf: copies from the spine and the far leaf cross the fabric.
  const run_result r = lone_flow({{"mirror.to", "collector"}, {"mirror.collector", "2"}});
  const auto& m = r.summary["mirror"];
  EXPECT_EQ(m["copies_made"].get<uint64_t>(), 3u * 200);
  EXPECT_EQ(m["copies_delivered"].get<uint64_t>(), 3u * 200);
  EXPECT_EQ(m["bytes_delivered"].get<uint64_t>(), 3u * 200 * (lone_flow_frame_bytes() + mirror_config::erspan_bytes));
  EXPECT_EQ(m["copies_in_flight"].get<uint64_t>(), 0u);
  expect_accounting(r);
}

TEST(Mirror, SlowCpuPortDropsCopiesNotTraffic) {
  // Every frame mirrored to a 1 Gbps CPU port: the copies queue and are dropped by the dynamic
  // threshold of a 128 KiB buffer; the flow loses nothing, and the CPU port never runs faster
  // than its rate (a copy counts when it starts, so one frame per port may still be going out).
  const run_result r = lone_flow({{"mirror.to", "cpu"}, {"mirror.cpu_rate", "1"}, {"switch.buffer", "128"},
                                  {"pfc.priorities", "[]"}});
  const auto& m = r.summary["mirror"];
  EXPECT_GT(m["copies_dropped"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["packets"]["dropped"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["flows"]["retransmitted_packets"].get<uint64_t>(), 0u);
  const double wire_bits = 8.0 * double(m["bytes_delivered"].get<uint64_t>() + 20 * m["copies_delivered"].get<uint64_t>());
  const double last_frame_bits = 3 * 8.0 * (lone_flow_frame_bytes() + 20);
  EXPECT_LE(wire_bits, 3 * 1e9 * r.summary["sim_time_s"].get<double>() + last_frame_bits);   // 3 CPU ports at 1 Gbps
  EXPECT_GT(m["copies_delivered"].get<uint64_t>(), 0u);
  expect_accounting(r);
}

TEST(Mirror, LosslessPriorityIsAConfigError) {
  try {
    lone_flow({{"mirror.to", "cpu"}, {"mirror.priority", "3"}});
    FAIL() << "expected a configuration error";
  } catch (const config_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("key 'mirror.priority'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("lossless"), std::string::npos) << msg;
  }
}
