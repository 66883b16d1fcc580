#include "topology/min_cost_flow.h"

#include <algorithm>
#include <deque>
#include <limits>

namespace netasic {

unsigned min_cost_flow::add_arc(unsigned from, unsigned to, int64_t capacity, int64_t cost) {
  const unsigned id = unsigned(arcs_.size());
  arcs_.push_back({to, capacity, cost, 0});
  arcs_.push_back({from, 0, -cost, 0});
  out_[from].push_back(id);
  out_[to].push_back(id + 1);
  return id;
}

int64_t min_cost_flow::solve(unsigned s, unsigned t) {
  for (arc& a : arcs_) a.flow = 0;
  cost_ = 0;
  int64_t total = 0;
  constexpr int64_t inf = std::numeric_limits<int64_t>::max();
  const size_t n = out_.size();
  std::vector<int64_t> dist(n);
  std::vector<unsigned> via(n);
  std::vector<char> queued(n);
  for (;;) {
    // Shortest path in the residual graph (queue-based Bellman-Ford: reverse arcs cost < 0).
    std::fill(dist.begin(), dist.end(), inf);
    std::fill(queued.begin(), queued.end(), 0);
    std::deque<unsigned> q{s};
    dist[s] = 0;
    while (!q.empty()) {
      const unsigned u = q.front();
      q.pop_front();
      queued[u] = 0;
      for (unsigned id : out_[u]) {
        const arc& a = arcs_[id];
        if (a.cap - a.flow <= 0 || dist[u] + a.cost >= dist[a.to]) continue;
        dist[a.to] = dist[u] + a.cost;
        via[a.to] = id;
        if (!queued[a.to]) queued[a.to] = 1, q.push_back(a.to);
      }
    }
    if (dist[t] == inf) return total;
    int64_t push = infinite;
    for (unsigned v = t; v != s; v = arcs_[via[v] ^ 1].to) push = std::min(push, arcs_[via[v]].cap - arcs_[via[v]].flow);
    for (unsigned v = t; v != s; v = arcs_[via[v] ^ 1].to) {
      arcs_[via[v]].flow += push;
      arcs_[via[v] ^ 1].flow -= push;
    }
    total += push;
    cost_ += push * dist[t];
  }
}

}  // namespace netasic
