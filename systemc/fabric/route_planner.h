// The route set a run installs: shortest-path ECMP (plan_routes) or the edge-disjoint virtual
// up-down paths of a Flattened Clos (Zhao et al., NSDI'23, §3.1.2), in the form of route tables
// with ingress classes; and the static check of any plan for cyclic buffer dependencies.
#pragma once
#include <vector>

#include "fabric/route_controller.h"
#include "switch/switch.h"
#include "topology/cbd_check.h"
#include "topology/updown_routing.h"

namespace netasic {

// The plan sw.routing asks for, with its CBD check (route_plan::cbd_cycle) filled in.
route_plan plan_fabric_routes(const topology& t, const switch_config& sw);

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

// The link dependency graph of installed tables: every turn a frame can take (cbd_check.h).
dependency_graph plan_dependencies(const topology& t, const route_plan& plan);

}  // namespace netasic
