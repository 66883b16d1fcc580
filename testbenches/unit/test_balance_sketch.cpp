// BalanceSketch against references written here from the paper (BurstBalancer, journal version):
//   - the software form against Algorithm 1 with the multi-cell bucket of §3.6 and compact
//     timestamps, the reference keeping full slice numbers and reducing the gap modulo 2^s
//     itself; random streams on tiny tables (always full), tiny fingerprints (collisions), tiny
//     votes (saturation) and tiny timestamps (wrap), checking every decision and cell;
//   - with slice = 1 ps and 64-bit timestamps, against Algorithm 1 taken literally
//     (t - time > δ, t - time > Δ on full times);
//   - the Tofino form as plain C++ (pipeline) against the same form on stateful ALUs (form stateful_alu):
//     identical decisions, registers and counters on random streams;
//   - software and Tofino forms agree where the paper's two designs coincide (no collisions,
//     no idle time beyond Δ);
//   - directed tests for δ, Δ, F, the wrap, the paper's Figure 2 and 4 examples, the mirror clear,
//     the selector/scheduler split, configs and memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "blocks/balance_sketch.h"
#include "common/rng.h"

using namespace netasic;

namespace {

constexpr uint64_t us = 1'000'000, ms = 1'000'000'000;

// ---- reference: Algorithm 1 + multi-cell, compact timestamps ----------------------------------

struct ref_cell {
  bool used = false;
  uint32_t id = 0;
  uint64_t vote = 0;
  uint64_t slice = 0;     // full slice number of the last packet; the sketch only knows it mod 2^s
  int64_t hop = -1;       // -1 = Null
};

struct ref_result {
  bool steer = false;
  int64_t hop = -1;
  bool path_change = false, flowlet = false, decremented = false;
  bs_event event = bs_event::hit;
  uint32_t bucket = 0, cell = 0;
  uint64_t true_idle = 0;   // matched cell: slices since its last packet, not reduced mod 2^s
};

struct ref_sketch {
  uint32_t l, d;
  uint32_t fp_mask;
  uint64_t vote_cap, ts_mask, slice, nd, nD;
  uint32_t F, hops;
  rng r;
  std::vector<ref_cell> B;
  bs_counters c;

  explicit ref_sketch(const balance_sketch_config& k)
      : l(k.buckets), d(k.cells),
        fp_mask(k.fingerprint_bits == 32 ? 0xFFFFFFFFu : (1u << k.fingerprint_bits) - 1),
        vote_cap((uint64_t(1) << k.vote_bits) - 1),
        ts_mask(k.timestamp_bits == 64 ? ~uint64_t(0) : (uint64_t(1) << k.timestamp_bits) - 1),
        slice(k.slice_ps ? k.slice_ps : k.delta_ps), nd(k.delta_ps / slice), nD(k.Delta_ps / slice),
        F(k.F), hops(k.next_hops), r(k.seed), B(size_t(k.buckets) * k.cells) {}

  // "Spaced by at least n time slices": n whole slices between the two packets, i.e. the slice
  // numbers differ by n + 1 or more. The sketch sees the difference modulo 2^s only.
  uint64_t seen(const ref_cell& x, uint64_t now) const { return (now - x.slice) & ts_mask; }
  bool ended(const ref_cell& x, uint64_t now) const { return seen(x, now) >= nD + 1; }
  bool new_flowlet(const ref_cell& x, uint64_t now) const { return seen(x, now) >= nd + 1; }

  ref_result process(uint32_t hash, uint32_t fp, uint32_t bytes, uint64_t t, uint32_t cand) {
    ref_result o;
    uint32_t f = fp & fp_mask;
    if (f == 0) f = 1;
    o.bucket = hash % l;
    ref_cell* b = &B[size_t(o.bucket) * d];
    const uint64_t now = t / slice;
    auto reset = [&](ref_cell& x) { x = ref_cell{true, f, 1, now, -1}; };
    auto pick = [&]() { return cand == bs_random_hop ? int64_t(r.below(hops)) : int64_t(cand); };
    int at = -1;
    for (uint32_t i = 0; i < d; ++i)
      if (b[i].used && b[i].id == f) at = int(i);
    if (at >= 0) o.true_idle = now - b[at].slice;
    if (at >= 0 && ended(b[at], now)) {              // Case 1: the resided flow ended
      reset(b[at]);
      o.event = bs_event::restart;
    } else if (at >= 0) {                             // Case 2
      ref_cell& x = b[at];
      if (new_flowlet(x, now)) {
        o.flowlet = true;
        if (x.vote > F) {                             // the previous flowlet was a FlowBurst
          x.hop = pick();
          o.path_change = true;
        }
      }
      x.vote = x.vote + 1 > vote_cap ? vote_cap : x.vote + 1;
      x.slice = now;
    } else {
      for (uint32_t i = 0; i < d && at < 0; ++i) {   // an empty or outdated cell
        if (!b[i].used || ended(b[i], now)) {
          o.event = b[i].used ? bs_event::expire : bs_event::insert;
          reset(b[i]);
          at = int(i);
        }
      }
      if (at < 0) {                                   // Case 3 on the minimum vote
        uint32_t m = 0;
        for (uint32_t i = 0; i < d; ++i)
          if (b[i].vote < b[m].vote) m = i;
        o.cell = m;
        if (b[m].vote > 0) {
          b[m].vote -= 1;
          o.decremented = true;
        }
        if (b[m].vote == 0 && b[m].hop < 0) {
          reset(b[m]);
          o.event = bs_event::replace;
          at = int(m);
        } else {
          o.event = o.decremented ? bs_event::decrement : bs_event::blocked;
        }
      }
    }
    if (at >= 0) {
      o.cell = uint32_t(at);
      o.steer = b[at].hop >= 0;
      o.hop = b[at].hop;
    }
    // counters, kept independently of the sketch's
    ++c.packets;
    c.bytes += bytes;
    if (o.event == bs_event::hit) ++c.hits;
    if (o.event == bs_event::insert) ++c.inserts;
    if (o.event == bs_event::expire) ++c.expirations;
    if (o.event == bs_event::restart) ++c.restarts;
    if (o.event == bs_event::replace) ++c.replacements;
    if (o.event == bs_event::blocked) ++c.blocked;
    if (o.event == bs_event::replace || o.event == bs_event::decrement || o.event == bs_event::blocked) ++c.collisions;
    c.vote_decrements += o.decremented;
    c.flowlet_starts += o.flowlet;
    c.path_changes += o.path_change;
    if (o.steer) {
      ++c.steered_packets;
      c.steered_bytes += bytes;
    }
    return o;
  }
};

// ---- random streams -------------------------------------------------------------------------------

struct flow { uint32_t hash, fp; };

struct stream {
  rng& r;
  uint64_t slice, nd, nD, wrap;   // wrap: 2^s slices, or 2^w of the scheduler
  uint64_t t = 0;
  size_t current = 0;
  int burst_left = 0;

