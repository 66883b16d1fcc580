// Maximum concurrent flow throughput (the Flattened Clos paper's §4.2 LP) against hand-computed
// optima on a 4-ring and a complete graph K4, and on random Flattened Clos wirings against a
// golden check of the LP's answer: the link loads recomputed from its split stay within every
// capacity, each demand gets exactly t times its rate, and t lies between the throughput of an
// even split over shortest paths (a feasible point) and the cut bound of total capacity.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <vector>

#include "topology/cbd_check.h"
#include "topology/flattened_clos.h"
#include "topology/ksp.h"
#include "topology/mcf_throughput.h"
#include "topology/traffic_matrix.h"

using namespace netasic;

namespace {

// n switches, one host each (host links at rate 1), switch links at `rate` between each listed pair.
topology graph(unsigned n, const std::vector<std::pair<unsigned, unsigned>>& edges, uint64_t rate = 1) {
  topology t;
  for (unsigned i = 0; i < n; ++i) t.add_node(node_kind::sw, "s" + std::to_string(i), 1);
  for (unsigned i = 0; i < n; ++i) t.connect(t.add_node(node_kind::host, "h" + std::to_string(i), 0), i, 1, 1, "h");
  for (auto [a, b] : edges) t.connect(a, b, rate, 1, "l");
  return t;
}

const std::vector<std::pair<unsigned, unsigned>> ring4 = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
const std::vector<std::pair<unsigned, unsigned>> k4 = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};

std::map<std::pair<unsigned, unsigned>, const pair_paths*> index(const std::vector<pair_paths>& paths) {
  std::map<std::pair<unsigned, unsigned>, const pair_paths*> m;
  for (const pair_paths& pp : paths) m[{pp.src, pp.dst}] = &pp;
  return m;
}

// The golden check: loads from the split, per directed link, against capacity; demands met.
void expect_feasible(const topology& t, const std::vector<pair_paths>& paths, const traffic_matrix& tm, const mcf_result& r) {
  const auto by = index(paths);
  std::vector<double> load(2 * t.links.size(), 0);
  ASSERT_EQ(r.split.size(), tm.demands.size());
  for (size_t c = 0; c < tm.demands.size(); ++c) {
    const pair_paths& pp = *by.at({tm.demands[c].src, tm.demands[c].dst});
    ASSERT_EQ(r.split[c].size(), pp.paths.size());
    double sum = 0;
    for (size_t p = 0; p < pp.paths.size(); ++p) {
      EXPECT_GE(r.split[c][p], -1e-9);
      sum += r.split[c][p];
      for (size_t i = 0; i < pp.paths[p].links.size(); ++i) load[directed_link(t, pp.paths[p].links[i], pp.paths[p].nodes[i])] += r.split[c][p];
    }
    EXPECT_NEAR(sum, r.throughput * tm.demands[c].rate, 1e-7);
  }
  for (unsigned dl = 0; dl < load.size(); ++dl) EXPECT_LE(load[dl], link_capacity(t, dl / 2) + 1e-7) << "directed link " << dl;
}

}  // namespace

// Each switch sends 1/3 to each other. Neighbours: one 1-hop path; opposite: two 2-hop paths.
// Hop volume 4 x (2 x 1/3 + 1/3 x 2) t = 16t/3 over 8 directed unit links: t <= 1.5, met by
// splitting the opposite demand evenly (each link carries t/3 + 2 x t/6 = 2t/3).
TEST(McfThroughput, RingAllToAllIsThreeHalves) {
  const topology t = graph(4, ring4);
  const auto paths = all_shortest_paths(t, 64);
  const traffic_matrix tm = all_to_all_traffic(t);
  const mcf_result r = max_concurrent_flow(t, paths, tm);
  EXPECT_NEAR(r.throughput, 1.5, 1e-9);
  expect_feasible(t, paths, tm, r);
}

// Near-worst permutation on the ring: each switch to the opposite one (2 hops), 4 x 2t of hop
// volume over 8 unit links: t = 1, both ways round carrying half.
TEST(McfThroughput, RingOppositePermutationIsOne) {
  const topology t = graph(4, ring4);
  const auto paths = all_shortest_paths(t, 64);
  const traffic_matrix tm = near_worst_permutation(t);
  const mcf_result r = max_concurrent_flow(t, paths, tm);
  EXPECT_NEAR(r.throughput, 1.0, 1e-9);
  expect_feasible(t, paths, tm, r);
}

