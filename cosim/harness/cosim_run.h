// Runs a cosimulation bench: the lockstep comparison, the per-side speeds, and on a mismatch the
// report of the first differing cycle with a VCD of the cycles around it. Free of Verilator's
// headers, so that SystemC code can include it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace netasic::cosim {

// One output that differs in the cycle compared.
struct mismatch {
  std::string signal;
  uint64_t core = 0, rtl = 0;
};

// The benches this build has, by block name (benches.cpp lists them).
std::vector<std::string> bench_names();
// The parameter sets `block`'s bench is built at, as "NAME=VALUE ..." ("" = the RTL's defaults).
std::vector<std::string> bench_sets(const std::string& block);

struct run_options {
  std::vector<std::string> params;   // "NAME=VALUE": the bench's second set (rtl/bench_sets.txt), empty = defaults
  uint64_t cycles = 100000;
  uint64_t seed = 1;
  std::string vcd;              // whole lockstep run to this file ("" = none)
  std::string mismatch_vcd;     // where the window around a mismatch goes ("" = <block>_mismatch.vcd)
  uint64_t window = 32;         // cycles kept before the mismatch (and 4 after)
  bool timing = true;           // also time the core alone and the RTL alone
};

struct run_result {
  bool match = true;
  uint64_t cycles = 0;          // lockstep cycles run (up to and including a mismatch)
  uint64_t mismatch_cycle = 0;  // first differing cycle
  std::vector<mismatch> diffs;  // its differing outputs
  std::string mismatch_vcd;     // the window VCD written
  double core_cps = 0, rtl_cps = 0, lockstep_cps = 0;   // cycles per second
};

// Runs `block` for opt.cycles lockstep cycles; stops at the first mismatch. Throws
// std::invalid_argument for an unknown block.
run_result run(const std::string& block, const run_options& opt);

// The printout of a run: parameters, speeds and, on a mismatch, the cycle and both values.
std::string describe(const std::string& block, const run_options& opt, const run_result& r);

}  // namespace netasic::cosim
