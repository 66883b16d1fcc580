// faults.link_flap (docs/datasheets/link.md): a link that goes down and comes back during a run.
//  - The link channel alone, to the picosecond: going down loses the frames whose last bit has
//    not arrived, frames sent while down are lost, frames sent after it is back arrive on time.
//  - A small fabric: every frame lost is lost on the flapped link inside its outage, the count
//    agrees with the link's own counters and the probes, and the flow crosses the link again
//    after the outage; the control (no flap) loses nothing and finishes sooner.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "fabric/fabric.h"
#include "harness.h"
#include "run_cli.h"
#include "tlm/link.h"
#include "tlm/sim_time.h"

using namespace netasic;

namespace {

struct sink : sc_core::sc_module, pkt_receiver {
  pkt_tx_port tx;
  pkt_rx_port rx() { return {this, 0}; }
  std::vector<uint64_t> arrivals;
  explicit sink(sc_core::sc_module_name n) : sc_core::sc_module(n) {}
  void pkt_receive(unsigned, packet&, uint64_t now) override { arrivals.push_back(now); }
};

}  // namespace

TEST(LinkFlap, TheLinkLosesWhatIsOnTheWireAndWhatIsSentWhileDown) {
  sink a("a"), b("b");
  event_queue events("events");
  const link_timing t{100'000'000'000ull, 1'000'000, 1};   // 100 Gb/s (80 ps a byte), 1 us, no clock alignment
  packet_link link(t, t, events);
  connect(a.tx, link.a_to_b, b.rx());
  connect(b.tx, link.b_to_a, a.rx());
  uint64_t hops = 0;
  std::vector<packet*> lost;
  for (link_direction* d : {&link.a_to_b, &link.b_to_a}) {
    d->hop_counter = &hops;
    d->on_drop = [&lost](packet& p) { lost.push_back(&p); };
  }
  packet p[5];
  for (packet& x : p) x.payload_bytes = 1000;   // 1062-byte frames: last bit in (1062 + 8) x 80 + 1e6 ps after the start
  const uint64_t in_after = (1062u + 8) * 80 + 1'000'000;
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  a.tx.send(p[0], 0);         // in at 1 085 600 ps
  a.tx.send(p[1], 500'000);   // in at 1 585 600 ps: still on the wire at the failure
  sc_core::sc_start(ps(1'200'000));
  link.fail_now(now_ps());   // at 1.2 us: p[0] is in, p[1] is not
  a.tx.send(p[2], 1'300'000);   // sent while down
  sc_core::sc_start(ps(800'000));
  link.set_up(true);            // back at 2.0 us
  a.tx.send(p[3], 2'100'000);
  sc_core::sc_start();
  ASSERT_EQ(b.arrivals.size(), 2u);
  EXPECT_EQ(b.arrivals[0], in_after);
  EXPECT_EQ(b.arrivals[1], 2'100'000 + in_after);
  ASSERT_EQ(lost.size(), 2u);
  EXPECT_EQ(lost[0], &p[1]);
  EXPECT_EQ(lost[1], &p[2]);
  EXPECT_EQ(link.a_to_b.counters().lost_in_flight, 1u);
  EXPECT_EQ(link.a_to_b.counters().dropped_down, 1u);
}

namespace {

// Two leaves, one spine: the flows from host0 and host1 to host2 and host3 all cross leaf0-spine0
// (and come back over spine0-leaf1), so its outage stops them all.
constexpr uint64_t down_ps = 40'000'000, up_ps = 60'000'000;   // 40 us to 60 us
std::vector<std::pair<std::string, std::string>> flap_sets(bool flap) {
  std::vector<std::pair<std::string, std::string>> s = {
      {"topology.leaves", "2"}, {"topology.spines", "1"}, {"topology.hosts_per_leaf", "2"},
      {"traffic.pattern", "list"}, {"traffic.flows", R"(["0->2 2000000@0", "1->3 2000000@5"])"},
      {"sim.duration", "10"}, {"sim.drain", "2000"}, {"sim.probe_interval", "1"}, {"nic.rto", "100"}};
  if (flap) s.push_back({"faults.link_flap", R"(["leaf0-spine0 down@40 up@60"])"});
  return s;
}

}  // namespace

TEST(LinkFlap, FramesAreLostOnlyDuringTheOutageAndTheFlowsCrossAgainAfter) {
  drop_log log;
  unsigned flapped = 0;
  run_taps taps;
  taps.on_built = [&](fabric& f) {
    f.stats.log = &log;
    flapped = f.config().topo.find_links("leaf0-spine0").links.at(0);
  };
  const run_result r = run_scenario(small_config(flap_sets(true)), progress_mode::none, taps);
  expect_accounting(r);
  const auto& s = r.summary;
  // Every traffic drop is a link_down drop on the flapped link, inside [40 us, 60 us].
  const uint64_t link_down = s["drops"]["link_down"].get<uint64_t>();
  EXPECT_GT(link_down, 0u);
  EXPECT_EQ(s["packets"]["dropped"].get<uint64_t>(), link_down);
  ASSERT_EQ(log.records.size(), link_down);
  for (const drop_record& d : log.records) {
    EXPECT_EQ(d.reason, "link_down");
    EXPECT_TRUE(d.on_link);
    EXPECT_EQ(d.index, flapped);
    EXPECT_GE(d.t_ps, down_ps);
    EXPECT_LE(d.t_ps, up_ps);
  }
  // The link's own count (PFC frames too, none here) equals the traffic's, and the probes say the same.
  EXPECT_EQ(s["link_flap"]["outages"].get<uint64_t>(), 1u);
  EXPECT_EQ(s["link_flap"]["frames_sent_while_down"].get<uint64_t>() + s["link_flap"]["frames_lost_in_flight"].get<uint64_t>(),
            link_down);
  const probe_series* up = nullptr;
  const probe_series* lost = nullptr;
  for (const probe_series& p : r.probes.series)
    if (p.device == "leaf0-spine0#0") (p.name == "up" ? up : lost) = &p;
  ASSERT_TRUE(up && lost);
  for (size_t i = 0; i < r.probes.t_s.size(); ++i) {
    const double t_us = r.probes.t_s[i] * 1e6;
    if (t_us < 39.5 || t_us > 60.5) {
      EXPECT_EQ(up->samples[i], 1) << t_us << " us";
    }
    if (t_us > 40.5 && t_us < 59.5) {
      EXPECT_EQ(up->samples[i], 0) << t_us << " us";
    }
    if (t_us < 39.5) {
      EXPECT_EQ(lost->samples[i], 0) << t_us << " us";
    }
    if (t_us > 60.5) {
      EXPECT_EQ(uint64_t(lost->samples[i]), link_down) << t_us << " us";
    }
  }
  // Both flows finish, so both crossed the link again after it came back, and later than they
  // would have without the outage (the control below).
  ASSERT_EQ(r.flows.size(), 2u);
  for (const flow_record& f : r.flows) {
    EXPECT_GT(f.fct_s, 0);
    EXPECT_GT(f.start_s + f.fct_s, double(up_ps) * 1e-12);
  }
  const auto& by_prio = s["drops_by_priority"];
  EXPECT_EQ(by_prio["other"], nlohmann::json(std::vector<uint64_t>(8, 0)));

  // Control: the same run without the flap loses nothing and every flow is done sooner.
  const auto ctl = nlohmann::json::parse(slurp(run_with_sets("link_flap", "control", flap_sets(false)) / "summary.json"));
  EXPECT_EQ(ctl["packets"]["dropped"].get<uint64_t>(), 0u);
  EXPECT_FALSE(ctl.contains("link_flap"));
  EXPECT_LT(ctl["sim_time_s"].get<double>(), s["sim_time_s"].get<double>());
}

// Each class of bad entry stops the run before it starts, naming the file, line and key.
TEST(LinkFlap, BadEntriesAreRefusedNamingFileLineAndKey) {
  const std::filesystem::path d = scratch("link_flap", "bad");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("leaf0-spine9 down@1 up@2")", "no device named 'spine9'"},
      {R"("leaf0-spine0 down@5 up@5")", "must come up after it goes down"},
      {R"("leaf0-spine0 down@5 up@8 every 3")", "must be longer than the outage"},
      {R"("leaf0-spine0 down@x up@8")", "must be a time in us"},
      {R"("leaf0-spine0 down@-1 up@8")", "must be a time in us"},
      {R"("leaf0-spine0 down@nan up@8")", "must be a time in us"},
      {R"("leaf0-spine0 up@5 down@8")", "must be \"LINK down@US up@US\""},
      {R"("leaf0-spine0 down@1 up@2 every")", "must be \"LINK down@US up@US\""},
      {R"("leaf0-spine0 down@5 up@8", "leaf0-spine0#0 down@7 up@9")", "overlaps another entry's"},
      {R"("leaf0-spine0 down@5 up@8 every 10", "leaf0-spine0#0 down@70 up@90")", "must be its link's only one"},
      {R"("leaf0-spine0 down@50000 up@60000")", "at or after the end of the run"},
  };
  for (const auto& [entries, message] : cases) {
    std::ofstream(d / "bad.toml") << "[sim]\nduration = 1000\n[faults]\nlink_flap = [" << entries << "]\n";
    const outcome o = netasic_cli("run " + (d / "bad.toml").string() + " --quiet --out " + (d / "out").string());
    EXPECT_EQ(o.code, 2) << entries;
    EXPECT_NE(o.output.find("bad.toml:4: key 'faults.link_flap'"), std::string::npos) << o.output;
    EXPECT_NE(o.output.find(message), std::string::npos) << o.output;
    EXPECT_FALSE(std::filesystem::exists(d / "out")) << entries;
  }
  // topology.failed_links takes the link down for the whole run: it cannot flap.
  std::ofstream(d / "bad.toml") << "[topology]\nfailed_links = [\"leaf0-spine0\"]\n[faults]\nlink_flap = [\"leaf0-spine0 down@1 up@2\"]\n";
  const outcome o = netasic_cli("run " + (d / "bad.toml").string() + " --quiet --out " + (d / "out").string());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("is down for the whole run"), std::string::npos) << o.output;
}
