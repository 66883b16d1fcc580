// Edge-disjoint spanning trees (EDST), the Flattened Clos paper's baseline routing (Zhao et al.,
// NSDI'23, §4.1, after TCP-Bolt and DF-EDST): an s-regular random graph has s/2 edge-disjoint
// spanning trees w.h.p., and each ToR pair is routed on its path in every tree. The trees come
// from matroid partitioning (Edmonds 1965; Roskind and Tarjan 1985): every link joins one of K
// forests, directly or along a shortest chain of swaps, so the forests' union is as large as K
// forests allow; K edge-disjoint spanning trees exist iff that union has K(n-1) links.
#pragma once
#include <vector>

#include "topology/topology.h"
#include "topology/updown_routing.h"

namespace netasic {

struct spanning_trees {
  std::vector<std::vector<unsigned>> trees;   // link indices of each tree (n - 1 of them)
  std::vector<unsigned> tree_of_link;         // link -> tree index, or ~0u (host links, unused links)
};

// The most edge-disjoint spanning trees of the switches over the switch-to-switch links that are
// up: K from floor(m / (n - 1)) down until a partition into K forests spans with every forest.
// Deterministic: links are offered in link order. Empty when the switch graph is disconnected.
spanning_trees edge_disjoint_spanning_trees(const topology& t);

// Every ordered pair of distinct ToRs (switches with a host) with one path per tree, the unique
// path between the two in that tree (one route_path per tree; the paths of a pair are
// edge-disjoint because the trees are).
std::vector<pair_paths> edst_paths(const topology& t, const spanning_trees& st);

// stats_of(edst_paths(t, st)) without holding the paths: one tree walk per source and tree
// (about N^2 K steps, where the paths of N = 1000 would hold some 500 million link indices).
path_stats edst_path_stats(const topology& t, const spanning_trees& st);

// Tree k walked breadth-first from `root`: via[x] is the tree link from x toward root (~0u at the
// root and at nodes the tree does not reach), order the nodes reached, root first.
void tree_from(const topology& t, const spanning_trees& st, unsigned k, unsigned root, std::vector<unsigned>& via,
               std::vector<unsigned>& order);

}  // namespace netasic
