#include "run/run.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <array>
#include <map>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "blocks/rtl_loop.h"
#include "clock/clock_network.h"
#include "fabric/fabric.h"
#include "output/csv.h"
#include "output/gtkw.h"
#include "output/report.h"
#include "output/vcd.h"
#include "scenario/checks.h"
#include "scenario/scenario.h"
#include "switch/resources.h"

namespace netasic {
namespace {

// The clock layer's results: its summary, and three series per device and algorithm appended to
// the probes, in ns: epsilon rounded up (-1 = no bound); the offset from the device's root,
// truncated toward zero so a sample never shows a violation the model did not have; and the
// offset from ideal time.
nlohmann::json clock_outputs(fabric& fab, probe_set& probes) {
  const clock_result cr = fab.clock()->finish(now_ps());
  for (const clock_algorithm_result& a : cr.algorithms) {
    const std::string name = std::string("clock.") + clock_algorithm_name(a.algorithm);
    for (size_t u = 0; u < cr.devices.size(); ++u) {
      probe_series e{cr.devices[u], name + ".epsilon", "ns", {}}, o{cr.devices[u], name + ".offset", "ns", {}},
          i{cr.devices[u], name + ".offset_ideal", "ns", {}};
      for (int64_t v : a.epsilon_ps[u]) e.samples.push_back(v == clock_result::no_bound ? -1 : (v + 999) / 1000);
      for (int64_t v : a.offset_ps[u]) o.samples.push_back(v / 1000);
      for (int64_t v : a.offset_ideal_ps[u]) i.samples.push_back(v / 1000);
      probes.series.push_back(std::move(e));
      probes.series.push_back(std::move(o));
      probes.series.push_back(std::move(i));
    }
  }
  nlohmann::json s = cr.summary;
  s["sync_dropped"] = fab.sync_dropped();
  s["sync_wait_max_ns"] = double(fab.sync_wait_max_ps()) / 1e3;
  s["reroutes"] = fab.reroutes();
  if (const sundial_controller* c = fab.sundial()) {
    nlohmann::json& d = s["sundial"];
    d["register_writes"] = c->register_writes();
    d["register_reads"] = c->register_reads();
    d["register_readback_mismatches"] = c->readback_mismatches();
    d["state_reads"] = c->state_reads();
    d["controller_replans"] = c->replans();
    d["controller_saw_evictions"] = c->evictions_seen();
    d["controller_saw_elections"] = c->elections_seen();
    d["configured_from"] = "registers";
  }
  if (s.contains("sundial") && s["sundial"]["plan_status"] != "ok")
    std::cerr << fmt::format("warning: Sundial found no complete backup plan ({}): devices run without backup parents "
                             "until the controller finds one\n", s["sundial"].value("plan_reason", ""));
  return s;
}

uint64_t peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return uint64_t(u.ru_maxrss) * 1024;
}

}  // namespace

double percentile_sorted(const std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  const size_t rank = size_t(std::ceil(p / 100.0 * double(v.size())));
  return v[rank == 0 ? 0 : rank - 1];
}

