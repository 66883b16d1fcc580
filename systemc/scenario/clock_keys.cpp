#include "scenario/clock_keys.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>

#include "scenario/key_binding.h"

namespace netasic {
namespace {

constexpr unit ppm_per_s_as_ppb_per_s{"ppm/s", 1e3, unit::rule::round};

// Run over the fabric's topology for the whole run; clock_network_config's defaults are the
// Sundial paper's testbed.
template <class K>
void clock_network_keys(K& k) {
  using N = clock_network_config;
  k.string("clock.root", &N::root, "Root (grandmaster) switch, e.g. \"core0\"; empty = the first switch of the top tier");
  k.real("clock.sync_interval", us_as_ps, &N::sync_interval_ps, 0.001, 1e9, "Sundial: interval of the root's sync-messages");
  k.real("clock.first_timeout", us_as_ps, &N::first_timeout_ps, 0.001, 1e9, "Sundial: silence after the last valid message at which a device turns to its backup parent");
  k.real("clock.second_timeout", us_as_ps, &N::second_timeout_ps, 0.001, 1e9, "Sundial: further silence at which the backup root makes itself the root");
  k.real("clock.eps_per_hop", ns_as_ps, &N::eps_per_hop_ps, 0, 1e6, "eps_base per hop of tree depth (timestamping and link-asymmetry noise), every algorithm");
  k.real("clock.max_drift", ppm_as_ppb, &N::max_drift_ppb, 0.001, 1e5, "max_drift_rate of epsilon (Eq. 3.1), every algorithm");
  k.real("clock.oscillator_bound", ppm_as_ppb, &N::oscillator_bound_ppb, 0, 1e4, "Oscillator frequency offsets are drawn uniformly within +-this");
  k.real("clock.drift", ppm_per_s_as_ppb_per_s, &N::drift_ppb_per_s, 0, 1e6, "Each oscillator's offset changes at a rate drawn uniformly within +-this, saturating at clock.oscillator_bound");
  k.real("clock.broken_rate", ppm_as_ppb, &N::broken_rate_ppb, -1e5, 1e5, "Frequency offset a clock jumps to when it breaks (clock.faults broken_clock)");
  k.boolean("clock.backup_plan", &N::backup_plan, "Sundial: the controller programs backup parents and a backup root (§3.4.2); false leaves every affected device waiting for the controller (a control)");
  k.real("clock.controller_delay", us_as_ps, &N::controller_delay_ps, 0, 1e9, "Failure to the controller's new plan (Sundial) or new tree (baselines)");
  k.real("clock.ptp_interval", us_as_ps, &N::ptp_interval_ps, 0.001, 1e12, "ptp: sync interval");
  k.real("clock.ptp_recovery", us_as_ps, &N::ptp_recovery_ps, 0, 1e12, "ptp: T_recovery, added to the age of the last message of every device that is not a child of the root");
  k.real("clock.ptp_fast_interval", us_as_ps, &N::ptp_fast_interval_ps, 0.001, 1e12, "ptp_fast: sync interval");
  k.real("clock.ptp_fast_recovery", us_as_ps, &N::ptp_fast_recovery_ps, 0, 1e12, "ptp_fast: T_recovery, as clock.ptp_recovery");
}

// The sync-messages' priority is the fabric's: its switches carry them.
template <class K>
void sync_priority_key(K& k) {
  k.integer("clock.priority", "priority", &fabric_config::sync_priority, 0, 7, "Traffic-manager priority of sync-messages in the switches; must be strict (tm.strict)");
}

// clock.algorithm and then each of clock.baselines, once each.
void read_algorithms(const config& c, clock_network_config& k) {
  k.algorithms = {parse_clock_algorithm(c.string("clock.algorithm"))};
  for (const std::string& b : c.list("clock.baselines")) {
    if (b != "ptp" && b != "ptp_fast") fail(c, "clock.baselines", fmt::format("'{}' is not a baseline (ptp, ptp_fast)", b));
    const clock_algorithm a = parse_clock_algorithm(b);
    if (std::find(k.algorithms.begin(), k.algorithms.end(), a) != k.algorithms.end())
      fail(c, "clock.baselines", fmt::format("'{}' is listed twice, or is clock.algorithm itself", b));
    k.algorithms.push_back(a);
  }
  auto runs = [&](clock_algorithm a) { return std::find(k.algorithms.begin(), k.algorithms.end(), a) != k.algorithms.end(); };
  if (!runs(clock_algorithm::sundial))
    unused_by_mode(c, {"clock.sync_interval", "clock.first_timeout", "clock.second_timeout"}, "when Sundial does not run");
  if (!runs(clock_algorithm::ptp)) unused_by_mode(c, {"clock.ptp_interval", "clock.ptp_recovery"}, "when ptp does not run");
  if (!runs(clock_algorithm::ptp_fast))
    unused_by_mode(c, {"clock.ptp_fast_interval", "clock.ptp_fast_recovery"}, "when ptp_fast does not run");
}

void check_timing(const config& c, const clock_network_config& k) {
  if (k.first_timeout_ps <= k.sync_interval_ps)
    fail(c, "clock.first_timeout", fmt::format("{} us is not longer than clock.sync_interval ({} us): every device would "
                                               "time out between two messages (the paper uses more than twice the interval)",
                                               c.real("clock.first_timeout"), c.real("clock.sync_interval")));
  if (std::llabs(k.broken_rate_ppb) <= k.oscillator_bound_ppb)
    fail(c, "clock.broken_rate", fmt::format("{} ppm is within clock.oscillator_bound ({} ppm): such a clock is not broken",
                                             c.real("clock.broken_rate"), c.real("clock.oscillator_bound")));
  if (k.max_drift_ppb < uint64_t(2 * k.oscillator_bound_ppb))
    warn(c, "clock.max_drift", fmt::format("is {} ppm, below twice clock.oscillator_bound ({} ppm): two clocks can drift "
                                           "apart faster than epsilon grows, so the bound may not hold",
                                           c.real("clock.max_drift"), c.real("clock.oscillator_bound")));
}

// clock.fault_shift moves every fault by the same time, so a sweep of it places one failure at
// each phase of the root's sync interval (the resync time depends on that phase, §3.6.1.3).
void shift_faults(const config& c, clock_network_config& k) {
  const uint64_t shift = to_ps(c.real("clock.fault_shift"), 1e6);
  if (shift == 0) return;
  if (k.faults.empty()) unused_by_mode(c, {"clock.fault_shift"}, "without clock.faults");
  for (clock_fault& f : k.faults) {
    f.at_ps += shift;
    if (f.at_ps >= k.duration_ps)
      fail(c, "clock.fault_shift", fmt::format("{} us moves '{}' to {} us, past the end of the run ({} us)",
                                               c.real("clock.fault_shift"), f.text, double(f.at_ps) / 1e6,
                                               double(k.duration_ps) / 1e6));
  }
}

}  // namespace

void declare_clock_keys(param_registry& r) {
  std::vector<std::string> algorithms = {"off"};
  for (clock_algorithm a : {clock_algorithm::sundial, clock_algorithm::ptp, clock_algorithm::ptp_fast})
    algorithms.push_back(clock_algorithm_name(a));
  r.choice("clock.algorithm", "off", algorithms, "Clock synchronisation of every switch and NIC: off, Sundial, or a PTP+eps baseline alone");
  r.string_list("clock.baselines", "", {}, "Baselines run beside clock.algorithm on the same oscillators and faults: \"ptp\" (PTP+eps) and \"ptp_fast\" (PTP+DTP+eps)");
  declare_keys<clock_network_config> k(r);
  clock_network_keys(k);
  declare_keys<fabric_config> f(r);
  sync_priority_key(f);
  r.real("clock.fault_shift", "us", 0, 0, 1e9, "Added to the time of every clock.faults item: sweep it over one clock.sync_interval to land a failure at every phase of the sync period");
  r.string_list("clock.faults", "", {}, "Faults at chosen times in us: \"link agg0-core0 @ 1000\", \"device agg3 @ 1500\", \"root @ 2000\", \"domain pod2 @ 2500\", \"broken_clock edge4 @ 3000\"");
}

bool make_clock_config(const config& c, fabric_config& f, clock_network_config& k) {
  if (c.string("clock.algorithm") == "off") {
    std::vector<std::string> keys = keys_under("clock.");
    keys.erase(std::find(keys.begin(), keys.end(), "clock.algorithm"));
    unused_by_mode(c, keys, "with clock.algorithm = \"off\"");
    return false;
  }
  read_algorithms(c, k);
  apply_keys<clock_network_config> bound(c, k);
  clock_network_keys(bound);
  check_timing(c, k);
  // Every device's oscillator runs at the switch clock. A forwarded sync-message enters the
  // traffic manager after the ingress side of the pipeline (parser, ingress stages, TM); the
  // switch adds its queueing, the egress stages and the deparser.
  k.oscillator_period_ps = f.sw.clock_period_ps;
  k.forward_delay_ps = f.sw.ingress_ps();
  apply_keys<fabric_config> fabric_keys(c, f);
  sync_priority_key(fabric_keys);
  if (!(f.sw.tm.strict >> f.sync_priority & 1))
    fail(c, "clock.priority", fmt::format("priority {} is not strict (tm.strict): data could hold sync-messages back for "
                                          "as long as its deficit round robin takes", f.sync_priority));
  k.sample_interval_ps = 0;   // sampled with the probes
  k.duration_ps = f.arrivals_end_ps + to_ps(c.real("sim.drain"), 1e6);
  k.seed = f.seed;
  k.max_values = UINT64_MAX;   // make_fabric_config bounded the probes
  for (const std::string& item : c.list("clock.faults")) {
    try {
      k.faults.push_back(parse_clock_fault(item));
    } catch (const config_error& e) {
      fail(c, "clock.faults", e.what());
    }
    // The same failure twice at one time is a copy-paste slip: the second would find it failed.
    const clock_fault& n = k.faults.back();
    for (size_t i = 0; i + 1 < k.faults.size(); ++i)
      if (k.faults[i].what == n.what && k.faults[i].target == n.target && k.faults[i].at_ps == n.at_ps)
        fail(c, "clock.faults", fmt::format("fault \"{}\" is listed twice (items {} and {})", item, i + 1, k.faults.size()));
  }
  shift_faults(c, k);
  try {
    check_clock_network(f.topo, k);
  } catch (const config_error& e) {
    const std::string m = e.what();
    fail(c, m.rfind("fault", 0) == 0 ? "clock.faults" : "clock.root", m);
  }
  return true;
}

}  // namespace netasic
