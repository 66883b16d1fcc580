// Garg-Könemann bounds on the max concurrent flow (topology/mcf_approx.h) against GLPK's exact
// LP (topology/mcf_throughput.h) on 36 random Flattened Clos wirings (10-20 ToRs, 6-10 fabric
// ports, uplinks at 1 or 2 host line rates), each under up-down, EDST and 4-shortest paths and the three
// traffic matrices: the exact t* lies between the bounds, the bounds are within the gap asked,
// and the returned split is feasible with every demand at `lower` times its rate. The control: the
// same bracket check given t* 3% off, which a 1% bracket must reject.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "topology/cbd_check.h"
#include "topology/edst.h"
#include "topology/flattened_clos.h"
#include "topology/ksp.h"
#include "topology/mcf_approx.h"
#include "topology/mcf_throughput.h"
#include "topology/traffic_matrix.h"
#include "topology/updown_routing.h"

using namespace netasic;

namespace {

bool brackets(const mcf_bounds& b, double exact) { return b.lower <= exact + 1e-9 && exact <= b.upper + 1e-9; }

// Loads of the split within every capacity, each demand at b.lower times its rate.
void expect_feasible(const topology& t, const std::vector<pair_paths>& paths, const traffic_matrix& tm, const mcf_bounds& b) {
  std::map<std::pair<unsigned, unsigned>, const pair_paths*> by;
  for (const pair_paths& pp : paths) by[{pp.src, pp.dst}] = &pp;
  std::vector<double> load(2 * t.links.size(), 0);
  ASSERT_EQ(b.split.size(), tm.demands.size());
  for (size_t c = 0; c < tm.demands.size(); ++c) {
    const pair_paths& pp = *by.at({tm.demands[c].src, tm.demands[c].dst});
    ASSERT_EQ(b.split[c].size(), pp.paths.size());
    double sum = 0;
    for (size_t p = 0; p < pp.paths.size(); ++p) {
      EXPECT_GE(b.split[c][p], 0);
      sum += b.split[c][p];
      for (size_t i = 0; i < pp.paths[p].links.size(); ++i) load[directed_link(t, pp.paths[p].links[i], pp.paths[p].nodes[i])] += b.split[c][p];
    }
    EXPECT_GE(sum, b.lower * tm.demands[c].rate * (1 - 1e-9)) << tm.name << ", demand " << c;
  }
  for (unsigned dl = 0; dl < load.size(); ++dl) EXPECT_LE(load[dl], link_capacity(t, dl / 2) * (1 + 1e-9)) << "directed link " << dl;
}

}  // namespace

TEST(McfApprox, BracketsTheExactLpOnRandomWirings) {
  unsigned solved = 0, control_caught = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    for (unsigned shape = 0; shape < 3; ++shape) {
      flattened_clos_spec sp;
      sp.tors = 10 + 5 * shape, sp.fabric_ports = 6 + 2 * shape, sp.host_ports = 2 + shape, sp.seed = seed;
      sp.host_rate_bps = 1, sp.uplink_rate_bps = 1 + seed % 2;
      const topology t = build_flattened_clos(sp);
      const std::vector<std::vector<pair_paths>> sets = {updown_paths(t), edst_paths(t, edge_disjoint_spanning_trees(t)), ksp_paths(t, 4)};
      for (const std::vector<pair_paths>& paths : sets) {
        if (stats_of(paths).unrouted > 0) continue;   // a small wiring may leave a pair without an up-down path
        for (const traffic_matrix& tm : {all_to_all_traffic(t), uniform_random_traffic(t, 0.3, seed), near_worst_permutation(t)}) {
          const double exact = max_concurrent_flow(t, paths, tm).throughput;
          mcf_approx_options o;
          o.gap = 0.01;
          const mcf_bounds b = max_concurrent_flow_bounds(t, paths, tm, o);
          const std::string where = tm.name + ", seed " + std::to_string(seed) + ", shape " + std::to_string(shape);
          EXPECT_TRUE(b.converged) << where;
          EXPECT_TRUE(brackets(b, exact)) << where << ": " << b.lower << " <= " << exact << " <= " << b.upper;
          EXPECT_LE(b.upper, (1 + o.gap) * b.lower * (1 + 1e-12)) << where;
          expect_feasible(t, paths, tm, b);
          // Same inputs, same bounds, bit for bit.
          const mcf_bounds again = max_concurrent_flow_bounds(t, paths, tm, o);
          EXPECT_EQ(again.lower, b.lower) << where;
          EXPECT_EQ(again.upper, b.upper) << where;
          control_caught += !brackets(b, exact * 1.03);
          ++solved;
        }
      }
    }
  }
  EXPECT_GE(solved, 250u);   // of 12 x 3 x 3 x 3 = 324
  EXPECT_EQ(control_caught, solved) << "a t* 3% off should fall outside every 1% bracket";
}

// Few phases: the bounds still bracket t* (each is certified at every phase) but are not yet close.
TEST(McfApprox, StoppedEarlyStillBracketsButSaysSo) {
  flattened_clos_spec sp;
  sp.tors = 16, sp.fabric_ports = 6, sp.host_ports = 2, sp.seed = 3;
  sp.host_rate_bps = 1, sp.uplink_rate_bps = 1;
  const topology t = build_flattened_clos(sp);
  const auto paths = ksp_paths(t, 4);
  const traffic_matrix tm = all_to_all_traffic(t);
  const double exact = max_concurrent_flow(t, paths, tm).throughput;
  mcf_approx_options o;
  o.gap = 0.001, o.max_phases = 2;
  const mcf_bounds b = max_concurrent_flow_bounds(t, paths, tm, o);
  EXPECT_FALSE(b.converged);
  EXPECT_EQ(b.phases, 2u);
  EXPECT_TRUE(brackets(b, exact)) << b.lower << " <= " << exact << " <= " << b.upper;
}

TEST(McfApprox, RefusesOptionsOutOfRange) {
  flattened_clos_spec sp;
  sp.host_rate_bps = 1, sp.uplink_rate_bps = 1;
  const topology t = build_flattened_clos(sp);
  const auto paths = ksp_paths(t, 2);
  const traffic_matrix tm = all_to_all_traffic(t);
  for (double gap : {0.0, 1.0, -0.5}) {
    mcf_approx_options o;
    o.gap = gap;
    EXPECT_THROW(max_concurrent_flow_bounds(t, paths, tm, o), std::invalid_argument) << "gap " << gap;
  }
}
