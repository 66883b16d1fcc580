// Stateful ALU against a golden model written here from the spec alone: values held as int64,
// wrap by modulo, saturation by explicit clamping, signed values by subtracting 2^width. Random
// programs over random widths run tens of thousands of executions on a small array (so entries
// are hit again and again), checking output, predicates, every word and every counter after
// each one. Directed tests pin the corners: wrap, saturation, signed compare, the one-RMW-per-pass
// rule, bad indices and configs, and the two sketch programs against hand arithmetic.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "blocks/stateful_alu.h"
#include "cosim/stateful_alu/stateful_alu_random_program.h"
#include "common/rng.h"

using namespace netasic;

namespace {

// ---- golden model ----------------------------------------------------------------------------

struct golden {
  unsigned w;
  bool dual;
  int64_t mod;                    // 2^w
  std::vector<int64_t> lo, hi;    // each in [0, 2^w)
  uint64_t executions = 0, updates_lo = 0, updates_hi = 0, saturations = 0;

  golden(unsigned width, bool two_words, uint32_t entries)
      : w(width), dual(two_words), mod(int64_t(1) << width), lo(entries, 0), hi(entries, 0) {}

  int64_t wrap(int64_t v) const {
    int64_t r = v % mod;
    if (r < 0) r += mod;
    return r;
  }
  int64_t signed_of(int64_t v) const { return v >= mod / 2 ? v - mod : v; }

  int64_t pick(stateful_alu_operand o, uint32_t constant, int64_t mlo, int64_t mhi, int64_t a, int64_t b) const {
    if (o == stateful_alu_operand::zero) return 0;
    if (o == stateful_alu_operand::constant) return wrap(int64_t(constant));
    if (o == stateful_alu_operand::mem_lo) return mlo;
    if (o == stateful_alu_operand::mem_hi) return mhi;
    if (o == stateful_alu_operand::phv_a) return a;
    return b;
  }

  bool test(const stateful_alu_predicate& p, int64_t mlo, int64_t mhi, int64_t a, int64_t b) const {
    if (!p.used) return false;
    int64_t x = pick(p.x, p.constant, mlo, mhi, a, b), y = pick(p.y, p.constant, mlo, mhi, a, b);
    if (p.is_signed) { x = signed_of(x); y = signed_of(y); }
    switch (p.relop) {
      case stateful_alu_relop::eq: return x == y;
      case stateful_alu_relop::ne: return x != y;
      case stateful_alu_relop::lt: return x < y;
      case stateful_alu_relop::le: return x <= y;
      case stateful_alu_relop::gt: return x > y;
      case stateful_alu_relop::ge: return x >= y;
    }
    ADD_FAILURE() << "bad relop";
    return false;
  }

  int64_t apply(const stateful_alu_update& u, int64_t mlo, int64_t mhi, int64_t a, int64_t b) {
    const int64_t x = pick(u.x, u.constant, mlo, mhi, a, b), y = pick(u.y, u.constant, mlo, mhi, a, b);
    const int64_t sx = u.is_signed ? signed_of(x) : x, sy = u.is_signed ? signed_of(y) : y;
    const int64_t top = u.is_signed ? mod / 2 - 1 : mod - 1;
    const int64_t bottom = u.is_signed ? -(mod / 2) : 0;
    int64_t exact;
    switch (u.op) {
      case stateful_alu_op::add: return wrap(x + y);
      case stateful_alu_op::sub: return wrap(x - y);
      case stateful_alu_op::sadd: exact = sx + sy; break;
      case stateful_alu_op::ssub: exact = sx - sy; break;
      case stateful_alu_op::min: return sx < sy ? x : y;
      case stateful_alu_op::max: return sx > sy ? x : y;
      case stateful_alu_op::and_: return x & y;
      case stateful_alu_op::or_: return x | y;
      case stateful_alu_op::xor_: return x ^ y;
      case stateful_alu_op::set: return x;
      default: ADD_FAILURE() << "bad op"; return 0;
    }
    if (exact > top) { ++saturations; return wrap(top); }
    if (exact < bottom) { ++saturations; return wrap(bottom); }
    return wrap(exact);
  }

