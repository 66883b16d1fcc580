#include "topology/dragonfly.h"

#include <map>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace netasic {

global_end dragonfly_peer(const dragonfly_spec& s, unsigned g, unsigned q) {
  const unsigned others = s.groups - 1, c = q / others, d = q % others;
  if (s.arrangement == global_arrangement::palm_tree) return {(g + d + 1) % s.groups, c * others + (others - 1 - d)};
  const unsigned to = d < g ? d : d + 1;
  return {to, c * others + (g < to ? g : g - 1)};
}

topology build_dragonfly(const dragonfly_spec& s) {
  const unsigned G = s.groups, R = s.routers_per_group, L = s.global_links;
  if (G < 2) throw std::invalid_argument("groups: a Dragonfly needs at least 2 groups");
  if (R < 1) throw std::invalid_argument("routers_per_group: a group needs at least 1 router");
  if (L < 1) throw std::invalid_argument("global_links: each router needs at least 1 global link");
  if ((R * L) % (G - 1))
    throw std::invalid_argument(fmt::format("global_links: a group's {} routers x {} global links = {} global ports cannot "
                                            "be spread evenly over the {} other groups", R, L, R * L, G - 1));
  topology t;
  std::vector<unsigned> router;   // group * R + r -> node
  for (unsigned g = 0; g < G; ++g)
    for (unsigned r = 0; r < R; ++r) router.push_back(t.add_node(node_kind::sw, fmt::format("g{}r{}", g, r), 1));
  for (unsigned i = 0; i < G * R; ++i)
    for (unsigned h = 0; h < s.hosts_per_router; ++h) {
      const unsigned host = t.add_node(node_kind::host, fmt::format("host{}", i * s.hosts_per_router + h), 0);
      t.connect(host, router[i], s.host_rate_bps, s.delay_ps, fmt::format("{}-{}", t.nodes[host].name, t.nodes[router[i]].name));
    }
  for (unsigned g = 0; g < G; ++g)
    for (unsigned x = 0; x < R; ++x)
      for (unsigned y = x + 1; y < R; ++y) {
        const unsigned a = router[g * R + x], b = router[g * R + y];
        t.connect(a, b, s.uplink_rate_bps, s.delay_ps, fmt::format("{}-{}#0", t.nodes[a].name, t.nodes[b].name));
      }
  // Each global link once, from its end with the smaller (group, port).
  std::map<std::pair<unsigned, unsigned>, unsigned> parallel;
  for (unsigned g = 0; g < G; ++g)
    for (unsigned q = 0; q < R * L; ++q) {
      const global_end e = dragonfly_peer(s, g, q);
      if (e.group < g || (e.group == g && e.port < q)) continue;
      const unsigned a = router[g * R + q / L], b = router[e.group * R + e.port / L];
      const unsigned idx = parallel[{a, b}]++;
      t.connect(a, b, s.uplink_rate_bps, s.delay_ps, fmt::format("{}-{}#{}", t.nodes[a].name, t.nodes[b].name, idx));
    }
  return t;
}

}  // namespace netasic
