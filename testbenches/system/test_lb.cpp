// System tests of the load balancers in the switch: on a symmetric leaf-spine every balancer
// spreads the load evenly over the uplinks (each within a tolerance derived from how many
// independent choices it makes); WCMP's uplink bytes are exactly those its flows' hashes predict;
// on asymmetric paths spraying reorders packets and flowlet switching does not, and CONGA steers
// away from a slow uplink. Each behaviour's control (ECMP, spraying) runs in the test, by the CLI.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <numeric>

#include "output/run_data.h"
#include <string>
#include <vector>

#include "blocks/crc_hash.h"
#include "fabric/route_controller.h"
#include "run/run.h"
#include "scenario/scenario.h"
#include "harness.h"

using namespace netasic;

namespace {

constexpr unsigned hosts_per_leaf = 8, spines = 4;

// Every host sends 200 KB to every other host; the cross-leaf half crosses leaf0's 4 uplinks.
run_result all_to_all(const std::string& mode, std::vector<std::pair<std::string, std::string>> extra = {}) {
  std::vector<std::pair<std::string, std::string>> sets = {
      {"topology.leaves", "2"}, {"topology.spines", std::to_string(spines)},
      {"topology.hosts_per_leaf", std::to_string(hosts_per_leaf)}, {"traffic.pattern", "all_to_all"},
      {"traffic.flow_size", "200000"}, {"sim.probe_interval", "1"}, {"lb.mode", mode}};
  sets.insert(sets.end(), extra.begin(), extra.end());
  return run_scenario(small_config(sets), progress_mode::none);
}

// Bytes each of leaf0's uplinks sent over the run.
std::vector<double> uplink_load(const run_result& r) {
  std::vector<double> load;
  for (unsigned u = 0; u < spines; ++u)
    for (const link_record& l : r.links)
      if (l.from == "leaf0.port" + std::to_string(hosts_per_leaf + u)) load.push_back(double(l.bytes));
  return load;
}

// Every uplink within `tolerance` (relative) of the mean.
void expect_even(const run_result& r, double tolerance) {
  const std::vector<double> load = uplink_load(r);
  ASSERT_EQ(load.size(), spines);
  const double mean = std::accumulate(load.begin(), load.end(), 0.0) / spines;
  ASSERT_GT(mean, 0);
  for (double l : load) EXPECT_NEAR(l / mean, 1.0, tolerance) << "uplink load " << l << " against mean " << mean;
  EXPECT_EQ(r.summary["flows"]["completed"].get<uint64_t>(), 2u * hosts_per_leaf * (2 * hosts_per_leaf - 1));
  expect_accounting(r);
}

// A balancer that makes n independent uniform choices of equal weight puts n/k +- sqrt(n(k-1))/k
// on each of k uplinks: allow four standard deviations.
double four_sigma(double choices) { return 4 * std::sqrt(double(spines - 1) / choices); }

}  // namespace

TEST(LoadBalance, EcmpSpreadsFlowsEvenlyOnASymmetricFabric) {
  // 128 cross-leaf flows of equal size leave leaf0, each hashed once.
  expect_even(all_to_all("ecmp"), four_sigma(hosts_per_leaf * hosts_per_leaf * 2));
}

TEST(LoadBalance, RoundRobinSprayIsEvenButForTheAcks) {
  // Data frames go round robin, exactly even. The ACKs of the 64 flows into leaf0 follow ECMP:
  // 64 x 200 ACKs of 66 bytes, 4 sigma of 64 hashed flows on an uplink's 3.6 MB of data.
  const double acks_per_uplink = 64 * 200 * 66 / 4.0, data_per_uplink = 64 * 200 * 1066 / 4.0;
  expect_even(all_to_all("spray_round_robin"), four_sigma(64) * acks_per_uplink / data_per_uplink);
}

TEST(LoadBalance, RandomSprayIsEvenWithinItsBinomialBound) {
  // 128 flows x 200 packets each leave leaf0, each packet drawn at random.
  expect_even(all_to_all("spray_random"), four_sigma(128 * 200));
}