  // Mostly bursts and short gaps so votes grow; then gaps around δ, Δ and the wraps.
  uint64_t next_gap() {
    switch (r.below(40)) {
      case 0: case 1: return nd * slice + r.below(3 * slice);               // around δ
      case 2: return nD * slice - 2 * slice + r.below(5 * slice);           // around Δ
      case 3: return wrap * slice * (1 + r.below(2)) - 2 * slice + r.below(5 * slice);   // around the wrap
      case 4: return r.below(3 * wrap * slice);
      case 5: case 6: case 7: return 0;
      default: return r.below(slice);
    }
  }
  size_t next_flow(size_t flows) {
    if (burst_left > 0) { --burst_left; return current; }
    if (r.below(60) == 0) burst_left = int(100 + r.below(300));   // long bursts reach vote saturation
    else if (r.below(3) == 0) return current;
    current = size_t(r.below(flows));
    return current;
  }
};

std::string where(int run, int k) { return "run " + std::to_string(run) + " packet " + std::to_string(k); }

}  // namespace

// ---- software form against the reference --------------------------------------------------------

TEST(BalanceSketch, SoftwareMatchesReferenceOnRandomStreams) {
  rng r(20261201);
  uint64_t packets = 0, wraps_hidden = 0;
  bs_counters total;
  for (int run = 0; run < 400; ++run) {
    balance_sketch_config k;
    k.form = bs_form::software;
    k.buckets = 1 + uint32_t(r.below(6));
    k.cells = 1 + uint32_t(r.below(4));
    const unsigned fps[] = {1, 2, 3, 4, 6, 16};
    k.fingerprint_bits = fps[r.below(6)];
    const unsigned votes[] = {1, 2, 3, 5, 8, 16};
    k.vote_bits = votes[r.below(6)];
    k.timestamp_bits = 2 + unsigned(r.below(7));          // 2..8: wraps every 4..256 slices
    const uint64_t slice = 1000 * (1 + r.below(5));
    const uint64_t nd = 1 + r.below(2);
    const uint64_t max_nD = (uint64_t(1) << k.timestamp_bits) - 2;
    if (nd > max_nD) continue;
    const uint64_t nD = nd + r.below(max_nD - nd + 1);
    if (r.below(3)) {
      k.slice_ps = slice;
      k.delta_ps = nd * slice;
    } else {
      k.slice_ps = 0;                                     // slice = δ, the paper's choice
      k.delta_ps = slice;
    }
    k.Delta_ps = nD * slice;
    k.F = uint32_t(r.below(6));
    k.next_hops = 1 + uint32_t(r.below(8));
    k.seed = r.next();
    balance_sketch bs(k);
    ref_sketch ref(k);
    const uint64_t eff_slice = k.slice_ps ? k.slice_ps : k.delta_ps;
    stream s{r, eff_slice, bs.delta_slices(), bs.Delta_slices(), uint64_t(1) << k.timestamp_bits};
    std::vector<flow> flows(1 + r.below(3 * k.buckets * k.cells + 3));
    for (flow& f : flows) f = {uint32_t(r.next()), uint32_t(r.below(uint64_t(1) << (k.fingerprint_bits + 1)))};
    for (int n = 0; n < 600; ++n) {
      s.t += s.next_gap();
      const flow& f = flows[s.next_flow(flows.size())];
      const uint32_t bytes = 64 + uint32_t(r.below(1500));
      const uint32_t cand = r.below(2) ? bs_random_hop : uint32_t(r.below(k.next_hops));
      const bs_decision got = bs.process(f.hash, f.fp, bytes, s.t, cand);
      const ref_result want = ref.process(f.hash, f.fp, bytes, s.t, cand);
      const std::string at = where(run, n);
      ASSERT_EQ(got.steer, want.steer) << at;
      ASSERT_EQ(got.next_hop, want.steer ? uint32_t(want.hop) : bs_null_hop) << at;
      ASSERT_EQ(got.path_change, want.path_change) << at;
      ASSERT_EQ(got.flowlet_start, want.flowlet) << at;
      ASSERT_EQ(got.event, want.event) << at;
      ASSERT_EQ(got.vote_decremented, want.decremented) << at;
      ASSERT_EQ(got.bucket, want.bucket) << at;
      ASSERT_EQ(got.cell, want.cell) << at;
      ASSERT_FALSE(got.bucket_clear) << at;
      for (uint32_t i = 0; i < k.cells; ++i) {
        const bs_cell c = bs.cell(got.bucket, i);
        const ref_cell& e = ref.B[size_t(got.bucket) * k.cells + i];
        ASSERT_EQ(c.fingerprint, e.used ? e.id : 0u) << at << " cell " << i;
        ASSERT_EQ(c.vote, e.vote) << at << " cell " << i;
        if (e.used) {
          ASSERT_EQ(c.timestamp, e.slice & ref.ts_mask) << at << " cell " << i;
        }
        ASSERT_EQ(c.next_hop, e.hop < 0 ? bs_null_hop : uint32_t(e.hop)) << at << " cell " << i;
      }
      // The wrap at work: a resident idle 2^s slices or more that still looked alive.
      if (want.event == bs_event::hit && want.true_idle > ref.ts_mask) ++wraps_hidden;
      ++packets;
    }
    uint64_t occ = 0;
    for (const ref_cell& e : ref.B) occ += e.used;
    ASSERT_EQ(bs.occupancy(), occ) << "run " << run;
    const bs_counters& a = bs.counters();
    const bs_counters& b = ref.c;
    ASSERT_EQ(a.packets, b.packets);
    ASSERT_EQ(a.bytes, b.bytes);
    ASSERT_EQ(a.hits, b.hits);
    ASSERT_EQ(a.inserts, b.inserts);
    ASSERT_EQ(a.expirations, b.expirations);
    ASSERT_EQ(a.restarts, b.restarts);
    ASSERT_EQ(a.replacements, b.replacements);
    ASSERT_EQ(a.collisions, b.collisions);
    ASSERT_EQ(a.vote_decrements, b.vote_decrements);
    ASSERT_EQ(a.blocked, b.blocked);
    ASSERT_EQ(a.flowlet_starts, b.flowlet_starts);
    ASSERT_EQ(a.path_changes, b.path_changes);
    ASSERT_EQ(a.steered_packets, b.steered_packets);
    ASSERT_EQ(a.steered_bytes, b.steered_bytes);
    ASSERT_EQ(a.bucket_clears, 0u);
    total.inserts += a.inserts;
    total.expirations += a.expirations;
    total.restarts += a.restarts;
    total.replacements += a.replacements;
    total.blocked += a.blocked;
    total.vote_decrements += a.vote_decrements;
    total.path_changes += a.path_changes;
    total.flowlet_starts += a.flowlet_starts;
  }
  // The mix must reach every case it claims to test.
  EXPECT_GE(packets, 200000u);
  EXPECT_GT(total.inserts, 1000u);
  EXPECT_GT(total.expirations, 1000u);
  EXPECT_GT(total.restarts, 1000u);
  EXPECT_GT(total.replacements, 1000u);
  EXPECT_GT(total.blocked, 500u);
  EXPECT_GT(total.vote_decrements, 3000u);
  EXPECT_GT(total.path_changes, 5000u);
  EXPECT_GT(wraps_hidden, 5000u);
}

