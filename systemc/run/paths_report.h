// `netasic paths`: the path statistics of a scenario's topology (the Flattened Clos paper's
// Tables 1 and 2: paths per ToR pair, path length, shortest path, fewest paths of a pair) for
// its up-down paths and its shortest paths, and the static deadlock check of the routes the
// scenario installs (topology.routing): whether their link dependency graph has a cycle, and
// one cycle as a list of links when it does. With throughput specs ("all_to_all", "permutation",
// "uniform:P[:SEED]"), the max-concurrent-flow throughput of each over the routing's paths
// (topology/mcf_throughput.h, GLPK's simplex: exact); with `gap` > 0 instead its Garg-Könemann
// bounds (topology/mcf_approx.h): a feasible flow's throughput and a dual upper bound within
// that relative gap. With `routed_only`, the statistics of topology.routing's paths alone, not
// the up-down and shortest-path ones beside them (every pair's min-cost flow: minutes past
// N = 1000 ToRs); with `updown_only`, the up-down statistics alone, without planning or checking
// the installed routes (at 5,000 ToRs most of the time and memory: 25 million prefix entries);
// with `sample_pairs`, the up-down ones estimated from a sample of pairs. A malformed spec, a
// sample with nothing to sample, or options that exclude each other throw std::invalid_argument
// before any work.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/params.h"
#include "common/progress.h"

namespace netasic {

struct paths_options {
  std::vector<std::string> throughput;   // traffic specs for the LP
  double gap = 0;                        // > 0: Garg-Könemann bounds this far apart instead of the LP
  bool routed_only = false;
  bool updown_only = false;
  // > 0: the up-down statistics from this many ToR pairs drawn at random (sim.seed), each mean
  // with its 95% confidence interval, instead of from every pair.
  uint64_t sample_pairs = 0;
  progress_mode progress = progress_mode::none;   // the up-down statistics' progress, on stderr
};

std::string paths_report(const config& cfg, bool& cbd_free, const paths_options& o = {});

}  // namespace netasic
