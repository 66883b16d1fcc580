// DETER's butterfly effect (thesis ch. 6 section 6.2), by the command line: the short flow of
// scenarios/deter/butterfly.toml, shortened to 5 MB long flows so each run takes about a second.
//  - sigma = 0 (a fixed 10 us host processing delay): two runs, and two jitter seeds, give the
//    same short-flow FCT to the picosecond.
//  - Control: with sigma = 100 ns the same check must fail for at least one of a few jitter seeds.
//  - The host's processing delay postpones each segment but overlaps the next ones: one 5 MB flow
//    alone keeps its 10G pace with a 10 us delay, where delays that added up would hold it to one
//    1514-byte frame per 11.2 us (1.08 Gb/s; the fault this guards gave 38.6 ms, 1.04 Gb/s).
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "run_cli.h"

namespace {

namespace fs = std::filesystem;

const std::string scenario = std::string(NETASIC_SOURCE_DIR) + "/scenarios/deter/butterfly.toml";
const std::string shorter = " --set 'traffic.flows=[\"0->2 5000000@0\", \"0->2 5000000@0\", \"1->2 5000000@0\", "
                            "\"1->2 5000000@0\", \"0->2 30000@3000\"]' --set sim.duration=3000";

// The 30 KB flow's fct_us column as written (picosecond digits), or "" if it did not finish.
std::string short_fct(const fs::path& out, const std::string& sets) {
  const outcome o = netasic_cli("run " + scenario + " --quiet --out " + out.string() + shorter + sets);
  EXPECT_EQ(o.code, 0) << o.output;
  std::istringstream in(slurp(out / "flows.csv"));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string col[6];
    for (auto& c : col) std::getline(row, c, ',');
    if (col[3] == "30000") return col[5];
  }
  return "";
}

TEST(Butterfly, NoJitterReproducesTheShortFlowAndAnyJitterBreaksIt) {
  const fs::path d = scratch("Butterfly", "jitter");
  const std::string ref = short_fct(d / "a", " --set tcp.host_jitter=0");
  ASSERT_FALSE(ref.empty());
  EXPECT_EQ(short_fct(d / "b", " --set tcp.host_jitter=0"), ref);
  EXPECT_EQ(short_fct(d / "c", " --set tcp.host_jitter=0 --set tcp.jitter_seed=7"), ref);   // no draws at sigma 0
  // Control: 100 ns of jitter on a 10 us delay; the reproduction must fail for some seed.
  unsigned differ = 0;
  for (int seed = 1; seed <= 3; ++seed)
    differ += short_fct(d / ("j" + std::to_string(seed)), " --set tcp.host_jitter=100 --set tcp.jitter_seed=" +
                                                              std::to_string(seed)) != ref;
  EXPECT_GT(differ, 0u) << "sigma = 100 ns reproduced the sigma = 0 FCT " << ref << " us on every seed";
}

// The flow's FCT in us from flows.csv (its only flow).
double lone_fct_us(const fs::path& out, const std::string& sets) {
  const outcome o = netasic_cli("run " + scenario + " --quiet --out " + out.string() +
                                " --set 'traffic.flows=[\"0->2 5000000@0\"]' --set sim.duration=100" + sets);
  EXPECT_EQ(o.code, 0) << o.output;
  std::istringstream in(slurp(out / "flows.csv"));
  std::string line;
  std::getline(in, line);
  std::getline(in, line);
  std::istringstream row(line);
  std::string col[6];
  for (auto& c : col) std::getline(row, c, ',');
  return std::stod(col[5]);
}

TEST(Butterfly, TheProcessingDelayDoesNotSlowTheHostsPace) {
  const fs::path d = scratch("Butterfly", "pace");
  const double bits = 5e6 * 8;
  const double with = lone_fct_us(d / "delay", " --set tcp.host_delay=10");
  const double without = lone_fct_us(d / "none", " --set tcp.host_delay=0");
  EXPECT_GT(bits / with / 1e3, 8.0) << "Gb/s with a 10 us delay (FCT " << with << " us)";
  // Slow start's round trips each take the delay once more: some tens of us, never ~30 ms.
  EXPECT_LT(with - without, 500.0) << with << " us against " << without << " us";
}

}  // namespace
