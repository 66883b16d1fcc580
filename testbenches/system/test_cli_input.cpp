// Input a user may get wrong, one test per class: numbers out of range anywhere they are typed,
// inputs that cannot be right, and the one table of exit codes. Each refusal is checked beside
// the nearest input that must be accepted, so a check that refused everything would fail too.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "run_cli.h"

namespace fs = std::filesystem;

namespace {

const std::string demo = NETASIC_SOURCE_DIR "/scenarios/demo.toml";
const std::string tiny = " --set topology.hosts_per_leaf=2 --set topology.leaves=2 --set topology.spines=1 "
                         "--set sim.duration=20 --set traffic.load=0.1 --set 'traffic.flows=[]' --quiet";

void expect_refused(const outcome& o, const std::string& message) {
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find(message), std::string::npos) << "expected: " << message << "\ngot: " << o.output;
}

}  // namespace

TEST(CliInput, NumbersOutOfRangeAreRefusedNeverClampedOrWrapped) {
  const fs::path d = scratch("cli_input", "numbers");
  expect_refused(netasic_cli("run " + demo + " --seed 99999999999999999999 --out " + (d / "a").string()),
                 "option --seed: '99999999999999999999' is too large: it must be a whole number from 0 to 9223372036854775807");
  expect_refused(netasic_cli("run " + demo + " --seed 9223372036854775808 --out " + (d / "a").string()), "is too large");
  expect_refused(netasic_cli("cosim flowlet_table --seed -1 --cycles 10"), "option --seed: '-1' is negative");
  expect_refused(netasic_cli("cosim flowlet_table --cycles 99999999999999999999"), "option --cycles: '99999999999999999999' is too large");
  expect_refused(netasic_cli("cosim flowlet_table --cycles 0"), "option --cycles: '0' is too small: it must be a whole number from 1 to");
  expect_refused(netasic_cli("cosim flowlet_table --cycles 1e3"), "option --cycles: '1e3' is not a whole number");
  expect_refused(netasic_cli("sweep " + demo + " --grid traffic.load=0.1 --jobs 0"), "option --jobs: '0' is too small");
  expect_refused(netasic_cli("sweep " + demo + " --grid traffic.load=0.1 --seeds 1001"), "option --seeds: '1001' is too large");
  EXPECT_FALSE(fs::exists(d / "a"));
  // The largest values are accepted.
  EXPECT_EQ(netasic_cli("cosim flowlet_table --seed 18446744073709551615 --cycles 10 --no-timing").code, 0);
  const outcome top = netasic_cli("run " + demo + tiny + " --seed 9223372036854775807 --out " + (d / "b").string());
  EXPECT_EQ(top.code, 0) << top.output;
  EXPECT_NE(slurp(d / "b" / "summary.json").find("\"seed\": 9223372036854775807"), std::string::npos);

  // The flow list: a negative or oversized number is an error naming the item, not a wrap.
  expect_refused(netasic_cli("run " + demo + tiny + " --set 'traffic.flows=[\"0->1 -5@0\"]' --out " + (d / "c").string()),
                 "traffic.flows: item 1 \"0->1 -5@0\": size '-5' must be a whole number from 0 to 1000000000000");
  expect_refused(netasic_cli("run " + demo + tiny + " --set 'traffic.flows=[\"0->1 2000000000000@0\"]' --out " + (d / "c").string()),
                 "size '2000000000000' must be a whole number");
  expect_refused(netasic_cli("run " + demo + tiny + " --set 'traffic.flows=[\"0->-1 1000@0\"]' --out " + (d / "c").string()),
                 "destination host '-1' must be a whole number");
  expect_refused(netasic_cli("run " + demo + tiny + " --set 'traffic.flows=[\"0->1 1000@-3\"]' --out " + (d / "c").string()),
                 "start '-3' must be a number of us");
  // A flow whose packets overflow the 32-bit sequence space at the run's MTU.
  expect_refused(netasic_cli("run " + demo + tiny + " --set nic.mtu=64 --set 'traffic.flows=[\"0->1 300000000000@0\"]' --out " + (d / "c").string()),
                 "key 'nic.mtu': a flow of 300000000000 bytes is more than 2^32 - 1 packets of 64 bytes");
  EXPECT_FALSE(fs::exists(d / "c"));
  const outcome ok = netasic_cli("run " + demo + tiny + " --set 'traffic.flows=[\"0->1 1000@0\"]' --out " + (d / "e").string());
  EXPECT_EQ(ok.code, 0) << ok.output;
}

