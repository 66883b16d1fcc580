#include "blocks/stateful_alu.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace netasic {
namespace {
bool uses_hi(stateful_alu_operand o) { return o == stateful_alu_operand::mem_hi; }

// On a single-word array nothing may read or write hi: the word is not there in SRAM.
void check_single_word(const stateful_alu_program& p) {
  auto fail = [](const std::string& what) {
    throw std::invalid_argument("stateful_alu: single-word array (dual = false) but " + what);
  };
  if (p.update_hi_1.used) fail("update_hi_1 is used");
  if (p.update_hi_2.used) fail("update_hi_2 is used");
  const std::pair<const char*, const stateful_alu_predicate*> conds[] = {{"cond_lo", &p.cond_lo}, {"cond_hi", &p.cond_hi}};
  for (const auto& [name, c] : conds)
    if (c->used && (uses_hi(c->x) || uses_hi(c->y))) fail(std::string(name) + " reads mem_hi");
  const std::pair<const char*, const stateful_alu_update*> ups[] = {{"update_lo_1", &p.update_lo_1}, {"update_lo_2", &p.update_lo_2}};
  for (const auto& [name, u] : ups)
    if (u->used && (uses_hi(u->x) || uses_hi(u->y))) fail(std::string(name) + " reads mem_hi");
  if (p.output == stateful_alu_output::hi_old) fail("output is hi_old");
  if (p.output == stateful_alu_output::hi_new) fail("output is hi_new");
}

// Enums cast from config files or fuzzers: catch a bad value here, not halfway through a pass.
void check_enums(const stateful_alu_program& p) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("stateful_alu: " + what + " out of range"); };
  auto operand_ok = [](stateful_alu_operand o) { return uint8_t(o) <= uint8_t(stateful_alu_operand::phv_b); };
  const std::pair<const char*, const stateful_alu_predicate*> conds[] = {{"cond_lo", &p.cond_lo}, {"cond_hi", &p.cond_hi}};
  for (const auto& [name, c] : conds)
    if (c->used && (!operand_ok(c->x) || !operand_ok(c->y) || uint8_t(c->relop) > uint8_t(stateful_alu_relop::ge)))
      fail(std::string(name) + " operand or relop");
  const std::pair<const char*, const stateful_alu_update*> ups[] = {{"update_lo_1", &p.update_lo_1}, {"update_lo_2", &p.update_lo_2},
                                                            {"update_hi_1", &p.update_hi_1}, {"update_hi_2", &p.update_hi_2}};
  for (const auto& [name, u] : ups) {
    if (u->used && (!operand_ok(u->x) || !operand_ok(u->y) || uint8_t(u->op) > uint8_t(stateful_alu_op::set)))
      fail(std::string(name) + " operand or op");
    if (u->when > 0xF) throw std::invalid_argument(std::string("stateful_alu: ") + name + ".when is a 4-bit truth table, got " + std::to_string(u->when));
  }
  if (uint8_t(p.output) > uint8_t(stateful_alu_output::predicate)) fail("output");
  if (p.output_when > 0xF) throw std::invalid_argument("stateful_alu: output_when is a 4-bit truth table, got " + std::to_string(p.output_when));
}

bool fires(uint8_t when, bool p_lo, bool p_hi) { return (when >> ((unsigned(p_hi) << 1) | unsigned(p_lo))) & 1u; }
}  // namespace

// FlowRadar (Alg. 6): FlowXOR and FlowCount change only for a flow the flow filter saw as new
// (phv_b != 0); PacketCount, in its own array, counts every packet.
stateful_alu_program stateful_alu_program::flowradar_cell() {
  stateful_alu_program p;
  p.cond_lo = {true, stateful_alu_operand::phv_b, stateful_alu_operand::zero, stateful_alu_relop::ne, false, 0};
  p.update_lo_1 = {true, when_p_lo, stateful_alu_op::xor_, stateful_alu_operand::mem_lo, stateful_alu_operand::phv_a, false, 0};
  p.update_hi_1 = {true, when_p_lo, stateful_alu_op::add, stateful_alu_operand::mem_hi, stateful_alu_operand::constant, false, 1};
  return p;   // output none: the control plane reads the cells out when it decodes
}

stateful_alu_program stateful_alu_program::flowradar_xor() {
  stateful_alu_program p;
  p.cond_lo = {true, stateful_alu_operand::phv_b, stateful_alu_operand::zero, stateful_alu_relop::ne, false, 0};
  p.update_lo_1 = {true, when_p_lo, stateful_alu_op::xor_, stateful_alu_operand::mem_lo, stateful_alu_operand::phv_a, false, 0};
  return p;
}

stateful_alu_program stateful_alu_program::flowradar_packet_count() {
  stateful_alu_program p;
  p.update_lo_1 = {true, when_always, stateful_alu_op::add, stateful_alu_operand::mem_lo, stateful_alu_operand::constant, false, 1};
  return p;
}

