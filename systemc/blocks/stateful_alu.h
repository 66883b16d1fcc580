// Stateful ALU (core, no SystemC): the register action of a match-action stage, in the style of
// Tofino's RegisterAction. A register array sits in the stage's SRAM; each packet that reaches
// the stage does at most one read-modify-write of one entry, computed by a small fixed program.
// Sketches (counters, Bloom filters, FlowRadar, BalanceSketch) are written as such programs.
//
// One execution, on the entry at `index`, with phv_a/phv_b from the packet header vector:
//   read    mem_lo, mem_hi = array[index]
//   test    p_lo = cond_lo(x, y), p_hi = cond_hi(x, y)              (false when unused)
//   update  lo' = update_lo_1 if it fires, else update_lo_2 if it fires, else mem_lo; hi' alike
//   write   array[index] = lo', hi'
//   output  lo/hi old or new, or the predicates (p_hi << 1) | p_lo, gated by output_when
// Every operand is a word as READ: the hi updates see the old lo, never lo' (both words are
// computed side by side in one pass, as the hardware does). An update "fires" when bit
// (p_hi << 1) | p_lo of its `when` truth table is set. All arithmetic wraps at 2^width, except
// sadd/ssub, which saturate.
//
// Sketches as programs (stateful_alu_program::flowradar_cell() and ::fingerprint_vote() build these):
//   FlowRadar counting cell (Alg. 6), a flow-ID slice in phv_a, "new flow" in phv_b (the flow
//   filter's verdict), lo = FlowXOR slice, hi = FlowCount:
//     cond_lo     = phv_b != 0                            a flow the filter had not seen
//     update_lo_1 = when p_lo: xor_ (mem_lo, phv_a)       lo ^= flow_id
//     update_hi_1 = when p_lo: add  (mem_hi, constant 1)  hi += 1 (wraps, like the hardware)
//   flowradar_xor(): the same lo update on a single-word array (the rest of the 5-tuple);
//   flowradar_packet_count(): lo += 1 on every packet, single word (PacketCount).
//   LossRadar's cells (lossradar_cell(), lossradar_xor()): FlowRadar's, with every packet
//   counted: the xorSum slice and the count change on every packet, no predicate.
//   BalanceSketch fingerprint vote, fingerprint in phv_a, lo = stored fingerprint, hi = vote:
//     cond_lo     = mem_lo == phv_a
//     update_hi_1 = when p_lo:  sadd (mem_hi, constant 1) hi += 1, stops at 2^width - 1
//     update_hi_2 = when !p_lo: ssub (mem_hi, constant 1) hi -= 1, stops at 0
//     output      = hi_new                                the next stage replaces the key at 0
//
// Control-plane view of the array (no bus offset yet; read/write take the entry index):
//   ENTRY[i].LO  [width-1:0]  RW
//   ENTRY[i].HI  [width-1:0]  RW  dual arrays only; on a single-word array it reads 0 and
//                                 writes are dropped
#pragma once
#include <cstdint>
#include <vector>

namespace netasic {

// Where an expression takes an input from. mem_lo/mem_hi are the words as read.
enum class stateful_alu_operand : uint8_t { zero, constant, mem_lo, mem_hi, phv_a, phv_b };
enum class stateful_alu_relop : uint8_t { eq, ne, lt, le, gt, ge };
// and_/or_/xor_ carry a trailing underscore because `and`, `or`, `xor` are C++ keywords.
enum class stateful_alu_op : uint8_t { add, sub, sadd, ssub, min, max, and_, or_, xor_, set };
enum class stateful_alu_output : uint8_t { none, lo_old, hi_old, lo_new, hi_new, predicate };

// Truth tables over (p_hi << 1) | p_lo: bit k set = fire when the predicates read k.
constexpr uint8_t when_always = 0b1111, when_never = 0b0000;
constexpr uint8_t when_p_lo = 0b1010, when_not_p_lo = 0b0101;
constexpr uint8_t when_p_hi = 0b1100, when_not_p_hi = 0b0011;

struct stateful_alu_predicate {
  bool used = false;             // unused = false
  stateful_alu_operand x = stateful_alu_operand::zero, y = stateful_alu_operand::zero;
  stateful_alu_relop relop = stateful_alu_relop::eq;
  bool is_signed = false;        // two's-complement compare on `width` bits
  uint32_t constant = 0;         // the `constant` operand (an immediate), truncated to width
};

struct stateful_alu_update {
  bool used = false;
  uint8_t when = when_always;    // 4-bit truth table, see above
  stateful_alu_op op = stateful_alu_op::set;
  stateful_alu_operand x = stateful_alu_operand::zero, y = stateful_alu_operand::zero;
  bool is_signed = false;        // for sadd, ssub, min, max; the others do not care
  uint32_t constant = 0;         // immediate, truncated to width
};

// Each predicate and update carries its own immediate, as P4 writes `value + 1`.
struct stateful_alu_program {
  stateful_alu_predicate cond_lo, cond_hi;
  stateful_alu_update update_lo_1, update_lo_2, update_hi_1, update_hi_2;
  stateful_alu_output output = stateful_alu_output::none;
  uint8_t output_when = when_always;

