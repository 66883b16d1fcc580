// Flattened Clos (Zhao et al., NSDI'23): the builder against Eq. 1, 2 and 4 and the paper's
// layer vectors; the min-cost flow against brute force; the up-down paths against their
// definition (up-down in the layered graph, edge-disjoint per pair, at most 2k hops); the CBD
// checker against hand-made path sets, with shortest-path routing as the control that must
// have a cycle.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/rng.h"
#include "fabric/route_planner.h"
#include "topology/cbd_check.h"
#include "topology/flattened_clos.h"
#include "topology/min_cost_flow.h"
#include "topology/updown_routing.h"
#include "topology_checks.h"

using namespace netasic;

namespace {

flattened_clos_spec fc(unsigned n, unsigned s, unsigned h, std::vector<unsigned> l, uint64_t seed) {
  flattened_clos_spec sp;
  sp.tors = n;
  sp.fabric_ports = s;
  sp.host_ports = h;
  sp.layer_ports = std::move(l);
  sp.seed = seed;
  sp.host_rate_bps = sp.uplink_rate_bps = 25'000'000'000;
  sp.delay_ps = 1'000'000;
  return sp;
}

// Destination-based shortest-path next hops (what ECMP installs), from hop distances alone.
next_hops_fn shortest_next_hops(const topology& t) {
  auto dist = std::make_shared<std::vector<std::vector<unsigned>>>();
  for (unsigned h = 0; h < t.hosts.size(); ++h) dist->push_back(t.distances_from(t.hosts[h]));
  return [&t, dist](unsigned sw, unsigned, unsigned dst, std::vector<unsigned>& ports) {
    const unsigned node = t.switches[sw];
    const auto& d = (*dist)[dst];
    for (unsigned p = 0; p < t.nodes[node].port_link.size(); ++p) {
      const topo_link& l = t.links[t.nodes[node].port_link[p]];
      const unsigned m = l.other(node);
      if (!l.failed && (m == t.hosts[dst] || t.nodes[m].kind == node_kind::sw) && d[m] + 1 == d[node]) ports.push_back(p);
    }
  };
}

}  // namespace

TEST(FlattenedClos, MinLayersFollowEquation4AsTable1) {
  // Table 1 (64-port ToRs, s = 40): k_min 3, 3, 4, 4, 4 for N = 500, 1000, 2000, 3000, 5000.
  EXPECT_EQ(fc_min_layers(500, 40), 3u);
  EXPECT_EQ(fc_min_layers(1000, 40), 3u);
  EXPECT_EQ(fc_min_layers(2000, 40), 4u);
  EXPECT_EQ(fc_min_layers(3000, 40), 4u);
  EXPECT_EQ(fc_min_layers(5000, 40), 4u);
  // Eq. 4 by hand for N = 50, s = 18: sqrt(2*50*ln 50) = 19.78; k = 2 gives 10, k = 3 gives 30.25.
  EXPECT_EQ(fc_min_layers(50, 18), 3u);
}

TEST(FlattenedClos, EvenLayerVectorsAreThePapers) {
  using v = std::vector<unsigned>;
  EXPECT_EQ(fc_even_layers(4, 3), (v{1, 2, 1}));            // testbed, §6.1
  EXPECT_EQ(fc_even_layers(18, 4), (v{3, 6, 6, 3}));        // Table 2
  EXPECT_EQ(fc_even_layers(18, 5), (v{2, 4, 4, 5, 3}));     // Table 2, N = 500
  EXPECT_EQ(fc_even_layers(40, 4), (v{7, 13, 13, 7}));      // Tables 6, 7
  EXPECT_EQ(fc_even_layers(40, 5), (v{5, 10, 10, 10, 5}));
}

