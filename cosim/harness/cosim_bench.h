// A cosimulation bench: one block's Verilated RTL and its C++ core driven by the same stimulus,
// cycle by cycle, with every output compared (DESIGN: "one golden core, two timings").
//
// A bench draws the stimulus of each cycle from its own rng, so the stimulus is the same whether
// the cycle runs on the core alone, on the RTL alone, or on both in lockstep; the harness
// (cosim_run.h) uses the first two to time each side and the third to compare them. A bench
// that knows its RTL's pipeline latency lines the core's outputs up with it before comparing.
#pragma once
#include <verilated.h>
#include <verilated_vcd_c.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cosim/harness/dut.h"
#include "cosim_run.h"

namespace netasic::cosim {

enum class side { core, rtl, both };

class bench {
 public:
  virtual ~bench() = default;
  // Fresh core and RTL (reset held for a few cycles), stimulus generator seeded. Cycle 0 next.
  virtual void reset(uint64_t seed) = 0;
  // One clock cycle: draw the stimulus, apply it to `s`, clock, and (s == both) append every
  // output that differs to `out`.
  virtual void step(side s, std::vector<mismatch>& out) = 0;
  // The Verilog parameters the RTL was built with, as "NAME=value ...", for the printout.
  virtual std::string parameters() const = 0;
  // Start or stop writing the RTL's signals (nullptr stops). Only dumps while attached.
  virtual void trace(VerilatedVcdC* vcd) = 0;
};

// One output compared: a difference is appended to `out`. The append is out of line and cold, so
// that a compare that holds costs a compare and a branch, not a mismatch's construction.
[[gnu::cold, gnu::noinline]] inline void report_mismatch(std::vector<mismatch>& out, const char* signal, uint64_t core,
                                                         uint64_t rtl) {
  out.push_back({signal, core, rtl});
}
inline void compare_output(std::vector<mismatch>& out, const char* signal, uint64_t core, uint64_t rtl) {
  if (core != rtl) report_mismatch(out, signal, core, rtl);
}

// A fresh bench for `block` at the parameter set `params` ("NAME=VALUE", empty = the RTL's
// defaults); std::invalid_argument naming the benches, or the block's sets, there are otherwise.
std::unique_ptr<bench> make_bench(const std::string& block, const std::vector<std::string>& params = {});

}  // namespace netasic::cosim
