// netasic: the command line. `run` simulates one scenario, `sweep` runs a grid of them (each
// point in its own process), `size` searches a parameter for the smallest value that meets
// goals, `params` lists every configuration key.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include <CLI/CLI.hpp>
#include <systemc>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli.h"
#include "common/params.h"
#include "cosim/harness/cosim_run.h"
#include "cosim/harness/rtl_loop_register.h"
#include "run/run.h"
#include "output/format.h"
#include "output/fst_writer.h"
#include "run/paths_report.h"
#include "run/resources_report.h"
#include "run/run_outputs.h"
#include "scenario/scenario.h"
#include "size.h"
#include "sweep.h"
#include "synth.h"

namespace {

using netasic::config_error;

using netasic::exit_accounting;
using netasic::exit_config;
using netasic::exit_internal;
using netasic::exit_mismatch;
using netasic::exit_no_fit;
using netasic::exit_ok;
using netasic::option_uint;

// Numeric options are read as text and checked strictly after parsing (option_uint): CLI11
// would saturate an out-of-range number instead of refusing it.
struct numeric_option {
  std::string name, text;
  uint64_t lo, hi;
  bool given() const { return !text.empty(); }
  uint64_t value() const { return option_uint(name, text, lo, hi); }
};
constexpr uint64_t max_seed = uint64_t(std::numeric_limits<int64_t>::max());   // sim.seed's range

// SystemC prints its banner unless this is set before the kernel starts.
const bool no_banner = setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 1) == 0;

// A progress line on stderr unless --quiet: redrawn on a terminal, paced lines in a log.
netasic::progress_mode progress_of(bool quiet) {
  return quiet ? netasic::progress_mode::none
               : isatty(STDERR_FILENO) ? netasic::progress_mode::terminal : netasic::progress_mode::lines;
}

// One "error: " line per problem (a scenario file may have several).
void print_error(const std::string& what) {
  size_t start = 0;
  for (size_t nl; (nl = what.find('\n', start)) != std::string::npos; start = nl + 1)
    std::cerr << "error: " << what.substr(start, nl - start) << "\n";
  if (start < what.size()) std::cerr << "error: " << what.substr(start) << "\n";
}

// A summary section that only some runs have: null when absent (operator[] of a const json on a
// missing key is undefined behaviour, not null).
const nlohmann::json& section(const nlohmann::json& s, const char* key) {
  static const nlohmann::json none;
  const auto it = s.find(key);
  return it == s.end() ? none : *it;
}