namespace {

// Every ToR has its layer vector l, host ports on layer 0, and every fabric link joins two
// different ToRs on adjacent layers.
void expect_layered_wiring(const topology& t, const std::vector<unsigned>& l) {
  for (unsigned s : t.switches) {
    const topo_node& n = t.nodes[s];
    std::vector<unsigned> per_layer(l.size() + 1, 0);
    for (unsigned p = 0; p < n.port_link.size(); ++p) {
      const topo_link& k = t.links[n.port_link[p]];
      const unsigned m = k.other(s);
      if (t.nodes[m].kind == node_kind::host) {
        EXPECT_EQ(n.port_layer[p], 0u);
        continue;
      }
      EXPECT_NE(m, s);
      ++per_layer[n.port_layer[p]];
      const unsigned far = t.nodes[m].port_layer[k.port_on(m)];
      EXPECT_EQ(std::max(far, n.port_layer[p]) - std::min(far, n.port_layer[p]), 1u) << k.name;
    }
    for (unsigned j = 0; j < l.size(); ++j) EXPECT_EQ(per_layer[j + 1], l[j]) << n.name;
  }
}

}  // namespace

TEST(FlattenedClos, BuilderWiresAdjacentLayersOnlyAndIsRegular) {
  const std::vector<unsigned> l{3, 6, 6, 3};
  const topology t = build_flattened_clos(fc(50, 18, 14, l, 7));
  ASSERT_EQ(t.switches.size(), 50u);
  ASSERT_EQ(t.hosts.size(), 700u);
  for (unsigned s : t.switches) ASSERT_EQ(t.nodes[s].port_link.size(), 32u);
  expect_layered_wiring(t, l);
}

TEST(FlattenedClos, SameSeedSameWiringOtherSeedOther) {
  auto wiring = [](uint64_t seed) {
    std::vector<std::string> v;
    for (const topo_link& l : build_flattened_clos(fc(20, 6, 2, {}, seed)).links) v.push_back(l.name);
    return v;
  };
  EXPECT_EQ(wiring(3), wiring(3));
  EXPECT_NE(wiring(3), wiring(4));
}

// wiring = simple cables no two ToRs twice and keeps every port's layer; per_layer, the control,
// cables some pairs twice at this size (18 fabric ports among 49 other ToRs).
TEST(FlattenedClos, SimpleWiringCablesNoTwoTorsTwice) {
  const std::vector<unsigned> l{3, 6, 6, 3};
  auto twice = [](const topology& t) {   // switch pairs with more than one link (a host has one)
    unsigned n = 0;
    for (const auto& [pair, count] : topo_check::pair_counts(t)) n += count > 1;
    return n;
  };
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    flattened_clos_spec s = fc(50, 18, 14, l, seed);
    s.wiring = fc_wiring::per_layer;
    EXPECT_GT(twice(build_flattened_clos(s)), 0u) << "seed " << seed;
    s.wiring = fc_wiring::simple;
    const topology t = build_flattened_clos(s);
    EXPECT_EQ(twice(t), 0u) << "seed " << seed;
    expect_layered_wiring(t, l);
  }
  // 10 ToRs cannot give each of them 18 distinct neighbours.
  flattened_clos_spec small = fc(10, 18, 1, l, 1);
  small.wiring = fc_wiring::simple;
  try {
    build_flattened_clos(small);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("wiring:", 0), 0u) << e.what();
  }
  small.wiring = fc_wiring::per_layer;
  EXPECT_NO_THROW(build_flattened_clos(small));
}

