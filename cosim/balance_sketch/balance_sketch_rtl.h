// RTL in the loop for BalanceSketch: the calls the switch's load balancer and the run summary make
// on BalanceSketch (balance_sketch_if, systemc/blocks/balance_sketch.h, software form), answered
// by the Verilated rtl/balance_sketch.sv. Free of Verilator's headers (the model is behind a
// pointer to an implementation).
//
// One packet per process() call, answered before it returns: the RTL takes one packet per cycle
// and shows its decision two edges later, so each call is
//   1. idle cycles (in_valid = 0) that walk in_now_ps towards now_ps one slice boundary per
//      cycle, only while now_ps lies more than one slice past the RTL's slice counter (the RTL's
//      rule: in_now_ps never decreases and crosses at most one slice boundary per cycle);
//   2. the packet's cycle, in_now_ps at now_ps, then one drain cycle (in_valid = 0, in_now_ps
//      held), after which out_valid is high and the decision and counters include the packet.
// Packets at the same now_ps (several ports in one switch cycle) therefore take successive RTL
// cycles with in_now_ps held, which the RTL allows; the RTL's clock is not the switch's clock.
// Long idle times: the RTL sees time only as the slice number mod 2^TIMESTAMP_BITS, so the
// adapter presents in_now_ps = now_ps - offset, the offset a multiple of 2^s slices chosen to
// leave between 1 and 2^s slices to walk: any time jump costs at most 2^s - 1 idle cycles, and
// every compact timestamp (hence every decision) is the one the core computes.
//
// Results are identical to the core's software form for any sequence with non-decreasing now_ps
// (what the switch produces: every call is made at the current simulated time). candidate_hop
// bs_random_hop draws from an rng seeded with cfg.seed exactly as the core's: one value is drawn
// ahead and given to the RTL, and consumed only when the packet makes a path change (the only
// time the core draws). occupancy() counts the RTL's insert decisions: in the software form a
// cell becomes non-empty only by an insert (every other take replaces a flow) and never becomes
// empty again, so this is the core's count of cells with fingerprint != 0, exactly.
#pragma once
#include <cstdint>
#include <memory>

#include "blocks/balance_sketch.h"
#include "cosim/harness/rtl_loop_register.h"

namespace netasic {

class balance_sketch_rtl : public balance_sketch_if {
 public:
  // Throws std::invalid_argument naming the field when the form is not software, when a
  // structural value (buckets, cells, fingerprint_bits, vote_bits, timestamp_bits, next_hops)
  // differs from the Verilated parameters, or when the core would reject the config (the same
  // checks and messages). Sets the cfg_* inputs, resets the RTL and runs its init sweep (whose
  // length, the Null next hop's width and the cells per bucket are checked against the
  // parameters: std::runtime_error if the BALANCE_SKETCH_RTL_* values do not match the model).
  // `count`, if given, counts the packets answered and the cycles clocked.
  explicit balance_sketch_rtl(const balance_sketch_config& cfg, rtl_loop_count* count = nullptr);
  ~balance_sketch_rtl();
  balance_sketch_rtl(const balance_sketch_rtl&) = delete;
  balance_sketch_rtl& operator=(const balance_sketch_rtl&) = delete;

  // One packet, as balance_sketch::process. candidate_hop >= next_hops (other than
  // bs_random_hop) throws std::invalid_argument; now_ps below the previous call's throws
  // std::logic_error. Nothing changes when it throws.
  bs_decision process(uint32_t flow_hash, uint32_t fingerprint, uint32_t bytes, uint64_t now_ps,
                      uint32_t candidate_hop = bs_random_hop) override;

  // The RTL's fourteen counter outputs, read after the last packet's drain cycle (so they include
  // it, as the core's do). bucket_clears, scheduler_claims and scheduler_blocked (Tofino form)
  // stay 0, as in the core's software form.
  const bs_counters& counters() const override;
  uint64_t occupancy() const override;   // cells holding a flow (see above)
  uint64_t scheduler_occupancy() const { return 0; }   // software form
  uint64_t memory_bits() const { return uint64_t(cfg_.buckets) * cfg_.cells * bits_per_cell(); }
  unsigned bits_per_cell() const;   // fingerprint + vote + timestamp + next hop with Null, as the core
  const balance_sketch_config& config() const { return cfg_; }
  uint64_t delta_slices() const { return n_delta_; }
  uint64_t Delta_slices() const { return n_Delta_; }

  uint64_t rtl_cycles() const;    // edges taken since the init sweep (packet, drain and idle cycles)
  uint64_t idle_cycles() const;   // of which idle cycles walking the time

  // The parameters the RTL was Verilated with (form software, the rest the config's defaults).
  static balance_sketch_config rtl_parameters();

 private:
  struct impl;
  balance_sketch_config cfg_;
  uint64_t n_delta_ = 0, n_Delta_ = 0;
  std::unique_ptr<impl> p_;
  rtl_loop_count* count_;
};

// `netasic run --rtl balance_sketch`.
rtl_loop_block balance_sketch_rtl_loop();

}  // namespace netasic
