// Sundial controller (§3.4.3 Implementation of Sundial, Li et al., OSDI 2020): computes the primary spanning tree and the backup plan
// (sundial_planner, over compute_backup_plan) and programs the Sundial register block
// (clock/sundial_regs.h) of every switch and every host NIC over the register bus, at the start
// of simulation and again clock.controller_delay after each failure (the RPC of §3.4.3; Fig. 3.19). Before
// replanning it reads every switch's STATE register, so it knows which devices elected
// themselves root or evicted themselves (a NIC can do neither). Every programming writes all
// eight registers of every switch, then of every NIC, VALID last, reads them back, and then tells
// the clock layer the devices may take their new configuration.
#pragma once
#include <memory>
#include <vector>

#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include "clock/clock_config.h"
#include "clock/clock_driver.h"
#include "clock/sundial_planner.h"
#include "tlm/regbus.h"
#include "topology/topology.h"

namespace netasic {

class sundial_controller : public sc_core::sc_module {
  SC_HAS_PROCESS(sundial_controller);

 public:
  tlm_utils::simple_initiator_socket<reg_driver> bus;
  // cfg: the clock layer's configuration (faults, timeouts, eps_per_hop, controller_delay).
  // device_of_switch / device_of_host: the register-bus device numbers (topology order).
  sundial_controller(sc_core::sc_module_name name, const topology& topo, const clock_network_config& cfg,
                     std::vector<unsigned> device_of_switch, std::vector<unsigned> device_of_host, clock_driver* clock);
  ~sundial_controller() override;

  uint64_t register_writes() const { return writes_; }
  uint32_t replans() const { return replans_; }
  // After each write the controller reads every register back over the bus.
  uint64_t register_reads() const { return reads_; }
  uint64_t readback_mismatches() const { return mismatches_; }
  uint64_t state_reads() const { return state_reads_; }
  // Switches the controller took out of the plan because their STATE said evicted (a switch that
  // is down reads so too), and the replans that kept a root that had elected itself.
  uint32_t evictions_seen() const { return evictions_seen_; }
  uint32_t elections_seen() const { return elections_seen_; }
  const std::vector<sundial_regs>& plan() const { return planner_->registers(); }   // as last written
  const std::vector<sundial_regs>& host_plan() const { return planner_->host_registers(); }

 private:
  void start_of_simulation() override;   // the first plan is in place at t = 0
  void react();                          // one replan per fault, after the controller's delay
  void program();
  void program(const std::vector<sundial_regs>& regs, const std::vector<unsigned>& device);

  clock_network_config cfg_;
  std::unique_ptr<sundial_planner> planner_;
  std::vector<unsigned> device_, host_device_;
  clock_driver* clock_;
  uint64_t writes_ = 0, reads_ = 0, mismatches_ = 0, state_reads_ = 0;
  uint32_t replans_ = 0, evictions_seen_ = 0, elections_seen_ = 0;
};

}  // namespace netasic