  static bool on(uint8_t table, bool p_lo, bool p_hi) { return (table >> (p_hi * 2 + p_lo)) & 1; }

  // Returns {output, p_lo, p_hi}.
  void run(const stateful_alu_program& pg, uint32_t index, uint32_t phv_a, uint32_t phv_b, uint32_t& out, bool& p_lo, bool& p_hi) {
    ++executions;
    const int64_t a = wrap(int64_t(phv_a)), b = wrap(int64_t(phv_b));
    const int64_t mlo = lo[index], mhi = dual ? hi[index] : 0;
    p_lo = test(pg.cond_lo, mlo, mhi, a, b);
    p_hi = test(pg.cond_hi, mlo, mhi, a, b);
    int64_t nlo = mlo, nhi = mhi;
    if (pg.update_lo_1.used && on(pg.update_lo_1.when, p_lo, p_hi)) { nlo = apply(pg.update_lo_1, mlo, mhi, a, b); ++updates_lo; }
    else if (pg.update_lo_2.used && on(pg.update_lo_2.when, p_lo, p_hi)) { nlo = apply(pg.update_lo_2, mlo, mhi, a, b); ++updates_lo; }
    if (dual) {
      if (pg.update_hi_1.used && on(pg.update_hi_1.when, p_lo, p_hi)) { nhi = apply(pg.update_hi_1, mlo, mhi, a, b); ++updates_hi; }
      else if (pg.update_hi_2.used && on(pg.update_hi_2.when, p_lo, p_hi)) { nhi = apply(pg.update_hi_2, mlo, mhi, a, b); ++updates_hi; }
    }
    lo[index] = nlo;
    if (dual) hi[index] = nhi;
    int64_t o = 0;
    if (on(pg.output_when, p_lo, p_hi)) {
      if (pg.output == stateful_alu_output::lo_old) o = mlo;
      if (pg.output == stateful_alu_output::hi_old) o = mhi;
      if (pg.output == stateful_alu_output::lo_new) o = nlo;
      if (pg.output == stateful_alu_output::hi_new) o = nhi;
      if (pg.output == stateful_alu_output::predicate) o = p_hi * 2 + p_lo;
    }
    out = uint32_t(o);
  }
};

// ---- random programs ------------------------------------------------------------------------

// corner_value, random_program, needs_hi and strip_hi: cosim/stateful_alu/stateful_alu_random_program.h

void expect_same_state(const stateful_alu& alu, const golden& g, const std::string& where) {
  for (uint32_t i = 0; i < g.lo.size(); ++i) {
    const stateful_alu_entry e = alu.read(i);
    ASSERT_EQ(int64_t(e.lo), g.lo[i]) << where << " entry " << i << " lo";
    ASSERT_EQ(int64_t(e.hi), g.dual ? g.hi[i] : 0) << where << " entry " << i << " hi";
  }
  ASSERT_EQ(alu.counters().executions, g.executions) << where;
  ASSERT_EQ(alu.counters().updates_lo, g.updates_lo) << where;
  ASSERT_EQ(alu.counters().updates_hi, g.updates_hi) << where;
  ASSERT_EQ(alu.counters().saturations, g.saturations) << where;
}

// One-expression programs for the directed tests.
stateful_alu_program one_update(stateful_alu_op op, stateful_alu_operand x, stateful_alu_operand y, bool is_signed, uint32_t constant = 0) {
  stateful_alu_program p;
  p.update_lo_1 = {true, when_always, op, x, y, is_signed, constant};
  p.output = stateful_alu_output::lo_new;
  return p;
}

uint32_t max_of(unsigned w) { return w == 32 ? 0xFFFFFFFFu : (1u << w) - 1; }

}  // namespace

// ---- random against the golden model -----------------------------------------------------------

