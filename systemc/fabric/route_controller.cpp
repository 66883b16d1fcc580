#include "fabric/route_controller.h"

#include <algorithm>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "blocks/path_select.h"
#include "switch/route_table.h"

namespace netasic {

std::shared_ptr<const address_plan> address_plan_of(const topology& t) {
  auto a = std::make_shared<address_plan>();
  std::vector<uint32_t> prefix_of_node(t.nodes.size(), ~0u);
  std::vector<char> has_hosts(t.nodes.size(), 0);
  for (unsigned h = 0; h < t.hosts.size(); ++h) has_hosts[t.host_switch(h)] = 1;
  for (unsigned node : t.switches)
    if (has_hosts[node]) prefix_of_node[node] = a->prefixes++;
  a->prefix_of_host.resize(t.hosts.size());
  for (unsigned h = 0; h < t.hosts.size(); ++h) a->prefix_of_host[h] = prefix_of_node[t.host_switch(h)];
  return a;
}

size_t route_groups::hash::operator()(const std::vector<uint16_t>& v) const {
  uint64_t x = 1469598103934665603ull;   // FNV-1a over the ports
  for (uint16_t p : v) x = (x ^ p) * 1099511628211ull;
  return size_t(x);
}

uint32_t route_groups::of(unsigned sw, const std::vector<uint16_t>& ports) {
  std::vector<uint32_t>& members = plan_.per_switch[sw].members;
  const auto [it, fresh] = index_[sw].try_emplace(ports, uint32_t(members.size()));
  if (fresh) members.insert(members.end(), ports.begin(), ports.end());
  return (it->second << 16) | uint32_t(ports.size());
}

// A plan without an address plan is keyed by destination host (the switches then hold per-host
// tables): a planner may still write one.
uint32_t route_plan::entry(unsigned sw, unsigned host, unsigned cls) const {
  const auto& h = per_switch[sw].host_routes;
  const auto it = std::lower_bound(h.begin(), h.end(), std::pair<uint32_t, uint32_t>{host, 0});
  if (it != h.end() && it->first == host) return it->second;
  return per_switch[sw].route[size_t(addresses ? addresses->prefix_of_host[host] : host) * classes + cls];
}

route_plan plan_routes(const topology& t, uint32_t wcmp_table_size) {
  route_plan plan;
  plan.addresses = address_plan_of(t);
  const std::vector<uint32_t>& prefix = plan.addresses->prefix_of_host;
  plan.per_switch.resize(t.switches.size());
  for (auto& s : plan.per_switch) s.route.assign(plan.addresses->prefixes, 0);
  route_groups groups(plan);
  auto unreachable = [&](unsigned sw, unsigned h) {
    plan.unreachable.push_back(fmt::format("{} -> {}", t.nodes[t.switches[sw]].name, t.nodes[t.hosts[h]].name));
  };

  // Hosts under the same switch share every route but their own switch's last hop, so paths are
  // searched once per host switch (its "rack").
  std::map<unsigned, std::vector<unsigned>> racks;   // host switch node -> hosts
  for (unsigned h = 0; h < t.hosts.size(); ++h) {
    const unsigned l = t.nodes[t.hosts[h]].port_link[0];
    if (t.links[l].failed) {   // a null route in every switch, longer than its rack's prefix
      for (unsigned s = 0; s < t.switches.size(); ++s) unreachable(s, h), plan.per_switch[s].host_routes.push_back({h, 0});
      continue;
    }
    racks[t.host_switch(h)].push_back(h);
  }
  constexpr unsigned inf = switch_graph::none;
  // The search from each rack's switch and the scan of every switch's ports below read the
  // switches' own graph (each port's far switch), not the links.
  const switch_graph g(t);
  std::vector<unsigned> dist, q;
  std::vector<uint16_t> ports;   // one switch's ports towards one rack: one buffer for all (10 M at k = 64)
  for (const auto& [edge, hosts] : racks) {
    g.distances_from(g.index_of[edge], dist, q);
    for (unsigned s = 0; s < t.switches.size(); ++s) {
      const unsigned node = t.switches[s];
      const auto& pl = t.nodes[node].port_link;
      if (node == edge) {   // the last hop: each host's own port
        for (unsigned h : hosts)
          for (unsigned p = 0; p < pl.size(); ++p)
            if (pl[p] == t.nodes[t.hosts[h]].port_link[0]) plan.per_switch[s].host_routes.push_back({h, groups.of(s, {uint16_t(p)})});
        continue;
      }
      if (dist[s] == inf) {
        for (unsigned h : hosts) unreachable(s, h);
        continue;
      }
      ports.clear();
      for (unsigned p = 0; p < pl.size(); ++p) {
        const unsigned peer = g.peer[g.first_port[s] + p];
        if (peer != inf && dist[peer] + 1 == dist[s]) ports.push_back(uint16_t(p));
      }
      if (wcmp_table_size && ports.size() > 1) {
        std::vector<uint32_t> weights;   // Mb/s of each port's link
        for (uint16_t p : ports) weights.push_back(uint32_t(t.links[pl[p]].rate_bps / 1'000'000));
        const std::vector<uint32_t> replicas = path_select::replicate(weights, wcmp_table_size);
        std::vector<uint16_t> weighted;
        for (size_t i = 0; i < ports.size(); ++i) weighted.insert(weighted.end(), replicas[i], ports[i]);
        ports = weighted;
      }
      plan.per_switch[s].route[prefix[hosts.front()]] = groups.of(s, ports);
    }
  }
  for (auto& s : plan.per_switch) std::sort(s.host_routes.begin(), s.host_routes.end());
  return plan;
}

route_controller::route_controller(sc_core::sc_module_name name, const route_plan& plan,
                                   std::vector<unsigned> device_of_switch)
    : sc_core::sc_module(name), bus("bus"), plan_(plan), device_(std::move(device_of_switch)) {}

void route_controller::start_of_simulation() { install(plan_); }

void route_controller::install(const route_plan& plan) {
  reg_driver drv(bus);
  for (unsigned s = 0; s < plan.per_switch.size(); ++s) {
    const auto& r = plan.per_switch[s];
    for (unsigned p = 0; p < r.port_class.size(); ++p, ++writes_)
      drv.write32(regbus::address(device_[s], route_table::reg_port_class + 4 * p), r.port_class[p]);
    for (unsigned i = 0; i < r.members.size(); ++i, ++writes_)
      drv.write32(regbus::address(device_[s], route_table::reg_member + 4 * i), r.members[i]);
    for (unsigned i = 0; i < r.route.size(); ++i, ++writes_)
      drv.write32(regbus::address(device_[s], route_table::reg_route + 4 * i), r.route[i]);
    drv.write32(regbus::address(device_[s], route_table::reg_host_clear), 1), ++writes_;
    for (const auto& [host, route] : r.host_routes)
      drv.write32(regbus::address(device_[s], route_table::reg_host_route + 4 * host), route), ++writes_;
    if (!plan.path_mode) continue;
    // The path table: PATH_SRC selects a source prefix, then its entries (both lists ascend by it).
    drv.write32(regbus::address(device_[s], route_table::reg_path_clear), 1), ++writes_;
    uint32_t src = ~0u;
    const auto select = [&](uint32_t prefix) {
      if (prefix != src) drv.write32(regbus::address(device_[s], route_table::reg_path_src), src = prefix), ++writes_;
    };
    for (const auto& e : r.paths) {
      select(e.src_prefix);
      drv.write32(regbus::address(device_[s], route_table::reg_path + 4 * (e.dst_prefix * route_table::max_paths + e.path_id)), e.port), ++writes_;
    }
    for (const auto& c : r.path_counts) {
      select(c.src_prefix);
      drv.write32(regbus::address(device_[s], route_table::reg_path_count + 4 * c.dst_prefix), c.paths), ++writes_;
    }
  }
}

}  // namespace netasic
