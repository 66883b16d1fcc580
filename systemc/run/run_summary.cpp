#include "run/run_summary.h"

#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <iostream>
#include <string>

#include <fmt/format.h>

#include "blocks/rtl_loop.h"
#include "common/stats.h"
#include "fabric/build_memory.h"
#include "protocol/packet.h"
#include "run/resources_report.h"
#include "run/run.h"
#include "scenario/memory_estimate.h"
#include "scenario/switch_keys.h"

namespace netasic {
namespace {

using nlohmann::json;

uint64_t peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return uint64_t(u.ru_maxrss) * 1024;
}

// What the model's structures take (docs/performance.md): a packet; the most a packet in flight
// adds, its pool slot (the pool allocates nothing per packet) and the (arrival time, packet)
// entry of the FIFO it waits in, a link direction's or a switch parser's (switch queues link
// packets through packet::next, a NIC's paused control frames take a pointer); and the heap each
// switch, NIC and link took to build (fabric/build_memory.h).
void add_memory(json& s, const fabric& fab) {
  const uint64_t pkt = sizeof(packet), fifo_entry = sizeof(std::pair<uint64_t, packet*>);
  const build_memory& b = fabric_build_memory();
  auto per = [](uint64_t total, size_t n) { return n ? total / n : 0; };
  s["memory"] = {{"packet_bytes", pkt},
                 {"in_flight_packet_bytes", pkt + fifo_entry},
                 {"per_switch_bytes", per(b.switch_bytes, fab.switches().size())},
                 {"per_host_bytes", per(b.host_bytes, fab.hosts().size())},
                 {"per_link_bytes", per(b.link_bytes, fab.links().size())}};
}

// faults.link_flap: the outages, every frame the flapped links lost being down (PFC frames too),
// and the traffic's drops by priority, link_down apart.
void add_link_flaps(json& s, const fabric& fab) {
  uint64_t sent_down = 0, in_flight = 0;
  for (const auto& l : fab.links())
    for (const link_direction* d : {&l.a_to_b, &l.b_to_a}) {
      sent_down += d->counters().dropped_down;
      in_flight += d->counters().lost_in_flight;
    }
  s["link_flap"] = {{"outages", fab.link_outages()}, {"frames_sent_while_down", sent_down},
                    {"frames_lost_in_flight", in_flight}};
  s["drops_by_priority"] = {{"link_down", fab.stats.link_down_by_priority}, {"other", fab.stats.other_by_priority}};
}

// The run as a whole: its identity and cost, packet accounting, drops by cause, the fabric's size
// and the event queue's work.
void add_run(json& s, const config& cfg, const fabric& fab, const run_result& r, double wall_s, uint64_t sim_end_ps) {
  const run_stats& st = fab.stats;
  const uint64_t dropped = st.dropped.total(), in_flight = st.in_flight();
  s["scenario"] = cfg.string("scenario.name");
  s["seed"] = cfg.integer("sim.seed");
  s["sim_time_s"] = double(sim_end_ps) * 1e-12;
  s["wall_time_s"] = wall_s;
  s["packet_hops"] = st.hops;
  s["packet_hops_per_s"] = wall_s > 0 ? double(st.hops) / wall_s : 0.0;
  s["peak_memory_bytes"] = peak_rss_bytes();
  s["memory_estimate_bytes"] = uint64_t(estimate_memory(cfg).bytes);
  add_memory(s, fab);
  s["packets"] = {{"sent", st.sent}, {"delivered", st.delivered}, {"dropped", dropped}, {"in_flight", in_flight}};
  s["drops"] = {{"buffer_full", st.dropped.buffer_full}, {"queue_limit", st.dropped.queue_limit},
                {"dynamic_threshold", st.dropped.dynamic_threshold}, {"headroom", st.dropped.headroom},
                {"pipe_overrun", st.dropped.pipe_overrun}, {"no_route", st.dropped.no_route},
                {"link_down", st.dropped.link_down}};
  if (fab.config().sw.flowcut_on) s["drops"]["flowcut_hold_full"] = st.dropped.flowcut_hold_full;
  if (!fab.config().faults.link_drops.empty()) s["drops"]["link_fault"] = st.dropped.link_fault;
  if (!fab.config().faults.black_holes.empty()) s["drops"]["black_hole"] = st.dropped.black_hole;
  if (!fab.config().faults.link_flaps.empty()) add_link_flaps(s, fab);
  if (!fab.config().faults.misroutes.empty() || st.dropped.ttl_expired) {
    s["drops"]["ttl_expired"] = st.dropped.ttl_expired;
    uint64_t misrouted = 0, returns = 0;
    for (const auto& sw : fab.switches()) misrouted += sw->counters().misrouted, returns += sw->counters().loop_returns;
    s["misroute"] = {{"misrouted_packets", misrouted}, {"loop_returns", returns}};
  }
  const topology& topo = fab.config().topo;
  s["topology"] = {{"hosts", topo.hosts.size()}, {"switches", topo.switches.size()},
                   {"links", topo.links.size()}, {"route_register_writes", fab.controller().register_writes()}};
  // The static deadlock check of the installed routes (fabric/route_planner.h).
  const route_plan& plan = fab.config().routes;
  s["routing"] = {{"kind", route_kind_name(fab.config().sw.routing)},
                  {"ingress_classes", plan.classes}, {"cbd_free", plan.cbd_cycle.empty()}};
  if (!plan.cbd_cycle.empty()) s["routing"]["cbd_cycle"] = plan.cbd_cycle;
  s["accounting_ok"] = r.accounting_ok;
  s["events"] = {{"wakeups", fab.events().wakeups()}, {"kernel_notifications", fab.events().kernel_notifications()}};
}

// The flows: counts, go-back-N and reordering totals, and the FCT slowdown overall and by size.
void add_flows(json& s, const fabric& fab, const std::vector<flow_record>& flows) {
  uint64_t timeouts = 0, retrans = 0, path_changes = 0, out_of_order = 0;
  uint32_t max_reorder = 0;
  for (const flow_ctx& f : fab.flows) {
    timeouts += f.timeouts;
    retrans += f.retransmitted;
    path_changes += f.path_changes;
    out_of_order += f.out_of_order;
    max_reorder = std::max(max_reorder, f.max_reorder);
  }
  s["flows"] = {{"total", fab.flows.size()}, {"started", fab.flows_started}, {"completed", fab.flows_completed},
                {"retransmitted_packets", retrans}, {"timeouts", timeouts},
                {"path_changes", path_changes}, {"out_of_order_packets", out_of_order},
                {"max_reorder_packets", max_reorder}};
  const std::vector<sized_slowdown> done = completed_slowdowns(flows);
  std::vector<double> slowdowns;
  for (const sized_slowdown& f : done) slowdowns.push_back(f.slowdown);
  std::sort(slowdowns.begin(), slowdowns.end());
  s["fct_slowdown"] = {{"p50", percentile(slowdowns, 50)}, {"p95", percentile(slowdowns, 95)},
                       {"p99", percentile(slowdowns, 99)}};
  json by_size = json::array();
  for (const slowdown_bin& b : slowdown_by_size(done))
    by_size.push_back({{"min_bytes", b.min_bytes},
                       {"max_bytes", b.max_bytes == slowdown_bin::no_upper_bound ? json(nullptr) : json(b.max_bytes)},
                       {"flows", b.flows}, {"p50", b.p50}, {"p95", b.p95}, {"p99", b.p99}});
  s["fct_slowdown_by_size"] = by_size;
}

// The queue-length distribution: every sample of every switch port's queue.
void add_queue(json& s, const fabric& fab, const probe_set& probes) {
  auto is_queue = [](const probe_series& ps) {
    return ps.name.size() > 7 && ps.name.compare(ps.name.size() - 7, 7, ".qdepth") == 0;
  };
  size_t n = 0;   // counted first: growing by doubling would hold two copies (8 MB at k = 32)
  for (const probe_series& ps : probes.series) n += is_queue(ps) ? ps.samples.size() : 0;
  std::vector<double> qs;
  qs.reserve(n);
  for (const probe_series& ps : probes.series)
    if (is_queue(ps)) qs.insert(qs.end(), ps.samples.begin(), ps.samples.end());
  std::sort(qs.begin(), qs.end());
  const auto [peak_q, peak_port] = fab.peak_queue();
  s["queue"] = {{"peak_bytes", peak_q}, {"peak_port", peak_port},
                {"samples", qs.size()},
                {"p50_bytes", percentile(qs, 50)}, {"p95_bytes", percentile(qs, 95)},
                {"p99_bytes", percentile(qs, 99)}, {"p999_bytes", percentile(qs, 99.9)}};
}

// The traffic managers over all switches: PFC, ECN, INT and recirculation.
void add_traffic_manager(json& s, const fabric& fab, uint64_t sim_end_ps) {
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
        const double t = double(sw->paused_ps(p, q, sim_end_ps)) * 1e-12;
        paused_s[q] += t;
        if (t > most_paused.first) most_paused = {t, fmt::format("{}.port{} priority {}", sw->basename(), p, q)};
      }
  }
  double host_paused_s = 0;
  for (const auto& h : fab.hosts())
    for (unsigned q = 0; q < num_priorities; ++q) host_paused_s += double(h->pause().paused_ps(q, sim_end_ps)) * 1e-12;
  s["pfc"] = {{"pause_frames_sent", sum.pfc_sent},
              {"pause_frames_received_by_switches", sum.pfc_received},
              {"switch_port_pause_time_s_by_priority", paused_s},
              {"host_pause_time_s", host_paused_s},
              {"most_paused", most_paused.second},
              {"most_paused_time_s", most_paused.first}};
  s["ecn_marked_packets"] = marked;
  s["int_records_written"] = sum.int_written;
  s["recirculated_packets"] = sum.recirculated;
}