TEST(StatefulAlu, RandomProgramsMatchGoldenModel) {
  rng r(20261122);
  const int programs = 600, ops_per_program = 150;
  uint64_t executed = 0, rejected_programs = 0, saturated = 0, pass_errors = 0;
  uint64_t pass = 0;
  for (int n = 0; n < programs; ++n) {
    const unsigned widths[] = {8, 16, 32};
    stateful_alu_config cfg;
    cfg.width_bits = widths[r.below(3)];
    cfg.dual = r.below(3) != 0;
    cfg.entries = 1 + uint32_t(r.below(6));
    cfg.latency_cycles = 1 + uint32_t(r.below(8));
    stateful_alu_program prog = random_program(r, cfg.width_bits);
    if (!cfg.dual && needs_hi(prog)) {
      EXPECT_THROW(stateful_alu(cfg, prog), std::invalid_argument) << "program " << n;
      ++rejected_programs;
      strip_hi(prog);
    }
    stateful_alu alu(cfg, prog);
    golden g(cfg.width_bits, cfg.dual, cfg.entries);
    bool ran = false;   // this ALU has seen `pass`
    ASSERT_EQ(alu.memory_bits(), uint64_t(cfg.entries) * cfg.width_bits * (cfg.dual ? 2 : 1));
    // Start from random contents, mostly corners.
    for (uint32_t i = 0; i < cfg.entries; ++i) {
      const uint32_t lo = corner_value(r, cfg.width_bits), hi = corner_value(r, cfg.width_bits);
      alu.write(i, lo, hi);
      g.lo[i] = g.wrap(lo);
      g.hi[i] = cfg.dual ? g.wrap(hi) : 0;
    }
    for (int k = 0; k < ops_per_program; ++k) {
      const std::string where = "program " + std::to_string(n) + " op " + std::to_string(k) + " width " +
                                std::to_string(cfg.width_bits) + (cfg.dual ? " dual" : " single");
      const uint32_t index = uint32_t(r.below(cfg.entries));
      const uint32_t a = corner_value(r, cfg.width_bits), b = corner_value(r, cfg.width_bits);
      switch (r.below(60)) {
        case 0: {   // control-plane write between packets
          const uint32_t lo = corner_value(r, cfg.width_bits), hi = corner_value(r, cfg.width_bits);
          alu.write(index, lo, hi);
          g.lo[index] = g.wrap(lo);
          if (cfg.dual) g.hi[index] = g.wrap(hi);
          break;
        }
        case 1:     // the same packet asks for a second RMW: refused, nothing changes
          if (ran) {
            EXPECT_THROW(alu.execute(pass, index, a, b), std::logic_error) << where;
            ++pass_errors;
          }
          break;
        case 2:
          EXPECT_THROW(alu.execute(pass + 1, cfg.entries + uint32_t(r.below(5)), a, b), std::out_of_range) << where;
          break;
        default: {
          ++pass;
          ran = true;
          const uint64_t sat_before = g.saturations;
          const stateful_alu_result got = alu.execute(pass, index, a, b);
          uint32_t out;
          bool p_lo, p_hi;
          g.run(prog, index, a, b, out, p_lo, p_hi);
          ASSERT_EQ(got.p_lo, p_lo) << where;
          ASSERT_EQ(got.p_hi, p_hi) << where;
          ASSERT_EQ(got.output, out) << where;
          ASSERT_EQ(got.cycles, cfg.latency_cycles) << where;
          ++executed;
          saturated += g.saturations - sat_before;
        }
      }
      expect_same_state(alu, g, where);
      if (HasFatalFailure()) return;
    }
  }
  // The random mix must actually reach what it claims to test.
  EXPECT_GE(executed, 80000u);
  EXPECT_GT(rejected_programs, 50u);
  EXPECT_GT(saturated, 1000u);
  EXPECT_GT(pass_errors, 500u);
}

// ---- directed corners ------------------------------------------------------------------------

