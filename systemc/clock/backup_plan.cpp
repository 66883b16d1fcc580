#include "clock/backup_plan.h"

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <unordered_set>
#include <utility>

namespace netasic {

namespace {

constexpr uint32_t none = backup_plan::none;

// ---- the live graph around a root ---------------------------------------------------------------

struct view {
  uint32_t n = 0, root = none, members = 0;
  std::vector<std::vector<uint32_t>> adj;   // live neighbours (sorted, unique) of live nodes
  std::vector<uint32_t> dom;
  std::vector<char> member;                 // live and connected to the root
};

void check_graph(const sync_graph& g) {
  if (g.failed.size() != g.domain.size())
    throw std::invalid_argument("sync_graph: failed has " + std::to_string(g.failed.size()) + " entries, domain " +
                                std::to_string(g.domain.size()));
  for (size_t i = 0; i < g.edges.size(); ++i) {
    const sync_edge& e = g.edges[i];
    if (e.a >= g.nodes() || e.b >= g.nodes() || e.a == e.b)
      throw std::invalid_argument("sync_graph: edges[" + std::to_string(i) + "] has a bad endpoint or is a self-loop");
  }
}

view make_view(const sync_graph& g, uint32_t root) {
  view v;
  v.n = g.nodes();
  v.root = root;
  v.dom = g.domain;
  v.adj.assign(v.n, {});
  for (const sync_edge& e : g.edges) {
    if (e.failed || !g.live(e.a) || !g.live(e.b)) continue;
    v.adj[e.a].push_back(e.b);
    v.adj[e.b].push_back(e.a);
  }
  for (auto& a : v.adj) {
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
  }
  v.member.assign(v.n, 0);
  if (!g.live(root)) return v;
  std::vector<uint32_t> q{root};
  v.member[root] = 1;
  for (size_t h = 0; h < q.size(); ++h)
    for (uint32_t m : v.adj[q[h]])
      if (!v.member[m]) {
        v.member[m] = 1;
        q.push_back(m);
      }
  v.members = uint32_t(q.size());
  return v;
}

std::vector<uint32_t> bfs_tree(const view& v) {
  std::vector<uint32_t> parent(v.n, none);
  std::vector<char> seen(v.n, 0);
  std::vector<uint32_t> q{v.root};
  seen[v.root] = 1;
  for (size_t h = 0; h < q.size(); ++h)
    for (uint32_t m : v.adj[q[h]])
      if (!seen[m]) {
        seen[m] = 1;
        parent[m] = q[h];
        q.push_back(m);
      }
  return parent;
}

// ---- a primary tree with ancestor queries --------------------------------------------------------

struct ptree {
  std::vector<uint32_t> parent;
  std::vector<uint32_t> tin, tout, depth, top;   // top: the root's child above a node (root: none)
  std::vector<uint32_t> pre;                     // preorder
  std::vector<uint32_t> kid_off, kids;           // children, CSR, in index order

  // a is an ancestor of b, or b itself.
  bool anc(uint32_t a, uint32_t b) const { return tin[a] <= tin[b] && tin[b] <= tout[a]; }

  // False if parent is not a spanning tree of the members.
  bool derive(const view& v) {
    const uint32_t n = v.n;
    kid_off.assign(n + 1, 0);
    for (uint32_t u = 0; u < n; ++u)
      if (parent[u] != none) ++kid_off[parent[u] + 1];
    for (uint32_t u = 0; u < n; ++u) kid_off[u + 1] += kid_off[u];
    kids.assign(kid_off[n], 0);
    std::vector<uint32_t> fill(kid_off.begin(), kid_off.end() - 1);
    for (uint32_t u = 0; u < n; ++u)
      if (parent[u] != none) kids[fill[parent[u]]++] = u;
    tin.assign(n, none);
    tout.assign(n, none);
    depth.assign(n, none);
    top.assign(n, none);
    pre.clear();
    // Iterative DFS: (node, next child index).
    std::vector<std::pair<uint32_t, uint32_t>> st{{v.root, kid_off[v.root]}};
    tin[v.root] = 0;
    depth[v.root] = 0;
    pre.push_back(v.root);
    uint32_t clock = 0;
    while (!st.empty()) {
      auto& [u, k] = st.back();
      if (k < kid_off[u + 1]) {
        const uint32_t c = kids[k++];
        if (tin[c] != none) return false;
        tin[c] = ++clock;
        depth[c] = depth[u] + 1;
        top[c] = u == v.root ? c : top[u];
        pre.push_back(c);
        st.push_back({c, kid_off[c]});
      } else {
        tout[u] = clock;
        st.pop_back();
      }
    }
    if (pre.size() != v.members) return false;
    for (uint32_t u : pre)
      if (!v.member[u]) return false;
    return true;
  }
};

uint64_t tree_hash(const std::vector<uint32_t>& parent) {
  uint64_t h = 1469598103934665603ull;
  for (uint32_t p : parent) {
    h ^= p;
    h *= 1099511628211ull;
    h ^= h >> 29;
  }
  return h;
}

// ---- the search (Algorithms 2-5) ----------------------------------------------------------------

struct bgraph {
  uint32_t br = none;                 // backup root
  std::vector<uint32_t> bp;           // backup parent inside b (bp[br] stays none)
  std::vector<uint32_t> order;        // BFS order from br
  std::vector<char> in, outside;      // outside: the b-path from br left T(br)
  uint32_t loop_y = none;             // the closing edge <loop_y, br>
  uint32_t score = 0;                 // edges
  bool complete = false;
};

class planner {
 public:
  planner(const view& v, const backup_plan_options& o) : v_(v), opt_(o) {}