// The PFC watchdog's storms and drops (pfc.watchdog set) and the deadlock detector's finding
// (pfc.deadlock_detect set, PFC on): each cycle as its links, queues and PAUSE times.
void add_pfc_deadlock(json& s, const fabric& fab) {
  if (fab.config().sw.pfc_watchdog_ps) {
    uint64_t storms = 0;
    for (const auto& sw : fab.switches()) storms += sw->counters().pfc_watchdog_storms;
    s["pfc"]["watchdog_storms"] = storms;
    s["drops"]["pfc_watchdog"] = fab.stats.dropped.pfc_watchdog;
  }
  const pfc_deadlock_monitor* m = fab.deadlock();
  if (!m) return;
  const pfc_deadlock_result& r = m->result();
  json d = {{"detected", r.detected}, {"detect_time_s", double(fab.config().sw.pfc_deadlock_detect_ps) * 1e-12}, {"checks", r.checks}};
  if (r.detected) {
    d["detected_at_s"] = double(r.detected_ps) * 1e-12;
    d["cycles"] = json::array();
    for (const auto& c : r.cycles) {
      json links = json::array(), queues = json::array(), at = json::array();
      for (const pfc_deadlock_hop& h : c) {
        links.push_back(h.link);
        queues.push_back(h.queue);
        at.push_back(double(h.paused_since_ps) * 1e-12);
      }
      d["cycles"].push_back({{"links", links}, {"queues", queues}, {"pause_at_s", at}});
    }
  }
  s["pfc"]["deadlock"] = d;
}

