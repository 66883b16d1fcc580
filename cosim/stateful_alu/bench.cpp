// stateful_alu (rtl/stateful_alu.sv) against the stateful_alu core, driven as a match-action
// stage drives it: one execute() per packet with a fresh pass id, control-plane read/write/clear
// between packets, a new program loaded with a reset.
//
// Rows. The array's configured size (cfg_rows, the core's entries) is ENTRIES for the first
// three programs and three in four of the rest, and 1 to ENTRIES at random for the others.
//
// Programs. The bench reconfigures (reset, then the clear sweep) every 150-450 cycles (longer
// on big arrays). Programs, in order:
//   0 flowradar_cell: the datasheet's six packets back to back on one entry, three of them new
//     flows (phv_b = 1: lo = 0xBFACDDCA, hi = 3), then the flow counter wrapping (hi written to
//     max, a new flow -> 0), and an old flow (phv_b = 0) that changes nothing, read back.
//   1 fingerprint_vote: key 0xBEEF, three matching packets then five others (votes 1 2 3 2 1 0
//     0 0, two saturations at 0), then the vote written to max and a match (saturates at max).
//   2 forwarding: `lo += phv_a, hi = old lo` on one entry, executions 1, 2, 3 and 4 cycles apart,
//     a read right after a write and a write right after an execution, a clear mid-stream.
//   3-62 coverage programs: every op x signedness (updates on lo and hi), every relop x
//     signedness, every operand in x and y, every output kind, rotating.
//   then random programs (the unit test's generator: every field random, constants at corners),
//     with flowradar_cell and fingerprint_vote each one time in eight.
// On a single-word array (DUAL = 0) programs that need hi are stripped of it, as the unit
// test does, and the two named programs (which need hi) are skipped.
// Stimulus per cycle: an execution on a hot set of entries (so back-to-back executions on one
// entry, at distances 1-3, recur), idle cycles, control-plane reads and writes, a rare clear,
// a repeated pass id (the core refuses it; the RTL sees an idle slot), indices >= the rows for
// packets and the control plane (refused by both; one refusal in 8 is also put to the core, to
// see it throw), and a junk control-plane op offered in the same cycle as a packet (the packet
// has the slot). Values are mostly corners of the width
// (0, 1, max, max-1, signed max/min and neighbours) with junk above the width on the core side.
//
// Compared every cycle, 4 cycles after issue (the RTL's latency, = latency_cycles): out_valid,
// out_value, out_p_lo, out_p_hi, out_sat_lo + out_sat_hi (= the core's saturation count step),
// cp_rvalid, cp_rdata_lo/hi (= read()), the four counters (= counters()), and ready (low for
// as many cycles as the array has rows after a reset or clear, the RTL's sweep; the bench sends
// nothing then).
//
// Parameters: the RTL's defaults, ENTRIES = 1024 (a stage's register array; the stimulus keeps a
// few hot entries so the forwarding paths are in use all the time), WIDTH = 32, DUAL = 1
// (stateful_alu_config's default is 0, but the two named programs need the hi word); and the
// second set of rtl/bench_sets.txt, read from the generated rtl_bench_sets.h.
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "blocks/stateful_alu.h"
#include "cosim/stateful_alu/stateful_alu_random_program.h"
#include "cosim/harness/cosim_bench.h"
#include "cosim/harness/stimulus_rng.h"
#include "Vstateful_alu.h"
#include "Vstateful_alu___024root.h"
#include "Vstateful_alu_set2.h"
#include "Vstateful_alu_set2___024root.h"
#include "cosim/stateful_alu/stateful_alu_rtl.h"
#include "rtl_bench_sets.h"

