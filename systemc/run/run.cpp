#include "run/run.h"

#include <cmath>
#include <iostream>
#include <set>

#include <fmt/format.h>

#include "clock/clock_network.h"
#include "fabric/fabric.h"
#include "fabric/wave_signals.h"
#include "output/vcd.h"
#include "run/lossradar_collector.h"
#include "run/memory_sampler.h"
#include "run/pcap_capture.h"
#include "run/deter_run.h"
#include "run/flowradar_collector.h"
#include "run/run_summary.h"
#include "scenario/checks.h"
#include "scenario/scenario.h"
#include "scenario/switch_keys.h"
#include "scenario/traffic_keys.h"

namespace netasic {
namespace {

// The progress line while the kernel runs.
struct progress_line {
  progress_pacer pace;
  uint64_t end_ps;
  size_t flows;

  void sample(const fabric& fab, uint64_t now) {
    pace.offer([&] {
      const double wall = pace.elapsed_s();
      return fmt::format("[{:3.0f}%] sim {:.3f} of {:.3f} ms | flows {} done of {} | {:.2f} M packet-hops/s | wall {:.1f} s",
                         100.0 * double(now) / double(end_ps), double(now) * 1e-9, double(end_ps) * 1e-9,
                         fab.flows_completed, flows, double(fab.stats.hops) / wall * 1e-6, wall);
    });
  }
};

// A NIC builds a flow's congestion control when the flow starts, inside the run. Build one at
// every host line rate first, with the base RTT the fabric settled on, so a configuration the
// algorithm refuses (HPCC's W_init below W_AI at a slow host) stops the run before it simulates.
void check_congestion_control(const config& cfg, const fabric_config& fc) {
  if (fc.replay) return;   // open-loop frames: no transport, no congestion control
  const topology& t = fc.topo;
  std::set<uint64_t> rates;
  for (unsigned h : t.hosts) rates.insert(t.links[t.nodes[h].port_link[0]].rate_bps);
  for (uint64_t r : rates) {
    try {
      make_cc(fc.nic.cc, r);
    } catch (const std::invalid_argument& e) {
      fail(cfg, "cc.algorithm", fmt::format("\"{}\" is refused at a host line rate of {} Gbps with a base RTT (cc.base_rtt) of {} us: {}",
                                            cfg.string("cc.algorithm"), double(r) * 1e-9, double(fc.nic.cc.base_rtt_ps) * 1e-6, e.what()));
    }
  }
}

// --vcd/--fst: what the patterns select among the event signals and the sampled probes.
struct wave_selection {
  std::vector<wave_point> points;
  std::vector<bool> point_on;
  std::set<std::string> probes_on;   // VCD paths of the sampled probes
};

wave_selection select_waves(const fabric_config& fc, const clock_network_config* clock, const std::string& spec) {
  wave_selection w;
  w.points = wave_points(fc);
  std::vector<std::string> algorithms;
  if (clock)
    for (clock_algorithm a : clock->algorithms) algorithms.push_back(clock_algorithm_name(a));
  const std::vector<std::string> probe_paths = sampled_probe_paths(fc, algorithms);
  std::vector<std::string> names;
  for (const wave_point& p : w.points) names.push_back(p.name);
  names.insert(names.end(), probe_paths.begin(), probe_paths.end());
  std::vector<bool> on;
  try {
    on = wave_select(wave_patterns(spec.empty() ? default_wave_patterns(fc) : spec), names, "--vcd");
  } catch (const std::invalid_argument& e) {
    throw config_error(e.what());
  }
  w.point_on.assign(on.begin(), on.begin() + std::ptrdiff_t(w.points.size()));
  for (size_t i = 0; i < probe_paths.size(); ++i)
    if (on[w.points.size() + i]) w.probes_on.insert(probe_paths[i]);
  return w;
}

// The selected sampled probes join the trace at their sample times.
void trace_probes(wave_trace& trace, const probe_set& probes, const std::set<std::string>& on) {
  for (const probe_series& s : probes.series) {
    const std::string path = vcd_signal_path(s);
    if (!on.count(path)) continue;
    const uint32_t id = trace.add({path, 64, true});
    for (size_t i = 0; i < s.samples.size(); ++i)
      trace.set(id, uint64_t(std::llround(probes.t_s[i] * 1e12)), uint64_t(s.samples[i]));
  }
}

// memory.csv's model columns: what the fabric holds now.
working_set working_set_of(const fabric& fab) {
  working_set w;
  w.flows_active = fab.flows_started - fab.flows_completed;
  w.packets_in_flight = fab.stats.in_flight();
  w.packet_pool_bytes = fab.stats.pool.capacity_bytes();
  w.events_pending = fab.events().pending();
  w.event_queue_bytes = fab.events().heap_bytes();
  w.output_bytes = fab.probes.t_s.capacity() * sizeof(double);
  for (const probe_series& p : fab.probes.series) w.output_bytes += p.samples.capacity() * sizeof(p.samples[0]);
  for (const flow_ctx& f : fab.flows) w.output_bytes += f.paths.capacity() * sizeof(flow_path);
  return w;
}

}  // namespace

run_result run_scenario(const config& cfg, progress_mode progress, const run_taps& taps) {
  fabric_config fabric_cfg = make_fabric_config(cfg);
  std::vector<packet_trace> replay;   // DETER replay or a packet trace: each host's frames instead of flows
  if (!prepare_packet_trace(cfg, fabric_cfg, replay)) deter_prepare(cfg, fabric_cfg, replay);
  const std::vector<flow_spec> specs = fabric_cfg.replay ? std::vector<flow_spec>{} : make_flows(cfg, fabric_cfg);
  flowradar_check_widths(cfg, fabric_cfg, specs.size());
  // The summary places the switch program on switch.target after the run: read the target now,
  // so that a bad one stops the run before it simulates.
  make_stage_budget(cfg);
  clock_network_config clock_cfg;
  const bool clock_on = make_clock_config(cfg, fabric_cfg, clock_cfg);
  const bool sundial_on = clock_on && std::find(clock_cfg.algorithms.begin(), clock_cfg.algorithms.end(),
                                                 clock_algorithm::sundial) != clock_cfg.algorithms.end();
  if (clock_on) {
    clock_cfg.sundial_live_registers = sundial_on;   // its controller programs the switches and NICs over the register bus
    fabric_cfg.clock = &clock_cfg;
  }
  // ECMP groups must fit the member table: a configuration error, found before simulating.
  fabric_cfg.routes = plan_fabric_routes(fabric_cfg.topo, fabric_cfg.sw);
  const route_plan& plan = fabric_cfg.routes;
  for (unsigned s = 0; s < plan.per_switch.size(); ++s)
    if (plan.per_switch[s].members.size() > fabric_cfg.sw.member_capacity)
      fail(cfg, "switch.ecmp_members", fmt::format("{} needs {} ECMP member entries, the table has {}",
                                                    fabric_cfg.topo.nodes[fabric_cfg.topo.switches[s]].name,
                                                    plan.per_switch[s].members.size(), fabric_cfg.sw.member_capacity));
  if (!plan.cbd_cycle.empty() && fabric_cfg.sw.tm.lossless != 0)
    std::cerr << fmt::format("warning: the routes have a cyclic buffer dependency and PFC is on, so the fabric can "
                             "deadlock: {}\n", plan.cbd_cycle);
  if (!plan.unreachable.empty())
    std::cerr << fmt::format("warning: {} switch-to-host pairs have no path (first: {}); packets to them are "
                             "dropped as no_route\n", plan.unreachable.size(), plan.unreachable.front());

  const std::vector<pcap_tap_point> pcap_points = parse_pcap_ports(fabric_cfg.topo, taps.pcap_ports);
  std::optional<wave_selection> waves;
  if (taps.waves) waves = select_waves(fabric_cfg, fabric_cfg.clock, taps.wave_patterns);

  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  // The kernel's info messages ("simulation stopped by user") are noise in a tool's output.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  // The fabric lives until the process ends, as the kernel does (it runs once per process).
  // Destroying it would cost time quadratic in its size: SystemC unregisters every port, export
  // and module by a linear search of its registries.
  static fabric* kept = nullptr;
  kept = new fabric("fabric", std::move(fabric_cfg), specs);
  fabric& fab = *kept;
  check_congestion_control(cfg, fab.config());
  deter_check_connections(cfg, fab);
  if (taps.checks_passed) taps.checks_passed();
  const fabric_config& built = fab.config();
  if (taps.on_built) taps.on_built(fab);
  std::optional<pcap_capture> pcap;
  if (!pcap_points.empty()) pcap.emplace(fab, pcap_points, taps.run_dir);
  wave_trace trace;
  if (waves) attach_waves(fab, trace, waves->points, waves->point_on);
  std::optional<lossradar_collector> lossradar;
  if (built.lossradar.on) lossradar.emplace(fab);
  drop_log flowradar_drops;   // FlowRadar's loss map is scored against it when LossRadar keeps none
  if (built.sw.flowradar.on && !fab.stats.log) fab.stats.log = &flowradar_drops;
  const uint64_t end_ps = built.arrivals_end_ps + (built.deter.mode == deter_mode::replay ? deter_replay_drain_ps : to_ps(cfg.real("sim.drain"), 1e6));

  memory_sampler* memory = nullptr;   // kept, as the fabric is
  if (const double us = cfg.real("sim.memory_interval"); us > 0)
    memory = new memory_sampler("memory", to_ps(us, 1e6), [&fab] { return working_set_of(fab); });

  progress_line line{progress_pacer(progress), end_ps, specs.size()};
  fab.on_sample = [&](uint64_t now) { line.sample(fab, now); };
  if (cfg.boolean("sim.run_ahead")) fab.events().run_ahead_until(end_ps);
  sc_core::sc_start(ps(end_ps));
  const double wall = line.pace.elapsed_s();
  line.pace.finish();
  const uint64_t sim_end = now_ps();
  const std::string memory_csv = memory ? memory->finish(sim_end) : "";   // before the outputs take memory

  // Frames still in flight are never read again: their memory goes back before the outputs
  // take theirs (25 MB of frames at k = 32). The pool keeps its count of them.
  fab.stats.pool.free_blocks();
  run_result r;
  r.probes = std::move(fab.probes);
  if (clock_on) r.clock = clock_records(fab, r.probes);
  if (waves) {
    trace_probes(trace, r.probes, waves->probes_on);
    r.waves = trace.finish(sim_end);
  }
  r.flows = flow_records(fab);
  r.links = link_records(fab, sim_end);
  const run_stats& st = fab.stats;
  r.accounting_ok = st.sent == st.delivered + st.dropped.total() + st.in_flight();
  r.summary = run_summary(cfg, fab, r, wall, sim_end);
  if (pcap) r.summary["pcap"] = pcap->finish();
  if (lossradar) {
    lossradar->finish();
    r.summary["lossradar"] = lossradar->summary();
    r.files.push_back({"lossradar.csv", lossradar->losses_csv()});
    r.files.push_back({"lossradar_drops.csv", lossradar->drops_csv()});
    lossradar->report(r.telemetry);
  }
  if (memory) r.files.push_back({"memory.csv", memory_csv});
  deter_finish(cfg, fab, r, sim_end);
  if (built.sw.flowradar.on) flowradar_finish(fab, r, *fab.stats.log);
  if (fab.stats.log == &flowradar_drops) fab.stats.log = nullptr;
  warn_about_run(cfg, fab, r);
  return r;
}

}  // namespace netasic
