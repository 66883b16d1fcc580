// Edge-disjoint virtual up-down routing (Zhao et al., NSDI'23, §3.1.2 and Appendix A.1, Alg. 1):
// the directed virtual up-down graph of a layered topology (up and down copies of every virtual
// switch below the top layer), a min-cost max-flow per ToR pair from S_u^{i,1} to S_d^{j,1},
// decomposed into paths and contracted onto the physical ToRs. Also the path statistics of the
// paper's Tables 1 and 2, for these paths and for shortest paths.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "topology/topology.h"

namespace netasic {

struct route_path {
  std::vector<unsigned> nodes;   // switch nodes, source ToR first
  std::vector<unsigned> links;   // links[i] joins nodes[i] and nodes[i + 1]
};

struct pair_paths {
  unsigned src = 0, dst = 0;     // switch nodes (ToRs with hosts)
  std::vector<route_path> paths;
};

// Every ordered pair of distinct ToRs (switches with a host) with its up-down paths over links
// that are up. Needs topo_node::port_layer on every switch and every fabric link joining
// adjacent layers; throws std::invalid_argument saying which link or switch breaks that.
std::vector<pair_paths> updown_paths(const topology& t);

// The ordered ToR pairs (switch nodes) with no up-down path, in updown_paths' order: those whose
// up-trees (from layer 1, up a layer inside a switch or over a link) share no top-layer switch.
// The pairs updown_paths leaves empty, found without a flow per pair.
std::vector<std::pair<unsigned, unsigned>> pairs_without_updown_path(const topology& t);

// The number of virtual layers k of a layered topology (the largest port layer).
unsigned layer_count(const topology& t);

struct path_stats {
  unsigned pairs = 0;
  double mean_paths = 0;          // paths per ToR pair
  double mean_length = 0;         // ToR-to-ToR hops, over every path of every pair
  double mean_shortest = 0;       // the shortest path of each pair, averaged over pairs
  unsigned min_paths = 0, max_length = 0;
  unsigned unrouted = 0;          // pairs with no path
};
// What a uniform sample of ToR pairs says of all of them: the sample's statistics and, for each
// mean, the half-width of its 95% confidence interval (normal approximation, corrected for a
// finite population; mean_length is a ratio of sums, its variance by linearisation). The
// sample's fewest paths are at least all pairs' fewest, its longest path at most their longest.
struct path_stats_estimate {
  path_stats sample;
  uint64_t population = 0;        // ordered ToR pairs the sample is drawn from
  double paths_half = 0, length_half = 0, shortest_half = 0;
};
// Sums path statistics one ToR pair at a time, so that a caller need not hold every pair's paths.
class path_stats_sum {
 public:
  // One pair: its number of paths, their lengths' sum, the shortest and the longest (hops).
  void add(unsigned paths, double hops, unsigned shortest, unsigned longest);
  void add(const std::vector<route_path>& paths);
  void add(const path_stats_sum& other);   // another share of the pairs
  path_stats result() const;
  // The pairs added as a uniform sample without replacement of `population` pairs.
  path_stats_estimate estimate(uint64_t population) const;

 private:
  path_stats s_{0, 0, 0, 0, ~0u, 0, 0};
  // Sums of whole numbers (and of their squares and products, for the sample's variances):
  // exact in any order.
  double paths_ = 0, hops_ = 0, shortest_ = 0;
  double paths_sq_ = 0, hops_sq_ = 0, paths_hops_ = 0, shortest_sq_ = 0;
};
path_stats stats_of(const std::vector<pair_paths>& pairs);
// stats_of(updown_paths(t)) without holding the paths (N = 2000 would need some 20 GB for them),
// the sources shared among `threads` threads (0: one per core), each with its own flow graph.
// The sums are of whole numbers, so the result is the same for any number of threads.
// `progress`, if given, hears (sources done, sources) from the calling thread after each source it
// solves itself: a caller's progress line for runs of minutes to hours.
using source_progress = std::function<void(unsigned done, unsigned sources)>;
path_stats updown_path_stats(const topology& t, unsigned threads = 0, const source_progress& progress = {});
// `pairs` of the indices 0 .. population - 1 drawn uniformly without replacement (rng(seed)),
// ascending; all of them when pairs >= population.
std::vector<uint64_t> sample_indices(uint64_t population, uint64_t pairs, uint64_t seed);
// The same statistics estimated from `pairs` ordered ToR pairs drawn uniformly without
// replacement (sample_indices; pair x is source ToR x / (m - 1) and the (x % (m - 1))-th other
// ToR, of m in t.switches' order); every pair when `pairs` is at least their number (then the
// estimate is exact: half-widths 0). The same sample and sums for any number of threads.
path_stats_estimate updown_path_sample(const topology& t, uint64_t pairs, uint64_t seed, unsigned threads = 0,
                                       const source_progress& progress = {});
// Shortest paths between ToRs (what ECMP spreads over): paths per pair is the number of distinct
// shortest paths, every one of the pair's shortest length.
path_stats shortest_path_stats(const topology& t);

}  // namespace netasic
