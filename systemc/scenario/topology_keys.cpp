#include "scenario/topology_keys.h"

#include <fmt/format.h>

#include "scenario/key_binding.h"

namespace netasic {
namespace {

template <class K>
void leaf_spine_keys(K& k) {
  using L = leaf_spine_spec;
  k.integer("topology.leaves", "switches", &L::leaves, 1, 1024, "Leaf (ToR) switches (leaf_spine)");
  k.integer("topology.spines", "switches", &L::spines, 1, 1024, "Spine switches (leaf_spine)");
  k.integer("topology.hosts_per_leaf", "hosts", &L::hosts_per_leaf, 1, 1024, "Hosts under each leaf (leaf_spine)");
  k.integer("topology.parallel_links", "links", &L::parallel_links, 1, 64, "Parallel links between each leaf and each spine (leaf_spine)");
}

template <class K>
void fat_tree_keys(K& k) {
  k.integer("topology.k", "ports", &fat_tree_spec::k, 2, 64, "Switch radix k of the k-ary fat tree: k pods, k^3/4 hosts (fat_tree; even)");
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

topology build(const config& c) {
  if (c.string("topology.kind") == "leaf_spine") {
    reject_unused(c, {"topology.k"}, "when topology.kind is leaf_spine");
    leaf_spine_spec s;
    apply_keys<leaf_spine_spec> k(c, s);
    leaf_spine_keys(k);
    read_links(c, s);
    return build_leaf_spine(s);
  }
  reject_unused(c, {"topology.leaves", "topology.spines", "topology.hosts_per_leaf", "topology.parallel_links"},
                "when topology.kind is fat_tree");
  fat_tree_spec s;
  apply_keys<fat_tree_spec> k(c, s);
  fat_tree_keys(k);
  if (s.k % 2) fail(c, "topology.k", fmt::format("{} is odd; a k-ary fat tree needs an even k", s.k));
  read_links(c, s);
  return build_fat_tree(s);
}

}  // namespace

void declare_topology_keys(param_registry& r) {
  r.choice("topology.kind", "leaf_spine", {"leaf_spine", "fat_tree"}, "Topology builder");
  declare_keys<leaf_spine_spec> leaf_spine(r);
  leaf_spine_keys(leaf_spine);
  declare_keys<fat_tree_spec> fat_tree(r);
  fat_tree_keys(fat_tree);
  declare_link_keys(r);
}

topology read_topology(const config& c) {
  topology t = build(c);
  // Each switch holds a route entry per host: past this size the tables alone take gigabytes.
  constexpr size_t max_hosts = 16384;
  if (t.hosts.size() > max_hosts) {
    const std::string key = c.string("topology.kind") == "fat_tree" ? "topology.k" : "topology.hosts_per_leaf";
    fail(c, key, fmt::format("the topology has {} hosts; a run supports at most {} (per-host route tables)",
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

}  // namespace netasic
