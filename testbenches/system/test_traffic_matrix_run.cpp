// traffic.matrix end to end: Poisson flows whose destinations follow a ToR-to-ToR matrix, the
// ones `netasic paths --throughput` solves (topology/traffic_matrix.h), on the 32-ToR Flattened
// Clos of scenarios/clos/fc32_updown.toml (4 hosts a ToR, numbered ToR by ToR).
//  - permutation: every ToR's flows go to one other ToR, and the ToRs form a permutation with no
//    fixed point; uniform:0.125: each ToR's flows go to round(0.125 x 31) = 4 ToRs at most. Control:
//    without a matrix a ToR's flows reach more ToRs than that.
//  - Bad values are refused before the run, naming the key.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "run_cli.h"

namespace {

namespace fs = std::filesystem;

const std::string scenario = std::string(NETASIC_SOURCE_DIR) + "/scenarios/clos/fc32_updown.toml";
constexpr unsigned hosts_per_tor = 4;

// ToR -> the ToRs its flows went to (flows.csv, hosts by index).
std::map<unsigned, std::set<unsigned>> tor_pairs(const std::string& name, const std::string& sets) {
  const fs::path d = scratch("TrafficMatrix", name);
  const outcome o = netasic_cli("run " + scenario + " --quiet --out " + d.string() + " --set sim.duration=300 --set traffic.cdf=fb_hadoop" + sets);
  EXPECT_EQ(o.code, 0) << o.output;
  std::map<unsigned, std::set<unsigned>> to;
  for (auto& r : csv_rows(d / "flows.csv")) to[unsigned(std::stoul(r["src"])) / hosts_per_tor].insert(unsigned(std::stoul(r["dst"])) / hosts_per_tor);
  return to;
}

TEST(TrafficMatrix, FlowsFollowTheToRMatrix) {
  const auto perm = tor_pairs("permutation", " --set traffic.matrix=permutation");
  ASSERT_EQ(perm.size(), 32u);   // every ToR sent
  std::set<unsigned> images;
  for (const auto& [src, dsts] : perm) {
    ASSERT_EQ(dsts.size(), 1u) << "tor" << src;
    EXPECT_NE(*dsts.begin(), src);
    images.insert(*dsts.begin());
  }
  EXPECT_EQ(images.size(), 32u);   // a bijection
  const auto uniform = tor_pairs("uniform", " --set traffic.matrix=uniform:0.125");
  for (const auto& [src, dsts] : uniform) {
    EXPECT_LE(dsts.size(), 4u) << "tor" << src;
    EXPECT_FALSE(dsts.count(src));
  }
  size_t most = 0;
  for (const auto& [src, dsts] : tor_pairs("none", "")) most = std::max(most, dsts.size());
  EXPECT_GT(most, 4u);
}

TEST(TrafficMatrix, RefusesBadMatricesBeforeTheRun) {
  const fs::path d = scratch("TrafficMatrix", "bad");
  auto refused = [&](const std::string& sets, const std::string& why) {
    const outcome o = netasic_cli("run " + scenario + " --quiet --out " + (d / "x").string() + sets);
    EXPECT_EQ(o.code, 2) << sets << "\n" << o.output;
    EXPECT_NE(o.output.find("traffic.matrix"), std::string::npos) << o.output;
    EXPECT_NE(o.output.find(why), std::string::npos) << o.output;
    EXPECT_FALSE(fs::exists(d / "x" / "summary.json"));
  };
  refused(" --set traffic.matrix=bogus", "is not a matrix");
  refused(" --set traffic.matrix=uniform:0", "fraction in (0, 1]");
  refused(" --set traffic.matrix=uniform:x", "fraction in (0, 1]");
  refused(" --set traffic.matrix=permutation --set traffic.remote_only=true", "traffic.remote_only");
  refused(" --set traffic.matrix=permutation --set traffic.pattern=all_to_all --set traffic.flow_size=1000 --set traffic.load=0.5",
          "is not used with traffic.pattern");
}

}  // namespace
