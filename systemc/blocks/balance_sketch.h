// BalanceSketch, the sketch inside BurstBalancer (Liu, Zhao, Fan, Yang et al.; core, no
// SystemC). It keeps only FlowBursts (fast, large flowlets) in a few hundred buckets and moves
// only the flowlet that follows one (the "BurstFollower") to a random next hop; every other
// packet goes by ECMP. Time in picoseconds, sizes in bytes.
//
// Three forms behind one interface (bs_form):
//   software      Algorithm 1 (§3.3–3.4) with the multi-cell bucket (d cells) and the compact
//                 cyclic timestamp of §3.6. The paper's own algorithm.
//   pipeline      the Tofino form of §4.2.1–4.2.2, Fig. 8 (selector + scheduler), written as plain C++.
//   stateful_alu  the same Tofino form run on the project's stateful ALUs, register by register.
// pipeline and stateful_alu give identical decisions and register contents (unit test). software
// differs from them exactly where the paper's Tofino form differs from its Algorithm 1: the
// selector evicts at vote 0 whatever the next hop, an outdated bucket is cleared by a mirrored,
// recirculated packet, and a scheduled flow keeps its next hop until it idles for Δ.
//
// Compact timestamps (§3.6). A timestamp is the slice number floor(now / slice) modulo 2^s,
// slice = δ unless configured. The gap between two packets is (ts_now - ts) mod 2^s slices.
// "Spaced by at least one time slice" means a whole slice lies between them (§3.6, Fig. 4), so a
// threshold of n slices is crossed when the gap EXCEEDS n: new flowlet when gap > δ/slice, flow
// ended when gap > Δ/slice. Such a test never fires early (gap > n slices implies a real idle
// time > n * slice) and always fires once the idle time reaches (n + 1) slices; in between it
// depends on where the packets fall in their slices (the δ..2δ miss of §3.6). With slice = 1 ps
// and s = 64 the tests are exactly Algorithm 1's t - time > δ and > Δ.
// Wrap: the gap is only known modulo 2^s. A cell idle for G slices looks idle for G mod 2^s, so
// an entry idle for a multiple of 2^s slices looks fresh: its flow is not seen to have ended
// and a new flowlet is not seen to have started. Needs Δ/slice <= 2^s - 2.
//
// Tofino form (bs_form::pipeline / ::stateful_alu), d = 1, one index h(f) into every register:
//   stage 1  SEL_ID  {fingerprint, vote - 1}   vote action: fingerprint_vote() plus the key
//                                               replacement at vote 1; clear action (mirror)
//   stage 2  SEL_TS  {compact timestamp}       written when the packet's flow is (now) resident
//   stage 3  (no register) gap = ts_now - ts_old mod 2^s; sch_flag; clear request
//   stage 4  SCH_ID  {fingerprint, deadline}   claim action (sch_flag) / refresh action
//   stage 5  SCH_NH  {next_hop}                written with the picked hop when claimed
// See docs/datasheets/balance_sketch.md for the programs, the costs and every assumption.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "blocks/stateful_alu.h"
#include "common/rng.h"

