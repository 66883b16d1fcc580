// System tests of the switch pipeline and traffic manager: PFC end to end, the pause reaction of
// one switch port, the packet-rate limit of a pipe, INT, recirculation and cut-through.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "fabric/fabric.h"
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

// The same scenario through the command line (the kernel runs once per process): its summary.
nlohmann::json control_run(const std::string& suite, const std::string& name,
                           const std::vector<std::pair<std::string, std::string>>& sets) {
  std::ifstream in(run_with_sets(suite, name, sets) / "summary.json");
  return nlohmann::json::parse(in);
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

// A NIC with a deep TX pipe still starts the frames already in it after a PAUSE arrives. The
// headroom sized for each port's partner holds them; the headroom a switch partner would need
// (the sizing before it looked at the partner) does not.
TEST(Pfc, SizedHeadroomHoldsWhatANicsDeepTxPipeStillSends) {
  const auto sets = incast({{"nic.tx_pipe_cycles", "1000"}});   // 1 us on the NIC's 1 GHz clock
  const fabric_config fc = make_fabric_config(small_config(sets));
  const topo_link& l = fc.topo.links[fc.topo.nodes[fc.topo.hosts[0]].port_link[0]];
  const uint64_t sized = port_headroom(fc, l);
  const uint64_t as_switch = fc.sw.port_headroom(l.rate_bps, l.delay_ps, fc.nic.max_frame_bytes(), fc.sw.pause_stop_ps());
  // The difference is the NIC's stop less a switch's, at the link's rate (rounded up once).
  const uint64_t extra_ps = fc.nic.pause_stop_ps() - fc.sw.pause_stop_ps();
  EXPECT_NEAR(double(sized - as_switch), double(extra_ps) * double(l.rate_bps) / 8e12, 1.0);

  const run_result r = run_scenario(small_config(sets), progress_mode::none);
  EXPECT_EQ(r.summary["drops"]["headroom"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["packets"]["dropped"].get<uint64_t>(), 0u);
  EXPECT_GT(r.summary["pfc"]["pause_frames_sent"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["flows"]["completed"].get<uint64_t>(), 16u);

  auto control = sets;
  control.push_back({"pfc.headroom", fmt::format("{:.3f}", double(as_switch) / 1024)});
  const nlohmann::json ctl = control_run("Pfc", "headroom_as_if_a_switch", control);
  EXPECT_GT(ctl["drops"]["headroom"].get<uint64_t>(), 0u);
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
  pkt_tx_port tx;
  pkt_rx_port rx() { return {this, 0}; }
  run_stats& stats;
  std::vector<std::pair<uint64_t, uint32_t>> arrivals;   // (time, frame bytes)
  std::function<void(uint64_t, const packet&)> on_pause;
  endpoint(sc_core::sc_module_name n, run_stats& s) : sc_core::sc_module(n), stats(s) {}
  void pkt_receive(unsigned, packet& p, uint64_t now) override {
    if (p.kind == pkt_kind::pause && on_pause) on_pause(now, p);
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
  packet_link in(to_switch, to_host, events), out(to_switch, to_host, events);
  connect(src.tx, in.a_to_b, sw.rx(0));
  connect(sw.tx(0), in.b_to_a, src.rx());
  connect(dst.tx, out.a_to_b, sw.rx(1));
  connect(sw.tx(1), out.b_to_a, dst.rx());
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

namespace {

// One switch with a source on port 0 and a sink on port 1, both 100 Gb/s links of 500 ns; host 2
// is routed out of port 1. The endpoints record what arrives, PFC frames included.
struct pfc_bench {
  run_stats stats;
  event_queue events{"events"};
  switch_model sw;
  endpoint src{"src", stats}, dst{"dst", stats};
  static constexpr uint64_t rate = 100'000'000'000ull, delay = 500'000;
  link_timing to_switch, to_host{rate, delay, 1};
  packet_link in, out;
  struct driver : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<reg_driver> bus{"bus"};
    explicit driver(sc_core::sc_module_name n) : sc_core::sc_module(n) {}
  } drv{"drv"};
  regbus bus{"regbus"};
  std::vector<std::pair<uint64_t, uint16_t>> pfc_at_src;   // (arrival, quanta of priority 3)
  uint64_t hops = 0;

  explicit pfc_bench(const switch_config& cfg)
      : sw("sw", 1, {rate, rate}, 4, cfg, stats, events),
        to_switch{rate, delay, cfg.clock_period_ps, cfg.ingress_ps()},
        in(to_switch, to_host, events),
        out(to_switch, to_host, events) {
    connect(src.tx, in.a_to_b, sw.rx(0));
    connect(sw.tx(0), in.b_to_a, src.rx());
    connect(dst.tx, out.a_to_b, sw.rx(1));
    connect(sw.tx(1), out.b_to_a, dst.rx());
    for (link_direction* d : {&in.a_to_b, &in.b_to_a, &out.a_to_b, &out.b_to_a}) d->hop_counter = &hops;
    drv.bus.bind(bus.in);
    const unsigned dev = bus.attach(sw.csr);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    reg_driver regs(drv.bus);
    regs.write32(regbus::address(dev, route_table::reg_member), 1);                       // member 0: port 1
    regs.write32(regbus::address(dev, route_table::reg_route + 4 * 2), (0u << 16) | 1);   // host 2 -> group {0, 1}
    src.on_pause = [this](uint64_t t, const packet& p) { pfc_at_src.push_back({t, p.pfc.quanta[3]}); };
  }
  void send_data(int frames) {
    uint64_t start = 0;
    for (int i = 0; i < frames; ++i) {
      packet& p = *stats.pool.alloc();
      p.payload_bytes = 1000;
      p.prio = 3;
      p.ip.dst = 2;
      start = src.tx.send(p, start);
    }
  }
  void pause_from_dst(uint16_t quanta, uint64_t at) {
    packet& f = *stats.alloc_internal();
    f.kind = pkt_kind::pause;
    f.pfc.class_enable = 1u << 3;
    f.pfc.quanta[3] = quanta;
    dst.tx.send(f, at);
  }
};

switch_config lossless_cfg() {
  switch_config cfg;
  cfg.tm.buffer_bytes = 16 << 20;
  cfg.tm.lossless = 1u << 3;
  cfg.tm.xoff_bytes = 8 << 20;
  cfg.tm.headroom_bytes = {1 << 20, 1 << 20};
  return cfg;
}

}  // namespace

TEST(Pfc, APauseExpiresAfterItsQuanta) {
  // One PAUSE of 1000 quanta and no XON: 1000 x 512 bit times at 100 Gb/s = 512,000 bits /
  // 100 Gb/s = 5,120,000 ps. The port stops at `paused` and starts again by itself exactly then.
  const switch_config cfg = lossless_cfg();
  pfc_bench b(cfg);
  b.send_data(300);   // 1082-byte frames back to back: about 26 us
  const uint64_t pause_at = 5'000'000;
  b.pause_from_dst(1000, pause_at);
  sc_core::sc_start();
  const uint64_t paused = b.out.a_to_b.timing().control_delivery_ps(pause_at, pfc_frame::bytes) +
                          uint64_t(cfg.pfc_response_cycles) * cfg.clock_period_ps;
  const uint64_t expires = paused + 5'120'000;
  EXPECT_EQ(b.sw.paused(1, paused - 1) >> 3 & 1, 0);
  EXPECT_EQ(b.sw.paused(1, paused) >> 3 & 1, 1);
  EXPECT_EQ(b.sw.paused(1, expires - 1) >> 3 & 1, 1);
  EXPECT_EQ(b.sw.paused(1, expires) >> 3 & 1, 0);
  EXPECT_EQ(b.sw.paused_ps(1, 3, expires + 1'000'000), 5'120'000u);
  // On the wire: nothing starts in (paused + egress pipeline + one cycle, expires); the first frame
  // after the pause starts within the same slack of `expires`.
  const uint64_t slack = cfg.egress_ps() + cfg.clock_period_ps;
  uint64_t first_after = UINT64_MAX;
  size_t frames = 0;
  for (const auto& [t, bytes] : b.dst.arrivals) {
    if (bytes <= pfc_frame::bytes) continue;
    ++frames;
    const uint64_t start = t - b.to_host.arrival_after_ps(bytes);
    EXPECT_FALSE(start > paused + slack && start < expires) << start;
    if (start >= expires) first_after = std::min(first_after, start);
  }
  EXPECT_EQ(frames, 300u);
  EXPECT_GE(first_after, expires);
  EXPECT_LE(first_after, expires + slack);
}

TEST(Pfc, XoffIsRefreshedAtHalfItsTimeWhileItLasts) {
  // The switch's own XOFF: 16 KiB static threshold on port 0; the sink holds port 1 paused from
  // 1 us to 30 us, so the source's frames pile up. The switch sends PAUSEs of 1000 quanta
  // (5,120,000 ps at 100 Gb/s) and re-sends one every 2,560,000 ps, inside the partner's pause,
  // until the queue drains after 30 us; then one XON (0 quanta).
  switch_config cfg = lossless_cfg();
  cfg.tm.xoff_bytes = 16 << 10;
  cfg.pfc_quanta = 1000;
  pfc_bench b(cfg);
  b.send_data(300);
  b.pause_from_dst(0xFFFF, 1'000'000);
  b.pause_from_dst(0, 30'000'000);
  sc_core::sc_start();
  const auto& f = b.pfc_at_src;
  ASSERT_GE(f.size(), 3u);
  EXPECT_EQ(f.back().second, 0u);   // XON last
  size_t xoffs = 0;
  for (size_t i = 0; i + 1 < f.size(); ++i) {
    ASSERT_EQ(f[i].second, 1000u) << "frame " << i;
    ++xoffs;
    if (i + 2 < f.size()) {
      EXPECT_EQ(f[i + 1].first - f[i].first, 2'560'000u) << "refresh " << i;
    }
  }
  // The sink's pause acts at about 1.57 us; 16 KiB from port 0 (16 frames of 1062 B, one per
  // 86.56 ns) then wait by about 3 us, and the XOFF reaches the source 0.5 us later. The
  // refreshes cover the time to about 30 us: at least (30 - 4) / 2.56 = 10.2 of them.
  EXPECT_GE(xoffs, 10u);
  EXPECT_LT(f.front().first, 4'000'000u);
  EXPECT_GT(f.back().first, 30'000'000u);
  // Control: without the refresh the source would have been free again 5.12 us after the first XOFF.
  EXPECT_GT(f.back().first - f.front().first, 5'120'000u);
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

namespace {

// Flowcut in every switch on a 2x2 leaf-spine: 7 senders into host 4, 400 KB each, windows of 64
// packets, drains at an RTT ratio of 1.5 (the incast queue raises every RTT).
std::vector<std::pair<std::string, std::string>> flowcut_incast(std::vector<std::pair<std::string, std::string>> extra) {
  std::vector<std::pair<std::string, std::string>> sets = {
      {"topology.leaves", "2"},        {"topology.spines", "2"},          {"topology.hosts_per_leaf", "4"},
      {"traffic.pattern", "incast"},   {"traffic.incast.senders", "7"},   {"traffic.incast.receiver", "4"},
      {"traffic.flow_size", "400000"}, {"nic.window", "64"},              {"flowcut.form", "switch"},
      {"flowcut.rtt_ratio", "1.5"}};
  sets.insert(sets.end(), extra.begin(), extra.end());
  return sets;
}


void expect_in_order_and_complete(const nlohmann::json& s) {
  EXPECT_EQ(s["flows"]["completed"], s["flows"]["total"]);
  EXPECT_EQ(s["flows"]["out_of_order_packets"].get<uint64_t>(), 0u);   // Flowcut's guarantee
  EXPECT_EQ(s["packets"]["dropped"].get<uint64_t>(), 0u);
}

}  // namespace

TEST(Flowcut, HoldMemoryIsBoundedAndAFullOneEndsTheDrainEarly) {
  // With 4 KiB of hold memory per switch, a draining flow's packet that does not fit ends that
  // flow's drain (it stays on its old path, held packets first), so no switch ever holds more
  // than 4,096 bytes and nothing is dropped or reordered. Control: unbounded, the same run holds
  // more than that and never finds the memory full.
  const nlohmann::json ctl = control_run("Flowcut", "Unbounded", flowcut_incast({}));
  EXPECT_GT(ctl["flowcut"]["drains"].get<uint64_t>(), 0u);
  EXPECT_GT(ctl["flowcut"]["held_peak_bytes"].get<uint64_t>(), 4096u);
  EXPECT_EQ(ctl["flowcut"]["hold_full_events"].get<uint64_t>(), 0u);
  expect_in_order_and_complete(ctl);

  const run_result r = run_scenario(small_config(flowcut_incast({{"flowcut.hold", "4"}})), progress_mode::none);
  const auto& fc = r.summary["flowcut"];
  EXPECT_EQ(fc["hold_limit_bytes"].get<uint64_t>(), 4096u);
  EXPECT_LE(fc["held_peak_bytes"].get<uint64_t>(), 4096u);
  EXPECT_GT(fc["hold_full_events"].get<uint64_t>(), 0u);
  // Every full hold here was a draining flow's: each ended a drain, none was a drop.
  EXPECT_EQ(fc["hold_full_resumes"], fc["hold_full_events"]);
  EXPECT_EQ(r.summary["drops"]["flowcut_hold_full"].get<uint64_t>(), 0u);
  EXPECT_GE(fc["drains_cancelled"].get<uint64_t>(), 1u);
  expect_in_order_and_complete(r.summary);
  expect_accounting(r);
}

TEST(Flowcut, PausingTheSourceShrinksTheHeldBytes) {
  // flowcut.source_pause: the ingress switch sends XOFF to a draining flow's host until it has
  // drained, so the source stops within a round trip instead of filling the hold with its window.
  // Control: the same run without the pause holds at least twice as much at its peak.
  const nlohmann::json ctl = control_run("Flowcut", "NoSourcePause", flowcut_incast({}));
  const run_result r = run_scenario(small_config(flowcut_incast({{"flowcut.source_pause", "true"}})), progress_mode::none);
  const auto& fc = r.summary["flowcut"];
  EXPECT_GT(fc["source_pauses"].get<uint64_t>(), 0u);
  EXPECT_EQ(ctl["flowcut"]["source_pauses"].get<uint64_t>(), 0u);
  EXPECT_GT(r.summary["pfc"]["pause_frames_sent"].get<uint64_t>(), ctl["pfc"]["pause_frames_sent"].get<uint64_t>());
  EXPECT_LT(2 * fc["held_peak_bytes"].get<uint64_t>(), ctl["flowcut"]["held_peak_bytes"].get<uint64_t>());
  expect_in_order_and_complete(r.summary);
  expect_in_order_and_complete(ctl);
  expect_accounting(r);
}

namespace {

// One 1000-byte packet from host 0 to host 1 under one switch, every timing key spelt out:
// 100 Gb/s links of 1000 ns, switch and NIC clocks at 1 GHz (T = 1000 ps), parser 32, 12 stages
// of 12 cycles, traffic manager 48, deparser 32, NIC RX and TX pipes 16 cycles each, no INT.
// FCT = start to the ACK handled at the sender; the FCTs below are worked out by hand from the
// timing model's rules (docs/timing-model.md), not by the model's ideal-FCT code.
double one_packet_fct_s(std::vector<std::pair<std::string, std::string>> extra) {
  std::vector<std::pair<std::string, std::string>> sets = {
      {"topology.leaves", "1"},        {"topology.spines", "1"},          {"topology.hosts_per_leaf", "2"},
      {"topology.host_rate", "100"},   {"topology.link_delay", "1000"},   {"traffic.pattern", "incast"},
      {"traffic.incast.senders", "1"}, {"traffic.incast.receiver", "1"},  {"traffic.flow_size", "1000"},
      {"traffic.start", "0"},          {"nic.mtu", "1000"},               {"nic.int_padding", "false"},
      {"cc.algorithm", "none"},        {"switch.clock", "1000"},          {"nic.clock", "1000"},
      {"switch.parser_cycles", "32"},  {"switch.stages", "12"},           {"switch.stage_cycles", "12"},
      {"switch.tm_cycles", "48"},      {"switch.deparser_cycles", "32"},  {"nic.rx_pipe_cycles", "16"},
      {"nic.tx_pipe_cycles", "16"}};
  sets.insert(sets.end(), extra.begin(), extra.end());
  const run_result r = run_scenario(small_config(sets), progress_mode::none);
  EXPECT_EQ(r.flows.size(), 1u);
  return r.flows.empty() ? -1 : r.flows[0].fct_s;
}

// Shared arithmetic, in ps. Data frame 1062 B (14 + 20 + 8 + 12 + 1000 + 4 + 4), ACK 66 B
// (14 + 20 + 8 + 12 + 4 AETH + 4 + 4); each on the wire with 8 B of preamble at 80 ps per byte:
// data 1070 x 80 = 85,600, ACK 74 x 80 = 5,920; plus 1,000,000 of propagation.
// Switch front = (32 + 12 x 12 + 48) x 1000 = 224,000; egress = (12 x 12 + 32) x 1000 = 176,000.

}  // namespace

TEST(Pipeline, StoreAndForwardFctByHand) {
  // data on the wire at 16,000 (TX pipe); last bit at the switch 16,000 + 85,600 + 1,000,000 =
  // 1,101,600, parsed on the edge 1,102,000; queued at + 224,000 = 1,326,000; on the wire at
  // + 176,000 = 1,502,000; last bit at host 1 at 1,502,000 + 1,085,600 = 2,587,600, edge
  // 2,588,000, handled at + 16,000 = 2,604,000; ACK on the wire at + 16,000 = 2,620,000; at the
  // switch 2,620,000 + 1,005,920 = 3,625,920, edge 3,626,000; on the wire at + 400,000 =
  // 4,026,000; at host 0 at + 1,005,920 = 5,031,920, edge 5,032,000, handled at + 16,000:
  // FCT = 5,048,000 ps.
  EXPECT_NEAR(one_packet_fct_s({}), 5'048'000e-12, 0.5e-12);
}

TEST(Pipeline, CutThroughFctByHand) {
  // The switch starts on a frame once its first 128 B (plus 8 B of preamble) are in: data at
  // 16,000 + 136 x 80 + 1,000,000 = 1,026,880, edge 1,027,000; on the wire at + 400,000 =
  // 1,427,000 (it cannot run out: its last bit is in at 1,101,600 = 1,427,000 - 325,400 and it
  // takes 85,600 to send); last bit at host 1 at 1,427,000 + 1,085,600 = 2,512,600, edge
  // 2,513,000, handled 2,529,000, ACK on the wire 2,545,000. The 66-byte ACK is shorter than
  // 128 B: the switch waits for all of it, 2,545,000 + 1,005,920 = 3,550,920, edge 3,551,000,
  // on the wire 3,951,000, at host 0 4,956,920, edge 4,957,000, handled at + 16,000:
  // FCT = 4,973,000 ps (75,000 less than store and forward).
  EXPECT_NEAR(one_packet_fct_s({{"switch.forwarding", "cut_through"}, {"switch.cut_through_bytes", "128"}}),
              4'973'000e-12, 0.5e-12);
}

TEST(Pipeline, RecirculationFctByHand) {
  // One extra pass for data (ACKs take none) through a 100 Gb/s recirculation port: the data
  // leaves the egress pipe for that port at 1,326,000 + 176,000 = 1,502,000, is back at the
  // parser on the edge after its last bit, 1,502,000 + 85,600 = 1,587,600 -> 1,588,000, queued
  // at + 224,000 = 1,812,000 and on the wire to host 1 at + 176,000 = 1,988,000: 486,000 later
  // than store and forward, and so is everything after it: FCT = 5,048,000 + 486,000 = 5,534,000 ps.
  EXPECT_NEAR(one_packet_fct_s({{"switch.recirculations", "1"}, {"switch.recirc_rate", "100"}}), 5'534'000e-12,
              0.5e-12);
}
