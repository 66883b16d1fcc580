// The clock-synchronisation layer of a fabric (plain C++, no SystemC): every device of a
// netasic::topology (switches and host NICs) has an oscillator and runs Sundial (thesis ch. 3)
// or a PTP-like baseline, side by side on identical oscillators and under identical faults.
// Event-driven and deterministic; see docs/datasheets/sundial.md ("Integration") for the model.
//
// In a fabric run (clock_layer with a sync_transport) every sync-message is a frame: it waits in
// the sending switch's traffic manager at a strict priority, takes the egress pipeline, is
// stamped as it goes onto the wire and is taken by the receiver's clock unit beside the MAC.
// Standalone (run_clock_network, the unit tests) a message takes its link's serialisation and
// propagation; timestamps are taken at egress either way, so queueing never enters the offset.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "clock/sundial_regs.h"
#include "topology/topology.h"
#include "protocol/headers.h"

namespace netasic {

// sundial: the cores of systemc/clock. ptp: PTP+eps as the paper configures it [L1524] (2 s
// interval, T_recovery 2 s). ptp_fast: PTP+DTP+eps [L1526] (5 us interval, T_recovery 100 ms).
// The baselines recover only when the controller reconfigures the tree.
enum class clock_algorithm { sundial, ptp, ptp_fast };
const char* clock_algorithm_name(clock_algorithm a);
// Throws config_error listing the names.
clock_algorithm parse_clock_algorithm(const std::string& name);

struct clock_fault {
  enum class kind { link, device, root, domain, broken_clock };
  kind what = kind::link;
  std::string target;     // "agg0-core0" (or "A-B#i"), a device, a domain (or a device: its domain); "" for root
  uint64_t at_ps = 0;
  std::string text;       // the item as written
};
const char* clock_fault_kind_name(clock_fault::kind k);
// "KIND [TARGET] @ TIME_US": "link agg0-core0 @ 1000", "device agg3 @ 1500", "root @ 2000",
// "domain pod2 @ 2500", "broken_clock edge4 @ 3000". Throws config_error naming the item.
clock_fault parse_clock_fault(const std::string& item);

struct clock_network_config {
  std::vector<clock_algorithm> algorithms = {clock_algorithm::sundial};
  std::string root;                            // a switch; "" = the first switch of the top tier
  uint64_t sync_interval_ps = 90'000'000;      // 90 us [L1518]
  uint64_t first_timeout_ps = 185'000'000;     // 185 us [L1518]
  uint64_t second_timeout_ps = 180'000'000;    // 180 us, the backup root only [L1522]
  uint64_t eps_per_hop_ps = 5'000;             // eps_base = 5 ns x depth [L1221]
  uint64_t max_drift_ppb = 200'000;            // 200 ppm [L1221]
  int64_t oscillator_bound_ppb = 100'000;      // offsets uniform in +-100 ppm [L1514]
  int64_t drift_ppb_per_s = 0;                 // slopes uniform in +-this (saturating at the bound)
  int64_t initial_offset_ps = 1'000'000;       // clocks start uniform in +-1 us, unsynchronised
  uint64_t oscillator_period_ps = 1'000;
  int64_t broken_rate_ppb = 1'000'000;         // a broken clock runs at +1000 ppm, 5x max_drift
  uint64_t controller_delay_ps = 100'000'000'000;   // 100 ms: the controller's reaction [L1564]
  // Valid receipt to the forwarded message's egress (standalone) or to its traffic-manager queue
  // (a fabric run: the switch adds the queueing and its egress pipeline).
  uint64_t forward_delay_ps = 400'000;
  uint32_t frame_bytes = 100;                  // a sync-message [L1209]
  uint64_t ptp_interval_ps = 2'000'000'000'000, ptp_recovery_ps = 2'000'000'000'000;
  uint64_t ptp_fast_interval_ps = 5'000'000, ptp_fast_recovery_ps = 100'000'000'000;
  uint64_t duration_ps = 0;
  uint64_t sample_interval_ps = 10'000'000;    // used when sample_times_ps is empty; 0: clock_layer::sample
  std::vector<uint64_t> sample_times_ps;       // explicit, non-decreasing, within the duration
  uint64_t seed = 1;
  std::vector<clock_fault> faults;
  uint64_t max_values = 50'000'000;            // samples x devices x algorithms x 3 series kept in memory
  // Where Sundial's devices (switches and host NICs) get their configuration. Live (a fabric
  // run): from their own register blocks, written through clock_layer::register_write as the
  // sundial_controller writes them; each device takes its new configuration when
  // clock_layer::sundial_programmed says the controller has finished after a fault. Replayed: from these writes (time order), at their
  // times; a device whose block was never written is not in the plan. Neither: from this layer's
  // own copy of the controller.
  bool sundial_live_registers = false;
  std::vector<sundial_reg_write> sundial_writes;
};

// One failure as one algorithm saw it. Affected: the surviving devices whose current path to
// the root crossed the failed element (or every device, when the root failed); cut off: the
// survivors the failure disconnected from every root (they cannot recover and are not
// counted). A device recovers at its first valid sync-message that left the root at or after
// the failure (or when it becomes the root itself). Outage: from its last valid message before
// the failure to that one (the paper's 270 / 365 us). Peak: the largest epsilon of an affected
// device from the failure to its recovery (or the end of the run).
struct clock_failure_result {
  uint64_t at_ps = 0;
  std::string kind, target, text;
  uint32_t affected = 0, cut_off = 0, recovered = 0;
  bool all_recovered = true;
  uint64_t recovery_ps = 0;              // to the last affected device's recovery (all_recovered)
  uint64_t max_outage_ps = 0;            // over the recovered devices whose last message is known
  bool outage_known = false;             // (a baseline's last message before the run is not)
  int64_t peak_epsilon_ps = 0;
  std::string peak_device;
  int64_t peak_epsilon_base_ps = 0;      // that device's eps_base then (peak - base = the drift term)
  std::string slowest;                   // the device that recovered last (or one that did not)
  // The blast radius (Fig. 3.20): over the affected survivors, the time each went without a
  // valid sync-message, from its last one before the failure (or the failure, if there was none
  // in the run) to its recovery (or the end of the run).
  uint64_t impacted_ps = 0;
};

struct clock_algorithm_result {
  clock_algorithm algorithm = clock_algorithm::sundial;
  // [device][sample]: epsilon (no_bound when the device is down, never synchronised or
  // evicted), and the true offset: local clock minus the reference clock (the clock of the root
  // the device's time came from), both read at the sample's true time.
  std::vector<std::vector<int64_t>> epsilon_ps, offset_ps;
  // [device][sample]: the local clock minus ideal (true) time. Nothing bounds it: it is the
  // root's own error plus the offset above.
  std::vector<std::vector<int64_t>> offset_ideal_ps;
  uint64_t bound_checks = 0, bound_violations = 0, broken_clock_violations = 0;
  double worst_offset_over_epsilon = 0;
  uint64_t messages = 0, delivered = 0;   // sent onto a link; taken by a live receiver
  double messages_per_s = 0;
  std::vector<clock_failure_result> failures;
  nlohmann::json summary;
};

struct clock_result {
  static constexpr int64_t no_bound = -1;
  std::vector<uint64_t> t_ps;
  std::vector<std::string> devices;         // topology node order
  std::vector<clock_algorithm_result> algorithms;
  nlohmann::json summary;
};

// Throws config_error for a fault that names nothing in the topology, a fault after the end, a
// bad root; std::invalid_argument for an inconsistent configuration or too many values.
clock_result run_clock_network(const topology& topo, const clock_network_config& cfg);

// How a fabric carries the clock layer's sync-messages: send_sync queues one at `node`'s `port`
// now (the fabric stamps it at egress with clock_layer::stamp and hands it to the receiver with
// clock_layer::arrive).
class sync_transport {
 public:
  virtual ~sync_transport() = default;
  virtual void send_sync(uint32_t node, uint32_t port, const sync_header& m) = 0;
};

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
  clock_result finish(uint64_t end_ps);   // once: the run ended at end_ps (at most the duration)