namespace netasic {

enum class bs_form : uint8_t { software, pipeline, stateful_alu };

constexpr uint32_t bs_null_hop = 0xFFFFFFFFu;     // next_hop = Null: the flow goes by ECMP
constexpr uint32_t bs_random_hop = 0xFFFFFFFFu;   // process(): draw the new next hop at random

struct balance_sketch_config {
  bs_form form = bs_form::software;
  uint32_t buckets = 250;              // l: NS-2 leaf-spine default, "fits one 1R1W bank" (§5.2.1)
  uint32_t cells = 1;                  // d cells per bucket (§3.6); the Tofino form needs 1
  unsigned fingerprint_bits = 16;      // "16-bit flow ID fingerprints" (§3.6, §5.1.1); 1..32
  unsigned vote_bits = 16;             // not stated; saturates at 2^vote_bits - 1; 1..32
  unsigned timestamp_bits = 8;         // s: "one 8-bit timestamp suffice[s]" (§3.6, §5.1.1); 2..64
  uint64_t slice_ps = 0;               // compact time slice; 0 = δ, as the paper (§3.6)
  uint64_t delta_ps = 200'000'000;     // δ flowlet threshold, 200 µs (NS-2, §5.2.1)
  uint64_t Delta_ps = 50'000'000'000;  // Δ flow timeout, 50 ms (§5.2.1)
  uint32_t F = 0;                      // voting threshold: a burst needs vote > F; 0 (§5.2.1)
  uint32_t next_hops = 8;              // equal-cost next hops to pick from (8 spines, §5.2.1)
  unsigned scheduler_timestamp_bits = 32;   // Tofino form: SCH_ID word width, 8/16/32 (not stated)
  uint32_t stateful_alu_latency_cycles = 4;   // stateful_alu form: ALU latency per register stage
  uint64_t seed = 1;                   // random next hops
};

// What the packet's bucket did (counters count the same).
enum class bs_event : uint8_t {
  hit,        // Case 2: the flow resides in a cell (selector, in the Tofino form)
  insert,     // Case 1: an empty cell was taken (software)
  expire,     // Case 1: another flow's cell was idle > Δ: its flow ended, the cell was taken
  restart,    // Case 1 on the flow's own cell: it idled > Δ and starts again with vote 1, Null
  replace,    // Case 3: the vote reached 0 with next_hop Null: taken (Tofino: any take)
  decrement,  // Case 3: a resident's vote went down by one; it stays
  blocked     // Case 3: the vote was already 0 but next_hop is set: kept until idle > Δ
};

struct bs_decision {
  bool steer = false;          // forward on next_hop; otherwise by ECMP
  uint32_t next_hop = bs_null_hop;
  bool path_change = false;    // this packet starts a BurstFollower: a new next_hop was picked
  bool flowlet_start = false;  // resident flow after a gap > δ (whether or not vote > F)
  bs_event event = bs_event::hit;
  bool vote_decremented = false;   // some resident lost a vote to this packet
  bool bucket_clear = false;   // Tofino form: mirror + recirculate one packet to clear SEL_ID
  bool scheduler_claim = false;    // Tofino form: the scheduler entry went to this flow
  bool scheduler_blocked = false;  // Tofino form: sch_flag, but the scheduler holds a live flow
  uint32_t bucket = 0, cell = 0;
};

struct bs_counters {
  uint64_t packets = 0, bytes = 0;
  uint64_t hits = 0, inserts = 0, expirations = 0, restarts = 0, replacements = 0;
  uint64_t collisions = 0;        // packets whose flow was absent and found no free cell (Case 3)
  uint64_t vote_decrements = 0;   // votes actually lowered
  uint64_t blocked = 0;
  uint64_t flowlet_starts = 0;
  uint64_t path_changes = 0;      // BurstFollowers given a new next hop
  uint64_t steered_packets = 0, steered_bytes = 0;   // forwarded on a next_hop, not ECMP
  uint64_t bucket_clears = 0;     // each one mirror + one recirculation pass on Tofino
  uint64_t scheduler_claims = 0, scheduler_blocked = 0;
};

// One cell of the software form; next_hop == bs_null_hop is Null, fingerprint 0 is empty.
struct bs_cell {
  uint32_t fingerprint = 0;
  uint32_t vote = 0;
  uint64_t timestamp = 0;      // compact: slice mod 2^s
  uint32_t next_hop = bs_null_hop;
};

// One bucket of the Tofino form, as its registers hold it (raw words).
struct bs_tofino_entry {
  uint32_t sel_fingerprint = 0, sel_vote_word = 0;   // vote = sel_vote_word + 1 while resident
  uint32_t sel_timestamp = 0;
  uint32_t sch_fingerprint = 0, sch_deadline = 0;    // deadline: first slice (mod 2^w) it is idle > Δ
  uint32_t sch_next_hop = 0;
};

struct bs_tofino_resources {
  unsigned stages = 5;            // register stages 1, 2, 4, 5 and the gap stage 3
  unsigned registers = 4;         // SEL_ID, SEL_TS, SCH_ID, SCH_NH
  unsigned stateful_alus = 4;     // one per register
  unsigned register_actions = 6;  // vote + clear, touch, claim + refresh, assign
  unsigned sel_id_width = 0, sel_ts_width = 0, sch_id_width = 0, sch_nh_width = 0;   // bits per word
  uint64_t sram_bits = 0;
};

// What the load balancer and the run summary call on BalanceSketch: the core below, or with
// `netasic run --rtl balance_sketch` its Verilated RTL, software form
// (cosim/balance_sketch/balance_sketch_rtl.h).
class balance_sketch_if {
 public:
  virtual ~balance_sketch_if() = default;
  // One packet: see balance_sketch::process.
  virtual bs_decision process(uint32_t flow_hash, uint32_t fingerprint, uint32_t bytes, uint64_t now_ps,
                              uint32_t candidate_hop = bs_random_hop) = 0;
  virtual const bs_counters& counters() const = 0;
  virtual uint64_t occupancy() const = 0;   // cells holding a flow
};

class balance_sketch : public balance_sketch_if {
 public:
  // Throws std::invalid_argument naming the field for a bad config.
  explicit balance_sketch(const balance_sketch_config& cfg);
  ~balance_sketch();
  balance_sketch(balance_sketch&&) noexcept;
  balance_sketch& operator=(balance_sketch&&) noexcept;