  bool dom_on_path(uint32_t d, uint32_t u, const ptree& p) const {
    for (; u != none; u = p.parent[u])
      if (v_.dom[u] == d) return true;
    return false;
  }
  bool domain_ok(uint32_t x, uint32_t y, const ptree& p) const {
    return v_.dom[x] == v_.dom[y] || !dom_on_path(v_.dom[x], p.parent[y], p);
  }
  // Algorithm 3: x may be y's backup parent under p.
  bool usable(uint32_t x, uint32_t y, const ptree& p) const {
    return y != v_.root && x != y && !p.anc(x, y) && domain_ok(x, y, p);
  }

  // Algorithm 4, for every child of the root as backup root; the largest wins (lower index on ties).
  bgraph find_largest(const ptree& p) {
    ++scored_;
    bgraph best;
    for (uint32_t k = p.kid_off[v_.root]; k < p.kid_off[v_.root + 1]; ++k) {
      const uint32_t br = p.kids[k];
      if (v_.dom[br] == v_.dom[v_.root]) continue;   // (5): one domain failure would take both
      bgraph b = bfs_for_backup(br, p);
      if (best.br == none || b.score > best.score) best = std::move(b);
      if (best.complete) break;
    }
    return best;
  }

  bgraph bfs_for_backup(uint32_t br, const ptree& p) const {
    bgraph b;
    b.br = br;
    b.bp.assign(v_.n, none);
    b.in.assign(v_.n, 0);
    b.outside.assign(v_.n, 0);
    std::vector<uint32_t> hops(v_.n, 0);
    b.order.push_back(br);
    b.in[br] = 1;
    for (size_t h = 0; h < b.order.size(); ++h) {
      const uint32_t x = b.order[h];
      for (uint32_t y : v_.adj[x]) {
        if (b.in[y] || !usable(x, y, p)) continue;
        b.in[y] = 1;
        b.bp[y] = x;
        b.outside[y] = b.outside[x] || !p.anc(br, y);
        hops[y] = hops[x] + 1;
        b.order.push_back(y);
      }
    }
    // Close the loop with the shortest usable <y, br> whose loop leaves T(br) (Algorithm 4,
    // line 3). It always does: br is an ancestor of all of T(br), so every first hop from br
    // already leaves it; the test is kept as the paper's condition.
    for (uint32_t y : v_.adj[br])
      if (y != br && b.in[y] && b.outside[y] && usable(y, br, p) && (b.loop_y == none || hops[y] < hops[b.loop_y]))
        b.loop_y = y;
    b.score = uint32_t(b.order.size() - 1) + (b.loop_y != none ? 1 : 0);
    b.complete = b.order.size() == v_.members - 1 && b.loop_y != none;
    return b;
  }

  // Edges of b still usable under p' (Improve keeps the candidates that keep the most).
  uint32_t kept(const bgraph& b, const ptree& q) const {
    uint32_t k = 0;
    if (b.br == none) return 0;
    for (size_t i = 1; i < b.order.size(); ++i)
      if (usable(b.bp[b.order[i]], b.order[i], q)) ++k;
    if (b.loop_y != none && usable(b.loop_y, b.br, q)) ++k;
    return k;
  }

  // Re-parent along w -> ... -> v (pred leads from w back to v).
  static std::vector<uint32_t> rehang(const std::vector<uint32_t>& parent, const std::vector<uint32_t>& pred,
                                      uint32_t w, uint32_t v) {
    std::vector<uint32_t> q = parent;
    for (uint32_t cur = w; cur != v;) {
      const uint32_t nx = pred[cur];
      q[nx] = cur;
      cur = nx;
    }
    return q;
  }

  // Algorithm 5's Reconnect(v, x): BFS from v inside T(x) (x excluded) to the first nodes outside
  // T(x); hanging v there makes x no longer its ancestor. The path's nodes inside T(x) are
  // re-parented along it; w's own ancestors are all outside T(x), so the result is a tree.
  void reconnect_ancestor(const ptree& p, uint32_t v, uint32_t x, std::vector<std::vector<uint32_t>>& out) const {
    std::vector<uint32_t> pred(v_.n, none);
    std::vector<char> seen(v_.n, 0);
    std::vector<uint32_t> q{v};
    seen[v] = seen[x] = 1;
    uint32_t found = 0;
    for (size_t h = 0; h < q.size() && found < opt_.max_paths; ++h)
      for (uint32_t m : v_.adj[q[h]]) {
        if (seen[m]) continue;
        seen[m] = 1;
        pred[m] = q[h];
        if (!p.anc(x, m)) {
          out.push_back(rehang(p.parent, pred, m, v));
          if (++found == opt_.max_paths) break;
        } else {
          q.push_back(m);
        }
      }
  }