TEST(FlattenedClos, ImpossibleParametersNameTheField) {
  auto why = [](flattened_clos_spec s) {
    try {
      build_flattened_clos(s);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(why(fc(10, 5, 1, {}, 1)).rfind("fabric_ports:", 0), 0u);
  EXPECT_EQ(why(fc(10, 6, 1, {1, 2, 2}, 1)).rfind("layer_ports:", 0), 0u);   // sums to 5
  EXPECT_EQ(why(fc(10, 6, 1, {2, 2, 2}, 1)).rfind("layer_ports:", 0), 0u);   // l_k != a_(k-1)
  EXPECT_EQ(why(fc(1, 4, 1, {}, 1)).rfind("tors:", 0), 0u);
  flattened_clos_spec k = fc(10, 6, 1, {}, 1);
  k.layers = 9;
  EXPECT_EQ(why(k).rfind("layers:", 0), 0u);
}

// Brute force: every simple s-t path, then the largest set of arc-disjoint ones and, among those,
// the least total length. A min-cost max-flow with unit capacities must match both.
TEST(MinCostFlow, MatchesBruteForceOnRandomGraphs) {
  rng r(11);
  for (int trial = 0; trial < 60; ++trial) {
    const unsigned n = 5 + unsigned(r.below(3));
    std::vector<std::pair<unsigned, unsigned>> arcs;
    for (unsigned u = 0; u < n; ++u)
      for (unsigned v = 0; v < n; ++v)
        if (u != v && r.below(100) < 35) arcs.push_back({u, v});
    min_cost_flow g(n);
    for (auto [u, v] : arcs) g.add_arc(u, v, 1, 1);
    const int64_t f = g.solve(0, n - 1);
    std::vector<std::vector<unsigned>> paths;   // as arc indices
    std::vector<unsigned> cur;
    std::vector<char> on(n, 0);
    std::function<void(unsigned)> walk = [&](unsigned u) {
      if (u == n - 1) return paths.push_back(cur);
      on[u] = 1;
      for (unsigned a = 0; a < arcs.size(); ++a)
        if (arcs[a].first == u && !on[arcs[a].second]) {
          cur.push_back(a);
          walk(arcs[a].second);
          cur.pop_back();
        }
      on[u] = 0;
    };
    walk(0);
    int64_t best_n = 0, best_cost = 0;
    std::vector<char> used(arcs.size(), 0);
    std::function<void(size_t, int64_t, int64_t)> pick = [&](size_t i, int64_t k, int64_t cost) {
      if (k > best_n || (k == best_n && cost < best_cost)) best_n = k, best_cost = cost;
      for (size_t j = i; j < paths.size(); ++j) {
        if (std::any_of(paths[j].begin(), paths[j].end(), [&](unsigned a) { return used[a]; })) continue;
        for (unsigned a : paths[j]) used[a] = 1;
        pick(j + 1, k + 1, cost + int64_t(paths[j].size()));
        for (unsigned a : paths[j]) used[a] = 0;
      }
    };
    pick(0, 0, 0);
    ASSERT_EQ(f, best_n) << "trial " << trial;
    ASSERT_EQ(g.cost(), best_cost) << "trial " << trial;
  }
}

namespace {

// The legal turns of an up-down walk on port layers (notes §2.4, from Fig. 4c): arriving up at
// layer j, leave up from a port of layer >= j or leave down; arriving down at layer j, leave
// down from a port of layer <= j. A hop is up when it enters a higher layer than it leaves.
bool is_updown(const topology& t, const route_path& p) {
  bool down = false;
  unsigned in_layer = 0;
  for (size_t i = 0; i < p.links.size(); ++i) {
    const topo_link& l = t.links[p.links[i]];
    const unsigned from = p.nodes[i], to = p.nodes[i + 1];
    const unsigned out_layer = t.nodes[from].port_layer[l.port_on(from)];
    const unsigned arrive = t.nodes[to].port_layer[l.port_on(to)];
    const bool hop_up = arrive > out_layer;
    if (i > 0) {
      if (down && (hop_up || out_layer > in_layer)) return false;
      if (!down && hop_up && out_layer < in_layer) return false;
    }
    down = !hop_up;
    in_layer = arrive;
  }
  return true;
}

// The ToRs whose top-layer virtual switch a ToR reaches going only up (dashed arcs inside a
// ToR, links from layer j to layer j+1): a pair has an up-down path iff their sets meet.
std::vector<std::set<unsigned>> top_ancestors(const topology& t, unsigned k) {
  std::vector<std::set<unsigned>> out;
  for (unsigned src : t.switches) {
    std::set<std::pair<unsigned, unsigned>> seen{{src, 1}};
    std::vector<std::pair<unsigned, unsigned>> todo{{src, 1}};
    std::set<unsigned> top;
    while (!todo.empty()) {
      const auto [n, j] = todo.back();
      todo.pop_back();
      if (j == k) {
        top.insert(n);
        continue;
      }
      std::vector<std::pair<unsigned, unsigned>> next{{n, j + 1}};
      for (unsigned p = 0; p < t.nodes[n].port_link.size(); ++p) {
        const topo_link& l = t.links[t.nodes[n].port_link[p]];
        const unsigned m = l.other(n);
        if (t.nodes[n].port_layer[p] == j && t.nodes[m].kind == node_kind::sw && t.nodes[m].port_layer[l.port_on(m)] == j + 1)
          next.push_back({m, j + 1});
      }
      for (auto x : next)
        if (seen.insert(x).second) todo.push_back(x);
    }
    out.push_back(top);
  }
  return out;
}

}  // namespace

TEST(UpDownRouting, PairsWithACommonTopAncestorHavePaths) {
  unsigned without = 0;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const topology t = build_flattened_clos(fc(24, 8, 1, {2, 4, 2}, seed));
    const auto anc = top_ancestors(t, 3);
    const std::vector<pair_paths> pairs = updown_paths(t);
    // The config check's shortcut names exactly the pairs the flows leave empty, in order.
    std::vector<std::pair<unsigned, unsigned>> empty;
    for (const pair_paths& pp : pairs)
      if (pp.paths.empty()) empty.push_back({pp.src, pp.dst});
    EXPECT_EQ(pairs_without_updown_path(t), empty) << "seed " << seed;
    // The statistics streamed pair by pair (what N = 2000 needs) are those of the paths.
    // Shared among threads, the same to the bit for any number of them (the sums are exact).
    // One thread tells the progress callback after every source, in order; the statistics are
    // those without it.
    std::vector<std::pair<unsigned, unsigned>> heard;
    const path_stats one = updown_path_stats(t, 1, [&](unsigned done, unsigned of) { heard.push_back({done, of}); });
    topo_check::expect_same_stats(one, stats_of(pairs), "seed " + std::to_string(seed));
    ASSERT_EQ(heard.size(), 24u) << "seed " << seed;   // 24 source ToRs
    for (unsigned i = 0; i < heard.size(); ++i) EXPECT_EQ(heard[i], std::make_pair(i + 1, 24u)) << "seed " << seed;
    for (unsigned threads : {2u, 3u, 7u}) {
      // With more threads the caller's thread tells only its own sources (it may get none), counting
      // every thread's: never past the total, and rising.
      heard.clear();
      const path_stats many = updown_path_stats(t, threads, [&](unsigned done, unsigned of) { heard.push_back({done, of}); });
      for (unsigned i = 0; i < heard.size(); ++i) {
        EXPECT_EQ(heard[i].second, 24u);
        EXPECT_LE(heard[i].first, 24u);
        if (i > 0) {
          EXPECT_GT(heard[i].first, heard[i - 1].first);
        }
      }
      const std::string what = "seed " + std::to_string(seed) + ", " + std::to_string(threads) + " threads";
      EXPECT_EQ(many.mean_paths, one.mean_paths) << what;
      EXPECT_EQ(many.mean_length, one.mean_length) << what;
      EXPECT_EQ(many.mean_shortest, one.mean_shortest) << what;
      topo_check::expect_same_stats(many, one, what);
    }
    for (const pair_paths& pp : pairs) {
      std::vector<unsigned> common;
      const auto& a = anc[pp.src], & b = anc[pp.dst];   // switch nodes come first: node = switch index
      std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(common));
      EXPECT_EQ(pp.paths.empty(), common.empty()) << t.nodes[pp.src].name << " -> " << t.nodes[pp.dst].name;
      without += common.empty();
    }
  }
  // (a_1 + 1)(a_2 + 1) = 9 ancestors of 24 ToRs, below Eq. 3's sqrt(2 N ln N) = 12.3: some pairs
  // have no up-down path at all, the reason k_min is 4 here.
  EXPECT_GT(without, 0u);
  EXPECT_EQ(fc_min_layers(24, 8), 4u);
}

