#include "clock/clock_domains.h"

#include <algorithm>

#include <fmt/format.h>

namespace netasic {

clock_domains make_clock_domains(const topology& topo) {
  constexpr uint32_t none = UINT32_MAX;
  clock_domains d;
  const uint32_t n = uint32_t(topo.nodes.size());
  d.of_node.assign(n, none);
  unsigned top = 0, pods = 0, racks = 0;
  for (const topo_node& nd : topo.nodes) top = std::max(top, nd.tier);
  for (uint32_t u = 0; u < n; ++u) {
    const topo_node& nd = topo.nodes[u];
    if (nd.kind != node_kind::sw || d.of_node[u] != none) continue;
    const uint32_t id = uint32_t(d.names.size());
    d.of_node[u] = id;
    if (nd.tier == top || top < 2) {   // a top-tier switch is a domain of its own
      d.names.push_back(nd.name);
    } else if (top >= 3) {             // fat tree: a pod, the edge and aggregation switches joined below the cores
      d.names.push_back(fmt::format("pod{}", pods++));
      std::vector<uint32_t> q{u};
      for (size_t h = 0; h < q.size(); ++h)
        for (unsigned li : topo.nodes[q[h]].port_link) {
          const uint32_t m = topo.links[li].other(q[h]);
          if (topo.nodes[m].kind == node_kind::sw && topo.nodes[m].tier < top && d.of_node[m] == none) {
            d.of_node[m] = id;
            q.push_back(m);
          }
        }
    } else if (nd.tier == 1) {         // leaf-spine: a rack is a leaf and its hosts
      d.names.push_back(fmt::format("rack{}", racks++));
    } else {
      d.names.push_back(nd.name);
    }
  }
  for (uint32_t u = 0; u < n; ++u)   // hosts share their switch's domain
    if (topo.nodes[u].kind == node_kind::host) d.of_node[u] = d.of_node[topo.links[topo.nodes[u].port_link.at(0)].other(u)];
  return d;
}

}  // namespace netasic