TEST(CliInput, InputsThatCannotBeRightAreRefused) {
  const fs::path d = scratch("cli_input", "wrong");
  // A degraded link at or above its own rate.
  expect_refused(netasic_cli("run " + demo + tiny + " --set 'topology.degraded_links=[\"leaf0-spine0=800\"]' --out " + (d / "a").string()),
                 "key 'topology.degraded_links': entry 'leaf0-spine0=800': 800 Gbps is not below the link's own rate of 400 Gbps");
  EXPECT_EQ(netasic_cli("run " + demo + tiny + " --set 'topology.degraded_links=[\"leaf0-spine0=40\"]' --out " + (d / "b").string()).code, 0);
  // A folder where a file is read: refused as no file (a stream opens a folder and reads it as
  // empty, so it was taken for an empty CDF); the builtin name beside it is accepted above.
  expect_refused(netasic_cli("run " + demo + tiny + " --set traffic.cdf=" + d.string() + " --out " + (d / "f").string()),
                 "key 'traffic.cdf': flow-size CDF '" + d.string() + "' is neither a builtin CDF");
  expect_refused(netasic_cli("run " + demo + tiny + " --set 'switch.target=\"\"' --out " + (d / "g").string()),
                 "target '' is neither a builtin target");
  EXPECT_FALSE(fs::exists(d / "g")) << "switch.target was read only after the run";
  // The same clock fault twice.
  expect_refused(netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/sundial/link_failure.toml --set "
                         "'clock.faults=[\"link agg0-core0 @ 10000\", \"link agg0-core0 @ 10000\"]' --quiet --out " + (d / "c").string()),
                 "fault \"link agg0-core0 @ 10000\" is listed twice (items 1 and 2)");
  // A Verilog parameter of 0.
  expect_refused(netasic_cli("synth flowlet_table -p ENTRIES=0"), "-p 'ENTRIES=0': ENTRIES must be a whole number from 1 to 2147483647");
  // params with a prefix that names nothing.
  expect_refused(netasic_cli("params nosuch"), "params: no key starts with 'nosuch'; the sections are: ");
  EXPECT_EQ(netasic_cli("params topology.lea").code, 0);
  // A sweep metric that no summary has: found at the first run, and the sweep stops there.
  const outcome m = netasic_cli("sweep " + demo + tiny + " --grid sim.probe_interval=1,2,3 -j 1 --metric fct_slowdown.p999 --out " +
                            (d / "sweep").string());
  expect_refused(m, "--metric 'fct_slowdown.p999': the first run's summary.json has no such number (closest: 'fct_slowdown.p99')");
  EXPECT_FALSE(fs::exists(d / "sweep" / "point-3" / "summary.json")) << "the sweep ran on after the first point";
  EXPECT_EQ(netasic_cli("sweep " + demo + tiny + " --grid sim.probe_interval=1,2 -j 1 --metric fct_slowdown.p99 --out " + (d / "sweep2").string()).code, 0);
}

TEST(CliInput, ExitCodesAreOneTableInHelpAndReadme) {
  // --help prints the table; the README's table says the same, code for code.
  const outcome help = netasic_cli("--help");
  EXPECT_EQ(help.code, 0);
  const std::string readme = slurp(NETASIC_SOURCE_DIR "/README.md");
  const std::regex row_help(R"(\n  ([0-9]+) +([^\n]+))"), row_readme(R"(\n\| ([0-9]+) \| ([^|\n]+) \|)");
  std::map<int, std::string> in_help, in_readme;
  for (std::sregex_iterator i(help.output.begin(), help.output.end(), row_help), e; i != e; ++i) in_help[std::stoi((*i)[1])] = (*i)[2];
  for (std::sregex_iterator i(readme.begin(), readme.end(), row_readme), e; i != e; ++i) in_readme[std::stoi((*i)[1])] = (*i)[2];
  EXPECT_EQ(in_help.size(), 9u) << help.output;
  EXPECT_EQ(in_help, in_readme);
  // Parser errors are code 2 (not the parser library's own 100s), and so is an unknown subcommand.
  expect_refused(netasic_cli("run " + demo + " --no-such-option"), "--no-such-option");
  expect_refused(netasic_cli("runn " + demo), "unknown subcommand 'runn' (did you mean 'run'?); the subcommands are: run, sweep, size");
  expect_refused(netasic_cli(""), "A subcommand is required");
  expect_refused(netasic_cli("run"), "scenario is required");
}