  // Reconnect for the domain condition: a new primary path for y that avoids domain d. BFS from
  // y through nodes outside d, stopping at nodes outside T(y) whose own root path avoids d.
  void reconnect_domain(const ptree& p, uint32_t y, uint32_t d, std::vector<std::vector<uint32_t>>& out) const {
    if (v_.dom[v_.root] == d) return;
    std::vector<char> good(v_.n, 0);
    for (uint32_t u : p.pre) good[u] = v_.dom[u] != d && (u == v_.root || good[p.parent[u]]);
    std::vector<uint32_t> pred(v_.n, none);
    std::vector<char> seen(v_.n, 0);
    std::vector<uint32_t> q{y};
    seen[y] = 1;
    uint32_t found = 0;
    for (size_t h = 0; h < q.size() && found < opt_.max_paths; ++h)
      for (uint32_t m : v_.adj[q[h]]) {
        if (seen[m] || v_.dom[m] == d) continue;
        seen[m] = 1;
        pred[m] = q[h];
        if (good[m] && !p.anc(y, m)) {
          out.push_back(rehang(p.parent, pred, m, y));
          if (++found == opt_.max_paths) break;
        } else {
          q.push_back(m);
        }
      }
  }

  struct candidate {
    std::vector<uint32_t> parent;
    uint64_t hash;
  };
  enum class job_kind { pair, adopt };
  struct job {
    uint32_t x, y;
    job_kind kind;
  };

  // Algorithm 5's Improve: trees in which <x, y> becomes usable, keeping the most of b's edges.
  std::vector<candidate> improve(const ptree& p, const bgraph& b, uint32_t x, uint32_t y, job_kind kind) {
    std::vector<std::vector<uint32_t>> raw;
    if (kind == job_kind::adopt) {
      // No child of the root may be backup root: hang neighbour x of the root directly on it
      // (its subtree comes along; the root is nobody's descendant, so this stays a tree).
      raw.push_back(p.parent);
      raw.back()[x] = v_.root;
    } else {
      if (p.anc(x, y)) {
        std::vector<uint32_t> path;   // the nodes below x down to y
        for (uint32_t v = y; v != x; v = p.parent[v]) path.push_back(v);
        for (auto it = path.rbegin(); it != path.rend(); ++it) reconnect_ancestor(p, *it, x, raw);
      }
      if (!domain_ok(x, y, p)) reconnect_domain(p, y, v_.dom[x], raw);
    }
    std::vector<candidate> out;
    std::unordered_set<uint64_t> dup;
    uint32_t most = 0;
    ptree q;
    for (auto& t : raw) {
      const uint64_t h = tree_hash(t);
      if (!dup.insert(h).second) continue;
      q.parent = t;
      if (!q.derive(v_)) continue;   // not expected; a guard, not a path
      const uint32_t k = kept(b, q);
      if (out.empty() || k > most) {
        out.clear();
        most = k;
      } else if (k < most) {
        continue;
      }
      out.push_back({std::move(t), h});
    }
    return out;
  }

  // Algorithm 2, lines 14-15, then the loop-closing mutations.
  std::vector<job> jobs_for(const ptree& p, const bgraph& b) const {
    std::vector<job> jobs;
    if (b.br == none) {
      for (uint32_t w : v_.adj[v_.root])
        if (v_.dom[w] != v_.dom[v_.root] && p.parent[w] != v_.root) jobs.push_back({w, v_.root, job_kind::adopt});
      return jobs;
    }
    for (uint32_t x : b.order)
      for (uint32_t y : v_.adj[x])
        if (!b.in[y] && y != v_.root) jobs.push_back({x, y, job_kind::pair});
    // The mutation for property (5): make a closing edge <y, br> usable. (A usable one always
    // crosses, see bfs_for_backup.)
    if (b.loop_y == none)
      for (uint32_t y : v_.adj[b.br])
        if (y != b.br && b.in[y] && !usable(y, b.br, p)) jobs.push_back({y, b.br, job_kind::pair});
    return jobs;
  }

  struct entry {
    std::vector<uint32_t> parent;
    std::vector<job> jobs;
    size_t cursor = 0;
    bool expanded = false;
  };

  // Returns true with (best_tree, best_b) complete, or false with the best partial.
  bool search(std::vector<uint32_t> start, ptree& best_tree, bgraph& best_b) {
    std::map<std::pair<int64_t, uint64_t>, std::unique_ptr<entry>> pending;   // (-score, seq)
    std::unordered_set<uint64_t> seen;
    uint64_t seq = 0;
    uint32_t best_score = 0;
    bool have_best = false;
    ptree p;
    p.parent = std::move(start);
    if (!p.derive(v_)) return false;
    bgraph b0 = find_largest(p);
    if (b0.complete) {
      best_tree = p;
      best_b = std::move(b0);
      return true;
    }
    seen.insert(tree_hash(p.parent));
    {
      auto e = std::make_unique<entry>();
      e->parent = p.parent;
      pending.emplace(std::make_pair(-int64_t(b0.score), seq++), std::move(e));
    }
    while (!pending.empty() && iterations_ < opt_.max_iterations && scored_ < opt_.max_trees) {
      auto it = pending.begin();
      entry& e = *it->second;
      ++iterations_;
      p.parent = e.parent;
      p.derive(v_);
      const bgraph b = find_largest(p);
      if (!have_best || b.score > best_b.score) {
        best_tree = p;
        best_b = b;
        have_best = true;
      }
      best_score = std::max(best_score, b.score);
      if (!e.expanded) {
        e.jobs = jobs_for(p, b);
        e.expanded = true;
      }
      bool pruned = false;
      while (e.cursor < e.jobs.size() && !pruned) {
        if (++jobs_ > max_jobs_) return false;
        const job& j = e.jobs[e.cursor];
        for (candidate& c : improve(p, b, j.x, j.y, j.kind)) {
          if (!seen.insert(c.hash).second) continue;
          ptree q;
          q.parent = std::move(c.parent);
          if (!q.derive(v_)) continue;
          if (depth_cap_ != none && max_depth(q) > depth_cap_) continue;   // prefer_shallow: over the cap
          bgraph qb = find_largest(q);
          if (qb.complete) {
            best_tree = std::move(q);
            best_b = std::move(qb);
            return true;
          }
          const uint32_t s = qb.score;
          auto ne = std::make_unique<entry>();
          ne->parent = std::move(q.parent);
          pending.emplace(std::make_pair(-int64_t(s), seq++), std::move(ne));
          // Lines 20-21: a tree better than any so far is expanded at once; e stays pending and
          // resumes at this job (its already-seen candidates are skipped).
          if (s > best_score) {
            pruned = true;
            break;
          }
          if (scored_ >= opt_.max_trees) break;
        }
        if (!pruned) ++e.cursor;
        if (scored_ >= opt_.max_trees) break;
      }
      if (!pruned && e.cursor >= e.jobs.size()) pending.erase(it);
    }
    return false;
  }

