// The clock layer's configuration: the algorithms to run, the Sundial and PTP parameters, the
// oscillators, the samples and the faults (types only; clock_faults.h reads them from text).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "clock/sundial_regs.h"

namespace netasic {

// sundial: the cores of systemc/clock. ptp: PTP+eps as the Sundial paper's testbed configures
// it (§3.6.1.1 Methodology: 2 s interval, T_recovery 2 s). ptp_fast: PTP+DTP+eps (the same
// section: 5 us interval, T_recovery 100 ms). The baselines recover only when the controller
// reconfigures the tree.
enum class clock_algorithm { sundial, ptp, ptp_fast };

struct clock_fault {
  enum class kind { link, device, root, domain, broken_clock };
  kind what = kind::link;
  std::string target;     // "agg0-core0" (or "A-B#i"), a device, a domain (or a device: its domain); "" for root
  uint64_t at_ps = 0;
  std::string text;       // the item as written
};

// Defaults are the Sundial paper's testbed settings (§3.6.1.1 Methodology) and its hardware's
// (§3.4.1.3 Time-uncertainty bound calculation).
struct clock_network_config {
  std::vector<clock_algorithm> algorithms = {clock_algorithm::sundial};
  std::string root;                            // a switch; "" = the first switch of the top tier
  uint64_t sync_interval_ps = 90'000'000;      // 90 us (§3.6.1.1)
  uint64_t first_timeout_ps = 185'000'000;     // 185 us, > 2 intervals (§3.6.1.1)
  uint64_t second_timeout_ps = 180'000'000;    // 180 us, the backup root only (§3.6.1.1)
  uint64_t eps_per_hop_ps = 5'000;             // eps_base = 5 ns x depth (§3.4.1.3)
  uint64_t max_drift_ppb = 200'000;            // 200 ppm (§3.4.1.3)
  int64_t oscillator_bound_ppb = 100'000;      // offsets uniform in +-100 ppm, the oscillators' specification (§3.6.1.1)
  int64_t drift_ppb_per_s = 0;                 // slopes uniform in +-this (saturating at the bound)
  int64_t initial_offset_ps = 1'000'000;       // clocks start uniform in +-1 us, unsynchronised
  uint64_t oscillator_period_ps = 1'000;
  int64_t broken_rate_ppb = 1'000'000;         // a broken clock runs at +1000 ppm, 5x max_drift
  // false: the controller programs no backup parents and no backup root (the control of every
  // backup-plan check): an affected device then waits for the controller's new plan.
  bool backup_plan = true;
  uint64_t controller_delay_ps = 100'000'000'000;   // 100 ms: the controller's reaction (Fig. 3.19)
  // Valid receipt to the forwarded message's egress (standalone) or to its traffic-manager queue
  // (a fabric run: the switch adds the queueing and its egress pipeline).
  uint64_t forward_delay_ps = 400'000;
  uint32_t frame_bytes = 100;                  // a sync-message (§3.4.1.1 Frequent synchronous messaging)
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
  // clock_layer::sundial_programmed says the controller has finished after a fault. Replayed:
  // from these writes (time order), at their times; a device whose block was never written is
  // not in the plan. Neither: from this layer's own copy of the controller (sundial_planner).
  bool sundial_live_registers = false;
  std::vector<sundial_reg_write> sundial_writes;
};

}  // namespace netasic
