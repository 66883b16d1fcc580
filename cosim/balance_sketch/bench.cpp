// balance_sketch (rtl/balance_sketch.sv) against balance_sketch::process, software form
// (Algorithm 1 with d cells and compact cyclic timestamps). Every cycle the bench draws one
// packet (or an idle cycle), the time now_ps, and the candidate next hop, and gives the same
// values to both: the core is always called with an explicit candidate_hop, so its own rng is
// never used. Time advances by at most one slice per cycle (the RTL's slice counter needs it).
//
// Runtime config (the RTL's cfg_* ports, held after reset), chosen by the seed so that seeds
// 1, 2, 3 cover all three: slice = δ with Δ = 30 slices and F = 0 (the paper's choice);
// δ = 4 slices, Δ = 60, F = 2; δ = 2 slices, Δ = 2^s - 2 (the largest allowed), F = 5.
//
// Directed corners first (bucket indices and hashes derived from BUCKETS):
//   - insert into an empty bucket, then back-to-back packets of one flow (read-after-write
//     forwarding every cycle) until the vote exceeds F;
//   - idle gaps just below / above δ, from the start of a slice (gap δ/slice vs δ/slice + 1) and
//     from the end of a slice (idle δ - 1 ps: no flowlet; idle δ + 1 ps: a flowlet), the path
//     change that picks the candidate hop, then back-to-back steered packets (the bypass with a
//     next hop set);
//   - a fingerprint collision (another hash, same bucket, same fingerprint) steered on the
//     resident's hop; fingerprint 0 and a fingerprint with only bits above FINGERPRINT_BITS set
//     (both become 1) colliding with fingerprint 1;
//   - a full bucket (CELLS resident flows) and a newcomer voting the minimum down: decrements, then
//     blocked on a resident with a next hop; on a Null resident the vote reaches 0 and the
//     newcomer replaces it; two flows alternating every cycle in one bucket (hazard + replace);
//   - idle gaps of Δ/slice slices (still alive) and Δ/slice + 1 (restart of the same flow, expire
//     for a newcomer; a newcomer below Δ is a collision instead);
//   - the timestamp wrap: idle exactly 2^s slices looks fresh, 2^s + δ/slice + 1 a flowlet;
//   - vote saturation when VOTE_BITS <= 8 (the default 16 needs 65535 packets; build variant).
// Then random stimulus: flows drawn from hot (few buckets, small fingerprint set so that
// fingerprints collide), warm and cold pools plus fresh random flows, idle cycles, and time moving
// in phases (stalled, slow, fast, one slice per cycle) so that per-bucket gaps keep landing around
// δ, Δ and the wrap.
//
// Latency: the RTL shows a packet's decision and the counters including it two edges after the
// packet is applied, so the core's decision of cycle c-1 and its counters before cycle c's packet
// are compared after cycle c's edge. Decision outputs hold while out_valid is low, as the bench's
// copy of the last decision does. Compared every cycle: ready, out_valid, out_steer, out_next_hop
// (Null = all ones), out_path_change, out_flowlet_start, out_event, out_vote_decremented,
// out_bucket, out_cell, and the fourteen software-form counters. The Tofino-form fields
// (bucket_clear, scheduler_*) are always false in the software form and are not RTL outputs.
//
// Build variants: define the BALANCE_SKETCH_RTL_* macros of cosim/balance_sketch/balance_sketch_rtl.cpp (the
// RTL's defaults unless defined), with the same -G overrides on the RTL.
#include <algorithm>
#include <cstdio>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "blocks/balance_sketch.h"
#include "cosim/harness/cosim_bench.h"
#include "cosim/harness/stimulus_rng.h"
#include "cosim/balance_sketch/balance_sketch_rtl.h"
#include "Vbalance_sketch.h"
#include "Vbalance_sketch___024root.h"
#include "Vbalance_sketch_set2.h"
#include "Vbalance_sketch_set2___024root.h"
#include "rtl_bench_sets.h"