TEST(CliInput, PathsInAScenarioAreReadAgainstItsFolderAndConfigTomlReproducesFromAnywhere) {
  const fs::path d = scratch("cli_input", "paths");
  fs::create_directories(d / "scen");
  std::ofstream(d / "scen" / "tiny.cdf") << "1000 0\n5000 50\n20000 100\n";
  std::ofstream(d / "scen" / "s.toml") << "[topology]\nkind = \"leaf_spine\"\nleaves = 2\nspines = 1\nhosts_per_leaf = 2\n"
                                          "[sim]\nduration = 30\n[traffic]\nload = 0.2\ncdf = \"tiny.cdf\"\n";
  // Run from another folder: the CDF is found beside the scenario.
  const outcome first = netasic_cli("run " + (d / "scen" / "s.toml").string() + " --quiet --out " + (d / "run1").string());
  ASSERT_EQ(first.code, 0) << first.output;
  const std::string config = slurp(d / "run1" / "config.toml");
  EXPECT_NE(config.find("cdf = \"" + (d / "scen" / "tiny.cdf").lexically_normal().string() + "\""), std::string::npos) << config;
  // The written config.toml, run from its own folder and from the root, gives the same flows.
  const outcome again = netasic_cli("run " + (d / "run1" / "config.toml").string() + " --quiet --out " + (d / "run2").string());
  ASSERT_EQ(again.code, 0) << again.output;
  EXPECT_EQ(slurp(d / "run1" / "flows.csv"), slurp(d / "run2" / "flows.csv"));
  // The control: the same relative name from --set is read against the current folder, where it is not.
  const outcome set = netasic_cli("run " + (d / "scen" / "s.toml").string() + " --set traffic.cdf=tiny.cdf --quiet --out " + (d / "run3").string());
  expect_refused(set, "flow-size CDF 'tiny.cdf' is neither a builtin CDF");
}

TEST(CliInput, ARunDirectoryIsCompleteOrSaysItIsNot) {
  const fs::path d = scratch("cli_input", "whole");
  const fs::path out = d / "run";
  // A second run into the same folder leaves nothing of the first (its waves.vcd).
  ASSERT_EQ(netasic_cli("run " + demo + tiny + " --vcd --out " + out.string()).code, 0);
  ASSERT_TRUE(fs::exists(out / "waves.vcd"));
  ASSERT_EQ(netasic_cli("run " + demo + tiny + " --out " + out.string()).code, 0);
  EXPECT_FALSE(fs::exists(out / "waves.vcd"));
  EXPECT_TRUE(fs::exists(out / "summary.json"));
  EXPECT_FALSE(fs::exists(out / "INCOMPLETE"));
  // A folder holding anything else is not emptied: the run is refused before it starts.
  fs::create_directories(d / "mine");
  std::ofstream(d / "mine" / "notes.txt") << "keep me\n";
  expect_refused(netasic_cli("run " + demo + tiny + " --out " + (d / "mine").string()), "holds 'notes.txt', which no run writes");
  EXPECT_EQ(slurp(d / "mine" / "notes.txt"), "keep me\n");
  // Stopped while simulating: exit 128 + SIGTERM, stderr says what was under way, the folder
  // keeps its marker and has no summary.json, and a sweep's --collect counts it as failed.
  const outcome stopped = shell("timeout --preserve-status -s TERM 2 " NETASIC_BINARY " run " NETASIC_SOURCE_DIR
                                  "/scenarios/fat_tree_k8.toml --set sim.duration=100000 --out " + out.string());
  EXPECT_EQ(stopped.code, 143) << stopped.output;
  EXPECT_NE(stopped.output.find("netasic: interrupted (SIGTERM) while simulating"), std::string::npos) << stopped.output;
  EXPECT_TRUE(fs::exists(out / "INCOMPLETE"));
  EXPECT_FALSE(fs::exists(out / "summary.json"));
}