void print_summary(const nlohmann::json& s, const std::string& dir, const char* waves) {
  const auto& p = s["packets"];
  const auto& f = s["flows"];
  const auto& fct = s["fct_slowdown"];
  auto row = [](const std::string& k, const std::string& v) { std::cout << fmt::format("  {:<24} {}\n", k, v); };
  std::cout << fmt::format("netasic run: {} (seed {})\n", s["scenario"].get<std::string>(), s["seed"].get<int64_t>());
  row("simulated time", fmt::format("{:.3f} ms", s["sim_time_s"].get<double>() * 1e3));
  row("wall time", fmt::format("{:.2f} s", s["wall_time_s"].get<double>()));
  row("packet-hops", fmt::format("{} ({}/s)", s["packet_hops"].get<uint64_t>(),
                                 netasic::si(s["packet_hops_per_s"].get<double>(), "hops")));
  row("peak memory", fmt::format("{:.1f} MiB", double(s["peak_memory_bytes"].get<uint64_t>()) / 1048576.0));
  row("packets", fmt::format("{} sent = {} delivered + {} dropped + {} in flight", p["sent"].get<uint64_t>(),
                             p["delivered"].get<uint64_t>(), p["dropped"].get<uint64_t>(), p["in_flight"].get<uint64_t>()));
  row("flows", fmt::format("{} completed of {} started ({} total)", f["completed"].get<uint64_t>(),
                           f["started"].get<uint64_t>(), f["total"].get<uint64_t>()));
  row("retransmissions", fmt::format("{} packets, {} timeouts", f["retransmitted_packets"].get<uint64_t>(),
                                     f["timeouts"].get<uint64_t>()));
  row("FCT slowdown", fmt::format("p50 {:.2f}x  p95 {:.2f}x  p99 {:.2f}x", fct["p50"].get<double>(),
                                  fct["p95"].get<double>(), fct["p99"].get<double>()));
  const std::string peak_port = s["queue"]["peak_port"].get<std::string>();
  row("peak queue", fmt::format("{} bytes{}", s["queue"]["peak_bytes"].get<uint64_t>(),
                                peak_port.empty() ? " (no queue formed)" : " at " + peak_port));
  const auto& pfc = s["pfc"];
  double paused_s = pfc["host_pause_time_s"].get<double>();
  for (const auto& t : pfc["switch_port_pause_time_s_by_priority"]) paused_s += t.get<double>();
  row("PFC", fmt::format("{} pause frames, {:.1f} us paused over all ports{}", pfc["pause_frames_sent"].get<uint64_t>(),
                         paused_s * 1e6,
                         pfc["most_paused"].get<std::string>().empty() ? std::string()
                             : fmt::format(" (most: {}, {:.1f} us)", pfc["most_paused"].get<std::string>(),
                                           pfc["most_paused_time_s"].get<double>() * 1e6)));
  if (const auto& rt = section(s, "routing"); rt.is_object())
    row("routes", fmt::format("{}: {}", rt["kind"].get<std::string>(),
                              rt["cbd_free"].get<bool>() ? std::string("no cyclic buffer dependency (static check)")
                                                         : "CYCLIC BUFFER DEPENDENCY " + rt["cbd_cycle"].get<std::string>()));
  row("ECN, INT", fmt::format("{} packets marked CE, {} INT records written", s["ecn_marked_packets"].get<uint64_t>(),
                              s["int_records_written"].get<uint64_t>()));
  const auto& lbj = s["load_balancer"];
  row("load balancing", fmt::format("{}: {} path changes, {} packets out of order (farthest {} ahead){}", lbj["mode"].get<std::string>(),
                                    f["path_changes"].get<uint64_t>(), f["out_of_order_packets"].get<uint64_t>(),
                                    f["max_reorder_packets"].get<uint64_t>(),
                                    lbj.contains("new_flowlets") ? fmt::format("; {} flowlets, table peak {} of {} entries",
                                                                               lbj["new_flowlets"].get<uint64_t>(), lbj["peak_table_occupancy"].get<uint64_t>(),
                                                                               lbj["table_entries"].get<uint64_t>())
                                                                 : std::string()));
  if (s.contains("mirror")) {
    const auto& m = s["mirror"];
    row("mirror", fmt::format("{} copies made, {} delivered ({:.1f} KiB), {} dropped", m["copies_made"].get<uint64_t>(),
                              m["copies_delivered"].get<uint64_t>(), m["bytes_delivered"].get<double>() / 1024,
                              m["copies_dropped"].get<uint64_t>()));
  }
  if (s.contains("clock")) {   // the clock layer: epsilon per algorithm, the bound, the failures
    const auto& c = s["clock"];
    auto t = [](double ns) {
      return ns >= 1e6 ? fmt::format("{:.3g} ms", ns / 1e6) : ns >= 1e3 ? fmt::format("{:.3g} us", ns / 1e3) : fmt::format("{:.3g} ns", ns);
    };
    std::string eps, failures;
    uint64_t violations = 0, checks = 0;
    for (const auto& a : c["algorithms"]) {
      const std::string name = a.get<std::string>();
      const auto& r = c[name];
      eps += fmt::format("{}{} p99 {} max {}", eps.empty() ? "" : ", ", name, t(r["epsilon_p99_ns"].get<double>()),
                         t(r["epsilon_max_ns"].get<double>()));
      violations += r["bound_violations"].get<uint64_t>();
      checks += r["bound_checks"].get<uint64_t>();
      for (const auto& f : r["failures"])
        failures += fmt::format("{}{} {}", failures.empty() ? "; outage: " : ", ", name,
                                f["affected_devices"].get<uint64_t>() == 0 ? std::string("(none affected)")
                                : !f["recovered"].get<bool>()               ? std::string("not recovered in the run")
                                : f["max_outage_us"].is_null()              ? std::string("(last message before the run)")
                                                                            : t(f["max_outage_us"].get<double>() * 1e3));
    }
    row("clock epsilon", eps);
    row("clock bound", fmt::format("{} violations in {} checks{}", violations, checks, failures));
  }
  if (const auto& r = section(s, "resources"); r.is_object())
    row("resources", fmt::format("{} on target {}: {} of {} SRAM blocks, {} of {} stateful ALUs ({})",
                                 r["fits"].get<bool>() ? "fits" : "does NOT fit", r["target"].get<std::string>(),
                                 r["sram_blocks"].get<uint64_t>(), r["sram_budget_blocks"].get<uint64_t>(),
                                 r["stateful_alus"].get<uint64_t>(), r["stateful_alu_budget_alus"].get<uint64_t>(),
                                 r["switch_group"].get<std::string>()));
  if (const auto& rtl = section(s, "rtl_in_loop"); rtl.is_object())   // --rtl: what each block's RTL did
    for (const auto& [block, n] : rtl.items())
      row("RTL in the loop", fmt::format("{}: {} calls answered, {} cycles clocked, {} quiet cycles stepped over", block,
                                         n["calls"].get<uint64_t>(), n["cycles"].get<uint64_t>(),
                                         n["quiet_cycles_skipped"].get<uint64_t>()));
  const nlohmann::json& d = section(s, "deter");
  if (d.is_object() && d["mode"] == "record")
    row("deter record", fmt::format("{:.0f} bytes/host/s = {:.3f}% of a full capture ({:.3g} bytes/host/s); deter.rec, deter_queues.bin",
                                    d["record_bytes_per_host_per_s"].get<double>(), d["record_over_pcap_percent"].get<double>(),
                                    d["pcap_bytes_per_host_per_s"].get<double>()));
  else if (d.is_object())
    row("deter replay", fmt::format("qdiff avg {:.2f} / p99 {:.2f} / max {:.2f} MTU; drop error {:.2f}% ({} run drops); deter_qdiff.csv",
                                    d["qdiff_avg_mtu"].get<double>(), d["qdiff_p99_mtu"].get<double>(), d["qdiff_max_mtu"].get<double>(),
                                    100 * d["drop_error"].get<double>(), d["run_drops"].get<uint64_t>()));
  row("outputs", dir + "/ (report.html, summary.json, flows.csv, links.csv, probes.csv, config.toml" +
                     (waves ? fmt::format(", {}, waves.gtkw)", waves) : ")"));
  if (const auto& p = section(s, "pcap"); p.is_array()) {
    uint64_t frames = 0;
    for (const auto& f : p) frames += f["frames"].get<uint64_t>();
    row("pcap", fmt::format("{} files in {}/pcap/, {} frames", p.size(), dir, frames));
  }
}

