// RTL in the loop for a device's Sundial unit: the calls the clock layer makes on it
// (sundial_unit_if, systemc/clock/sundial_unit.h), answered by the Verilated rtl/sundial_unit.sv.
// Free of Verilator's headers (the model is behind a pointer to an implementation).
//
// The core is event-driven; the RTL goes through every edge of the device's oscillator, as far
// as the latest call's true time, and the edge numbers map to true times through the oscillator
// (sundial_unit_drive.h). Quiet edges (no message or command, before the send or interrupt the
// RTL's o_next_event names) change only its timeout counter and send timer: a stretch of them is
// one step that moves those two registers (public in the RTL), then the edge that may act is
// clocked. A message or command goes into the cycle of its true time and is answered one edge
// later, so the RTL runs a few edges ahead of the caller: what those edges raise is kept and
// handed over by advance() when its time comes. next_event_ps() is the RTL's o_next_event
// (edges to its next send or interrupt) turned into a true time.
//
// The RTL takes one command a cycle where the core takes any number at one instant, so a burst
// (the firmware reprogramming the unit) spreads over successive edges. That changes nothing
// unless a timer or a message falls inside the burst; then the two could differ, and the call
// throws std::logic_error naming the race instead of answering differently. So does a timeout
// written below what the counter already reads: the core raises it at an edge already behind,
// the RTL only at the edge of the write.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "clock/sundial_unit.h"
#include "cosim/harness/rtl_loop_register.h"

namespace netasic {

class sundial_unit_rtl : public sundial_unit_if {
 public:
  // std::invalid_argument when the core would refuse cfg, or when it does not fit the Verilated
  // RTL (more ports than PORTS, a timeout past its 32-bit register). `count`, if given, counts
  // the edges the RTL is clocked through (as calls), its cycles, the reset's included, and the
  // quiet edges stepped over.
  sundial_unit_rtl(const sundial_unit_config& cfg, oscillator& clock, uint64_t start_ps, rtl_loop_count* count = nullptr);
  ~sundial_unit_rtl() override;
  sundial_unit_rtl(const sundial_unit_rtl&) = delete;
  sundial_unit_rtl& operator=(const sundial_unit_rtl&) = delete;

  uint64_t next_event_ps() const override;
  std::vector<sundial_event> advance(uint64_t now_ps) override;
  sundial_rx on_sync(uint64_t now_ps, uint32_t port, int64_t tx_local_ps) override;
  int64_t epsilon_ps(uint64_t now_ps) const override;

  void set_parent_port(uint32_t port) override;
  void set_tx_ports(const std::vector<uint32_t>& ports) override;
  void set_eps_base(uint64_t ps) override;
  void set_link_delay(uint32_t port, int64_t delay_ps) override;
  void set_first_timeout(uint64_t ps) override;
  void arm_second_timeout(uint64_t ps) override;
  void become_root(uint64_t now_ps) override;
  void evict(uint64_t now_ps) override;

  mode current_mode() const override;
  uint32_t parent_port() const override;
  const std::vector<uint32_t>& tx_ports() const override { return tx_; }
  uint64_t eps_base_ps() const override { return eps_base_; }
  const sundial_counters& counters() const override;
  const sundial_unit_config& config() const override { return cfg_; }

  // The RTL's PORTS (its Verilated default).
  static uint32_t rtl_ports();

 private:
  struct impl;
  sundial_unit_config cfg_;
  std::vector<uint32_t> tx_;     // as set: the RTL holds a mask, the caller's order is kept
  uint64_t eps_base_ = 0;        // as written (the RTL compares against it, it has no read port)
  std::unique_ptr<impl> p_;
};

// `netasic run --rtl sundial_unit`.
rtl_loop_block sundial_unit_rtl_loop();

}  // namespace netasic
