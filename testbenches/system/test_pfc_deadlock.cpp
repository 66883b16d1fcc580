// The dynamic PFC deadlock of the Flattened Clos paper's ring (Zhao et al., NSDI'23, §6.2) end to
// end: under ECMP the 4-switch ring with XOFF/XON 50/47 KB and the imbalanced allocation
// deadlocks, and the detector reports the clockwise 4-link cycle, each queue's PAUSE before the
// detection; the control, the same ring and traffic under up-down routing, runs to the end with
// no detection. The static CBD checker agrees (ECMP: a cycle; up-down: none). The PFC watchdog,
// dropping, gets the deadlocked ring to finish its flows; without it they never do. On the
// testbed of §6.1 (the same ring, 192 long flows to every host under another ToR), up-down and
// EDST routes finish every flow without a deadlock, and up-down at least 1.5 times as fast.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "run_cli.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string ecmp = NETASIC_SOURCE_DIR "/scenarios/flattened_clos/ring_ecmp.toml";
const std::string updown = NETASIC_SOURCE_DIR "/scenarios/flattened_clos/ring_fc.toml";
const std::string testbed = NETASIC_SOURCE_DIR "/scenarios/flattened_clos/testbed.toml";

json run(const std::string& scenario, const std::string& name, const std::string& extra, std::string* output = nullptr) {
  const fs::path d = scratch("deadlock", name);
  const outcome o = netasic_cli("run " + scenario + " --quiet --out " + d.string() + " " + extra);
  EXPECT_EQ(o.code, 0) << o.output;
  if (output) *output = o.output;
  return json::parse(slurp(d / "summary.json"));
}

// "tor0->tor1 (tor1-tor0#0)" -> {"tor0", "tor1"}
std::pair<std::string, std::string> ends(const std::string& link) {
  const size_t arrow = link.find("->"), space = link.find(' ');
  return {link.substr(0, arrow), link.substr(arrow + 2, space - arrow - 2)};
}

}  // namespace

TEST(PfcDeadlock, RingUnderEcmpDeadlocksUnderUpDownNot) {
  std::string out;
  const json e = run(ecmp, "ecmp", "", &out);
  EXPECT_NE(out.find("warning: PFC deadlock at"), std::string::npos) << out;
  const json& d = e["pfc"]["deadlock"];
  ASSERT_TRUE(d["detected"].get<bool>()) << e.dump();
  ASSERT_EQ(d["cycles"].size(), 1u);
  const json& c = d["cycles"][0];
  ASSERT_EQ(c["links"].size(), 4u);
  // A closed walk over the four ToRs in one direction: each link starts where the last ended,
  // each at its own switch, each queue on the switch the link leaves.
  std::set<std::string> tors;
  for (size_t i = 0; i < 4; ++i) {
    const auto [from, to] = ends(c["links"][i].get<std::string>());
    EXPECT_EQ(to, ends(c["links"][(i + 1) % 4].get<std::string>()).first) << c.dump();
    EXPECT_EQ(c["queues"][i].get<std::string>().rfind(from + ".port", 0), 0u) << c.dump();
    tors.insert(from);
    // Every PAUSE of the cycle came at least the detection time before the finding.
    EXPECT_LE(c["pause_at_s"][i].get<double>() + d["detect_time_s"].get<double>(), d["detected_at_s"].get<double>() + 1e-12);
  }
  EXPECT_EQ(tors, (std::set<std::string>{"tor0", "tor1", "tor2", "tor3"}));
  EXPECT_EQ(e["flows"]["completed"].get<uint64_t>(), 0u);   // stopped at the deadlock: nothing finished
  EXPECT_TRUE(e["accounting_ok"].get<bool>());
  EXPECT_FALSE(e["routing"]["cbd_free"].get<bool>());

  // The control: the same ring and flows under up-down routing finish, and nothing is found.
  const json u = run(updown, "updown", "");
  EXPECT_FALSE(u["pfc"]["deadlock"]["detected"].get<bool>());
  EXPECT_GT(u["pfc"]["deadlock"]["checks"].get<uint64_t>(), 4u);   // it looked, for the whole run
  EXPECT_EQ(u["flows"]["completed"].get<uint64_t>(), 192u);
  EXPECT_EQ(u["packets"]["dropped"].get<uint64_t>(), 0u);
  EXPECT_TRUE(u["routing"]["cbd_free"].get<bool>());
  EXPECT_GT(u["pfc"]["pause_frames_sent"].get<uint64_t>(), 0u);   // PFC fired, but no cycle formed

  // The static checker says the same: ECMP's routes have a cyclic buffer dependency, up-down's none.
  outcome p = netasic_cli("paths " + ecmp);
  EXPECT_NE(p.output.find("CYCLIC BUFFER DEPENDENCY"), std::string::npos) << p.output;
  p = netasic_cli("paths " + updown);
  EXPECT_NE(p.output.find("no cycle"), std::string::npos) << p.output;
}

