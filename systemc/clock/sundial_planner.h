// Sundial's controller core (§3.4.2.1 Centralized controller, §3.4.3 Implementation; no SystemC):
// what the controller knows (its graph of switches, its plan, the links and devices it knows are
// down), its reaction to each failure (sundial_reaction in backup_plan.h), and its plan as each
// device's configuration and register values. Two owners hold one: the fabric's
// sundial_controller, which writes the registers over the bus, and the clock layer's Sundial
// (sundial_sim), which keeps its own copy for its bookkeeping and, when no controller writes the
// registers, to configure the devices.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "clock/backup_plan.h"
#include "clock/clock_config.h"
#include "clock/sundial_firmware.h"
#include "clock/sundial_regs.h"
#include "topology/topology.h"

namespace netasic {

struct clock_world;

// The plan's configuration of device u (switch or host); member = it is in the plan. down: the
// links the controller knows are down (parallel links: the lowest-index one that is up).
sundial_firmware_config plan_config(const clock_world& w, const backup_plan& plan, const std::vector<char>& down,
                                    uint32_t u, bool& member);
// A device's register block from its plan configuration, and back (timeouts in oscillator cycles,
// rounded up, as the unit counts them). A host NIC (sw = false) is a leaf: it never takes ROOT.
sundial_regs plan_regs(const sundial_firmware_config& f, bool member, uint64_t period_ps);
sundial_firmware_config regs_config(const sundial_regs& r, bool sw, const clock_network_config& cfg, bool& member);

class sundial_planner {
 public:
  // Over a clock_world of its own (throws as check_clock_network does), or over the clock layer's.
  sundial_planner(const topology& topo, const clock_network_config& cfg);
  explicit sundial_planner(const clock_world& w);
  ~sundial_planner();

  // The plan as register values, one block per switch (topology switch order) and one per host
  // NIC (topology host order): the initial plan, then after each learn.
  const std::vector<sundial_regs>& registers() const;
  const std::vector<sundial_regs>& host_registers() const;
  size_t faults() const;
  uint64_t fault_at_ps(size_t i) const;

  struct observed {
    uint32_t evictions = 0;   // switches taken out because they evicted themselves
    bool election = false;    // the new root elected itself
    bool replanned = false;   // false: no switch is live, the plan stands
  };
  // The reaction to fault i (in time order): its links and devices (a root fault: the plan's
  // root), with the switches' STATE registers (state: one per switch, or empty) saying which
  // evicted themselves or elected themselves root; then the registers of the new plan.
  observed learn(size_t i, const std::vector<uint32_t>& state = {});
  // The reaction to a failure of topology links and nodes, with each switch's report.
  observed react(const std::vector<unsigned>& links, const std::vector<uint32_t>& nodes,
                 const std::vector<node_report>& reports);

  // Without a complete plan the backup parents are not safe to use: plan() then has none.
  const backup_plan& plan() const;
  const std::vector<char>& links_down() const;     // [link] known to be down
  const std::vector<char>& devices_down() const;   // [node] known to be down
  // Device u's configuration under the current plan (plan_config).
  sundial_firmware_config config(uint32_t u, bool& member) const;

 private:
  struct impl;
  std::unique_ptr<impl> p_;
};

}  // namespace netasic
