// The Flattened Clos paper's baselines and its throughput analysis from the command line: EDST
// routes installed over the register bus deliver every packet and are free of cyclic buffer
// dependencies, where 32-way KSP on the same wiring has one (the control), and `--routed-only`
// prints the same report less the up-down and shortest-path lines; `netasic paths
// --throughput` gives a 4-ring's hand-computed max-concurrent-flow throughput (1.5 all-to-all,
// 1 for the opposite permutation), and twice that when its links run twice as fast (the control:
// a throughput that ignored link rates would not move); the Clos baseline sized by the paper's
// Appendix A.3 has A.3's throughput (p - h*)/h* = 10/22 for the permutation and all-to-all, and
// 11/22 with one spine more (the control); `--sample-pairs` replaces only the up-down line, with
// the exact one when every pair is asked for; bad options fail before any work.
#include <gtest/gtest.h>

#include <cstdio>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "run_cli.h"

namespace fs = std::filesystem;

namespace {
const std::string fc32 = NETASIC_SOURCE_DIR "/scenarios/clos/fc32_updown.toml";
const std::string ring_scenario = NETASIC_SOURCE_DIR "/scenarios/topology/file_ring.toml";

// Four switches in a ring, one host each.
fs::path ring4() {
  const fs::path f = scratch("fc_baselines", "topo") / "ring4.topo";
  std::ofstream(f) << "switch s0\nswitch s1\nswitch s2\nswitch s3\nhost h0\nhost h1\nhost h2\nhost h3\n"
                      "link h0 s0\nlink h1 s1\nlink h2 s2\nlink h3 s3\n"
                      "link s0 s1\nlink s1 s2\nlink s2 s3\nlink s3 s0\n";
  return f;
}
}  // namespace

TEST(FcBaselines, EdstRunIsCbdFreeAndDeliversKspIsNot) {
  const fs::path out = scratch("fc_baselines", "edst");
  outcome o = netasic_cli("run " + fc32 + " --quiet --set topology.routing=edst --set sim.duration=300 --out " + out.string());
  ASSERT_EQ(o.code, 0) << o.output;
  const auto s = nlohmann::json::parse(slurp(out / "summary.json"));
  EXPECT_EQ(s["routing"]["kind"], "edst");
  EXPECT_TRUE(s["routing"]["cbd_free"].get<bool>());
  EXPECT_EQ(s["routing"]["ingress_classes"].get<unsigned>(), 7u);   // s = 12: 6 trees, and the hosts' class
  EXPECT_EQ(s["packets"]["dropped"].get<uint64_t>(), 0u);
  EXPECT_EQ(s["flows"]["started"], s["flows"]["completed"]);
  EXPECT_GT(s["flows"]["completed"].get<uint64_t>(), 0u);
  o = netasic_cli("paths " + fc32 + " --set topology.routing=edst");
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("EDST paths (6 edge-disjoint spanning trees): 992 ToR pairs, 6.00 paths per pair"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("no cycle"), std::string::npos) << o.output;
  // --routed-only: the same report without the up-down and shortest-path lines.
  std::string want;
  for (size_t at = 0, end; at < o.output.size(); at = end + 1) {
    end = o.output.find('\n', at);
    const std::string line = o.output.substr(at, end - at);
    if (line.rfind("up-down paths:", 0) != 0 && line.rfind("shortest paths:", 0) != 0) want += line + "\n";
  }
  EXPECT_NE(want.size(), o.output.size());
  const outcome only = netasic_cli("paths " + fc32 + " --routed-only --set topology.routing=edst");
  ASSERT_EQ(only.code, 0) << only.output;
  EXPECT_EQ(only.output, want);
  o = netasic_cli("paths " + fc32 + " --set topology.routing=ksp");   // the control
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("32-shortest paths: 992 ToR pairs, 32.00 paths per pair"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("CYCLIC BUFFER DEPENDENCY"), std::string::npos) << o.output;
}

