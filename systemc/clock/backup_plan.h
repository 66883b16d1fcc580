// Sundial's controller (core, no SystemC): Sundial (Li et al., OSDI 2020), §3.4.2.1 Centralized
// controller (sections, figures and algorithms numbered as in chapter 3 of Li's thesis). A
// primary spanning tree plus a backup plan (a backup parent for every non-root node and a backup
// root) that is generic to link, device, domain and root failures. The five properties of
// §3.4.2.1, as checked here:
//   (1) no-loop: no primary subtree's nodes' backup edges form a loop. A loop lies in some T(u),
//       u != root, iff all its nodes share a child of the root as ancestor.
//   (2) no-ancestor: a node's backup parent is not its primary ancestor (root and parent included).
//   (3) reachability: every node but the root is reachable from the backup root over backup edges.
//   (4) disjoint failure domain: D_p ∩ D_b ⊆ D_s, i.e. dom(bp(s)) == dom(s) or dom(bp(s)) is not
//       the domain of any node on the primary path root..parent(s). A domain failure takes down
//       its nodes and their links.
//   (5) root-failure detection: the backup root is a child of the root, lies on the backup loop,
//       and the loop leaves its primary subtree (Fig. 3.9); also (our reading) it is not in the
//       root's failure domain, or one domain failure would take both.
// The search is Algorithms 2-5 of §3.4.2.1: best-first over primary trees scored by their
// largest backup graph (FindLargestBackup: BFS from the backup root over UsableInBackup edges,
// then close the loop), mutated by Improve/Reconnect. Deterministic: neighbours, children and
// candidates go in node-index order, ties to the lower index or the earlier tree. The search
// returns the first complete plan; a deterministic hill-climb (prefer_shallow) then makes its
// primary tree, and after that its depth_backup, as shallow as single re-parentings can while all
// five properties keep holding.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace netasic {

struct sync_edge {
  uint32_t a = 0, b = 0;
  bool failed = false;
};

// Nodes (devices) with a failure domain each, undirected edges (links); parallel links count as
// one adjacency while any of them is up.
struct sync_graph {
  std::vector<uint32_t> domain;          // failure domain of each node
  std::vector<uint8_t> failed;           // device down
  std::vector<sync_edge> edges;

  uint32_t add_node(uint32_t dom);
  uint32_t add_edge(uint32_t a, uint32_t b);   // std::invalid_argument on a bad endpoint or a self-loop
  uint32_t nodes() const { return uint32_t(domain.size()); }
  bool live(uint32_t v) const { return v < nodes() && !failed[v]; }
};

enum class plan_status {
  ok,          // complete: the five properties hold (verified by check_properties)
  no_plan,     // none found; `reason` says why, the fields hold the best partial plan found
  bad_root     // the root is out of range or down
};
const char* plan_status_name(plan_status s);

struct backup_plan_options {
  uint32_t max_iterations = 4000;        // primary trees expanded (Algorithm 2, line 6)
  uint64_t max_trees = 200'000;          // primary trees scored
  uint32_t max_paths = 8;                // paths Reconnect returns (the first found, BFS order)
  // After the search finds a complete plan, hill-climb it toward shallow trees: re-parent one node
  // (its subtree comes along) onto a live neighbour, keeping a complete backup graph, while
  // (max depth_primary, sum of depth_primary, max_depth_backup) decreases, then while
  // (max depth_primary, max_depth_backup, sum of depth_primary) does. The backup root is then the
  // root child whose complete backup graph has the smallest max_depth_backup (lower index on ties).
  bool prefer_shallow = true;
  // The hill-climb's budget, in node visits (one candidate costs about the root's children x twice
  // the links): a k = 8 fat tree gets ~5 000 candidates, k = 32 ~20, so its cost stays bounded.
  uint64_t shallow_work = 20'000'000;
};

