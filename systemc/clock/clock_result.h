// What a clock-layer run gives back: per algorithm, epsilon and the offsets at every sample, the
// bound checks, the messages, each failure's recovery and blast radius, and the summary JSON.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "clock/clock_config.h"

namespace netasic {

// One failure as one algorithm saw it. Affected: the surviving devices whose current path to
// the root crossed the failed element (or every device, when the root failed); cut off: the
// survivors the failure disconnected from every root (they cannot recover and are not
// counted). A device resynchronises at its first valid sync-message that left the root at or
// after the failure (or when it becomes the root itself).
//
// Two durations per device, and they are not the same figure:
//  - the outage: the time without a valid sync-message, from its last valid message before the
//    failure to that first one after. This is what the drift term of epsilon counts, and what the
//    paper's link-failure recovery measures ("after the 185us timeout, the next message is at
//    270us", §3.6.1.3, with the 84 ns peak = 30 ns + 270 us x 200 ppm). For a given tree it does
//    not depend on where in the sync interval the failure lands;
//  - the resync time: from the failure itself to that first message. It is the outage minus the
//    time from the last message to the failure, so it moves with the failure's phase in the sync
//    interval (by up to one interval).
// Peak: the largest epsilon of an affected device from the failure to its recovery (or the end of
// the run).
struct clock_failure_result {
  uint64_t at_ps = 0;
  std::string kind, target, text;
  uint32_t affected = 0, cut_off = 0, recovered = 0;
  bool all_recovered = true;
  uint64_t resync_ps = 0;                // failure to the last affected device's resync (all_recovered)
  uint64_t min_resync_ps = 0;            // failure to the first affected device's resync
  uint64_t max_outage_ps = 0;            // over the recovered devices whose last message is known
  uint64_t min_outage_ps = 0;
  bool outage_known = false;             // (a baseline's last message before the run is not)
  int64_t peak_epsilon_ps = 0;
  std::string peak_device;
  int64_t peak_epsilon_base_ps = 0;      // that device's eps_base then (peak - base = the drift term)
  std::string slowest;                   // the device that recovered last (or one that did not)
  // The blast radius (Fig. 3.20): over the affected survivors, the time each went without a
  // valid sync-message, from its last one before the failure (or the failure, if there was none
  // in the run) to its recovery (or the end of the run).
  uint64_t impacted_ps = 0;
  uint64_t impacted_switch_ps = 0;       // the switches' part of it (the rest is the host NICs')
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
  // Over every sample with a bound: epsilon's nearest-rank p50 and p99, its maximum (also at
  // every arrival, the sawtooth's tops) and the largest |offset|, in ns.
  double epsilon_p50_ns = 0, epsilon_p99_ns = 0, epsilon_max_ns = 0, max_abs_offset_ns = 0;
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
  std::string root;                         // the configured root's name
  nlohmann::json summary;
};

}  // namespace netasic