// ---- Algorithm 1 taken literally -------------------------------------------------------------------

TEST(BalanceSketch, FullTimestampsAreAlgorithm1Literally) {
  // slice = 1 ps with 64-bit timestamps: the compact tests become t - time > δ and > Δ.
  struct bucket { bool empty = true; uint32_t id = 0; uint64_t vote = 0, time = 0; int64_t nexthop = -1; };
  rng r(77);
  uint64_t changes = 0, packets = 0;
  for (int run = 0; run < 200; ++run) {
    balance_sketch_config k;
    k.buckets = 1 + uint32_t(r.below(8));
    k.fingerprint_bits = 3;
    k.vote_bits = 32;
    k.timestamp_bits = 64;
    k.slice_ps = 1;
    k.delta_ps = 1 + r.below(50 * us);
    k.Delta_ps = k.delta_ps * (1 + r.below(20)) + r.below(us);
    k.F = uint32_t(r.below(4));
    k.next_hops = 1 + uint32_t(r.below(6));
    k.seed = r.next();
    balance_sketch bs(k);
    rng pick(k.seed);
    std::vector<bucket> B(k.buckets);
    uint64_t t = r.below(us);
    std::vector<flow> flows(1 + r.below(12));
    for (flow& f : flows) f = {uint32_t(r.next()), 1 + uint32_t(r.below(7))};
    for (int n = 0; n < 500; ++n) {
      switch (r.below(6)) {
        case 0: t += r.below(2 * k.delta_ps + 2); break;
        case 1: t += k.Delta_ps - 2 + r.below(5); break;
        case 2: t += k.delta_ps - 2 + r.below(5); break;
        default: t += r.below(k.delta_ps / 4 + 1);
      }
      const flow& f = flows[r.below(flows.size())];
      bucket& b = B[f.hash % k.buckets];
      bool change = false;
      if (b.empty || t - b.time > k.Delta_ps) {
        b = {false, f.fp, 1, t, -1};
      } else if (b.id == f.fp) {
        if (b.vote > k.F && t - b.time > k.delta_ps) {
          b.nexthop = int64_t(pick.below(k.next_hops));
          change = true;
        }
        b.vote += 1;
        b.time = t;
      } else {
        if (b.vote > 0) b.vote -= 1;
        if (b.vote == 0 && b.nexthop < 0) b = {false, f.fp, 1, t, -1};
      }
      const bool steer = b.id == f.fp && b.nexthop >= 0;
      const bs_decision d = bs.process(f.hash, f.fp, 1000, t);
      ASSERT_EQ(d.path_change, change) << where(run, n);
      ASSERT_EQ(d.steer, steer) << where(run, n);
      if (steer) {
        ASSERT_EQ(d.next_hop, uint32_t(b.nexthop)) << where(run, n);
      }
      changes += change;
      ++packets;
    }
  }
  EXPECT_EQ(packets, 100000u);
  EXPECT_GT(changes, 2000u);
}

// ---- Tofino form: plain C++ against the stateful ALUs ------------------------------------------------