namespace netasic::cosim {
namespace {

constexpr unsigned rtl_latency = stateful_alu_rtl::rtl_latency;

// ---- programs ---------------------------------------------------------------------------------

// corner_value, random_program, needs_hi and strip_hi: cosim/stateful_alu/stateful_alu_random_program.h

// Program k of the coverage set: each field rotates through its values at its own rate.
stateful_alu_program coverage_program(stimulus_rng& r, unsigned k, unsigned w) {
  stateful_alu_program p;
  const bool sgn = (k / 10) % 2;
  p.cond_lo = {true, stateful_alu_operand(k % 6), stateful_alu_operand((k / 6) % 6), stateful_alu_relop(k % 6), sgn, corner_value(r, w)};
  p.cond_hi = {true, stateful_alu_operand((k + 2) % 6), stateful_alu_operand(k % 6), stateful_alu_relop((k + 3) % 6), !sgn, corner_value(r, w)};
  p.update_lo_1 = {true, uint8_t(k % 16), stateful_alu_op(k % 10), stateful_alu_operand::mem_lo, stateful_alu_operand((k + 1) % 6), sgn, corner_value(r, w)};
  p.update_lo_2 = {true, when_always, stateful_alu_op((k + 5) % 10), stateful_alu_operand(k % 6), stateful_alu_operand::phv_a, !sgn, corner_value(r, w)};
  p.update_hi_1 = {true, uint8_t((k * 7) % 16), stateful_alu_op((k + 3) % 10), stateful_alu_operand::mem_hi, stateful_alu_operand((k + 4) % 6), sgn, corner_value(r, w)};
  p.update_hi_2 = {true, when_always, stateful_alu_op((k + 7) % 10), stateful_alu_operand((k + 3) % 6), stateful_alu_operand::phv_b, !sgn, corner_value(r, w)};
  p.output = stateful_alu_output(k % 6);
  p.output_when = k % 3 == 0 ? when_always : uint8_t((k * 5) % 16);
  return p;
}

// ---- stimulus ---------------------------------------------------------------------------------

enum class act { idle, exec, read, write, clear, repeat_pass, bad_exec, bad_read, bad_write };

struct op {
  act kind = act::idle;
  uint32_t index = 0, a = 0, b = 0;   // a, b: phv_a/phv_b, or a write's lo/hi
};

// What the RTL must show 4 cycles after the cycle that issued it.
struct expected {
  bool valid = false, p_lo = false, p_hi = false, rvalid = false;
  uint32_t value = 0, rlo = 0, rhi = 0;
  unsigned sats = 0;
  stateful_alu_counters cnt;
};

// V: the Verilated model; the rest its parameters (a build's -G values).
template <class V, uint32_t ENTRIES, unsigned WIDTH, bool DUAL>
class stateful_alu_bench : public bench {
 public:
  stateful_alu_bench() : cfg_(bench_config()) {}
  static stateful_alu_config bench_config() {
    stateful_alu_config c;   // latency_cycles stays at its default
    c.entries = ENTRIES;
    c.width_bits = WIDTH;
    c.dual = DUAL;
    return c;
  }
  void reset(uint64_t seed) override {
    cfg_ = bench_config();
    mask_ = cfg_.width_bits == 32 ? 0xFFFFFFFFu : (1u << cfg_.width_bits) - 1;
    if (cfg_.latency_cycles != rtl_latency)
      throw std::logic_error("stateful_alu bench: core latency_cycles differs from the RTL's pipeline");
    rtl_ = std::make_unique<dut<V>>();
    rng_ = std::make_unique<stimulus_rng>(seed);
    cycle_ = 0;
    program_ = 0;
    refusals_ = 0;
    pass_ = 0;
    ran_ = false;
    core_.reset();
    pipe_.fill(expected{});
    script_.clear();
    // Power-on: program 0 is loaded by the first step's reset.
    left_ = 0;
    sweep_left_ = 0;
    auto& m = *rtl_;
    m->in_valid = 0;
    m->cp_valid = 0;
    rtl_->reset();
  }

