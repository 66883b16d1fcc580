// RTL in the loop for the flowlet table: the calls the load balancer makes on a flowlet table
// (flowlet_table_if, systemc/blocks/flowlet_table.h), answered by the Verilated
// rtl/flowlet_table.sv. Free of Verilator's headers (the model is behind a pointer to an
// implementation).
//
// Time: the RTL is clocked forward to the cycle of now_ps (now_ps / clock_period_ps), one edge
// per cycle, except for quiet cycles: no lookup, the Delta timer not yet at its boundary, and no
// sweep running or pending, or the sweep on a row with no valid entry (not the last). In those
// the RTL's only change is its timer counting down and the sweep's row and position moving on,
// so a stretch of them is taken in one step, those registers written (public in the RTL); the
// boundary's cycle and a sweep's visits to rows in use are clocked. The cycle of the latest
// lookups stays open (its edge not yet taken): the lookups of one cycle go into successive
// lanes, lane 0 first, and each is answered from the lane's combinational result before the
// edge, because a later lookup may still come in the same cycle. RTL cycle 0 is the first cycle after the init sweep, the
// core's cycle 0. More lookups in one cycle than the RTL has lanes (PORTS) throw
// std::runtime_error (the core serves them anyway and counts port_overflows).
//
// Only lookup(new_port) is supported: CONGA's lookup_with(choose) calls back into the caller
// with the entry's cached port, which RTL lanes cannot do. The collision statistics are the
// model's, not the hardware's (it keeps no flow ID): they are kept here from the RTL's answers
// as the core keeps them, so that a run's summary is the core run's.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "blocks/flowlet_table.h"
#include "cosim/harness/rtl_loop_register.h"

namespace netasic {

class flowlet_table_rtl : public flowlet_table_if {
 public:
  // Throws std::invalid_argument naming the field when a structural value (entries, age_bits,
  // ports, sweep_width, port_bits, clock_period_ps) differs from the Verilated parameters, or a
  // value is out of range (delta_ps below one clock period or not below 2^63 ps). `count`, if
  // given, counts the lookups answered, the cycles clocked and the quiet cycles stepped over.
  explicit flowlet_table_rtl(const flowlet_config& cfg, rtl_loop_count* count = nullptr);
  ~flowlet_table_rtl();
  flowlet_table_rtl(const flowlet_table_rtl&) = delete;
  flowlet_table_rtl& operator=(const flowlet_table_rtl&) = delete;

  // One packet at now_ps, as flowlet_table::lookup. Times must not go backwards
  // (std::logic_error, no state change). new_port must fit in port_bits and, unless entries is a
  // power of two, hash in 32 bits (the RTL's hash width) (std::invalid_argument).
  flowlet_result lookup(uint64_t hash, uint64_t now_ps, uint32_t new_port, uint64_t flow_id = flow_is_hash) override;
  // Clocks the RTL through every cycle before now_ps's cycle, as flowlet_table::advance.
  void advance(uint64_t now_ps) override;

  // From the RTL's counter outputs, plus the open cycle's lookups (the core counts a lookup at
  // once). lookups, collisions and collision_hits are counted here; port_overflows stays 0.
  const flowlet_counters& counters() const override;
  const flowlet_config& config() const { return cfg_; }
  bool sweep_active() const;
  uint32_t sweep_position() const;
  uint64_t sweep_cycles() const { return (uint64_t(cfg_.entries) + cfg_.sweep_width - 1) / cfg_.sweep_width; }
  uint64_t memory_bits() const { return uint64_t(cfg_.entries) * (1 + cfg_.age_bits + cfg_.port_bits); }
  uint64_t rtl_cycles() const;   // cycles since the init sweep, clocked or quiet
  // Clock every cycle, quiet ones too (on by default: quiet stretches in one step). For tests
  // that compare the two.
  void skip_quiet_cycles(bool on);

  // The parameters the RTL was Verilated with (delta_ps is the config's, not a parameter).
  static flowlet_config rtl_parameters();

 private:
  struct impl;
  void count_collision(const flowlet_result& r, uint64_t flow);

  flowlet_config cfg_;
  std::unique_ptr<impl> p_;
  rtl_loop_count* count_;
  std::vector<uint64_t> owner_;   // per entry: the flow that started its current life
  std::vector<bool> collided_;    // ... and whether a second flow has used it since
  uint64_t collisions_ = 0, collision_hits_ = 0;
};

// `netasic run --rtl flowlet_table`.
rtl_loop_block flowlet_table_rtl_loop();

}  // namespace netasic
