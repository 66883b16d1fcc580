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

// Owns a Verilated model and its clock; clocks it with one rising edge per cycle and dumps both
// edges while a VCD is attached. Every block's top has `clk` and an active-high `rst`.
template <class V>
class dut {
 public:
  dut() : ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->traceEverOn(true);
    m_ = std::make_unique<V>(ctx_.get());
  }
  ~dut() {
    if (vcd_) vcd_->flush();
    m_->final();
  }
  V* operator->() { return m_.get(); }
  const V* operator->() const { return m_.get(); }

  // Inputs are set by the caller before tick(); outputs read after it are the registered
  // values of the edge just taken.
  void tick() {
    m_->clk = 0;
    m_->eval();
    dump();
    ctx_->timeInc(half_period_ps);
    m_->clk = 1;
    m_->eval();
    dump();
    ctx_->timeInc(half_period_ps);
  }
  void reset(unsigned cycles = 2) {
    m_->rst = 1;
    for (unsigned i = 0; i < cycles; ++i) tick();
    m_->rst = 0;
  }
  void trace(VerilatedVcdC* vcd) {
    if (vcd && !traced_) {
      m_->trace(vcd, 99);
      traced_ = true;
    }
    vcd_ = vcd;
  }
  static constexpr uint64_t half_period_ps = 500;   // VCD time only: 1 ns cycles

 private:
  void dump() {
    if (vcd_) vcd_->dump(ctx_->time());
  }
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<V> m_;
  VerilatedVcdC* vcd_ = nullptr;
  bool traced_ = false;
};

// A fresh bench for `block`; std::invalid_argument naming the benches there are otherwise.
std::unique_ptr<bench> make_bench(const std::string& block);

}  // namespace netasic::cosim