// --sample-pairs: the up-down line estimated from a sample of pairs, the rest of the report as
// without it; asked for every pair it is the exact line with no interval; where there is nothing
// to sample it says so before any work.
TEST(FcBaselines, SamplePairsReplacesOnlyTheUpDownLine) {
  const std::string ecmp = "paths " + fc32 + " --set topology.routing=shortest_path";
  const outcome full = netasic_cli(ecmp);
  ASSERT_EQ(full.code, 0) << full.output;
  const size_t at = full.output.find("up-down paths: 992 ToR pairs, ");
  ASSERT_NE(at, std::string::npos) << full.output;
  const size_t end = full.output.find('\n', at);
  double paths = 0, length = 0, shortest = 0;
  unsigned fewest = 0, longest = 0;
  ASSERT_EQ(std::sscanf(full.output.c_str() + at, "up-down paths: 992 ToR pairs, %lf paths per pair (fewest %u), mean length %lf hops "
                        "(longest %u), mean shortest %lf hops", &paths, &fewest, &length, &longest, &shortest), 5) << full.output;
  outcome o = netasic_cli(ecmp + " --sample-pairs 5000");   // more than there are: every pair
  ASSERT_EQ(o.code, 0) << o.output;
  // Every pair: the exact line's figures (to their two decimals), with no interval.
  const std::string exact_head = "up-down paths, sampled: 992 of 992 ordered ToR pairs (sim.seed 1; each mean ± the half-width of its "
                                 "95% confidence interval): ";
  ASSERT_EQ(o.output.find(exact_head), at) << o.output;
  const size_t o_end = o.output.find('\n', at);
  EXPECT_EQ(o.output.substr(0, at) + "|" + o.output.substr(o_end), full.output.substr(0, at) + "|" + full.output.substr(end));
  double s_paths = 0, s_length = 0, s_shortest = 0, h_paths = 1, h_length = 1, h_shortest = 1;
  unsigned s_fewest = 0, s_longest = 0, s_unrouted = 1;
  ASSERT_EQ(std::sscanf(o.output.c_str() + at + exact_head.size(), "%lf ± %lf paths per pair (fewest in the sample %u), mean length %lf "
                        "± %lf hops (longest in the sample %u), mean shortest %lf ± %lf hops, %u sampled pairs without a path",
                        &s_paths, &h_paths, &s_fewest, &s_length, &h_length, &s_longest, &s_shortest, &h_shortest, &s_unrouted), 9)
      << o.output;
  EXPECT_NEAR(s_paths, paths, 0.0051);
  EXPECT_NEAR(s_length, length, 0.0051);
  EXPECT_NEAR(s_shortest, shortest, 0.0051);
  EXPECT_EQ(s_fewest, fewest);
  EXPECT_EQ(s_longest, longest);
  EXPECT_EQ(s_unrouted, 0u);
  EXPECT_EQ(h_paths + h_length + h_shortest, 0.0);
  o = netasic_cli(ecmp + " --sample-pairs 200");
  ASSERT_EQ(o.code, 0) << o.output;
  const size_t line = o.output.find("up-down paths, sampled: 200 of 992 ordered ToR pairs (sim.seed 1;");
  ASSERT_EQ(line, at) << o.output;
  EXPECT_EQ(o.output.substr(o.output.find('\n', line)), full.output.substr(end)) << o.output;
  EXPECT_EQ(o.output.find("± 0.000 paths"), std::string::npos) << o.output;   // a sample has an interval
  // Nothing to sample: refused before any work, naming why (the control for the lines above).
  for (const std::string& why : {std::string(" --set topology.routing=updown"), std::string(" --routed-only")}) {
    o = netasic_cli("paths " + fc32 + " --set topology.routing=shortest_path --sample-pairs 200" + why);
    EXPECT_EQ(o.code, 2) << o.output;
    EXPECT_NE(o.output.find("--sample-pairs 200: nothing to sample"), std::string::npos) << o.output;
    if (why.find("updown") != std::string::npos) {   // where the key was set
      EXPECT_NE(o.output.find("topology.routing = \"updown\" (--set)"), std::string::npos) << o.output;
    }
    EXPECT_EQ(o.output.find("ToR pairs"), std::string::npos) << o.output;   // no statistics
  }
}