// K4, all-to-all, direct links only (k = 1): each directed link carries its own pair's t/3, so
// t = 3; at twice the host rate on the fabric links, 6. With the two 2-hop paths added (k = 3)
// nothing improves: every link is already full with 1-hop traffic, which uses capacity best.
TEST(McfThroughput, CompleteGraphAllToAll) {
  for (uint64_t rate : {1, 2}) {
    const topology t = graph(4, k4, rate);
    const traffic_matrix tm = all_to_all_traffic(t);
    for (unsigned k : {1u, 3u}) {
      const auto paths = ksp_paths(t, k);
      const mcf_result r = max_concurrent_flow(t, paths, tm);
      EXPECT_NEAR(r.throughput, 3.0 * double(rate), 1e-9) << "rate " << rate << ", k " << k;
      expect_feasible(t, paths, tm, r);
    }
  }
}

// K4, a derangement (all pairs are 1 hop apart, so any): direct only, t = 1 (each demand alone
// on its unit link). With the 2-hop paths: direct carries at most 1, the rest uses 2 units of
// capacity per unit of flow on the 8 other directed links: 4(t - 1) x 2 <= 8, so t = 2.
TEST(McfThroughput, CompleteGraphPermutationGainsFromDetours) {
  const topology t = graph(4, k4);
  const traffic_matrix tm = near_worst_permutation(t);
  const auto direct = ksp_paths(t, 1), detours = ksp_paths(t, 3);
  EXPECT_NEAR(max_concurrent_flow(t, direct, tm).throughput, 1.0, 1e-9);
  const mcf_result r = max_concurrent_flow(t, detours, tm);
  EXPECT_NEAR(r.throughput, 2.0, 1e-9);
  expect_feasible(t, detours, tm, r);
}

TEST(McfThroughput, RandomWiringsGoldenCheck) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    flattened_clos_spec sp;
    sp.tors = 16, sp.fabric_ports = 6, sp.host_ports = 2, sp.seed = seed;
    sp.host_rate_bps = 1, sp.uplink_rate_bps = 2;
    const topology t = build_flattened_clos(sp);
    const auto shortest = all_shortest_paths(t, 4096), ksp = ksp_paths(t, 8);
    for (const traffic_matrix& tm : {all_to_all_traffic(t), uniform_random_traffic(t, 0.3, seed), near_worst_permutation(t)}) {
      const mcf_result r = max_concurrent_flow(t, ksp, tm);
      expect_feasible(t, ksp, tm, r);
      // A feasible point: the even split over shortest paths, scaled to the busiest link.
      const auto by = index(shortest);
      std::vector<double> load(2 * t.links.size(), 0);
      double volume = 0;   // rate x shortest hops: no split can use less capacity
      for (const demand& d : tm.demands) {
        const pair_paths& pp = *by.at({d.src, d.dst});
        volume += d.rate * double(pp.paths[0].links.size());
        for (const route_path& p : pp.paths)
          for (size_t i = 0; i < p.links.size(); ++i) load[directed_link(t, p.links[i], p.nodes[i])] += d.rate / double(pp.paths.size());
      }
      double even = std::numeric_limits<double>::infinity(), capacity = 0;
      for (unsigned dl = 0; dl < load.size(); ++dl) {
        if (t.nodes[t.links[dl / 2].a].kind == node_kind::host) continue;
        capacity += link_capacity(t, dl / 2);
        if (load[dl] > 0) even = std::min(even, link_capacity(t, dl / 2) / load[dl]);
      }
      EXPECT_GE(r.throughput, even - 1e-9) << tm.name << ", seed " << seed;
      EXPECT_LE(r.throughput, capacity / volume + 1e-9) << tm.name << ", seed " << seed;
      // More paths never lower the optimum: Yen's first 2 paths are the first 2 of its 8.
      EXPECT_GE(r.throughput, max_concurrent_flow(t, ksp_paths(t, 2), tm).throughput - 1e-9);
    }
  }
}

TEST(McfThroughput, DemandWithoutAPathIsRefused) {
  const topology t = graph(4, {{0, 1}, {2, 3}});
  EXPECT_THROW(max_concurrent_flow(t, ksp_paths(t, 2), all_to_all_traffic(t)), std::invalid_argument);
}
