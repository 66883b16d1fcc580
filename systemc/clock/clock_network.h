// The clock-synchronisation layer of a fabric (plain C++, no SystemC): every device of a
// netasic::topology (switches and host NICs) has an oscillator and runs Sundial (Li et al.,
// OSDI 2020; Li's thesis, ch. 3) or a PTP-like baseline, side by side on identical oscillators
// and under identical faults. Event-driven and deterministic; see docs/datasheets/sundial.md
// ("Integration") for the model.
//
// In a fabric run (clock_layer with a sync_transport) every sync-message is a frame: it waits in
// the sending switch's traffic manager at a strict priority, takes the egress pipeline, is
// stamped as it goes onto the wire and is taken by the receiver's clock unit beside the MAC.
// Standalone (run_clock_network, the unit tests) a message takes its link's serialisation and
// propagation; timestamps are taken at egress either way, so queueing never enters the offset.
//
// The pieces: clock_config.h and clock_faults.h (what to run, the fault grammar), clock_world
// (what the algorithms share), sync_sim (one algorithm's event loop and failure bookkeeping),
// sundial_sim and ptp_sim (the algorithms), sundial_planner (the controller), clock_result.h.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "clock/clock_config.h"
#include "clock/clock_faults.h"
#include "clock/clock_result.h"
#include "clock/sundial_regs.h"
#include "clock/sync_transport.h"
#include "protocol/headers.h"
#include "topology/topology.h"

namespace netasic {

// Throws config_error for a fault that names nothing in the topology, a fault after the end, a
// bad root; std::invalid_argument for an inconsistent configuration or too many values.
clock_result run_clock_network(const topology& topo, const clock_network_config& cfg);

// The clock layer stepped by its owner, all algorithms in lockstep: advance(t) runs what is due
// by t. run_clock_network is clock_layer(topo, cfg, nullptr), advanced to the end.
class clock_layer {
 public:
  // transport null: standalone, each message takes its link's latency.
  clock_layer(const topology& topo, const clock_network_config& cfg, sync_transport* transport);
  ~clock_layer();
  uint64_t next_event_ps() const;   // UINT64_MAX: nothing before the end
  void advance(uint64_t now_ps);
  // A message leaving its sender at egress_ps: its timestamp field.
  int64_t stamp(const sync_header& m, uint64_t egress_ps) const;
  // What node's clock reads at true time t_ps under clock.algorithm (the first algorithm).
  int64_t local_ps(uint32_t node, uint64_t t_ps) const;
  void arrive(uint32_t node, uint32_t port, const sync_header& m, uint64_t now_ps);
  void sample(uint64_t now_ps);     // sample_interval_ps = 0: at the owner's probe times
  // Sundial's registers (cfg.sundial_live_registers): a write as the device (switch or NIC) takes
  // it, the state device `node` reports (sundial_regs::state_*), and the controller's
  // reprogramming after fault i.
  void register_write(const sundial_reg_write& w);
  uint32_t sundial_state(uint32_t node) const;
  void sundial_programmed(size_t fault, uint64_t now_ps);
  uint32_t root_node() const;       // the first algorithm's current root (a root fault's target)
  // The faults in time order, and the links fault i takes down for the traffic: a link's, all of a
  // device's (a root fault: the root it took down, or the current root before its time), none for
  // a broken clock.
  size_t faults() const;
  uint64_t fault_at_ps(size_t i) const;
  std::vector<unsigned> fault_links(size_t i) const;
  // Once: the run ended at end_ps (at most the duration). Standalone, what is due by then runs
  // first; in a fabric run nothing more runs (what is due at the end lies past the run).
  clock_result finish(uint64_t end_ps);

 private:
  struct impl;
  std::unique_ptr<impl> p_;
};
// The same checks of root and faults (and the initial plan), without running: before a run.
void check_clock_network(const topology& topo, const clock_network_config& cfg);

}  // namespace netasic
