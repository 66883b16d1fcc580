#include "cosim_run.h"

#include "cosim_bench.h"

#include <chrono>
#include <sstream>
#include <stdexcept>

namespace netasic::cosim {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Cycles per second of `cycles` steps on side `s` of a fresh bench.
double time_side(const std::string& block, side s, const run_options& opt) {
  auto b = make_bench(block, opt.params);
  b->reset(opt.seed);
  std::vector<mismatch> unused;
  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t c = 0; c < opt.cycles; ++c) b->step(s, unused);
  const double sec = seconds_since(t0);
  return sec > 0 ? double(opt.cycles) / sec : 0;
}

// Replays the run from the start (the stimulus is a function of the seed) and dumps only the
// cycles [first, last] of the RTL, so the VCD stays small however long the run was.
void write_window(const std::string& block, const run_options& opt, uint64_t first, uint64_t last,
                  const std::string& file) {
  auto b = make_bench(block, opt.params);
  b->reset(opt.seed);
  VerilatedVcdC vcd;
  b->trace(&vcd);
  vcd.open(file.c_str());
  b->trace(nullptr);
  std::vector<mismatch> diffs;
  for (uint64_t c = 0; c <= last; ++c) {
    if (c == first) b->trace(&vcd);
    b->step(side::both, diffs);
  }
  b->trace(nullptr);
  vcd.close();
}

}  // namespace

run_result run(const std::string& block, const run_options& opt) {
  run_result r;
  auto b = make_bench(block, opt.params);   // throws for an unknown block or set
  b->reset(opt.seed);
  VerilatedVcdC vcd;
  if (!opt.vcd.empty()) {
    b->trace(&vcd);
    vcd.open(opt.vcd.c_str());
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t c = 0; c < opt.cycles; ++c) {
    b->step(side::both, r.diffs);
    ++r.cycles;
    if (!r.diffs.empty()) {
      r.match = false;
      r.mismatch_cycle = c;
      break;
    }
  }
  const double sec = seconds_since(t0);
  r.lockstep_cps = sec > 0 ? double(r.cycles) / sec : 0;
  if (!opt.vcd.empty()) {
    b->trace(nullptr);
    vcd.close();
  }
  if (!r.match) {
    r.mismatch_vcd = opt.mismatch_vcd.empty() ? block + "_mismatch.vcd" : opt.mismatch_vcd;
    const uint64_t first = r.mismatch_cycle > opt.window ? r.mismatch_cycle - opt.window : 0;
    write_window(block, opt, first, r.mismatch_cycle + 4, r.mismatch_vcd);
  } else if (opt.timing) {
    r.core_cps = time_side(block, side::core, opt);
    r.rtl_cps = time_side(block, side::rtl, opt);
  }
  return r;
}

std::string describe(const std::string& block, const run_options& opt, const run_result& r) {
  std::ostringstream o;
  auto b = make_bench(block, opt.params);
  o << "cosim " << block << "  (" << b->parameters() << ")  seed " << opt.seed << "\n";
  if (r.match) {
    o << "  " << r.cycles << " cycles, every output equal in every cycle\n";
    if (r.core_cps > 0) {
      o.setf(std::ios::fixed);
      o.precision(2);
      o << "  core alone  " << r.core_cps / 1e6 << " Mcycles/s\n"
        << "  RTL alone   " << r.rtl_cps / 1e6 << " Mcycles/s\n"
        << "  lockstep    " << r.lockstep_cps / 1e6 << " Mcycles/s\n";
    }
  } else {
    o << "  MISMATCH at cycle " << r.mismatch_cycle << " (of " << opt.cycles << "):\n";
    for (const auto& d : r.diffs)
      o << "    " << d.signal << ": core " << d.core << " (0x" << std::hex << d.core << ")  rtl " << std::dec
        << d.rtl << " (0x" << std::hex << d.rtl << std::dec << ")\n";
    o << "  waveform of cycles " << (r.mismatch_cycle > opt.window ? r.mismatch_cycle - opt.window : 0) << ".."
      << r.mismatch_cycle + 4 << ": " << r.mismatch_vcd << "\n";
  }
  return o.str();
}

}  // namespace netasic::cosim