TEST(StatefulAlu, AddAndSubWrapAtEachWidth) {
  for (unsigned w : {8u, 16u, 32u}) {
    const uint32_t max = max_of(w);
    stateful_alu inc({1, w, false, 4}, one_update(stateful_alu_op::add, stateful_alu_operand::mem_lo, stateful_alu_operand::constant, false, 1));
    inc.write(0, max);
    EXPECT_EQ(inc.execute(1, 0, 0, 0).output, 0u) << "width " << w;   // max + 1 wraps to 0
    EXPECT_EQ(inc.execute(2, 0, 0, 0).output, 1u) << "width " << w;
    EXPECT_EQ(inc.counters().saturations, 0u);

    stateful_alu dec({1, w, false, 4}, one_update(stateful_alu_op::sub, stateful_alu_operand::mem_lo, stateful_alu_operand::phv_a, false));
    EXPECT_EQ(dec.execute(1, 0, 1, 0).output, max) << "width " << w;   // 0 - 1 wraps to max
    EXPECT_EQ(dec.execute(2, 0, 2, 0).output, max - 2) << "width " << w;
    EXPECT_EQ(dec.read(0).lo, max - 2);
  }
  // Inputs are truncated to the width before the arithmetic: 0x1FF at 8 bits is 0xFF.
  stateful_alu t({1, 8, false, 4}, one_update(stateful_alu_op::add, stateful_alu_operand::phv_a, stateful_alu_operand::constant, false, 0x102));
  EXPECT_EQ(t.execute(1, 0, 0x1FF, 0).output, 0x01u);   // 0xFF + 0x02 = 0x101 -> 0x01
  t.write(0, 0xABCD);
  EXPECT_EQ(t.read(0).lo, 0xCDu);
}

TEST(StatefulAlu, SaturationAtUnsignedAndSignedLimits) {
  for (unsigned w : {8u, 16u, 32u}) {
    const uint32_t max = max_of(w), smax = max >> 1, smin = smax + 1;
    const std::string at = "width " + std::to_string(w);
    stateful_alu usadd({1, w, false, 4}, one_update(stateful_alu_op::sadd, stateful_alu_operand::mem_lo, stateful_alu_operand::phv_a, false));
    usadd.write(0, max - 1);
    EXPECT_EQ(usadd.execute(1, 0, 1, 0).output, max) << at;   // exactly max: not a saturation
    EXPECT_EQ(usadd.counters().saturations, 0u) << at;
    EXPECT_EQ(usadd.execute(2, 0, 1, 0).output, max) << at;
    EXPECT_EQ(usadd.execute(3, 0, max, 0).output, max) << at;
    EXPECT_EQ(usadd.counters().saturations, 2u) << at;

    stateful_alu ussub({1, w, false, 4}, one_update(stateful_alu_op::ssub, stateful_alu_operand::mem_lo, stateful_alu_operand::phv_a, false));
    ussub.write(0, 3);
    EXPECT_EQ(ussub.execute(1, 0, 3, 0).output, 0u) << at;
    EXPECT_EQ(ussub.counters().saturations, 0u) << at;
    ussub.write(0, 3);
    EXPECT_EQ(ussub.execute(2, 0, 5, 0).output, 0u) << at;    // 3 - 5 clamps at 0
    EXPECT_EQ(ussub.counters().saturations, 1u) << at;

    stateful_alu ssadd({1, w, false, 4}, one_update(stateful_alu_op::sadd, stateful_alu_operand::mem_lo, stateful_alu_operand::phv_a, true));
    ssadd.write(0, smax);
    EXPECT_EQ(ssadd.execute(1, 0, 1, 0).output, smax) << at;  // smax + 1 stays smax
    ssadd.write(0, smin);
    EXPECT_EQ(ssadd.execute(2, 0, max, 0).output, smin) << at;   // smin + (-1) stays smin
    ssadd.write(0, smax);
    EXPECT_EQ(ssadd.execute(3, 0, max, 0).output, smax - 1) << at;   // smax + (-1): no clamp
    EXPECT_EQ(ssadd.counters().saturations, 2u) << at;

    stateful_alu sssub({1, w, false, 4}, one_update(stateful_alu_op::ssub, stateful_alu_operand::mem_lo, stateful_alu_operand::phv_a, true));
    sssub.write(0, smin);
    EXPECT_EQ(sssub.execute(1, 0, 1, 0).output, smin) << at;  // smin - 1 stays smin
    sssub.write(0, smax);
    EXPECT_EQ(sssub.execute(2, 0, max, 0).output, smax) << at;   // smax - (-1) stays smax
    sssub.write(0, 0);
    EXPECT_EQ(sssub.execute(3, 0, 1, 0).output, max) << at;   // 0 - 1 = -1, fine when signed
    EXPECT_EQ(sssub.counters().saturations, 2u) << at;
  }
}