namespace netasic::cosim {
namespace {

// The parameters the RTL was Verilated with, as the RTL-in-the-loop adapter knows them.
// The RTL's parameters (the adapter's, its defaults) with BUCKETS and CELLS as Verilated.
balance_sketch_config base_config(uint32_t buckets, uint32_t cells) {
  balance_sketch_config c = balance_sketch_rtl::rtl_parameters();
  c.buckets = buckets;
  c.cells = cells;
  return c;
}

unsigned clog2(uint64_t v) {
  unsigned b = 0;
  while ((uint64_t(1) << b) < v) ++b;
  return b;
}

struct packet {
  bool valid = false;
  uint32_t hash = 0, fingerprint = 0, bytes = 0, hop = 0;
};

// A flow of the random pools: its hash and fingerprint.
struct flow {
  uint32_t hash = 0, fingerprint = 0;
};

// A directed step: advance time (from now, or to the next slice start plus an offset), then send
// the packet in the cycle the advance completes (or idle there if !p.valid).
struct step_t {
  bool align = false;
  uint64_t ps = 0;
  packet p;
};

template <class Model, uint32_t rtl_buckets, uint32_t rtl_cells>
class balance_sketch_bench : public bench {
 public:
#ifdef NETASIC_BS_BENCH_STATS
  // Coverage of a run (build with -DNETASIC_BS_BENCH_STATS): the core's counters at the end.
  ~balance_sketch_bench() override {
    if (!core_) return;
    const bs_counters& c = core_->counters();
    std::fprintf(stderr,
                 "balance_sketch bench: cycles %llu packets %llu hits %llu inserts %llu expirations %llu "
                 "restarts %llu replacements %llu collisions %llu vote_decrements %llu blocked %llu "
                 "flowlet_starts %llu path_changes %llu steered %llu hazards %llu\n",
                 (unsigned long long)cycle_, (unsigned long long)c.packets, (unsigned long long)c.hits,
                 (unsigned long long)c.inserts, (unsigned long long)c.expirations, (unsigned long long)c.restarts,
                 (unsigned long long)c.replacements, (unsigned long long)c.collisions,
                 (unsigned long long)c.vote_decrements, (unsigned long long)c.blocked,
                 (unsigned long long)c.flowlet_starts, (unsigned long long)c.path_changes,
                 (unsigned long long)c.steered_packets, (unsigned long long)hazards_);
  }
#endif
  void reset(uint64_t seed) override {
    cfg_ = base_config(rtl_buckets, rtl_cells);
    const uint64_t wrap = cfg_.timestamp_bits >= 20 ? (uint64_t(1) << 20) : (uint64_t(1) << cfg_.timestamp_bits);
    switch (seed % 3) {
      case 0:   // the paper's: slice = δ
        slice_ = 8000;
        cfg_.slice_ps = 0;
        cfg_.delta_ps = slice_;
        cfg_.Delta_ps = std::min<uint64_t>(30, wrap - 2) * slice_;
        cfg_.F = 0;
        break;
      case 1:
        slice_ = 2000;
        cfg_.slice_ps = slice_;
        cfg_.delta_ps = std::min<uint64_t>(4, wrap - 2) * slice_;
        cfg_.Delta_ps = std::min<uint64_t>(60, wrap - 2) * slice_;
        cfg_.F = 2;
        break;
      default:
        slice_ = 5000;
        cfg_.slice_ps = slice_;
        cfg_.delta_ps = 2 * slice_;
        cfg_.Delta_ps = std::min<uint64_t>(wrap - 2, 254) * slice_;   // 254 = 2^8 - 2, the largest at the default s
        cfg_.F = 5;
        break;
    }
    core_ = std::make_unique<balance_sketch>(cfg_);
    cnt_ = &core_->counters();
    nd_ = core_->delta_slices();
    nD_ = core_->Delta_slices();
    rng_ = stimulus_rng(seed);
    // Fixed for the run: computed here, not each cycle.
    fp_mask_ = cfg_.fingerprint_bits == 32 ? 0xFFFFFFFFu : (uint32_t(1) << cfg_.fingerprint_bits) - 1;
    nh_null_ = (uint64_t(1) << clog2(uint64_t(cfg_.next_hops) + 1)) - 1;
    hops_ = stimulus_rng::range(cfg_.next_hops);
    slow_ = stimulus_rng::range(slice_ / 8 + 1);
    half_ = stimulus_rng::range(slice_ / 2 + 1);
    full_ = stimulus_rng::range(slice_ + 1);
    now_ = 0;
    cycle_ = 0;
    held_ = bs_decision{};
    prev_valid_ = false;
    steps_.clear();
    active_ = false;
    phase_left_ = 0;
    build_pools();
    build_directed();

    rtl_ = std::make_unique<dut<Model>>();
    root_ = (*rtl_)->rootp;
    auto& m = *rtl_;
    m->cfg_slice_ps = slice_;
    m->cfg_delta_slices = uint32_t(nd_);
    m->cfg_Delta_slices = uint32_t(nD_);
    m->cfg_F = cfg_.F;
    m->in_now_ps = 0;
    m->in_valid = 0;
    m->in_hash = 0;
    m->in_fingerprint = 0;
    m->in_bytes = 0;
    m->in_hop = 0;
    rtl_->reset();
    // The init sweep clears one bucket per cycle; the core has no such phase.
    while (!m->ready) rtl_->tick();
  }