  static stateful_alu_program flowradar_cell();
  static stateful_alu_program flowradar_xor();
  static stateful_alu_program flowradar_packet_count();
  static stateful_alu_program flowradar_filter();   // test-and-set: lo |= phv_a (a one-hot mask), out lo_old
  static stateful_alu_program fingerprint_vote();
  static stateful_alu_program lossradar_cell();   // every packet: lo ^= phv_a, hi += 1
  static stateful_alu_program lossradar_xor();    // every packet: lo ^= phv_a
};

struct stateful_alu_config {
  uint32_t entries = 1;          // entries in the register array
  unsigned width_bits = 32;      // 8, 16 or 32 bits per word
  bool dual = false;             // two words (lo, hi) per entry
  // Cycles from the ALU's read to its result: SRAM read, predicate, update, write-back, one
  // cycle each. A new packet can still start every cycle; this is latency, not issue interval.
  uint32_t latency_cycles = 4;
};

struct stateful_alu_result {
  uint32_t output;               // 0 when output is none or output_when does not fire
  bool p_lo, p_hi;
  uint32_t cycles;               // latency_cycles
};

struct stateful_alu_entry { uint32_t lo, hi; };

struct stateful_alu_counters {
  uint64_t executions = 0;
  uint64_t updates_lo = 0;       // executions in which a lo update fired (changed or not)
  uint64_t updates_hi = 0;
  uint64_t saturations = 0;      // written sadd/ssub results whose exact value was out of range
};

// Throws std::invalid_argument for a bad config or a program that needs a hi word the array
// does not have; the message names the field. Every implementation checks with this.
void stateful_alu_check(const stateful_alu_config& cfg, const stateful_alu_program& prog);
// std::out_of_range for index >= cfg.entries.
void stateful_alu_check_index(const stateful_alu_config& cfg, uint32_t index);
// The same for entries first .. first + n - 1, naming the first of them past the array.
void stateful_alu_check_range(const stateful_alu_config& cfg, uint32_t first, uint32_t n);

// One RMW port per pass: take() refuses a second execute in the pass just taken.
class stateful_alu_pass_guard {
 public:
  void take(uint64_t pass_id);   // std::logic_error on a repeat, and then nothing changes
 private:
  bool ran_ = false;
  uint64_t last_ = 0;
};

// What a sketch calls on its register array: the core below, or its RTL in the loop
// (`netasic run --rtl stateful_alu`, blocks/rtl_loop.h).
class stateful_alu_if {
 public:
  virtual ~stateful_alu_if() = default;
  // One read-modify-write. The same pass_id twice in a row is a std::logic_error; index >=
  // entries is std::out_of_range. Neither changes any state.
  virtual stateful_alu_result execute(uint64_t pass_id, uint32_t index, uint32_t phv_a, uint32_t phv_b) = 0;
  // An execution whose output the caller does not read (a sketch's update): the same change to
  // the array and the counters, and the same errors. The RTL in the loop issues it into its
  // pipeline and returns without clocking it out; the next access clocks it on.
  virtual void post(uint64_t pass_id, uint32_t index, uint32_t phv_a, uint32_t phv_b) {
    execute(pass_id, index, phv_a, phv_b);
  }
  // Control plane. Values are truncated to the width; hi is 0 / dropped on single-word arrays.
  virtual stateful_alu_entry read(uint32_t index) const = 0;
  // Entries first .. first + n - 1 into out[0 .. n): a whole array read by the control plane, as
  // a digest's collection reads it; std::out_of_range, before anything is read, when the range
  // runs past the array. The RTL in the loop issues these reads back to back, one a cycle,
  // instead of waiting out each one's latency.
  virtual void read_range(uint32_t first, uint32_t n, stateful_alu_entry* out) const {
    stateful_alu_check_range(config(), first, n);
    for (uint32_t k = 0; k < n; ++k) out[k] = read(first + k);
  }
  virtual void write(uint32_t index, uint32_t lo, uint32_t hi = 0) = 0;
  virtual void clear() = 0;      // every word to 0; counters and the pass history stay
  virtual const stateful_alu_counters& counters() const = 0;
  virtual const stateful_alu_config& config() const = 0;
  uint64_t memory_bits() const {
    const stateful_alu_config& c = config();
    return uint64_t(c.entries) * c.width_bits * (c.dual ? 2 : 1);
  }
};

class stateful_alu : public stateful_alu_if {
 public:
  // stateful_alu_check's errors.
  stateful_alu(const stateful_alu_config& cfg, const stateful_alu_program& prog);

  stateful_alu_result execute(uint64_t pass_id, uint32_t index, uint32_t phv_a, uint32_t phv_b) override;
  // One indirect call a sketch's update, not two.
  void post(uint64_t pass_id, uint32_t index, uint32_t phv_a, uint32_t phv_b) override {
    stateful_alu::execute(pass_id, index, phv_a, phv_b);
  }
  stateful_alu_entry read(uint32_t index) const override;
  void write(uint32_t index, uint32_t lo, uint32_t hi = 0) override;   // the interface's default
  void clear() override;

  const stateful_alu_counters& counters() const override { return count_; }
  const stateful_alu_config& config() const override { return cfg_; }
  const stateful_alu_program& program() const { return prog_; }

 private:
  uint32_t operand(stateful_alu_operand o, uint32_t constant, uint32_t lo, uint32_t hi, uint32_t a, uint32_t b) const;
  bool compare(const stateful_alu_predicate& p, uint32_t lo, uint32_t hi, uint32_t a, uint32_t b) const;
  uint32_t alu(const stateful_alu_update& u, uint32_t lo, uint32_t hi, uint32_t a, uint32_t b, bool& saturated) const;
  int64_t to_signed(uint32_t v) const;

  stateful_alu_config cfg_;
  stateful_alu_program prog_;
  uint32_t mask_;                // 2^width - 1
  std::vector<uint32_t> lo_, hi_;   // hi_ empty on single-word arrays
  stateful_alu_pass_guard pass_;
  stateful_alu_counters count_;
};

}  // namespace netasic