TEST(BalanceSketch, TofinoPipelineAndStatefulAluGiveIdenticalDecisions) {
  rng r(4242);
  uint64_t packets = 0, saturated = 0;
  bs_counters total;
  for (int run = 0; run < 300; ++run) {
    balance_sketch_config k;
    k.buckets = 1 + uint32_t(r.below(6));
    const unsigned ts_bits[] = {2, 3, 4, 5, 6, 8, 16};
    k.timestamp_bits = ts_bits[r.below(7)];
    const unsigned sch_bits[] = {8, 16, 32};
    k.scheduler_timestamp_bits = sch_bits[r.below(3)];
    const unsigned fps[] = {1, 2, 3, 4, 8};
    k.fingerprint_bits = fps[r.below(5)];
    const unsigned votes[] = {1, 3, 8, 16};
    k.vote_bits = votes[r.below(4)];
    const uint64_t slice = 1000 * (1 + r.below(4));
    const uint64_t max_nD = std::min<uint64_t>((uint64_t(1) << k.timestamp_bits) - 2, 200);
    const uint64_t nd = 1 + r.below(2);
    if (nd > max_nD) continue;
    const uint64_t nD = nd + r.below(max_nD - nd + 1);
    k.slice_ps = slice;
    k.delta_ps = nd * slice;
    k.Delta_ps = nD * slice;
    k.F = uint32_t(r.below(6));
    k.next_hops = 1 + uint32_t(r.below(8));
    k.seed = r.next();
    k.form = bs_form::pipeline;
    balance_sketch pipe(k);
    k.form = bs_form::stateful_alu;
    balance_sketch alu(k);
    const uint64_t wrap = r.below(2) || k.scheduler_timestamp_bits == 32 ? uint64_t(1) << k.timestamp_bits
                                                                          : uint64_t(1) << k.scheduler_timestamp_bits;
    stream s{r, slice, nd, nD, wrap};
    std::vector<flow> flows(1 + r.below(3 * k.buckets + 3));
    for (flow& f : flows) f = {uint32_t(r.next()), uint32_t(r.below(uint64_t(1) << (k.fingerprint_bits + 1)))};
    const uint32_t id_max = pipe.tofino_resources().sel_id_width == 32 ? 0xFFFFFFFFu
                                                                       : (1u << pipe.tofino_resources().sel_id_width) - 1;
    for (int n = 0; n < 700; ++n) {
      s.t += s.next_gap();
      const flow& f = flows[s.next_flow(flows.size())];
      const uint32_t bytes = 64 + uint32_t(r.below(9000));
      const uint32_t cand = r.below(2) ? bs_random_hop : uint32_t(r.below(k.next_hops));
      const bs_decision a = pipe.process(f.hash, f.fp, bytes, s.t, cand);
      const bs_decision b = alu.process(f.hash, f.fp, bytes, s.t, cand);
      const std::string at = where(run, n);
      ASSERT_EQ(a.steer, b.steer) << at;
      ASSERT_EQ(a.next_hop, b.next_hop) << at;
      ASSERT_EQ(a.path_change, b.path_change) << at;
      ASSERT_EQ(a.flowlet_start, b.flowlet_start) << at;
      ASSERT_EQ(a.event, b.event) << at;
      ASSERT_EQ(a.vote_decremented, b.vote_decremented) << at;
      ASSERT_EQ(a.bucket_clear, b.bucket_clear) << at;
      ASSERT_EQ(a.scheduler_claim, b.scheduler_claim) << at;
      ASSERT_EQ(a.scheduler_blocked, b.scheduler_blocked) << at;
      ASSERT_EQ(a.bucket, b.bucket) << at;
      if (a.steer) {
        ASSERT_LT(a.next_hop, k.next_hops) << at;
      }
      const bs_tofino_entry x = pipe.tofino_entry(a.bucket), y = alu.tofino_entry(a.bucket);
      ASSERT_EQ(x.sel_fingerprint, y.sel_fingerprint) << at;
      ASSERT_EQ(x.sel_vote_word, y.sel_vote_word) << at;
      ASSERT_EQ(x.sel_timestamp, y.sel_timestamp) << at;
      ASSERT_EQ(x.sch_fingerprint, y.sch_fingerprint) << at;
      ASSERT_EQ(x.sch_deadline, y.sch_deadline) << at;
      ASSERT_EQ(x.sch_next_hop, y.sch_next_hop) << at;
      saturated += x.sel_vote_word == id_max;
      ++packets;
    }
    for (uint32_t i = 0; i < k.buckets; ++i) {
      const bs_tofino_entry x = pipe.tofino_entry(i), y = alu.tofino_entry(i);
      ASSERT_EQ(x.sel_fingerprint, y.sel_fingerprint);
      ASSERT_EQ(x.sch_deadline, y.sch_deadline);
    }
    const bs_counters& a = pipe.counters();
    const bs_counters& b = alu.counters();
    ASSERT_EQ(a.packets, b.packets);
    ASSERT_EQ(a.hits, b.hits);
    ASSERT_EQ(a.replacements, b.replacements);
    ASSERT_EQ(a.collisions, b.collisions);
    ASSERT_EQ(a.vote_decrements, b.vote_decrements);
    ASSERT_EQ(a.flowlet_starts, b.flowlet_starts);
    ASSERT_EQ(a.path_changes, b.path_changes);
    ASSERT_EQ(a.steered_packets, b.steered_packets);
    ASSERT_EQ(a.steered_bytes, b.steered_bytes);
    ASSERT_EQ(a.bucket_clears, b.bucket_clears);
    ASSERT_EQ(a.scheduler_claims, b.scheduler_claims);
    ASSERT_EQ(a.scheduler_blocked, b.scheduler_blocked);
    ASSERT_EQ(pipe.occupancy(), alu.occupancy());
    ASSERT_EQ(pipe.scheduler_occupancy(), alu.scheduler_occupancy());
    // Four register actions per packet, one more per mirrored clear.
    ASSERT_EQ(alu.stateful_alu_executions(), 4 * b.packets + b.bucket_clears);
    ASSERT_EQ(a.collisions, a.vote_decrements);   // Tofino form: residents that stay
    total.bucket_clears += a.bucket_clears;
    total.scheduler_claims += a.scheduler_claims;
    total.scheduler_blocked += a.scheduler_blocked;
    total.path_changes += a.path_changes;
    total.replacements += a.replacements;
    total.vote_decrements += a.vote_decrements;
  }
  EXPECT_GE(packets, 150000u);
  EXPECT_GT(total.bucket_clears, 500u);
  EXPECT_GT(total.scheduler_claims, 1000u);
  EXPECT_GT(total.scheduler_blocked, 200u);
  EXPECT_GT(total.path_changes, 10000u);
  EXPECT_GT(total.replacements, 3000u);
  EXPECT_GT(total.vote_decrements, 5000u);
  EXPECT_GT(saturated, 10000u);
}

TEST(BalanceSketch, SoftwareAndTofinoFormsAgreeWithoutCollisionsOrTimeouts) {
  // One flow per bucket and every idle time under Δ: the paper's two designs coincide, random
  // draws included (both draw only when they pick a hop).
  rng r(99);
  uint64_t changes = 0;
  for (int run = 0; run < 60; ++run) {
    balance_sketch_config k;
    k.buckets = 4 + uint32_t(r.below(29));
    k.F = uint32_t(r.below(6));
    k.next_hops = 2 + uint32_t(r.below(7));
    k.seed = r.next();
    k.delta_ps = 200 * us;
    k.Delta_ps = 50 * ms;
    balance_sketch sw(k);
    k.form = bs_form::pipeline;
    balance_sketch tf(k);
    const uint32_t flows = 1 + uint32_t(r.below(k.buckets));
    uint64_t t = r.below(k.delta_ps);
    for (int n = 0; n < 3000; ++n) {
      const uint64_t step = r.below(10) == 0 ? r.below(3 * k.delta_ps) : r.below(20 * us);
      if (t + step >= k.Delta_ps - k.delta_ps) break;   // never idle past Δ
      t += step;
      const uint32_t i = uint32_t(r.below(flows));
      const bs_decision a = sw.process(i, 1000 + i, 1500, t);
      const bs_decision b = tf.process(i, 1000 + i, 1500, t);
      ASSERT_EQ(a.steer, b.steer) << where(run, n);
      ASSERT_EQ(a.next_hop, b.next_hop) << where(run, n);
      ASSERT_EQ(a.path_change, b.path_change) << where(run, n);
      ASSERT_EQ(a.flowlet_start, b.flowlet_start) << where(run, n);
      changes += a.path_change;
    }
  }
  EXPECT_GT(changes, 500u);
}

