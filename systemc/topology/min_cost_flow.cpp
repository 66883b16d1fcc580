#include "topology/min_cost_flow.h"

#include <algorithm>
#include <limits>

namespace netasic {

unsigned min_cost_flow::add_arc(unsigned from, unsigned to, int64_t capacity, int64_t cost) {
  const unsigned id = unsigned(arcs_.size());
  arcs_.push_back({to, capacity, cost, 0});
  arcs_.push_back({from, 0, -cost, 0});
  out_[from].push_back(id);
  out_[to].push_back(id + 1);
  reach_source_ = ~0u;
  return id;
}

// The region: nodes reachable from s that reach t over arcs with capacity. An augmenting path
// stays inside it (a reverse residual arc joins two nodes of an earlier augmenting path), and
// a node outside it never improves the distance of a node that still reaches t in the residual
// graph; so the FIFO search below, run on the region alone, pops the nodes that matter in the
// same order with the same distances and predecessors, and augments along the same paths as a
// search of the whole graph.
void min_cost_flow::find_region(unsigned s, unsigned t) {
  const size_t n = out_.size();
  if (reach_.size() != n) {   // the first solve since arcs were added
    reach_.assign(n, 0);
    region_mark_.assign(n, 0);
    dist_.resize(n);
    via_.resize(n);
    queued_.assign(n, 0);
    queue_.resize(n + 1);
  }
  if (reach_source_ != s) {
    std::fill(reach_.begin(), reach_.end(), 0);
    std::vector<unsigned> todo{s};
    reach_[s] = 1;
    while (!todo.empty()) {
      const unsigned u = todo.back();
      todo.pop_back();
      for (unsigned id : out_[u])
        if (arcs_[id].cap > 0 && !reach_[arcs_[id].to]) reach_[arcs_[id].to] = 1, todo.push_back(arcs_[id].to);
    }
    reach_source_ = s;
  }
  // Backwards from t, among the nodes s reaches: every node of an s-t path is reached from s.
  if (++region_stamp_ == 0) std::fill(region_mark_.begin(), region_mark_.end(), 0), region_stamp_ = 1;
  region_.clear();
  if (!reach_[t]) return;
  region_mark_[t] = region_stamp_;
  region_.push_back(t);
  for (size_t i = 0; i < region_.size(); ++i)
    for (unsigned id : out_[region_[i]]) {
      const unsigned u = arcs_[id].to;   // id ^ 1 is an arc u -> region_[i] when it has capacity
      if (arcs_[id ^ 1].cap > 0 && reach_[u] && !in_region(u)) region_mark_[u] = region_stamp_, region_.push_back(u);
    }
}

int64_t min_cost_flow::solve(unsigned s, unsigned t) {
  // An earlier solve's flows lie on arcs between nodes of its region.
  for (unsigned v : region_)
    for (unsigned id : out_[v]) arcs_[id].flow = 0;
  find_region(s, t);
  cost_ = 0;
  int64_t total = 0;
  if (!in_region(s)) return 0;
  constexpr int64_t inf = std::numeric_limits<int64_t>::max();
  const size_t ring = region_.size() + 1;   // each node is queued at most once at a time
  for (;;) {
    // Shortest path in the residual graph (queue-based Bellman-Ford: reverse arcs cost < 0).
    for (unsigned v : region_) dist_[v] = inf, queued_[v] = 0;
    size_t head = 0, tail = 0;
    queue_[tail++] = s;
    dist_[s] = 0;
    while (head != tail) {
      const unsigned u = queue_[head];
      head = (head + 1) % ring;
      queued_[u] = 0;
      for (unsigned id : out_[u]) {
        const arc& a = arcs_[id];
        if (a.cap - a.flow <= 0 || !in_region(a.to) || dist_[u] + a.cost >= dist_[a.to]) continue;
        dist_[a.to] = dist_[u] + a.cost;
        via_[a.to] = id;
        if (!queued_[a.to]) queued_[a.to] = 1, queue_[tail] = a.to, tail = (tail + 1) % ring;
      }
    }
    if (dist_[t] == inf) return total;
    int64_t push = infinite;
    for (unsigned v = t; v != s; v = arcs_[via_[v] ^ 1].to) push = std::min(push, arcs_[via_[v]].cap - arcs_[via_[v]].flow);
    for (unsigned v = t; v != s; v = arcs_[via_[v] ^ 1].to) {
      arcs_[via_[v]].flow += push;
      arcs_[via_[v] ^ 1].flow -= push;
    }
    total += push;
    cost_ += push * dist_[t];
  }
}

}  // namespace netasic
