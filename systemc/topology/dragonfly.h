// Dragonfly (Kim et al., ISCA'08, §3): G groups of R routers, each router with H hosts, R - 1
// local links (the routers of a group are fully connected) and L global links. A group's R*L
// global ports are spread evenly over the G - 1 other groups, m = R*L / (G - 1) links to each
// (the Flowcut paper's Alps-like system: 4 groups, 16 routers, 16 links between each pair of
// groups). Group g's global port q belongs to router q / L. Two arrangements of the global
// links (Camarero et al., ACM TACO 2014, §2.3), with c = q div (G-1) the copy and d = q mod (G-1):
//   consecutive: port q of group g goes to the d-th other group in increasing order, meeting
//                there the port c*(G-1) + (g's rank among that group's others);
//   palm_tree:   port q of group g goes to group (g + d + 1) mod G, meeting its port
//                c*(G-1) + (G - 2 - d).
// With m = 1 these are the absolute and the palm-tree arrangements of that paper.
#pragma once
#include <cstdint>

#include "topology/topology.h"

namespace netasic {

enum class global_arrangement { consecutive, palm_tree };

struct dragonfly_spec {
  unsigned groups = 5, routers_per_group = 4, hosts_per_router = 4, global_links = 1;
  global_arrangement arrangement = global_arrangement::palm_tree;
  uint64_t host_rate_bps = 0, uplink_rate_bps = 0, delay_ps = 0;
};

// The group and global port at the far end of group g's global port q.
struct global_end {
  unsigned group, port;
};
global_end dragonfly_peer(const dragonfly_spec& s, unsigned group, unsigned port);

// Throws std::invalid_argument naming the field at fault (groups, global_links) when the global
// ports of a group cannot be spread evenly over the other groups.
topology build_dragonfly(const dragonfly_spec& s);

}  // namespace netasic