TEST(CliInput, AFabricTooLargeForTheMemoryIsRefusedBeforeItIsBuilt) {
  const fs::path d = scratch("cli_input", "memory");
  // 1024 x 1024 switches with 64 parallel links: refused at once, with the estimate and its keys.
  const outcome huge = netasic_cli("run " + demo + " --set topology.leaves=1024 --set topology.spines=1024 "
                               "--set topology.parallel_links=64 --set 'pfc.priorities=[]' --out " + (d / "a").string());
  expect_refused(huge, "this configuration needs about ");
  EXPECT_NE(huge.output.find("67125248 links x 1.3 KiB"), std::string::npos) << huge.output;
  EXPECT_NE(huge.output.find("topology.leaves, topology.spines, topology.parallel_links"), std::string::npos) << huge.output;
  EXPECT_FALSE(fs::exists(d / "a"));
  // A limit the user sets is named; the same small run passes under a limit above its needs.
  expect_refused(netasic_cli("run " + demo + tiny + " --set sim.max_memory=5 --out " + (d / "b").string()), "key 'sim.max_memory'");
  const outcome ok = netasic_cli("run " + demo + tiny + " --set sim.max_memory=1000 --out " + (d / "c").string());
  ASSERT_EQ(ok.code, 0) << ok.output;
  // The estimate is within a factor of two of the measured peak, on a leaf-spine and a fat tree.
  // Not under AddressSanitizer (make test-sanitize): its shadow memory and redzones are part of
  // the measured peak, several times the model's own bytes.
#if defined(__SANITIZE_ADDRESS__)
  return;
#endif
  for (const std::string& run : {"run " + demo + " --set sim.duration=1 --set sim.drain=1 --quiet --out " + (d / "ls").string(),
                                 "run " NETASIC_SOURCE_DIR "/scenarios/fat_tree_k8.toml --set sim.duration=1 --set sim.drain=1 --quiet --out " +
                                     (d / "ft").string()}) {
    ASSERT_EQ(netasic_cli(run).code, 0) << run;
  }
  for (const char* dir : {"ls", "ft"}) {
    const std::string s = slurp(d / dir / "summary.json");
    std::smatch est, peak;
    ASSERT_TRUE(std::regex_search(s, est, std::regex(R"("memory_estimate_bytes": ([0-9]+))")));
    ASSERT_TRUE(std::regex_search(s, peak, std::regex(R"("peak_memory_bytes": ([0-9]+))")));
    const double ratio = std::stod(est[1]) / std::stod(peak[1]);
    EXPECT_GT(ratio, 0.5) << dir;
    EXPECT_LT(ratio, 2.0) << dir;
  }
}

// Every key of `netasic params` at the ends of its range (the upper end where it is at most
// 10^5), every choice and both booleans, each alone on the demo over 20 us: the run either
// completes (0) or is refused, before its run directory is made, with an error that names the key
// or a file line (2); never an internal error, a broken packet count, a crash or a hang. This
// sweep found a crash (Sundial's 10 ns sync interval) and a mid-run stop (HPCC at 1 Mbps). About
// a minute.
TEST(CliInput, EveryKeyAtTheEndsOfItsRangeRunsOrIsRefused) {
  const fs::path d = scratch("cli_input", "ranges");
  const outcome params = netasic_cli("params");
  ASSERT_EQ(params.code, 0) << params.output;
  std::istringstream lines(params.output);
  std::string line;
  std::getline(lines, line);   // the header
  const std::regex columns(R"(^(\S+)\s{2,}(\S+)\s{2,}(.+?)\s{2,}(\S+)\s{2,}(.+?)\s{2,}.*$)");
  const std::regex range(R"(^\[([-0-9.e+]+), ([-0-9.e+]+)\])");
  size_t runs = 0, refused = 0;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, columns)) continue;
    const std::string key = m[1], type = m[2], range_text = m[5];
    if (key == "sim.duration" || key == "sim.drain") continue;   // the test's own
    std::vector<std::string> values;
    std::smatch r;
    if ((type == "integer" || type == "real") && std::regex_search(range_text, r, range)) {
      values.push_back(r[1]);
      if (std::stod(r[2]) <= 1e5) values.push_back(r[2]);
    } else if (type == "choice") {
      std::istringstream choices(range_text);
      for (std::string c; std::getline(choices, c, '|');) values.push_back("'\"" + c + "\"'");
    } else if (type == "boolean") {
      values = {"true", "false"};
    }
    for (const std::string& v : values) {
      fs::remove_all(d / "run");
      const outcome o = shell("timeout 120 " + std::string(NETASIC_BINARY) + " run " + demo + " --quiet --out " + (d / "run").string() +
                              " --set sim.duration=20 --set sim.drain=200 --set 'sim.unused_keys=\"warn\"' --set " + key + "=" + v);
      ++runs;
      EXPECT_TRUE(o.code == 0 || o.code == 2) << key << "=" << v << ": exit " << o.code << "\n" << o.output;
      if (o.code == 2) {
        ++refused;
        EXPECT_NE(o.output.find("error: "), std::string::npos) << key << "=" << v << ": " << o.output;
        const bool named = o.output.find("key '") != std::string::npos || std::regex_search(o.output, std::regex(R"(\.toml:[0-9]+: )"));
        EXPECT_TRUE(named) << key << "=" << v << ": refused without naming a key or a file line: " << o.output;
        EXPECT_FALSE(fs::exists(d / "run")) << key << "=" << v << ": refused only after the run began";
      }
    }
  }
  EXPECT_GT(runs, 300u);     // the table was read
  EXPECT_GT(refused, 30u);   // and some ends are refused (an unused key alone only warns)
  ::testing::Test::RecordProperty("runs", int(runs));
  ::testing::Test::RecordProperty("refused", int(refused));
}
