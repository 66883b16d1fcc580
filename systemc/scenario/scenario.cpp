#include "scenario/scenario.h"

#include <limits>

#include <fmt/format.h>

#include "scenario/cc_keys.h"
#include "scenario/deter_keys.h"
#include "scenario/flowradar_keys.h"
#include "scenario/fault_keys.h"
#include "scenario/key_binding.h"
#include "scenario/lb_keys.h"
#include "scenario/lossradar_keys.h"
#include "scenario/memory_estimate.h"
#include "scenario/nic_keys.h"
#include "scenario/tcp_keys.h"
#include "scenario/topology_keys.h"

namespace netasic {
namespace {

// The run's own keys: its name, seed and time window.
template <class K>
void run_keys(K& k) {
  k.unbound.string("scenario.name", "unnamed", "Name shown in the report and summary.json");
  k.integer("sim.seed", "", &fabric_config::seed, 0, std::numeric_limits<int64_t>::max(), "Random seed; same seed and configuration give the same results, bit for bit");
  // fabric_config's arrivals_end_ps and probe_interval_ps default to 0 (no window, no probes)
  // for fabrics built without a scenario: make_fabric_config sets them.
  k.unbound.real("sim.duration", "us", 1000, 0.001, 1e9, "Window in which flows start (Poisson arrivals are generated over it)");
  k.unbound.real("sim.drain", "us", 10000, 0, 1e9, "Extra time after the arrival window for flows to finish; the run stops earlier once all flows are done (not with clock.faults set: such a run lasts to the end)");
  k.unbound.choice("sim.unused_keys", "error", {"error", "warn"},
                   "A key of a mode that is not selected (another cc.algorithm, lb.mode, flowcut.form): \"error\" stops the run; \"warn\" only says so, for a scenario swept over modes");
  k.unbound.real("sim.max_memory", "MiB", 0, 0, 1e9,
                 "Refuse, before building, a configuration estimated to need more memory than this; 0 = the memory the machine has available");
  k.unbound.boolean("sim.run_ahead", true,
                    "The fabric's event queue serves every wake-up due before the kernel's next activity (a flow start, a probe "
                    "sample) in one kernel notification, in the same order; false: one notification per distinct time, the same "
                    "results but for events.kernel_notifications (a check, and slower)");
  k.unbound.real("sim.probe_interval", "us", 1, 0.001, 1e6, "Sampling interval of the probe time series (queue depths, buffer occupancy) and of waves.vcd");
  k.unbound.real("sim.memory_interval", "us", 0, 0, 1e9,
                 "Interval at which the process's resident and heap memory, and the model's working set (flows in progress, "
                 "packets in flight, pending events), are written to memory.csv (a soak run's memory over time; measured, so "
                 "not repeatable bit for bit); 0 = no memory.csv");
}

// Probes are kept in memory until the run ends: four series per switch port and per switch, one
// per NIC, and with the clock layer an epsilon and two offsets per device and algorithm.
void check_probe_memory(const config& c, const fabric_config& f) {
  size_t series = 4 * f.topo.switches.size() + f.topo.hosts.size();
  for (unsigned s : f.topo.switches) series += 4 * f.topo.nodes[s].port_link.size();
  if (c.string("clock.algorithm") != "off") series += 3 * f.topo.nodes.size() * (1 + c.list("clock.baselines").size());
  const double samples = (c.real("sim.duration") + c.real("sim.drain")) / c.real("sim.probe_interval");
  constexpr double max_values = 1e8;   // 800 MB of samples
  if (samples * double(series) > max_values)
    fail(c, "sim.probe_interval", fmt::format("{} us over a {} us run samples {} probes {:.3g} times: {:.3g} values, "
                                              "more than the {:.0e} kept in memory; raise the interval",
                                              c.real("sim.probe_interval"), c.real("sim.duration") + c.real("sim.drain"),
                                              series, samples, samples * double(series), max_values));
}

}  // namespace

const param_registry& all_params() {
  static const param_registry reg = [] {
    param_registry r;
    declare_keys<fabric_config> run(r);
    run_keys(run);
    declare_topology_keys(r);
    declare_switch_keys(r);
    declare_lb_keys(r);
    declare_nic_keys(r);
    declare_cc_keys(r);
    declare_traffic_keys(r);
    declare_clock_keys(r);
    declare_tcp_keys(r);
    declare_deter_keys(r);
    declare_flowradar_keys(r);
    declare_fault_keys(r);
    declare_lossradar_keys(r);
    // Keys that name files: read against the scenario's folder, written resolved in config.toml.
    for (const char* key : {"traffic.cdf", "switch.target", "traffic.trace", "deter.record"}) r.mark_path(key);
    return r;
  }();
  return reg;
}

config load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  return load_config(path, overrides, all_params());
}

config default_scenario() { return default_config(all_params()); }

fabric_config make_fabric_config(const config& c) {
  check_memory(c);   // from the keys alone: before a fabric too large is built
  fabric_config fabric_cfg;
  fabric_cfg.topo = read_topology(c);
  read_switch(c, fabric_cfg.topo, fabric_cfg.sw);
  read_routing(c, fabric_cfg.topo, fabric_cfg.sw);
  read_lb(c, fabric_cfg.sw);
  read_mirror(c, fabric_cfg.topo, fabric_cfg.sw);
  read_nic(c, fabric_cfg.sw, fabric_cfg.nic);
  read_flowcut(c, fabric_cfg.sw, fabric_cfg.nic);
  read_tcp(c, fabric_cfg.sw, fabric_cfg.nic);
  apply_keys<fabric_config> run(c, fabric_cfg);
  run_keys(run);
  read_cc(c, fabric_cfg.sw, fabric_cfg.nic);
  read_deter(c, fabric_cfg);
  read_flowradar(c, fabric_cfg);
  read_faults(c, fabric_cfg);
  read_lossradar(c, fabric_cfg);
  check_switch_buffer(c, fabric_cfg);
  fabric_cfg.arrivals_end_ps = to_ps(c.real("sim.duration"), 1e6);
  fabric_cfg.probe_interval_ps = to_ps(c.real("sim.probe_interval"), 1e6);
  // Clock faults may come after the last flow: such a run lasts sim.duration + sim.drain.
  fabric_cfg.run_to_end = c.string("clock.algorithm") != "off" && !c.list("clock.faults").empty();
  check_probe_memory(c, fabric_cfg);
  return fabric_cfg;
}

}  // namespace netasic