  void step(side s, std::vector<mismatch>& out) override {
    ++cycle_;
    // Two calls of apply(), so that the random packet, the usual one, stays in registers.
    if (!steps_.empty())
      apply(s, next_directed(), out);
    else
      apply(s, next_random(), out);
  }

  std::string parameters() const override {
    const balance_sketch_config k = base_config(rtl_buckets, rtl_cells);
    return "BUCKETS=" + std::to_string(k.buckets) + " CELLS=" + std::to_string(k.cells) +
           " FINGERPRINT_BITS=" + std::to_string(k.fingerprint_bits) + " VOTE_BITS=" + std::to_string(k.vote_bits) +
           " TIMESTAMP_BITS=" + std::to_string(k.timestamp_bits) + " NEXT_HOPS=" + std::to_string(k.next_hops) +
           " COUNTER_BITS=64";
  }
  void trace(VerilatedVcdC* vcd) override { rtl_->trace(vcd); }

 private:
  [[gnu::always_inline]] void apply(side s, const packet& p, std::vector<mismatch>& out) {
    if (s != side::core) {
      // The ports through the root: the model's port members are references to its fields.
      root_t& r = *root_;
      r.in_now_ps = now_;
      r.in_valid = p.valid;
      r.in_hash = p.hash;
      r.in_fingerprint = p.fingerprint & fp_mask_;
      r.in_bytes = p.bytes;
      r.in_hop = p.hop;
      rtl_->tick();
      // The RTL now shows the core's last decision and its counters before this cycle's packet:
      // compared before the core takes the packet, so nothing is copied to wait for the edge.
      if (s == side::both) compare(out);
    }
    if (s != side::rtl) {
      if (p.valid) {
        // Named, not virtual: core_ is a balance_sketch.
        const bs_decision d = core_->balance_sketch::process(p.hash, p.fingerprint, p.bytes, now_, p.hop);
#ifdef NETASIC_BS_BENCH_STATS
        hazards_ += prev_valid_ && d.bucket == held_.bucket;   // back to back into one bucket
#endif
        held_ = d;
      }
      prev_valid_ = p.valid;
    }
  }