// ---- directed: thresholds and the paper's examples -------------------------------------------------

namespace {
balance_sketch_config exact_ms(uint64_t delta, uint64_t Delta, uint32_t F) {
  // 1 µs slices, 32-bit timestamps: exact at the scale of milliseconds.
  balance_sketch_config k;
  k.buckets = 4;
  k.slice_ps = 1 * us;
  k.timestamp_bits = 32;
  k.delta_ps = delta;
  k.Delta_ps = Delta;
  k.F = F;
  k.next_hops = 4;
  return k;
}
}  // namespace

TEST(BalanceSketch, Figure2Examples) {
  // t_now = 200 ms, Δ = 30 ms, δ = 5 ms, F = 30 (§3.4, Fig. 2).
  balance_sketch bs(exact_ms(5 * ms, 30 * ms, 30));
  // Example 1: the residing flow's last packet is 40 ms old: it ended; f1 takes the bucket, ECMP.
  EXPECT_EQ(bs.process(0, 0x100, 1000, 160 * ms).event, bs_event::insert);
  bs_decision d = bs.process(0, 0x101, 1000, 200 * ms);
  EXPECT_EQ(d.event, bs_event::expire);
  EXPECT_FALSE(d.steer);
  EXPECT_EQ(bs.cell(0, 0).fingerprint, 0x101u);
  // Example 2: f2 resides with vote 31 > F and its last packet 10 ms > δ ago: a new next hop.
  for (int i = 0; i <= 30; ++i) EXPECT_FALSE(bs.process(1, 0x200, 1000, (160 + i) * ms).path_change);
  EXPECT_EQ(bs.cell(1, 0).vote, 31u);
  d = bs.process(1, 0x200, 1000, 200 * ms);
  EXPECT_TRUE(d.path_change);
  EXPECT_TRUE(d.steer);
  EXPECT_LT(d.next_hop, 4u);
  EXPECT_EQ(bs.cell(1, 0).vote, 32u);
  EXPECT_EQ(bs.cell(1, 0).timestamp, bs.timestamp_of(200 * ms));
  // Example 3: f6 resides with vote 1 and no next hop; f3 votes it to 0 and replaces it, ECMP.
  bs.process(2, 0x600, 1000, 199 * ms);
  d = bs.process(2, 0x300, 1000, 200 * ms);
  EXPECT_EQ(d.event, bs_event::replace);
  EXPECT_TRUE(d.vote_decremented);
  EXPECT_FALSE(d.steer);
  EXPECT_EQ(bs.cell(2, 0).fingerprint, 0x300u);
  EXPECT_EQ(bs.cell(2, 0).vote, 1u);
}

TEST(BalanceSketch, VoteMustExceedF) {
  balance_sketch bs(exact_ms(100 * us, 10 * ms, 3));
  for (int i = 0; i < 3; ++i) bs.process(7, 9, 100, uint64_t(i) * us);   // vote 3
  bs_decision d = bs.process(7, 9, 100, 200 * us);   // gap > δ, vote 3 = F: a flowlet, not a burst
  EXPECT_TRUE(d.flowlet_start);
  EXPECT_FALSE(d.path_change);
  EXPECT_FALSE(d.steer);
  d = bs.process(7, 9, 100, 400 * us);               // vote 4 > F: its follower is moved
  EXPECT_TRUE(d.flowlet_start);
  EXPECT_TRUE(d.path_change);
  EXPECT_TRUE(d.steer);
  const uint32_t hop = d.next_hop;
  d = bs.process(7, 9, 100, 450 * us);               // same flowlet: same hop
  EXPECT_FALSE(d.path_change);
  EXPECT_EQ(d.next_hop, hop);
  EXPECT_EQ(bs.counters().path_changes, 1u);
  EXPECT_EQ(bs.counters().flowlet_starts, 2u);
}

TEST(BalanceSketch, DeltaThresholdOnCompactSlices) {
  // slice = δ = 100 µs (the paper's compact timestamp): a gap is a new flowlet only when a whole
  // slice lies between the packets. Fig. 4: an idle time between δ and 2δ may go unseen.
  balance_sketch_config k;
  k.delta_ps = 100 * us;
  k.Delta_ps = 10 * ms;
  balance_sketch bs(k);
  auto at = [&](uint64_t t) { return bs.process(3, 5, 100, t); };
  at(0);
  EXPECT_FALSE(at(199 * us).flowlet_start);   // 199 µs idle, slices 0 -> 1: missed
  EXPECT_TRUE(at(300 * us).flowlet_start);    // 101 µs idle, slices 1 -> 3: seen
  EXPECT_FALSE(at(301 * us).flowlet_start);
  EXPECT_FALSE(at(499 * us).flowlet_start);   // 198 µs, slices 3 -> 4
  EXPECT_TRUE(at(600 * us).flowlet_start);    // slices 4 -> 6
  EXPECT_TRUE(at(800 * us).flowlet_start);    // exactly 2δ is always seen
  EXPECT_FALSE(at(899 * us).flowlet_start);   // below δ never is
}

TEST(BalanceSketch, DeltaTimeoutEndsAFlow) {
  balance_sketch_config k;   // slice = δ = 100 µs, Δ = 10 slices
  k.delta_ps = 100 * us;
  k.Delta_ps = 1 * ms;
  balance_sketch bs(k);
  EXPECT_EQ(bs.process(0, 1, 100, 0).event, bs_event::insert);
  EXPECT_EQ(bs.process(0, 1, 100, 1000 * us).event, bs_event::hit);      // 10 slices: alive
  EXPECT_EQ(bs.process(0, 1, 100, 2100 * us).event, bs_event::restart);  // 11 slices: ended
  EXPECT_EQ(bs.cell(0, 0).vote, 1u);
  bs.process(0, 1, 100, 2100 * us);                                      // vote 2
  EXPECT_EQ(bs.process(0, 2, 100, 3100 * us).event, bs_event::decrement);   // other flow, 10 slices
  EXPECT_EQ(bs.process(0, 3, 100, 3100 * us).event, bs_event::replace);
  EXPECT_EQ(bs.process(0, 4, 100, 4200 * us).event, bs_event::expire);      // 11 slices
  EXPECT_EQ(bs.counters().restarts, 1u);
  EXPECT_EQ(bs.counters().expirations, 1u);
}

