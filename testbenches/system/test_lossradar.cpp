// LossRadar end to end: a planted random drop on one link direction, and the lost packets
// LossRadar lists there compared packet by packet with the simulator's drop log. Controls: no
// fault lists nothing there; a table too small for the losses fails to decode them all (and
// still lists no wrong packet). Bad fault and meter keys stop the run before it starts.
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "run_cli.h"

namespace {

namespace fs = std::filesystem;

// A lossy 2 x 2 leaf-spine at 10G, DCTCP over TCP, web-search traffic at 50% for 1 ms and eight
// 1 MB flows from leaf0's hosts to leaf1's; every
// flow ends, so nothing is in flight when the meters are read the last time.
const char* base_scenario = R"(scenario.name = "lossradar test"
[sim]
seed = 3
duration = 1000
drain = 50000
[topology]
kind = "leaf_spine"
leaves = 2
spines = 2
hosts_per_leaf = 4
host_rate = 10
uplink_rate = 10
link_delay = 1000
[pfc]
priorities = []
[nic]
transport = "tcp"
[cc]
algorithm = "none"     # RoCEv2's; TCP's is tcp.cc (DCTCP by default)
[traffic]
pattern = "poisson"
cdf = "websearch"
load = 0.5
flows = ["0->4 1000000@0", "1->5 1000000@0", "2->6 1000000@0", "3->7 1000000@0",
         "0->5 1000000@50", "1->6 1000000@50", "2->7 1000000@50", "3->4 1000000@50"]
[telemetry]
lossradar = true
lossradar_cells = 96
lossradar_batch = 5000
lossradar_timeout = 4000
)";

struct run_out {
  fs::path dir;
  nlohmann::json summary;
};

run_out run(const std::string& name, const std::string& extra, const std::string& sets = "", int expect_code = 0) {
  const fs::path d = scratch("LossRadar", name);
  const fs::path toml = d / "s.toml";
  std::ofstream(toml) << base_scenario << extra;
  const outcome o = netasic_cli("run " + toml.string() + " --quiet --out " + (d / "run").string() + sets);
  EXPECT_EQ(o.code, expect_code) << o.output;
  run_out r{d / "run", {}};
  if (o.code == 0) r.summary = nlohmann::json::parse(slurp(r.dir / "summary.json"));
  return r;
}

// Packets as "src,dst,sport,dport,proto,ip_id" from a CSV whose segment column is `seg_col`,
// keeping rows of `segment` (and, for the drop log, of `reason`).
std::multiset<std::string> packets(const fs::path& csv, const std::string& segment, const std::string& reason = "") {
  std::multiset<std::string> out;
  for (auto& c : csv_rows(csv)) {
    if (c["segment"] != segment) continue;
    if (!reason.empty() && c["reason"] != reason) continue;
    out.insert(c["src_host"] + "," + c["dst_host"] + "," + c["sport"] + "," + c["dport"] + "," + c["proto"] + "," + c["ip_id"]);
  }
  return out;
}

const std::string faulted = "leaf0:p5>spine1:p0";   // leaf0's ports 0-3 face hosts, 4 and 5 the spines
const std::string fault = "[faults]\nlink_drop = [\"leaf0-spine1=0.03\"]\n";

TEST(LossRadar, ListsExactlyThePacketsDroppedOnAFaultyLink) {
  const run_out r = run("planted", fault);
  const auto dropped = packets(r.dir / "lossradar_drops.csv", faulted, "link_fault");
  const auto listed = packets(r.dir / "lossradar.csv", faulted);
  ASSERT_GE(dropped.size(), 20u) << "the planted fault must drop enough packets to compare";
  EXPECT_EQ(listed, dropped);
  // Everywhere: every listed packet is a dropped one, and every drop is listed.
  EXPECT_EQ(r.summary["lossradar"]["unmatched_packets"], 0);
  EXPECT_EQ(r.summary["lossradar"]["listed_packets"], r.summary["lossradar"]["dropped_packets"]);
  EXPECT_EQ(r.summary["drops"]["link_fault"], dropped.size());

  // Control: the same run without the fault has nothing to list there.
  const run_out clean = run("clean", "");
  EXPECT_TRUE(packets(clean.dir / "lossradar.csv", faulted).empty());
  EXPECT_TRUE(packets(clean.dir / "lossradar_drops.csv", faulted, "link_fault").empty());
  EXPECT_NE(listed, packets(clean.dir / "lossradar.csv", faulted));   // the check above tells the two apart
}

