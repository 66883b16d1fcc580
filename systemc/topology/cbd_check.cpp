#include "topology/cbd_check.h"

#include <algorithm>
#include <deque>

#include <fmt/format.h>

namespace netasic {

void dependency_graph::add(unsigned from, unsigned to) {
  auto& v = next_[from];
  if (std::find(v.begin(), v.end(), to) == v.end()) v.push_back(to);
}

void dependency_graph::add_path(const route_path& p) {
  for (size_t i = 0; i + 1 < p.links.size(); ++i)
    add(directed_link(t_, p.links[i], p.nodes[i]), directed_link(t_, p.links[i + 1], p.nodes[i + 1]));
}

size_t dependency_graph::arcs() const {
  size_t n = 0;
  for (const auto& v : next_) n += v.size();
  return n;
}

std::vector<unsigned> dependency_graph::find_cycle() const {
  enum : char { white, grey, black };
  std::vector<char> colour(next_.size(), white);
  std::vector<std::pair<unsigned, size_t>> stack;   // (directed link, next arc to follow)
  for (unsigned root = 0; root < next_.size(); ++root) {
    if (colour[root] != white) continue;
    stack.push_back({root, 0});
    colour[root] = grey;
    while (!stack.empty()) {
      auto& [u, i] = stack.back();
      if (i == next_[u].size()) {
        colour[u] = black;
        stack.pop_back();
        continue;
      }
      const unsigned v = next_[u][i++];
      if (colour[v] == grey) {   // a back arc closes the cycle v ... u -> v
        std::vector<unsigned> cycle;
        size_t at = stack.size();
        while (stack[--at].first != v) {}
        for (; at < stack.size(); ++at) cycle.push_back(stack[at].first);
        return cycle;
      }
      if (colour[v] == white) {
        colour[v] = grey;
        stack.push_back({v, 0});
      }
    }
  }
  return {};
}

std::string dependency_graph::describe(const std::vector<unsigned>& cycle) const {
  std::string s;
  for (unsigned d : cycle) {
    const topo_link& l = t_.links[d / 2];
    const unsigned from = d % 2 ? l.b : l.a, to = d % 2 ? l.a : l.b;
    s += fmt::format("{}{}->{} ({})", s.empty() ? "" : ", ", t_.nodes[from].name, t_.nodes[to].name, l.name);
  }
  return s;
}

dependency_graph dependencies_of(const topology& t, const next_hops_fn& next_hops) {
  std::vector<unsigned> every(t.hosts.size());
  for (unsigned d = 0; d < every.size(); ++d) every[d] = d;
  return dependencies_of(t, next_hops, every);
}

dependency_graph dependencies_of(const topology& t, const next_hops_fn& next_hops, const std::vector<unsigned>& destinations) {
  dependency_graph g(t);
  std::vector<unsigned> sw_index(t.nodes.size(), ~0u);
  for (unsigned i = 0; i < t.switches.size(); ++i) sw_index[t.switches[i]] = i;
  std::vector<char> seen(2 * t.links.size());
  std::vector<unsigned> ports;
  for (unsigned d : destinations) {
    std::fill(seen.begin(), seen.end(), 0);
    std::deque<unsigned> q;   // directed links that carry frames for d into a switch
    for (unsigned h = 0; h < t.hosts.size(); ++h) {
      const unsigned li = t.nodes[t.hosts[h]].port_link[0];
      if (h == d || t.links[li].failed) continue;
      const unsigned dl = directed_link(t, li, t.hosts[h]);
      seen[dl] = 1;
      q.push_back(dl);
    }
    while (!q.empty()) {
      const unsigned in = q.front();
      q.pop_front();
      const topo_link& l = t.links[in / 2];
      const unsigned at = in % 2 ? l.a : l.b, from = l.other(at);
      ports.clear();
      next_hops(sw_index[at], l.port_on(at), d, ports);
      for (unsigned p : ports) {
        const unsigned out_link = t.nodes[at].port_link[p];
        const unsigned next = t.links[out_link].other(at);
        if (t.nodes[next].kind != node_kind::sw) continue;   // delivered: hosts do not forward
        const unsigned out = directed_link(t, out_link, at);
        if (t.nodes[from].kind == node_kind::sw) g.add(in, out);
        if (!seen[out]) seen[out] = 1, q.push_back(out);
      }
    }
  }
  return g;
}

}  // namespace netasic
