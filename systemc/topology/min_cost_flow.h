// Min-cost max-flow by successive shortest paths (Bellman-Ford on the residual graph), integer
// capacities and costs. Small and exact; the up-down routing solves one per ToR pair, as the
// paper does with OR-tools (Zhao et al., NSDI'23, Appendix A.1).
#pragma once
#include <cstdint>
#include <vector>

namespace netasic {

class min_cost_flow {
 public:
  static constexpr int64_t infinite = int64_t(1) << 40;

  explicit min_cost_flow(unsigned nodes) : out_(nodes) {}
  // The arc's id; its reverse residual arc is id ^ 1.
  unsigned add_arc(unsigned from, unsigned to, int64_t capacity, int64_t cost);
  // Pushes as much flow as possible from s to t at the least cost; returns the flow. Flows of an
  // earlier solve are cleared first, so one graph serves many pairs. The search runs over the
  // nodes on some s-t path only; the flow is the one a search of the whole graph finds.
  int64_t solve(unsigned s, unsigned t);
  int64_t cost() const { return cost_; }
  int64_t flow(unsigned arc) const { return arcs_[arc].cap - out_arcs_[at_[arc]].residual; }
  void take(unsigned arc, int64_t f) { out_arcs_[at_[arc]].residual += f; }   // path decomposition
  unsigned head(unsigned arc) const { return arcs_[arc].to; }
  const std::vector<unsigned>& arcs_from(unsigned node) const { return out_[node]; }
  unsigned nodes() const { return unsigned(out_.size()); }

 private:
  struct arc {
    unsigned to;
    int64_t cap, cost;
  };
  // The search's copy of the arcs: each node's arcs side by side, in out_'s order (so the search
  // meets them in the same order), with their residual capacity. The search scans a node's arcs
  // and mostly finds none left (reverse arcs without flow): read in one run of memory, not one
  // cache line per arc id.
  struct out_arc {
    unsigned to, id;
    int64_t residual, cost;
  };
  void lay_out();
  void find_region(unsigned s, unsigned t);
  bool in_region(unsigned v) const { return region_mark_[v] == region_stamp_; }
  std::vector<arc> arcs_;
  std::vector<std::vector<unsigned>> out_;
  std::vector<out_arc> out_arcs_;           // empty until the first solve after add_arc
  std::vector<unsigned> first_out_, at_;    // node -> its first out_arc; arc id -> its out_arc
  int64_t cost_ = 0;
  // Nodes reachable from reach_source_ over arcs with capacity (kept while the source repeats,
  // as when one source is solved against every destination).
  unsigned reach_source_ = ~0u;
  std::vector<char> reach_;
  // The nodes of the current (or last) solve's search: reachable from s and reaching t.
  std::vector<unsigned> region_, region_mark_;
  unsigned region_stamp_ = 0;
  std::vector<int64_t> dist_;
  std::vector<unsigned> via_, queue_;
  std::vector<char> queued_;
};

}  // namespace netasic