TEST(LossRadar, ATooSmallTableFailsToDecodeButListsNoWrongPacket) {
  // Six cells for a batch's losses on the faulty link: below the peeling threshold.
  const run_out r = run("tiny", fault, " --set telemetry.lossradar_cells=6");
  const auto dropped = packets(r.dir / "lossradar_drops.csv", faulted, "link_fault");
  const auto listed = packets(r.dir / "lossradar.csv", faulted);
  EXPECT_GT(r.summary["lossradar"]["failed_digests"].get<int>(), 0);
  EXPECT_GT(r.summary["lossradar"]["undecoded_packets"].get<int>(), 0);
  EXPECT_LT(listed.size(), dropped.size());
  EXPECT_TRUE(std::includes(dropped.begin(), dropped.end(), listed.begin(), listed.end()));
  EXPECT_EQ(r.summary["lossradar"]["unmatched_packets"], 0);
}

// The drop log's rows (place, segment) dropped inside a switch named `prefix`*, and listed.
std::vector<std::pair<std::string, std::string>> listed_inside(const fs::path& drops_csv, const std::string& prefix) {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& c : csv_rows(drops_csv))
    if (c["listed"] == "1" && c["at"].rfind(prefix, 0) == 0) out.push_back({c["at"], c["segment"]});
  return out;
}

// Blackbox deployment (§5.4.2) on the shipped scenario: the edge switches keep no meters. The
// losses inside them (the buffer drops at their egress queues, the black hole at edge1) are
// listed at the upstream meters that lead into them, from the per-meter digests past them.
// Control: in the full deployment the egress drops are listed at edge0's own output segment, so
// the same check fails.
TEST(LossRadar, BlackboxListsTheLossesInsideAtTheMetersLeadingIn) {
  const std::string scenario = NETASIC_SOURCE_DIR "/scenarios/telemetry/lossradar.toml --set sim.duration=2000";
  auto lossradar = [&](const std::string& name, const std::string& sets) {
    const fs::path d = scratch("LossRadarBlackbox", name);
    const outcome o = netasic_cli("run " + scenario + sets + " --quiet --out " + d.string());
    EXPECT_EQ(o.code, 0) << o.output;
    return std::make_pair(d, nlohmann::json::parse(slurp(d / "summary.json"))["lossradar"]);
  };
  const auto [bb_dir, bb] = lossradar("edges", " --set 'telemetry.lossradar_blackbox=[\"edge*\"]'");
  const auto [full_dir, full] = lossradar("full", "");
  EXPECT_EQ(bb["blackbox_switches"], 8);
  EXPECT_GT(bb["through_digests"].get<int>(), 0);
  EXPECT_EQ(full["blackbox_switches"], 0);
  EXPECT_EQ(full["through_digests"], 0);
  // Every loss listed and matched, nothing undecoded, in both.
  for (const nlohmann::json* s : {&bb, &full}) {
    EXPECT_GT((*s)["dropped_packets"].get<int>(), 100);
    EXPECT_EQ((*s)["matched_packets"], (*s)["dropped_packets"]);
    EXPECT_EQ((*s)["unmatched_packets"], 0);
    EXPECT_EQ((*s)["failed_digests"], 0);
  }
  // Each loss inside an edge switch is listed at a segment that leads into that switch.
  auto leads_in = [](const std::vector<std::pair<std::string, std::string>>& rows) {
    return !rows.empty() && std::all_of(rows.begin(), rows.end(), [](const auto& r) {
      return r.second.find(">" + r.first + ":") != std::string::npos;
    });
  };
  EXPECT_TRUE(leads_in(listed_inside(bb_dir / "lossradar_drops.csv", "edge")));
  EXPECT_FALSE(leads_in(listed_inside(full_dir / "lossradar_drops.csv", "edge")));
  // The aggregation switches keep the per-meter digests: more meter memory than a full deployment's.
  EXPECT_GT(bb["switch_meter_bytes_max"].get<uint64_t>(), full["switch_meter_bytes_max"].get<uint64_t>());
}

