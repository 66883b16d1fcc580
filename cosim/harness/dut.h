// A Verilated block and its clock, shared by the cosim benches and the RTL-in-the-loop adapters.
#pragma once
#include <verilated.h>
#include <verilated_vcd_c.h>

#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

namespace netasic::cosim {

// Verilator finds a rising edge by comparing `clk` with its level at the model's previous eval,
// so clocking a cycle takes two evals (clk low, then high), and each runs the logic fed by the
// inputs. Verilator 5.006 keeps that level in the model's root as __Vtrigrprev__TOP__clk; where
// the root has it, a cycle lowers it and takes one eval, clk high. Other Verilator versions name
// it otherwise: there the trait is false and the cycle takes its two evals, as before. Every file
// that clocks a model includes its root header (V<name>___024root.h), so the choice is the same
// in all of them.
template <class Root, class = void>
struct remembers_clock : std::false_type {};
template <class Root>
struct remembers_clock<Root, std::void_t<decltype(std::declval<Root&>().__Vtrigrprev__TOP__clk)>> : std::true_type {};

// Owns a Verilated model and its clock; clocks it with one rising edge per cycle and dumps both
// edges while a VCD is attached. Every block's top has `clk` and an active-high `rst`.
template <class V>
class dut {
 public:
  dut() : own_(std::make_unique<VerilatedContext>()), ctx_(own_.get()) {
    ctx_->traceEverOn(true);
    m_ = std::make_unique<V>(ctx_);
  }
  // A model in a context shared with many others (an adapter with thousands of small models:
  // a context costs more memory than a stateful ALU's model). Its time is the context's, so
  // such a model is not traced.
  explicit dut(VerilatedContext& shared) : ctx_(&shared) { m_ = std::make_unique<V>(ctx_); }
  ~dut() {
    if (vcd_) vcd_->flush();
    m_->final();
    // A model with public signals (the flowlet table's timer) erases its scopes from the thread's
    // current context, not its own (Verilator 5.006): name its own, or it locks another's mutex,
    // perhaps one already freed, and the process hangs at exit.
    Verilated::threadContextp(ctx_);
    m_.reset();
  }
  V* operator->() { return m_.get(); }
  const V* operator->() const { return m_.get(); }
  V& operator*() { return *m_; }
  const V& operator*() const { return *m_; }

  // Inputs are set by the caller before tick(); outputs read after it are the registered
  // values of the edge just taken.
  void tick() {
    if (cycles_) ++*cycles_;
    // The low half needs an eval of its own only where the model cannot be told the clock was
    // low (remembers_clock), and while tracing, so that the falling edge's dump holds the cycle's
    // inputs; settle() may have given it already. Inputs set after it are evaluated by the rising
    // edge's eval before its flip-flops, as by a low eval of their own.
    if (!low_ || vcd_) {
      if (one_eval_a_cycle && !vcd_) {
        forget_clock();
      } else {
        m_->clk = 0;
        m_->eval();
      }
    }
    dump();
    ctx_->timeInc(half_period_ps);
    m_->clk = 1;
    m_->eval();
    low_ = false;
    dump();
    ctx_->timeInc(half_period_ps);
  }
  // The first half of a cycle: the clock low and the inputs set so far evaluated, so that
  // outputs that depend on them combinationally can be read before the edge; tick() takes it.
  void settle() {
    m_->clk = 0;
    m_->eval();
    low_ = true;
  }
  // Adds each cycle tick() takes to *cycles (an RTL-in-the-loop block's count, summed over its models).
  void count_cycles(uint64_t* cycles) { cycles_ = cycles; }
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
  using root = std::remove_pointer_t<decltype(std::declval<V&>().rootp)>;
  static_assert(sizeof(root) > 0, "include the model's root header, V<name>___024root.h");
  static constexpr bool one_eval_a_cycle = remembers_clock<root>::value;

 private:
  void dump() {
    if (vcd_) vcd_->dump(ctx_->time());
  }
  void forget_clock() {   // the model's memory of clk: low, as a low eval would have left it
    if constexpr (one_eval_a_cycle) m_->rootp->__Vtrigrprev__TOP__clk = 0;
  }
  std::unique_ptr<VerilatedContext> own_;   // null when the context is shared
  VerilatedContext* ctx_;
  std::unique_ptr<V> m_;
  VerilatedVcdC* vcd_ = nullptr;
  bool traced_ = false;
  bool low_ = false;   // the last eval was settle()'s, clock low
  uint64_t* cycles_ = nullptr;
};

}  // namespace netasic::cosim
