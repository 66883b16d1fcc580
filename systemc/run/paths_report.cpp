#include "run/paths_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>

#include "fabric/route_planner.h"
#include "scenario/scenario.h"
#include "topology/ksp.h"
#include "topology/mcf_approx.h"
#include "topology/mcf_throughput.h"
#include "topology/traffic_matrix.h"
#include "topology/updown_routing.h"

namespace netasic {

namespace {

std::string stats_line(const char* what, const path_stats& s) {
  return fmt::format("{}: {} ToR pairs, {:.2f} paths per pair (fewest {}), mean length {:.2f} hops (longest {}), "
                     "mean shortest {:.2f} hops, {} pairs without a path\n",
                     what, s.pairs, s.mean_paths, s.min_paths, s.mean_length, s.max_length, s.mean_shortest, s.unrouted);
}

// Three decimals, one more than the exact lines: a half-width of a few thousandths (200,000 pairs
// at N = 3000) must not print as an exact ± 0.00.
std::string sample_line(const path_stats_estimate& e, uint64_t seed) {
  const path_stats& s = e.sample;
  return fmt::format("up-down paths, sampled: {} of {} ordered ToR pairs (sim.seed {}; each mean ± the half-width of its 95% "
                     "confidence interval): {:.3f} ± {:.3f} paths per pair (fewest in the sample {}), mean length {:.3f} ± {:.3f} "
                     "hops (longest in the sample {}), mean shortest {:.3f} ± {:.3f} hops, {} sampled pairs without a path\n",
                     s.pairs, e.population, seed, s.mean_paths, e.paths_half, s.min_paths, s.mean_length, e.length_half,
                     s.max_length, s.mean_shortest, e.shortest_half, s.unrouted);
}

// "all_to_all", "permutation", "uniform:P" or "uniform:P:SEED" (seed 1 when not given).
struct traffic_spec {
  std::string kind;
  double p = 0;
  uint64_t seed = 1;
};

traffic_spec parse_traffic(const std::string& spec) {
  traffic_spec t;
  const auto bad = [&](const std::string& why) {
    return std::invalid_argument("--throughput '" + spec + "': " + why + " (all_to_all, permutation, uniform:P or uniform:P:SEED with P in (0, 1])");
  };
  if (spec == "all_to_all" || spec == "permutation") return t.kind = spec, t;
  if (spec.rfind("uniform:", 0) != 0) throw bad("unknown traffic");
  t.kind = "uniform";
  const std::string rest = spec.substr(8);
  const size_t colon = rest.find(':');
  const std::string ps = rest.substr(0, colon);
  char* end = nullptr;
  t.p = std::strtod(ps.c_str(), &end);
  if (ps.empty() || end != ps.c_str() + ps.size()) throw bad("P is not a number");
  if (colon != std::string::npos) {
    const std::string ss = rest.substr(colon + 1);
    errno = 0;
    t.seed = std::strtoull(ss.c_str(), &end, 10);
    if (ss.empty() || ss.find_first_not_of("0123456789") != std::string::npos || errno == ERANGE) throw bad("SEED is not a whole number");
  }
  if (!(t.p > 0 && t.p <= 1)) throw bad("P must be in (0, 1]");
  return t;
}

traffic_matrix traffic_of(const topology& t, const traffic_spec& s) {
  if (s.kind == "all_to_all") return all_to_all_traffic(t);
  if (s.kind == "permutation") return near_worst_permutation(t);
  return uniform_random_traffic(t, s.p, s.seed);
}

// The LP of §4.2 over the paths the scenario routes on (shortest_path: every shortest path).
std::string throughput_lines(const topology& t, const switch_config& sw, const std::vector<pair_paths>& routed, const std::string& routing,
                             const std::vector<std::string>& specs, double gap) {
  if (specs.empty()) return "";
  std::vector<traffic_spec> parsed;
  for (const std::string& s : specs) parsed.push_back(parse_traffic(s));
  const bool ecmp = sw.routing == route_kind::shortest_path;
  const std::vector<pair_paths> shortest = ecmp ? all_shortest_paths(t, 4096) : std::vector<pair_paths>{};
  const std::vector<pair_paths>& paths = ecmp ? shortest : routed;
  std::string out;
  for (const traffic_spec& s : parsed) {
    const traffic_matrix tm = traffic_of(t, s);
    if (gap > 0) {
      mcf_approx_options o;
      o.gap = gap;
      const mcf_bounds b = max_concurrent_flow_bounds(t, paths, tm, o);
      out += fmt::format("throughput ({}, topology.routing = {}): {:.4f} to {:.4f} of host line rate per host (max concurrent flow, "
                         "Garg-Könemann: a feasible flow and the dual bound, {:.2f}% apart{}; {} demands, {} phases, {:.2f} s)\n",
                         tm.name, routing, b.lower, b.upper, std::max(0.0, 100 * (b.upper / b.lower - 1)),
                         b.converged ? "" : fmt::format(", NOT within the {:.2f}% asked", 100 * gap), tm.demands.size(), b.phases,
                         b.solve_seconds);
      continue;
    }
    const mcf_result r = max_concurrent_flow(t, paths, tm);
    out += fmt::format("throughput ({}, topology.routing = {}): {:.4f} of host line rate per host (max concurrent flow; LP: {} demands, "
                       "{} columns, {} rows; GLPK simplex {:.2f} s)\n",
                       tm.name, routing, r.throughput, tm.demands.size(), r.columns, r.rows, r.solve_seconds);
  }
  return out;
}

}  // namespace

std::string paths_report(const config& cfg, bool& cbd_free, const paths_options& o) {
  const std::vector<std::string>& throughput = o.throughput;
  if (!(o.gap >= 0 && o.gap < 1)) throw std::invalid_argument(fmt::format("--throughput-gap {}: must be in (0, 1), a fraction (0.01 is 1%)", o.gap));
  for (const std::string& s : throughput) parse_traffic(s);   // a bad option fails before any work
  if (o.gap > 0 && throughput.empty())
    throw std::invalid_argument(fmt::format("--throughput-gap {}: no --throughput to bracket (it applies to the LP's traffic)", o.gap));
  const fabric_config fc = make_fabric_config(cfg);
  const topology& t = fc.topo;
  // Options that cannot act are said before any work, not ignored; where a key was set, named.
  const std::string no_layers = layer_count(t) < 2 ? fmt::format("topology.kind = \"{}\" ({}) has no virtual layers, so no up-down paths",
                                                                 cfg.string("topology.kind"), cfg.origin("topology.kind"))
                                                   : "";
  if (o.updown_only) {
    const std::string why = !no_layers.empty()     ? no_layers
                            : o.routed_only        ? "--routed-only asks for the opposite"
                            : !throughput.empty()  ? "--throughput needs the routing's paths, which it leaves out"
                                                   : "";
    if (!why.empty()) throw std::invalid_argument("--updown-only: " + why);
  }
  if (o.sample_pairs > 0) {
    const std::string why =
        !no_layers.empty() ? no_layers
        : fc.sw.routing == route_kind::updown && !o.updown_only
            ? fmt::format("topology.routing = \"updown\" ({}) makes every pair's up-down paths anyway (add --updown-only to sample "
                          "without them)", cfg.origin("topology.routing"))
        : o.routed_only ? "--routed-only leaves the up-down statistics out"
                        : "";
    if (!why.empty()) throw std::invalid_argument(fmt::format("--sample-pairs {}: nothing to sample: {}", o.sample_pairs, why));
  }
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
  const uint64_t seed = fc.seed;
  auto updown_line = [&] {
    progress_pacer pace(o.progress);
    const source_progress progress = [&](unsigned done, unsigned sources) {
      pace.offer([&] {
        const double wall = pace.elapsed_s(), left = wall * (sources - done) / done;
        return fmt::format("[{:3.0f}%] up-down paths: {} of {} source ToRs | wall {} | about {} left",
                           100.0 * done / sources, done, sources, duration_text(wall), duration_text(left));
      });
    };
    std::string line = o.sample_pairs > 0 ? sample_line(updown_path_sample(t, o.sample_pairs, seed, 0, progress), seed)
                                          : stats_line("up-down paths", updown_path_stats(t, 0, progress));
    pace.finish();
    return line;
  };
  if (o.updown_only) {
    cbd_free = true;   // nothing checked: the report says so, and the caller's exit status does not depend on it
    return out + updown_line() + "installed routes: not planned, and their dependency graph not checked (--updown-only)\n";
  }
  // The routing's paths once, for its statistics, its tables and the LP (empty for shortest_path).
  // EDST's statistics and tables come from its trees, so its paths are made only for the LP.
  const bool edst = fc.sw.routing == route_kind::edst;
  const std::vector<pair_paths> routed = edst && throughput.empty() ? std::vector<pair_paths>{} : routing_paths(t, fc.sw);
  const route_kind routing = fc.sw.routing;
  if (k >= 2 && routing == route_kind::updown) {
    out += stats_line("up-down paths", stats_of(routed));
  } else if (k >= 2 && !o.routed_only) {
    out += updown_line();
  }
  if (routing == route_kind::shortest_path || !o.routed_only) out += stats_line("shortest paths", shortest_path_stats(t));
  const spanning_trees trees = edst ? edge_disjoint_spanning_trees(t) : spanning_trees{};
  if (edst)
    out += stats_line(fmt::format("EDST paths ({} edge-disjoint spanning trees)", trees.trees.size()).c_str(), edst_path_stats(t, trees));
  if (fc.sw.routing == route_kind::ksp) out += stats_line(fmt::format("{}-shortest paths", fc.sw.ksp_paths).c_str(), stats_of(routed));
  const route_plan plan = plan_fabric_routes(t, fc.sw, routed, edst ? &trees : nullptr);
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
  if (plan.path_mode) {
    size_t paths = 0, most = 0, counts = 0;
    for (const auto& r : plan.per_switch) paths += r.paths.size(), most = std::max(most, r.paths.size()), counts += r.path_counts.size();
    out += fmt::format("path table: {} (source, destination, path id) entries, at most {} in a switch, and {} path counts "
                       "at the source ToRs; the dependency graph below is their turns\n", paths, most, counts);
  }
  cbd_free = plan.cbd_cycle.empty();
  out += fmt::format("link dependency graph: {} dependencies; {}\n", g.arcs(),
                     cbd_free ? "no cycle: the routes are free of cyclic buffer dependencies"
                              : "CYCLIC BUFFER DEPENDENCY: " + plan.cbd_cycle);
  out += throughput_lines(t, fc.sw, routed, cfg.string("topology.routing"), throughput, o.gap);
  return out;
}

}  // namespace netasic