// --updown-only: the topology and up-down lines of the full report, exactly, and a line saying the
// routes were neither planned nor checked; sampled, with topology.routing = updown too. Where it
// cannot act it says so before any work.
TEST(FcBaselines, UpdownOnlyLeavesTheRoutesOut) {
  const std::string ecmp = "paths " + fc32 + " --set topology.routing=shortest_path";
  const outcome full = netasic_cli(ecmp);
  ASSERT_EQ(full.code, 0) << full.output;
  const size_t end = full.output.find('\n', full.output.find("up-down paths: 992 ToR pairs, "));
  ASSERT_NE(end, std::string::npos) << full.output;
  const std::string head = full.output.substr(0, end + 1);   // the topology and up-down lines
  const std::string not_planned = "installed routes: not planned, and their dependency graph not checked (--updown-only)\n";
  outcome o = netasic_cli(ecmp + " --updown-only");
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_EQ(o.output, head + not_planned);
  EXPECT_NE(full.output.find("link dependency graph: "), std::string::npos);   // the control: the full report checks
  EXPECT_EQ(o.output.find("link dependency graph: "), std::string::npos) << o.output;
  // Under up-down routing with --updown-only, sampling every pair gives the same line as under
  // shortest-path routing: the routes are not made, so the routing does not matter.
  const outcome sampled = netasic_cli(ecmp + " --sample-pairs 5000");
  ASSERT_EQ(sampled.code, 0) << sampled.output;
  const size_t at = sampled.output.find("up-down paths, sampled:");
  ASSERT_NE(at, std::string::npos) << sampled.output;
  const std::string sample_line = sampled.output.substr(at, sampled.output.find('\n', at) + 1 - at);
  o = netasic_cli("paths " + fc32 + " --set topology.routing=updown --updown-only --sample-pairs 5000");
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_EQ(o.output, full.output.substr(0, full.output.find('\n') + 1) + sample_line + not_planned);
  for (const auto& [extra, why] : {std::pair<std::string, std::string>{" --routed-only", "--routed-only asks for the opposite"},
                                   {" --throughput all_to_all", "--throughput needs the routing's paths"}}) {
    o = netasic_cli(ecmp + " --updown-only" + extra);
    EXPECT_EQ(o.code, 2) << o.output;
    EXPECT_NE(o.output.find("--updown-only: " + why), std::string::npos) << o.output;
    EXPECT_EQ(o.output.find("ToR pairs"), std::string::npos) << o.output;   // no statistics
  }
  o = netasic_cli("paths " + ring_scenario + " --set topology.file=" + ring4().string() + " --updown-only");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("has no virtual layers"), std::string::npos) << o.output;
}

TEST(FcBaselines, ThroughputOfARingIsTheHandValue) {
  const std::string base = "paths " + ring_scenario + " --set topology.file=" + ring4().string() +
                           " --throughput all_to_all --throughput permutation --set topology.host_rate=25 --set topology.uplink_rate=";
  outcome o = netasic_cli(base + "25");
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("throughput (all_to_all, topology.routing = shortest_path): 1.5000 of host line rate per host"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("throughput (permutation, topology.routing = shortest_path): 1.0000 of host line rate per host"), std::string::npos) << o.output;
  o = netasic_cli(base + "50");   // the control: links twice the host rate, twice the throughput
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("(all_to_all, topology.routing = shortest_path): 3.0000 of"), std::string::npos) << o.output;
  EXPECT_EQ(o.output.find("1.5000"), std::string::npos) << o.output;
}