TEST(StatefulAlu, SignedAndUnsignedCompareAndMinMax) {
  stateful_alu_program p;
  p.cond_lo = {true, stateful_alu_operand::phv_a, stateful_alu_operand::phv_b, stateful_alu_relop::lt, false, 0};
  p.cond_hi = {true, stateful_alu_operand::phv_a, stateful_alu_operand::phv_b, stateful_alu_relop::lt, true, 0};
  p.output = stateful_alu_output::predicate;
  stateful_alu c({1, 8, false, 4}, p);
  stateful_alu_result res = c.execute(1, 0, 0x80, 0x7F);   // unsigned 128 < 127 no; signed -128 < 127 yes
  EXPECT_FALSE(res.p_lo);
  EXPECT_TRUE(res.p_hi);
  EXPECT_EQ(res.output, 2u);
  res = c.execute(2, 0, 0x7F, 0x80);
  EXPECT_TRUE(res.p_lo);
  EXPECT_FALSE(res.p_hi);
  EXPECT_EQ(res.output, 1u);

  stateful_alu umin({1, 16, false, 4}, one_update(stateful_alu_op::min, stateful_alu_operand::phv_a, stateful_alu_operand::phv_b, false));
  EXPECT_EQ(umin.execute(1, 0, 0xFFFF, 5).output, 5u);
  stateful_alu smin({1, 16, false, 4}, one_update(stateful_alu_op::min, stateful_alu_operand::phv_a, stateful_alu_operand::phv_b, true));
  EXPECT_EQ(smin.execute(1, 0, 0xFFFF, 5).output, 0xFFFFu);   // -1 < 5
  stateful_alu smax({1, 32, false, 4}, one_update(stateful_alu_op::max, stateful_alu_operand::phv_a, stateful_alu_operand::phv_b, true));
  EXPECT_EQ(smax.execute(1, 0, 0x80000000u, 0x7FFFFFFFu).output, 0x7FFFFFFFu);
}

TEST(StatefulAlu, HiReadsOldLoAndFirstUpdateWins) {
  stateful_alu_program p;
  p.cond_lo = {true, stateful_alu_operand::mem_lo, stateful_alu_operand::constant, stateful_alu_relop::ge, false, 10};
  p.update_lo_1 = {true, when_always, stateful_alu_op::add, stateful_alu_operand::mem_lo, stateful_alu_operand::constant, false, 1};
  p.update_lo_2 = {true, when_always, stateful_alu_op::set, stateful_alu_operand::constant, stateful_alu_operand::zero, false, 99};
  p.update_hi_1 = {true, when_p_lo, stateful_alu_op::set, stateful_alu_operand::constant, stateful_alu_operand::zero, false, 7};
  p.update_hi_2 = {true, when_always, stateful_alu_op::set, stateful_alu_operand::mem_lo, stateful_alu_operand::zero, false, 0};
  p.output = stateful_alu_output::hi_new;
  p.output_when = when_not_p_lo;
  stateful_alu alu({2, 32, true, 4}, p);
  alu.write(1, 5, 0);
  stateful_alu_result res = alu.execute(1, 1, 0, 0);
  EXPECT_EQ(alu.read(1).lo, 6u);   // _1 beat _2, which would have written 99
  EXPECT_EQ(alu.read(1).hi, 5u);   // the lo as read, not 6
  EXPECT_EQ(res.output, 5u);
  alu.write(1, 10, 0);
  res = alu.execute(2, 1, 0, 0);   // p_lo: hi_1 fires, output_when does not
  EXPECT_EQ(alu.read(1).hi, 7u);
  EXPECT_EQ(res.output, 0u);
  EXPECT_EQ(alu.read(0).lo, 0u);   // the other entry is untouched
  EXPECT_EQ(alu.counters().updates_lo, 2u);
  EXPECT_EQ(alu.counters().updates_hi, 2u);
}