// The sampled statistics (`netasic paths --sample-pairs`) against exact arithmetic on the full
// list of pairs: the sample is uniform, its statistics are those of the pairs it names, its
// intervals are the textbook ones (computed here in two passes), and they cover the truth about
// 95% of the time. Control: intervals a quarter as wide cover far less often.
TEST(UpDownRouting, SampledStatisticsEstimateEveryPairs) {
  const topology t = build_flattened_clos(fc(40, 8, 1, {2, 4, 2}, 3));
  const std::vector<pair_paths> all = updown_paths(t);
  const uint64_t population = all.size();
  ASSERT_EQ(population, 40u * 39u);
  const path_stats truth = stats_of(all);
  // Every pair asked for: exact, no interval.
  const path_stats_estimate every = updown_path_sample(t, population + 5, 1, 2);
  topo_check::expect_same_stats(every.sample, truth, "every pair");
  EXPECT_EQ(every.population, population);
  EXPECT_EQ(every.paths_half + every.length_half + every.shortest_half, 0.0);

  // Uniform: over many seeds each index is drawn n / N of the time (a binomial spread).
  const uint64_t n = 60, seeds = 400;
  std::vector<unsigned> drawn(population, 0);
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    const std::vector<uint64_t> x = sample_indices(population, n, seed);
    ASSERT_EQ(x.size(), n);
    ASSERT_TRUE(std::is_sorted(x.begin(), x.end()));
    ASSERT_TRUE(std::adjacent_find(x.begin(), x.end()) == x.end());
    ASSERT_LT(x.back(), population);
    for (uint64_t i : x) ++drawn[i];
  }
  const double expect = double(n) * seeds / population;   // 15.4
  double chi2 = 0;
  for (unsigned c : drawn) chi2 += (c - expect) * (c - expect) / expect;
  // Chi-square with N - 1 = 1559 degrees of freedom: mean 1559, sd 56.
  EXPECT_LT(chi2, 1559 + 5 * 56.0);
  EXPECT_GT(chi2, 1559 - 5 * 56.0);

  unsigned covered_paths = 0, covered_length = 0, covered_shortest = 0, narrow = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const path_stats_estimate e = updown_path_sample(t, n, seed, 1 + seed % 3);
    const std::string what = "seed " + std::to_string(seed);
    // The sample's statistics are exactly those of the pairs it names.
    std::vector<pair_paths> picked;
    for (uint64_t x : sample_indices(population, n, seed)) picked.push_back(all[x]);
    topo_check::expect_same_stats(e.sample, stats_of(picked), what);
    EXPECT_EQ(e.population, population);
    // The half-widths, in two passes over the picked pairs.
    double p_mean = 0, s_mean = 0, routed = 0;
    for (const pair_paths& pp : picked) {
      p_mean += double(pp.paths.size()) / n;
      if (pp.paths.empty()) continue;
      size_t shortest = ~size_t(0);
      for (const route_path& q : pp.paths) shortest = std::min(shortest, q.links.size());
      s_mean += double(shortest), ++routed;
    }
    s_mean /= routed;
    const double r = e.sample.mean_length;
    double p_var = 0, s_var = 0, resid = 0;
    for (const pair_paths& pp : picked) {
      double hops = 0;
      size_t shortest = ~size_t(0);
      for (const route_path& q : pp.paths) hops += double(q.links.size()), shortest = std::min(shortest, q.links.size());
      p_var += (double(pp.paths.size()) - p_mean) * (double(pp.paths.size()) - p_mean) / (n - 1);
      resid += (hops - r * double(pp.paths.size())) * (hops - r * double(pp.paths.size())) / (n - 1);
      if (!pp.paths.empty()) s_var += (double(shortest) - s_mean) * (double(shortest) - s_mean) / (routed - 1);
    }
    const double fpc = 1 - double(n) / double(population);
    EXPECT_NEAR(e.paths_half, 1.96 * std::sqrt(p_var / n * fpc), 1e-9) << what;
    EXPECT_NEAR(e.length_half, 1.96 * std::sqrt(resid / (n * p_mean * p_mean) * fpc), 1e-9) << what;
    EXPECT_NEAR(e.shortest_half, 1.96 * std::sqrt(s_var / routed * fpc), 1e-9) << what;
    ASSERT_GT(e.paths_half, 0) << what;
    covered_paths += std::abs(e.sample.mean_paths - truth.mean_paths) <= e.paths_half;
    covered_length += std::abs(e.sample.mean_length - truth.mean_length) <= e.length_half;
    covered_shortest += std::abs(e.sample.mean_shortest - truth.mean_shortest) <= e.shortest_half;
    narrow += std::abs(e.sample.mean_paths - truth.mean_paths) <= e.paths_half / 4;
  }
  // 95% intervals: about 190 of 200 (a binomial sd of 3); 175 is five sd below.
  EXPECT_GE(covered_paths, 175u);
  EXPECT_GE(covered_length, 175u);
  EXPECT_GE(covered_shortest, 175u);
  // A quarter as wide: about 39% coverage (2 Phi(0.49) - 1), far below.
  EXPECT_LT(narrow, 120u);
}