TEST(LossRadar, SameSeedSameListing) {
  const run_out a = run("det_a", fault);
  const run_out b = run("det_b", fault);
  EXPECT_EQ(slurp(a.dir / "lossradar.csv"), slurp(b.dir / "lossradar.csv"));
  EXPECT_EQ(slurp(a.dir / "lossradar_drops.csv"), slurp(b.dir / "lossradar_drops.csv"));
}

}  // namespace

namespace {

// A bad key in the file: exit code 2 before anything runs, naming the file, the line and the key.
void expect_refused(const std::string& name, const std::string& extra, const std::string& key, const std::string& why) {
  const fs::path d = scratch("LossRadarBad", name);
  const fs::path toml = d / "s.toml";
  std::ofstream(toml) << base_scenario << extra;
  const outcome o = netasic_cli("run " + toml.string() + " --quiet --out " + (d / "run").string());
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find(toml.string() + ":"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find(key), std::string::npos) << o.output;
  EXPECT_NE(o.output.find(why), std::string::npos) << o.output;
  EXPECT_FALSE(fs::exists(d / "run" / "summary.json"));
}

TEST(LossRadar, RefusesBadFaultsAndMetersBeforeTheRun) {
  expect_refused("no_link", "[faults]\nlink_drop = [\"leaf0-leaf1=0.1\"]\n", "faults.link_drop", "no link joins leaf0 and leaf1");
  expect_refused("no_device", "[faults]\nlink_drop = [\"leaf0-spine9=0.1\"]\n", "faults.link_drop", "no device named 'spine9'");
  expect_refused("rate", "[faults]\nlink_drop = [\"leaf0-spine1=1.5\"]\n", "faults.link_drop", "outside [0, 1]");
  expect_refused("rate_neg", "[faults]\nlink_drop = [\"leaf0-spine1=-0.1\"]\n", "faults.link_drop", "outside [0, 1]");
  expect_refused("no_rate", "[faults]\nlink_drop = [\"leaf0-spine1\"]\n", "faults.link_drop", "FROM-TO=RATE");
  expect_refused("twice", "[faults]\nlink_drop = [\"leaf0-spine1=0.1\", \"leaf0-spine1=0.2\"]\n", "faults.link_drop", "twice");
  expect_refused("bh_switch", "[faults]\nblack_hole = [\"spine7=host1\"]\n", "faults.black_hole", "no switch named 'spine7'");
  expect_refused("bh_host", "[faults]\nblack_hole = [\"spine0=host99\"]\n", "faults.black_hole", "no host named 'host99'");
  expect_refused("bh_not_switch", "[faults]\nblack_hole = [\"host2=host1\"]\n", "faults.black_hole", "no switch named 'host2'");
  const std::string m = "[faults]\nmisroute = [";
  expect_refused("mr_form", m + "\"leaf0=host0\"]\n", "faults.misroute", "SWITCH=HOST->NEXT");
  expect_refused("mr_switch", m + "\"leaf9=host0->spine0\"]\n", "faults.misroute", "no switch named 'leaf9'");
  expect_refused("mr_host", m + "\"leaf0=host99->spine0\"]\n", "faults.misroute", "no host named 'host99'");
  expect_refused("mr_next_host", m + "\"leaf0=host4->host1\"]\n", "faults.misroute", "no switch named 'host1'");
  expect_refused("mr_no_link", m + "\"leaf0=host4->leaf1\"]\n", "faults.misroute", "leaf0 has no working link to leaf1");
  expect_refused("mr_time", m + "\"leaf0=host4->spine0@soon\"]\n", "faults.misroute", "must be a time in us");
  expect_refused("mr_order", m + "\"leaf0=host4->spine0@50-40\"]\n", "faults.misroute", "end time must be after");
  expect_refused("mr_overlap", m + "\"leaf0=host4->spine0@0-50\", \"leaf0=host4->spine1@40\"]\n", "faults.misroute",
                 "overlaps another entry");
}

// LossRadar's loop class (§5.5.1.2: packets dropped by loops have TTL 0) on the §4.6.1 loop
// (scenarios/telemetry/flowradar_loop.toml): every packet the loop kills is listed, and
// classified a loop; nothing else is. The meters insert the TTL as it is after the downstream
// switch's decrement, so the packet a switch drops for TTL carries 0. Control: without the
// stale entry no packet dies of TTL and nothing is called a loop.
TEST(LossRadar, ClassifiesTheLoopsLossesByTheirTtl) {
  const std::string loop = std::string(NETASIC_SOURCE_DIR) + "/scenarios/telemetry/flowradar_loop.toml";
  auto run_loop = [&](const std::string& name, const std::string& sets) {
    const fs::path d = scratch("LossRadar", name);
    const outcome o = netasic_cli("run " + loop + " --quiet --out " + d.string() +
                                  " --set telemetry.lossradar=true" + sets);
    EXPECT_EQ(o.code, 0) << o.output;
    return nlohmann::json::parse(slurp(d / "summary.json"))["lossradar"];
  };
  const nlohmann::json l = run_loop("loop", "");
  EXPECT_EQ(l["failed_digests"], 0);
  EXPECT_EQ(l["matched_packets"], l["dropped_packets"]);
  const nlohmann::json& c = l["classes"]["loop"];
  EXPECT_EQ(c["true_packets"], 90);
  EXPECT_EQ(c["classified_packets"], 90);
  EXPECT_EQ(c["precision_pct"], 100.0);
  const nlohmann::json none = run_loop("no_loop", " --set 'faults.misroute=[]'");
  EXPECT_EQ(none["classes"]["loop"]["true_packets"], 0);
  EXPECT_EQ(none["classes"]["loop"]["classified_packets"], 0);
}

TEST(LossRadar, RefusesABlackboxThatNamesNoSwitchOrEverySwitch) {
  // The scenario's [telemetry] table is last: these lines extend it.
  expect_refused("bb_none", "lossradar_blackbox = [\"laef*\"]\n", "telemetry.lossradar_blackbox", "leaf");
  expect_refused("bb_all", "lossradar_blackbox = [\"leaf*\", \"spine*\"]\n", "telemetry.lossradar_blackbox",
                 "takes every switch");
}

TEST(LossRadar, RefusesBadDigestsBeforeTheRun) {
  // The scenario's [telemetry] table is last: these lines extend it.
  expect_refused("zero_hashes", "lossradar_hashes = 0\n", "telemetry.lossradar_hashes", "");
  const fs::path d = scratch("LossRadarBad", "sets");
  const fs::path toml = d / "s.toml";
  std::ofstream(toml) << base_scenario;
  for (const auto& [set, key] : std::vector<std::pair<std::string, std::string>>{
           {"telemetry.lossradar_cells=0", "telemetry.lossradar_cells"},
           {"telemetry.lossradar_hashes=0", "telemetry.lossradar_hashes"},
           {"telemetry.lossradar_cells=100", "telemetry.lossradar_cells"},      // not a multiple of 3
           {"telemetry.lossradar_timeout=5000", "telemetry.lossradar_timeout"},  // not under the batch
       }) {
    const outcome o = netasic_cli("run " + toml.string() + " --quiet --out " + (d / "run").string() + " --set " + set);
    EXPECT_EQ(o.code, 2) << set << ": " << o.output;
    EXPECT_NE(o.output.find(key), std::string::npos) << o.output;
  }
}

}  // namespace