TEST(BalanceSketch, TimestampWrapHidesIdleTime) {
  // s = 4: 16 slices. A cell idle 16 slices looks idle 0; 18 looks 2.
  balance_sketch_config k;
  k.timestamp_bits = 4;
  k.delta_ps = 100 * us;
  k.Delta_ps = 1 * ms;   // 10 slices <= 2^4 - 2
  balance_sketch bs(k);
  auto slice = [](uint64_t n) { return n * 100 * us; };
  bs.process(0, 1, 100, slice(0));
  bs_decision d = bs.process(0, 1, 100, slice(16));
  EXPECT_EQ(d.event, bs_event::hit);          // idle 16 > 10, but it looks like 0: not ended
  EXPECT_FALSE(d.flowlet_start);              // nor a new flowlet
  d = bs.process(0, 1, 100, slice(34));
  EXPECT_EQ(d.event, bs_event::hit);          // idle 18 looks like 2
  EXPECT_TRUE(d.flowlet_start);
  EXPECT_EQ(bs.process(0, 1, 100, slice(45)).event, bs_event::restart);    // 11: ended
  EXPECT_EQ(bs.process(0, 2, 100, slice(64)).event, bs_event::replace);    // idle 19 looks like 3: voted out, not expired
  EXPECT_EQ(bs.cell(0, 0).timestamp, 0u);     // slice 64 mod 16
  EXPECT_THROW(balance_sketch([] {
                 balance_sketch_config c;
                 c.timestamp_bits = 3;
                 c.delta_ps = 100 * us;
                 c.Delta_ps = 700 * us;   // 7 slices > 2^3 - 2: could never be seen to end
                 return c;
               }()),
               std::invalid_argument);
}

TEST(BalanceSketch, ManipulatedFlowIsNotVotedOut) {
  balance_sketch bs(exact_ms(100 * us, 10 * ms, 0));
  bs.process(0, 1, 100, 0);
  const bs_decision a = bs.process(0, 1, 100, 200 * us);   // burst follower: moved
  ASSERT_TRUE(a.path_change);
  EXPECT_EQ(bs.process(0, 2, 100, 201 * us).event, bs_event::decrement);   // vote 2 -> 1
  EXPECT_EQ(bs.process(0, 2, 100, 202 * us).event, bs_event::decrement);   // -> 0, next_hop set: stays
  EXPECT_EQ(bs.process(0, 2, 100, 203 * us).event, bs_event::blocked);
  const bs_decision b = bs.process(0, 1, 100, 204 * us);
  EXPECT_TRUE(b.steer);
  EXPECT_EQ(b.next_hop, a.next_hop);
  EXPECT_EQ(bs.process(0, 2, 100, 204 * us + 10 * ms + 1 * us).event, bs_event::expire);   // idle > Δ: out
  EXPECT_EQ(bs.counters().blocked, 1u);
  EXPECT_EQ(bs.counters().collisions, 3u);
}

TEST(BalanceSketch, MultiCellBucket) {
  balance_sketch_config k = exact_ms(100 * us, 10 * ms, 0);
  k.buckets = 1;
  k.cells = 3;
  balance_sketch bs(k);
  EXPECT_EQ(bs.process(0, 1, 100, 0).cell, 0u);
  EXPECT_EQ(bs.process(0, 2, 100, 1).cell, 1u);
  EXPECT_EQ(bs.process(0, 3, 100, 2).cell, 2u);
  for (int i = 0; i < 2; ++i) bs.process(0, 1, 100, 3);   // votes 3, 1, 1
  bs.process(0, 3, 100, 4);                                // votes 3, 1, 2
  EXPECT_EQ(bs.occupancy(), 3u);
  bs_decision d = bs.process(0, 4, 100, 5);                // full: the minimum (cell 1) loses
  EXPECT_EQ(d.event, bs_event::replace);
  EXPECT_EQ(d.cell, 1u);
  EXPECT_EQ(bs.cell(0, 1).fingerprint, 4u);
  d = bs.process(0, 5, 100, 6);                            // votes 3, 1, 2: cell 1 again
  EXPECT_EQ(d.cell, 1u);
  EXPECT_EQ(bs.cell(0, 1).fingerprint, 5u);
  bs.process(0, 5, 100, 7);
  bs.process(0, 5, 100, 8);                                // votes 3, 3, 2
  d = bs.process(0, 6, 100, 9);
  EXPECT_EQ(d.event, bs_event::decrement);
  EXPECT_EQ(d.cell, 2u);
  EXPECT_EQ(bs.cell(0, 2).vote, 1u);
  // An outdated cell is taken before anyone is voted down.
  bs.process(0, 1, 100, 10 * ms);
  bs.process(0, 5, 100, 10 * ms);
  d = bs.process(0, 7, 100, 10 * ms + 1 * us);
  EXPECT_EQ(d.event, bs_event::expire);
  EXPECT_EQ(d.cell, 2u);
}

TEST(BalanceSketch, FingerprintCollisionMergesFlows) {
  balance_sketch_config k = exact_ms(100 * us, 10 * ms, 0);
  k.fingerprint_bits = 4;
  balance_sketch bs(k);
  bs.process(8, 0x13, 100, 0);
  EXPECT_EQ(bs.process(8, 0x23, 100, 1).event, bs_event::hit);   // same bucket, same 4-bit print
  EXPECT_EQ(bs.cell(0, 0).fingerprint, 3u);
  EXPECT_EQ(bs.cell(0, 0).vote, 2u);
  EXPECT_EQ(bs.process(9, 0x20, 100, 2).event, bs_event::insert);   // print 0 is the empty key: taken as 1,
  EXPECT_EQ(bs.process(9, 0x01, 100, 3).event, bs_event::hit);      // so it merges with print 1
  EXPECT_EQ(bs.cell(1, 0).fingerprint, 1u);
  EXPECT_EQ(bs.cell(1, 0).vote, 2u);
}

