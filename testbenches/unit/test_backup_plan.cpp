// Sundial backup plan (Li et al., OSDI 2020, §3.4.2.1 as numbered in chapter 3 of Li's thesis).
// The search's plans are checked three ways: by check_properties (the five properties from their
// definitions), by a failure simulation written from the paper's recovery story alone (every node
// cut off from the root turns to its backup parent; on a root failure the backup root elects
// itself), which must reconnect every survivor within depth_backup hops, and on tiny graphs by
// exhaustive enumeration of every plan. The checker is tested on planted violations of each
// property. Random fat-trees (k = 4, 6, 8, a pod per failure domain) go through 50 successive
// random failures with a replan after each. The controller's reaction is checked case by case.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "clock/backup_plan.h"
#include "testbenches/unit/sync_fat_tree.h"
#include "common/rng.h"

using namespace netasic;

namespace {

constexpr uint32_t none = backup_plan::none;


// ---- failure simulation, from the paper's recovery description ---------------------------------

struct failure_set {
  std::vector<char> node_down;
  std::vector<char> edge_down;
};

// The links between each pair of nodes, for quick liveness tests.
struct pair_links {
  uint32_t n;
  std::vector<std::vector<uint32_t>> at;   // n * n
  explicit pair_links(const sync_graph& g) : n(g.nodes()), at(size_t(n) * n) {
    for (uint32_t i = 0; i < g.edges.size(); ++i) {
      at[size_t(g.edges[i].a) * n + g.edges[i].b].push_back(i);
      at[size_t(g.edges[i].b) * n + g.edges[i].a].push_back(i);
    }
  }
};

bool link_up(const sync_graph& g, const pair_links& pl, const failure_set& f, uint32_t a, uint32_t b) {
  if (g.failed[a] || g.failed[b] || f.node_down[a] || f.node_down[b]) return false;
  for (uint32_t i : pl.at[size_t(a) * pl.n + b])
    if (!g.edges[i].failed && !f.edge_down[i]) return true;
  return false;
}

// Applies the failures to a plan: nodes cut off turn to their backup parent (all at once, as
// their timeouts fire together), until nothing changes; a dead root is replaced by the backup
// root. Every surviving member must end connected, switched nodes within depth_backup hops and
// the others at their primary depth. Returns "" or what went wrong.
std::string simulate(const backup_plan& plan, const sync_graph& g, const pair_links& pl, const failure_set& f) {
  const uint32_t n = g.nodes();
  auto alive = [&](uint32_t u) { return !g.failed[u] && !f.node_down[u]; };
  std::vector<uint32_t> par(n, none);
  std::vector<char> switched(n, 0);
  for (uint32_t u = 0; u < n; ++u)
    if (plan.member(u) && u != plan.root) par[u] = plan.parent[u];
  uint32_t root = plan.root;
  auto hops = [&](uint32_t u) -> uint32_t {   // none when cut off
    uint32_t d = 0;
    for (uint32_t w = u; w != root; w = par[w], ++d) {
      if (w == none || par[w] == none || d > n || !link_up(g, pl, f, w, par[w])) return none;
    }
    return alive(root) ? d : none;
  };
  for (int round = 0; round < 2 * int(n) + 2; ++round) {
    std::vector<uint32_t> turn;
    for (uint32_t u = 0; u < n; ++u)
      if (plan.member(u) && alive(u) && u != root && !switched[u] && hops(u) == none) turn.push_back(u);
    if (turn.empty()) {
      if (!alive(root) && root == plan.root) {
        if (!alive(plan.backup_root)) return "root and backup root both down";
        root = plan.backup_root;   // second timeout: it elects itself
        par[root] = none;
        continue;
      }
      break;
    }
    for (uint32_t u : turn) {
      switched[u] = 1;
      par[u] = plan.backup_parent[u];
    }
  }
  for (uint32_t u = 0; u < n; ++u) {
    if (!plan.member(u) || !alive(u)) continue;
    const uint32_t d = hops(u);
    if (d == none) return "node " + std::to_string(u) + " stays cut off";
    if (u == root) continue;
    if (switched[u] && d > plan.depth_backup[u])
      return "node " + std::to_string(u) + " at depth " + std::to_string(d) + " > depth_backup " + std::to_string(plan.depth_backup[u]);
    if (!switched[u] && d != plan.depth_primary[u]) return "unswitched node " + std::to_string(u) + " moved";
  }
  return "";
}

// Every single failure the plan claims to survive: each link, each non-root device, each domain,
// the root.
void expect_survives_single_failures(const backup_plan& plan, const sync_graph& g, const std::string& where) {
  const uint32_t n = g.nodes();
  const pair_links pl(g);
  auto fresh = [&] { return failure_set{std::vector<char>(n, 0), std::vector<char>(g.edges.size(), 0)}; };
  for (size_t i = 0; i < g.edges.size(); ++i) {
    if (g.edges[i].failed) continue;
    failure_set f = fresh();
    f.edge_down[i] = 1;
    const std::string r = simulate(plan, g, pl, f);
    ASSERT_EQ(r, "") << where << ": link " << i;
  }
  std::vector<uint32_t> doms;
  for (uint32_t u = 0; u < n; ++u) {
    if (!plan.member(u)) continue;
    doms.push_back(g.domain[u]);
    failure_set f = fresh();
    f.node_down[u] = 1;   // u == root: the root failure
    const std::string r = simulate(plan, g, pl, f);
    ASSERT_EQ(r, "") << where << ": device " << u;
  }
  std::sort(doms.begin(), doms.end());
  doms.erase(std::unique(doms.begin(), doms.end()), doms.end());
  for (uint32_t d : doms) {
    failure_set f = fresh();
    for (uint32_t u = 0; u < n; ++u) f.node_down[u] = g.domain[u] == d;
    if (f.node_down[plan.root] && f.node_down[plan.backup_root]) continue;   // (5) excludes this
    const std::string r = simulate(plan, g, pl, f);
    ASSERT_EQ(r, "") << where << ": domain " << d;
  }
}

// Live nodes reachable from `from` without the nodes in `gone`.
uint32_t reach(const sync_graph& g, uint32_t from, const std::vector<char>& gone) {
  std::vector<char> seen(g.nodes(), 0);
  std::vector<uint32_t> q{from};
  seen[from] = 1;
  for (size_t h = 0; h < q.size(); ++h)
    for (const sync_edge& e : g.edges) {
      if (e.failed) continue;
      for (auto [x, y] : {std::pair{e.a, e.b}, std::pair{e.b, e.a}})
        if (x == q[h] && !seen[y] && g.live(y) && !gone[y]) {
          seen[y] = 1;
          q.push_back(y);
        }
    }
  return uint32_t(q.size());
}

// A no_plan reason naming a cut vertex or a cutting domain is re-derived from the graph.
void expect_reason_holds(const backup_plan& p, const sync_graph& g) {
  std::vector<char> gone(g.nodes(), 0);
  const uint32_t all = reach(g, p.root, gone);
  EXPECT_EQ(all, p.members);
  if (p.reason.rfind("node ", 0) == 0 && p.reason.find("cut vertex") != std::string::npos) {
    const uint32_t v = uint32_t(std::stoul(p.reason.substr(5)));
    gone[v] = 1;
    uint32_t from = p.root;
    if (v == p.root)
      for (uint32_t u = 0; u < g.nodes(); ++u)
        if (p.member(u) && u != v) {
          from = u;
          break;
        }
    EXPECT_LT(reach(g, from, gone), all - 1) << p.reason;
  } else if (p.reason.rfind("failure domain ", 0) == 0) {
    const uint32_t d = uint32_t(std::stoul(p.reason.substr(15)));
    uint32_t in_d = 0, from = p.root;
    for (uint32_t u = 0; u < g.nodes(); ++u)
      if (p.member(u) && g.domain[u] == d) {
        gone[u] = 1;
        ++in_d;
      }
    if (gone[p.root])
      for (uint32_t u = 0; u < g.nodes(); ++u)
        if (p.member(u) && !gone[u]) {
          from = u;
          break;
        }
    EXPECT_LT(reach(g, from, gone), all - in_d) << p.reason;
  } else {
    EXPECT_NE(p.reason.find("fewer than 3"), std::string::npos) << p.reason;
    EXPECT_LT(p.members, 3u);
  }
}

void expect_plan_equal(const backup_plan& a, const backup_plan& b) {
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.root, b.root);
  EXPECT_EQ(a.backup_root, b.backup_root);
  EXPECT_EQ(a.parent, b.parent);
  EXPECT_EQ(a.backup_parent, b.backup_parent);
  EXPECT_EQ(a.depth_backup, b.depth_backup);
}