// The flow filter's test-and-set: the bit is set, and the old word tells whether it was.
stateful_alu_program stateful_alu_program::flowradar_filter() {
  stateful_alu_program p;
  p.update_lo_1 = {true, when_always, stateful_alu_op::or_, stateful_alu_operand::mem_lo, stateful_alu_operand::phv_a, false, 0};
  p.output = stateful_alu_output::lo_old;
  return p;
}

stateful_alu_program stateful_alu_program::lossradar_cell() {
  stateful_alu_program p;
  p.update_lo_1 = {true, when_always, stateful_alu_op::xor_, stateful_alu_operand::mem_lo, stateful_alu_operand::phv_a, false, 0};
  p.update_hi_1 = {true, when_always, stateful_alu_op::add, stateful_alu_operand::mem_hi, stateful_alu_operand::constant, false, 1};
  return p;
}

stateful_alu_program stateful_alu_program::lossradar_xor() {
  stateful_alu_program p;
  p.update_lo_1 = {true, when_always, stateful_alu_op::xor_, stateful_alu_operand::mem_lo, stateful_alu_operand::phv_a, false, 0};
  return p;
}

stateful_alu_program stateful_alu_program::fingerprint_vote() {
  stateful_alu_program p;
  p.cond_lo = {true, stateful_alu_operand::mem_lo, stateful_alu_operand::phv_a, stateful_alu_relop::eq, false, 0};
  p.update_hi_1 = {true, when_p_lo, stateful_alu_op::sadd, stateful_alu_operand::mem_hi, stateful_alu_operand::constant, false, 1};
  p.update_hi_2 = {true, when_not_p_lo, stateful_alu_op::ssub, stateful_alu_operand::mem_hi, stateful_alu_operand::constant, false, 1};
  p.output = stateful_alu_output::hi_new;
  return p;
}

void stateful_alu_check(const stateful_alu_config& cfg, const stateful_alu_program& prog) {
  if (cfg.width_bits != 8 && cfg.width_bits != 16 && cfg.width_bits != 32)
    throw std::invalid_argument("stateful_alu: width_bits must be 8, 16 or 32, got " + std::to_string(cfg.width_bits));
  if (cfg.entries < 1) throw std::invalid_argument("stateful_alu: entries must be at least 1");
  if (cfg.latency_cycles < 1) throw std::invalid_argument("stateful_alu: latency_cycles must be at least 1");
  check_enums(prog);
  if (!cfg.dual) check_single_word(prog);
}

void stateful_alu_check_index(const stateful_alu_config& cfg, uint32_t index) {
  if (index >= cfg.entries)
    throw std::out_of_range("stateful_alu: index " + std::to_string(index) + " >= entries " + std::to_string(cfg.entries));
}

void stateful_alu_check_range(const stateful_alu_config& cfg, uint32_t first, uint32_t n) {
  if (n && uint64_t(first) + n > cfg.entries) stateful_alu_check_index(cfg, first >= cfg.entries ? first : cfg.entries);
}

void stateful_alu_pass_guard::take(uint64_t pass_id) {
  if (ran_ && pass_id == last_)
    throw std::logic_error("stateful_alu: second execute in pass " + std::to_string(pass_id) + " (one RMW port per pass)");
  ran_ = true;
  last_ = pass_id;
}

stateful_alu::stateful_alu(const stateful_alu_config& cfg, const stateful_alu_program& prog) : cfg_(cfg), prog_(prog) {
  stateful_alu_check(cfg, prog);
  mask_ = cfg.width_bits == 32 ? 0xFFFFFFFFu : (1u << cfg.width_bits) - 1;
  lo_.assign(cfg.entries, 0);
  if (cfg.dual) hi_.assign(cfg.entries, 0);
}

int64_t stateful_alu::to_signed(uint32_t v) const {
  const uint32_t sign = 1u << (cfg_.width_bits - 1);
  return (v & sign) ? int64_t(v) - (int64_t(mask_) + 1) : int64_t(v);
}

uint32_t stateful_alu::operand(stateful_alu_operand o, uint32_t constant, uint32_t lo, uint32_t hi, uint32_t a, uint32_t b) const {
  switch (o) {
    case stateful_alu_operand::zero: return 0;
    case stateful_alu_operand::constant: return constant & mask_;
    case stateful_alu_operand::mem_lo: return lo;
    case stateful_alu_operand::mem_hi: return hi;
    case stateful_alu_operand::phv_a: return a;
    case stateful_alu_operand::phv_b: return b;
  }
  throw std::invalid_argument("stateful_alu: bad operand");
}

