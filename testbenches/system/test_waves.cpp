// `netasic run --vcd PATTERNS` / `--fst`: event-exact waveforms (docs/outputs.md). A PFC pause
// shorter than the probe interval appears with its exact start and end, computed from the PAUSE
// frames the switches put on the wire, while the sampled probe misses it (the control); patterns
// that match nothing stop the run; tracing changes no result.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fabric/fabric.h"
#include "fabric/wave_signals.h"
#include "harness.h"
#include "output/vcd.h"
#include "run_cli.h"
#include "tlm/frame_tap.h"

using namespace netasic;
namespace fs = std::filesystem;

namespace {

// Incast across the spine: 16 senders (8 under each leaf) to a host under leaf 1, so leaf 1
// pauses the spine's port into it, and the spine in turn pauses leaf 0's uplink.
std::vector<std::pair<std::string, std::string>> cross_incast() {
  return {{"topology.leaves", "2"},        {"topology.spines", "1"},          {"topology.hosts_per_leaf", "9"},
          {"traffic.pattern", "incast"},   {"traffic.incast.senders", "16"},  {"traffic.incast.receiver", "17"},
          {"traffic.flow_size", "200000"}, {"switch.buffer", "1024"},         {"nic.window", "128"},
          {"nic.rto", "200"},              {"sim.probe_interval", "20"}};
}

// Every PAUSE frame put on a wire: when its first bit left, and its classes and quanta.
struct pause_log : frame_tap {
  struct frame { uint64_t start_ps; pfc_frame pfc; };
  std::vector<frame> frames;
  void on_frame(const packet& p, uint64_t start_ps) override {
    if (p.kind == pkt_kind::pause) frames.push_back({start_ps, p.pfc});
  }
};

// 802.1Qbb at the receiving port: a PAUSE acts at its effect time for quanta x 512 bit times;
// a later PAUSE replaces the time left. Returns the paused intervals [from, until) of `prio`.
std::vector<std::pair<uint64_t, uint64_t>> golden_pauses(const std::vector<pause_log::frame>& frames, unsigned prio,
                                                         const link_timing& timing, uint64_t response_ps) {
  std::vector<std::pair<uint64_t, uint64_t>> out;   // effect, end
  for (const auto& f : frames) {
    if (!(f.pfc.class_enable >> prio & 1)) continue;
    const uint64_t effect = timing.control_delivery_ps(f.start_ps, pfc_frame::bytes) + response_ps;
    __extension__ typedef unsigned __int128 wide;   // quanta x 512 bits x 10^12 ps/s overflows 64 bits
    const wide bits = wide(f.pfc.quanta[prio]) * 512;
    const uint64_t len = uint64_t((bits * 1'000'000'000'000ull + timing.rate_bps - 1) / timing.rate_bps);
    if (!out.empty() && out.back().first <= effect && effect < out.back().second) out.back().second = effect + len;
    else out.push_back({effect, effect + len});
  }
  out.erase(std::remove_if(out.begin(), out.end(), [](const auto& i) { return i.second <= i.first; }), out.end());
  // Back-to-back intervals are one level.
  std::vector<std::pair<uint64_t, uint64_t>> merged;
  for (const auto& i : out)
    if (!merged.empty() && merged.back().second == i.first) merged.back().second = i.second;
    else merged.push_back(i);
  return merged;
}

// A VCD read back: each variable's (time, value) changes after $dumpvars.
std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>> read_vcd(const std::string& text) {
  std::map<std::string, std::string> name_of;   // id -> full dotted name
  std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>> out;
  std::vector<std::string> scope;
  std::istringstream in(text);
  std::string line;
  uint64_t t = 0;
  bool defs = true, dumpvars = false;
  while (std::getline(in, line)) {
    std::istringstream w(line);
    std::string a;
    w >> a;
    if (defs) {
      if (a == "$scope") {
        std::string kind, name;
        w >> kind >> name;
        scope.push_back(name);
      } else if (a == "$upscope") {
        scope.pop_back();
      } else if (a == "$var") {
        std::string kind, width, id, name, full;
        w >> kind >> width >> id >> name;
        for (const auto& s : scope) full += s + ".";
        name_of[id] = full + name;
      } else if (a == "$enddefinitions") {
        defs = false;
      }
      continue;
    }
    if (a == "$dumpvars") dumpvars = true;
    if (a == "$end") dumpvars = false;
    if (a.empty() || a[0] == '$' || dumpvars) continue;   // the initial values: all 0
    if (a[0] == '#') {
      t = std::stoull(a.substr(1));
    } else if (a[0] == 'b') {
      std::string id;
      w >> id;
      out[name_of.at(id)].push_back({t, std::stoull(a.substr(1), nullptr, 2)});
    } else {
      out[name_of.at(a.substr(1))].push_back({t, uint64_t(a[0] - '0')});
    }
  }
  return out;
}

}  // namespace

