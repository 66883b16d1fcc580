#include "blocks/balance_sketch.h"

#include "blocks/rtl_loop.h"

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

namespace netasic {
namespace {

void sketch_fail(const std::string& what) { throw std::invalid_argument("balance_sketch: " + what); }

// Register words are 8, 16 or 32 bits wide, as the stateful ALU's.
unsigned word_width(unsigned bits) { return bits <= 8 ? 8 : bits <= 16 ? 16 : 32; }
uint32_t word_mask(unsigned w) { return w == 32 ? 0xFFFFFFFFu : (1u << w) - 1; }
unsigned bits_for(uint64_t values) {   // bits to tell `values` values apart
  unsigned b = 0;
  while (b < 64 && (uint64_t(1) << b) < values) ++b;
  return b;
}

}  // namespace

// ---- register actions of the Tofino form --------------------------------------------------------

stateful_alu_program bs_sel_id_vote_program() {
  // The vote word holds vote - 1, so "the vote falls to 0" is "the word is 0 and the key
  // differs": the key is replaced in the same pass and the newcomer starts at vote 1 (word 0),
  // as Case 3's <f, 1, t, Null>. Empty and cleared entries (key 0, word 0) are taken the same way.
  stateful_alu_program p = stateful_alu_program::fingerprint_vote();   // p_lo: key matches; hi += 1 / hi -= 1
  p.cond_hi = {true, stateful_alu_operand::mem_hi, stateful_alu_operand::constant, stateful_alu_relop::eq, false, 0};
  p.update_lo_1 = {true, 0b0100, stateful_alu_op::set, stateful_alu_operand::phv_a, stateful_alu_operand::zero, false, 0};   // !p_lo && p_hi
  p.output = stateful_alu_output::hi_old;   // the vote before this packet, for vote > F
  return p;
}

stateful_alu_program bs_sel_id_clear_program() {
  // The mirrored packet's pass: key and vote to 0 (the paper clears flow_ID to Null).
  stateful_alu_program p;
  p.update_lo_1 = {true, when_always, stateful_alu_op::set, stateful_alu_operand::zero, stateful_alu_operand::zero, false, 0};
  p.update_hi_1 = {true, when_always, stateful_alu_op::set, stateful_alu_operand::zero, stateful_alu_operand::zero, false, 0};
  return p;
}

stateful_alu_program bs_sel_ts_touch_program() {
  // phv_a = compact now, phv_b = 1 if the packet's flow resides after SEL_ID. The gap tests need
  // ts_now - ts mod 2^s, and this ALU compares operands without subtracting, so it hands the old
  // timestamp to the next stage (the write does not depend on the gap, so nothing is lost).
  stateful_alu_program p;
  p.cond_lo = {true, stateful_alu_operand::phv_b, stateful_alu_operand::constant, stateful_alu_relop::eq, false, 1};
  p.update_lo_1 = {true, when_p_lo, stateful_alu_op::set, stateful_alu_operand::phv_a, stateful_alu_operand::zero, false, 0};
  p.output = stateful_alu_output::lo_old;
  return p;
}

stateful_alu_program bs_sch_id_claim_program(uint64_t Delta_slices) {
  // sch_flag set. phv_a = key, phv_b = now in slices mod 2^w. The word holds a deadline (last
  // packet + Δ/slice + 1) rather than the last time, so "idle > Δ" is one compare, deadline <= now,
  // which the ALU can do without subtracting. Take the entry if the key matches or it expired.
  stateful_alu_program p;
  p.cond_lo = {true, stateful_alu_operand::mem_lo, stateful_alu_operand::phv_a, stateful_alu_relop::eq, false, 0};
  p.cond_hi = {true, stateful_alu_operand::mem_hi, stateful_alu_operand::phv_b, stateful_alu_relop::le, false, 0};
  p.update_lo_1 = {true, 0b1110, stateful_alu_op::set, stateful_alu_operand::phv_a, stateful_alu_operand::zero, false, 0};
  p.update_hi_1 = {true, 0b1110, stateful_alu_op::add, stateful_alu_operand::phv_b, stateful_alu_operand::constant, false,
                   uint32_t(Delta_slices + 1)};
  p.output = stateful_alu_output::predicate;   // != 0: the flow holds the entry now
  return p;
}

stateful_alu_program bs_sch_id_refresh_program(uint64_t Delta_slices) {
  // Every other packet: the resident's deadline moves on, so it "will be kept until [it] ends".
  stateful_alu_program p;
  p.cond_lo = {true, stateful_alu_operand::mem_lo, stateful_alu_operand::phv_a, stateful_alu_relop::eq, false, 0};
  p.update_hi_1 = {true, when_p_lo, stateful_alu_op::add, stateful_alu_operand::phv_b, stateful_alu_operand::constant, false,
                   uint32_t(Delta_slices + 1)};
  p.output = stateful_alu_output::predicate;
  return p;
}

stateful_alu_program bs_sch_nh_assign_program() {
  // phv_a = the picked hop, phv_b = 1 to write it; the output is the hop to forward on.
  stateful_alu_program p;
  p.cond_lo = {true, stateful_alu_operand::phv_b, stateful_alu_operand::constant, stateful_alu_relop::eq, false, 1};
  p.update_lo_1 = {true, when_p_lo, stateful_alu_op::set, stateful_alu_operand::phv_a, stateful_alu_operand::zero, false, 0};
  p.output = stateful_alu_output::lo_new;
  return p;
}

// ---- multi-action register ------------------------------------------------------------------------

class balance_sketch::multi_action_register {
 public:
  multi_action_register(const stateful_alu_config& cfg, const std::vector<stateful_alu_program>& actions)
      : slots_(cfg.entries) {
    alus_.reserve(actions.size());
    for (const stateful_alu_program& p : actions) alus_.push_back(stateful_alu_unit(cfg, p));
  }

