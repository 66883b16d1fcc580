#include "topology/cbd_check.h"

#include <algorithm>

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

dependency_graph dependencies_of(const topology& t, const next_hops_fn& next_hops, const std::vector<unsigned>& destinations,
                                 const in_port_class_fn& in_class) {
  dependency_graph g(t);
  // The walk below visits every directed link once per destination: it reads these flat arrays
  // instead of the topology's nodes and links (names and all), which at k = 32 fit no cache.
  constexpr unsigned none = switch_graph::none;
  struct into_switch {
    unsigned sw = none, port = 0;   // the switch a directed link enters, by which port
    unsigned slot = 0;              // that port's class at the switch: where its next hops are kept
    bool from_switch = false;       // and whether a switch sent on it (only then is it an arc's tail)
  };
  std::vector<into_switch> into(2 * t.links.size());
  const switch_graph sg(t);   // its switch indices and port numbering (not its peers: they skip links that are down)
  const std::vector<unsigned>& sw_index = sg.index_of;
  const std::vector<size_t>& first_port = sg.first_port;
  for (unsigned li = 0; li < t.links.size(); ++li) {
    const topo_link& l = t.links[li];
    into[2 * li] = {sw_index[l.b], l.b_port, 0, sw_index[l.a] != none};       // a -> b
    into[2 * li + 1] = {sw_index[l.a], l.a_port, 0, sw_index[l.b] != none};   // b -> a
  }
  // Per switch and port: the directed link out of it towards another switch (none towards a host:
  // delivered, hosts do not forward).
  std::vector<unsigned> out_to_switch(first_port.back(), none);
  for (unsigned s = 0; s < t.switches.size(); ++s) {
    const unsigned at = t.switches[s];
    const std::vector<unsigned>& ports = t.nodes[at].port_link;
    for (unsigned p = 0; p < ports.size(); ++p)
      if (t.nodes[t.links[ports[p]].other(at)].kind == node_kind::sw)
        out_to_switch[first_port[s] + p] = directed_link(t, ports[p], at);
  }
  // Each host's uplink (none when its link is down): where frames for a destination start.
  std::vector<unsigned> uplink(t.hosts.size(), none);
  for (unsigned h = 0; h < t.hosts.size(); ++h) {
    const unsigned li = t.nodes[t.hosts[h]].port_link[0];
    if (!t.links[li].failed) uplink[h] = directed_link(t, li, t.hosts[h]);
  }
  // A switch answers the in-ports of one class alike, so for each destination it is asked once
  // per class (a slot): the first link of that class to carry frames for it takes the answer and
  // queues its links onward; the others of its class only add their arcs. Without classes every
  // port is a class of its own.
  const auto words = [&](unsigned s) { return (first_port[s + 1] - first_port[s] + 63) / 64; };
  std::vector<size_t> first_slot(t.switches.size() + 1, 0);
  for (unsigned s = 0; s < t.switches.size(); ++s) {
    const unsigned n = unsigned(first_port[s + 1] - first_port[s]);
    unsigned classes = 0;
    for (unsigned p = 0; p < n; ++p) classes = std::max(classes, (in_class ? in_class(s, p) : p) + 1);
    first_slot[s + 1] = first_slot[s] + classes;
  }
  for (into_switch& x : into)
    if (x.sw != none) x.slot = unsigned(first_slot[x.sw] + (in_class ? in_class(x.sw, x.port) : x.port));
  struct slot {
    uint64_t stamp = 0;             // the destination (its ordinal + 1) the answer below is for
    std::vector<unsigned> ports;    // the egress ports towards a switch, in the switch's order
    size_t mask = 0;                // where the same ports as bits begin in `masks`
  };
  std::vector<slot> slots(first_slot.back());
  size_t mask_words = 0;
  for (unsigned s = 0; s < t.switches.size(); ++s)
    for (size_t k = first_slot[s]; k < first_slot[s + 1]; ++k) slots[k].mask = mask_words, mask_words += words(s);
  std::vector<uint64_t> masks(mask_words, 0);

  // The arcs found so far, one bit per (directed link into a switch, that switch's egress port):
  // an arc is found again for most destinations, and a test of whole words replaces a search of
  // the link's arc list. New arcs are appended in the order they are found, as add() would.
  std::vector<size_t> arc_word(2 * t.links.size(), 0);
  size_t arc_words = 0;
  for (unsigned dl = 0; dl < arc_word.size(); ++dl)
    if (into[dl].sw != none && into[dl].from_switch) arc_word[dl] = arc_words, arc_words += words(into[dl].sw);
  std::vector<uint64_t> arc_found(arc_words, 0);

  // Frames for a destination enter on every other host's uplink. An uplink is no arc's tail: its
  // one part in the walk is to have its switch asked for its class, which the first uplink of that
  // class in host order does. So the walk starts from those alone, in host order, and the second
  // of each class stands in for the first when the first is the destination: the same walk as
  // from every uplink, with a start per switch and class instead of one per host.
  std::vector<unsigned> seed_hosts;   // the first two hosts of each class with a working uplink
  {
    std::vector<unsigned char> taken(slots.size(), 0);
    for (unsigned h = 0; h < t.hosts.size(); ++h) {
      if (uplink[h] == none) continue;
      unsigned char& n = taken[into[uplink[h]].slot];
      if (n < 2) ++n, seed_hosts.push_back(h);
    }
  }
  std::vector<uint64_t> seeded(slots.size(), 0);   // the destination (stamp) a class was started for

  std::vector<char> seen(2 * t.links.size());
  std::vector<unsigned> q;   // directed links that carry frames for d into a switch, first in first out
  q.reserve(seen.size());
  std::vector<unsigned> asked;
  uint64_t stamp = 0;
  for (unsigned d : destinations) {
    ++stamp;
    std::fill(seen.begin(), seen.end(), 0);
    q.clear();
    for (unsigned h : seed_hosts) {
      if (h == d || seeded[into[uplink[h]].slot] == stamp) continue;
      seeded[into[uplink[h]].slot] = stamp;
      q.push_back(uplink[h]);
    }
    for (size_t head = 0; head < q.size(); ++head) {
      const unsigned in = q[head];
      const into_switch& at = into[in];
      slot& sl = slots[at.slot];
      uint64_t* mask = &masks[sl.mask];
      const size_t base = first_port[at.sw], nw = words(at.sw);
      if (sl.stamp != stamp) {   // the class's first link for d: ask the switch, queue onward
        sl.stamp = stamp;
        std::fill(mask, mask + nw, 0);
        sl.ports.clear();
        asked.clear();
        next_hops(at.sw, at.port, d, asked);
        for (unsigned p : asked) {
          const unsigned out = out_to_switch[base + p];
          if (out == none) continue;
          sl.ports.push_back(p);
          mask[p / 64] |= uint64_t(1) << (p % 64);
          if (!seen[out]) seen[out] = 1, q.push_back(out);
        }
      }
      if (!at.from_switch) continue;
      uint64_t* found = &arc_found[arc_word[in]];
      uint64_t fresh = 0;
      for (size_t w = 0; w < nw; ++w) fresh |= mask[w] & ~found[w];
      if (!fresh) continue;   // every turn from this link already known: the usual case
      for (unsigned p : sl.ports) {
        const uint64_t bit = uint64_t(1) << (p % 64);
        if (found[p / 64] & bit) continue;
        found[p / 64] |= bit;
        g.add_new(in, out_to_switch[base + p]);
      }
    }
  }
  return g;
}

}  // namespace netasic