  void step(side s, std::vector<mismatch>& out) override {
    const bool core_side = s != side::rtl, rtl_side = s != side::core;
    auto& m = *rtl_;
    op o;
    bool do_reset = false, junk_cp = false;
    uint64_t junk = 0;

    // ---- draw this cycle's stimulus (identical whatever the side) ----
    if (left_ == 0 && sweep_left_ == 0) {
      do_reset = true;
      ran_ = false;   // a fresh core: no pass seen yet
      load_next_program();
    } else if (sweep_left_ > 0) {
      o.kind = act::idle;   // the RTL is clearing the array
    } else {
      --left_;
      if (!script_.empty()) {
        o = script_.front();
        script_.erase(script_.begin());
      } else {
        o = random_op();
      }
      if (o.kind == act::exec) {
        ++pass_;   // a new packet
        ran_ = true;
      }
      if (o.kind == act::exec && rng_->below(16) == 0) {
        junk_cp = true;   // a control-plane op offered with a packet: the packet has the slot
        junk = rng_->next();
      }
    }

    // ---- core ----
    expected e;
    if (core_side) {
      if (do_reset) {
        core_ = std::make_unique<stateful_alu>(cfg_, prog_);
        pipe_.fill(expected{});   // reset empties the pipeline and the counters
      } else {
        switch (o.kind) {
          case act::idle: break;
          case act::exec: {
            const uint64_t sat0 = core_->counters().saturations;
            const stateful_alu_result r = core_->execute(pass_, o.index, o.a, o.b);
            if (r.cycles != rtl_latency) throw std::logic_error("stateful_alu bench: result cycles != RTL latency");
            e.valid = true;
            e.value = r.output;
            e.p_lo = r.p_lo;
            e.p_hi = r.p_hi;
            e.sats = unsigned(core_->counters().saturations - sat0);
            break;
          }
          case act::read: {
            const stateful_alu_entry v = core_->read(o.index);
            e.rvalid = true;
            e.rlo = v.lo;
            e.rhi = v.hi;
            break;
          }
          case act::write: core_->write(o.index, o.a, o.b); break;
          case act::clear: core_->clear(); break;
          case act::repeat_pass:   // the same packet asking again: refused, nothing changes
            // A refusal is a C++ exception, about 14,000 instructions: one refusal in 8 is put to
            // the core, to see it refuse (the others would change nothing either).
            if (refusals_++ % 8 != 0) break;
            try {
              core_->execute(pass_, o.index, o.a, o.b);
              throw std::logic_error("stateful_alu bench: core accepted a second execute in one pass");
            } catch (const std::logic_error& err) {
              if (std::string(err.what()).find("second execute") == std::string::npos) throw;
            }
            break;
          case act::bad_exec:
          case act::bad_read:
          case act::bad_write:
            if (refusals_++ % 8 != 0) break;
            try {
              if (o.kind == act::bad_exec) core_->execute(pass_ + 1, o.index, o.a, o.b);
              else if (o.kind == act::bad_read) core_->read(o.index);
              else core_->write(o.index, o.a, o.b);
              throw std::logic_error("stateful_alu bench: core accepted an index >= entries");
            } catch (const std::out_of_range&) {
            }
            break;
        }
      }
      e.cnt = core_->counters();
      pipe_[cycle_ % rtl_latency] = e;
    }

    // ---- RTL ----
    if (rtl_side) {
      m->rst = do_reset;
      if (do_reset) apply_program();
      m->in_valid = o.kind == act::exec || o.kind == act::bad_exec;
      m->in_index = o.index;
      m->in_phv_a = o.a & mask_;
      m->in_phv_b = o.b & mask_;
      const bool cp = o.kind == act::read || o.kind == act::write || o.kind == act::clear ||
                      o.kind == act::bad_read || o.kind == act::bad_write;
      m->cp_valid = cp || junk_cp;
      m->cp_op = junk_cp ? unsigned(junk % 3)
                 : o.kind == act::write || o.kind == act::bad_write ? 1u
                 : o.kind == act::clear ? 2u : 0u;
      m->cp_index = junk_cp ? uint32_t(junk >> 8) : o.index;
      m->cp_lo = (junk_cp ? uint32_t(junk >> 16) : o.a) & mask_;
      m->cp_hi = (junk_cp ? uint32_t(junk >> 24) : o.b) & mask_;
      rtl_->tick();
      m->rst = 0;
    }

    // The array sweep after a reset or clear: ENTRIES cycles with ready low.
    if (do_reset || o.kind == act::clear) sweep_left_ = cfg_.entries;
    else if (sweep_left_ > 0) --sweep_left_;

    if (s == side::both) {
      // The result of the cycle 3 before this one came out at this cycle's edge.
      const expected& x = pipe_[(cycle_ + 1) % rtl_latency];
      auto cmp = [&](const char* name, uint64_t core, uint64_t rtl) { compare_output(out, name, core, rtl); };
      cmp("ready", sweep_left_ == 0, m->ready);
      cmp("out_valid", x.valid, m->out_valid);
      cmp("out_value", x.value, m->out_value);
      cmp("out_p_lo", x.p_lo, m->out_p_lo);
      cmp("out_p_hi", x.p_hi, m->out_p_hi);
      cmp("out_sat_lo+out_sat_hi", x.sats, unsigned(m->out_sat_lo) + unsigned(m->out_sat_hi));
      cmp("cp_rvalid", x.rvalid, m->cp_rvalid);
      cmp("cp_rdata_lo", x.rlo, m->cp_rdata_lo);
      cmp("cp_rdata_hi", x.rhi, m->cp_rdata_hi);
      cmp("cnt_executions", x.cnt.executions, m->cnt_executions);
      cmp("cnt_updates_lo", x.cnt.updates_lo, m->cnt_updates_lo);
      cmp("cnt_updates_hi", x.cnt.updates_hi, m->cnt_updates_hi);
      cmp("cnt_saturations", x.cnt.saturations, m->cnt_saturations);
    }
    ++cycle_;
  }