TEST(UpDownRouting, PathsAreUpDownDisjointAndShort) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const topology t = build_flattened_clos(fc(24, 8, 1, {1, 2, 3, 2}, seed));
    const auto pairs = updown_paths(t);
    ASSERT_EQ(pairs.size(), 24u * 23u);
    for (const pair_paths& pp : pairs) {
      std::set<unsigned> used;
      for (const route_path& p : pp.paths) {
        EXPECT_EQ(p.nodes.front(), pp.src);
        EXPECT_EQ(p.nodes.back(), pp.dst);
        EXPECT_LE(p.links.size(), 2u * 4u);   // §4.2: at most 2k hops
        EXPECT_TRUE(is_updown(t, p));
        std::set<unsigned> nodes(p.nodes.begin(), p.nodes.end());
        EXPECT_EQ(nodes.size(), p.nodes.size()) << "a contracted path visits a ToR twice";
        for (size_t i = 0; i < p.links.size(); ++i)
          EXPECT_TRUE(used.insert(directed_link(t, p.links[i], p.nodes[i])).second) << "paths of a pair share a link";
      }
    }
  }
}

TEST(CbdCheck, PaperThreeCycleAndAnAcyclicSet) {
  // Fig. 11: on the ring A-B-C, paths A->B->C, B->C->A, C->A->B close a 3-cycle.
  topology t;
  const unsigned a = t.add_node(node_kind::sw, "A", 1), b = t.add_node(node_kind::sw, "B", 1), c = t.add_node(node_kind::sw, "C", 1);
  const unsigned ab = t.connect(a, b, 1, 1, "A-B#0"), bc = t.connect(b, c, 1, 1, "B-C#0"), ca = t.connect(c, a, 1, 1, "C-A#0");
  dependency_graph g(t);
  g.add_path({{a, b, c}, {ab, bc}});
  g.add_path({{b, c, a}, {bc, ca}});
  EXPECT_TRUE(g.find_cycle().empty());   // two of the three: a chain, no cycle
  g.add_path({{c, a, b}, {ca, ab}});
  const auto cycle = g.find_cycle();
  ASSERT_EQ(cycle.size(), 3u);
  const std::string s = g.describe(cycle);
  for (const char* hop : {"A->B (A-B#0)", "B->C (B-C#0)", "C->A (C-A#0)"}) EXPECT_NE(s.find(hop), std::string::npos) << s;
}

