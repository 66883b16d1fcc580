#include "fabric/route_controller.h"

#include <limits>
#include <map>

#include <fmt/format.h>

#include "switch/route_table.h"

namespace netasic {

route_plan plan_routes(const topology& t) {
  route_plan plan;
  plan.per_switch.resize(t.switches.size());
  for (auto& s : plan.per_switch) s.route.assign(t.hosts.size(), 0);
  std::vector<std::map<std::vector<uint16_t>, uint32_t>> groups(t.switches.size());
  auto group_of = [&](unsigned sw, const std::vector<uint16_t>& ports) {
    auto [it, fresh] = groups[sw].try_emplace(ports, uint32_t(plan.per_switch[sw].members.size()));
    if (fresh) plan.per_switch[sw].members.insert(plan.per_switch[sw].members.end(), ports.begin(), ports.end());
    return (it->second << 16) | uint32_t(ports.size());
  };
  constexpr unsigned inf = std::numeric_limits<unsigned>::max();
  for (unsigned h = 0; h < t.hosts.size(); ++h) {
    const unsigned host_node = t.hosts[h];
    const std::vector<unsigned> dist = t.distances_from(host_node);
    for (unsigned s = 0; s < t.switches.size(); ++s) {
      const unsigned node = t.switches[s];
      if (dist[node] == inf) {
        plan.unreachable.push_back(fmt::format("{} -> {}", t.nodes[node].name, t.nodes[host_node].name));
        continue;
      }
      std::vector<uint16_t> ports;
      const auto& pl = t.nodes[node].port_link;
      for (unsigned p = 0; p < pl.size(); ++p) {
        const topo_link& l = t.links[pl[p]];
        const unsigned peer = l.a == node ? l.b : l.a;
        if (l.failed || dist[peer] + 1 != dist[node]) continue;
        if (t.nodes[peer].kind == node_kind::host && peer != host_node) continue;
        ports.push_back(uint16_t(p));
      }
      plan.per_switch[s].route[h] = group_of(s, ports);
    }
  }
  return plan;
}

route_controller::route_controller(sc_core::sc_module_name name, const route_plan& plan,
                                   std::vector<unsigned> device_of_switch)
    : sc_core::sc_module(name), bus("bus"), plan_(plan), device_(std::move(device_of_switch)) {}

void route_controller::start_of_simulation() {
  reg_driver drv(bus);
  for (unsigned s = 0; s < plan_.per_switch.size(); ++s) {
    const auto& r = plan_.per_switch[s];
    for (unsigned i = 0; i < r.members.size(); ++i, ++writes_)
      drv.write32(regbus::address(device_[s], route_table::reg_member + 4 * i), r.members[i]);
    for (unsigned h = 0; h < r.route.size(); ++h, ++writes_)
      drv.write32(regbus::address(device_[s], route_table::reg_route + 4 * h), r.route[h]);
  }
}

}  // namespace netasic