  std::string parameters() const override {
    return "ENTRIES=" + std::to_string(ENTRIES) + " WIDTH=" + std::to_string(cfg_.width_bits) +
           " DUAL=" + std::to_string(int(cfg_.dual));
  }
  void trace(VerilatedVcdC* vcd) override { rtl_->trace(vcd); }

 private:
  // Picks the next program and its script; the core and the RTL get it at this cycle's reset.
  void load_next_program() {
    cfg_.entries = program_ >= 3 && rng_->below(4) == 0 ? 1 + uint32_t(rng_->below(ENTRIES)) : ENTRIES;
    const unsigned w = cfg_.width_bits;
    const unsigned n_cov = 60;
    script_.clear();
    for (;;) {
      const unsigned k = program_++;
      if (k == 0 || k == 1) {
        if (!cfg_.dual) continue;   // both need the hi word
        prog_ = k == 0 ? stateful_alu_program::flowradar_cell() : stateful_alu_program::fingerprint_vote();
        directed_named(k);
      } else if (k == 2) {
        prog_ = stateful_alu_program{};
        prog_.update_lo_1 = {true, when_always, stateful_alu_op::add, stateful_alu_operand::mem_lo, stateful_alu_operand::phv_a, false, 0};
        prog_.update_hi_1 = {true, when_always, stateful_alu_op::set, stateful_alu_operand::mem_lo, stateful_alu_operand::zero, false, 0};
        prog_.output = stateful_alu_output::lo_old;
        if (!cfg_.dual) strip_hi(prog_);
        directed_forwarding();
      } else if (k < 3 + n_cov) {
        prog_ = coverage_program(*rng_, k - 3, w);
      } else {
        const uint64_t pick = rng_->below(8);
        if (cfg_.dual && pick == 0) prog_ = stateful_alu_program::flowradar_cell();
        else if (cfg_.dual && pick == 1) prog_ = stateful_alu_program::fingerprint_vote();
        else prog_ = random_program(*rng_, w);
      }
      break;
    }
    if (!cfg_.dual && needs_hi(prog_)) strip_hi(prog_);
    // Start from corner contents in a few entries.
    std::vector<op> pre;
    for (uint32_t i = 0; i < std::min<uint32_t>(cfg_.entries, 4); ++i)
      pre.push_back({act::write, hot_index(), corner_value(*rng_, w), corner_value(*rng_, w)});
    script_.insert(script_.begin(), pre.begin(), pre.end());
    left_ = std::max<uint64_t>(script_.size(), 150 + rng_->below(300) + 2 * uint64_t(cfg_.entries));
  }

