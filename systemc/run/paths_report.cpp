#include "run/paths_report.h"

#include <fmt/format.h>

#include "fabric/route_planner.h"
#include "scenario/scenario.h"
#include "topology/updown_routing.h"

namespace netasic {

namespace {

std::string stats_line(const char* what, const path_stats& s) {
  return fmt::format("{}: {} ToR pairs, {:.2f} paths per pair (fewest {}), mean length {:.2f} hops (longest {}), "
                     "mean shortest {:.2f} hops, {} pairs without a path\n",
                     what, s.pairs, s.mean_paths, s.min_paths, s.mean_length, s.max_length, s.mean_shortest, s.unrouted);
}

}  // namespace

std::string paths_report(const config& cfg, bool& cbd_free) {
  const fabric_config fc = make_fabric_config(cfg);
  const topology& t = fc.topo;
  std::string out = fmt::format("topology {}: {} switches, {} hosts, {} links", cfg.string("topology.kind"),
                                t.switches.size(), t.hosts.size(), t.links.size());
  const unsigned k = layer_count(t);
  if (k >= 2) {
    out += fmt::format(", {} virtual layers [", k);
    std::vector<unsigned> per(k + 1, 0);
    for (unsigned p = 0; p < t.nodes[t.switches[0]].port_layer.size(); ++p) ++per[t.nodes[t.switches[0]].port_layer[p]];
    for (unsigned j = 1; j <= k; ++j) out += fmt::format("{}{}", j > 1 ? "," : "", per[j]);
    out += "] ports";
  }
  out += "\n";
  if (k >= 2) out += stats_line("up-down paths", stats_of(updown_paths(t)));
  out += stats_line("shortest paths", shortest_path_stats(t));
  const route_plan plan = plan_fabric_routes(t, fc.sw);
  const dependency_graph g = plan_dependencies(t, plan);
  size_t entries = 0;
  size_t host_entries = 0;
  for (const auto& r : plan.per_switch) {
    for (uint32_t e : r.route) entries += (e & 0xFFFF) != 0;
    host_entries += r.host_routes.size();
  }
  out += fmt::format("installed routes (topology.routing = {}): {} prefix route entries and {} host routes over {} "
                     "switches, {} ingress class{}\n", cfg.string("topology.routing"), entries, host_entries,
                     t.switches.size(), plan.classes, plan.classes == 1 ? "" : "es");
  cbd_free = plan.cbd_cycle.empty();
  out += fmt::format("link dependency graph: {} dependencies; {}\n", g.arcs(),
                     cbd_free ? "no cycle: the routes are free of cyclic buffer dependencies"
                              : "CYCLIC BUFFER DEPENDENCY: " + plan.cbd_cycle);
  return out;
}

}  // namespace netasic