namespace {

// A control: the same scenario under another mode, run by the CLI.
std::filesystem::path cli_run(const std::string& name, const std::vector<std::pair<std::string, std::string>>& sets) {
  return run_with_sets("LoadBalance", name, sets);
}

nlohmann::json cli_summary(const std::filesystem::path& out) {
  std::ifstream f(out / "summary.json");
  return nlohmann::json::parse(f);
}

// A control run's links.csv as link records (from, to, bytes).
std::vector<link_record> cli_links(const std::string& name, const std::vector<std::pair<std::string, std::string>>& sets) {
  std::vector<link_record> links;
  std::ifstream csv(cli_run(name, sets) / "links.csv");
  std::string line;
  std::getline(csv, line);   // header: from,to,rate_gbps,bytes,utilization
  while (std::getline(csv, line)) {
    std::vector<std::string> f;
    std::stringstream cells(line);
    for (std::string c; std::getline(cells, c, ',');) f.push_back(c);
    if (f.size() >= 4) links.push_back({f[0], f[1], 0, std::stoull(f[3]), 0});
  }
  return links;
}

uint64_t link_bytes(const std::vector<link_record>& links, const std::string& from) {
  for (const link_record& l : links)
    if (l.from == from) return l.bytes;
  ADD_FAILURE() << "no link from " << from;
  return 0;
}

// leaf0's flow hash of a 5-tuple, from the definition: CRC-32 (reflected, final XOR all ones) of
// src IP, dst IP, protocol, src port, dst port in network order, with the switch's seed as initial
// value (switch.hash_seed 0, leaf0 is switch 0, so 0), computed bit by bit.
uint32_t leaf0_hash(unsigned src_host, unsigned dst_host, uint16_t sport) {
  const uint32_t src = 0x0A000000u | src_host, dst = 0x0A000000u | dst_host;
  const uint16_t dport = 4791;   // RoCEv2
  const uint8_t key[13] = {uint8_t(src >> 24), uint8_t(src >> 16), uint8_t(src >> 8), uint8_t(src),
                           uint8_t(dst >> 24), uint8_t(dst >> 16), uint8_t(dst >> 8), uint8_t(dst), 17,
                           uint8_t(sport >> 8), uint8_t(sport), uint8_t(dport >> 8), uint8_t(dport)};
  return crc_bitwise(32, 0x04C11DB7u, 0, true, 0xFFFFFFFFu, key, sizeof key);
}

// Bytes each of leaf0's uplinks (ports 8..11) must carry if every packet leaving leaf0 for leaf1
// takes member hash % members.size() of `members`: each flow out of leaf0 is 200 data frames of
// 1000 payload bytes (14 Ethernet + 20 IP + 8 UDP + 12 BTH + 4 ICRC + 4 FCS = 1062 bytes), each
// flow into leaf0 sends back 200 ACKs (the same headers and a 4-byte AETH, no payload: 66 bytes)
// with the addresses swapped and the same ports.
std::vector<uint64_t> predicted_uplink_bytes(const std::vector<flow_record>& flows, const std::vector<uint32_t>& members) {
  std::vector<uint64_t> bytes(spines, 0);
  for (const flow_record& f : flows) {
    const uint16_t sport = uint16_t(49152 + (f.id * 2654435761u >> 18) % 16384);   // the flow's ephemeral port
    const bool out = f.src < hosts_per_leaf && f.dst >= hosts_per_leaf, in = f.src >= hosts_per_leaf && f.dst < hosts_per_leaf;
    if (out) bytes[members[leaf0_hash(f.src, f.dst, sport) % members.size()] - hosts_per_leaf] += 200 * 1062;
    if (in) bytes[members[leaf0_hash(f.dst, f.src, sport) % members.size()] - hosts_per_leaf] += 200 * 66;
  }
  return bytes;
}

}  // namespace