TEST(BalanceSketch, CandidateHopAndDeterminism) {
  balance_sketch_config k = exact_ms(100 * us, 10 * ms, 0);
  balance_sketch bs(k);
  bs.process(1, 1, 100, 0);
  EXPECT_EQ(bs.process(1, 1, 100, 300 * us, 3).next_hop, 3u);
  EXPECT_THROW(bs.process(1, 1, 100, 300 * us, 4), std::invalid_argument);
  k.next_hops = 64;
  std::vector<uint32_t> hops[2];
  for (int s = 0; s < 2; ++s) {
    balance_sketch a(k);
    for (int i = 0; i < 40; ++i) hops[s].push_back(a.process(1, 1, 100, uint64_t(i) * 300 * us).next_hop);
  }
  EXPECT_EQ(hops[0], hops[1]);   // same seed, same hops
  k.seed = 2;
  balance_sketch c(k);
  std::vector<uint32_t> other;
  for (int i = 0; i < 40; ++i) other.push_back(c.process(1, 1, 100, uint64_t(i) * 300 * us).next_hop);
  EXPECT_NE(other, hops[0]);
}

// ---- directed: the Tofino form -----------------------------------------------------------------------

TEST(BalanceSketch, TofinoClearsAnOutdatedBucketByMirror) {
  for (bs_form form : {bs_form::pipeline, bs_form::stateful_alu}) {
    balance_sketch_config k = exact_ms(100 * us, 1 * ms, 0);
    k.form = form;
    balance_sketch bs(k);
    for (int i = 0; i < 5; ++i) bs.process(2, 1, 100, uint64_t(i) * us);   // vote 5
    bs_decision d = bs.process(2, 9, 100, 2 * ms);                          // A idle > Δ
    EXPECT_EQ(d.event, bs_event::decrement);
    EXPECT_TRUE(d.bucket_clear);
    EXPECT_EQ(bs.tofino_entry(2).sel_fingerprint, 0u);   // the mirror pass cleared it
    EXPECT_EQ(bs.tofino_entry(2).sel_vote_word, 0u);
    d = bs.process(2, 9, 100, 2 * ms + 1 * us);
    EXPECT_EQ(d.event, bs_event::replace);
    EXPECT_FALSE(d.bucket_clear);
    EXPECT_EQ(bs.tofino_entry(2).sel_fingerprint, 9u);
    EXPECT_EQ(bs.counters().bucket_clears, 1u);
  }
  balance_sketch sw(exact_ms(100 * us, 1 * ms, 0));     // software: the newcomer takes it at once
  for (int i = 0; i < 5; ++i) sw.process(2, 1, 100, uint64_t(i) * us);
  EXPECT_EQ(sw.process(2, 9, 100, 2 * ms).event, bs_event::expire);
}

TEST(BalanceSketch, TofinoSelectorEvictsButSchedulerKeepsTheFlow) {
  for (bs_form form : {bs_form::pipeline, bs_form::stateful_alu}) {
    balance_sketch_config k = exact_ms(100 * us, 10 * ms, 0);
    k.form = form;
    balance_sketch bs(k);
    bs.process(0, 1, 100, 0);
    const bs_decision a = bs.process(0, 1, 100, 200 * us);   // sch_flag: the scheduler takes A
    ASSERT_TRUE(a.path_change);
    EXPECT_TRUE(a.scheduler_claim);
    EXPECT_EQ(bs.process(0, 2, 100, 201 * us).event, bs_event::decrement);
    EXPECT_EQ(bs.process(0, 2, 100, 202 * us).event, bs_event::replace);   // B holds the selector
    EXPECT_EQ(bs.tofino_entry(0).sel_fingerprint, 2u);
    const bs_decision b = bs.process(0, 1, 100, 203 * us);                 // A: still scheduled
    EXPECT_TRUE(b.steer);
    EXPECT_EQ(b.next_hop, a.next_hop);
    EXPECT_EQ(b.event, bs_event::replace);   // (and A took the selector back from vote-1 B)
    // B's burst follower finds the scheduler held by live A: blocked, B stays on ECMP.
    EXPECT_EQ(bs.process(0, 2, 100, 204 * us).event, bs_event::replace);
    EXPECT_EQ(bs.process(0, 2, 100, 205 * us).event, bs_event::hit);   // vote 2
    const bs_decision c = bs.process(0, 2, 100, 500 * us);
    EXPECT_TRUE(c.flowlet_start);
    EXPECT_TRUE(c.scheduler_blocked);
    EXPECT_FALSE(c.path_change);
    EXPECT_FALSE(c.steer);
    EXPECT_EQ(bs.scheduler_occupancy(), 1u);
  }
}

TEST(BalanceSketch, SchedulerDeadlineWrapsWithItsWord) {
  // 8-bit scheduler words, 1 µs slices, Δ = 10 slices. A claims at slice 250: deadline
  // (250 + 11) mod 256 = 5, which reads as already passed. Two slices later B's burst follower
  // takes A's live entry; with 32-bit words it would have been blocked.
  for (unsigned w : {8u, 32u}) {
    balance_sketch_config k;
    k.form = bs_form::pipeline;
    k.slice_ps = 1 * us;
    k.delta_ps = 1 * us;
    k.Delta_ps = 10 * us;
    k.scheduler_timestamp_bits = w;
    k.fingerprint_bits = 8;   // must fit the scheduler word
    balance_sketch bs(k);
    bs.process(0, 1, 100, 240 * us);
    ASSERT_TRUE(bs.process(0, 1, 100, 250 * us).scheduler_claim);
    EXPECT_EQ(bs.tofino_entry(0).sch_deadline, w == 8 ? 5u : 261u);
    bs.process(0, 2, 100, 250 * us);                   // A's vote 2 -> 1
    bs.process(0, 2, 100, 250 * us);                   // B takes the selector
    const bs_decision b = bs.process(0, 2, 100, 252 * us);
    ASSERT_TRUE(b.flowlet_start);
    EXPECT_EQ(b.scheduler_claim, w == 8) << w;
    EXPECT_EQ(b.scheduler_blocked, w == 32) << w;
    EXPECT_EQ(bs.process(0, 1, 100, 253 * us).steer, w == 32) << w;   // A lost its next hop at 8 bits
  }
}