  uint32_t iterations_ = 0;
  uint64_t scored_ = 0;
  uint32_t depth_cap_ = none;   // candidate trees deeper than this are not scored (none: no cap)
  uint64_t jobs_ = 0, max_jobs_ = UINT64_MAX;   // Improve calls; capped searches get a budget

  static uint32_t max_depth(const ptree& p) {
    uint32_t d = 0;
    for (uint32_t u : p.pre) d = std::max(d, p.depth[u]);
    return d;
  }

 private:
  const view& v_;
  backup_plan_options opt_;
};

// ---- prechecks: conditions every plan needs -----------------------------------------------------

// A member whose failure disconnects the rest: no plan can survive it (properties (1)-(3)).
uint32_t cut_vertex(const view& v) {
  std::vector<uint32_t> disc(v.n, none), low(v.n, 0), par(v.n, none);
  std::vector<char> cut(v.n, 0);
  uint32_t t = 0, root_kids = 0;
  std::vector<std::pair<uint32_t, size_t>> st{{v.root, 0}};
  disc[v.root] = low[v.root] = t++;
  while (!st.empty()) {
    auto& [u, i] = st.back();
    if (i < v.adj[u].size()) {
      const uint32_t w = v.adj[u][i++];
      if (disc[w] == none) {
        par[w] = u;
        disc[w] = low[w] = t++;
        if (u == v.root) ++root_kids;
        st.push_back({w, 0});
      } else if (w != par[u]) {
        low[u] = std::min(low[u], disc[w]);
      }
    } else {
      const uint32_t done = u;
      st.pop_back();
      if (!st.empty()) {
        const uint32_t pu = st.back().first;
        low[pu] = std::min(low[pu], low[done]);
        if (pu != v.root && low[done] >= disc[pu]) cut[pu] = 1;
      }
    }
  }
  if (root_kids > 1) cut[v.root] = 1;
  for (uint32_t u = 0; u < v.n; ++u)
    if (cut[u]) return u;
  return none;
}

// A domain whose failure cuts a surviving member off (from the root, or from the rest when the
// root's own domain fails): property (4) recovers every survivor, so no plan exists.
// One-node domains are device failures, which cut_vertex has covered.
std::pair<uint32_t, uint32_t> cutting_domain(const view& v) {
  std::vector<uint32_t> all, doms;
  for (uint32_t u = 0; u < v.n; ++u)
    if (v.member[u]) all.push_back(v.dom[u]);
  std::sort(all.begin(), all.end());
  for (size_t i = 0; i + 1 < all.size(); ++i)
    if (all[i] == all[i + 1] && (doms.empty() || doms.back() != all[i])) doms.push_back(all[i]);
  for (uint32_t d : doms) {
    uint32_t start = v.root, left = 0;
    for (uint32_t u = 0; u < v.n; ++u)
      if (v.member[u] && v.dom[u] != d) ++left;
    if (left == 0) continue;
    if (v.dom[v.root] == d)
      for (uint32_t u = 0; u < v.n; ++u)
        if (v.member[u] && v.dom[u] != d) {
          start = u;
          break;
        }
    std::vector<char> seen(v.n, 0);
    std::vector<uint32_t> q{start};
    seen[start] = 1;
    for (size_t h = 0; h < q.size(); ++h)
      for (uint32_t m : v.adj[q[h]])
        if (!seen[m] && v.dom[m] != d) {
          seen[m] = 1;
          q.push_back(m);
        }
    if (q.size() != left)
      for (uint32_t u = 0; u < v.n; ++u)
        if (v.member[u] && v.dom[u] != d && !seen[u]) return {d, u};
  }
  return {none, none};
}

void fill_depths(backup_plan& plan) {
  const uint32_t n = uint32_t(plan.parent.size());
  plan.depth_backup.assign(n, none);
  plan.loop.clear();
  plan.max_depth_backup = 0;
  // The loop from the backup root along backup parents.
  for (uint32_t u = plan.backup_root; plan.loop.size() <= plan.members;) {
    plan.loop.push_back(u);
    u = plan.backup_parent[u];
    if (u == plan.backup_root || u == none) break;
  }
  const auto& dp = plan.depth_primary;
  const size_t L = plan.loop.size();
  std::vector<char> on_loop(n, 0);
  for (uint32_t u : plan.loop) on_loop[u] = 1;
  // On the loop, L + 1 ways to the root (Fig. 3.13): primary; j hops along the loop then primary;
  // the loop to the backup root when the root is gone (never the longest: the mixed path through
  // the backup root is one hop longer, but it is the paper's list).
  for (size_t i = 0; i < L; ++i) {
    uint32_t m = dp[plan.loop[i]];
    for (size_t j = 1; j < L; ++j) m = std::max<uint32_t>(m, uint32_t(j) + dp[plan.loop[(i + j) % L]]);
    m = std::max<uint32_t>(m, uint32_t(i == 0 ? 0 : L - i));
    plan.depth_backup[plan.loop[i]] = m;
  }
  // Elsewhere top-down: s.depth_backup = 1 + max(b.depth_primary, b.depth_backup) (§3.4.2.1,
  // maximum backup depth).
  std::vector<std::vector<uint32_t>> below(n);
  for (uint32_t s = 0; s < n; ++s)
    if (plan.backup_parent[s] != none && !on_loop[s]) below[plan.backup_parent[s]].push_back(s);
  std::vector<uint32_t> q(plan.loop.begin(), plan.loop.end());
  for (size_t h = 0; h < q.size(); ++h)
    for (uint32_t s : below[q[h]]) {
      plan.depth_backup[s] = 1 + std::max(dp[q[h]], plan.depth_backup[q[h]]);
      q.push_back(s);
    }
  for (uint32_t s = 0; s < n; ++s)
    if (s != plan.root && plan.depth_backup[s] != none) plan.max_depth_backup = std::max(plan.max_depth_backup, plan.depth_backup[s]);
}

void fill_tree(backup_plan& plan, const view& v, const std::vector<uint32_t>& parent) {
  plan.parent = parent;
  plan.depth_primary.assign(v.n, none);
  plan.depth_primary[v.root] = 0;
  // Parents may come after children in index order: resolve by walking up (trees are shallow).
  for (uint32_t u = 0; u < v.n; ++u) {
    if (!v.member[u] || plan.depth_primary[u] != none) continue;
    std::vector<uint32_t> chain;
    uint32_t w = u;
    while (plan.depth_primary[w] == none) {
      chain.push_back(w);
      w = plan.parent[w];
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) plan.depth_primary[*it] = plan.depth_primary[plan.parent[*it]] + 1;
  }
}

// ---- the shallowing pass (prefer_shallow) -------------------------------------------------------

// eps_base is 5 ns x depth, so a plan is better the shallower it is. The search stops at its first
// complete plan, whose tree Reconnect may have made deep; this hill-climb pulls it back up.
struct shallow_eval {
  bool complete = false;
  uint32_t max_dp = 0, max_db = 0;
  uint64_t sum_dp = 0;
  bgraph b;
};

shallow_eval evaluate_shallow(const planner& pl, const view& v, const ptree& p) {
  shallow_eval e;
  for (uint32_t u : p.pre) {
    e.max_dp = std::max(e.max_dp, p.depth[u]);
    e.sum_dp += p.depth[u];
  }
  backup_plan tmp;
  tmp.members = v.members;
  tmp.root = v.root;
  tmp.parent = p.parent;
  tmp.depth_primary = p.depth;
  for (uint32_t k = p.kid_off[v.root]; k < p.kid_off[v.root + 1]; ++k) {
    const uint32_t br = p.kids[k];
    if (v.dom[br] == v.dom[v.root]) continue;
    bgraph b = pl.bfs_for_backup(br, p);
    if (!b.complete) continue;
    tmp.backup_root = br;
    tmp.backup_parent = b.bp;
    tmp.backup_parent[br] = b.loop_y;
    fill_depths(tmp);
    if (!e.complete || tmp.max_depth_backup < e.max_db) {
      e.complete = true;
      e.max_db = tmp.max_depth_backup;
      e.b = std::move(b);
    }
  }
  return e;
}

// Hill-climbs (best_tree, best_b), a complete plan, in two phases (see backup_plan_options).
// Every accepted move strictly lowers a lexicographic key over finitely many trees, so it ends;
// node and neighbour order (deepest node first, then index; shallowest neighbour first, then
// index) keeps it deterministic. Returns the moves accepted.
uint32_t make_shallow(const planner& pl, const view& v, ptree& best_tree, bgraph& best_b, uint64_t work) {
  shallow_eval cur = evaluate_shallow(pl, v, best_tree);
  if (!cur.complete) return 0;   // not expected: the search's plan is complete
  // One evaluation visits about (root's children) x (adjacency entries) nodes: stop when the
  // budget is spent (large fabrics get few evaluations, or none).
  uint64_t adj = 0;
  for (const auto& a : v.adj) adj += a.size();
  const uint64_t per_eval = std::max<uint64_t>(1, uint64_t(best_tree.kid_off[v.root + 1] - best_tree.kid_off[v.root]) * adj);
  uint64_t evals_left = work / per_eval;
  uint32_t moves = 0;
  for (int phase = 0; phase < 2; ++phase) {
    auto key = [phase](const shallow_eval& e) {
      return phase == 0 ? std::make_tuple(e.max_dp, e.sum_dp, uint64_t(e.max_db))
                        : std::make_tuple(e.max_dp, uint64_t(e.max_db), e.sum_dp);
    };
    for (bool changed = true; changed && evals_left > 0;) {
      changed = false;
      std::vector<uint32_t> order(best_tree.pre.begin() + 1, best_tree.pre.end());
      std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return best_tree.depth[a] != best_tree.depth[b] ? best_tree.depth[a] > best_tree.depth[b] : a < b;
      });
      for (uint32_t u : order) {
        std::vector<uint32_t> cand;
        for (uint32_t w : v.adj[u]) {
          if (w == best_tree.parent[u] || best_tree.anc(u, w)) continue;   // w in T(u): not a tree
          const uint32_t dw = best_tree.depth[w] + 1;
          if (phase == 0 ? dw < best_tree.depth[u] : dw <= best_tree.depth[u]) cand.push_back(w);
        }
        std::stable_sort(cand.begin(), cand.end(), [&](uint32_t a, uint32_t b) {
          return best_tree.depth[a] != best_tree.depth[b] ? best_tree.depth[a] < best_tree.depth[b] : a < b;
        });
        for (uint32_t w : cand) {
          if (evals_left == 0) break;
          --evals_left;
          ptree q;
          q.parent = best_tree.parent;
          q.parent[u] = w;
          if (!q.derive(v)) continue;
          shallow_eval e = evaluate_shallow(pl, v, q);
          if (!e.complete || !(key(e) < key(cur))) continue;
          best_tree = std::move(q);
          cur = std::move(e);
          ++moves;
          changed = true;
          break;   // u moved: the rest of its candidates refer to the old tree
        }
      }
    }
  }
  best_b = std::move(cur.b);
  return moves;
}

}  // namespace

