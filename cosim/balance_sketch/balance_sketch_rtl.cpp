// RTL in the loop for BalanceSketch (see the header). Built into netasic_cosim, which Verilates
// rtl/ (CMakeLists.txt).
#include "cosim/balance_sketch/balance_sketch_rtl.h"

#include <verilated.h>

#include <stdexcept>
#include <string>

#include "Vbalance_sketch.h"
#include "Vbalance_sketch___024root.h"
#include "cosim/harness/dut.h"
#include "common/rng.h"

// The parameters Vbalance_sketch was Verilated with: the RTL's defaults unless the build passes
// -G to Verilator and the same values here (Verilator keeps no parameter in the model without
// public scopes). The cosim bench's build-variant macros (NETASIC_BS_*) are taken when defined,
// so one set of -D serves both. The init sweep's length (BUCKETS), the width of the Null next
// hop (NEXT_HOPS) and the cells of a bucket (CELLS) are checked against the model at construction.
#ifndef BALANCE_SKETCH_RTL_BUCKETS
#define BALANCE_SKETCH_RTL_BUCKETS 250
#endif
#ifndef BALANCE_SKETCH_RTL_CELLS
#define BALANCE_SKETCH_RTL_CELLS 1
#endif
#ifndef BALANCE_SKETCH_RTL_FINGERPRINT_BITS
#define BALANCE_SKETCH_RTL_FINGERPRINT_BITS 16
#endif
#ifndef BALANCE_SKETCH_RTL_VOTE_BITS
#define BALANCE_SKETCH_RTL_VOTE_BITS 16
#endif
#ifndef BALANCE_SKETCH_RTL_TIMESTAMP_BITS
#define BALANCE_SKETCH_RTL_TIMESTAMP_BITS 8
#endif
#ifndef BALANCE_SKETCH_RTL_NEXT_HOPS
#define BALANCE_SKETCH_RTL_NEXT_HOPS 4096
#endif
#ifndef BALANCE_SKETCH_RTL_COUNTER_BITS
#define BALANCE_SKETCH_RTL_COUNTER_BITS 64
#endif

namespace netasic {

namespace {

static_assert(BALANCE_SKETCH_RTL_COUNTER_BITS == 64,
              "the core's counters are 64-bit: the RTL must be Verilated with COUNTER_BITS=64");

// bits to tell `values` values apart (the RTL's $clog2, the core's bits_for)
unsigned bits_for(uint64_t values) {
  unsigned b = 0;
  while (b < 64 && (uint64_t(1) << b) < values) ++b;
  return b;
}

constexpr unsigned ts_bits = BALANCE_SKETCH_RTL_TIMESTAMP_BITS;
constexpr uint64_t period_slices = ts_bits < 64 ? uint64_t(1) << (ts_bits % 64) : 0;   // 2^s; 0: 2^64
const unsigned nh_bits = bits_for(uint64_t(BALANCE_SKETCH_RTL_NEXT_HOPS) + 1);
const uint64_t nh_null = (uint64_t(1) << nh_bits) - 1;   // the RTL's Null next hop (all ones)

void fail(const std::string& what) { throw std::invalid_argument("balance_sketch_rtl: " + what); }

void check(bool ok, const std::string& field, uint64_t got, uint64_t rtl, const char* param) {
  if (!ok)
    fail(field + " is " + std::to_string(got) + " but the RTL was Verilated with " + param + "=" + std::to_string(rtl));
}

}  // namespace

struct balance_sketch_rtl::impl {
  cosim::dut<Vbalance_sketch> m;

  uint64_t slice = 1;
  uint64_t wrap_ps = 0;       // 2^s slices in ps; 0 when it does not fit 64 bits (no time folding)
  uint64_t offset = 0;        // in_now_ps = now_ps - offset, a multiple of wrap_ps
  uint64_t cur = 0;           // the RTL's slice number (unfolded): floor(in_now_ps / slice)
  uint64_t last_now = 0;
  uint64_t cycles = 0, idle = 0;
  uint64_t inserts = 0;       // occupancy
  bs_counters count;
  rng draw;                   // bs_random_hop, as the core's rng
  bool peeked = false;        // a drawn hop waiting for the next path change
  uint32_t peek = 0;

