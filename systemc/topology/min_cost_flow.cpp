#include "topology/min_cost_flow.h"

#include <algorithm>
#include <limits>

namespace netasic {

unsigned min_cost_flow::add_arc(unsigned from, unsigned to, int64_t capacity, int64_t cost) {
  const unsigned id = unsigned(arcs_.size());
  arcs_.push_back({to, capacity, cost});
  arcs_.push_back({from, 0, -cost});
  out_[from].push_back(id);
  out_[to].push_back(id + 1);
  reach_source_ = ~0u;
  out_arcs_.clear();
  return id;
}

void min_cost_flow::lay_out() {
  first_out_.assign(out_.size() + 1, 0);
  at_.assign(arcs_.size(), 0);
  out_arcs_.clear();
  out_arcs_.reserve(arcs_.size());
  for (size_t v = 0; v < out_.size(); ++v) {
    first_out_[v] = unsigned(out_arcs_.size());
    for (unsigned id : out_[v]) {
      at_[id] = unsigned(out_arcs_.size());
      out_arcs_.push_back({arcs_[id].to, id, arcs_[id].cap, arcs_[id].cost});
    }
  }
  first_out_[out_.size()] = unsigned(out_arcs_.size());
  region_.clear();
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
  if (out_arcs_.size() != arcs_.size()) lay_out();
  // An earlier solve's flows lie on arcs between nodes of its region.
  for (unsigned v : region_)
    for (unsigned i = first_out_[v]; i < first_out_[v + 1]; ++i) out_arcs_[i].residual = arcs_[out_arcs_[i].id].cap;
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
      const int64_t du = dist_[u];
      for (unsigned i = first_out_[u], end = first_out_[u + 1]; i < end; ++i) {
        const out_arc& a = out_arcs_[i];
        if (a.residual <= 0 || !in_region(a.to) || du + a.cost >= dist_[a.to]) continue;
        dist_[a.to] = du + a.cost;
        via_[a.to] = a.id;
        if (!queued_[a.to]) queued_[a.to] = 1, queue_[tail] = a.to, tail = (tail + 1) % ring;
      }
    }
    if (dist_[t] == inf) return total;
    int64_t push = infinite;
    for (unsigned v = t; v != s; v = arcs_[via_[v] ^ 1].to) push = std::min(push, out_arcs_[at_[via_[v]]].residual);
    for (unsigned v = t; v != s; v = arcs_[via_[v] ^ 1].to) {
      out_arcs_[at_[via_[v]]].residual -= push;
      out_arcs_[at_[via_[v] ^ 1]].residual += push;
    }
    total += push;
    cost_ += push * dist_[t];
  }
}

}  // namespace netasic