TEST(Waves, ShortPfcPauseHasExactEdgesTheSampledProbeMisses) {
  config cfg = small_config(cross_incast());
  std::map<std::pair<unsigned, unsigned>, pause_log> into;   // (switch node, port) -> PAUSEs it received
  std::map<std::pair<unsigned, unsigned>, link_timing> timing_into;
  uint64_t response_ps = 0;
  run_taps taps;
  taps.waves = true;
  taps.wave_patterns = "*.pfc_pause.p3";
  taps.on_built = [&](fabric& fab) {
    const topology& t = fab.config().topo;
    response_ps = uint64_t(fab.config().sw.pfc_response_cycles) * fab.config().sw.clock_period_ps;
    for (size_t i = 0; i < t.links.size(); ++i) {
      const topo_link& l = t.links[i];
      // The direction that arrives at a switch port: b_to_a arrives at a, a_to_b at b.
      if (t.nodes[l.a].kind != node_kind::host) {
        fab.links()[i].b_to_a.tap = &into[{l.a, l.a_port}];
        timing_into[{l.a, l.a_port}] = fab.links()[i].b_to_a.timing();
      }
      if (t.nodes[l.b].kind != node_kind::host) {
        fab.links()[i].a_to_b.tap = &into[{l.b, l.b_port}];
        timing_into[{l.b, l.b_port}] = fab.links()[i].a_to_b.timing();
      }
    }
  };
  const run_result r = run_scenario(cfg, progress_mode::none, taps);
  ASSERT_TRUE(r.waves.has_value());
  std::ostringstream vcd;
  write_vcd(vcd, *r.waves);
  const auto traced = read_vcd(vcd.str());
  const topology& t = make_fabric_config(cfg).topo;

  size_t pauses = 0, short_ones = 0, missed_by_samples = 0;
  const uint64_t interval_ps = uint64_t(std::llround(r.probes.interval_s * 1e12));
  for (const auto& [key, log] : into) {
    const auto golden = golden_pauses(log.frames, 3, timing_into.at(key), response_ps);
    const std::string dev = t.nodes[key.first].name, port = "port" + std::to_string(key.second);
    std::vector<std::pair<uint64_t, uint64_t>> expect;   // the level's changes, up to the run's end
    for (const auto& [from, until] : golden) {
      if (from > r.waves->end_ps) break;
      expect.push_back({from, 1});
      if (until <= r.waves->end_ps) expect.push_back({until, 0});
    }
    const auto it = traced.find(dev + "." + port + ".pfc_pause.p3");
    const std::vector<std::pair<uint64_t, uint64_t>> got = it == traced.end() ? decltype(expect){} : it->second;
    EXPECT_EQ(got, expect) << dev << "." << port;
    pauses += golden.size();
    // The control: the sampled probe "paused" of this port at every sample.
    const probe_series* sampled = nullptr;
    for (const auto& s : r.probes.series)
      if (s.device == dev && s.name == port + ".paused") sampled = &s;
    ASSERT_NE(sampled, nullptr) << dev << "." << port;
    for (const auto& [from, until] : golden) {
      if (until - from >= interval_ps || until > r.waves->end_ps) continue;
      ++short_ones;
      bool seen = false;
      for (size_t i = 0; i < r.probes.t_s.size(); ++i) {
        const uint64_t ts = uint64_t(std::llround(r.probes.t_s[i] * 1e12));
        if (ts >= from && ts < until) seen = seen || (sampled->samples[i] >> 3 & 1);
      }
      missed_by_samples += !seen;
    }
  }
  EXPECT_GT(pauses, 0u);
  EXPECT_GT(short_ones, 0u) << "the scenario must have a pause shorter than the probe interval";
  // The sampled probes miss at least one short pause that the trace has with its exact edges.
  EXPECT_GT(missed_by_samples, 0u);
}