run_result run_scenario(const config& cfg, progress_mode progress) {
  using clock = std::chrono::steady_clock;
  fabric_config fc = make_fabric_config(cfg);
  const std::vector<flow_spec> specs = make_flows(cfg, fc);
  clock_network_config clock_cfg;
  const bool clock_on = make_clock_config(cfg, fc, clock_cfg);
  const bool sundial_on = clock_on && std::find(clock_cfg.algorithms.begin(), clock_cfg.algorithms.end(),
                                                 clock_algorithm::sundial) != clock_cfg.algorithms.end();
  if (clock_on) {
    clock_cfg.sundial_live_registers = sundial_on;   // its controller programs the switches and NICs over the register bus
    fc.clock = &clock_cfg;
  }
  // ECMP groups must fit the member table: a configuration error, found before simulating.
  fc.routes = plan_routes(fc.topo, fc.sw.lb.mode == lb_mode::wcmp ? fc.sw.lb.wcmp_table_size : 0);
  const route_plan& plan = fc.routes;
  for (unsigned s = 0; s < plan.per_switch.size(); ++s)
    if (plan.per_switch[s].members.size() > fc.sw.member_capacity)
      fail(cfg, "switch.ecmp_members", fmt::format("{} needs {} ECMP member entries, the table has {}",
                                                    fc.topo.nodes[fc.topo.switches[s]].name,
                                                    plan.per_switch[s].members.size(), fc.sw.member_capacity));
  if (!plan.unreachable.empty())
    std::cerr << fmt::format("warning: {} switch-to-host pairs have no path (first: {}); packets to them are "
                             "dropped as no_route\n", plan.unreachable.size(), plan.unreachable.front());

  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  // The kernel's info messages ("simulation stopped by user") are noise in a tool's output.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  // The fabric lives until the process ends, as the kernel does (it runs once per process).
  // Destroying it would cost time quadratic in its size: SystemC unregisters every port, export
  // and module by a linear search of its registries.
  static fabric* kept = nullptr;
  kept = new fabric("fabric", fc, specs);
  fabric& fab = *kept;
  const uint64_t end_ps = fc.arrivals_end_ps + to_ps(cfg.real("sim.drain"), 1e6);

  const auto wall0 = clock::now();
  auto last_print = wall0;
  fab.on_sample = [&](uint64_t now) {
    if (progress == progress_mode::none) return;
    const auto w = clock::now();
    const double since = std::chrono::duration<double>(w - last_print).count();
    if (since < (progress == progress_mode::terminal ? 0.25 : 10.0)) return;
    last_print = w;
    const double wall = std::chrono::duration<double>(w - wall0).count();
    const std::string line = fmt::format(
        "[{:3.0f}%] sim {:.3f} of {:.3f} ms | flows {} done of {} | {:.2f} M packet-hops/s | wall {:.1f} s",
        100.0 * double(now) / double(end_ps), double(now) * 1e-9, double(end_ps) * 1e-9, fab.flows_completed,
        specs.size(), double(fab.stats.hops) / wall * 1e-6, wall);
    if (progress == progress_mode::terminal) std::cerr << "\r" << line << "\x1b[K" << std::flush;
    else std::cerr << line << "\n";
  };

  sc_core::sc_start(ps(end_ps));
  const double wall = std::chrono::duration<double>(clock::now() - wall0).count();
  if (progress == progress_mode::terminal) std::cerr << "\r\x1b[K" << std::flush;
  const uint64_t sim_end = now_ps();

  run_result r;
  r.probes = std::move(fab.probes);
  const nlohmann::json clock_summary = clock_on ? clock_outputs(fab, r.probes) : nlohmann::json();
  std::vector<double> slowdowns;
  for (const flow_ctx& f : fab.flows) {
    flow_record rec;
    rec.id = f.id;
    rec.src = f.src;
    rec.dst = f.dst;
    rec.size_bytes = f.size_bytes;
    rec.start_s = double(f.start_ps) * 1e-12;
    rec.ideal_fct_s = double(fab.ideal_fct_ps(f.src, f.dst, f.size_bytes)) * 1e-12;
    rec.retransmitted_packets = f.retransmitted;
    rec.path_changes = f.path_changes;
    rec.out_of_order_packets = f.out_of_order;
    rec.max_reorder_packets = f.max_reorder;
    if (f.snd.total && f.snd.done()) {
      rec.fct_s = double(f.finish_ps - f.start_ps) * 1e-12;
      slowdowns.push_back(rec.slowdown());
    }
    r.flows.push_back(rec);
  }
  std::sort(slowdowns.begin(), slowdowns.end());
  for (unsigned s = 0; s < fc.topo.switches.size(); ++s) {
    const topo_node& n = fc.topo.nodes[fc.topo.switches[s]];
    for (unsigned p = 0; p < n.port_link.size(); ++p) {
      const topo_link& l = fc.topo.links[n.port_link[p]];
      link_record rec;
      rec.from = fmt::format("{}.port{}", n.name, p);
      rec.to = fc.topo.nodes[l.a == fc.topo.switches[s] ? l.b : l.a].name;
      rec.rate_bps = l.failed ? 0 : l.rate_bps;
      rec.bytes = fab.switches()[s]->tx_bytes(p);
      rec.utilization = rec.rate_bps && sim_end ? double(rec.bytes) * 8 / (double(rec.rate_bps) * double(sim_end) * 1e-12) : 0.0;
      r.links.push_back(rec);
    }
  }

  const run_stats& st = fab.stats;
  const uint64_t dropped = st.dropped.total(), in_flight = st.in_flight();
  r.accounting_ok = st.sent == st.delivered + dropped + in_flight;
  const auto [peak_q, peak_port] = fab.peak_queue();
  uint64_t timeouts = 0, retrans = 0, path_changes = 0, out_of_order = 0;
  uint32_t max_reorder = 0;
  for (const flow_ctx& f : fab.flows) {
    timeouts += f.timeouts;
    retrans += f.retransmitted;
    path_changes += f.path_changes;
    out_of_order += f.out_of_order;
    max_reorder = std::max(max_reorder, f.max_reorder);
  }
  nlohmann::json& s = r.summary;
  s["scenario"] = cfg.string("scenario.name");
  s["seed"] = cfg.integer("sim.seed");
  s["sim_time_s"] = double(sim_end) * 1e-12;
  s["wall_time_s"] = wall;
  s["packet_hops"] = st.hops;
  s["packet_hops_per_s"] = wall > 0 ? double(st.hops) / wall : 0.0;
  s["peak_memory_bytes"] = peak_rss_bytes();
  s["packets"] = {{"sent", st.sent}, {"delivered", st.delivered}, {"dropped", dropped}, {"in_flight", in_flight}};
  s["drops"] = {{"buffer_full", st.dropped.buffer_full}, {"queue_limit", st.dropped.queue_limit},
                {"dynamic_threshold", st.dropped.dynamic_threshold}, {"headroom", st.dropped.headroom},
                {"pipe_overrun", st.dropped.pipe_overrun}, {"no_route", st.dropped.no_route},
                {"link_down", st.dropped.link_down}};
  s["flows"] = {{"total", specs.size()}, {"started", fab.flows_started}, {"completed", fab.flows_completed},
                {"retransmitted_packets", retrans}, {"timeouts", timeouts},
                {"path_changes", path_changes}, {"out_of_order_packets", out_of_order},
                {"max_reorder_packets", max_reorder}};
  s["fct_slowdown"] = {{"p50", percentile_sorted(slowdowns, 50)},
                       {"p95", percentile_sorted(slowdowns, 95)},
                       {"p99", percentile_sorted(slowdowns, 99)}};
  // FCT slowdown by flow size, in HPCC's style: short flows' tails are where congestion control
  // shows. Buckets are [lower, upper) in payload bytes.
  const uint64_t edges[] = {0, 3'000, 12'000, 48'000, 192'000, 768'000, 3'000'000, UINT64_MAX};
  nlohmann::json by_size = nlohmann::json::array();
  for (size_t b = 0; b + 1 < std::size(edges); ++b) {
    std::vector<double> v;
    for (const flow_record& rec : r.flows)
      if (rec.fct_s > 0 && rec.size_bytes >= edges[b] && rec.size_bytes < edges[b + 1]) v.push_back(rec.slowdown());
    if (v.empty()) continue;
    std::sort(v.begin(), v.end());
    by_size.push_back({{"min_bytes", edges[b]}, {"max_bytes", edges[b + 1] == UINT64_MAX ? nlohmann::json(nullptr) : nlohmann::json(edges[b + 1])},
                       {"flows", v.size()}, {"p50", percentile_sorted(v, 50)}, {"p95", percentile_sorted(v, 95)},
                       {"p99", percentile_sorted(v, 99)}});
  }
  s["fct_slowdown_by_size"] = by_size;
  // Queue-length distribution: every sample of every switch port's queue.
  std::vector<double> qs;
  for (const probe_series& ps : r.probes.series)
    if (ps.name.size() > 7 && ps.name.compare(ps.name.size() - 7, 7, ".qdepth") == 0)
      qs.insert(qs.end(), ps.samples.begin(), ps.samples.end());
  std::sort(qs.begin(), qs.end());
  s["queue"] = {{"peak_bytes", peak_q}, {"peak_port", peak_port},
                {"samples", qs.size()},
                {"p50_bytes", percentile_sorted(qs, 50)}, {"p95_bytes", percentile_sorted(qs, 95)},
                {"p99_bytes", percentile_sorted(qs, 99)}, {"p999_bytes", percentile_sorted(qs, 99.9)}};
  s["topology"] = {{"hosts", fc.topo.hosts.size()}, {"switches", fc.topo.switches.size()},
                   {"links", fc.topo.links.size()}, {"route_register_writes", fab.controller().register_writes()}};
  if (clock_on) s["clock"] = clock_summary;
  s["accounting_ok"] = r.accounting_ok;
  s["events"] = {{"wakeups", fab.events().wakeups()}, {"kernel_notifications", fab.events().kernel_notifications()}};

  // Traffic manager: PFC, ECN, INT, recirculation, over all switches.
  switch_counters sum;
  uint64_t marked = 0;
  std::array<double, num_priorities> paused_s{};
  std::pair<double, std::string> most_paused{0, ""};
  for (const auto& sw : fab.switches()) {
    sum.pfc_sent += sw->counters().pfc_sent;
    sum.pfc_received += sw->counters().pfc_received;
    sum.recirculated += sw->counters().recirculated;
    sum.int_written += sw->counters().int_written;
    marked += sw->tm().ecn_marked();
    for (unsigned p = 0; p < sw->ports(); ++p)
      for (unsigned q = 0; q < num_priorities; ++q) {
        const double t = double(sw->paused_ps(p, q, sim_end)) * 1e-12;
        paused_s[q] += t;
        if (t > most_paused.first) most_paused = {t, fmt::format("{}.port{} priority {}", sw->basename(), p, q)};
      }
  }
  double host_paused_s = 0;
  for (const auto& h : fab.hosts())
    for (unsigned q = 0; q < num_priorities; ++q) host_paused_s += double(h->pause().paused_ps(q, sim_end)) * 1e-12;
  s["pfc"] = {{"pause_frames_sent", sum.pfc_sent},
              {"pause_frames_received_by_switches", sum.pfc_received},
              {"switch_port_pause_time_s_by_priority", paused_s},
              {"host_pause_time_s", host_paused_s},
              {"most_paused", most_paused.second},
              {"most_paused_time_s", most_paused.first}};
  s["ecn_marked_packets"] = marked;
  s["int_records_written"] = sum.int_written;
  s["recirculated_packets"] = sum.recirculated;
  if (fc.sw.mirror.to != mirror_config::target::off) {
    for (const auto& sw : fab.switches()) {
      sum.mirrored += sw->counters().mirrored;
      sum.mirror_dropped += sw->counters().mirror_dropped;
      sum.mirror_to_cpu += sw->counters().mirror_to_cpu;
      sum.mirror_cpu_bytes += sw->counters().mirror_cpu_bytes;
    }
    uint64_t at_collector = 0, collector_bytes = 0;
    for (const auto& h : fab.hosts()) {
      at_collector += h->mirror_received();
      collector_bytes += h->mirror_bytes();
    }
    s["mirror"] = {{"copies_made", sum.mirrored},
                   {"copies_dropped", sum.mirror_dropped},
                   {"copies_delivered", sum.mirror_to_cpu + at_collector},
                   {"bytes_delivered", sum.mirror_cpu_bytes + collector_bytes},
                   {"copies_in_flight", sum.mirrored - sum.mirror_dropped - sum.mirror_to_cpu - at_collector}};
  }
  // Load balancing: the flowlet tables of every switch.
  if (fc.sw.lb.mode == lb_mode::letflow) {
    flowlet_counters fl;
    uint64_t peak = 0;
    for (const auto& sw : fab.switches()) {
      const flowlet_counters& c = *sw->lb().flowlet_counts();
      fl.lookups += c.lookups;
      fl.new_flowlets += c.new_flowlets;
      fl.path_changes += c.path_changes;
      fl.collisions += c.collisions;
      fl.evictions += c.evictions;
      fl.sweep_conflicts += c.sweep_conflicts;
      fl.sweep_overruns += c.sweep_overruns;
    }
    for (const probe_series& ps : r.probes.series)
      if (ps.name == "flowlets") peak = std::max<uint64_t>(peak, ps.samples.empty() ? 0 : uint64_t(*std::max_element(ps.samples.begin(), ps.samples.end())));
    s["load_balancer"] = {{"mode", cfg.string("lb.mode")},
                          {"flowlet_lookups", fl.lookups},
                          {"new_flowlets", fl.new_flowlets},
                          {"flowlet_path_changes", fl.path_changes},
                          {"flowlet_collisions", fl.collisions},
                          {"flowlet_evictions", fl.evictions},
                          {"sweep_conflict_cycles", fl.sweep_conflicts},
                          {"sweep_overruns", fl.sweep_overruns},
                          {"peak_table_occupancy", peak},
                          {"table_entries", fc.sw.lb.flowlet.entries}};
  } else if (fc.sw.lb.mode == lb_mode::balance_sketch) {
    bs_counters b;
    uint64_t occupancy = 0, clears = 0, clears_lost = 0;
    for (const auto& sw : fab.switches()) {
      const bs_counters& c = *sw->lb().sketch_counts();
      b.packets += c.packets;
      b.collisions += c.collisions;
      b.flowlet_starts += c.flowlet_starts;
      b.path_changes += c.path_changes;
      b.steered_packets += c.steered_packets;
      b.bucket_clears += c.bucket_clears;
      occupancy = std::max(occupancy, sw->lb().sketch_occupancy());
      clears += sw->counters().sketch_clears;
      clears_lost += sw->counters().sketch_clears_lost;
    }
    s["load_balancer"] = {{"mode", cfg.string("lb.mode")},
                          {"sketch_packets", b.packets},
                          {"sketch_collisions", b.collisions},
                          {"flowlet_starts", b.flowlet_starts},
                          {"burst_path_changes", b.path_changes},
                          {"steered_packets", b.steered_packets},
                          {"bucket_clears", b.bucket_clears},
                          {"bucket_clears_recirculated", clears},
                          {"bucket_clears_not_admitted", clears_lost},
                          {"max_cells_in_use", occupancy},
                          {"sketch_memory_bits", balance_sketch(fc.sw.lb.sketch).memory_bits()}};
  } else if (fc.sw.lb.mode == lb_mode::conga) {
    conga_counters cg;
    uint64_t flowlet_changes = 0;
    for (const auto& sw : fab.switches()) {
      const conga_leaf* leaf = sw->lb().conga();
      if (!leaf) continue;   // a spine
      cg.sent += leaf->counters().sent;
      cg.received += leaf->counters().received;
      cg.new_flowlets += leaf->counters().new_flowlets;
      cg.random_choices += leaf->counters().random_choices;
      cg.feedback_sent += leaf->counters().feedback_sent;
      cg.feedback_received += leaf->counters().feedback_received;
      flowlet_changes += leaf->flowlets().counters().path_changes;
    }
    s["load_balancer"] = {{"mode", cfg.string("lb.mode")},
                          {"packets_sent_between_leaves", cg.sent},
                          {"packets_received_from_leaves", cg.received},
                          {"new_flowlets", cg.new_flowlets},
                          {"flowlet_path_changes", flowlet_changes},
                          {"random_tie_breaks", cg.random_choices},
                          {"feedback_sent", cg.feedback_sent},
                          {"feedback_received", cg.feedback_received}};
  } else {
    s["load_balancer"] = {{"mode", cfg.string("lb.mode")}};
  }

  // Flowcut: the NICs' tables, or the switches'.
  std::vector<const flowcut_table*> fc_tables;
  uint64_t fc_held_peak = 0, fc_switch_held = 0;
  if (fc.nic.flowcut)
    for (const auto& h : fab.hosts()) fc_tables.push_back(h->flowcut());
  for (const auto& sw : fab.switches())
    if (sw->flowcut()) {
      fc_tables.push_back(sw->flowcut());
      fc_held_peak = std::max(fc_held_peak, sw->counters().flowcut_held_peak_bytes);
      fc_switch_held += sw->counters().flowcut_packets_held;
    }
  if (!fc_tables.empty()) {
    flowcut_counters fcs;
    uint64_t peak = 0;
    for (const flowcut_table* t : fc_tables) {
      const flowcut_counters& c = t->counters();
      fcs.flowcuts += c.flowcuts;
      fcs.drains += c.drains;
      fcs.drains_completed += c.drains_completed;
      fcs.drains_cancelled += c.drains_cancelled;
      fcs.drain_time_ps += c.drain_time_ps;
      fcs.table_full += c.table_full;
      fcs.packets_held += c.packets_held;
      fcs.rtt_samples += c.rtt_samples;
      fcs.acks_unmatched += c.acks_unmatched;
      peak = std::max(peak, c.peak_entries);
    }
    s["flowcut"] = {{"form", cfg.string("flowcut.form")},
                    {"tables", fc_tables.size()},
                    {"flowcuts", fcs.flowcuts},
                    {"drains", fcs.drains},
                    {"drains_completed", fcs.drains_completed},
                    {"drains_cancelled", fcs.drains_cancelled},
                    {"drain_time_s", double(fcs.drain_time_ps) * 1e-12},
                    {"table_full_events", fcs.table_full},
                    // A NIC holds a QP (it stops sending); a switch holds packets.
                    {"packets_held", fc.nic.flowcut ? fcs.packets_held : fc_switch_held},
                    {"held_peak_bytes", fc_held_peak},
                    {"rtt_samples", fcs.rtt_samples},
                    {"acks_unmatched", fcs.acks_unmatched},
                    {"peak_entries_per_table", peak},
                    {"table_bytes", fc_tables.front()->memory_bytes()}};
  }

  // NIC: congestion control and the flow scheduler.
  nic_scheduler_stats nics;
  uint64_t cnps = 0;
  for (const auto& h : fab.hosts()) {
    nics.peak_qps_per_engine = std::max(nics.peak_qps_per_engine, h->scheduler().peak_qps_per_engine);
    nics.scan_bound_ps += h->scheduler().scan_bound_ps;
    nics.cc_updates += h->scheduler().cc_updates;
    nics.cc_cycles += h->scheduler().cc_cycles;
  }
  for (const flow_ctx& f : fab.flows) cnps += f.cnps;
  // A QP sends at most one frame per round of its engine: the most QPs an engine can hold while
  // one of them still gets line rate.
  const uint64_t frame_ps = link_timing{fc.nic.rate_bps}.occupancy_ps(fc.nic.max_frame_bytes());
  const uint64_t visit_ps = uint64_t(fc.nic.sched_visit_cycles) * fc.nic.clock_period_ps;
  const uint64_t line_rate_qps = frame_ps / visit_ps;
  s["nic"] = {{"congestion_control", cfg.string("cc.algorithm")},
              {"base_rtt_s", double(fab.config().nic.cc.base_rtt_ps) * 1e-12},
              {"cc_updates", nics.cc_updates},
              {"cc_cycles_per_update", nics.cc_updates ? double(nics.cc_cycles) / double(nics.cc_updates) : 0.0},
              {"cnps_sent", cnps},
              {"peak_qps_per_engine", nics.peak_qps_per_engine},
              {"line_rate_qps_per_engine", line_rate_qps},
              {"scheduler_bound_time_s", double(nics.scan_bound_ps) * 1e-12}};
  if (const reciprocal_table* t = fc.nic.cc.table.get()) {
    // The division of HPCC's window update: the table the NICs hold, checked over every n.
    const unsigned quotient_bits = hpcc::window_bits;
    s["hpcc_reciprocal_table"] = {{"entries", t->entries()},
                                  {"bytes", t->bytes()},
                                  {"epsilon", t->config().epsilon},
                                  {"worst_relative_error", t->worst_relative_error()},
                                  {"divide_cycles", t->divide_cycles()},
                                  {"iterative_divider_cycles", reciprocal_table::iterative_divider_cycles(quotient_bits)}};
  }
  // Blocks whose Verilated RTL stood in for the core (--rtl), and how many calls each answered.
  for (const auto& [block, calls] : rtl_blocks().calls) s["rtl_in_loop"][block] = {{"calls", calls}};
  if (nics.peak_qps_per_engine > line_rate_qps && nics.scan_bound_ps)
    std::cerr << fmt::format("warning: the NIC flow scheduler fell short: up to {} QPs on one engine, where one engine keeps a "
                             "QP at line rate for at most {} ({} ns frames, {} ns per visit); wires idled {:.1f} us in all "
                             "waiting for engine visits. Raise nic.scheduler.engines or lower nic.scheduler.visit_cycles.\n",
                             nics.peak_qps_per_engine, line_rate_qps, double(frame_ps) / 1e3, double(visit_ps) / 1e3,
                             double(nics.scan_bound_ps) * 1e-6);
  if (st.dropped.headroom)
    std::cerr << fmt::format("warning: lossless priorities dropped {} frames: the PFC headroom was full after XOFF "
                             "(pfc.headroom = {} KiB). Leave pfc.headroom at 0 to size it for each port's link.\n",
                             st.dropped.headroom, cfg.real("pfc.headroom"));
  return r;
}

std::string resources_report(const config& cfg, bool& fits) {
  const fabric_config fc = make_fabric_config(cfg);
  stage_budget b;
  b.stages = unsigned(cfg.integer("switch.stages"));
  b.sram_blocks = unsigned(cfg.integer("switch.stage.sram_blocks"));
  b.sram_block_words = unsigned(cfg.integer("switch.stage.sram_block_words"));
  b.sram_word_bits = unsigned(cfg.integer("switch.stage.sram_word_bits"));
  b.tcam_blocks = unsigned(cfg.integer("switch.stage.tcam_blocks"));
  b.tcam_block_words = unsigned(cfg.integer("switch.stage.tcam_block_words"));
  b.tcam_word_bits = unsigned(cfg.integer("switch.stage.tcam_word_bits"));
  b.stateful_alus = unsigned(cfg.integer("switch.stage.stateful_alus"));
  b.hash_bits = unsigned(cfg.integer("switch.stage.hash_bits"));
  b.action_slots = unsigned(cfg.integer("switch.stage.action_slots"));
  // Every switch runs the same program; only its port count changes it. Group switches by it.
  std::map<unsigned, std::vector<std::string>> by_ports;
  for (unsigned s : fc.topo.switches)
    by_ports[unsigned(fc.topo.nodes[s].port_link.size())].push_back(fc.topo.nodes[s].name);
  std::string out = fmt::format("netasic resources: {} ({} switches)\n", cfg.string("scenario.name"), fc.topo.switches.size());
  fits = true;
  for (const auto& [ports, names] : by_ports) {
    const program prog = forwarding_program(fc.topo.hosts.size(), fc.sw.member_capacity, ports, fc.nic.int_enabled,
                                            fc.sw.mirror.to != mirror_config::target::off);
    const allocation a = allocate(prog, b);
    fits = fits && a.fits;
    out += fmt::format("\n== {} switch{} with {} ports: {}{} ==\n", names.size(), names.size() > 1 ? "es" : "", ports,
                       fmt::join(names.begin(), names.begin() + std::min<size_t>(names.size(), 8), ", "),
                       names.size() > 8 ? ", ..." : "");
    out += format_allocation(a, b);
  }
  return out;
}

void write_run_outputs(const std::string& dir, const config& cfg, const run_result& r, bool vcd) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  const fs::path d(dir);
  std::ofstream(d / "summary.json") << r.summary.dump(2) << "\n";
  std::ofstream(d / "config.toml") << cfg.to_toml();
  write_flows_csv((d / "flows.csv").string(), r.flows);
  write_probes_csv((d / "probes.csv").string(), r.probes);
  write_links_csv((d / "links.csv").string(), r.links);
  if (vcd) {
    write_vcd((d / "waves.vcd").string(), r.probes);
    write_gtkw((d / "waves.gtkw").string(), "waves.vcd", r.probes);
  }
  write_report_html((d / "report.html").string(), r.summary, r.flows, r.probes);
}

}  // namespace netasic