struct backup_plan {
  static constexpr uint32_t none = UINT32_MAX;
  plan_status status = plan_status::no_plan;
  std::string reason;
  uint32_t root = none;
  uint32_t backup_root = none;
  std::vector<uint32_t> parent;          // primary parent; none for the root and non-members
  std::vector<uint32_t> backup_parent;   // none for the root, non-members, and gaps (no_plan)
  std::vector<uint32_t> depth_primary;   // hops to the root; none for non-members
  // Max hops to the root after any failure once the node has turned to its backup parent:
  // 1 + max(b.depth_primary, b.depth_backup) (§3.4.2.1, Fig. 3.12), the L + 1 paths on the loop
  // (Fig. 3.13).
  std::vector<uint32_t> depth_backup;
  std::vector<uint32_t> loop;            // the backup loop, from the backup root along backup parents
  std::vector<uint32_t> unreachable;     // live nodes cut off from the root (outside the plan)
  uint32_t members = 0;                  // live nodes connected to the root, root included
  uint32_t max_depth_backup = 0;
  uint32_t score = 0;                    // backup edges (complete: members - 1)
  uint32_t iterations = 0;               // trees expanded
  uint64_t trees_scored = 0;
  uint32_t shallow_moves = 0;            // re-parentings the shallowing pass accepted
  uint32_t depth_cap = none;             // the primary-depth cap the plan was found under (none: uncapped)

  bool ok() const { return status == plan_status::ok; }
  bool member(uint32_t v) const { return v == root || (v < parent.size() && parent[v] != none); }
  // eps_base for the firmware: 5 ns x depth (§3.4.1.3), primary and backup.
  uint64_t eps_base_ps(uint32_t v, uint64_t per_hop_ps = 5'000) const { return uint64_t(depth_primary[v]) * per_hop_ps; }
  uint64_t eps_base_backup_ps(uint32_t v, uint64_t per_hop_ps = 5'000) const { return uint64_t(depth_backup[v]) * per_hop_ps; }
};

// The plan for `g` with primary root `root`. Never throws on an unplannable graph: status and
// reason say what is wrong. Throws std::invalid_argument for an ill-formed graph.
backup_plan compute_backup_plan(const sync_graph& g, uint32_t root, const backup_plan_options& opt = {});

enum class plan_property { none, structure, no_loop, no_ancestor, reachability, disjoint_domain, root_failure_detection };
const char* plan_property_name(plan_property p);

struct property_check {
  plan_property property = plan_property::none;
  uint32_t node = backup_plan::none;     // where it fails (the lowest such node)
  std::string detail;
  bool ok() const { return property == plan_property::none; }
};

// Verifies a plan against the graph from the definitions above, independently of the search.
// `structure` covers what the properties presume: a spanning tree of the root's live component
// over live links, and a backup parent that is a live neighbour for every non-root member.
// check_properties returns the first violation (structure, then (1)..(5), lowest node first).
property_check check_properties(const backup_plan& plan, const sync_graph& g);
std::vector<property_check> check_all_properties(const backup_plan& plan, const sync_graph& g);

// What a node's STATE register tells the controller before it replans (§3.4.3 Implementation).
enum class node_report : uint8_t { running, elected, evicted };

struct controller_reaction {
  uint32_t root = backup_plan::none;     // the new plan's root; none when no node is live
  uint32_t evictions = 0;                // live nodes taken out because they reported evicted
  bool election = false;                 // the root is a node that elected itself
  backup_plan plan;                      // planned from `root` (bad_root when it is none)
};

// Sundial's controller reacting to a failure (§3.4.3), the one place it is written: it marks the
// failed edges and nodes in `g`, and every live node that reports itself evicted (reports: one
// per node, or fewer, or none); keeps the old root if it is live, else takes the lowest live node
// that reports it elected itself, else the old backup root if it is live, else the lowest live
// node; and plans again from that root.
controller_reaction sundial_reaction(sync_graph& g, const backup_plan& old, const std::vector<uint32_t>& failed_edges,
                                     const std::vector<uint32_t>& failed_nodes, const std::vector<node_report>& reports,
                                     const backup_plan_options& opt = {});

struct sync_failure {
  enum class kind { link, device, domain, root };
  kind what;
  uint32_t id = 0;                       // edge, node or domain index (unused for root)
};

// sundial_reaction to one failure with no reports: the root stays unless it failed; then the
// old backup root (which elected itself) is the root, or if it is down too the lowest-index live
// node. Throws std::invalid_argument for an edge or node that is not in `g`.
backup_plan replan_after_failure(sync_graph& g, const backup_plan& old, const sync_failure& f,
                                 const backup_plan_options& opt = {});

}  // namespace netasic