  // After the edge, before the core takes this cycle's packet: held_ and prev_valid_ are the
  // decision of cycle c-1 (held while out_valid is low), *cnt_ the counters before cycle c.
  void compare(std::vector<mismatch>& out) const {
    uint64_t diff = 0;   // one branch for all of them: nonzero if any differs
    outputs([&](const char*, uint64_t core, uint64_t rtl) { diff |= core ^ rtl; });
    if (diff) report(out);
  }
  [[gnu::cold, gnu::noinline]] void report(std::vector<mismatch>& out) const {
    outputs([&](const char* name, uint64_t core, uint64_t rtl) {
      if (core != rtl) out.push_back({name, core, rtl});
    });
  }
  // Every compared output, in order: f(name, the core's value, the RTL's).
  template <class F>
  [[gnu::always_inline]] void outputs(F&& f) const {
    const root_t& r = *root_;
    const bs_decision& e = held_;
    f("ready", 1, r.ready);
    f("out_valid", prev_valid_, r.out_valid);
    f("out_steer", e.steer, r.out_steer);
    f("out_next_hop", e.next_hop == bs_null_hop ? nh_null_ : e.next_hop, r.out_next_hop);
    f("out_path_change", e.path_change, r.out_path_change);
    f("out_flowlet_start", e.flowlet_start, r.out_flowlet_start);
    f("out_event", uint64_t(e.event), r.out_event);
    f("out_vote_decremented", e.vote_decremented, r.out_vote_decremented);
    f("out_bucket", e.bucket, r.out_bucket);
    f("out_cell", e.cell, r.out_cell);
    const bs_counters& c = *cnt_;
    f("cnt_packets", c.packets, r.cnt_packets);
    f("cnt_bytes", c.bytes, r.cnt_bytes);
    f("cnt_hits", c.hits, r.cnt_hits);
    f("cnt_inserts", c.inserts, r.cnt_inserts);
    f("cnt_expirations", c.expirations, r.cnt_expirations);
    f("cnt_restarts", c.restarts, r.cnt_restarts);
    f("cnt_replacements", c.replacements, r.cnt_replacements);
    f("cnt_collisions", c.collisions, r.cnt_collisions);
    f("cnt_vote_decrements", c.vote_decrements, r.cnt_vote_decrements);
    f("cnt_blocked", c.blocked, r.cnt_blocked);
    f("cnt_flowlet_starts", c.flowlet_starts, r.cnt_flowlet_starts);
    f("cnt_path_changes", c.path_changes, r.cnt_path_changes);
    f("cnt_steered_packets", c.steered_packets, r.cnt_steered_packets);
    f("cnt_steered_bytes", c.steered_bytes, r.cnt_steered_bytes);
  }

  // ---- stimulus -------------------------------------------------------------------------------

  // Hash of the k-th flow in bucket b (all map to b under hash % BUCKETS).
  uint32_t in_bucket(uint32_t b, uint32_t k) const { return b % cfg_.buckets + cfg_.buckets * k; }

  void send(uint32_t hash, uint32_t fp, uint64_t ps = 0, bool align = false) {
    step_t s;
    s.align = align;
    s.ps = ps;
    s.p.valid = true;
    s.p.hash = hash;
    s.p.fingerprint = fp;
    steps_.push_back(s);
  }
  void idle_to(uint64_t ps, bool align) {
    step_t s;
    s.align = align;
    s.ps = ps;
    steps_.push_back(s);
  }

