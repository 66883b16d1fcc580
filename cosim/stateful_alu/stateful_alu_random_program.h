// Random stateful-ALU programs and operand values for the tests that compare the core with a
// reference (testbenches/unit/test_stateful_alu.cpp) or with the RTL (the stateful_alu cosim
// bench): every op, relop, signedness and operand, constants at the corners of the word; and
// the single-word (not dual) form of a program. R is the tests' random source: rng, or the
// benches' stimulus_rng (next() and below(n)).
#pragma once
#include <cstdint>

#include "blocks/stateful_alu.h"

namespace netasic {

// Mostly corner values of a w-bit word (0, 1, max, signed max/min and neighbours), with junk
// above bit w so truncation is exercised too.
template <class R>
inline uint32_t corner_value(R& r, unsigned w) {
  const uint64_t mod = uint64_t(1) << w, half = mod / 2;
  uint64_t v;
  switch (r.below(10)) {
    case 0: v = 0; break;
    case 1: v = 1; break;
    case 2: v = mod - 1; break;
    case 3: v = mod - 2; break;
    case 4: v = half - 1; break;
    case 5: v = half; break;
    case 6: v = half + 1; break;
    case 7: v = r.below(8); break;
    default: v = r.next() % mod; break;
  }
  if (w < 32 && r.below(2)) v += (r.next() % (uint64_t(1) << (32 - w))) << w;
  return uint32_t(v);
}

template <class R>
inline stateful_alu_operand any_operand(R& r) { return stateful_alu_operand(r.below(6)); }

template <class R>
inline stateful_alu_predicate random_predicate(R& r, unsigned w) {
  stateful_alu_predicate p;
  p.used = r.below(4) != 0;
  p.x = any_operand(r);
  p.y = any_operand(r);
  p.relop = stateful_alu_relop(r.below(6));
  p.is_signed = r.below(2);
  p.constant = corner_value(r, w);
  return p;
}

template <class R>
inline stateful_alu_update random_update(R& r, unsigned w) {
  stateful_alu_update u;
  u.used = r.below(3) != 0;
  u.when = r.below(3) == 0 ? when_always : uint8_t(r.below(16));
  u.op = stateful_alu_op(r.below(10));
  // Read memory more often than not: state that depends on itself is where bugs show.
  u.x = r.below(2) ? (r.below(2) ? stateful_alu_operand::mem_lo : stateful_alu_operand::mem_hi) : any_operand(r);
  u.y = any_operand(r);
  u.is_signed = r.below(2);
  u.constant = corner_value(r, w);
  return u;
}

template <class R>
inline stateful_alu_program random_program(R& r, unsigned w) {
  stateful_alu_program p;
  p.cond_lo = random_predicate(r, w);
  p.cond_hi = random_predicate(r, w);
  p.update_lo_1 = random_update(r, w);
  p.update_lo_2 = random_update(r, w);
  p.update_hi_1 = random_update(r, w);
  p.update_hi_2 = random_update(r, w);
  p.output = stateful_alu_output(r.below(6));
  p.output_when = r.below(3) == 0 ? when_always : uint8_t(r.below(16));
  return p;
}

// Does the program touch a hi word (the spec's reasons for a single-word array to refuse it)?
inline bool needs_hi(const stateful_alu_program& p) {
  auto reads_hi = [](bool used, stateful_alu_operand x, stateful_alu_operand y) {
    return used && (x == stateful_alu_operand::mem_hi || y == stateful_alu_operand::mem_hi);
  };
  return p.update_hi_1.used || p.update_hi_2.used || p.output == stateful_alu_output::hi_old || p.output == stateful_alu_output::hi_new ||
         reads_hi(p.cond_lo.used, p.cond_lo.x, p.cond_lo.y) || reads_hi(p.cond_hi.used, p.cond_hi.x, p.cond_hi.y) ||
         reads_hi(p.update_lo_1.used, p.update_lo_1.x, p.update_lo_1.y) ||
         reads_hi(p.update_lo_2.used, p.update_lo_2.x, p.update_lo_2.y);
}

// Turn a program into one a single-word array accepts, keeping unused expressions as they are.
inline void strip_hi(stateful_alu_program& p) {
  auto fix = [](stateful_alu_operand& o) { if (o == stateful_alu_operand::mem_hi) o = stateful_alu_operand::phv_b; };
  for (stateful_alu_predicate* c : {&p.cond_lo, &p.cond_hi})
    if (c->used) { fix(c->x); fix(c->y); }
  for (stateful_alu_update* u : {&p.update_lo_1, &p.update_lo_2})
    if (u->used) { fix(u->x); fix(u->y); }
  p.update_hi_1.used = p.update_hi_2.used = false;
  if (p.output == stateful_alu_output::hi_old) p.output = stateful_alu_output::lo_old;
  if (p.output == stateful_alu_output::hi_new) p.output = stateful_alu_output::lo_new;
}

}  // namespace netasic