TEST(StatefulAlu, OneReadModifyWritePerPass) {
  stateful_alu alu({4, 16, false, 3}, one_update(stateful_alu_op::add, stateful_alu_operand::mem_lo, stateful_alu_operand::constant, false, 1));
  EXPECT_EQ(alu.execute(7, 2, 0, 0).cycles, 3u);
  EXPECT_THROW(alu.execute(7, 2, 0, 0), std::logic_error);
  EXPECT_THROW(alu.execute(7, 3, 0, 0), std::logic_error);   // another entry, same pass: still one port
  EXPECT_EQ(alu.read(2).lo, 1u);
  EXPECT_EQ(alu.read(3).lo, 0u);
  EXPECT_EQ(alu.counters().executions, 1u);
  alu.execute(8, 2, 0, 0);
  alu.execute(7, 2, 0, 0);   // pass 7 again, but not back to back: another packet
  EXPECT_EQ(alu.read(2).lo, 3u);
}

TEST(StatefulAlu, OutOfRangeIndex) {
  stateful_alu alu({4, 8, true, 4}, stateful_alu_program::flowradar_cell());
  EXPECT_THROW(alu.execute(1, 4, 0, 0), std::out_of_range);
  EXPECT_THROW(alu.read(4), std::out_of_range);
  EXPECT_THROW(alu.write(100, 1, 1), std::out_of_range);
  EXPECT_EQ(alu.counters().executions, 0u);
  alu.execute(1, 3, 0x55, 1);   // the refused call did not use up pass 1
  EXPECT_EQ(alu.read(3).lo, 0x55u);
}

