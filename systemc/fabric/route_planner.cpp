#include "fabric/route_planner.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "topology/ksp.h"
#include "topology/traffic_matrix.h"

namespace netasic {

unsigned updown_classes(const topology& t) { return 2 * layer_count(t) + 1; }

unsigned updown_port_class(const topology& t, unsigned node, unsigned port) {
  const topo_node& n = t.nodes[node];
  if (port >= n.port_layer.size() || n.port_layer[port] == 0) return 0;
  const topo_link& l = t.links[n.port_link[port]];
  const unsigned far = l.other(node), j = n.port_layer[port];
  const bool down = t.nodes[far].port_layer.size() > l.port_on(far) && t.nodes[far].port_layer[l.port_on(far)] > j;
  return 2 * (j - 1) + 1 + (down ? 1 : 0);
}

route_plan plan_updown_routes(const topology& t, const std::vector<pair_paths>& pairs) {
  return plan_path_routes(t, pairs, updown_classes(t), [&](unsigned n, unsigned p) { return updown_port_class(t, n, p); });
}

unsigned edst_classes(const spanning_trees& st) { return unsigned(st.trees.size()) + 1; }

unsigned ksp_classes(const topology& t) {
  size_t ports = 0;
  for (unsigned s : t.switches) ports = std::max(ports, t.nodes[s].port_link.size());
  return unsigned(ports) + 1;
}

unsigned edst_port_class(const topology& t, const spanning_trees& st, unsigned node, unsigned port) {
  const unsigned tree = st.tree_of_link[t.nodes[node].port_link[port]];
  return tree == ~0u ? 0 : tree + 1;
}

unsigned ksp_port_class(const topology& t, unsigned node, unsigned port) {
  const topo_link& l = t.links[t.nodes[node].port_link[port]];
  return t.nodes[l.other(node)].kind == node_kind::host ? 0 : port + 1;
}

namespace {

// The egress ports a route set takes at switch index s toward destination ToR node dst from
// ingress class c (empty: no entry). Asked one destination at a time, every (s, c) in order.
using turns_fn = std::function<void(unsigned s, unsigned dst, unsigned c, std::vector<uint16_t>& ports)>;
// Whether a pair of switch nodes (source, destination ToR) has no path in the route set.
using unrouted_fn = std::function<bool(unsigned src, unsigned dst)>;

route_plan plan_turns(const topology& t, unsigned classes, const port_class_fn& cls, const unrouted_fn& unrouted,
                      const turns_fn& turns) {
  route_plan plan;
  plan.classes = classes;
  plan.addresses = address_plan_of(t);
  const unsigned C = plan.classes;
  const std::vector<unsigned> sw_index = t.switch_index();
  plan.per_switch.resize(t.switches.size());
  for (unsigned s = 0; s < t.switches.size(); ++s) {
    auto& r = plan.per_switch[s];
    r.route.assign(size_t(plan.addresses->prefixes) * C, 0);
    for (unsigned p = 0; p < t.nodes[t.switches[s]].port_link.size(); ++p) r.port_class.push_back(cls(t.switches[s], p));
  }
  route_groups groups(plan);
  std::vector<uint16_t> ports;
  // A prefix's entries are the same for each of its hosts: the first host whose link is up fills
  // them (later hosts would only find the same groups again).
  std::vector<char> prefix_done(plan.addresses->prefixes, 0);
  for (unsigned h = 0; h < t.hosts.size(); ++h) {
    const unsigned host_link = t.nodes[t.hosts[h]].port_link[0];
    const unsigned tor = t.host_switch(h);
    if (t.links[host_link].failed) {   // a null route in every switch, longer than its rack's prefix
      for (unsigned s = 0; s < t.switches.size(); ++s) {
        plan.unreachable.push_back(fmt::format("{} -> {}", t.nodes[t.switches[s]].name, t.nodes[t.hosts[h]].name));
        plan.per_switch[s].host_routes.push_back({h, 0});
      }
      continue;
    }
    const size_t prefix = plan.addresses->prefix_of_host[h];
    plan.per_switch[sw_index[tor]].host_routes.push_back({h, groups.of(sw_index[tor], {uint16_t(t.links[host_link].port_on(tor))})});
    const bool fill = !prefix_done[prefix];
    prefix_done[prefix] = 1;
    for (unsigned s = 0; s < t.switches.size(); ++s) {
      if (t.switches[s] == tor) continue;
      if (unrouted(t.switches[s], tor))
        plan.unreachable.push_back(fmt::format("{} -> {}", t.nodes[t.switches[s]].name, t.nodes[t.hosts[h]].name));
      for (unsigned c = 0; fill && c < C; ++c) {
        ports.clear();
        turns(s, tor, c, ports);
        if (!ports.empty()) plan.per_switch[s].route[prefix * C + c] = groups.of(s, ports);
      }
    }
  }
  for (auto& r : plan.per_switch) std::sort(r.host_routes.begin(), r.host_routes.end());
  return plan;
}

}  // namespace

route_plan plan_path_routes(const topology& t, const std::vector<pair_paths>& pairs, unsigned classes, const port_class_fn& cls) {
  const unsigned C = classes;
  const std::vector<unsigned> sw_index = t.switch_index();
  // (switch index, destination ToR node, class) -> egress ports the paths take
  const auto turn_key = [&](unsigned sw, unsigned dst, unsigned c) { return (uint64_t(sw) * t.nodes.size() + dst) * C + c; };
  std::unordered_map<uint64_t, std::set<uint16_t>> turns;
  std::set<std::pair<unsigned, unsigned>> unrouted;   // (source ToR, destination ToR)
  for (const pair_paths& pp : pairs) {
    if (pp.paths.empty()) unrouted.insert({pp.src, pp.dst});
    for (const route_path& p : pp.paths)
      for (size_t i = 0; i < p.links.size(); ++i) {
        const unsigned x = p.nodes[i];
        const unsigned c = i == 0 ? 0 : cls(x, t.links[p.links[i - 1]].port_on(x));
        turns[turn_key(sw_index[x], pp.dst, c)].insert(uint16_t(t.links[p.links[i]].port_on(x)));
      }
  }
  return plan_turns(
      t, classes, cls, [&](unsigned src, unsigned dst) { return unrouted.count({src, dst}) > 0; },
      [&](unsigned s, unsigned dst, unsigned c, std::vector<uint16_t>& ports) {
        const auto it = turns.find(turn_key(s, dst, c));
        if (it != turns.end()) ports.assign(it->second.begin(), it->second.end());
      });
}

route_plan plan_edst_routes(const topology& t, const spanning_trees& st) {
  const unsigned C = edst_classes(st);
  const std::vector<unsigned> sw_index = t.switch_index();
  std::vector<char> is_tor(t.nodes.size(), 0);
  for (unsigned x : tor_switches(t)) is_tor[x] = 1;
  // The turns toward one destination at a time: in tree k rooted at dst, a switch sends a frame
  // that arrived on tree k (class k + 1) to its parent when some ToR lies below it (a path
  // passes it), and a frame from its own hosts (class 0) to its parent in every tree.
  unsigned current = ~0u;
  std::vector<std::vector<uint16_t>> at(t.switches.size() * size_t(C));
  std::vector<unsigned> via, order;
  std::vector<char> below(t.nodes.size());
  const auto walk = [&](unsigned dst) {
    for (auto& a : at) a.clear();
    for (unsigned k = 0; k < st.trees.size(); ++k) {
      tree_from(t, st, k, dst, via, order);
      std::fill(below.begin(), below.end(), 0);
      for (size_t i = order.size(); i-- > 1;) {   // leaves first
        const unsigned x = order[i], parent = t.links[via[x]].other(x);
        const uint16_t up = uint16_t(t.links[via[x]].port_on(x));
        if (is_tor[x]) at[sw_index[x] * size_t(C)].push_back(up);
        if (below[x]) at[sw_index[x] * size_t(C) + k + 1].push_back(up);
        below[parent] = below[parent] || below[x] || is_tor[x];
      }
    }
    for (unsigned s = 0; s < t.switches.size(); ++s) std::sort(at[s * size_t(C)].begin(), at[s * size_t(C)].end());
    current = dst;
  };
  return plan_turns(
      t, C, [&](unsigned n, unsigned p) { return edst_port_class(t, st, n, p); },
      [&](unsigned src, unsigned) { return st.trees.empty() && is_tor[src]; },
      [&](unsigned s, unsigned dst, unsigned c, std::vector<uint16_t>& ports) {
        if (dst != current) walk(dst);
        ports = at[s * size_t(C) + c];
      });
}

route_plan plan_ksp_routes(const topology& t, const std::vector<pair_paths>& pairs) {
  route_plan plan = plan_path_routes(t, pairs, ksp_classes(t), [&](unsigned n, unsigned p) { return ksp_port_class(t, n, p); });
  plan.path_mode = true;
  const std::vector<unsigned> sw_index = t.switch_index();
  std::vector<unsigned> prefix_of_node(t.nodes.size(), ~0u);
  for (unsigned h = 0; h < t.hosts.size(); ++h) prefix_of_node[t.host_switch(h)] = plan.addresses->prefix_of_host[h];
  for (const pair_paths& pp : pairs) {
    if (pp.paths.empty()) continue;
    if (pp.paths.size() > route_table::max_paths)
      throw std::invalid_argument(fmt::format("topology.ksp_paths: {} -> {} has {} paths; the {}-bit path tag holds {}", t.nodes[pp.src].name,
                                              t.nodes[pp.dst].name, pp.paths.size(), route_table::path_id_bits, route_table::max_paths));
    const uint32_t src = prefix_of_node[pp.src], dst = prefix_of_node[pp.dst];
    plan.per_switch[sw_index[pp.src]].path_counts.push_back({src, dst, uint32_t(pp.paths.size())});
    for (uint32_t id = 0; id < pp.paths.size(); ++id) {
      const route_path& p = pp.paths[id];
      for (size_t i = 0; i < p.links.size(); ++i)   // the last switch is the destination ToR: its host routes
        plan.per_switch[sw_index[p.nodes[i]]].paths.push_back({src, dst, id, t.links[p.links[i]].port_on(p.nodes[i])});
    }
  }
  for (auto& r : plan.per_switch) {
    std::sort(r.paths.begin(), r.paths.end());
    std::sort(r.path_counts.begin(), r.path_counts.end(), [](const auto& a, const auto& b) {
      return std::tie(a.src_prefix, a.dst_prefix) < std::tie(b.src_prefix, b.dst_prefix);
    });
  }
  return plan;
}

namespace {

// Path mode: every path walked from its source ToR's count through the switches' entries, each
// consecutive pair of links a dependency. A walk stops at the destination ToR (the host route),
// at a missing entry, or after as many hops as there are switches (a loop in the entries).
dependency_graph path_dependencies(const topology& t, const route_plan& plan) {
  dependency_graph g(t);
  const std::vector<unsigned> sw_index = t.switch_index();
  for (unsigned s = 0; s < plan.per_switch.size(); ++s)
    for (const auto& c : plan.per_switch[s].path_counts)
      for (uint32_t id = 0; id < c.paths; ++id) {
        unsigned sw = s, in_dlink = ~0u;
        for (size_t hop = 0; hop < t.switches.size(); ++hop) {
          const auto& e = plan.per_switch[sw].paths;
          const auto it = std::lower_bound(e.begin(), e.end(), route_plan::sw_routes::path_entry{c.src_prefix, c.dst_prefix, id, 0});
          if (it == e.end() || it->src_prefix != c.src_prefix || it->dst_prefix != c.dst_prefix || it->path_id != id) break;
          const unsigned node = t.switches[sw], link = t.nodes[node].port_link[it->port];
          const unsigned out_dlink = directed_link(t, link, node);
          if (in_dlink != ~0u) g.add(in_dlink, out_dlink);
          in_dlink = out_dlink;
          sw = sw_index[t.links[link].other(node)];
          if (sw == ~0u) break;   // a host
        }
      }
  return g;
}

}  // namespace

dependency_graph plan_dependencies(const topology& t, const route_plan& plan) {
  if (plan.path_mode) return path_dependencies(t, plan);
  // Hosts of one prefix differ only at their own switch, where a frame leaves the fabric, so the
  // first host of each prefix whose link is up gives every dependency (in the same order).
  std::vector<unsigned> destinations;
  std::vector<char> taken(plan.addresses ? plan.addresses->prefixes : t.hosts.size(), 0);
  for (unsigned h = 0; h < t.hosts.size(); ++h) {
    const uint32_t x = plan.addresses ? plan.addresses->prefix_of_host[h] : h;
    if (!taken[x] && !t.links[t.nodes[t.hosts[h]].port_link[0]].failed) taken[x] = 1, destinations.push_back(h);
  }
  const auto in_class = [&](unsigned sw, unsigned in_port) -> unsigned {
    const auto& c = plan.per_switch[sw].port_class;
    return in_port < c.size() ? c[in_port] : 0;
  };
  return dependencies_of(t, [&](unsigned sw, unsigned in_port, unsigned dst, std::vector<unsigned>& ports) {
    const auto& r = plan.per_switch[sw];
    const uint32_t e = plan.entry(sw, dst, in_class(sw, in_port)), base = e >> 16, size = e & 0xFFFF;
    for (uint32_t i = 0; i < size; ++i) ports.push_back(r.members[base + i]);
  }, destinations, in_class);
}

std::vector<pair_paths> routing_paths(const topology& t, const switch_config& sw) {
  switch (sw.routing) {
    case route_kind::updown: return updown_paths(t);
    case route_kind::edst: return edst_paths(t, edge_disjoint_spanning_trees(t));
    case route_kind::ksp: return ksp_paths(t, sw.ksp_paths);
    default: return {};
  }
}

namespace {

// paths: the routing's path set, or null to compute it here; trees: EDST's, or null likewise.
route_plan plan_of(const topology& t, const switch_config& sw, const std::vector<pair_paths>* paths, const spanning_trees* trees) {
  switch (sw.routing) {
    case route_kind::updown: return plan_updown_routes(t, paths ? *paths : updown_paths(t));
    case route_kind::edst: return plan_edst_routes(t, trees ? *trees : edge_disjoint_spanning_trees(t));
    case route_kind::ksp: {
      const std::vector<pair_paths> k = paths ? std::vector<pair_paths>{} : ksp_paths(t, sw.ksp_paths);
      const std::vector<pair_paths>& set = paths ? *paths : k;
      if (sw.ksp_path_table) return plan_ksp_routes(t, set);
      return plan_path_routes(t, set, ksp_classes(t), [&](unsigned n, unsigned p) { return ksp_port_class(t, n, p); });
    }
    default: return plan_routes(t, sw.lb.mode == lb_mode::wcmp ? sw.lb.wcmp_table_size : 0);
  }
}

route_plan with_cbd_check(const topology& t, route_plan plan) {
  const dependency_graph g = plan_dependencies(t, plan);
  plan.cbd_cycle = g.describe(g.find_cycle());
  return plan;
}

}  // namespace

route_plan plan_fabric_routes(const topology& t, const switch_config& sw) {
  return with_cbd_check(t, plan_of(t, sw, nullptr, nullptr));
}

route_plan plan_fabric_routes(const topology& t, const switch_config& sw, const std::vector<pair_paths>& paths,
                              const spanning_trees* trees) {
  return with_cbd_check(t, plan_of(t, sw, &paths, trees));
}

}  // namespace netasic