  stateful_alu_result execute(size_t action, uint64_t pass, uint32_t index, uint32_t a, uint32_t b) {
    // One read-modify-write per register per pass, whichever action runs.
    if (ran_ && pass == last_pass_) throw std::logic_error("balance_sketch: second access to a register in one pass");
    stateful_alu_if& alu = *alus_.at(action);
    slot& s = slots_.at(index);
    if (s.holder != action) {   // another action's ALU changed the word last: bring it over
      const stateful_alu_entry in = read(index);
      alu.write(index, in.lo, in.hi);
      s.holder = uint8_t(action);
    }
    const stateful_alu_result r = alu.execute(pass, index, a, b);
    s.copied = false;
    ran_ = true;
    last_pass_ = pass;
    return r;
  }

  // The word, from the ALU that changed it last; copied once, then read from the copy until the
  // next execution (under --rtl stateful_alu a read clocks the RTL, and occupancy() reads every word).
  stateful_alu_entry read(uint32_t index) const {
    slot& s = slots_.at(index);
    if (!s.copied) {
      s.word = alus_[s.holder]->read(index);
      s.copied = true;
    }
    return s.word;
  }
  uint64_t executions() const {
    uint64_t n = 0;
    for (const auto& a : alus_) n += a->counters().executions;
    return n;
  }