// ---- public API ---------------------------------------------------------------------------------

uint32_t sync_graph::add_node(uint32_t dom) {
  domain.push_back(dom);
  failed.push_back(0);
  return nodes() - 1;
}

uint32_t sync_graph::add_edge(uint32_t a, uint32_t b) {
  if (a >= nodes() || b >= nodes() || a == b)
    throw std::invalid_argument("sync_graph: edge " + std::to_string(a) + "-" + std::to_string(b) + " has a bad endpoint");
  edges.push_back({a, b, false});
  return uint32_t(edges.size() - 1);
}

const char* plan_status_name(plan_status s) {
  switch (s) {
    case plan_status::ok: return "ok";
    case plan_status::no_plan: return "no_plan";
    case plan_status::bad_root: return "bad_root";
  }
  return "?";
}

const char* plan_property_name(plan_property p) {
  switch (p) {
    case plan_property::none: return "none";
    case plan_property::structure: return "structure";
    case plan_property::no_loop: return "no-loop";
    case plan_property::no_ancestor: return "no-ancestor";
    case plan_property::reachability: return "reachability";
    case plan_property::disjoint_domain: return "disjoint-failure-domain";
    case plan_property::root_failure_detection: return "root-failure-detection";
  }
  return "?";
}

backup_plan compute_backup_plan(const sync_graph& g, uint32_t root, const backup_plan_options& opt) {
  check_graph(g);
  if (opt.max_paths < 1) throw std::invalid_argument("backup_plan_options: max_paths must be at least 1");
  backup_plan plan;
  const uint32_t n = g.nodes();
  plan.root = root;
  plan.parent.assign(n, none);
  plan.backup_parent.assign(n, none);
  plan.depth_primary.assign(n, none);
  plan.depth_backup.assign(n, none);
  if (!g.live(root)) {
    plan.status = plan_status::bad_root;
    plan.reason = root >= n ? "root " + std::to_string(root) + " is not a node" : "root " + std::to_string(root) + " is down";
    return plan;
  }
  const view v = make_view(g, root);
  plan.members = v.members;
  for (uint32_t u = 0; u < n; ++u)
    if (g.live(u) && !v.member[u]) plan.unreachable.push_back(u);
  std::vector<uint32_t> start = bfs_tree(v);
  fill_tree(plan, v, start);
  plan.depth_backup.assign(n, none);
  auto give_up = [&](const std::string& why) {
    plan.status = plan_status::no_plan;
    plan.reason = why;
    return plan;
  };
  if (v.members < 3) return give_up("fewer than 3 connected nodes: a backup parent needs a second neighbour");
  const uint32_t cut = cut_vertex(v);
  if (cut != none)
    return give_up("node " + std::to_string(cut) + " is a cut vertex: its failure disconnects the others");
  const auto [dom_cut, dom_node] = cutting_domain(v);
  if (dom_cut != none)
    return give_up("failure domain " + std::to_string(dom_cut) + " cuts node " + std::to_string(dom_node) + " off");

  planner pl(v, opt);
  ptree best;
  bgraph bb;
  bool found = false;
  if (opt.prefer_shallow) {
    // Iterative deepening on the primary depth: first trees no deeper than the BFS tree, then one
    // level more, each with a small budget; the uncapped search is the fallback.
    ptree bfs;
    bfs.parent = start;
    if (bfs.derive(v)) {
      const uint32_t d0 = planner::max_depth(bfs);
      backup_plan_options capped = opt;
      capped.max_iterations = std::max<uint32_t>(1, opt.max_iterations / 64);
      capped.max_trees = std::max<uint64_t>(1, opt.max_trees / 512);
      for (uint32_t cap = d0; cap <= d0 + 3 && !found; ++cap) {
        planner cp(v, capped);
        cp.depth_cap_ = cap;
        cp.max_jobs_ = uint64_t(v.members) / 4 + 16;   // a capped search that drops its candidates must not run long
        ptree t;
        bgraph tb;
        found = cp.search(start, t, tb);
        pl.iterations_ += cp.iterations_;
        pl.scored_ += cp.scored_;
        if (found) {
          best = std::move(t);
          bb = std::move(tb);
          plan.depth_cap = cap;
        }
      }
    }
  }
  if (!found) found = pl.search(start, best, bb);
  plan.iterations = uint32_t(std::min<uint64_t>(pl.iterations_, UINT32_MAX));
  plan.trees_scored = pl.scored_;
  if (best.parent.empty()) return give_up("internal: the BFS tree is not a spanning tree");
  if (found && opt.prefer_shallow) plan.shallow_moves = make_shallow(pl, v, best, bb, opt.shallow_work);
  fill_tree(plan, v, best.parent);
  if (bb.br != none) {
    plan.backup_root = bb.br;
    for (uint32_t u = 0; u < n; ++u) plan.backup_parent[u] = bb.bp[u];
    plan.backup_parent[bb.br] = bb.loop_y;
    plan.score = bb.score;
  }
  if (!found) {
    if (bb.br == none) return give_up("every child of the root is in the root's failure domain");
    return give_up("search ended (" + std::to_string(pl.iterations_) + " trees expanded, " +
                   std::to_string(pl.scored_) + " scored) with backup graphs of at most " + std::to_string(bb.score) +
                   " of " + std::to_string(v.members - 1) + " edges");
  }
  fill_depths(plan);
  plan.status = plan_status::ok;
  const property_check c = check_properties(plan, g);
  if (!c.ok())
    return give_up(std::string("internal: the checker rejects the plan: ") + plan_property_name(c.property) + " at node " +
                   std::to_string(c.node) + ": " + c.detail);
  return plan;
}