// Port mirroring (with mirror.to set): copies made, refused, delivered, and still on their way.
void add_mirror(json& s, const fabric& fab) {
  if (fab.config().sw.mirror.to == mirror_config::target::off) return;
  switch_counters sum;
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

// LetFlow: the flowlet tables of every switch.
json letflow_summary(const fabric& fab, const probe_set& probes) {
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
  for (const probe_series& ps : probes.series)
    if (ps.name == "flowlets")
      peak = std::max<uint64_t>(peak, ps.samples.empty() ? 0 : uint64_t(*std::max_element(ps.samples.begin(), ps.samples.end())));
  return {{"flowlet_lookups", fl.lookups},
          {"new_flowlets", fl.new_flowlets},
          {"flowlet_path_changes", fl.path_changes},
          {"flowlet_collisions", fl.collisions},
          {"flowlet_evictions", fl.evictions},
          {"sweep_conflict_cycles", fl.sweep_conflicts},
          {"sweep_overruns", fl.sweep_overruns},
          {"peak_table_occupancy", peak},
          {"table_entries", fab.config().sw.lb.flowlet.entries}};
}

// BalanceSketch: the sketches of every switch.
json balance_sketch_summary(const fabric& fab) {
  bs_counters b;
  uint64_t occupancy = 0, clears = 0, clears_lost = 0, fingerprint_collisions = 0;
  for (const auto& sw : fab.switches()) {
    const bs_counters& c = *sw->lb().sketch_counts();
    fingerprint_collisions += sw->lb().sketch_fingerprint_collisions();
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
  return {{"sketch_packets", b.packets},
          {"sketch_collisions", b.collisions},
          {"fingerprint_collisions", fingerprint_collisions},
          {"flowlet_starts", b.flowlet_starts},
          {"burst_path_changes", b.path_changes},
          {"steered_packets", b.steered_packets},
          {"bucket_clears", b.bucket_clears},
          {"bucket_clears_recirculated", clears},
          {"bucket_clears_not_admitted", clears_lost},
          {"max_cells_in_use", occupancy},
          {"sketch_memory_bits", balance_sketch(fab.config().sw.lb.sketch).memory_bits()}};
}

// CONGA: the leaves (a spine has no CONGA state).
json conga_summary(const fabric& fab) {
  conga_counters cg;
  uint64_t flowlet_changes = 0;
  for (const auto& sw : fab.switches()) {
    const conga_leaf* leaf = sw->lb().conga();
    if (!leaf) continue;
    cg.sent += leaf->counters().sent;
    cg.received += leaf->counters().received;
    cg.new_flowlets += leaf->counters().new_flowlets;
    cg.random_choices += leaf->counters().random_choices;
    cg.feedback_sent += leaf->counters().feedback_sent;
    cg.feedback_received += leaf->counters().feedback_received;
    flowlet_changes += leaf->flowlets().counters().path_changes;
  }
  return {{"packets_sent_between_leaves", cg.sent},
          {"packets_received_from_leaves", cg.received},
          {"new_flowlets", cg.new_flowlets},
          {"flowlet_path_changes", flowlet_changes},
          {"random_tie_breaks", cg.random_choices},
          {"feedback_sent", cg.feedback_sent},
          {"feedback_received", cg.feedback_received}};
}

void add_load_balancer(json& s, const config& cfg, const fabric& fab, const probe_set& probes) {
  json lb;
  switch (fab.config().sw.lb.mode) {
    case lb_mode::letflow: lb = letflow_summary(fab, probes); break;
    case lb_mode::balance_sketch: lb = balance_sketch_summary(fab); break;
    case lb_mode::conga: lb = conga_summary(fab); break;
    default: lb = json::object();
  }
  lb["mode"] = cfg.string("lb.mode");
  s["load_balancer"] = lb;
}

// Flowcut: the NICs' tables, or the switches'.
void add_flowcut(json& s, const config& cfg, const fabric& fab) {
  const bool in_nic = fab.config().nic.flowcut;
  std::vector<const flowcut_table*> tables;
  uint64_t held_peak = 0, switch_held = 0, hold_full = 0, hold_full_resumes = 0, source_pauses = 0;
  if (in_nic)
    for (const auto& h : fab.hosts()) tables.push_back(h->flowcut());
  for (const auto& sw : fab.switches())
    if (sw->flowcut()) {
      tables.push_back(sw->flowcut());
      const switch_counters c = sw->counters();
      held_peak = std::max(held_peak, c.flowcut_held_peak_bytes);
      switch_held += c.flowcut_packets_held;
      hold_full += c.flowcut_hold_full;
      hold_full_resumes += c.flowcut_hold_full_resumes;
      source_pauses += c.flowcut_source_pauses;
    }
  if (tables.empty()) return;
  flowcut_counters sum;
  uint64_t peak = 0;
  for (const flowcut_table* t : tables) {
    const flowcut_counters& c = t->counters();
    sum.flowcuts += c.flowcuts;
    sum.drains += c.drains;
    sum.drains_completed += c.drains_completed;
    sum.drains_cancelled += c.drains_cancelled;
    sum.drain_time_ps += c.drain_time_ps;
    sum.table_full += c.table_full;
    sum.packets_held += c.packets_held;
    sum.rtt_samples += c.rtt_samples;
    sum.acks_unmatched += c.acks_unmatched;
    peak = std::max(peak, c.peak_entries);
  }
  s["flowcut"] = {{"form", cfg.string("flowcut.form")},
                  {"tables", tables.size()},
                  {"flowcuts", sum.flowcuts},
                  {"drains", sum.drains},
                  {"drains_completed", sum.drains_completed},
                  {"drains_cancelled", sum.drains_cancelled},
                  {"drain_time_s", double(sum.drain_time_ps) * 1e-12},
                  {"table_full_events", sum.table_full},
                  // A NIC holds a QP (it stops sending); a switch holds packets.
                  {"packets_held", in_nic ? sum.packets_held : switch_held},
                  {"held_peak_bytes", held_peak},
                  {"rtt_samples", sum.rtt_samples},
                  {"acks_unmatched", sum.acks_unmatched},
                  {"peak_entries_per_table", peak},
                  {"table_bytes", tables.front()->memory_bytes()}};
  if (!in_nic) {   // the switch forms' hold memory: per switch, in the shared buffer
    s["flowcut"]["hold_limit_bytes"] = fab.config().sw.flowcut.hold_bytes;
    s["flowcut"]["hold_full_events"] = hold_full;
    s["flowcut"]["hold_full_resumes"] = hold_full_resumes;
    s["flowcut"]["source_pauses"] = source_pauses;
  }
}

// The NICs' flow schedulers over all hosts, and what one engine can serve: a QP sends at most
// one frame per round of its engine, so line_rate_qps QPs is the most an engine can hold while
// one of them still gets line rate.
struct nic_totals {
  nic_scheduler_stats sched;
  uint64_t cnps = 0;
  uint64_t frame_ps = 0, visit_ps = 0, line_rate_qps = 0;
};
nic_totals sum_nics(const fabric& fab) {
  nic_totals n;
  for (const auto& h : fab.hosts()) {
    n.sched.peak_qps_per_engine = std::max(n.sched.peak_qps_per_engine, h->scheduler().peak_qps_per_engine);
    n.sched.scan_bound_ps += h->scheduler().scan_bound_ps;
    n.sched.cc_updates += h->scheduler().cc_updates;
    n.sched.cc_cycles += h->scheduler().cc_cycles;
  }
  for (const flow_ctx& f : fab.flows) n.cnps += f.cnps;
  const nic_config& nic = fab.config().nic;
  n.frame_ps = link_timing{nic.rate_bps}.occupancy_ps(nic.max_frame_bytes());
  n.visit_ps = uint64_t(nic.sched_visit_cycles) * nic.clock_period_ps;
  n.line_rate_qps = n.frame_ps / n.visit_ps;
  return n;
}

// The NICs: congestion control and the flow scheduler; with HPCC's table, its size and error.
void add_nic(json& s, const config& cfg, const fabric& fab) {
  const nic_totals n = sum_nics(fab);
  s["nic"] = {{"congestion_control", cfg.string("cc.algorithm")},
              {"base_rtt_s", double(fab.config().nic.cc.base_rtt_ps) * 1e-12},
              {"cc_updates", n.sched.cc_updates},
              {"cc_cycles_per_update", n.sched.cc_updates ? double(n.sched.cc_cycles) / double(n.sched.cc_updates) : 0.0},
              {"cnps_sent", n.cnps},
              {"peak_qps_per_engine", n.sched.peak_qps_per_engine},
              {"line_rate_qps_per_engine", n.line_rate_qps},
              {"scheduler_bound_time_s", double(n.sched.scan_bound_ps) * 1e-12}};
  if (const reciprocal_table* t = fab.config().nic.cc.table.get()) {
    // The division of HPCC's window update: the table the NICs hold, checked over every n.
    const unsigned quotient_bits = hpcc::window_bits;
    s["hpcc_reciprocal_table"] = {{"entries", t->entries()},
                                  {"bytes", t->bytes()},
                                  {"epsilon", t->config().epsilon},
                                  {"worst_relative_error", t->worst_relative_error()},
                                  {"divide_cycles", t->divide_cycles()},
                                  {"iterative_divider_cycles", reciprocal_table::iterative_divider_cycles(quotient_bits)}};
  }
}

// The clock layer: its own summary, and what the fabric saw of its sync-messages and the
// Sundial controller's register traffic.
json clock_summary(const clock_result& c, const fabric& fab) {
  json s = c.summary;
  s["sync_dropped"] = fab.sync_dropped();
  s["sync_wait_max_ns"] = double(fab.sync_wait_max_ps()) / 1e3;
  s["reroutes"] = fab.reroutes();
  if (const sundial_controller* ctl = fab.sundial()) {
    json& d = s["sundial"];
    d["register_writes"] = ctl->register_writes();
    d["register_reads"] = ctl->register_reads();
    d["register_readback_mismatches"] = ctl->readback_mismatches();
    d["state_reads"] = ctl->state_reads();
    d["controller_replans"] = ctl->replans();
    d["controller_saw_evictions"] = ctl->evictions_seen();
    d["controller_saw_elections"] = ctl->elections_seen();
    d["configured_from"] = "registers";
  }
  return s;
}

// The placement of the run's switch programs on its target (what `netasic resources` prints),
// so the report can set table sizes against the pipeline that must hold them.
void add_resources(json& s, const config& cfg) {
  const placement_result p = place_scenario(cfg);
  const stage_budget b = make_stage_budget(cfg);
  json& r = s["resources"];
  r["target"] = p.target;
  r["fits"] = p.fits;
  r["switch_group"] = p.switches;
  uint64_t sram = 0, tcam = 0, alus = 0;
  for (const block_usage& u : p.blocks) sram += u.sram_blocks, tcam += u.tcam_blocks, alus += u.stateful_alus;
  r["sram_blocks"] = sram;
  r["sram_budget_blocks"] = uint64_t(b.stages) * b.sram_blocks;
  r["tcam_blocks"] = tcam;
  r["tcam_budget_blocks"] = uint64_t(b.stages) * b.tcam_blocks;
  r["stateful_alus"] = alus;
  r["stateful_alu_budget_alus"] = uint64_t(b.stages) * b.stateful_alus;
  if (!p.fits) {
    r["binding_resource"] = p.binding_resource;
    r["binding_stage"] = p.stage;
    r["binding_item"] = p.binding_item;
    r["advice"] = p.advice;
  }
}

}  // namespace

namespace {

// The receiver's paths by switch name; paths that differ only in a parallel link are one here.
void add_paths(flow_record& rec, const flow_ctx& f, const topology& topo) {
  for (size_t i = 0; i < f.paths.size(); ++i) {
    const flow_path& p = f.paths[i];
    std::string name;
    for (unsigned h = 0; h < std::min<unsigned>(p.hops, packet::path_max); ++h)
      name += (h ? ">" : "") + topo.nodes[topo.switches[p.sw[h]]].name;
    if (p.hops > packet::path_max) name += ">...";
    if (i == f.path_now) rec.path = name;
    auto same = std::find_if(rec.path_bytes.begin(), rec.path_bytes.end(), [&](const auto& e) { return e.first == name; });
    if (same != rec.path_bytes.end()) same->second += p.bytes;
    else rec.path_bytes.emplace_back(name, p.bytes);
  }
}

}  // namespace

std::vector<flow_record> flow_records(const fabric& fab) {
  std::vector<flow_record> out;
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
    add_paths(rec, f, fab.config().topo);
    if (f.snd.total && f.snd.done()) rec.fct_s = double(f.finish_ps - f.start_ps) * 1e-12;
    out.push_back(rec);
  }
  return out;
}

