// RTL in the loop for the stateful ALU: every register array a sketch runs on stateful ALUs
// (FlowRadar's cells, LossRadar's meters, BalanceSketch's stateful_alu form) answered by a Verilated
// rtl/stateful_alu.sv, one instance per array with the array's program on its cfg_* ports.
// Free of Verilator's headers (the model is behind a pointer to an implementation).
//
// The RTL's word width is a Verilog parameter, so the loop has one Verilated model per width
// (8, 16 and 32 bits, each at the RTL's defaults otherwise: ENTRIES = 1024, a stage's register
// array, and DUAL = 1; CMakeLists.txt). A single-word
// array runs on the dual model with hi held at 0: its programs never touch hi (the core refuses
// those that do), so hi reads 0 as the core's does.
//
// An execution is issued and clocked through the RTL's 4-cycle pipeline until its result comes
// out. A posted execution (one whose output the sketch does not read) is issued in one cycle and
// left in the pipeline: the next execution or post goes in the cycle after it, back to back as at
// line rate; the RTL forwards the word between them, and to a control-plane access that follows.
// Before a read of the counters the pipeline is clocked empty. A control-plane read is clocked
// through like an execution, and a range of reads goes in back to back (n + 3 cycles for n
// entries, not 4n); a write takes one cycle; a clear waits out the RTL's sweep (one row a cycle,
// ready low), of which the first 4 cycles (the pipeline empties) and the last row's are clocked
// and the rows between stepped over: they only zero their row and count (quiet_cycles_skipped).
// The reset's sweep likewise. The pass-id rule and the index check are the core's
// own (the RTL has no port for the first; it refuses indices past the rows on cfg_rows, the
// array's configured entries).
#pragma once
#include <cstdint>
#include <memory>

#include "blocks/stateful_alu.h"
#include "cosim/harness/rtl_loop_register.h"

namespace netasic {

// The program's encoding on the RTL's cfg_* ports (rtl/stateful_alu.sv's header), at a word
// width of `width` bits. The cosim bench uses the same.
uint64_t stateful_alu_encode(const stateful_alu_predicate& p, unsigned width);
uint64_t stateful_alu_encode(const stateful_alu_update& u, unsigned width);

class stateful_alu_rtl : public stateful_alu_if {
 public:
  // The RTL's ENTRIES, the most rows an array can configure on cfg_rows (an array larger than the
  // Verilated one would sweep short, which the constructor's check of the sweep catches).
  static constexpr uint32_t loop_entries = 1024;
  static constexpr uint32_t rtl_latency = 4;       // issue to result, the RTL's pipeline depth

  // stateful_alu_check's errors, and std::invalid_argument naming the field when entries exceed
  // loop_entries or latency_cycles is not the RTL's 4. `count`, if given, counts the executions
  // and control-plane accesses the RTL answered, and the cycles clocked.
  stateful_alu_rtl(const stateful_alu_config& cfg, const stateful_alu_program& prog, rtl_loop_count* count = nullptr);
  ~stateful_alu_rtl() override;
  stateful_alu_rtl(const stateful_alu_rtl&) = delete;
  stateful_alu_rtl& operator=(const stateful_alu_rtl&) = delete;

  stateful_alu_result execute(uint64_t pass_id, uint32_t index, uint32_t phv_a, uint32_t phv_b) override;
  void post(uint64_t pass_id, uint32_t index, uint32_t phv_a, uint32_t phv_b) override;
  stateful_alu_entry read(uint32_t index) const override;
  void read_range(uint32_t first, uint32_t n, stateful_alu_entry* out) const override;
  void write(uint32_t index, uint32_t lo, uint32_t hi = 0) override;   // the interface's default
  void clear() override;
  // From the RTL's counter outputs, once the posted executions are out.
  const stateful_alu_counters& counters() const override;
  // Off: every cycle of a sweep is clocked, as a check on stepping over them (on by default).
  void step_sweeps(bool on) { step_sweeps_ = on; }
  const stateful_alu_config& config() const override { return cfg_; }

 private:
  struct model;                      // the outputs, behind one of the widths' models
  template <class V> struct model_of;
  struct in;
  uint32_t settle() const;   // clocks idle cycles until ready (after a reset or a clear): how many
  void tick(const in& x) const;
  // An execution or a read: clocked through the pipeline until its result, which must come.
  void issue(const in& x) const;
  // Idle cycles until every posted execution has given its result; then the counters.
  void drain() const;
  in execution(uint64_t pass_id, uint32_t index, uint32_t phv_a, uint32_t phv_b);

  stateful_alu_config cfg_;
  uint32_t mask_;
  std::unique_ptr<model> m_;     // mutable through the pointer: a read clocks the RTL
  rtl_loop_count* count_;
  stateful_alu_pass_guard pass_;
  mutable stateful_alu_counters counters_;
  mutable uint32_t owed_ = 0;                     // cycles until the last posted execution's result
  mutable uint64_t issued_ = 0, results_ = 0;     // executions issued, results seen (out_valid)
  bool step_sweeps_ = true;
};

// `netasic run --rtl stateful_alu`.
rtl_loop_block stateful_alu_rtl_loop();

}  // namespace netasic