TEST(LoadBalance, WcmpUplinkBytesAreExactlyWhatTheFlowsHashesPredict) {
  // One of leaf0's four uplinks runs at 100 Gbps instead of 400. The route controller installs
  // leaf0's group towards leaf1 with replicas in proportion to the rates, 400:400:400:100 =
  // 4:4:4:1, 13 entries. Each uplink must then carry exactly the bytes of the flows whose hash
  // lands on its entries. The share is a sample: 64 flows over 13 entries put 64/13 = 4.9 +- 2.1
  // flows on the slow uplink (binomial), and this run's hashes put 1 there, so it carries about
  // 5% of a fast uplink's bytes, not 25%. The control is ECMP on the same flows: its bytes follow
  // hash % 4 and must miss the WCMP prediction.
  const std::vector<std::pair<std::string, std::string>> sets = {
      {"topology.leaves", "2"}, {"topology.spines", std::to_string(spines)},
      {"topology.hosts_per_leaf", std::to_string(hosts_per_leaf)}, {"traffic.pattern", "all_to_all"},
      {"traffic.flow_size", "200000"}, {"nic.mtu", "1000"}, {"switch.hash_seed", "0"},
      {"topology.degraded_links", "[\"leaf0-spine3#0=100\"]"}};

  // The installed table: leaf0's group for a leaf1 host.
  std::vector<std::pair<std::string, std::string>> wcmp = sets;
  wcmp.push_back({"lb.mode", "wcmp"});
  const config cfg = small_config(wcmp);
  const fabric_config fc = make_fabric_config(cfg);
  const route_plan plan = plan_routes(fc.topo, fc.sw.lb.wcmp_table_size);
  const auto& leaf0 = plan.per_switch[0];
  const uint32_t route = plan.entry(0, hosts_per_leaf);   // host 8, the first of leaf1
  const std::vector<uint32_t> members(leaf0.members.begin() + (route >> 16),
                                      leaf0.members.begin() + (route >> 16) + (route & 0xFFFF));
  ASSERT_EQ(members.size(), 13u);
  for (unsigned u = 0; u < spines; ++u)
    EXPECT_EQ(std::count(members.begin(), members.end(), hosts_per_leaf + u), u == 3 ? 1 : 4) << "uplink " << u;

  const run_result r = run_scenario(cfg, progress_mode::none);
  EXPECT_EQ(r.summary["flows"]["retransmitted_packets"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["packets"]["sent"].get<uint64_t>(), 2u * 200 * r.flows.size());   // data and ACKs only
  const std::vector<uint64_t> want = predicted_uplink_bytes(r.flows, members);
  for (unsigned u = 0; u < spines; ++u)
    EXPECT_EQ(link_bytes(r.links, "leaf0.port" + std::to_string(hosts_per_leaf + u)), want[u]) << "uplink " << u;
  expect_accounting(r);

  // Control: ECMP through the command line. Its bytes are hash % 4, and not the WCMP prediction.
  std::vector<std::pair<std::string, std::string>> ecmp = sets;
  ecmp.push_back({"lb.mode", "ecmp"});
  const std::vector<link_record> ecmp_links = cli_links("WcmpControl", ecmp);
  const std::vector<uint32_t> equal = {hosts_per_leaf, hosts_per_leaf + 1, hosts_per_leaf + 2, hosts_per_leaf + 3};
  const std::vector<uint64_t> ecmp_want = predicted_uplink_bytes(r.flows, equal);
  unsigned misses = 0;
  for (unsigned u = 0; u < spines; ++u) {
    const uint64_t got = link_bytes(ecmp_links, "leaf0.port" + std::to_string(hosts_per_leaf + u));
    EXPECT_EQ(got, ecmp_want[u]) << "ECMP, uplink " << u;
    misses += got != want[u];
  }
  EXPECT_EQ(misses, spines) << "ECMP matched the WCMP prediction on some uplink";
}

TEST(LoadBalance, LetFlowSpreadsFlowletsEvenly) {
  // Each flowlet takes a random uplink: on the symmetric fabric the uplinks' bytes are even
  // within 4 sigma of the flowlets leaf0 placed (a third of all switches' flowlets).
  const run_result r = all_to_all("letflow", {{"lb.flowlet.timeout", "100"}});
  const auto& lb = r.summary["load_balancer"];
  EXPECT_GT(lb["new_flowlets"].get<uint64_t>(), 0u);
  expect_even(r, four_sigma(double(lb["new_flowlets"].get<uint64_t>()) / 3));
}

TEST(LoadBalance, LetFlowMovesFlowletsInOrderWhereSprayingReorders) {
  // An asymmetric pair of paths: leaf0's uplink to spine1 runs at 25 Gbps beside a 100 Gbps one.
  // With 10 us links and a window of 8 packets, each flow sends bursts of 8 a round trip (about
  // 80 us) apart. Sprayed, a burst's packets on the slow uplink fall behind those on the fast one
  // (control: asserted to reorder). LetFlow with a 10 us timeout keeps a burst together and may
  // move the next one, since its gap exceeds the paths' delay difference (a burst of 8 queued on
  // the slow uplink takes 2.7 us): flows change path and no packet arrives out of order
  // (LetFlow §3: the gap must exceed the path latency difference).
  const std::vector<std::pair<std::string, std::string>> sets = {
      {"topology.leaves", "2"}, {"topology.spines", "2"}, {"topology.hosts_per_leaf", "4"},
      {"topology.uplink_rate", "100"}, {"topology.degraded_links", "[\"leaf0-spine1#0=25\"]"},
      {"topology.link_delay", "10000"}, {"nic.window", "8"}, {"traffic.pattern", "permutation"},
      {"traffic.flow_size", "100000"}};
  std::vector<std::pair<std::string, std::string>> spray = sets;
  spray.push_back({"lb.mode", "spray_random"});
  const nlohmann::json control = cli_summary(cli_run("SprayControl", spray));
  EXPECT_GT(control["flows"]["out_of_order_packets"].get<uint64_t>(), 0u) << "spraying did not reorder";

  std::vector<std::pair<std::string, std::string>> letflow = sets;
  letflow.push_back({"lb.mode", "letflow"});
  letflow.push_back({"lb.flowlet.timeout", "10"});
  const run_result r = run_scenario(small_config(letflow), progress_mode::none);
  const auto& flows = r.summary["flows"];
  EXPECT_GT(flows["path_changes"].get<uint64_t>(), 0u) << "no flowlet moved: the in-order check would be empty";
  EXPECT_EQ(flows["out_of_order_packets"].get<uint64_t>(), 0u);
  EXPECT_EQ(flows["retransmitted_packets"].get<uint64_t>(), 0u);
  EXPECT_EQ(flows["completed"], flows["total"]);
  expect_accounting(r);
}

TEST(LoadBalance, TofinoBalanceSketchRecirculatesEveryBucketClear) {
  // Short FB_Hadoop flows come and go; with a 10 us flow timeout and 4 buckets, a bucket whose
  // flow has ended goes stale and the next flow takes it. Each clear of the Tofino form costs one
  // recirculated packet, which comes back and is counted, or is refused by the traffic manager
  // and counted as such.
  const run_result r = run_scenario(
      small_config({{"topology.leaves", "2"}, {"topology.spines", std::to_string(spines)},
                    {"topology.hosts_per_leaf", std::to_string(hosts_per_leaf)}, {"traffic.cdf", "fb_hadoop"},
                    {"traffic.load", "0.3"}, {"sim.duration", "300"}, {"lb.mode", "balance_sketch"},
                    {"lb.sketch.form", "tofino"}, {"lb.sketch.buckets", "4"}, {"lb.sketch.flowlet_timeout", "1"},
                    {"lb.sketch.flow_timeout", "10"}}),
      progress_mode::none);
  const auto& lb = r.summary["load_balancer"];
  const uint64_t clears = lb["bucket_clears"].get<uint64_t>();
  EXPECT_GT(clears, 0u);
  EXPECT_EQ(clears, lb["bucket_clears_recirculated"].get<uint64_t>() + lb["bucket_clears_not_admitted"].get<uint64_t>());
  EXPECT_EQ(r.summary["recirculated_packets"].get<uint64_t>(), lb["bucket_clears_recirculated"].get<uint64_t>());
  EXPECT_EQ(r.summary["flows"]["completed"], r.summary["flows"]["total"]);
  expect_accounting(r);
}

TEST(LoadBalance, CongaSteersNewFlowletsAwayFromASlowUplink) {
  // leaf0's uplink to spine1 runs at 25 Gbps beside a 100 Gbps one, under FB_Hadoop flows that
  // arrive over 2 ms. The slow uplink's DRE fills four times as fast, so CONGA sends new flowlets
  // the other way. The control is the same scenario under ECMP, run by the CLI (the kernel runs
  // once per process): CONGA must leave the slow uplink a clearly smaller share of leaf0's
  // uplink bytes than the hash does. Under PFC a paused uplink sends nothing and so looks idle to
  // its DRE, which blunts the steering; the margin asked for allows for that.
  const std::vector<std::pair<std::string, std::string>> sets = {
      {"topology.leaves", "2"}, {"topology.spines", "2"}, {"topology.hosts_per_leaf", "8"},
      {"topology.uplink_rate", "100"}, {"topology.degraded_links", "[\"leaf0-spine1#0=25\"]"},
      {"traffic.cdf", "fb_hadoop"}, {"traffic.load", "0.6"}, {"sim.duration", "2000"}, {"sim.drain", "50000"}};
  auto slow_share = [](const std::vector<link_record>& links) {
    double fast = 0, slow = 0;
    for (const link_record& l : links) {
      if (l.from == "leaf0.port8") fast = double(l.bytes);
      if (l.from == "leaf0.port9") slow = double(l.bytes);
    }
    EXPECT_GT(fast + slow, 0);
    return slow / (fast + slow);
  };
  // The control: ECMP through the command line, on the same keys.
  std::vector<std::pair<std::string, std::string>> ecmp_sets = sets;
  ecmp_sets.push_back({"lb.mode", "ecmp"});
  const std::vector<link_record> ecmp_links = cli_links("CongaControl", ecmp_sets);
  const double ecmp = slow_share(ecmp_links);

  std::vector<std::pair<std::string, std::string>> conga = sets;
  conga.push_back({"lb.mode", "conga"});
  const run_result r = run_scenario(small_config(conga), progress_mode::none);
  const double steered = slow_share(r.links);
  EXPECT_LT(steered, ecmp - 0.08) << "slow uplink's share of leaf0's uplink bytes: CONGA " << steered << ", ECMP " << ecmp;
  const auto& lb = r.summary["load_balancer"];
  EXPECT_EQ(lb["feedback_sent"], lb["feedback_received"]);   // every piggybacked metric arrives
  EXPECT_EQ(r.summary["flows"]["completed"], r.summary["flows"]["total"]);
  expect_accounting(r);
}

// LetFlow's asymmetric testbed in small: 2x40G per leaf-spine pair with one link failed. Flowcut
// drains a flow whose RTT ratio passes 4 and only then moves it (new ECMP entropy in the NIC, the
// least-loaded next hop in a switch), so flows change path and still every packet arrives in order.
void flowcut_moves_flows_in_order(const std::string& form) {
  const run_result r = run_scenario(
      small_config({{"topology.leaves", "2"}, {"topology.spines", "2"}, {"topology.hosts_per_leaf", "8"},
                    {"topology.parallel_links", "2"}, {"topology.host_rate", "10"}, {"topology.uplink_rate", "10"},
                    {"topology.failed_links", "[\"leaf1-spine1#0\"]"}, {"traffic.cdf", "websearch"},
                    {"traffic.load", "0.7"}, {"sim.duration", "5000"}, {"sim.drain", "200000"},
                    {"flowcut.form", "\"" + form + "\""}}),
      progress_mode::none);
  const auto& fc = r.summary["flowcut"];
  EXPECT_EQ(fc["form"], form);
  EXPECT_GT(fc["drains_completed"].get<uint64_t>(), 0u);
  EXPECT_EQ(fc["drains"], fc["drains_completed"]);   // every drain ended: its ACKs all came back
  EXPECT_GT(r.summary["flows"]["path_changes"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["flows"]["out_of_order_packets"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["flows"]["completed"], r.summary["flows"]["total"]);
  expect_accounting(r);
}

TEST(LoadBalance, FlowcutInNicsMovesFlowsAndNeverReorders) { flowcut_moves_flows_in_order("nic"); }
TEST(LoadBalance, FlowcutIngressOnlyMovesFlowsAndNeverReorders) { flowcut_moves_flows_in_order("ingress"); }
TEST(LoadBalance, FlowcutFullSwitchMovesFlowsAndNeverReorders) { flowcut_moves_flows_in_order("switch"); }