TEST(StatefulAlu, RejectsBadConfigAndHiOnSingleWord) {
  auto message = [](const stateful_alu_config& cfg, const stateful_alu_program& p) -> std::string {
    try {
      stateful_alu alu(cfg, p);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  const stateful_alu_program plain = one_update(stateful_alu_op::add, stateful_alu_operand::mem_lo, stateful_alu_operand::constant, false, 1);
  EXPECT_NE(message({4, 12, false, 4}, plain).find("width_bits"), std::string::npos);
  EXPECT_NE(message({4, 64, false, 4}, plain).find("width_bits"), std::string::npos);
  EXPECT_NE(message({0, 32, false, 4}, plain).find("entries"), std::string::npos);
  EXPECT_NE(message({4, 32, false, 0}, plain).find("latency_cycles"), std::string::npos);
  EXPECT_EQ(message({4, 32, false, 4}, plain), "");

  stateful_alu_program hi_update = plain;
  hi_update.update_hi_2 = {true, when_always, stateful_alu_op::set, stateful_alu_operand::phv_a, stateful_alu_operand::zero, false, 0};
  EXPECT_NE(message({4, 32, false, 4}, hi_update).find("update_hi_2"), std::string::npos);
  EXPECT_EQ(message({4, 32, true, 4}, hi_update), "");
  EXPECT_NE(message({4, 16, false, 4}, stateful_alu_program::fingerprint_vote()).find("update_hi_1"), std::string::npos);

  stateful_alu_program reads_hi = plain;
  reads_hi.cond_hi = {true, stateful_alu_operand::mem_hi, stateful_alu_operand::phv_a, stateful_alu_relop::eq, false, 0};
  EXPECT_NE(message({4, 32, false, 4}, reads_hi).find("cond_hi"), std::string::npos);
  stateful_alu_program out_hi = plain;
  out_hi.output = stateful_alu_output::hi_old;
  EXPECT_NE(message({4, 32, false, 4}, out_hi).find("hi_old"), std::string::npos);
  stateful_alu_program bad_table = plain;
  bad_table.output_when = 0x1F;
  EXPECT_NE(message({4, 32, true, 4}, bad_table).find("output_when"), std::string::npos);
}

TEST(StatefulAlu, MemoryFootprintAndClear) {
  stateful_alu dual({1024, 32, true, 4}, stateful_alu_program::flowradar_cell());
  EXPECT_EQ(dual.memory_bits(), 65536u);   // 1024 entries x 2 words x 32 bits
  stateful_alu single({4096, 8, false, 4}, stateful_alu_program());
  EXPECT_EQ(single.memory_bits(), 32768u);
  dual.write(5, 1, 2);
  dual.execute(1, 5, 3, 0);
  dual.clear();
  EXPECT_EQ(dual.read(5).lo, 0u);
  EXPECT_EQ(dual.read(5).hi, 0u);
  EXPECT_EQ(dual.counters().executions, 1u);   // clear is for the array, not the counters
}

TEST(StatefulAlu, FlowRadarCellAgainstHandArithmetic) {
  // Alg. 6 on one cell: three flows hash to cell 2; one packet of flow 0xA1B2C3D4, three of
  // 0x11111111, two of 0x0F0F0F0F. Only each flow's first packet is new (phv_b = 1), so FlowXOR
  // holds each flow once and FlowCount counts flows; PacketCount, its own array, counts packets.
  stateful_alu alu({8, 32, true, 4}, stateful_alu_program::flowradar_cell());
  stateful_alu pkts({8, 32, false, 4}, stateful_alu_program::flowradar_packet_count());
  const uint32_t ids[] = {0xA1B2C3D4u, 0x11111111u, 0x0F0F0F0Fu, 0x11111111u, 0x0F0F0F0Fu, 0x11111111u};
  const uint32_t is_new[] = {1, 1, 1, 0, 0, 0};
  uint64_t pass = 0;
  for (int i = 0; i < 6; ++i) {
    ++pass;
    EXPECT_EQ(alu.execute(pass, 2, ids[i], is_new[i]).output, 0u);   // output none
    pkts.execute(pass, 2, 0, 0);
  }
  EXPECT_EQ(alu.read(2).lo, 0xA1B2C3D4u ^ 0x11111111u ^ 0x0F0F0F0Fu);
  EXPECT_EQ(alu.read(2).lo, 0xBFACDDCAu);
  EXPECT_EQ(alu.read(2).hi, 3u);    // flows
  EXPECT_EQ(pkts.read(2).lo, 6u);   // packets
  EXPECT_EQ(alu.counters().updates_lo, 3u);
  // An 8-bit FlowCount wraps after 256 new flows, as a plain adder does; old flows change nothing.
  stateful_alu small({1, 8, true, 4}, stateful_alu_program::flowradar_cell());
  for (int i = 0; i < 257; ++i) small.execute(++pass, 0, 0x5A, 1);
  for (int i = 0; i < 10; ++i) small.execute(++pass, 0, 0x33, 0);
  EXPECT_EQ(small.read(0).hi, 1u);
  EXPECT_EQ(small.read(0).lo, 0x5Au);   // odd number of XORs of 0x5A
  stateful_alu lane({1, 32, false, 4}, stateful_alu_program::flowradar_xor());
  lane.execute(++pass, 0, 0xDEADBEEF, 1);
  lane.execute(++pass, 0, 0x12345678, 0);
  EXPECT_EQ(lane.read(0).lo, 0xDEADBEEFu);
}

TEST(StatefulAlu, FingerprintVoteAgainstHandArithmetic) {
  stateful_alu alu({4, 16, true, 4}, stateful_alu_program::fingerprint_vote());
  alu.write(1, 0xBEEF, 0);
  uint64_t pass = 0;
  // Three matching packets vote up: 1, 2, 3.
  for (uint32_t v : {1u, 2u, 3u}) {
    const stateful_alu_result r = alu.execute(++pass, 1, 0xBEEF, 0);
    EXPECT_TRUE(r.p_lo);
    EXPECT_EQ(r.output, v);
  }
  // Five others vote down: 2, 1, 0, then stay at 0 (two saturations); the key is kept.
  for (uint32_t v : {2u, 1u, 0u, 0u, 0u}) {
    const stateful_alu_result r = alu.execute(++pass, 1, 0x1234, 0);
    EXPECT_FALSE(r.p_lo);
    EXPECT_EQ(r.output, v);
  }
  EXPECT_EQ(alu.read(1).lo, 0xBEEFu);
  EXPECT_EQ(alu.counters().saturations, 2u);
  EXPECT_EQ(alu.counters().updates_hi, 8u);
  EXPECT_EQ(alu.counters().updates_lo, 0u);
  // The fingerprint compares on 16 bits: 0x1BEEF from the PHV matches 0xBEEF.
  EXPECT_EQ(alu.execute(++pass, 1, 0x1BEEF, 0).output, 1u);
  // And the up-vote stops at 2^16 - 1.
  alu.write(1, 0xBEEF, 0xFFFF);
  EXPECT_EQ(alu.execute(++pass, 1, 0xBEEF, 0).output, 0xFFFFu);
  EXPECT_EQ(alu.counters().saturations, 3u);
}