TEST(CbdCheck, ClockwiseRingHasACycleFromItsTables) {
  // Three switches in a ring, one host each; every switch sends everything clockwise.
  topology t;
  std::vector<unsigned> sw;
  for (int i = 0; i < 3; ++i) sw.push_back(t.add_node(node_kind::sw, "s" + std::to_string(i), 1));
  for (int i = 0; i < 3; ++i) t.connect(t.add_node(node_kind::host, "h" + std::to_string(i), 0), sw[i], 1, 1, "h-s");
  std::vector<unsigned> cw_port(3);
  for (unsigned i = 0; i < 3; ++i) {
    const unsigned li = t.connect(sw[i], sw[(i + 1) % 3], 1, 1, "ring");
    cw_port[i] = t.links[li].port_on(sw[i]);
  }
  const auto clockwise = [&](unsigned s, unsigned, unsigned dst, std::vector<unsigned>& ports) {
    ports.push_back(t.host_switch(dst) == t.switches[s] ? 0 : cw_port[s]);
  };
  const dependency_graph g = dependencies_of(t, clockwise);
  EXPECT_EQ(g.find_cycle().size(), 3u);
  // The control: shortest paths on the same ring go at most one hop, so nothing depends on anything.
  EXPECT_TRUE(dependencies_of(t, shortest_next_hops(t)).find_cycle().empty());
}