  void build_directed() {
    const uint64_t S = slice_, D = nd_, DD = nD_;
    const uint32_t F = cfg_.F, d = cfg_.cells;
    // Flow A in bucket 5: insert, then back-to-back hits until vote > F.
    const uint32_t A = in_bucket(5, 0), fa = 0x1111;
    send(A, fa, 0, true);
    for (uint32_t i = 0; i < F + 3; ++i) send(A, fa);
    // δ from the start of a slice: gap δ/slice (no flowlet), then δ/slice + 1 (path change).
    send(A, fa, 0, true);
    send(A, fa, (D + 1) * S - 1);
    send(A, fa, 0, true);
    send(A, fa, (D + 1) * S);
    for (int i = 0; i < 4; ++i) send(A, fa);   // steered, back to back (bypass with a hop)
    // δ from the end of a slice: idle δ - 1 ps (gap δ/slice), then idle δ + 1 ps (gap δ/slice + 1).
    send(A, fa, S - 1, true);
    send(A, fa, D * S - 1);
    send(A, fa, S - 1, true);
    send(A, fa, D * S + 1);
    send(A, fa);
    // Fingerprint collision: another hash into bucket 5 with A's fingerprint, steered on A's hop.
    send(in_bucket(5, 2), fa);
    send(A, fa);
    // Fingerprint 0 and one with only high bits set both become 1; fingerprint 1 collides.
    send(in_bucket(7, 0), 0);
    send(in_bucket(7, 1), 1);
    if (cfg_.fingerprint_bits < 32) send(in_bucket(7, 3), uint32_t(1) << cfg_.fingerprint_bits);
    // Full bucket 5: d - 1 more flows (A holds one cell), then a newcomer votes the minimum down:
    // decrements, then blocked on A (next hop set) if A is the minimum; A comes back.
    for (uint32_t k = 1; k < d; ++k) send(in_bucket(5, 10 + k), 0x2000 + k);
    for (uint32_t i = 0; i < 2 * F + 40; ++i) send(in_bucket(5, 30), 0x2222);
    send(A, fa);
    // Bucket 13: a Null resident voted to 0 and replaced; two flows alternating every cycle.
    for (uint32_t k = 0; k < d; ++k) send(in_bucket(13, k), 0x3000 + k);
    for (int i = 0; i < 8; ++i) send(in_bucket(13, 20), 0x3333);
    for (int i = 0; i < 12; ++i) send(in_bucket(13, 21 + (i & 1)), 0x4444 + (i & 1));
    // Δ in bucket 9: idle Δ/slice slices (alive), Δ/slice + 1 (restart of the same flow).
    const uint32_t E = in_bucket(9, 0), fe = 0x5555, G = in_bucket(9, 1), fg = 0x6666;
    for (uint32_t k = 1; k < d; ++k) send(in_bucket(9, 10 + k), 0x5000 + k);   // the other cells
    send(E, fe, 0, true);
    send(E, fe, (DD + 1) * S - 1);
    send(E, fe, 0, true);
    send(E, fe, (DD + 1) * S);
    // A newcomer on a cell idle Δ/slice + 1 (expire) and on one idle Δ/slice (collision).
    for (uint32_t k = 1; k < d; ++k) send(in_bucket(9, 10 + k), 0x5000 + k, 0, true);
    send(E, fe);
    send(G, fg, (DD + 1) * S);
    for (uint32_t k = 1; k < d; ++k) send(in_bucket(9, 10 + k), 0x5000 + k, 0, true);
    send(G, fg);
    send(E, fe, (DD + 1) * S - 1);
    // The wrap in bucket 15: idle 2^s slices looks fresh, 2^s + δ/slice + 1 is a flowlet.
    if (cfg_.timestamp_bits <= 12) {
      const uint64_t wrap = uint64_t(1) << cfg_.timestamp_bits;
      const uint32_t W = in_bucket(15, 0), fw = 0x7777;
      send(W, fw, 0, true);
      for (uint32_t i = 0; i < F + 2; ++i) send(W, fw);
      send(W, fw, wrap * S);
      send(W, fw, 0, true);
      send(W, fw, (wrap + D + 1) * S);
      send(W, fw, 0, true);
      send(W, fw, (wrap + DD + 1) * S);   // gap Δ/slice + 1 after the wrap: restart
    }
    // Vote saturation (small VOTE_BITS only): one flow alone in bucket 17.
    if (cfg_.vote_bits <= 8) {
      const uint32_t V = in_bucket(17, 0);
      for (uint32_t i = 0; i < (1u << cfg_.vote_bits) + 4; ++i) send(V, 0x7A7A);
      send(V, 0x7A7A, 0, true);
      send(V, 0x7A7A, (D + 1) * S);   // path change at the saturated vote
      for (int i = 0; i < 3; ++i) send(in_bucket(17, 1), 0x7B7B);
    }
    idle_to(S, false);
  }

  void build_pools() {
    // Hot: 2 buckets, 8 flows, fingerprints from {1..3} (collisions). Warm: 8 buckets, 24 flows.
    // Cold: 40 buckets, 60 flows.
    auto add = [&](pool& pool, uint32_t buckets, uint32_t flows, uint32_t base, uint32_t fps) {
      pool.flows.clear();
      for (uint32_t i = 0; i < flows; ++i) {
        const uint32_t b = base + uint32_t(rng_.below(buckets));
        const uint32_t fp = fps ? 1 + uint32_t(rng_.below(fps)) : uint32_t(rng_.next());
        pool.flows.push_back({in_bucket(b, uint32_t(rng_.below(1u << 16))), fp});
      }
      pool.pick = stimulus_rng::range(flows);
    };
    add(hot_, 2, 8, 100, 3);
    add(warm_, 8, 24, 110, 0);
    add(cold_, 40, 60, 130, 0);
  }