bool stateful_alu::compare(const stateful_alu_predicate& p, uint32_t lo, uint32_t hi, uint32_t a, uint32_t b) const {
  if (!p.used) return false;
  const uint32_t ux = operand(p.x, p.constant, lo, hi, a, b), uy = operand(p.y, p.constant, lo, hi, a, b);
  // Both sides as int64: unsigned words fit as they are, signed ones after sign extension.
  const int64_t x = p.is_signed ? to_signed(ux) : int64_t(ux), y = p.is_signed ? to_signed(uy) : int64_t(uy);
  switch (p.relop) {
    case stateful_alu_relop::eq: return x == y;
    case stateful_alu_relop::ne: return x != y;
    case stateful_alu_relop::lt: return x < y;
    case stateful_alu_relop::le: return x <= y;
    case stateful_alu_relop::gt: return x > y;
    case stateful_alu_relop::ge: return x >= y;
  }
  throw std::invalid_argument("stateful_alu: bad relop");
}

uint32_t stateful_alu::alu(const stateful_alu_update& u, uint32_t lo, uint32_t hi, uint32_t a, uint32_t b, bool& saturated) const {
  const uint32_t ux = operand(u.x, u.constant, lo, hi, a, b), uy = operand(u.y, u.constant, lo, hi, a, b);
  const int64_t x = u.is_signed ? to_signed(ux) : int64_t(ux), y = u.is_signed ? to_signed(uy) : int64_t(uy);
  // Range of the word as the update reads it; saturating results clamp to it.
  const int64_t hi_lim = u.is_signed ? int64_t(mask_ >> 1) : int64_t(mask_);
  const int64_t lo_lim = u.is_signed ? -hi_lim - 1 : 0;
  auto clamp = [&](int64_t r) {
    saturated = r > hi_lim || r < lo_lim;
    return uint32_t(r > hi_lim ? hi_lim : r < lo_lim ? lo_lim : r) & mask_;
  };
  saturated = false;
  switch (u.op) {
    case stateful_alu_op::add: return (ux + uy) & mask_;
    case stateful_alu_op::sub: return (ux - uy) & mask_;
    case stateful_alu_op::sadd: return clamp(x + y);
    case stateful_alu_op::ssub: return clamp(x - y);
    case stateful_alu_op::min: return x <= y ? ux : uy;
    case stateful_alu_op::max: return x >= y ? ux : uy;
    case stateful_alu_op::and_: return ux & uy;
    case stateful_alu_op::or_: return ux | uy;
    case stateful_alu_op::xor_: return ux ^ uy;
    case stateful_alu_op::set: return ux;
  }
  throw std::invalid_argument("stateful_alu: bad op");
}

stateful_alu_result stateful_alu::execute(uint64_t pass_id, uint32_t index, uint32_t phv_a, uint32_t phv_b) {
  stateful_alu_check_index(cfg_, index);
  pass_.take(pass_id);
  ++count_.executions;

  const uint32_t a = phv_a & mask_, b = phv_b & mask_;
  const uint32_t lo = lo_[index], hi = cfg_.dual ? hi_[index] : 0;
  const bool p_lo = compare(prog_.cond_lo, lo, hi, a, b), p_hi = compare(prog_.cond_hi, lo, hi, a, b);

  // Priority per word: _1 over _2 over "keep". Only the result written counts a saturation.
  auto word = [&](const stateful_alu_update& u1, const stateful_alu_update& u2, uint32_t old, uint64_t& updates) {
    const stateful_alu_update* u = u1.used && fires(u1.when, p_lo, p_hi) ? &u1 : u2.used && fires(u2.when, p_lo, p_hi) ? &u2 : nullptr;
    if (!u) return old;
    ++updates;
    bool sat;
    const uint32_t r = alu(*u, lo, hi, a, b, sat);
    if (sat) ++count_.saturations;
    return r;
  };
  const uint32_t new_lo = word(prog_.update_lo_1, prog_.update_lo_2, lo, count_.updates_lo);
  const uint32_t new_hi = cfg_.dual ? word(prog_.update_hi_1, prog_.update_hi_2, hi, count_.updates_hi) : 0;
  lo_[index] = new_lo;
  if (cfg_.dual) hi_[index] = new_hi;

  uint32_t out = 0;
  if (fires(prog_.output_when, p_lo, p_hi)) {
    switch (prog_.output) {
      case stateful_alu_output::none: break;
      case stateful_alu_output::lo_old: out = lo; break;
      case stateful_alu_output::hi_old: out = hi; break;
      case stateful_alu_output::lo_new: out = new_lo; break;
      case stateful_alu_output::hi_new: out = new_hi; break;
      case stateful_alu_output::predicate: out = (uint32_t(p_hi) << 1) | uint32_t(p_lo); break;
    }
  }
  return {out, p_lo, p_hi, cfg_.latency_cycles};
}

stateful_alu_entry stateful_alu::read(uint32_t index) const {
  stateful_alu_check_index(cfg_, index);
  return {lo_[index], cfg_.dual ? hi_[index] : 0};
}

void stateful_alu::write(uint32_t index, uint32_t lo, uint32_t hi) {
  stateful_alu_check_index(cfg_, index);
  lo_[index] = lo & mask_;
  if (cfg_.dual) hi_[index] = hi & mask_;
}

void stateful_alu::clear() {
  lo_.assign(lo_.size(), 0);
  hi_.assign(hi_.size(), 0);
}

}  // namespace netasic