// The keys that set a Verilog parameter of a block with RTL: each `--rtl` block's fixed keys,
// whose last part upper-cased names a parameter of rtl/BLOCK.sv (lb.flowlet.entries: ENTRIES).
std::map<std::string, std::pair<std::string, std::string>> rtl_parameter_keys(const std::string& rtl_dir) {
  std::map<std::string, std::pair<std::string, std::string>> out;
  for (const std::string& block : netasic::rtl_loop_block_names()) {
    std::ifstream in(rtl_dir + "/" + block + ".sv");
    std::stringstream sv;
    sv << in.rdbuf();
    for (const auto& [key, value] : netasic::rtl_loop_block_of(block).fixed_keys) {
      std::string name = key.substr(key.rfind('.') + 1);
      for (char& c : name) c = char(std::toupper(static_cast<unsigned char>(c)));
      if (sv.str().find("parameter int " + name + " ") != std::string::npos) out[key] = {block, name};
    }
  }
  return out;
}

}  // namespace

// SystemC's own main() calls this (sc_elab_and_sim), so the kernel is set up the standard way.
int sc_main(int argc, char** argv) {
  CLI::App app{"netasic: cycle-approximate SystemC/TLM model of datacenter switch ASICs and SmartNICs"};
  app.require_subcommand(1);

  // run
  std::string scenario, out_dir;
  std::vector<std::string> sets;
  numeric_option seed{"--seed", "", 0, max_seed};
  bool fst = false, quiet = false;
  std::string vcd_patterns;
  std::vector<std::string> rtl_in_loop;
  std::string pcap_ports;
  auto* run = app.add_subcommand("run", "Simulate one scenario and write its run directory");
  run->add_option("scenario", scenario, "Scenario TOML file")->required()->check(CLI::ExistingFile);
  run->add_option("--set", sets, "Override a key: --set topology.leaves=4 (repeatable)");
  run->add_option("--seed", seed.text, "Random seed, 0 to 2^63-1 (same as --set sim.seed=N)");
  // An empty --out would silently mean the default directory: refused instead.
  const CLI::Validator non_empty_dir([](std::string& v) { return v.empty() ? std::string("is empty: give a directory, or leave --out out for the default") : std::string(); },
                                     "DIR");
  run->add_option("--out", out_dir, "Run directory (default out/<scenario file name>)")->check(non_empty_dir);
  auto* vcd_opt = run->add_option("--vcd", vcd_patterns,
                                  "Also write waves.vcd and waves.gtkw: every change of the signals these comma-separated "
                                  "globs name, at its exact time (e.g. 'leaf0.*,spine*.port0.pfc_pause.*'; see "
                                  "docs/outputs.md). Without patterns: the first switch's queues, PFC pause levels, "
                                  "ECN marks and tables (leaf0 in a leaf-spine), which keeps the demo's file small")
                      ->expected(0, 1)
                      ->check(CLI::Validator(
                          [](std::string& v) {
                            // A bare --vcd before the scenario would take the scenario's path as its pattern.
                            const bool toml = v.size() > 5 && v.compare(v.size() - 5, 5, ".toml") == 0;
                            return toml ? "'" + v + "' is a scenario file, not a signal pattern: put a bare --vcd after the scenario" : std::string();
                          },
                          "PATTERNS"));
  run->add_flag("--fst", fst, "With --vcd's signals: write waves.fst (GTKWave's compressed format) instead of waves.vcd, "
                              "for long runs");
  run->add_flag("--quiet", quiet, "No progress and no summary table");
  run->add_option("--pcap", pcap_ports, "Capture these ports to pcap files in the run directory's pcap/: "
                                        "NODE:PORT, NODE:* or NODE, comma-separated (e.g. leaf0:2,host5)");
  run->add_option("--rtl", rtl_in_loop, "Run this block's Verilated RTL instead of its C++ core (repeatable): " +
                                            fmt::format("{}", fmt::join(netasic::rtl_loop_block_names(), ", ")))
      ->check(CLI::IsMember(netasic::rtl_loop_block_names()));

  // sweep
  netasic::sweep_options sw;
  numeric_option sweep_seed{"--seed", "", 0, max_seed}, sweep_jobs{"--jobs", "", 1, 4096}, sweep_seeds{"--seeds", "", 1, 1000};
  auto* sweep = app.add_subcommand("sweep", "Run every point of a parameter grid, each in its own process");
  sweep->add_option("scenario", sw.scenario, "Scenario TOML file")->required()->check(CLI::ExistingFile);
  sweep->add_option("--grid", sw.grid, "key=v1,v2,... (repeatable; the cartesian product is run)")->required();
  sweep->add_option("--set", sw.sets, "Override a key at every point (repeatable)");
  sweep->add_option("-j,--jobs", sweep_jobs.text, "Points run at once, 1 to 4096 (default: one per CPU)");
  sweep->add_option("--seed", sweep_seed.text, "Random seed for every point, 0 to 2^63-1");
  sweep->add_option("--out", sw.out_dir, "Sweep directory (default out/sweep-<scenario file name>)")->check(non_empty_dir);
  sweep->add_option("--metric", sw.metrics, "summary.json path to plot, e.g. fct_slowdown.p99 (repeatable)");
  sweep->add_option("--emit", sw.emit, "Write a cluster job file instead of running: slurm or parallel")
      ->check(CLI::IsMember({"slurm", "parallel"}));
  sweep->add_flag("--collect", sw.collect, "Run nothing: gather the points an --emit sweep left in --out");
  sweep->add_flag("--missing", sw.missing, "With --collect: list the runs with no complete run directory and how to rerun them");
  sweep->add_flag("--quiet", sw.quiet, "No progress lines");
  sweep->add_option("--seeds", sweep_seeds.text, "Run each point over N seeds, 1 to 1000 (sim.seed, sim.seed + 1, ...): mean, min, max, CI");
  sweep->add_option("--confidence", sw.confidence, "Confidence of the interval with --seeds (default 0.95)")
      ->check(CLI::Range(0.5, 0.999));

  // size
  netasic::size_options sz;
  numeric_option size_seed{"--seed", "", 0, max_seed}, size_jobs{"--jobs", "", 1, 4096}, size_seeds{"--seeds", "", 2, 1000},
      size_max_seeds{"--max-seeds", "", 2, 100000};
  bool size_no_synth = false;
  auto* size = app.add_subcommand("size", "Find the smallest value of a parameter that meets every goal (docs/sizing.md)");
  size->add_option("scenario", sz.scenario, "Scenario TOML file")->required()->check(CLI::ExistingFile);
  size->add_option("--param", sz.param, "The numeric key to size, e.g. lb.flowlet.entries")->required();
  size->add_option("--goal", sz.goals, "METRIC OP VALUE, e.g. \"fct_slowdown.p99 <= 1.05 * ref\" (repeatable)")->required();
  size->add_option("--ref", sz.refs, "key=value of the reference run that `ref` means (repeatable)");
  size->add_option("--values", sz.values, "Candidate values: 1024,2048,...");
  size->add_option("--pow2", sz.pow2, "Candidate values: every power of two MIN..MAX");
  size->add_option("--set", sz.sets, "Override a key at every run (repeatable)");
  size->add_option("--seeds", size_seeds.text, "Seeds per point, 2 to 1000 (default 3), from sim.seed up");
  size->add_option("--max-seeds", size_max_seeds.text, "Most seeds an undecided point grows to, 2 to 100000 (default 4 x --seeds)");
  size->add_option("--seed", size_seed.text, "First seed, 0 to 2^63-1 (default: the scenario's sim.seed)");
  size->add_option("--confidence", sz.confidence, "Confidence of each decision (default 0.95)")->check(CLI::Range(0.5, 0.999));
  size->add_option("-j,--jobs", size_jobs.text, "Runs at once, 1 to 4096 (default: one per CPU)");
  size->add_option("--out", sz.out_dir, "Output directory (default out/size-<scenario file name>)")->check(non_empty_dir);
  size->add_flag("--no-synth", size_no_synth, "Do not run Yosys on the block's RTL at each value");
  size->add_flag("--quiet", sz.quiet, "No progress lines");

  // params
  std::string prefix;
  bool markdown = false;
  auto* params = app.add_subcommand("params", "List every parameter: key, type, default, unit, range, meaning");
  params->add_option("prefix", prefix, "Only keys that start with this, e.g. topology");
  params->add_flag("--markdown", markdown, "Print the Markdown reference (docs/config-reference.md)");

  // resources
  std::string res_scenario;
  std::vector<std::string> res_sets;
  auto* resources = app.add_subcommand("resources", "Place each switch's tables and register arrays in the stage budget; say whether they fit");
  resources->add_option("scenario", res_scenario, "Scenario TOML file")->required()->check(CLI::ExistingFile);
  resources->add_option("--set", res_sets, "Override a parameter: key=value (repeatable)");
  std::string res_target;
  resources->add_option("--target", res_target, "Pipeline target: a name of targets/ or a target file (sets switch.target)");

  // paths
  std::string pa_scenario;
  std::vector<std::string> pa_sets;
  auto* paths = app.add_subcommand("paths", "Path statistics of a scenario's topology and the deadlock (CBD) check of its routes");
  paths->add_option("scenario", pa_scenario, "Scenario TOML file")->required()->check(CLI::ExistingFile);
  paths->add_option("--set", pa_sets, "Override a parameter: key=value (repeatable)");
  std::vector<std::string> pa_throughput;
  paths->add_option("--throughput", pa_throughput,
                    "Max-concurrent-flow throughput per host (fraction of host line rate) over the routing's paths for traffic "
                    "all_to_all, permutation (near-worst) or uniform:P[:SEED] (each ToR to a fraction P of ToRs); repeatable");
  double pa_gap = 0;
  bool pa_routed_only = false, pa_updown_only = false, pa_quiet = false;
  paths->add_option("--throughput-gap", pa_gap,
                    "Instead of the exact LP (GLPK's simplex, too slow past ~10^4 paths), bracket the throughput between a feasible "
                    "flow and a dual bound (Garg-Könemann) at most this fraction apart, e.g. 0.01 for 1%")
      ->check(CLI::Range(0.0, 1.0, "a fraction in (0, 1)"));
  paths->add_flag("--routed-only", pa_routed_only,
                  "Only the statistics of topology.routing's paths, not the up-down and shortest-path ones beside them (the "
                  "up-down statistics solve a min-cost flow per ToR pair: minutes past 1,000 ToRs)");
  paths->add_flag("--updown-only", pa_updown_only,
                  "Only the up-down statistics (every pair, or --sample-pairs): no shortest paths, and the routes of "
                  "topology.routing neither planned nor checked for CBD (most of the time and memory at thousands of ToRs)");
  paths->add_flag("--quiet", pa_quiet, "No progress line while the up-down statistics are computed");
  numeric_option pa_sample{"--sample-pairs", "", 1, std::numeric_limits<uint32_t>::max()};
  paths->add_option("--sample-pairs", pa_sample.text,
                    "Estimate the up-down statistics from this many ToR pairs drawn at random (from sim.seed) instead of every "
                    "pair: each mean with its 95% confidence interval; for fabrics of thousands of ToRs");

  // cosim
  std::string co_block;
  netasic::cosim::run_options co;
  bool co_no_timing = false;
  numeric_option co_cycles{"--cycles", "", 1, 10'000'000'000ull}, co_seed{"--seed", "", 0, UINT64_MAX};
  auto* cosim = app.add_subcommand("cosim", "Run a block's Verilated RTL against its C++ core in lockstep; print cycles per second");
  cosim->add_option("block", co_block, "Block: " + fmt::format("{}", fmt::join(netasic::cosim::bench_names(), ", ")))
      ->required()->check(CLI::IsMember(netasic::cosim::bench_names()));
  cosim->add_option("--cycles", co_cycles.text, "Lockstep cycles, 1 to 10^10 (default 100000)");
  cosim->add_option("--seed", co_seed.text, "Stimulus seed, 0 to 2^64-1 (default 1)");
  cosim->add_option("--vcd", co.vcd, "Write the RTL's signals for the whole run to this file");
  cosim->add_option("--mismatch-vcd", co.mismatch_vcd, "Where the cycles around a mismatch go (default BLOCK_mismatch.vcd)");
  cosim->add_flag("--no-timing", co_no_timing, "Skip timing the core and the RTL alone");
  cosim->add_option("-p,--param", co.params, "The bench's second parameter set (rtl/bench_sets.txt): -p ENTRIES=4096 (repeatable)");

  // synth
  std::string sy_block, rtl_dir = NETASIC_RTL_DIR;
  std::vector<std::string> sy_params;
  auto* synth = app.add_subcommand("synth", "Run Yosys on a block's RTL: logic cells, flip-flops and memory bits");
  synth->add_option("block", sy_block, "Block: " + fmt::format("{}", fmt::join(netasic::rtl_block_names(), ", ")))->required();
  synth->add_option("-p,--param", sy_params, "Override a Verilog parameter: -p ENTRIES=4096 (repeatable)");
  synth->add_option("--rtl-dir", rtl_dir, "Where the RTL is (default: the source tree's rtl/)");

  app.footer("\n" + netasic::exit_code_table());
  std::vector<std::string> subcommands;
  for (const CLI::App* sub : app.get_subcommands({})) subcommands.push_back(sub->get_name());
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // An unknown word where the subcommand belongs: say so and list the subcommands.
    if (argc > 1 && argv[1][0] != '-' && std::find(subcommands.begin(), subcommands.end(), argv[1]) == subcommands.end())
      print_error(netasic::unknown_subcommand(argv[1], subcommands));
    else print_error(e.what());
    std::cerr << "Run with --help for more information.\n";
    return exit_config;
  }

  try {
    if (*params) {
      if (markdown)
        std::cout << "# Configuration reference\n\nGenerated from the declarations in "
                     "`systemc/scenario/` by `netasic params --markdown` (`make docs`); a test keeps it "
                     "current. Scenario files set these keys in TOML tables (`[topology]` then `leaves = 8`); "
                     "`--set key=value` overrides any of them. Ranges are inclusive.\n\n"
                  << netasic::all_params().markdown();
      else {
        const auto& all = netasic::all_params();
        if (!prefix.empty() && std::none_of(all.all().begin(), all.all().end(),
                                            [&](const netasic::param_def& d) { return d.key.rfind(prefix, 0) == 0; })) {
          std::set<std::string> sections;
          for (const auto& d : all.all()) sections.insert(d.key.substr(0, d.key.find('.')));
          throw config_error(fmt::format("params: no key starts with '{}'; the sections are: {}", prefix, fmt::join(sections, ", ")));
        }
        all.print(std::cout, prefix);
      }
      return 0;
    }
    if (*cosim) {
      co.timing = !co_no_timing;
      if (co_cycles.given()) co.cycles = co_cycles.value();
      if (co_seed.given()) co.seed = co_seed.value();
      const auto r = netasic::cosim::run(co_block, co);
      std::cout << netasic::cosim::describe(co_block, co, r);
      return r.match ? 0 : exit_mismatch;
    }
    if (*synth) {
      std::cout << netasic::describe(netasic::synthesize(rtl_dir, sy_block, sy_params));
      return 0;
    }
    if (*resources) {
      bool fits = false;
      if (!res_target.empty()) res_sets.push_back("switch.target=" + res_target);
      std::cout << netasic::resources_report(netasic::load_scenario(res_scenario, res_sets), fits);
      return fits ? 0 : exit_no_fit;
    }
    if (*paths) {
      bool cbd_free = false;
      std::cout << netasic::paths_report(netasic::load_scenario(pa_scenario, pa_sets), cbd_free,
                                         {pa_throughput, pa_gap, pa_routed_only, pa_updown_only, pa_sample.given() ? pa_sample.value() : 0,
                                          progress_of(pa_quiet)});
      return 0;
    }
    if (*size) {
      if (size_seed.given()) sz.seed = size_seed.value();
      if (size_jobs.given()) sz.jobs = int(size_jobs.value());
      if (size_seeds.given()) sz.seeds = unsigned(size_seeds.value());
      if (size_max_seeds.given()) sz.max_seeds = unsigned(size_max_seeds.value());
      if (sz.out_dir.empty()) sz.out_dir = "out/size-" + std::filesystem::path(sz.scenario).stem().string();
      sz.synth = !size_no_synth;
      sz.rtl_dir = rtl_dir;
      sz.rtl_params = rtl_parameter_keys(rtl_dir);
      return netasic::run_size(sz);
    }
    if (*sweep) {
      if (sweep_seed.given()) sw.seed = sweep_seed.value();
      if (sweep_jobs.given()) sw.jobs = int(sweep_jobs.value());
      if (sweep_seeds.given()) sw.seeds = unsigned(sweep_seeds.value());
      if (sw.out_dir.empty()) sw.out_dir = "out/sweep-" + std::filesystem::path(sw.scenario).stem().string();
      // Every point's configuration is checked before any point runs.
      for (const auto& point : netasic::expand_grid(sw.grid)) {
        std::vector<std::string> point_sets = sw.sets;
        for (const auto& [key, value] : point)
          if (key != "seed") point_sets.push_back(key + "=" + value);
        netasic::load_scenario(sw.scenario, point_sets);
      }
      for (const auto& axis : netasic::parse_grid(sw.grid))
        if (const auto* def = netasic::all_params().find(axis.key)) sw.key_units[axis.key] = def->unit;
      // --seeds starts at the scenario's own seed (after --set) unless --seed says otherwise.
      if (sw.seeds > 0 && !sw.seed) sw.seed = uint64_t(netasic::load_scenario(sw.scenario, sw.sets).integer("sim.seed"));
      return netasic::run_sweep(sw);
    }
    if (seed.given()) sets.push_back(fmt::format("sim.seed={}", seed.value()));
    const netasic::config cfg = netasic::load_scenario(scenario, sets);
    for (auto b = rtl_in_loop.begin(); b != rtl_in_loop.end(); ++b)
      if (std::find(rtl_in_loop.begin(), b, *b) != b) throw config_error(fmt::format("--rtl {} is given twice", *b));
    for (const std::string& b : rtl_in_loop) {   // inject each asked-for block's adapter
      const netasic::rtl_loop_block& block = netasic::rtl_loop_block_of(b);
      if (const std::string lacks = block.unused(cfg); !lacks.empty())
        throw config_error(fmt::format("--rtl {}: the scenario does not use this block ({})", b, lacks));
      if (block.refuses)
        if (const auto [key, why] = block.refuses(cfg); !key.empty())
          throw config_error(fmt::format("{}: key '{}': is {}, but --rtl {} cannot take it: {}", cfg.origin(key), key,
                                         cfg.integer(key), b, why));
      for (const auto& [key, rtl_value] : block.fixed_keys)
        if (cfg.integer(key) != rtl_value)
          throw config_error(fmt::format("{}: key '{}': is {}, but --rtl {} was Verilated for {} (rebuild the RTL with that "
                                         "parameter, or run the core)", cfg.origin(key), key, cfg.integer(key), b, rtl_value));
      netasic::rtl_loop& loop = netasic::rtl_blocks();
      block.use(loop, &loop.counts[b]);
    }
    if (out_dir.empty()) out_dir = "out/" + std::filesystem::path(scenario).stem().string();
    const auto mode = progress_of(quiet);
    netasic::run_taps taps;
    taps.pcap_ports = pcap_ports;
    taps.run_dir = out_dir;
    taps.waves = vcd_opt->count() > 0 || fst;
    taps.wave_patterns = vcd_patterns;
    if (fst && !netasic::fst_available())
      throw config_error("--fst: this netasic was built without GTKWave's FST writer (Verilator's include/gtkwave); use --vcd");
    // The run directory is emptied and marked INCOMPLETE only once every check has passed.
    taps.checks_passed = [&] {
      netasic::prepare_run_dir(out_dir);
      netasic::on_interrupt_say(fmt::format("simulating {}: {} is marked INCOMPLETE", scenario, out_dir));
    };
    const netasic::run_result r = netasic::run_scenario(cfg, mode, taps);
    netasic::on_interrupt_say(fmt::format("writing {}: it is marked INCOMPLETE", out_dir));
    netasic::write_run_outputs(out_dir, cfg, r, fst);
    if (!quiet) print_summary(r.summary, out_dir, !r.waves ? nullptr : fst ? "waves.fst" : "waves.vcd");
    if (!r.accounting_ok) {
      const auto& p = r.summary["packets"];
      std::cerr << fmt::format("error: packet accounting broken: sent {} != delivered {} + dropped {} + in flight {}\n",
                               p["sent"].get<uint64_t>(), p["delivered"].get<uint64_t>(),
                               p["dropped"].get<uint64_t>(), p["in_flight"].get<uint64_t>());
      return exit_accounting;
    }
    return exit_ok;
  } catch (const config_error& e) {
    print_error(e.what());
    return exit_config;
  } catch (const std::invalid_argument& e) {   // a malformed --grid
    print_error(e.what());
    return exit_config;
  } catch (const std::exception& e) {
    print_error(e.what());
    return exit_internal;
  }
}