// --throughput-gap: the Garg-Könemann bounds, "LOWER to UPPER of host line rate per host",
// bracket the hand value within 1%; the control (links at twice the host rate) brackets 3, not 1.5.
TEST(FcBaselines, ThroughputBoundsBracketTheRingsHandValue) {
  const std::string base = "paths " + ring_scenario + " --set topology.file=" + ring4().string() +
                           " --throughput all_to_all --throughput-gap 0.01 --set topology.host_rate=25 --set topology.uplink_rate=";
  const auto bounds = [](const std::string& out) {
    const size_t at = out.find("throughput (all_to_all, topology.routing = shortest_path): ");
    EXPECT_NE(at, std::string::npos) << out;
    double lower = 0, upper = 0;
    if (at != std::string::npos) std::sscanf(out.c_str() + out.find(": ", at) + 2, "%lf to %lf", &lower, &upper);
    EXPECT_NE(out.find("Garg-Könemann"), std::string::npos) << out;
    return std::pair<double, double>{lower, upper};
  };
  for (const auto& [rate, hand] : {std::pair<const char*, double>{"25", 1.5}, {"50", 3.0}}) {
    const outcome o = netasic_cli(base + rate);
    ASSERT_EQ(o.code, 0) << o.output;
    const auto [lower, upper] = bounds(o.output);
    EXPECT_LE(lower, hand + 1e-4) << o.output;
    EXPECT_GE(upper, hand - 1e-4) << o.output;
    EXPECT_LE(upper, 1.0101 * lower + 1e-4) << o.output;
    EXPECT_GT(lower, 0.98 * hand) << o.output;
  }
  EXPECT_EQ(netasic_cli(base + "25 --throughput-gap 1.5").code, 2);   // a gap is a fraction below 1
  // A gap with no traffic to bracket is refused, not ignored.
  const outcome alone = netasic_cli("paths " + ring_scenario + " --set topology.file=" + ring4().string() + " --throughput-gap 0.01");
  EXPECT_EQ(alone.code, 2) << alone.output;
  EXPECT_NE(alone.output.find("--throughput-gap 0.01: no --throughput to bracket"), std::string::npos) << alone.output;
}

TEST(FcBaselines, ClosBaselineHasAppendixA3Throughput) {
  const std::string base = "paths " NETASIC_SOURCE_DIR "/scenarios/clos/clos_fc50.toml --throughput permutation --throughput all_to_all";
  outcome o = netasic_cli(base);
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("42 switches, 704 hosts"), std::string::npos) << o.output;   // Eq. 5: 32 ToRs + 10 spines <= 50
  // 22 hosts per ToR share its p - h* = 10 uplinks: 10/22 = 0.4545 of the host rate per host.
  EXPECT_NE(o.output.find("throughput (permutation, topology.routing = shortest_path): 0.4545 of host line rate"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("throughput (all_to_all, topology.routing = shortest_path): 0.4545 of host line rate"), std::string::npos) << o.output;
  o = netasic_cli(base + " --set topology.spines=11");   // the control: 11 uplinks per ToR, 11/22
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("(permutation, topology.routing = shortest_path): 0.5000 of"), std::string::npos) << o.output;
  EXPECT_EQ(o.output.find("0.4545"), std::string::npos) << o.output;
}

TEST(FcBaselines, BadOptionsFailBeforeAnyWork) {
  outcome o = netasic_cli("paths " + fc32 + " --set topology.routing=edst --set topology.ksp_paths=8");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("topology.ksp_paths"), std::string::npos) << o.output;
  for (const char* bad : {"uniform:2", "uniform:x", "uniform:0.5:y", "alltoall"}) {
    o = netasic_cli("paths " + fc32 + " --throughput " + bad);
    EXPECT_EQ(o.code, 2) << bad;
    EXPECT_NE(o.output.find(std::string("--throughput '") + bad + "'"), std::string::npos) << o.output;
  }
}
