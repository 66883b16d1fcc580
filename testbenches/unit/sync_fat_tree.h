// A k-ary fat tree as the Sundial controller sees it, for the clock tests.
#pragma once
#include <cstdint>
#include <vector>

#include "clock/backup_plan.h"

namespace netasic {

// Switch-only k-ary fat-tree: cores first (each its own domain, k + index), then per pod its
// aggregation and edge switches (domain = pod). Core (a, c) links to aggregation a of every pod.
inline sync_graph fat_tree(unsigned k) {
  sync_graph g;
  const unsigned h = k / 2;
  for (unsigned i = 0; i < h * h; ++i) g.add_node(k + i);
  for (unsigned p = 0; p < k; ++p) {
    std::vector<uint32_t> agg, edge;
    for (unsigned j = 0; j < h; ++j) agg.push_back(g.add_node(p));
    for (unsigned j = 0; j < h; ++j) edge.push_back(g.add_node(p));
    for (unsigned a = 0; a < h; ++a) {
      for (unsigned e = 0; e < h; ++e) g.add_edge(agg[a], edge[e]);
      for (unsigned c = 0; c < h; ++c) g.add_edge(agg[a], a * h + c);
    }
  }
  return g;
}

}  // namespace netasic