bool has(const std::vector<property_check>& all, plan_property p, uint32_t node) {
  for (const auto& c : all)
    if (c.property == p && c.node == node) return true;
  return false;
}

}  // namespace

// ---- fat-trees ----------------------------------------------------------------------------------

TEST(BackupPlan, FatTreesMeetAllPropertiesAndSurviveEverySingleFailure) {
  for (unsigned k : {4u, 6u, 8u}) {
    const sync_graph g = fat_tree(k);
    const backup_plan p = compute_backup_plan(g, 0);
    ASSERT_EQ(p.status, plan_status::ok) << "k=" << k << " " << p.reason;
    EXPECT_EQ(p.members, g.nodes());
    EXPECT_EQ(p.score, g.nodes() - 1);
    const property_check c = check_properties(p, g);
    EXPECT_TRUE(c.ok()) << plan_property_name(c.property) << " at " << c.node << ": " << c.detail;
    // The loop has the backup root, closes, and every member has depths.
    ASSERT_FALSE(p.loop.empty());
    EXPECT_EQ(p.loop.front(), p.backup_root);
    EXPECT_EQ(p.backup_parent[p.loop.back()], p.backup_root);
    for (uint32_t u = 0; u < g.nodes(); ++u) {
      ASSERT_NE(p.depth_primary[u], none);
      if (u != p.root) {
        ASSERT_NE(p.depth_backup[u], none);
        EXPECT_LE(p.depth_backup[u], p.max_depth_backup);
        EXPECT_EQ(p.eps_base_backup_ps(u), 5'000u * p.depth_backup[u]);
      }
    }
    expect_survives_single_failures(p, g, "k=" + std::to_string(k));
    // Deterministic.
    expect_plan_equal(p, compute_backup_plan(g, 0));
  }
}

// eps_base is 5 ns x depth, so the plan should be shallow. A BFS tree from core0 is 4 switch hops
// deep (core0 -> agg0 of a pod -> edge -> agg1 -> a core of another group), but no tree under 6
// has a plan. The backup root is a child of the root, an agg0; from the agg0s and core0's group
// of cores, the only links down are agg0_p - edge of pod p, and such a link is usable (2) only if
// agg0_p is not the edge's primary ancestor. An edge's only other neighbours are the pod's other
// aggs, reached from the other groups' cores, which hang below some pod's agg: the shortest such
// path is core0 -> agg0_q -> edge -> agg_q -> core -> agg_p -> edge_p, 6 hops. Without that edge
// (3) fails for every edge switch. The same chain bounds depth_backup from below: the edge at 6,
// then its pod's agg (7), a core (8), another pod's agg (9) and its edges (10).
// So the plan must have primary depth 6, depth sum that of the BFS tree + 2 + 4 (one agg two
// levels down, one edge four), and max depth_backup 10; the search alone gives 7 and 11 at k = 6, 8.
TEST(BackupPlan, FatTreePlansAreAsShallowAsTheyCanBe) {
  for (unsigned k : {4u, 6u, 8u}) {
    const sync_graph g = fat_tree(k);
    std::vector<uint32_t> dist(g.nodes(), none);
    std::vector<uint32_t> q{0};
    dist[0] = 0;
    for (size_t h = 0; h < q.size(); ++h)
      for (const sync_edge& e : g.edges)
        for (auto [x, y] : {std::pair{e.a, e.b}, std::pair{e.b, e.a}})
          if (x == q[h] && dist[y] == none) {
            dist[y] = dist[x] + 1;
            q.push_back(y);
          }
    const uint32_t bfs_depth = *std::max_element(dist.begin(), dist.end());
    EXPECT_EQ(bfs_depth, 4u) << "k=" << k;
    const backup_plan p = compute_backup_plan(g, 0);
    ASSERT_TRUE(p.ok()) << "k=" << k << " " << p.reason;
    EXPECT_TRUE(check_properties(p, g).ok());
    const uint32_t depth = *std::max_element(p.depth_primary.begin(), p.depth_primary.end());
    EXPECT_EQ(depth, 6u) << "k=" << k;
    uint64_t sum = 0, bfs_sum = 0;
    unsigned deeper = 0;
    for (uint32_t u = 0; u < g.nodes(); ++u) {
      sum += p.depth_primary[u];
      bfs_sum += dist[u];
      if (p.depth_primary[u] != dist[u]) ++deeper;
    }
    EXPECT_EQ(sum, bfs_sum + 6) << "k=" << k;
    EXPECT_EQ(deeper, 2u) << "k=" << k;
    EXPECT_EQ(p.max_depth_backup, 10u) << "k=" << k;
    std::printf("k=%u: primary depth %u (BFS %u), %u nodes below their BFS depth, max depth_backup %u, cap %u, "
                "%u hill-climb moves\n",
                k, depth, bfs_depth, deeper, p.max_depth_backup, p.depth_cap, p.shallow_moves);
    expect_survives_single_failures(p, g, "shallow k=" + std::to_string(k));
    // Without prefer_shallow (the paper's search alone), k = 6 and 8 come out a level deeper.
    backup_plan_options raw;
    raw.prefer_shallow = false;
    const backup_plan r = compute_backup_plan(g, 0, raw);
    ASSERT_TRUE(r.ok());
    const uint32_t raw_depth = *std::max_element(r.depth_primary.begin(), r.depth_primary.end());
    EXPECT_GE(raw_depth, depth);
    EXPECT_GE(r.max_depth_backup, p.max_depth_backup);
    std::printf("k=%u, search alone: primary depth %u, max depth_backup %u\n", k, raw_depth, r.max_depth_backup);
  }
}

TEST(BackupPlan, DepthBackupFollowsTheRecurrence) {
  const sync_graph g = fat_tree(6);
  const backup_plan p = compute_backup_plan(g, 0);
  ASSERT_TRUE(p.ok());
  std::vector<char> on_loop(g.nodes(), 0);
  for (uint32_t u : p.loop) on_loop[u] = 1;
  const size_t L = p.loop.size();
  for (uint32_t s = 0; s < g.nodes(); ++s) {
    if (s == p.root) continue;
    const uint32_t b = p.backup_parent[s];
    if (!on_loop[s]) {
      EXPECT_EQ(p.depth_backup[s], 1 + std::max(p.depth_primary[b], p.depth_backup[b])) << s;
    } else {
      // The L + 1 paths of Fig. 3.13, written out by walking the loop.
      const size_t i = size_t(std::find(p.loop.begin(), p.loop.end(), s) - p.loop.begin());
      uint32_t want = p.depth_primary[s];
      uint32_t w = s;
      for (uint32_t j = 1; j < L; ++j) {
        w = p.backup_parent[w];
        want = std::max(want, j + p.depth_primary[w]);
      }
      want = std::max<uint32_t>(want, i == 0 ? 0 : uint32_t(L - i));
      EXPECT_EQ(p.depth_backup[s], want) << s;
    }
  }
}

TEST(BackupPlan, FiftySuccessiveRandomFailures) {
  for (unsigned k : {4u, 6u, 8u}) {
    rng r(1000 + k);
    sync_graph g = fat_tree(k);
    backup_plan p = compute_backup_plan(g, 0);
    ASSERT_TRUE(p.ok());
    unsigned planned = 0, cut = 0;
    for (int step = 0; step < 50; ++step) {
      // The paper's mix (§3.6.1.3): 24 link, 23 device, 2 domain, 1 root failures in 50.
      const uint64_t roll = r.below(50);
      sync_failure f{sync_failure::kind::link, 0};
      std::vector<uint32_t> live_edges, live_nodes;
      for (uint32_t i = 0; i < g.edges.size(); ++i)
        if (!g.edges[i].failed && g.live(g.edges[i].a) && g.live(g.edges[i].b)) live_edges.push_back(i);
      for (uint32_t u = 0; u < g.nodes(); ++u)
        if (g.live(u) && u != p.root) live_nodes.push_back(u);
      if (roll < 1 || live_nodes.empty()) {
        f.what = sync_failure::kind::root;
      } else if (roll < 3) {
        f = {sync_failure::kind::domain, uint32_t(r.below(k))};   // a pod
      } else if (roll < 26 || live_edges.empty()) {
        f = {sync_failure::kind::device, live_nodes[r.below(live_nodes.size())]};
      } else {
        f = {sync_failure::kind::link, live_edges[r.below(live_edges.size())]};
      }
      sync_graph g2 = g;
      const backup_plan before = p;
      p = replan_after_failure(g, before, f, {});
      expect_plan_equal(p, replan_after_failure(g2, before, f, {}));   // deterministic
      if (p.status == plan_status::bad_root) break;   // everything is down
      ASSERT_TRUE(g.live(p.root));
      if (p.ok()) {
        ++planned;
        const property_check c = check_properties(p, g);
        ASSERT_TRUE(c.ok()) << "k=" << k << " step " << step << ": " << plan_property_name(c.property) << " at " << c.node;
        expect_survives_single_failures(p, g, "k=" + std::to_string(k) + " step " + std::to_string(step));
        if (HasFatalFailure()) return;
      } else {
        ++cut;
        expect_reason_holds(p, g);
        // Even without a backup plan the primary tree spans the root's component.
        for (uint32_t u = 0; u < g.nodes(); ++u)
          if (g.live(u) && std::find(p.unreachable.begin(), p.unreachable.end(), u) == p.unreachable.end()) {
            EXPECT_TRUE(p.member(u)) << u;
          }
      }
    }
    // k = 8 has enough redundancy to keep a plan through many failures.
    if (k == 8) {
      EXPECT_GE(planned, 10u) << "plans " << planned << ", none " << cut;
    }
    std::printf("k=%u: %u of 50 failures left a plan\n", k, planned);
    EXPECT_GE(planned, 1u) << "k=" << k;
  }
}

TEST(BackupPlan, ReplanIsDeterministicAndMovesTheRootToTheBackupRoot) {
  sync_graph g = fat_tree(6);
  const backup_plan p = compute_backup_plan(g, 0);
  ASSERT_TRUE(p.ok());
  sync_graph g1 = g, g2 = g;
  const backup_plan a = replan_after_failure(g1, p, {sync_failure::kind::root, 0});
  const backup_plan b = replan_after_failure(g2, p, {sync_failure::kind::root, 0});
  expect_plan_equal(a, b);
  EXPECT_EQ(a.root, p.backup_root);
  EXPECT_TRUE(g1.failed[p.root]);
  ASSERT_TRUE(a.ok()) << a.reason;
  EXPECT_TRUE(check_properties(a, g1).ok());
  // A link failure keeps the root and marks the link.
  sync_graph g3 = g;
  const backup_plan c = replan_after_failure(g3, p, {sync_failure::kind::link, 5});
  EXPECT_EQ(c.root, p.root);
  EXPECT_TRUE(g3.edges[5].failed);
  // A domain failure takes its nodes down.
  sync_graph g4 = g;
  replan_after_failure(g4, p, {sync_failure::kind::domain, 2});
  for (uint32_t u = 0; u < g4.nodes(); ++u) EXPECT_EQ(bool(g4.failed[u]), g4.domain[u] == 2u);
  EXPECT_THROW(replan_after_failure(g4, p, {sync_failure::kind::link, 9999}), std::invalid_argument);
}

// The controller's reaction, case by case. Only the old plan's root (2) and backup root (4) enter
// it; on a complete graph of six nodes every root can be planned.
TEST(BackupPlan, TheReactionKeepsALiveRootElseTheElectedElseTheBackupRootElseTheFirstLive) {
  auto complete = [] {
    sync_graph g;
    for (uint32_t u = 0; u < 6; ++u) g.add_node(u);
    for (uint32_t a = 0; a < 6; ++a)
      for (uint32_t b = a + 1; b < 6; ++b) g.add_edge(a, b);
    return g;
  };
  backup_plan old;
  old.root = 2;
  old.backup_root = 4;
  using R = node_report;
  {   // A link fails: the live root stays, whatever another node reports.
    sync_graph g = complete();
    const controller_reaction r =
        sundial_reaction(g, old, {0}, {}, {R::running, R::running, R::running, R::running, R::running, R::elected});
    EXPECT_EQ(r.root, 2u);
    EXPECT_FALSE(r.election);
    EXPECT_TRUE(g.edges[0].failed);
    EXPECT_EQ(r.plan.root, 2u);
    EXPECT_TRUE(r.plan.ok()) << r.plan.reason;
  }
  {   // The root fails: the lowest live node that elected itself (1 elected itself but is down too).
    sync_graph g = complete();
    const controller_reaction r =
        sundial_reaction(g, old, {}, {2, 1}, {R::running, R::elected, R::running, R::elected, R::running, R::elected});
    EXPECT_EQ(r.root, 3u);
    EXPECT_TRUE(r.election);
    EXPECT_TRUE(g.failed[1] && g.failed[2]);
  }
  {   // No election reported: the backup root.
    sync_graph g = complete();
    const controller_reaction r = sundial_reaction(g, old, {}, {2}, {});
    EXPECT_EQ(r.root, 4u);
    EXPECT_FALSE(r.election);
  }
  {   // The backup root is down too, and node 0 evicted itself: the first live node, 1.
    sync_graph g = complete();
    const controller_reaction r = sundial_reaction(g, old, {}, {2, 4}, {R::evicted});
    EXPECT_EQ(r.root, 1u);
    EXPECT_EQ(r.evictions, 1u);
    EXPECT_TRUE(g.failed[0]);
  }
  {   // A node that is down and reports evicted is not counted again.
    sync_graph g = complete();
    const controller_reaction r = sundial_reaction(g, old, {}, {3}, {R::running, R::running, R::running, R::evicted});
    EXPECT_EQ(r.root, 2u);
    EXPECT_EQ(r.evictions, 0u);
  }
  {   // Everything is down: no root, nothing planned.
    sync_graph g = complete();
    const controller_reaction r = sundial_reaction(g, old, {}, {0, 1, 2, 3, 4, 5}, {});
    EXPECT_EQ(r.root, backup_plan::none);
    EXPECT_EQ(r.plan.status, plan_status::bad_root);
  }
}

// ---- the checker catches planted violations ------------------------------------------------------

class BackupPlanPlanted : public ::testing::Test {
 protected:
  void SetUp() override {
    g = fat_tree(4);
    p = compute_backup_plan(g, 0);
    ASSERT_TRUE(p.ok());
    ASSERT_TRUE(check_properties(p, g).ok());
  }
  bool on_loop(uint32_t u) const { return std::find(p.loop.begin(), p.loop.end(), u) != p.loop.end(); }
  bool has_backup_children(uint32_t u) const {
    for (uint32_t w = 0; w < g.nodes(); ++w)
      if (w != p.root && p.backup_parent[w] == u) return true;
    return false;
  }
  uint32_t root_child(uint32_t u) const {
    while (p.parent[u] != p.root) u = p.parent[u];
    return u;
  }
  sync_graph g;
  backup_plan p;
};

TEST_F(BackupPlanPlanted, NoLoop) {
  // Two linked nodes in one root child's subtree back each other up.
  uint32_t a = none, b = none;
  for (const sync_edge& e : g.edges)
    if (e.a != p.root && e.b != p.root && root_child(e.a) == root_child(e.b)) {
      a = e.a;
      b = e.b;
      break;
    }
  ASSERT_NE(a, none);
  p.backup_parent[a] = b;
  p.backup_parent[b] = a;
  const property_check c = check_properties(p, g);
  EXPECT_EQ(c.property, plan_property::no_loop) << c.detail;
  EXPECT_EQ(c.node, std::min(a, b));
}

TEST_F(BackupPlanPlanted, NoAncestor) {
  // A backup-graph leaf off the loop points at its own primary parent.
  uint32_t v = none;
  for (uint32_t u = 0; u < g.nodes() && v == none; ++u)
    if (u != p.root && !on_loop(u) && !has_backup_children(u)) v = u;
  ASSERT_NE(v, none);
  p.backup_parent[v] = p.parent[v];
  const property_check c = check_properties(p, g);
  EXPECT_EQ(c.property, plan_property::no_ancestor) << c.detail;
  EXPECT_EQ(c.node, v);
  // Pointing at the root (an ancestor of all) is caught too, on a neighbour of the root.
  backup_plan q = compute_backup_plan(g, 0);
  uint32_t w = none;
  for (uint32_t u = 0; u < g.nodes() && w == none; ++u)
    if (u != q.root && q.parent[u] != q.root && !on_loop(u) && !has_backup_children(u)) {
      for (const sync_edge& e : g.edges)
        if ((e.a == u && e.b == q.root) || (e.b == u && e.a == q.root)) w = u;
    }
  if (w != none) {
    q.backup_parent[w] = q.root;
    EXPECT_TRUE(has(check_all_properties(q, g), plan_property::no_ancestor, w));
  }
}

TEST_F(BackupPlanPlanted, Reachability) {
  // Another child of the root, off the loop, named backup root: the loop is out of its reach.
  uint32_t c2 = none;
  for (uint32_t u = 0; u < g.nodes() && c2 == none; ++u)
    if (p.parent[u] == p.root && !on_loop(u)) c2 = u;
  ASSERT_NE(c2, none);
  p.backup_root = c2;
  const property_check c = check_properties(p, g);
  EXPECT_EQ(c.property, plan_property::reachability) << c.detail;
  EXPECT_TRUE(has(check_all_properties(p, g), plan_property::reachability, p.loop.front()));
}

TEST_F(BackupPlanPlanted, DisjointFailureDomain) {
  // Move a backup parent into the domain of a node on the primary path (the root's here).
  uint32_t s = none;
  for (uint32_t u = 0; u < g.nodes() && s == none; ++u)
    if (u != p.root && g.domain[p.backup_parent[u]] != g.domain[u] && p.backup_parent[u] != p.backup_root) s = u;
  ASSERT_NE(s, none);
  g.domain[p.backup_parent[s]] = g.domain[p.root];
  const property_check c = check_properties(p, g);
  EXPECT_EQ(c.property, plan_property::disjoint_domain) << c.detail;
  EXPECT_TRUE(has(check_all_properties(p, g), plan_property::disjoint_domain, s));
}

TEST_F(BackupPlanPlanted, RootFailureDetection) {
  // (a) A loop node that is not a child of the root named backup root: all else still holds.
  uint32_t other = none;
  for (uint32_t u : p.loop)
    if (p.parent[u] != p.root) other = u;
  ASSERT_NE(other, none) << "the k=4 loop has a node below depth 1";
  backup_plan a = p;
  a.backup_root = other;
  property_check c = check_properties(a, g);
  EXPECT_EQ(c.property, plan_property::root_failure_detection) << c.detail;
  EXPECT_EQ(c.node, other);
  // (b) The backup root in the root's failure domain (only the root's domain changes size).
  sync_graph g2 = g;
  g2.domain[p.root] = g2.domain[p.backup_root];
  bool clean = true;   // no node may now have its backup parent in that domain off its own
  for (uint32_t u = 0; u < g.nodes(); ++u)
    if (u != p.root && g2.domain[p.backup_parent[u]] == g2.domain[p.root] && g2.domain[u] != g2.domain[p.root]) clean = false;
  if (clean) {
    c = check_properties(p, g2);
    EXPECT_EQ(c.property, plan_property::root_failure_detection) << c.detail;
  }
  EXPECT_TRUE(has(check_all_properties(p, g2), plan_property::root_failure_detection, p.backup_root));
}

TEST_F(BackupPlanPlanted, Structure) {
  backup_plan a = p;
  // A backup parent that is not a neighbour.
  uint32_t v = 1, far = none;
  for (uint32_t u = 0; u < g.nodes() && far == none; ++u) {
    bool linked = u == v;
    for (const sync_edge& e : g.edges) linked = linked || (e.a == u && e.b == v) || (e.b == u && e.a == v);
    if (!linked) far = u;
  }
  a.backup_parent[v] = far;
  EXPECT_EQ(check_properties(a, g).property, plan_property::structure);
  // A failed link under a primary edge.
  sync_graph g2 = g;
  for (sync_edge& e : g2.edges)
    if ((e.a == 1 && e.b == p.parent[1]) || (e.b == 1 && e.a == p.parent[1])) e.failed = true;
  const property_check c = check_properties(p, g2);
  EXPECT_EQ(c.property, plan_property::structure);
  EXPECT_EQ(c.node, 1u);
  // The root as backup root.
  backup_plan b = p;
  b.backup_root = b.root;
  EXPECT_EQ(check_properties(b, g).property, plan_property::structure);
}

// ---- small graphs: hand cases and exhaustive enumeration ----------------------------------------

TEST(BackupPlan, TriangleAndRingHavePlans) {
  sync_graph t;
  for (int i = 0; i < 3; ++i) t.add_node(uint32_t(i));
  t.add_edge(0, 1);
  t.add_edge(1, 2);
  t.add_edge(0, 2);
  const backup_plan p = compute_backup_plan(t, 0);
  ASSERT_TRUE(p.ok()) << p.reason;
  EXPECT_EQ(p.backup_parent[1], 2u);
  EXPECT_EQ(p.backup_parent[2], 1u);
  EXPECT_EQ(p.backup_root, 1u);   // lower index of the two root children
  EXPECT_EQ(p.depth_backup[1], 2u);   // 2 -> 0 after a failure of link 0-1
  // A ring of 5: root 0, the loop is a two-node loop across the two halves.
  sync_graph ring;
  for (int i = 0; i < 5; ++i) ring.add_node(uint32_t(i));
  for (uint32_t i = 0; i < 5; ++i) ring.add_edge(i, (i + 1) % 5);
  const backup_plan q = compute_backup_plan(ring, 0);
  ASSERT_TRUE(q.ok()) << q.reason;
  EXPECT_TRUE(check_properties(q, ring).ok());
  expect_survives_single_failures(q, ring, "ring");
}

TEST(BackupPlan, UnplannableGraphsGiveAReasonNotACrash) {
  // A path: the middle node is a cut vertex.
  sync_graph path;
  for (int i = 0; i < 4; ++i) path.add_node(uint32_t(i));
  for (uint32_t i = 0; i + 1 < 4; ++i) path.add_edge(i, i + 1);
  backup_plan p = compute_backup_plan(path, 0);
  EXPECT_EQ(p.status, plan_status::no_plan);
  EXPECT_NE(p.reason.find("cut vertex"), std::string::npos) << p.reason;
  EXPECT_EQ(p.parent[3], 2u);   // a primary tree is still given
  // A star (root in the middle is a cut vertex too).
  sync_graph star;
  for (int i = 0; i < 4; ++i) star.add_node(uint32_t(i));
  for (uint32_t i = 1; i < 4; ++i) star.add_edge(0, i);
  EXPECT_EQ(compute_backup_plan(star, 0).status, plan_status::no_plan);
  // Two nodes.
  sync_graph two;
  two.add_node(0);
  two.add_node(1);
  two.add_edge(0, 1);
  EXPECT_EQ(compute_backup_plan(two, 0).status, plan_status::no_plan);
  // A root that is down or not a node.
  sync_graph tri;
  for (int i = 0; i < 3; ++i) tri.add_node(uint32_t(i));
  tri.add_edge(0, 1);
  tri.add_edge(1, 2);
  tri.add_edge(0, 2);
  EXPECT_EQ(compute_backup_plan(tri, 7).status, plan_status::bad_root);
  tri.failed[0] = 1;
  EXPECT_EQ(compute_backup_plan(tri, 0).status, plan_status::bad_root);
  // A domain whose failure cuts a node off: two pods joined only through one pod's pair.
  sync_graph d;
  for (uint32_t dom : {0u, 1u, 1u, 2u}) d.add_node(dom);
  d.add_edge(0, 1);
  d.add_edge(0, 2);
  d.add_edge(1, 3);
  d.add_edge(2, 3);
  p = compute_backup_plan(d, 0);
  EXPECT_EQ(p.status, plan_status::no_plan);
  EXPECT_NE(p.reason.find("failure domain 1"), std::string::npos) << p.reason;
  // The search itself gives up: a triangle whose only other root child shares the root's
  // domain (the backup root may not), and the backup root's only loop partner is that node.
  sync_graph s;
  for (uint32_t dom : {0u, 0u, 1u}) s.add_node(dom);
  s.add_edge(0, 1);
  s.add_edge(1, 2);
  s.add_edge(0, 2);
  p = compute_backup_plan(s, 0);
  EXPECT_EQ(p.status, plan_status::no_plan);
  EXPECT_FALSE(p.reason.empty());
  // An ill-formed graph throws, naming the field.
  sync_graph bad;
  bad.add_node(0);
  bad.edges.push_back({0, 3, false});
  EXPECT_THROW(compute_backup_plan(bad, 0), std::invalid_argument);
  EXPECT_THROW(bad.add_edge(0, 0), std::invalid_argument);
}

TEST(BackupPlan, NodesCutOffAreListedAndLeftOut) {
  sync_graph g = fat_tree(4);
  const uint32_t lone = g.add_node(99);
  const uint32_t pair_a = g.add_node(98), pair_b = g.add_node(98);
  g.add_edge(pair_a, pair_b);
  const backup_plan p = compute_backup_plan(g, 0);
  ASSERT_TRUE(p.ok()) << p.reason;
  EXPECT_EQ(p.unreachable, (std::vector<uint32_t>{lone, pair_a, pair_b}));
  EXPECT_FALSE(p.member(lone));
  EXPECT_TRUE(check_properties(p, g).ok());
}

namespace {

// Every plan of a tiny graph (root 0): a primary parent, a backup parent per node, a backup root.
bool exists_by_enumeration(const sync_graph& g) {
  const uint32_t n = g.nodes();
  std::vector<std::vector<uint32_t>> adj(n);
  for (const sync_edge& e : g.edges) {
    adj[e.a].push_back(e.b);
    adj[e.b].push_back(e.a);
  }
  backup_plan p;
  p.root = 0;
  p.parent.assign(n, none);
  p.backup_parent.assign(n, none);
  std::vector<size_t> pi(n, 0), bi(n, 0);
  for (uint32_t u = 1; u < n; ++u)
    if (adj[u].empty()) return false;
  for (;;) {
    for (uint32_t u = 1; u < n; ++u) p.parent[u] = adj[u][pi[u]];
    // Only trees go on to the backup enumeration.
    bool tree = true;
    for (uint32_t u = 1; u < n && tree; ++u) {
      uint32_t w = u, steps = 0;
      while (w != 0 && steps++ <= n) w = p.parent[w];
      tree = w == 0;
    }
    if (tree) {
      std::fill(bi.begin(), bi.end(), 0);
      for (;;) {
        for (uint32_t u = 1; u < n; ++u) p.backup_parent[u] = adj[u][bi[u]];
        for (uint32_t br = 1; br < n; ++br) {
          p.backup_root = br;
          if (check_properties(p, g).ok()) return true;
        }
        uint32_t u = 1;
        while (u < n && ++bi[u] == adj[u].size()) bi[u++] = 0;
        if (u == n) break;
      }
    }
    uint32_t u = 1;
    while (u < n && ++pi[u] == adj[u].size()) pi[u++] = 0;
    if (u == n) return false;
  }
}

}  // namespace

TEST(BackupPlan, SearchAgreesWithExhaustiveEnumerationOnTinyGraphs) {
  rng r(77);
  unsigned with = 0, without = 0;
  for (int t = 0; t < 60; ++t) {
    const uint32_t n = 3 + uint32_t(r.below(3));   // 3..5 nodes
    sync_graph g;
    for (uint32_t u = 0; u < n; ++u) g.add_node(uint32_t(r.below(n)));   // random domains
    for (uint32_t a = 0; a < n; ++a)
      for (uint32_t b = a + 1; b < n; ++b)
        if (r.below(100) < 65) g.add_edge(a, b);
    bool connected = true;
    {
      std::vector<char> seen(n, 0);
      std::vector<uint32_t> q{0};
      seen[0] = 1;
      for (size_t h = 0; h < q.size(); ++h)
        for (const sync_edge& e : g.edges)
          for (auto [x, y] : {std::pair{e.a, e.b}, std::pair{e.b, e.a}})
            if (x == q[h] && !seen[y]) {
              seen[y] = 1;
              q.push_back(y);
            }
      connected = q.size() == n;
    }
    if (!connected) continue;
    const bool exists = exists_by_enumeration(g);
    const backup_plan p = compute_backup_plan(g, 0);
    EXPECT_EQ(p.ok(), exists) << "graph " << t << " (" << n << " nodes, " << g.edges.size() << " edges): " << p.reason;
    if (p.ok()) {
      EXPECT_TRUE(check_properties(p, g).ok());
      expect_survives_single_failures(p, g, "tiny " + std::to_string(t));
    }
    (exists ? with : without)++;
  }
  std::printf("tiny graphs: %u with a plan, %u without, search agrees on all\n", with, without);
  EXPECT_GT(with, 5u);
  EXPECT_GT(without, 5u);
}

TEST(BackupPlan, RandomGraphsExerciseTheSearch) {
  // Random graphs with 2-4 links per node and random domains: the BFS tree rarely works as it
  // is, so Improve and Reconnect do the work. Every plan found is checked and simulated.
  rng r(99);
  unsigned ok = 0, mutated = 0, searched_out = 0, shallowed = 0, shallower = 0;
  for (int t = 0; t < 150; ++t) {
    const uint32_t n = 8 + uint32_t(r.below(23));
    const uint32_t doms = 2 + uint32_t(r.below(n / 2));
    sync_graph g;
    for (uint32_t u = 0; u < n; ++u) g.add_node(uint32_t(r.below(doms)));
    const uint32_t m = (2 + uint32_t(r.below(2))) * n + uint32_t(r.below(n));
    for (uint32_t i = 0; i < m; ++i) {
      const uint32_t a = uint32_t(r.below(n)), b = uint32_t(r.below(n));
      if (a != b) g.add_edge(a, b);
    }
    backup_plan_options opt;
    opt.max_iterations = 300;
    const backup_plan p = compute_backup_plan(g, 0, opt);
    expect_plan_equal(p, compute_backup_plan(g, 0, opt));
    if (p.ok()) {
      ++ok;
      if (p.trees_scored > 1) ++mutated;
      if (p.shallow_moves > 0) ++shallowed;
      {
        // The shallowing (depth cap, then the hill-climb) never leaves a deeper tree than the
        // paper's search alone.
        backup_plan_options raw = opt;
        raw.prefer_shallow = false;
        const backup_plan r0 = compute_backup_plan(g, 0, raw);
        if (r0.ok()) {
          const uint32_t d = *std::max_element(p.depth_primary.begin(), p.depth_primary.end());
          const uint32_t d0 = *std::max_element(r0.depth_primary.begin(), r0.depth_primary.end());
          EXPECT_LE(d, d0) << "graph " << t;
          if (d < d0) ++shallower;
        }
      }
      const property_check c = check_properties(p, g);
      ASSERT_TRUE(c.ok()) << "graph " << t << ": " << plan_property_name(c.property) << " at " << c.node;
      expect_survives_single_failures(p, g, "random " + std::to_string(t));
      if (HasFatalFailure()) return;
    } else if (p.reason.rfind("search ended", 0) == 0) {
      ++searched_out;
      EXPECT_LT(p.score, p.members - 1);
      EXPECT_LE(p.iterations, opt.max_iterations);
    } else {
      expect_reason_holds(p, g);
    }
  }
  std::printf("random graphs: %u plans (%u after mutations, %u moved by the hill-climb, %u shallower than the search "
              "alone), %u searches ran out\n",
              ok, mutated, shallowed, shallower, searched_out);
  EXPECT_GT(ok, 60u);
  EXPECT_GT(mutated, 20u);
}