TEST(Waves, PatternThatMatchesNothingStopsTheRunAndListsCloseNames) {
  const fs::path d = scratch("waves", "pattern");
  const std::string run = "run " NETASIC_SOURCE_DIR "/scenarios/demo.toml --quiet --out " + d.string() + " --vcd ";
  outcome o = netasic_cli(run + "'laef0.*'");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("pattern 'laef0.*' matches no signal"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("leaf0.*"), std::string::npos) << o.output;
  EXPECT_FALSE(fs::exists(d / "summary.json"));
  o = netasic_cli(run + "'leaf0.port3.queue_bytes,leaf0.port3.pfc_pause.p9'");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("'leaf0.port3.pfc_pause.p9'"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("leaf0.port3.pfc_pause.p"), std::string::npos) << o.output;
  o = netasic_cli(run + "'leaf0.*,'");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("empty pattern"), std::string::npos) << o.output;
  // A bare --vcd before the scenario takes its path as the pattern: said, not "scenario is required".
  o = netasic_cli("run --vcd " NETASIC_SOURCE_DIR "/scenarios/demo.toml --quiet --out " + d.string());
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("put a bare --vcd after the scenario"), std::string::npos) << o.output;
}

TEST(Waves, TracingChangesNoResultAndFstMatchesVcd) {
  const std::string small =
      " --set topology.hosts_per_leaf=4 --set sim.duration=200 --set traffic.load=0.3 --set 'traffic.flows=[]'";
  const std::string base = "run " NETASIC_SOURCE_DIR "/scenarios/demo.toml --quiet --seed 3" + small;
  const fs::path a = scratch("waves", "plain"), b = scratch("waves", "vcd"), c = scratch("waves", "fst");
  ASSERT_EQ(netasic_cli(base + " --out " + a.string()).code, 0);
  ASSERT_EQ(netasic_cli(base + " --vcd '*' --out " + b.string()).code, 0);
  ASSERT_EQ(netasic_cli(base + " --fst --out " + c.string()).code, 0);
  auto strip = [](nlohmann::json j) {
    for (const char* k : {"wall_time_s", "packet_hops_per_s", "peak_memory_bytes", "memory"}) j.erase(k);
    return j.dump();
  };
  for (const fs::path& x : {b, c}) {
    EXPECT_EQ(slurp(a / "flows.csv"), slurp(x / "flows.csv"));
    EXPECT_EQ(slurp(a / "probes.csv"), slurp(x / "probes.csv"));
    EXPECT_EQ(strip(nlohmann::json::parse(slurp(a / "summary.json"))), strip(nlohmann::json::parse(slurp(x / "summary.json"))));
  }
  EXPECT_FALSE(fs::exists(a / "waves.vcd"));
  const std::string vcd = slurp(b / "waves.vcd");
  for (const char* v : {" queue_bytes $end", " tx_busy $end", " tx_frames $end", " p3 $end", " entries $end",
                        " qdepth_bytes $end"})
    EXPECT_NE(vcd.find(v), std::string::npos) << v;
  // FST: GTKWave's header block comes first; the save file points at it.
  const std::string fst = slurp(c / "waves.fst");
  ASSERT_GT(fst.size(), 0u);
  EXPECT_EQ(fst[0], '\0');   // FST_BL_HDR
  // Same run, same file, bit for bit (GTKWave's writer would stamp the wall clock's date).
  const fs::path c2 = scratch("waves", "fst_again");
  ASSERT_EQ(netasic_cli(base + " --fst --out " + c2.string()).code, 0);
  EXPECT_TRUE(slurp(c2 / "waves.fst") == fst) << "two runs of one configuration wrote different FST files";
  EXPECT_FALSE(fs::exists(c / "waves.vcd"));
  EXPECT_NE(slurp(c / "waves.gtkw").find("[dumpfile] \"waves.fst\""), std::string::npos);
  // The save file groups per switch and port.
  const std::string gtkw = slurp(b / "waves.gtkw");
  EXPECT_NE(gtkw.find("-leaf0\n"), std::string::npos);
  EXPECT_NE(gtkw.find("-port3\n"), std::string::npos);
}

TEST(Waves, PredictedProbePathsAreTheRunsOwn) {
  // The pattern check before the run predicts the sampled probes' names: they must be the ones
  // the run makes, with the clock layer too.
  config cfg = small_config(cross_incast());
  cfg.set_from_text("clock.algorithm", "\"sundial\"", "test");
  const run_result r = run_scenario(cfg, progress_mode::none);
  std::vector<std::string> got;
  for (const auto& s : r.probes.series) got.push_back(vcd_signal_path(s));
  const fabric_config fc = make_fabric_config(cfg);
  std::vector<std::string> algorithms;
  for (const auto& a : r.summary["clock"]["algorithms"]) algorithms.push_back(a.get<std::string>());
  std::vector<std::string> predicted = sampled_probe_paths(fc, algorithms);
  std::sort(got.begin(), got.end());
  std::sort(predicted.begin(), predicted.end());
  EXPECT_EQ(got, predicted);
}