  explicit impl(uint64_t seed) : draw(seed) {}

  void tick() { m.tick(); }
  // Reset (in_now_ps 0, below one slice, as the slice counter needs) and the init sweep; returns
  // the sweep's length in cycles (capped past what BUCKETS allows).
  uint64_t reset() {
    m->in_now_ps = 0;
    m->in_valid = 0;
    m->in_hash = 0;
    m->in_fingerprint = 0;
    m->in_bytes = 0;
    m->in_hop = 0;
    m->rst = 1;
    tick();
    tick();
    m->rst = 0;
    uint64_t n = 0;
    while (!m->ready && n <= 2 * uint64_t(BALANCE_SKETCH_RTL_BUCKETS) + 2) {
      tick();
      ++n;
    }
    return n;
  }
  // One packet at the current in_now_ps: its cycle, then the drain cycle.
  void packet(uint32_t hash, uint32_t fp, uint32_t bytes, uint32_t hop) {
    m->in_valid = 1;
    m->in_hash = hash;
    m->in_fingerprint = fp;
    m->in_bytes = bytes;
    m->in_hop = hop;
    tick();
    m->in_valid = 0;
    tick();
    cycles += 2;
  }
};

balance_sketch_config balance_sketch_rtl::rtl_parameters() {
  balance_sketch_config c;
  c.form = bs_form::software;
  c.buckets = BALANCE_SKETCH_RTL_BUCKETS;
  c.cells = BALANCE_SKETCH_RTL_CELLS;
  c.fingerprint_bits = BALANCE_SKETCH_RTL_FINGERPRINT_BITS;
  c.vote_bits = BALANCE_SKETCH_RTL_VOTE_BITS;
  c.timestamp_bits = BALANCE_SKETCH_RTL_TIMESTAMP_BITS;
  c.next_hops = BALANCE_SKETCH_RTL_NEXT_HOPS;
  return c;
}

balance_sketch_rtl::balance_sketch_rtl(const balance_sketch_config& cfg, rtl_loop_count* count) : cfg_(cfg), count_(count) {
  if (cfg.form != bs_form::software)
    fail("form must be software (the RTL is Algorithm 1; the Tofino forms pipeline and stateful_alu are not)");
  const balance_sketch_config r = rtl_parameters();
  check(cfg.buckets == r.buckets, "buckets", cfg.buckets, r.buckets, "BUCKETS");
  check(cfg.cells == r.cells, "cells", cfg.cells, r.cells, "CELLS");
  check(cfg.fingerprint_bits == r.fingerprint_bits, "fingerprint_bits", cfg.fingerprint_bits, r.fingerprint_bits,
        "FINGERPRINT_BITS");
  check(cfg.vote_bits == r.vote_bits, "vote_bits", cfg.vote_bits, r.vote_bits, "VOTE_BITS");
  check(cfg.timestamp_bits == r.timestamp_bits, "timestamp_bits", cfg.timestamp_bits, r.timestamp_bits,
        "TIMESTAMP_BITS");
  check(cfg.next_hops == r.next_hops, "next_hops", cfg.next_hops, r.next_hops, "NEXT_HOPS");
  // The values the RTL takes as cfg_* inputs: the core's own checks (slice divides δ and Δ,
  // Δ / slice <= 2^s - 2, ...), with its messages, and its slice arithmetic.
  uint64_t slice = 0;
  {
    const balance_sketch core(cfg);
    n_delta_ = core.delta_slices();
    n_Delta_ = core.Delta_slices();
    slice = cfg.slice_ps ? cfg.slice_ps : cfg.delta_ps;
  }

  p_ = std::make_unique<impl>(cfg.seed);
  if (count) p_->m.count_cycles(&count->cycles);
  impl& p = *p_;
  p.slice = slice;
  if (period_slices && slice <= ~uint64_t(0) / period_slices) p.wrap_ps = slice * period_slices;
  auto& m = *p.m;
  m.cfg_slice_ps = slice;
  m.cfg_delta_slices = n_delta_;   // both < 2^s (the core checked Δ / slice <= 2^s - 2)
  m.cfg_Delta_slices = n_Delta_;
  m.cfg_F = cfg.F;

  auto mismatch = [](const std::string& what) {
    throw std::runtime_error("balance_sketch_rtl: " + what +
                             ": the BALANCE_SKETCH_RTL_* values do not match the Verilated parameters");
  };
  // The init sweep clears one bucket per cycle: its length checks BUCKETS.
  const uint64_t sweep = p.reset();
  if (sweep != cfg.buckets)
    mismatch("the RTL's init sweep took " + std::to_string(sweep) + " cycles, expected buckets = " +
             std::to_string(cfg.buckets));
  // The decision outputs reset to Null: its width checks NEXT_HOPS (as far as $clog2 tells).
  if (uint64_t(m.out_next_hop) != nh_null)
    mismatch("the RTL's Null next hop is " + std::to_string(uint64_t(m.out_next_hop)) + ", expected " +
             std::to_string(nh_null));
  // CELLS: cells + 1 flows into bucket 0 at time 0; the first `cells` are inserts into cells
  // 0, 1, ..., the last votes cell 0 down to 0 and replaces it. Then reset again.
  if (uint64_t(cfg.cells) + 1 <= ((uint64_t(1) << cfg.fingerprint_bits) - 1)) {
    for (uint32_t k = 0; k <= cfg.cells; ++k) {
      p.packet(k * cfg.buckets, k + 1, 64, 0);
      const bool last = k == cfg.cells;
      const uint64_t ev = m.out_event, cell = m.out_cell;
      const uint64_t want_ev = uint64_t(last ? bs_event::replace : bs_event::insert), want_cell = last ? 0 : k;
      if (!m.out_valid || ev != want_ev || cell != want_cell)
        mismatch("probe packet " + std::to_string(k) + " into a bucket of " + std::to_string(cfg.cells) +
                 " cells gave event " + std::to_string(ev) + " in cell " + std::to_string(cell) + ", expected " +
                 std::to_string(want_ev) + " in cell " + std::to_string(want_cell));
    }
    p.reset();
  }
  p.cycles = 0;
  p.idle = 0;
}

balance_sketch_rtl::~balance_sketch_rtl() = default;

unsigned balance_sketch_rtl::bits_per_cell() const {
  return cfg_.fingerprint_bits + cfg_.vote_bits + cfg_.timestamp_bits + bits_for(uint64_t(cfg_.next_hops) + 1);
}

bs_decision balance_sketch_rtl::process(uint32_t flow_hash, uint32_t fingerprint, uint32_t bytes, uint64_t now_ps,
                                        uint32_t candidate_hop) {
  impl& p = *p_;
  if (candidate_hop != bs_random_hop && candidate_hop >= cfg_.next_hops)
    fail("candidate_hop " + std::to_string(candidate_hop) + " >= next_hops");
  if (now_ps < p.last_now)
    throw std::logic_error("balance_sketch_rtl: time went backwards (" + std::to_string(now_ps) + " ps after " +
                           std::to_string(p.last_now) + " ps)");
  p.last_now = now_ps;

  uint32_t hop = candidate_hop;
  if (hop == bs_random_hop) {
    if (!p.peeked) {
      p.peek = uint32_t(p.draw.below(cfg_.next_hops));
      p.peeked = true;
    }
    hop = p.peek;
  }

  // Time: fold whole 2^s-slice periods into the offset (leaving 1..2^s slices to walk when the
  // slice advances at all), then walk to within one slice of the target, one boundary per cycle.
  auto& m = *p.m;
  uint64_t t = now_ps - p.offset;
  uint64_t target = t / p.slice;
  if (p.wrap_ps && target - p.cur > period_slices) {
    const uint64_t periods = (target - p.cur - 1) / period_slices;
    p.offset += periods * p.wrap_ps;
    t -= periods * p.wrap_ps;
    target -= periods * period_slices;
  }
  m.in_valid = 0;
  while (target > p.cur + 1) {
    ++p.cur;
    m.in_now_ps = p.cur * p.slice;
    p.tick();
    ++p.cycles;
    ++p.idle;
  }
  m.in_now_ps = t;
  p.cur = target;

  const uint32_t fp_mask = cfg_.fingerprint_bits >= 32 ? 0xFFFFFFFFu : (uint32_t(1) << cfg_.fingerprint_bits) - 1;
  p.packet(flow_hash, fingerprint & fp_mask, bytes, hop);
  if (!m.out_valid) throw std::runtime_error("balance_sketch_rtl: no decision two cycles after the packet");

  bs_decision d;
  d.steer = m.out_steer;
  d.next_hop = uint64_t(m.out_next_hop) == nh_null ? bs_null_hop : uint32_t(m.out_next_hop);
  d.path_change = m.out_path_change;
  d.flowlet_start = m.out_flowlet_start;
  if (m.out_event > uint8_t(bs_event::blocked))
    throw std::runtime_error("balance_sketch_rtl: out_event " + std::to_string(unsigned(m.out_event)));
  d.event = bs_event(m.out_event);
  d.vote_decremented = m.out_vote_decremented;
  d.bucket = uint32_t(m.out_bucket);
  d.cell = uint32_t(m.out_cell);
  // bucket_clear, scheduler_claim, scheduler_blocked: Tofino form only, false as in the core.

  if (d.path_change && candidate_hop == bs_random_hop) p.peeked = false;   // the core drew it now
  p.inserts += d.event == bs_event::insert;

  // Counters after the drain cycle: the pipeline is empty, so they include this packet and
  // nothing else moves them until the next call.
  bs_counters& c = p.count;
  c.packets = m.cnt_packets;
  c.bytes = m.cnt_bytes;
  c.hits = m.cnt_hits;
  c.inserts = m.cnt_inserts;
  c.expirations = m.cnt_expirations;
  c.restarts = m.cnt_restarts;
  c.replacements = m.cnt_replacements;
  c.collisions = m.cnt_collisions;
  c.vote_decrements = m.cnt_vote_decrements;
  c.blocked = m.cnt_blocked;
  c.flowlet_starts = m.cnt_flowlet_starts;
  c.path_changes = m.cnt_path_changes;
  c.steered_packets = m.cnt_steered_packets;
  c.steered_bytes = m.cnt_steered_bytes;
  if (count_) ++count_->calls;
  return d;
}

const bs_counters& balance_sketch_rtl::counters() const { return p_->count; }
uint64_t balance_sketch_rtl::occupancy() const { return p_->inserts; }
uint64_t balance_sketch_rtl::rtl_cycles() const { return p_->cycles; }
uint64_t balance_sketch_rtl::idle_cycles() const { return p_->idle; }

rtl_loop_block balance_sketch_rtl_loop() {
  const balance_sketch_config r = balance_sketch_rtl::rtl_parameters();
  rtl_loop_block b;
  b.fixed_keys = {{"lb.sketch.buckets", r.buckets}, {"lb.sketch.cells", r.cells},
                  {"lb.sketch.fingerprint_bits", r.fingerprint_bits}, {"lb.sketch.timestamp_bits", r.timestamp_bits}};
  b.unused = [](const config& c) {
    return c.string("lb.mode") == "balance_sketch" && c.string("lb.sketch.form") == "software"
               ? "" : "it needs lb.mode = \"balance_sketch\" with lb.sketch.form = \"software\"";
  };
  b.use = [](rtl_loop& loop, rtl_loop_count* count) {
    loop.balance_sketch = [count](const balance_sketch_config& c) { return std::make_unique<balance_sketch_rtl>(c, count); };
  };
  return b;
}

}  // namespace netasic