  void directed_named(unsigned k) {
    const uint32_t max = mask_;
    if (k == 0) {   // FlowRadar: the datasheet's six packets, then the counter wrap
      const uint32_t ids[] = {0xA1B2C3D4u, 0x11111111u, 0x0F0F0F0Fu, 0x11111111u, 0x0F0F0F0Fu, 0x11111111u};
      for (int i = 0; i < 6; ++i) script_.push_back({act::exec, 0, ids[i], i < 3 ? 1u : 0u});   // first three new
      script_.push_back({act::read, 0, 0, 0});
      script_.push_back({act::write, 0, 0x5A, max});
      script_.push_back({act::exec, 0, 0x5A, 1});   // a new flow: hi max + 1 wraps to 0
      script_.push_back({act::read, 0, 0, 0});
      script_.push_back({act::exec, 0, 0x5A, 0});   // an old flow: nothing changes
      script_.push_back({act::idle, 0, 0, 0});
      script_.push_back({act::read, 0, 0, 0});
    } else {        // BalanceSketch vote: up three, down five (two saturations at 0), up at max
      script_.push_back({act::write, 1 % cfg_.entries, 0xBEEF, 0});
      for (int i = 0; i < 3; ++i) script_.push_back({act::exec, 1 % cfg_.entries, 0xBEEF, 0});
      for (int i = 0; i < 5; ++i) script_.push_back({act::exec, 1 % cfg_.entries, 0x1234, 0});
      script_.push_back({act::read, 1 % cfg_.entries, 0, 0});
      script_.push_back({act::write, 1 % cfg_.entries, 0xBEEF, max - 1});
      script_.push_back({act::exec, 1 % cfg_.entries, 0xBEEF, 0});   // max - 1 + 1 = max: not a saturation
      script_.push_back({act::exec, 1 % cfg_.entries, 0xBEEF, 0});   // stays at max: one
      script_.push_back({act::read, 1 % cfg_.entries, 0, 0});
    }
  }

  // lo += phv_a at distances 1 to 4; read after write; write after execution; clear mid-stream.
  void directed_forwarding() {
    const uint32_t i = 0, j = (cfg_.entries > 1) ? 1 : 0;
    auto ex = [&](uint32_t a) { script_.push_back({act::exec, i, a, 0}); };
    auto idle = [&](int n) { for (int k = 0; k < n; ++k) script_.push_back({act::idle, 0, 0, 0}); };
    ex(1); ex(2); ex(3);                 // distance 1
    idle(1); ex(4); idle(1); ex(5);      // distance 2
    idle(2); ex(6); idle(2); ex(7);      // distance 3
    idle(3); ex(8);                      // distance 4: through the SRAM
    script_.push_back({act::exec, j, 100, 0});   // another entry in between
    ex(9);
    script_.push_back({act::write, i, 1000, 7});
    script_.push_back({act::read, i, 0, 0});     // read right after the write
    ex(10);                                      // execution right after a read
    script_.push_back({act::write, i, 2000, 8}); // write right after an execution
    ex(11);
    script_.push_back({act::exec, j, 200, 0});
    ex(12);
    script_.push_back({act::clear, 0, 0, 0});    // clears while three are in flight
    ex(13); ex(14);
    script_.push_back({act::read, i, 0, 0});
    script_.push_back({act::read, j, 0, 0});
  }

