#include "switch/pfc_deadlock_detector.h"

#include <algorithm>

namespace netasic {

std::vector<std::vector<unsigned>> find_wait_cycles(const std::vector<std::vector<unsigned>>& waits_on) {
  enum : char { white, grey, black };
  const size_t n = waits_on.size();
  std::vector<char> colour(n, white), reported(n, 0);
  std::vector<std::vector<unsigned>> cycles;
  // Iterative DFS: the stack holds (node, next edge); a grey node is on the stack.
  std::vector<std::pair<unsigned, size_t>> stack;
  for (unsigned root = 0; root < n; ++root) {
    if (colour[root] != white) continue;
    stack.push_back({root, 0});
    colour[root] = grey;
    while (!stack.empty()) {
      auto& [u, next] = stack.back();
      if (next == waits_on[u].size()) {
        colour[u] = black;
        stack.pop_back();
        continue;
      }
      const unsigned v = waits_on[u][next++];
      if (v >= n) continue;   // a queue outside the graph (not stalled): no wait to follow
      if (colour[v] == white) {
        colour[v] = grey;
        stack.push_back({v, 0});
      } else if (colour[v] == grey) {   // back edge: the stack from v to u is a cycle
        std::vector<unsigned> c;
        size_t i = stack.size();
        while (stack[i - 1].first != v) --i;
        for (size_t k = i - 1; k < stack.size(); ++k) c.push_back(stack[k].first);
        if (std::none_of(c.begin(), c.end(), [&](unsigned q) { return reported[q]; })) {
          for (unsigned q : c) reported[q] = 1;
          cycles.push_back(std::move(c));
        }
      }
    }
  }
  return cycles;
}

std::vector<std::vector<unsigned>> pfc_deadlock_detector::check(const std::vector<paused_queue>& queues, uint64_t now) const {
  // Only waits between stalled queues count: a queue still sending is progress.
  std::vector<std::vector<unsigned>> g(queues.size());
  for (unsigned i = 0; i < queues.size(); ++i) {
    if (!stalled(queues[i], now)) continue;
    for (unsigned j : queues[i].waits_on)
      if (j < queues.size() && stalled(queues[j], now)) g[i].push_back(j);
  }
  return find_wait_cycles(g);
}

}  // namespace netasic
