// cosim::dut (cosim/harness/dut.h) clocks a Verilated model with one eval a cycle where the model
// keeps the clock's previous level where dut can lower it (Verilator 5.006), and with two (clock
// low, then high) while tracing. Under test: that the two give the same outputs in every cycle.
// Two hash units (rtl/crc_hash.sv, whose hash is logic fed straight by the inputs, the part an
// eval recomputes) take the same random inputs for thousands of cycles, some cycles with the low
// half evaluated first by settle(); one is traced (two evals a cycle), the other not. Control:
// on this Verilator the untraced one must take the one-eval path, or the comparison compares a
// path with itself.
#include <gtest/gtest.h>

#include "Vcrc_hash.h"
#include "Vcrc_hash___024root.h"
#include "common/rng.h"
#include "cosim/harness/dut.h"

using namespace netasic;

TEST(Dut, OneEvalACycleGivesTheOutputsOfTwo) {
  ASSERT_TRUE(cosim::dut<Vcrc_hash>::one_eval_a_cycle)
      << "this Verilator keeps the clock's previous level under another name than "
         "__Vtrigrprev__TOP__clk: every model now takes two evals a cycle (correct, slower); "
         "teach cosim::remembers_clock the new name";
  cosim::dut<Vcrc_hash> one, two;
  VerilatedVcdC vcd;
  two.trace(&vcd);
  vcd.open("/dev/null");
  one.reset();
  two.reset();
  rng r(77);
  uint64_t valid = 0;
  for (int cycle = 0; cycle < 20000; ++cycle) {
    const bool in_valid = r.below(4) != 0;
    const uint32_t seed = uint32_t(r.next());
    uint32_t key[4];
    for (uint32_t& w : key) w = uint32_t(r.next());
    key[3] &= 0xFF;   // 13 bytes: 104 bits
    for (cosim::dut<Vcrc_hash>* d : {&one, &two}) {
      (*d)->in_valid = in_valid;
      (*d)->in_seed = seed;
      for (int i = 0; i < 4; ++i) (*d)->in_key[i] = key[i];
    }
    if (r.below(8) == 0) {   // a low half evaluated on its own, as the flowlet adapter does
      one.settle();
      two.settle();
    }
    one.tick();
    two.tick();
    ASSERT_EQ(one->out_valid, two->out_valid) << "cycle " << cycle;
    ASSERT_EQ(one->out_hash, two->out_hash) << "cycle " << cycle;
    valid += one->out_valid;
  }
  vcd.close();
  EXPECT_GT(valid, 10000u);   // the hashes compared were computed, not idle zeros
}