 private:
  // The register is one SRAM in hardware; here each action's ALU keeps its own array, and the word
  // moves between them only when the action changes (a single-action register never moves it).
  struct slot {
    stateful_alu_entry word{0, 0};   // the word as last read, while `copied`
    uint8_t holder = 0;              // the ALU whose array holds the word (all arrays start at zero)
    bool copied = true;
  };
  std::vector<std::unique_ptr<stateful_alu_if>> alus_;   // the core, or its RTL under --rtl stateful_alu
  mutable std::vector<slot> slots_;
  bool ran_ = false;
  uint64_t last_pass_ = 0;
};

// ---- construction -----------------------------------------------------------------------------------

balance_sketch::balance_sketch(const balance_sketch_config& cfg) : cfg_(cfg), rng_(cfg.seed) {
  if (uint8_t(cfg.form) > uint8_t(bs_form::stateful_alu)) sketch_fail("form out of range");
  if (cfg.buckets < 1) sketch_fail("buckets must be at least 1");
  if (cfg.cells < 1) sketch_fail("cells must be at least 1");
  if (cfg.fingerprint_bits < 1 || cfg.fingerprint_bits > 32) sketch_fail("fingerprint_bits must be 1..32");
  if (cfg.vote_bits < 1 || cfg.vote_bits > 32) sketch_fail("vote_bits must be 1..32");
  if (cfg.timestamp_bits < 2 || cfg.timestamp_bits > 64) sketch_fail("timestamp_bits must be 2..64");
  if (cfg.delta_ps < 1) sketch_fail("delta_ps must be at least 1");
  if (cfg.Delta_ps < cfg.delta_ps) sketch_fail("Delta_ps must be at least delta_ps");
  if (cfg.next_hops < 1) sketch_fail("next_hops must be at least 1");
  slice_ = cfg.slice_ps ? cfg.slice_ps : cfg.delta_ps;
  if (cfg.delta_ps % slice_ || cfg.Delta_ps % slice_) sketch_fail("slice_ps must divide delta_ps and Delta_ps");
  n_delta_ = cfg.delta_ps / slice_;
  n_Delta_ = cfg.Delta_ps / slice_;
  ts_mask_ = cfg.timestamp_bits == 64 ? ~uint64_t(0) : (uint64_t(1) << cfg.timestamp_bits) - 1;
  // The gap must be able to exceed Δ/slice, or no flow would ever be seen to end.
  if (n_Delta_ > ts_mask_ - 1)
    sketch_fail("timestamp_bits too small: Delta_ps / slice = " + std::to_string(n_Delta_) + " needs at most 2^s - 2");
  fp_mask_ = word_mask(cfg.fingerprint_bits);
  vote_cap_ = cfg.vote_bits == 32 ? 0xFFFFFFFFu : (uint64_t(1) << cfg.vote_bits) - 1;

  if (cfg.form == bs_form::software) {
    cells_.assign(size_t(cfg.buckets) * cfg.cells, bs_cell{});
    return;
  }
  if (cfg.cells != 1) sketch_fail("cells must be 1 for the Tofino form (pipeline, stateful_alu)");
  if (cfg.timestamp_bits > 32) sketch_fail("timestamp_bits must be at most 32 for the Tofino form");
  if (cfg.scheduler_timestamp_bits != 8 && cfg.scheduler_timestamp_bits != 16 && cfg.scheduler_timestamp_bits != 32)
    sketch_fail("scheduler_timestamp_bits must be 8, 16 or 32");
  if (cfg.fingerprint_bits > cfg.scheduler_timestamp_bits)
    sketch_fail("fingerprint_bits must fit the scheduler word (scheduler_timestamp_bits)");
  w_id_ = word_width(cfg.fingerprint_bits > cfg.vote_bits ? cfg.fingerprint_bits : cfg.vote_bits);
  w_ts_ = word_width(cfg.timestamp_bits);
  w_sch_ = cfg.scheduler_timestamp_bits;
  w_nh_ = word_width(bits_for(cfg.next_hops));
  id_mask_ = word_mask(w_id_);
  sch_mask_ = word_mask(w_sch_);
  if (n_Delta_ + 1 > sch_mask_) sketch_fail("scheduler_timestamp_bits too small for Delta_ps / slice + 1");

  if (cfg.form == bs_form::pipeline) {
    pipe_.assign(cfg.buckets, bs_tofino_entry{});
    return;
  }
  auto reg = [&](unsigned width, bool dual, std::vector<stateful_alu_program> actions) {
    return std::make_unique<multi_action_register>(
        stateful_alu_config{cfg.buckets, width, dual, cfg.stateful_alu_latency_cycles}, actions);
  };
  sel_id_ = reg(w_id_, true, {bs_sel_id_vote_program(), bs_sel_id_clear_program()});
  sel_ts_ = reg(w_ts_, false, {bs_sel_ts_touch_program()});
  sch_id_ = reg(w_sch_, true, {bs_sch_id_claim_program(n_Delta_), bs_sch_id_refresh_program(n_Delta_)});
  sch_nh_ = reg(w_nh_, false, {bs_sch_nh_assign_program()});
}

balance_sketch::~balance_sketch() = default;
balance_sketch::balance_sketch(balance_sketch&&) noexcept = default;
balance_sketch& balance_sketch::operator=(balance_sketch&&) noexcept = default;

// ---- per packet -------------------------------------------------------------------------------------

uint32_t balance_sketch::pick(uint32_t candidate) {
  if (candidate == bs_random_hop) return uint32_t(rng_.below(cfg_.next_hops));
  return candidate;
}

bs_decision balance_sketch::process(uint32_t flow_hash, uint32_t fingerprint, uint32_t bytes, uint64_t now_ps,
                                    uint32_t candidate_hop) {
  if (candidate_hop != bs_random_hop && candidate_hop >= cfg_.next_hops)
    throw std::invalid_argument("balance_sketch: candidate_hop " + std::to_string(candidate_hop) + " >= next_hops");
  const uint32_t bucket = flow_hash % cfg_.buckets;
  uint32_t f = fingerprint & fp_mask_;
  if (f == 0) f = 1;   // 0 is the empty key (registers start at 0)
  bs_decision d;
  switch (cfg_.form) {
    case bs_form::software: d = process_software(bucket, f, now_ps, candidate_hop); break;
    case bs_form::pipeline: d = process_pipeline(bucket, f, now_ps, candidate_hop); break;
    case bs_form::stateful_alu: d = process_stateful_alu(bucket, f, now_ps, candidate_hop); break;
  }
  count(d, bytes);
  return d;
}

bs_decision balance_sketch::process_software(uint32_t b, uint32_t f, uint64_t now_ps, uint32_t candidate) {
  bs_decision d;
  d.bucket = b;
  const uint64_t ts = timestamp_of(now_ps);
  bs_cell* c = &cells_[size_t(b) * cfg_.cells];
  const uint32_t n = cfg_.cells;
  auto gap = [&](const bs_cell& x) { return (ts - x.timestamp) & ts_mask_; };
  auto take = [&](bs_cell& x) { x = bs_cell{f, 1, ts, bs_null_hop}; };

  // 1. The flow resides in a cell. Idle > Δ means it ended and this is a new flow (Case 1),
  //    otherwise Case 2: a gap > δ after a burst (vote > F) starts a BurstFollower.
  uint32_t at = n;
  for (uint32_t i = 0; i < n; ++i)
    if (c[i].fingerprint == f) { at = i; break; }
  if (at < n) {
    bs_cell& x = c[at];
    const uint64_t g = gap(x);
    if (g > n_Delta_) {
      take(x);
      d.event = bs_event::restart;
    } else {
      d.event = bs_event::hit;
      if (g > n_delta_) {
        d.flowlet_start = true;
        if (x.vote > cfg_.F) {
          x.next_hop = pick(candidate);
          d.path_change = true;
        }
      }
      if (x.vote < vote_cap_) ++x.vote;
      x.timestamp = ts;
    }
  } else {
    // 2. An empty cell, or one whose flow ended (Case 1), lowest index first.
    for (uint32_t i = 0; i < n; ++i) {
      if (c[i].fingerprint == 0 || gap(c[i]) > n_Delta_) {
        d.event = c[i].fingerprint == 0 ? bs_event::insert : bs_event::expire;
        take(c[i]);
        at = i;
        break;
      }
    }
    if (at == n) {
      // 3. Case 3 on the cell with the fewest votes (lowest index on ties). A manipulated flow
      //    (next_hop set) is not voted out: it leaves only by idling > Δ (§3.4 Case 3).
      uint32_t m = 0;
      for (uint32_t i = 1; i < n; ++i)
        if (c[i].vote < c[m].vote) m = i;
      bs_cell& x = c[m];
      d.cell = m;
      if (x.vote > 0) {
        --x.vote;
        d.vote_decremented = true;
      }
      if (x.vote == 0 && x.next_hop == bs_null_hop) {
        take(x);
        d.event = bs_event::replace;
        at = m;
      } else {
        d.event = d.vote_decremented ? bs_event::decrement : bs_event::blocked;
      }
    }
  }
  if (at < n) {
    d.cell = at;
    if (c[at].next_hop != bs_null_hop) {
      d.steer = true;
      d.next_hop = c[at].next_hop;
    }
  }
  return d;
}

bs_decision balance_sketch::process_pipeline(uint32_t b, uint32_t f, uint64_t now_ps, uint32_t candidate) {
  bs_decision d;
  d.bucket = b;
  bs_tofino_entry& e = pipe_[b];
  const uint32_t ts_now = uint32_t(timestamp_of(now_ps));
  const uint32_t now_w = uint32_t((now_ps / slice_) & sch_mask_);

  // Stage 1, SEL_ID: vote up on a match, down otherwise; at vote 1 a newcomer takes the entry.
  const bool match = e.sel_fingerprint == f, low = e.sel_vote_word == 0;
  const uint32_t v_old = e.sel_vote_word;
  if (match) {
    if (e.sel_vote_word < id_mask_) ++e.sel_vote_word;
  } else {
    if (e.sel_vote_word > 0) --e.sel_vote_word;
    if (low) e.sel_fingerprint = f;
  }
  const bool took = !match && low, resident = match || took;

  // Stage 2, SEL_TS.
  const uint32_t ts_old = e.sel_timestamp;
  if (resident) e.sel_timestamp = ts_now;

  // Stage 3: gap tests on the old timestamp.
  const uint64_t gap = (uint64_t(ts_now) - ts_old) & ts_mask_;
  d.flowlet_start = match && gap > n_delta_;
  const bool sch = d.flowlet_start && uint64_t(v_old) + 1 > cfg_.F;
  d.bucket_clear = !resident && gap > n_Delta_;

  // Stage 4, SCH_ID.
  const bool mt = e.sch_fingerprint == f, expired = e.sch_deadline <= now_w;
  const uint32_t deadline = uint32_t((uint64_t(now_w) + n_Delta_ + 1) & sch_mask_);
  bool resident_sch = mt;
  if (sch && (mt || expired)) {
    e.sch_fingerprint = f;
    e.sch_deadline = deadline;
    resident_sch = true;
  } else if (mt) {
    e.sch_deadline = deadline;
  }
  d.scheduler_claim = sch && !mt && expired;
  d.scheduler_blocked = sch && !mt && !expired;

  // Stage 5, SCH_NH.
  if (sch && resident_sch) {
    e.sch_next_hop = pick(candidate);
    d.path_change = true;
  }
  d.steer = resident_sch;
  if (resident_sch) d.next_hop = e.sch_next_hop;

  // The mirrored packet's pass, modelled as landing before the next packet.
  if (d.bucket_clear) {
    e.sel_fingerprint = 0;
    e.sel_vote_word = 0;
  }
  d.event = match ? bs_event::hit : took ? bs_event::replace : bs_event::decrement;
  d.vote_decremented = !resident;
  return d;
}

bs_decision balance_sketch::process_stateful_alu(uint32_t b, uint32_t f, uint64_t now_ps, uint32_t candidate) {
  bs_decision d;
  d.bucket = b;
  const uint32_t ts_now = uint32_t(timestamp_of(now_ps));
  const uint32_t now_w = uint32_t((now_ps / slice_) & sch_mask_);
  const uint64_t pass = ++pass_;

  const stateful_alu_result r1 = sel_id_->execute(0, pass, b, f, 0);
  const bool match = r1.p_lo, took = !r1.p_lo && r1.p_hi, resident = match || took;
  const uint32_t v_old = r1.output;

  const stateful_alu_result r2 = sel_ts_->execute(0, pass, b, ts_now, resident ? 1 : 0);
  const uint64_t gap = (uint64_t(ts_now) - r2.output) & ts_mask_;
  d.flowlet_start = match && gap > n_delta_;
  const bool sch = d.flowlet_start && uint64_t(v_old) + 1 > cfg_.F;
  d.bucket_clear = !resident && gap > n_Delta_;

  const stateful_alu_result r3 = sch_id_->execute(sch ? 0 : 1, pass, b, f, now_w);
  const bool resident_sch = r3.output != 0;
  d.scheduler_claim = sch && !r3.p_lo && r3.p_hi;
  d.scheduler_blocked = sch && !r3.p_lo && !r3.p_hi;

  const bool assign = sch && resident_sch;
  const uint32_t hop = assign ? pick(candidate) : 0;
  const stateful_alu_result r4 = sch_nh_->execute(0, pass, b, hop, assign ? 1 : 0);
  d.path_change = assign;
  d.steer = resident_sch;
  if (resident_sch) d.next_hop = r4.output;

  if (d.bucket_clear) sel_id_->execute(1, ++pass_, b, 0, 0);   // the mirrored packet, recirculated
  d.event = match ? bs_event::hit : took ? bs_event::replace : bs_event::decrement;
  d.vote_decremented = !resident;
  return d;
}

void balance_sketch::count(const bs_decision& d, uint32_t bytes) {
  ++count_.packets;
  count_.bytes += bytes;
  switch (d.event) {
    case bs_event::hit: ++count_.hits; break;
    case bs_event::insert: ++count_.inserts; break;
    case bs_event::expire: ++count_.expirations; break;
    case bs_event::restart: ++count_.restarts; break;
    case bs_event::replace: ++count_.replacements; break;
    case bs_event::decrement: break;
    case bs_event::blocked: ++count_.blocked; break;
  }
  // Software: Case 3 packets. Tofino form: takes of empty and vote-1 entries look alike (vote
  // word 0), so only residents that stay count.
  const bool software = cfg_.form == bs_form::software;
  if (d.event == bs_event::decrement || (software && (d.event == bs_event::replace || d.event == bs_event::blocked)))
    ++count_.collisions;
  if (d.vote_decremented) ++count_.vote_decrements;
  if (d.flowlet_start) ++count_.flowlet_starts;
  if (d.path_change) ++count_.path_changes;
  if (d.steer) {
    ++count_.steered_packets;
    count_.steered_bytes += bytes;
  }
  if (d.bucket_clear) ++count_.bucket_clears;
  if (d.scheduler_claim) ++count_.scheduler_claims;
  if (d.scheduler_blocked) ++count_.scheduler_blocked;
}

// ---- inspection -------------------------------------------------------------------------------------

uint64_t balance_sketch::occupancy() const {
  uint64_t n = 0;
  switch (cfg_.form) {
    case bs_form::software:
      for (const bs_cell& c : cells_) n += c.fingerprint != 0;
      break;
    case bs_form::pipeline:
      for (const bs_tofino_entry& e : pipe_) n += e.sel_fingerprint != 0;
      break;
    case bs_form::stateful_alu:
      for (uint32_t i = 0; i < cfg_.buckets; ++i) n += sel_id_->read(i).lo != 0;
      break;
  }
  return n;
}

uint64_t balance_sketch::scheduler_occupancy() const {
  uint64_t n = 0;
  if (cfg_.form == bs_form::software) return 0;
  for (uint32_t i = 0; i < cfg_.buckets; ++i) n += tofino_entry(i).sch_fingerprint != 0;
  return n;
}

bs_cell balance_sketch::cell(uint32_t bucket, uint32_t index) const {
  if (cfg_.form != bs_form::software) throw std::logic_error("balance_sketch: cell() is for the software form");
  if (bucket >= cfg_.buckets || index >= cfg_.cells) throw std::out_of_range("balance_sketch: no such cell");
  return cells_[size_t(bucket) * cfg_.cells + index];
}

bs_tofino_entry balance_sketch::tofino_entry(uint32_t bucket) const {
  if (cfg_.form == bs_form::software) throw std::logic_error("balance_sketch: tofino_entry() is for the Tofino form");
  if (bucket >= cfg_.buckets) throw std::out_of_range("balance_sketch: no such bucket");
  if (cfg_.form == bs_form::pipeline) return pipe_[bucket];
  bs_tofino_entry e;
  const stateful_alu_entry id = sel_id_->read(bucket), sch = sch_id_->read(bucket);
  e.sel_fingerprint = id.lo;
  e.sel_vote_word = id.hi;
  e.sel_timestamp = sel_ts_->read(bucket).lo;
  e.sch_fingerprint = sch.lo;
  e.sch_deadline = sch.hi;
  e.sch_next_hop = sch_nh_->read(bucket).lo;
  return e;
}

unsigned balance_sketch::bits_per_cell() const {
  return cfg_.fingerprint_bits + cfg_.vote_bits + cfg_.timestamp_bits + bits_for(uint64_t(cfg_.next_hops) + 1);
}

bs_tofino_resources balance_sketch::tofino_resources() const {
  if (cfg_.form == bs_form::software) throw std::logic_error("balance_sketch: the software form has no Tofino mapping");
  bs_tofino_resources r;
  r.sel_id_width = w_id_;
  r.sel_ts_width = w_ts_;
  r.sch_id_width = w_sch_;
  r.sch_nh_width = w_nh_;
  r.sram_bits = uint64_t(cfg_.buckets) * (2 * w_id_ + w_ts_ + 2 * w_sch_ + w_nh_);
  return r;
}

uint64_t balance_sketch::memory_bits() const {
  if (cfg_.form == bs_form::software) return uint64_t(cfg_.buckets) * cfg_.cells * bits_per_cell();
  return tofino_resources().sram_bits;
}

uint64_t balance_sketch::stateful_alu_executions() const {
  if (cfg_.form != bs_form::stateful_alu) return 0;
  return sel_id_->executions() + sel_ts_->executions() + sch_id_->executions() + sch_nh_->executions();
}

}  // namespace netasic