  // Most executions go to a few hot entries so the same entry comes back within 1-3 cycles.
  uint32_t hot_index() {
    if (cfg_.entries <= 4 || rng_->below(4) != 0) return uint32_t(rng_->below(std::min<uint32_t>(cfg_.entries, 4)));
    return uint32_t(rng_->below(cfg_.entries));
  }

  op random_op() {
    const unsigned w = cfg_.width_bits;
    op o;
    o.index = hot_index();
    o.a = corner_value(*rng_, w);
    o.b = corner_value(*rng_, w);
    const uint64_t r = rng_->below(1000);
    if (r < 120) o.kind = act::idle;
    else if (r < 150) o.kind = act::write;
    else if (r < 190) o.kind = act::read;
    else if (r < 195) o.kind = ran_ ? act::repeat_pass : act::idle;   // refusals are C++ exceptions:
    else if (r < 198) o.kind = act::bad_exec;                          // kept rare, they cost more
    else if (r < 199) o.kind = act::bad_read;                          // than the rest of a cycle
    else if (r < 200) o.kind = act::bad_write;
    else if (r < 201) o.kind = act::clear;
    else o.kind = act::exec;
    if (o.kind == act::bad_exec || o.kind == act::bad_read || o.kind == act::bad_write)
      o.index = rng_->below(2) ? cfg_.entries + uint32_t(rng_->below(4)) : uint32_t(rng_->next() | 0x80000000u);
    return o;
  }

  void apply_program() {
    auto& m = *rtl_;
    const unsigned w = cfg_.width_bits;
    m->cfg_cond_lo = stateful_alu_encode(prog_.cond_lo, w);
    m->cfg_cond_hi = stateful_alu_encode(prog_.cond_hi, w);
    m->cfg_update_lo_1 = stateful_alu_encode(prog_.update_lo_1, w);
    m->cfg_update_lo_2 = stateful_alu_encode(prog_.update_lo_2, w);
    m->cfg_update_hi_1 = stateful_alu_encode(prog_.update_hi_1, w);
    m->cfg_update_hi_2 = stateful_alu_encode(prog_.update_hi_2, w);
    m->cfg_output = unsigned(prog_.output);
    m->cfg_output_when = prog_.output_when;
    m->cfg_rows = cfg_.entries;
  }

  stateful_alu_config cfg_;
  uint32_t mask_ = 0;
  stateful_alu_program prog_;
  std::unique_ptr<stateful_alu> core_;
  std::unique_ptr<dut<V>> rtl_;
  std::unique_ptr<stimulus_rng> rng_;
  uint64_t cycle_ = 0, pass_ = 0, left_ = 0, sweep_left_ = 0;
  unsigned program_ = 0;
  uint64_t refusals_ = 0;   // refused operations drawn so far: one in 8 goes to the core
  bool ran_ = false;   // an execution since the last reset (the core refuses a repeat only then)
  std::vector<op> script_;
  std::array<expected, rtl_latency> pipe_{};
};

}  // namespace

std::unique_ptr<bench> make_stateful_alu_bench() {
  return std::make_unique<stateful_alu_bench<Vstateful_alu, 1024, 32, true>>();   // the RTL's defaults
}

std::unique_ptr<bench> make_stateful_alu_set2_bench() {
  namespace s2 = set2::stateful_alu;
  static_assert(s2::count == 2, "stateful_alu bench: reads ENTRIES and WIDTH of its second set (DUAL is a bit, which -G "
                                "takes only as 1'b0 / 1'b1)");
  return std::make_unique<stateful_alu_bench<Vstateful_alu_set2, uint32_t(s2::ENTRIES), unsigned(s2::WIDTH), true>>();
}

}  // namespace netasic::cosim
