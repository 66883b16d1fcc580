// The route set a run installs: shortest-path ECMP (plan_routes), the edge-disjoint virtual
// up-down paths of a Flattened Clos (Zhao et al., NSDI'23, §3.1.2), or its baselines (§4.1:
// edge-disjoint spanning trees, k shortest paths), in the form of route tables with ingress
// classes; and the static check of any plan for cyclic buffer dependencies.
#pragma once
#include <functional>
#include <vector>

#include "fabric/route_controller.h"
#include "switch/switch.h"
#include "topology/cbd_check.h"
#include "topology/edst.h"
#include "topology/updown_routing.h"

namespace netasic {

// The plan sw.routing asks for, with its CBD check (route_plan::cbd_cycle) filled in.
route_plan plan_fabric_routes(const topology& t, const switch_config& sw);
// The same over what the caller has already computed: the routing's path set (routing_paths(t,
// sw)) and, for edst, its trees (whose tables need no paths; null: compute them here).
route_plan plan_fabric_routes(const topology& t, const switch_config& sw, const std::vector<pair_paths>& paths,
                              const spanning_trees* trees = nullptr);

// The path set a path-based routing installs (updown, edst, ksp with sw.ksp_paths per pair).
std::vector<pair_paths> routing_paths(const topology& t, const switch_config& sw);

// Ingress classes of up-down routing: 0 from a host, 2(j-1)+1 arrived up at a layer-j port,
// 2(j-1)+2 arrived down at one; 2k+1 in all.
unsigned updown_classes(const topology& t);
unsigned updown_port_class(const topology& t, unsigned node, unsigned port);

// Route tables that carry exactly the turns the paths make: at each switch, for each destination
// and each ingress class, the egress ports some path takes from that class. A frame may change
// from one path to another where both arrive in the same class, but every turn it makes is a
// legal up-down turn (§2.4 of the notes on the paper), so the tables stay within Theorem 8 and
// Lemma 4, and it reaches the destination in at most 2k hops.
route_plan plan_updown_routes(const topology& t, const std::vector<pair_paths>& pairs);

// The same tables for any path set, with the ingress classes a port_class function gives
// (class 0: from a host). EDST: the tree of the ingress link, so a frame stays on one tree (a
// tree walk has no cycle, and the trees share no link: CBD-free). KSP: the ingress port, so a
// frame may change paths only where two paths enter a switch over one link.
using port_class_fn = std::function<unsigned(unsigned node, unsigned port)>;
route_plan plan_path_routes(const topology& t, const std::vector<pair_paths>& pairs, unsigned classes, const port_class_fn& cls);

// EDST's tables straight from the trees, as plan_path_routes gives them over edst_paths(t, st)
// (the same entries and groups, in the same order) without holding every pair's paths.
route_plan plan_edst_routes(const topology& t, const spanning_trees& st);

// KSP's tables: the per-ingress-port tables of plan_path_routes (for untagged frames a switch
// makes itself) plus the path table (route_plan::path_mode): at every switch a path passes, the
// entry (source prefix, destination prefix, path id) -> egress port, and at each source ToR the
// path count of each of its pairs, so a frame follows exactly one of its pair's paths (the i-th,
// i = its path tag). Throws std::invalid_argument when a pair has more paths than the tag holds.
route_plan plan_ksp_routes(const topology& t, const std::vector<pair_paths>& pairs);

// Ingress classes of EDST (1 + the number of trees) and of KSP (1 + the most ports of a switch).
unsigned edst_classes(const spanning_trees& st);
unsigned ksp_classes(const topology& t);
unsigned edst_port_class(const topology& t, const spanning_trees& st, unsigned node, unsigned port);
unsigned ksp_port_class(const topology& t, unsigned node, unsigned port);

// The link dependency graph of installed tables: every turn a frame can take (cbd_check.h). In
// path mode, the turns of the path entries: every path walked from its source ToR's path count
// through the entries, the turns tagged frames (every host's frame) take.
dependency_graph plan_dependencies(const topology& t, const route_plan& plan);

}  // namespace netasic