std::vector<link_record> link_records(const fabric& fab, uint64_t sim_end_ps) {
  const topology& topo = fab.config().topo;
  std::vector<link_record> out;
  size_t ports = 0;
  for (unsigned node : topo.switches) ports += topo.nodes[node].port_link.size();
  out.reserve(ports);
  for (unsigned s = 0; s < topo.switches.size(); ++s) {
    const topo_node& n = topo.nodes[topo.switches[s]];
    for (unsigned p = 0; p < n.port_link.size(); ++p) {
      const topo_link& l = topo.links[n.port_link[p]];
      link_record rec;
      rec.from = fmt::format("{}.port{}", n.name, p);
      rec.to = topo.nodes[l.a == topo.switches[s] ? l.b : l.a].name;
      rec.rate_bps = l.failed ? 0 : l.rate_bps;
      rec.bytes = fab.switches()[s]->tx_bytes(p);
      rec.utilization = rec.rate_bps && sim_end_ps
                            ? double(rec.bytes) * 8 / (double(rec.rate_bps) * double(sim_end_ps) * 1e-12)
                            : 0.0;
      out.push_back(rec);
    }
  }
  return out;
}

clock_result clock_records(fabric& fab, probe_set& probes) {
  clock_result c = fab.clock()->finish(now_ps());
  for (clock_algorithm_result& a : c.algorithms) {
    const std::string name = std::string("clock.") + clock_algorithm_name(a.algorithm);
    for (size_t u = 0; u < c.devices.size(); ++u) {
      probe_series e{c.devices[u], name + ".epsilon", "ns", {}}, o{c.devices[u], name + ".offset", "ns", {}},
          i{c.devices[u], name + ".offset_ideal", "ns", {}};
      for (int64_t v : a.epsilon_ps[u]) e.samples.push_back(v == clock_result::no_bound ? -1 : (v + 999) / 1000);
      for (int64_t v : a.offset_ps[u]) o.samples.push_back(v / 1000);
      for (int64_t v : a.offset_ideal_ps[u]) i.samples.push_back(v / 1000);
      probes.series.push_back(std::move(e));
      probes.series.push_back(std::move(o));
      probes.series.push_back(std::move(i));
    }
    a.epsilon_ps = {};
    a.offset_ps = {};
    a.offset_ideal_ps = {};
  }
  return c;
}