// ---- the checker (independent of the search) ----------------------------------------------------

std::vector<property_check> check_all_properties(const backup_plan& plan, const sync_graph& g) {
  check_graph(g);
  std::vector<property_check> out;
  auto add = [&](plan_property p, uint32_t node, const std::string& d) { out.push_back({p, node, d}); };
  const uint32_t n = g.nodes();
  const uint32_t r = plan.root;
  if (!g.live(r)) {
    add(plan_property::structure, r, "root missing or down");
    return out;
  }
  if (plan.parent.size() != n || plan.backup_parent.size() != n) {
    add(plan_property::structure, r, "parent vectors do not match the graph");
    return out;
  }
  const view v = make_view(g, r);
  auto linked = [&](uint32_t a, uint32_t b) { return std::binary_search(v.adj[a].begin(), v.adj[a].end(), b); };

  // Structure: a spanning tree of the root's component, and a live backup edge per member.
  if (plan.parent[r] != none) add(plan_property::structure, r, "the root has a parent");
  if (plan.backup_parent[r] != none) add(plan_property::structure, r, "the root has a backup parent");
  for (uint32_t u = 0; u < n; ++u) {
    if (u == r) continue;
    if (!v.member[u]) {
      if (plan.parent[u] != none || plan.backup_parent[u] != none)
        add(plan_property::structure, u, "a node outside the root's live component is in the plan");
      continue;
    }
    const uint32_t p = plan.parent[u], b = plan.backup_parent[u];
    if (p >= n || !v.member[p] || !linked(u, p)) add(plan_property::structure, u, "no live link to the primary parent");
    if (b >= n || !v.member[b] || !linked(u, b)) add(plan_property::structure, u, "no live link to the backup parent");
  }
  const uint32_t br = plan.backup_root;
  if (br >= n || !v.member[br] || br == r) add(plan_property::structure, br, "the backup root is not a non-root member");
  if (!out.empty()) return out;
  // Depths by walking up; a walk longer than the members is a cycle.
  std::vector<uint32_t> depth(n, none);
  depth[r] = 0;
  for (uint32_t u = 0; u < n; ++u) {
    if (!v.member[u] || depth[u] != none) continue;
    std::vector<uint32_t> chain;
    uint32_t w = u;
    while (depth[w] == none && chain.size() <= v.members) {
      chain.push_back(w);
      w = plan.parent[w];
    }
    if (depth[w] == none) {
      add(plan_property::structure, u, "the primary parents form a cycle");
      return out;
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) depth[*it] = depth[plan.parent[*it]] + 1;
  }
  // Ancestor test by walking up (no Euler tour: the checker stays simple).
  auto is_ancestor = [&](uint32_t a, uint32_t u) {
    for (uint32_t w = u; w != none; w = plan.parent[w])
      if (w == a) return true;
    return false;
  };
  auto root_child = [&](uint32_t u) {
    while (plan.parent[u] != r) u = plan.parent[u];
    return u;
  };

  // The cycles of u -> backup_parent[u] (each member has one out-edge; the root none).
  std::vector<std::vector<uint32_t>> cycles;
  std::vector<uint32_t> cycle_of(n, none);
  {
    std::vector<uint8_t> state(n, 0);   // 0 new, 1 on the current walk, 2 done
    for (uint32_t s = 0; s < n; ++s) {
      if (!v.member[s] || s == r || state[s]) continue;
      std::vector<uint32_t> walk;
      uint32_t u = s;
      while (u != r && state[u] == 0) {
        state[u] = 1;
        walk.push_back(u);
        u = plan.backup_parent[u];
      }
      if (u != r && state[u] == 1) {
        std::vector<uint32_t> c;
        for (auto it = std::find(walk.begin(), walk.end(), u); it != walk.end(); ++it) {
          c.push_back(*it);
          cycle_of[*it] = uint32_t(cycles.size());
        }
        cycles.push_back(std::move(c));
      }
      for (uint32_t w : walk) state[w] = 2;
    }
  }

  // (1) no-loop.
  std::vector<std::pair<uint32_t, std::string>> bad;
  for (const auto& c : cycles) {
    const uint32_t t = root_child(c[0]);
    bool inside = true;
    for (uint32_t u : c) inside = inside && root_child(u) == t;
    if (inside)
      bad.push_back({*std::min_element(c.begin(), c.end()),
                     "a backup loop of " + std::to_string(c.size()) + " nodes inside the subtree of " + std::to_string(t)});
  }
  std::sort(bad.begin(), bad.end());
  for (auto& [u, d] : bad) add(plan_property::no_loop, u, d);

  // (2) no-ancestor.
  for (uint32_t u = 0; u < n; ++u)
    if (v.member[u] && u != r && is_ancestor(plan.backup_parent[u], u))
      add(plan_property::no_ancestor, u, "backup parent " + std::to_string(plan.backup_parent[u]) + " is a primary ancestor");

  // (3) reachability from the backup root over backup edges (parent to child).
  {
    std::vector<std::vector<uint32_t>> below(n);
    for (uint32_t u = 0; u < n; ++u)
      if (v.member[u] && u != r) below[plan.backup_parent[u]].push_back(u);
    std::vector<char> seen(n, 0);
    std::vector<uint32_t> q{br};
    seen[br] = 1;
    for (size_t h = 0; h < q.size(); ++h)
      for (uint32_t w : below[q[h]])
        if (!seen[w]) {
          seen[w] = 1;
          q.push_back(w);
        }
    for (uint32_t u = 0; u < n; ++u)
      if (v.member[u] && u != r && !seen[u])
        add(plan_property::reachability, u, "not reachable from backup root " + std::to_string(br));
  }

  // (4) disjoint failure domain: D_p ∩ D_b ⊆ D_s.
  for (uint32_t s = 0; s < n; ++s) {
    if (!v.member[s] || s == r) continue;
    const uint32_t b = plan.backup_parent[s];
    if (g.domain[b] == g.domain[s]) continue;
    for (uint32_t w = plan.parent[s]; w != none; w = plan.parent[w])
      if (g.domain[w] == g.domain[b]) {
        add(plan_property::disjoint_domain, s,
            "backup parent " + std::to_string(b) + " shares domain " + std::to_string(g.domain[b]) + " with primary-path node " +
                std::to_string(w));
        break;
      }
  }

  // (5) root-failure detection.
  if (plan.parent[br] != r) {
    add(plan_property::root_failure_detection, br, "the backup root is not a child of the root");
  } else if (g.domain[br] == g.domain[r]) {
    add(plan_property::root_failure_detection, br, "the backup root is in the root's failure domain");
  } else if (cycle_of[br] == none) {
    add(plan_property::root_failure_detection, br, "the backup root is not on the backup loop");
  } else {
    bool leaves = false;
    for (uint32_t u : cycles[cycle_of[br]]) leaves = leaves || root_child(u) != br;
    if (!leaves) add(plan_property::root_failure_detection, br, "the backup loop stays inside the backup root's subtree");
  }
  return out;
}