TEST(PfcDeadlock, WatchdogDropsBreakTheDeadlock) {
  // Without the watchdog (running on past the finding): 2 ms later still no flow has finished.
  const json stuck = run(ecmp, "stuck", "--set pfc.on_deadlock=continue --set sim.drain=2000");
  EXPECT_TRUE(stuck["pfc"]["deadlock"]["detected"].get<bool>());
  EXPECT_EQ(stuck["flows"]["completed"].get<uint64_t>(), 0u);
  EXPECT_GT(stuck["packets"]["in_flight"].get<uint64_t>(), 0u);
  // With it, dropping: every flow finishes (go-back-N resends what was dropped), the drops carry
  // the cause, and no deadlock lasts long enough to be found.
  const json w = run(ecmp, "watchdog", "--set pfc.watchdog=200 --set pfc.on_deadlock=continue");
  EXPECT_EQ(w["flows"]["completed"].get<uint64_t>(), 192u);
  EXPECT_GT(w["drops"]["pfc_watchdog"].get<uint64_t>(), 0u);
  EXPECT_EQ(w["drops"]["pfc_watchdog"], w["packets"]["dropped"]);
  EXPECT_GT(w["pfc"]["watchdog_storms"].get<uint64_t>(), 0u);
  EXPECT_FALSE(w["pfc"]["deadlock"]["detected"].get<bool>());
  EXPECT_TRUE(w["accounting_ok"].get<bool>());
  // A restoration time (1 ms) keeps each storm going through the pauses that follow it, so the
  // same run has fewer storms than without one, and still finishes.
  const json r = run(ecmp, "restore", "--set pfc.watchdog=200 --set pfc.watchdog_restore=1000 --set pfc.on_deadlock=continue");
  EXPECT_EQ(r["flows"]["completed"].get<uint64_t>(), 192u);
  EXPECT_GT(r["pfc"]["watchdog_storms"].get<uint64_t>(), 0u);
  EXPECT_LT(r["pfc"]["watchdog_storms"].get<uint64_t>(), w["pfc"]["watchdog_storms"].get<uint64_t>());
}

TEST(PfcDeadlock, WatchdogForwardIgnoresThePause) {
  const json w = run(ecmp, "forward", "--set pfc.watchdog=200 --set pfc.watchdog_action=forward");
  EXPECT_EQ(w["flows"]["completed"].get<uint64_t>(), 192u);
  EXPECT_GT(w["pfc"]["watchdog_storms"].get<uint64_t>(), 0u);
  EXPECT_EQ(w["drops"]["pfc_watchdog"].get<uint64_t>(), 0u);
  EXPECT_FALSE(w["pfc"]["deadlock"]["detected"].get<bool>());
}

TEST(PfcDeadlock, VcdLevelAndReportSection) {
  const fs::path d = scratch("deadlock", "vcd");
  const outcome o = netasic_cli("run " + ecmp + " --quiet --out " + d.string() + " --vcd 'fabric.pfc_deadlock'");
  ASSERT_EQ(o.code, 0) << o.output;
  const json s = json::parse(slurp(d / "summary.json"));
  const uint64_t at = uint64_t(s["pfc"]["deadlock"]["detected_at_s"].get<double>() * 1e12 + 0.5);
  // The level's id, then the time of its rise (the VCD counts picoseconds).
  std::istringstream vcd(slurp(d / "waves.vcd"));
  std::string line, id, time;
  uint64_t rose = 0;
  while (std::getline(vcd, line)) {
    if (line.find(" pfc_deadlock ") != std::string::npos) {
      std::istringstream v(line);
      std::string w;
      v >> w >> w >> w >> id;   // $var wire 1 ID
    } else if (!line.empty() && line[0] == '#') {
      time = line.substr(1);
    } else if (!id.empty() && line == "1" + id) {
      rose = std::stoull(time);
    }
  }
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(rose, at);
  const std::string html = slurp(d / "report.html");
  EXPECT_NE(html.find("id=\"pfc-deadlock\""), std::string::npos);
  EXPECT_NE(html.find("<td>" + s["pfc"]["deadlock"]["cycles"][0]["queues"][0].get<std::string>() + "</td>"), std::string::npos);
}

TEST(PfcDeadlock, BadKeysAreRefused) {
  outcome o = netasic_cli("run " + ecmp + " --quiet --set pfc.on_deadlock=halt");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("pfc.on_deadlock"), std::string::npos) << o.output;
  o = netasic_cli("run " + ecmp + " --quiet --set pfc.watchdog=-1");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("pfc.watchdog"), std::string::npos) << o.output;
}

TEST(PfcDeadlock, TestbedUpDownOutrunsEdst) {
  const json f = run(testbed, "testbed_fc", "");
  const json e = run(testbed, "testbed_edst", "--set topology.routing=edst");
  for (const json* s : {&f, &e}) {
    EXPECT_EQ((*s)["flows"]["completed"].get<uint64_t>(), 192u) << s->dump();
    EXPECT_FALSE((*s)["pfc"]["deadlock"]["detected"].get<bool>());
    EXPECT_EQ((*s)["packets"]["dropped"].get<uint64_t>(), 0u);
    EXPECT_EQ((*s)["packets"]["delivered"], (*s)["packets"]["sent"]);
  }
  // The same bytes: the run ends with the last flow, so its length is the throughput's inverse.
  // The paper's testbed puts FC about 50% above EDST; the model's EDST trees take longer paths.
  EXPECT_LT(1.5 * f["sim_time_s"].get<double>(), e["sim_time_s"].get<double>());
}