json run_summary(const config& cfg, const fabric& fab, const run_result& r, double wall_s, uint64_t sim_end_ps) {
  json s;
  add_run(s, cfg, fab, r, wall_s, sim_end_ps);
  add_flows(s, fab, r.flows);
  add_queue(s, fab, r.probes);
  if (r.clock) s["clock"] = clock_summary(*r.clock, fab);
  add_traffic_manager(s, fab, sim_end_ps);
  add_pfc_deadlock(s, fab);
  add_mirror(s, fab);
  add_load_balancer(s, cfg, fab, r.probes);
  add_flowcut(s, cfg, fab);
  add_nic(s, cfg, fab);
  add_resources(s, cfg);
  // Blocks whose Verilated RTL stood in for the core (--rtl): the calls each answered, the cycles it took.
  for (const auto& [block, n] : rtl_blocks().counts) s["rtl_in_loop"][block] = {{"calls", n.calls}, {"cycles", n.cycles}, {"quiet_cycles_skipped", n.quiet_cycles_skipped}};
  return s;
}

void warn_about_run(const config& cfg, const fabric& fab, const run_result& r) {
  if (r.clock)
    for (const clock_algorithm_result& a : r.clock->algorithms)
      if (a.algorithm == clock_algorithm::sundial && a.summary.value("plan_status", "") != "ok")
        std::cerr << fmt::format("warning: Sundial found no complete backup plan ({}): devices run without backup "
                                 "parents until the controller finds one\n", a.summary.value("plan_reason", ""));
  if (const json& res = r.summary.value("resources", json()); res.is_object() && !res.value("fits", true))
    std::cerr << fmt::format("warning: the switch program does not fit on target {} ({} in stage {}: '{}'); the run "
                             "simulates it anyway, see `netasic resources`: {}\n", res.value("target", ""),
                             res.value("binding_resource", ""), res.value("binding_stage", -1), res.value("binding_item", ""),
                             res.value("advice", ""));
  const nic_totals n = sum_nics(fab);
  if (n.sched.peak_qps_per_engine > n.line_rate_qps && n.sched.scan_bound_ps)
    std::cerr << fmt::format("warning: the NIC flow scheduler fell short: up to {} QPs on one engine, where one engine keeps a "
                             "QP at line rate for at most {} ({} ns frames, {} ns per visit); wires idled {:.1f} us in all "
                             "waiting for engine visits. Raise nic.scheduler.engines or lower nic.scheduler.visit_cycles.\n",
                             n.sched.peak_qps_per_engine, n.line_rate_qps, double(n.frame_ps) / 1e3,
                             double(n.visit_ps) / 1e3, double(n.sched.scan_bound_ps) * 1e-6);
  if (const pfc_deadlock_monitor* m = fab.deadlock(); m && m->result().detected) {
    std::string cycles;
    for (const auto& c : m->result().cycles) {
      cycles += cycles.empty() ? "" : "; ";
      for (size_t i = 0; i < c.size(); ++i) cycles += (i ? ", " : "") + c[i].link;
    }
    std::cerr << fmt::format("warning: PFC deadlock at {:.1f} us: a cycle of paused queues made no progress for "
                             "pfc.deadlock_detect = {} us ({}): {}\n", double(m->result().detected_ps) * 1e-6,
                             double(fab.config().sw.pfc_deadlock_detect_ps) * 1e-6,
                             fab.config().sw.on_deadlock == pfc_deadlock_action::stop ? "the run stopped there" : "the run went on",
                             cycles);
  }
  if (fab.stats.dropped.headroom) {
    const double kib = cfg.real("pfc.headroom");
    std::cerr << fmt::format("warning: lossless priorities dropped {} frames: the PFC headroom was full after XOFF", fab.stats.dropped.headroom);
    if (kib > 0)
      std::cerr << fmt::format(" (pfc.headroom = {} KiB). Leave pfc.headroom at 0 to size it for each port's link.\n", kib);
    else   // sized to be enough (pfc_headroom_needed): a drop means the sizing missed a case
      std::cerr << ", although pfc.headroom = 0 sized it for each port's link and partner. That is a model bug: "
                   "please report it with this run's config.toml.\n";
  }
}

}  // namespace netasic