  // The random stimulus, after the directed steps.
  [[gnu::always_inline]] packet next_random() {
    if (phase_left_ == 0) next_phase();
    --phase_left_;
    switch (phase_) {
      case 0: break;                              // time stalls
      case 1: now_ += slow_(rng_); break;         // slow
      case 2: now_ += half_(rng_); break;
      case 3: now_ += slice_; break;              // one slice per cycle
      default: now_ += full_(rng_); break;
    }
    packet p;
    p.valid = rng_.below(4) != 0;
    const uint64_t r = rng_.below(100);
    const pool& pool = r < hot_below_ ? hot_ : r < warm_below_ ? warm_ : cold_;
    if (rng_.below(50) == 0) {   // a fresh flow: any hash, any 32-bit fingerprint
      p.hash = uint32_t(rng_.next());
      p.fingerprint = uint32_t(rng_.next());
    } else {
      const flow& f = pool.flows[pool.pick(rng_)];
      p.hash = f.hash;
      p.fingerprint = f.fingerprint;
    }
    p.bytes = 64 + uint32_t(rng_.below(1500));
    p.hop = uint32_t(hops_(rng_));
    return p;
  }

  // A new phase of the random stimulus: how time moves, and the mix of the pools (hot, warm,
  // cold) as the bounds of the draw r in [0, 100) that picks one.
  [[gnu::noinline]] void next_phase() {
    phase_ = unsigned(rng_.below(6));
    phase_left_ = 200 + rng_.below(3000);
    mix_ = unsigned(rng_.below(4));
    hot_below_ = mix_ == 0 ? 80 : mix_ == 1 ? 30 : 50;
    warm_below_ = mix_ == 0 ? 95 : mix_ == 1 ? 80 : 75;
  }

  // The directed steps, in the first cycles only.
  [[gnu::noinline]] packet next_directed() {
    const uint64_t S = slice_;
    packet p;
    step_t& st = steps_.front();
    if (!active_) {
      left_ = st.align ? (S - now_ % S) % S + st.ps : st.ps;
      active_ = true;
    }
    const uint64_t adv = std::min(left_, S);
    now_ += adv;
    left_ -= adv;
    if (left_ == 0) {
      p = st.p;
      steps_.pop_front();
      active_ = false;
    }
    p.bytes = 64 + uint32_t(rng_.below(1500));
    p.hop = uint32_t(hops_(rng_));
    return p;
  }

  using root_t = typename dut<Model>::root;
  struct pool {
    std::vector<flow> flows;
    stimulus_rng::range pick;   // the index of a flow
  };

  balance_sketch_config cfg_;
  std::unique_ptr<balance_sketch> core_;
  const bs_counters* cnt_ = nullptr;   // core_'s counters
  std::unique_ptr<dut<Model>> rtl_;
  root_t* root_ = nullptr;             // rtl_'s root: its ports
  stimulus_rng rng_{0};
  uint64_t slice_ = 0, nd_ = 0, nD_ = 0;
  uint32_t fp_mask_ = 0;   // the RTL's in_fingerprint width
  uint64_t nh_null_ = 0;   // Null on out_next_hop: all ones
  stimulus_rng::range hops_;                 // the candidate next hop (bounds fixed at reset)
  stimulus_rng::range slow_, half_, full_;   // time steps of phases 1, 2 and 4-5
  uint64_t now_ = 0, cycle_ = 0;
  std::deque<step_t> steps_;
  bool active_ = false;
  uint64_t left_ = 0;
  unsigned phase_ = 0, mix_ = 0;
  uint64_t phase_left_ = 0;
  uint64_t hot_below_ = 0, warm_below_ = 0;
  pool hot_, warm_, cold_;

  bs_decision held_;         // the core's last decision (the RTL's outputs hold it)
  bool prev_valid_ = false;
  uint64_t hazards_ = 0;
};

}  // namespace

std::unique_ptr<bench> make_balance_sketch_bench() {
  const balance_sketch_config r = balance_sketch_rtl::rtl_parameters();
  if (r.buckets != 250 || r.cells != 1) throw std::logic_error("balance_sketch bench: the RTL's defaults differ from the bench's");
  return std::make_unique<balance_sketch_bench<Vbalance_sketch, 250, 1>>();
}
std::unique_ptr<bench> make_balance_sketch_set2_bench() {
  static_assert(set2::balance_sketch::count == 2, "balance_sketch bench: reads BUCKETS and CELLS of its second set only");
  return std::make_unique<balance_sketch_bench<Vbalance_sketch_set2, uint32_t(set2::balance_sketch::BUCKETS),
                                               uint32_t(set2::balance_sketch::CELLS)>>();
}

}  // namespace netasic::cosim
