#include "scenario/topology_keys.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "scenario/key_binding.h"
#include "fabric/route_planner.h"
#include "switch/route_table.h"
#include "topology/dragonfly.h"
#include "topology/flattened_clos.h"
#include "topology/jellyfish.h"
#include "topology/three_tier_clos.h"
#include "topology/xpander.h"
#include "topology/topology_file.h"
#include "topology/traffic_matrix.h"
#include "topology/updown_routing.h"

namespace netasic {
namespace {

template <class K>
void leaf_spine_keys(K& k) {
  using L = leaf_spine_spec;
  k.integer("topology.leaves", "switches", &L::leaves, 1, 1024, "Leaf (ToR) switches (leaf_spine)");
  k.integer("topology.spines", "switches", &L::spines, 1, 1024, "Spine switches (leaf_spine, clos)");
  k.integer("topology.hosts_per_leaf", "hosts", &L::hosts_per_leaf, 1, 1024, "Hosts under each leaf (leaf_spine)");
  k.integer("topology.parallel_links", "links", &L::parallel_links, 1, 64, "Parallel links between each leaf and each spine (leaf_spine)");
}

template <class K>
void fat_tree_keys(K& k) {
  k.integer("topology.k", "ports", &fat_tree_spec::k, 2, 64, "Switch radix k of the k-ary fat tree: k pods, k^3/4 hosts (fat_tree; even)");
}

const names<fc_wiring> wiring_names{{fc_wiring::per_layer, "per_layer"}, {fc_wiring::simple, "simple"}};

template <class K>
void flattened_clos_keys(K& k) {
  using F = flattened_clos_spec;
  k.integer("topology.tors", "switches", &F::tors, 2, 16384, "ToR switches N (flattened_clos, jellyfish)");
  k.integer("topology.fabric_ports", "ports", &F::fabric_ports, 2, 256, "Inter-ToR ports s of each ToR (flattened_clos: even, the layers' degrees sum to s/2; jellyfish: the degree r of the random regular graph, N*r even; xpander: the degree d, d + 1 ToRs per lift)");
  k.integer("topology.hosts_per_tor", "hosts", &F::host_ports, 1, 1024, "Host ports h of each ToR (flattened_clos, jellyfish, xpander, clos; dragonfly: of each router)");
  k.integer("topology.layers", "layers", &F::layers, 0, 129, "Virtual layers k; 0 = the smallest k of Eq. 4 of the Flattened Clos paper (flattened_clos)");
  k.integer("topology.seed", "", &F::seed, 0, std::numeric_limits<int64_t>::max(), "Seed of the random wiring (flattened_clos: between layers; jellyfish: the random regular graph; xpander: the lift's matchings)");
  k.choice("topology.wiring", wiring_names, &F::wiring,
           "How the random bipartite graphs between adjacent layers are drawn (flattened_clos): per_layer, no pair twice within a layer pair, "
           "but two ToRs may be cabled again in another layer pair; simple, no two ToRs cabled twice (validation/flattened-clos.md compares both with the paper)");
}

// The link keys set the same fields of either builder's spec (and the NICs' rate, CONGA's and
// Flowcut's link rate, the traffic's host rate): the specs leave them 0 and read_topology sets
// them, so their defaults are written here.
void declare_link_keys(param_registry& r) {
  r.real("topology.host_rate", "Gbps", 100, 0.001, 1e5, "Rate of every host link");
  r.real("topology.uplink_rate", "Gbps", 400, 0.001, 1e5, "Rate of every switch-to-switch link");
  r.real("topology.link_delay", "ns", 1000, 0, 1e9, "Propagation delay of every link");
  r.string_list("topology.failed_links", "", {}, "Links that are down, e.g. [\"leaf0-spine1\"] (all parallel links) or [\"leaf0-spine1#0\"]");
  r.string_list("topology.degraded_links", "Gbps", {}, "Links running below their rate, e.g. [\"leaf0-spine1#0=10\"]");
}

template <class Spec>
void read_links(const config& c, Spec& s) {
  s.host_rate_bps = to_bps(c.real("topology.host_rate"));
  s.uplink_rate_bps = to_bps(c.real("topology.uplink_rate"));
  s.delay_ps = to_ps(c.real("topology.link_delay"), 1e3);
}

template <class K>
void three_tier_clos_keys(K& k) {
  using C = three_tier_clos_spec;
  k.integer("topology.pods", "pods", &C::pods, 1, 1024, "Pods (clos)");
  k.integer("topology.tors_per_pod", "switches", &C::tors_per_pod, 1, 1024, "ToR switches in each pod (clos)");
  k.integer("topology.aggs_per_pod", "switches", &C::aggs_per_pod, 1, 1024,
            "Aggregation switches in each pod, each linked to every ToR of its pod and to its plane of topology.spines / aggs_per_pod spines (clos)");
}

template <class K>
void dragonfly_keys(K& k) {
  using D = dragonfly_spec;
  k.integer("topology.groups", "groups", &D::groups, 2, 1024, "Groups of fully connected routers (dragonfly)");
  k.integer("topology.routers_per_group", "switches", &D::routers_per_group, 1, 1024, "Routers in each group (dragonfly)");
  k.integer("topology.global_links", "links", &D::global_links, 1, 1024,
            "Global links of each router to other groups; a group's routers_per_group * global_links ports spread evenly over the groups - 1 others (dragonfly)");
}

const names<global_arrangement> arrangement_names{{global_arrangement::consecutive, "consecutive"},
                                                  {global_arrangement::palm_tree, "palm_tree"}};

// The keys that shape a topology, and the builders that read each; a builder rejects the others.
struct shape_key {
  const char* key;
  std::vector<std::string> kinds;
};
const shape_key shape_keys[] = {
    {"topology.leaves", {"leaf_spine"}},        {"topology.spines", {"leaf_spine", "clos"}},
    {"topology.hosts_per_leaf", {"leaf_spine"}}, {"topology.parallel_links", {"leaf_spine"}},
    {"topology.k", {"fat_tree"}},
    {"topology.tors", {"flattened_clos", "jellyfish"}}, {"topology.fabric_ports", {"flattened_clos", "jellyfish", "xpander"}},
    {"topology.hosts_per_tor", {"flattened_clos", "jellyfish", "xpander", "clos", "dragonfly"}},
    {"topology.layers", {"flattened_clos"}},    {"topology.layer_ports", {"flattened_clos"}},
    {"topology.wiring", {"flattened_clos"}},
    {"topology.seed", {"flattened_clos", "jellyfish", "xpander"}}, {"topology.lifts", {"xpander"}},
    {"topology.pods", {"clos"}},                {"topology.tors_per_pod", {"clos"}},
    {"topology.aggs_per_pod", {"clos"}},        {"topology.groups", {"dragonfly"}},
    {"topology.routers_per_group", {"dragonfly"}}, {"topology.global_links", {"dragonfly"}},
    {"topology.global_arrangement", {"dragonfly"}}, {"topology.file", {"file"}},
};

void reject_other_shapes(const config& c, const std::string& kind) {
  std::vector<std::string> unused;
  for (const shape_key& k : shape_keys)
    if (std::find(k.kinds.begin(), k.kinds.end(), kind) == k.kinds.end()) unused.push_back(k.key);
  reject_unused(c, unused, "when topology.kind is " + kind);
}

// A builder's std::invalid_argument names the field at fault ("layer_ports: ..."): the key that
// sets it, renamed where the key is spelled otherwise.
[[noreturn]] void fail_field(const config& c, const std::string& what, const std::string& fallback) {
  const size_t colon = what.find(':');
  std::string field = colon == std::string::npos ? fallback : what.substr(0, colon);
  if (field == "host_ports") field = "hosts_per_tor";
  fail(c, "topology." + field, colon == std::string::npos ? what : what.substr(colon + 2));
}

topology build_fc(const config& c) {
  flattened_clos_spec s;
  apply_keys<flattened_clos_spec> k(c, s);
  flattened_clos_keys(k);
  for (int64_t l : c.integers("topology.layer_ports")) s.layer_ports.push_back(unsigned(l));
  read_links(c, s);
  try {
    topology t = build_flattened_clos(s);
    // Strategy (*) of §3.2.3: with k from Eq. 4 some pair may share no top-layer ancestor and so
    // have no up-down path; then k_min + 1. The topology does not depend on topology.routing, so
    // shortest-path and up-down runs compare on the same wiring.
    if (s.layers == 0 && s.layer_ports.empty() && !pairs_without_updown_path(t).empty() &&
        layer_count(t) + 1 <= s.fabric_ports / 2 + 1) {
      s.layers = layer_count(t) + 1;
      t = build_flattened_clos(s);
    }
    return t;
  } catch (const std::invalid_argument& e) {
    fail_field(c, e.what(), "tors");
  }
}

topology build_jf(const config& c) {
  flattened_clos_spec fc;   // the keys Jellyfish shares with the Flattened Clos
  apply_keys<flattened_clos_spec> k(c, fc);
  flattened_clos_keys(k);
  jellyfish_spec s;
  s.tors = fc.tors, s.fabric_ports = fc.fabric_ports, s.host_ports = fc.host_ports, s.seed = fc.seed;
  read_links(c, s);
  try {
    return build_jellyfish(s);
  } catch (const std::invalid_argument& e) {
    fail_field(c, e.what(), "tors");
  }
}

topology build_xp(const config& c) {
  flattened_clos_spec fc;   // the keys Xpander shares with the Flattened Clos (all but tors)
  apply_keys<flattened_clos_spec> k(c, fc);
  flattened_clos_keys(k);
  xpander_spec s;
  s.degree = fc.fabric_ports, s.host_ports = fc.host_ports, s.seed = fc.seed;
  s.lifts = unsigned(c.integer("topology.lifts"));
  read_links(c, s);
  try {
    return build_xpander(s);
  } catch (const std::invalid_argument& e) {
    fail_field(c, e.what(), "lifts");
  }
}

topology build_clos(const config& c) {
  three_tier_clos_spec s;
  apply_keys<three_tier_clos_spec> k(c, s);
  three_tier_clos_keys(k);
  s.spines = unsigned(c.integer("topology.spines"));
  s.hosts_per_tor = unsigned(c.integer("topology.hosts_per_tor"));
  read_links(c, s);
  try {
    return build_three_tier_clos(s);
  } catch (const std::invalid_argument& e) {
    fail_field(c, e.what(), "pods");
  }
}

topology build_df(const config& c) {
  dragonfly_spec s;
  apply_keys<dragonfly_spec> k(c, s);
  dragonfly_keys(k);
  s.hosts_per_router = unsigned(c.integer("topology.hosts_per_tor"));
  s.arrangement = arrangement_names.value(c.string("topology.global_arrangement"));
  read_links(c, s);
  try {
    return build_dragonfly(s);
  } catch (const std::invalid_argument& e) {
    fail_field(c, e.what(), "groups");
  }
}

topology build_from_file(const config& c) {
  const std::string name = c.string("topology.file");
  if (name.empty()) fail(c, "topology.kind", "\"file\" needs topology.file, the path of the topology file");
  const std::filesystem::path given(name);
  const std::string path = given.is_absolute() ? name : (std::filesystem::path(c.base_dir("topology.file")) / given).lexically_normal().string();
  topology_file_defaults d;
  read_links(c, d);
  try {
    return read_topology_file(path, d);
  } catch (const config_error& e) {
    fail(c, "topology.file", e.what());
  }
}

topology build(const config& c) {
  const std::string kind = c.string("topology.kind");
  reject_other_shapes(c, kind);
  if (kind == "flattened_clos") return build_fc(c);
  if (kind == "jellyfish") return build_jf(c);
  if (kind == "xpander") return build_xp(c);
  if (kind == "clos") return build_clos(c);
  if (kind == "dragonfly") return build_df(c);
  if (kind == "file") return build_from_file(c);
  if (kind == "leaf_spine") {
    leaf_spine_spec s;
    apply_keys<leaf_spine_spec> k(c, s);
    leaf_spine_keys(k);
    read_links(c, s);
    return build_leaf_spine(s);
  }
  fat_tree_spec s;
  apply_keys<fat_tree_spec> k(c, s);
  fat_tree_keys(k);
  if (s.k % 2) fail(c, "topology.k", fmt::format("{} is odd; a k-ary fat tree needs an even k", s.k));
  read_links(c, s);
  return build_fat_tree(s);
}

}  // namespace

void declare_topology_keys(param_registry& r) {
  r.choice("topology.kind", "leaf_spine", {"leaf_spine", "fat_tree", "flattened_clos", "jellyfish", "xpander", "clos", "dragonfly", "file"},
           "Topology builder; file: the fabric of topology.file (datasheets/topology.md)");
  r.choice("topology.routing", "shortest_path", {"shortest_path", "updown", "edst", "ksp"},
           "Routes the controller installs: ECMP over shortest paths, the edge-disjoint virtual up-down paths of the Flattened Clos paper (flattened_clos only), "
           "its baselines: every ToR pair on its path in each edge-disjoint spanning tree (edst), or on its topology.ksp_paths shortest loopless paths (ksp)");
  r.integer("topology.ksp_paths", "paths", 32, 1, 256, "Paths per ToR pair of topology.routing = \"ksp\" (Yen's k shortest loopless paths; the paper's 32-way KSP); at most 256, what the switches' 8-bit path tag tells apart");
  r.choice("topology.ksp_tables", "path", {"path", "ingress_port"},
           "How topology.routing = \"ksp\" is installed: path, an exact entry per (source ToR, destination ToR, path id) so a frame keeps one of its pair's k paths; "
           "ingress_port, entries per (destination ToR, ingress port) where next hops of different paths merge and a frame can leave on another path's suffix (the former form, kept as a control)");
  declare_keys<leaf_spine_spec> leaf_spine(r);
  leaf_spine_keys(leaf_spine);
  declare_keys<fat_tree_spec> fat_tree(r);
  fat_tree_keys(fat_tree);
  declare_keys<flattened_clos_spec> fc(r);
  flattened_clos_keys(fc);
  r.integer("topology.lifts", "", 4, 1, 4096,
            "L of the random L-lift of K_{d+1}: (fabric_ports + 1) x lifts ToRs (xpander; Valadarsky et al., CoNEXT'16)");
  r.integer_list("topology.layer_ports", "ports", {}, 1, 256, 0,
                 "Fabric ports per virtual layer [l_1..l_k], summing to fabric_ports; empty = spread evenly (flattened_clos)");
  declare_keys<three_tier_clos_spec> clos(r);
  three_tier_clos_keys(clos);
  declare_keys<dragonfly_spec> df(r);
  dragonfly_keys(df);
  r.choice("topology.global_arrangement", "palm_tree", arrangement_names.all(),
           "How a group's global ports meet the other groups' (dragonfly; datasheets/topology.md)");
  r.string("topology.file", "", "Topology file (file; the format is in datasheets/topology.md)");
  r.mark_path("topology.file");
  declare_link_keys(r);
}

topology read_topology(const config& c) {
  topology t = build(c);
  // A host is the 24-bit host field of its address (host_of_ip); the memory estimate
  // (memory_estimate.h) refuses what does not fit well before this.
  constexpr size_t max_hosts = size_t(1) << route_table::host_bits;
  if (t.hosts.size() > max_hosts) {
    const std::string kind = c.string("topology.kind");
    const std::string key = kind == "fat_tree" ? "topology.k" : kind == "leaf_spine" ? "topology.hosts_per_leaf"
                            : kind == "file" ? "topology.file" : "topology.hosts_per_tor";
    fail(c, key, fmt::format("the topology has {} hosts; a run supports at most {} (the 24-bit host field of an address)",
                             t.hosts.size(), max_hosts));
  }
  for (const char* key : {"topology.failed_links", "topology.degraded_links"}) {
    try {
      if (std::string(key) == "topology.failed_links") apply_failed_links(t, c.list(key), key);
      else apply_degraded_links(t, c.list(key), key);
    } catch (const config_error& e) {
      throw config_error(c.origin(key) + ": " + e.what());
    }
  }
  return t;
}

namespace {

// EDST and KSP: ingress classes fit the route table's 8-bit port class, and every ToR pair has
// a path (a spanning tree exists, or the pair is connected).
void read_path_routing(const config& c, const topology& t, switch_config& sw) {
  unsigned classes = 0;
  if (sw.routing == route_kind::edst) {
    const spanning_trees st = edge_disjoint_spanning_trees(t);
    if (st.trees.empty()) fail(c, "topology.routing", "edst: the switches have no spanning tree (the fabric is disconnected)");
    classes = edst_classes(st);
  } else {
    classes = ksp_classes(t);
    const std::vector<unsigned> tors = tor_switches(t);
    for (unsigned s : tors) {
      const std::vector<unsigned> d = t.distances_from(s);
      for (unsigned x : tors)
        if (d[x] == std::numeric_limits<unsigned>::max())
          fail(c, "topology.routing", fmt::format("ksp: {} cannot reach {}", t.nodes[s].name, t.nodes[x].name));
    }
  }
  if (classes > 256) fail(c, "topology.routing", fmt::format("{} needs {} ingress classes; the route table holds 256", route_kind_name(sw.routing), classes));
  sw.route_classes = classes;
}

}  // namespace

void read_routing(const config& c, const topology& t, switch_config& sw) {
  const std::string routing = c.string("topology.routing");
  sw.routing = routing == "updown" ? route_kind::updown : routing == "edst" ? route_kind::edst
             : routing == "ksp"    ? route_kind::ksp    : route_kind::shortest_path;
  sw.route_classes = 1;
  if (sw.routing != route_kind::ksp) reject_unused(c, {"topology.ksp_paths", "topology.ksp_tables"}, "unless topology.routing is ksp");
  sw.ksp_paths = unsigned(c.integer("topology.ksp_paths"));
  sw.ksp_path_table = c.string("topology.ksp_tables") == "path";
  if (sw.routing == route_kind::edst || sw.routing == route_kind::ksp) return read_path_routing(c, t, sw);
  if (sw.routing != route_kind::updown) return;
  if (c.string("topology.kind") != "flattened_clos")
    fail(c, "topology.routing", "updown needs the virtual layers of topology.kind = \"flattened_clos\"");
  sw.route_classes = updown_classes(t);
  const auto none = pairs_without_updown_path(t);
  const size_t tors = tor_switches(t).size();
  if (!none.empty())
    fail(c, "topology.layers", fmt::format("{} of {} ToR pairs have no up-down path (first: {} -> {}): their layered "
                                           "up-trees share no top-layer ToR; use more layers (or fewer ToRs)",
                                           none.size(), tors * (tors - 1), t.nodes[none[0].first].name, t.nodes[none[0].second].name));
}

}  // namespace netasic