  // One packet: insert, then pick the next hop. flow_hash picks the bucket (mod l);
  // fingerprint is truncated to fingerprint_bits, and 0 (the empty/Null key) becomes 1.
  // candidate_hop: the hop to use if a path change happens now (least-loaded, power of two
  // choices...); bs_random_hop draws one uniformly from next_hops, as the paper does (§3.4 Case 2).
  bs_decision process(uint32_t flow_hash, uint32_t fingerprint, uint32_t bytes, uint64_t now_ps,
                      uint32_t candidate_hop = bs_random_hop) override;

  // Cells holding a flow (fingerprint != 0); stale ones count until evicted, as in hardware.
  // Tofino form: selector entries.
  uint64_t occupancy() const override;
  uint64_t scheduler_occupancy() const;   // Tofino form; 0 for software

  bs_cell cell(uint32_t bucket, uint32_t index) const;      // software form
  bs_tofino_entry tofino_entry(uint32_t bucket) const;     // pipeline / stateful_alu forms

  // Memory of the state: software l * d * bits_per_cell(); Tofino form the register SRAM.
  uint64_t memory_bits() const;
  unsigned bits_per_cell() const;     // software: fingerprint + vote + timestamp + next_hop (with Null)
  bs_tofino_resources tofino_resources() const;   // throws std::logic_error on the software form
  uint64_t stateful_alu_executions() const;   // stateful_alu form: register actions (packets + clears)

  const bs_counters& counters() const override { return count_; }
  const balance_sketch_config& config() const { return cfg_; }
  uint64_t delta_slices() const { return n_delta_; }
  uint64_t Delta_slices() const { return n_Delta_; }
  uint64_t timestamp_of(uint64_t now_ps) const { return (now_ps / slice_) & ts_mask_; }

 private:
  bs_decision process_software(uint32_t bucket, uint32_t f, uint64_t now_ps, uint32_t candidate);
  bs_decision process_pipeline(uint32_t bucket, uint32_t f, uint64_t now_ps, uint32_t candidate);
  bs_decision process_stateful_alu(uint32_t bucket, uint32_t f, uint64_t now_ps, uint32_t candidate);
  uint32_t pick(uint32_t candidate);
  void count(const bs_decision& d, uint32_t bytes);

  // A register with several RegisterActions (Tofino allows up to four per register); the
  // project's stateful_alu holds one program, so each action is its own ALU and the array
  // lives here: the touched entry is copied in before and out after each execution.
  class multi_action_register;

  balance_sketch_config cfg_;
  uint64_t slice_, n_delta_, n_Delta_, ts_mask_;
  uint32_t fp_mask_;
  uint64_t vote_cap_;
  rng rng_;
  bs_counters count_;

  std::vector<bs_cell> cells_;    // software: l * d

  // Tofino form. Word widths and masks, then the arrays (pipeline) or the registers (stateful_alu).
  unsigned w_id_ = 0, w_ts_ = 0, w_sch_ = 0, w_nh_ = 0;
  uint32_t id_mask_ = 0, sch_mask_ = 0;
  std::vector<bs_tofino_entry> pipe_;
  std::unique_ptr<multi_action_register> sel_id_, sel_ts_, sch_id_, sch_nh_;
  uint64_t pass_ = 0;
};

// The register actions of the Tofino form, for the datasheet, the resource count and the tests.
// sel_id_vote is stateful_alu_program::fingerprint_vote() plus the key replacement (lo <- phv_a when the
// key differs and the stored vote word is 0, i.e. the vote falls from 1 to 0) and output hi_old.
stateful_alu_program bs_sel_id_vote_program();
stateful_alu_program bs_sel_id_clear_program();
stateful_alu_program bs_sel_ts_touch_program();
stateful_alu_program bs_sch_id_claim_program(uint64_t Delta_slices);
stateful_alu_program bs_sch_id_refresh_program(uint64_t Delta_slices);
stateful_alu_program bs_sch_nh_assign_program();

}  // namespace netasic