TEST(CbdCheck, UpDownPathsAreFreeShortestPathsAreNot) {
  unsigned ecmp_cycles = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    const topology t = build_flattened_clos(fc(32, 8, 1, {}, seed));
    dependency_graph fc_deps(t);
    for (const pair_paths& pp : updown_paths(t))
      for (const route_path& p : pp.paths) fc_deps.add_path(p);
    EXPECT_TRUE(fc_deps.find_cycle().empty()) << "seed " << seed << ": " << fc_deps.describe(fc_deps.find_cycle());
    EXPECT_GT(fc_deps.arcs(), 0u);
    // The control, on the same expander: shortest-path ECMP closes a cycle (§2.3, Fig. 3).
    const auto cycle = dependencies_of(t, shortest_next_hops(t)).find_cycle();
    ecmp_cycles += !cycle.empty();
  }
  EXPECT_EQ(ecmp_cycles, 10u);
}

TEST(CbdCheck, FatTreeShortestPathsAreUpDownAndFree) {
  fat_tree_spec s;
  s.k = 4;
  s.host_rate_bps = s.uplink_rate_bps = 1;
  const topology t = build_fat_tree(s);
  const dependency_graph g = dependencies_of(t, shortest_next_hops(t));
  EXPECT_GT(g.arcs(), 0u);
  EXPECT_TRUE(g.find_cycle().empty());
}

// The installed form (route tables with ingress classes): every walk a frame can take through
// the tables, over every member of every group, reaches its host in at most 2k switch-to-switch
// hops and turns only as up-down paths do; the tables' dependency graph has no cycle.
TEST(UpDownRouting, InstalledTablesOnlyAllowUpDownWalks) {
  const topology t = build_flattened_clos(fc(16, 8, 2, {2, 4, 2}, 5));
  const auto pairs = updown_paths(t);
  const route_plan plan = plan_updown_routes(t, pairs);
  ASSERT_EQ(plan.classes, 7u);
  std::set<std::pair<unsigned, unsigned>> unrouted;   // k = 3 is below Eq. 4's k_min = 4 here
  for (const pair_paths& pp : pairs)
    if (pp.paths.empty()) unrouted.insert({pp.src, pp.dst});
  unsigned walks = 0;
  for (unsigned src = 0; src < t.switches.size(); ++src)
    for (unsigned d = 0; d < t.hosts.size(); ++d) {
      if (t.host_switch(d) == t.switches[src]) continue;
      // Depth-first over every member: (path so far, ingress port at its last switch).
      std::vector<std::pair<route_path, unsigned>> todo{{route_path{{t.switches[src]}, {}}, 0u}};
      const unsigned host_port = t.links[t.nodes[t.hosts[d]].port_link[0]].port_on(t.host_switch(d));
      while (!todo.empty()) {
        auto [p, in_port] = todo.back();
        todo.pop_back();
        const unsigned node = p.nodes.back(), sw = node;   // ToRs come first: node = switch index
        const auto& r = plan.per_switch[sw];
        const unsigned cls = p.links.empty() ? 0 : r.port_class[in_port];
        const uint32_t e = plan.entry(sw, d, cls);
        if (p.links.empty() && unrouted.count({node, t.host_switch(d)})) {   // no path: no entry at the source
          EXPECT_EQ(e & 0xFFFF, 0u);
          continue;
        }
        ASSERT_NE(e & 0xFFFF, 0u) << "a walk meets no route at " << t.nodes[node].name;
        for (uint32_t i = 0; i < (e & 0xFFFF); ++i) {
          const unsigned port = r.members[(e >> 16) + i];
          if (node == t.host_switch(d)) {
            EXPECT_EQ(port, host_port);
            ++walks;
            continue;
          }
          const unsigned li = t.nodes[node].port_link[port], next = t.links[li].other(node);
          route_path q = p;
          q.links.push_back(li);
          q.nodes.push_back(next);
          ASSERT_TRUE(is_updown(t, q)) << "a down-up turn at " << t.nodes[node].name;
          ASSERT_LE(q.links.size(), 2u * 3u);
          todo.push_back({q, t.links[li].port_on(next)});
        }
      }
    }
  EXPECT_GE(walks, (16u * 15u - unrouted.size()) * 2u);
  EXPECT_TRUE(plan_dependencies(t, plan).find_cycle().empty());
}