property_check check_properties(const backup_plan& plan, const sync_graph& g) {
  const std::vector<property_check> all = check_all_properties(plan, g);
  if (all.empty()) return {};
  return all.front();
}

controller_reaction sundial_reaction(sync_graph& g, const backup_plan& old, const std::vector<uint32_t>& failed_edges,
                                     const std::vector<uint32_t>& failed_nodes, const std::vector<node_report>& reports,
                                     const backup_plan_options& opt) {
  controller_reaction r;
  for (uint32_t e : failed_edges) g.edges.at(e).failed = true;
  for (uint32_t u : failed_nodes) g.failed.at(u) = 1;
  auto reported = [&](uint32_t u, node_report what) { return u < reports.size() && reports[u] == what; };
  for (uint32_t u = 0; u < g.nodes(); ++u)
    if (reported(u, node_report::evicted) && g.live(u)) {
      g.failed[u] = 1;
      ++r.evictions;
    }
  r.root = old.root;
  if (!g.live(r.root)) {
    r.root = none;
    for (uint32_t u = 0; u < g.nodes() && r.root == none; ++u)
      if (reported(u, node_report::elected) && g.live(u)) {
        r.root = u;
        r.election = true;
      }
    if (r.root == none && g.live(old.backup_root)) r.root = old.backup_root;
    for (uint32_t u = 0; u < g.nodes() && r.root == none; ++u)
      if (g.live(u)) r.root = u;
  }
  r.plan = compute_backup_plan(g, r.root, opt);
  return r;
}

backup_plan replan_after_failure(sync_graph& g, const backup_plan& old, const sync_failure& f, const backup_plan_options& opt) {
  check_graph(g);
  std::vector<uint32_t> edges, nodes;
  switch (f.what) {
    case sync_failure::kind::link:
      if (f.id >= g.edges.size()) throw std::invalid_argument("sync_failure: link " + std::to_string(f.id) + " is not an edge");
      edges = {f.id};
      break;
    case sync_failure::kind::device:
      if (f.id >= g.nodes()) throw std::invalid_argument("sync_failure: device " + std::to_string(f.id) + " is not a node");
      nodes = {f.id};
      break;
    case sync_failure::kind::domain:
      for (uint32_t u = 0; u < g.nodes(); ++u)
        if (g.domain[u] == f.id) nodes.push_back(u);
      break;
    case sync_failure::kind::root:
      if (old.root < g.nodes()) nodes = {old.root};
      break;
  }
  return sundial_reaction(g, old, edges, nodes, {}, opt).plan;
}

}  // namespace netasic