TEST(BalanceSketch, SelectorVoteProgramOnTheAlu) {
  // bs_sel_id_vote_program: fingerprint_vote() plus the key replacement; the word is vote - 1.
  stateful_alu alu({2, 16, true, 4}, bs_sel_id_vote_program());
  alu.write(1, 0xBEEF, 2);   // vote 3
  uint64_t pass = 0;
  stateful_alu_result r = alu.execute(++pass, 1, 0xBEEF, 0);
  EXPECT_TRUE(r.p_lo);
  EXPECT_EQ(r.output, 2u);   // the old word
  EXPECT_EQ(alu.read(1).hi, 3u);
  for (uint32_t v : {3u, 2u, 1u}) {   // three others vote it down to word 0 (vote 1)
    r = alu.execute(++pass, 1, 0x1234, 0);
    EXPECT_EQ(r.output, v);
    EXPECT_FALSE(r.p_hi);
  }
  EXPECT_EQ(alu.read(1).lo, 0xBEEFu);
  r = alu.execute(++pass, 1, 0x1234, 0);   // vote 1 -> 0: replaced, the newcomer has vote 1
  EXPECT_TRUE(r.p_hi);
  EXPECT_EQ(alu.read(1).lo, 0x1234u);
  EXPECT_EQ(alu.read(1).hi, 0u);
  r = alu.execute(++pass, 0, 0x5555, 0);   // an empty entry is taken the same way
  EXPECT_EQ(alu.read(0).lo, 0x5555u);
  stateful_alu clr({2, 16, true, 4}, bs_sel_id_clear_program());
  clr.write(1, 0xBEEF, 9);
  clr.execute(1, 1, 0, 0);
  EXPECT_EQ(clr.read(1).lo, 0u);
  EXPECT_EQ(clr.read(1).hi, 0u);
}

// ---- config, memory, resources --------------------------------------------------------------------

TEST(BalanceSketch, RejectsBadConfig) {
  auto message = [](balance_sketch_config k) -> std::string {
    try {
      balance_sketch bs(k);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  balance_sketch_config k;
  EXPECT_EQ(message(k), "");
  auto with = [&](auto change) {
    balance_sketch_config c;
    change(c);
    return message(c);
  };
  EXPECT_NE(with([](auto& c) { c.buckets = 0; }).find("buckets"), std::string::npos);
  EXPECT_NE(with([](auto& c) { c.cells = 0; }).find("cells"), std::string::npos);
  EXPECT_NE(with([](auto& c) { c.fingerprint_bits = 33; }).find("fingerprint_bits"), std::string::npos);
  EXPECT_NE(with([](auto& c) { c.vote_bits = 0; }).find("vote_bits"), std::string::npos);
  EXPECT_NE(with([](auto& c) { c.timestamp_bits = 1; }).find("timestamp_bits"), std::string::npos);
  EXPECT_NE(with([](auto& c) { c.Delta_ps = c.delta_ps - 1; }).find("Delta_ps"), std::string::npos);
  EXPECT_NE(with([](auto& c) { c.slice_ps = 3; }).find("slice_ps"), std::string::npos);
  EXPECT_NE(with([](auto& c) { c.next_hops = 0; }).find("next_hops"), std::string::npos);
  EXPECT_NE(with([](auto& c) { c.timestamp_bits = 7; }).find("timestamp_bits"), std::string::npos);   // 250 > 126
  EXPECT_NE(with([](auto& c) { c.form = bs_form::stateful_alu; c.cells = 2; }).find("cells"), std::string::npos);
  EXPECT_NE(with([](auto& c) { c.form = bs_form::pipeline; c.scheduler_timestamp_bits = 12; }).find("scheduler_timestamp_bits"),
            std::string::npos);
  EXPECT_NE(with([](auto& c) { c.form = bs_form::pipeline; c.scheduler_timestamp_bits = 8; }).find("fingerprint_bits"),
            std::string::npos);   // a 16-bit print in an 8-bit scheduler word
  EXPECT_NE(with([](auto& c) {
              c.form = bs_form::pipeline;
              c.fingerprint_bits = 8;
              c.scheduler_timestamp_bits = 8;
              c.timestamp_bits = 16;
              c.Delta_ps = 300 * c.delta_ps;   // deadline offset 301 > 255
            }).find("scheduler_timestamp_bits too small"),
            std::string::npos);
  EXPECT_NE(with([](auto& c) { c.form = bs_form::stateful_alu; c.timestamp_bits = 40; c.slice_ps = 1000; }).find("timestamp_bits"),
            std::string::npos);
  EXPECT_NE(with([](auto& c) { c.form = static_cast<bs_form>(9); }).find("form"), std::string::npos);
  balance_sketch sw(k);
  EXPECT_THROW(sw.tofino_entry(0), std::logic_error);
  EXPECT_THROW(sw.tofino_resources(), std::logic_error);
  EXPECT_THROW(sw.cell(250, 0), std::out_of_range);
}

TEST(BalanceSketch, MemoryAndResources) {
  balance_sketch_config k;   // l = 250, 16-bit print, 16-bit vote, 8-bit time, 8 hops (+ Null: 4 bits)
  balance_sketch sw(k);
  EXPECT_EQ(sw.bits_per_cell(), 44u);
  EXPECT_EQ(sw.memory_bits(), 250u * 44u);   // 11 000 bits, 1375 bytes
  k.cells = 4;
  EXPECT_EQ(balance_sketch(k).memory_bits(), 250u * 4u * 44u);
  k.cells = 1;
  k.form = bs_form::stateful_alu;
  balance_sketch tf(k);
  const bs_tofino_resources r = tf.tofino_resources();
  EXPECT_EQ(r.sel_id_width, 16u);
  EXPECT_EQ(r.sel_ts_width, 8u);
  EXPECT_EQ(r.sch_id_width, 32u);
  EXPECT_EQ(r.sch_nh_width, 8u);
  EXPECT_EQ(r.sram_bits, 250u * (2 * 16 + 8 + 2 * 32 + 8));   // 28 000 bits, 3500 bytes
  EXPECT_EQ(tf.memory_bits(), r.sram_bits);
  EXPECT_EQ(r.stateful_alus, 4u);
  EXPECT_EQ(r.stages, 5u);
  EXPECT_EQ(tf.occupancy(), 0u);
  tf.process(1, 1, 100, 0);
  EXPECT_EQ(tf.occupancy(), 1u);
  EXPECT_EQ(tf.stateful_alu_executions(), 4u);
  EXPECT_EQ(tf.counters().bytes, 100u);
}