 private:
  struct impl;
  std::unique_ptr<impl> p_;
};
// The same checks of root and faults (and the initial plan), without running: before a run.
void check_clock_network(const topology& topo, const clock_network_config& cfg);

// The Sundial controller's plan as register values, one block per switch (topology switch
// order) and one per host NIC (topology host order). It starts from the initial plan;
// learn(i, state) is the controller's reaction to fault i (in time order): it marks the failed
// links and devices (a root fault: the current root; a broken clock: that device) and the
// switches whose STATE register (state: one per switch, or empty) says evicted; keeps the root if it is live, else a switch whose STATE says it elected
// itself root, else the backup root, else the first live switch; and replans with
// compute_backup_plan.
class sundial_planner {
 public:
  sundial_planner(const topology& topo, const clock_network_config& cfg);
  ~sundial_planner();
  const std::vector<sundial_regs>& registers() const;
  const std::vector<sundial_regs>& host_registers() const;
  size_t faults() const;
  uint64_t fault_at_ps(size_t i) const;
  struct observed {
    uint32_t evictions = 0;   // switches taken out because they evicted themselves
    bool election = false;    // the new root elected itself
  };
  observed learn(size_t i, const std::vector<uint32_t>& state = {});

 private:
  struct impl;
  std::unique_ptr<impl> p_;
};

// The failure domain of every node and the domains' names: a fat-tree pod ("podN": its edge and
// aggregation switches and their hosts), a leaf-spine rack ("rackN": a leaf and its hosts),
// and each top-tier switch alone (named after it).
struct clock_domains {
  std::vector<uint32_t> of_node;
  std::vector<std::string> names;
};
clock_domains make_clock_domains(const topology& topo);

}  // namespace netasic
