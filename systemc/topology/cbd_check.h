// Static deadlock analysis: the link dependency graph of a route set and a search for a cyclic
// buffer dependency (Zhao et al., NSDI'23, Appendix A.2: Definition 3, Theorem 7, Algorithm 2).
// A node is a directed link (the egress queue of one lossless priority that feeds it); an arc
// e_in -> e_out says a frame that arrived over e_in may wait for e_out, so a PAUSE on e_out can
// back up into e_in. The route set is free of CBD iff the graph has no cycle (Theorem 7).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "topology/topology.h"
#include "topology/updown_routing.h"

namespace netasic {

// Directed link id: 2 * link, +1 when it runs from the link's b end to its a end.
inline unsigned directed_link(const topology& t, unsigned link, unsigned from_node) {
  return 2 * link + (t.links[link].a == from_node ? 0 : 1);
}

class dependency_graph {
 public:
  explicit dependency_graph(const topology& t) : t_(t), next_(2 * t.links.size()) {}
  void add(unsigned from_dlink, unsigned to_dlink);
  // An arc the caller knows is not in the graph yet.
  void add_new(unsigned from_dlink, unsigned to_dlink) { next_[from_dlink].push_back(to_dlink); }
  // Every consecutive pair of a path's links.
  void add_path(const route_path& p);
  size_t arcs() const;
  // The arcs out of a directed link, in the order they were added.
  const std::vector<unsigned>& next(unsigned dlink) const { return next_[dlink]; }
  // One cycle as the directed links in order, or empty when the graph is acyclic (DFS, Alg. 2).
  std::vector<unsigned> find_cycle() const;
  // "tor0->tor3 (tor0-tor3#0), tor3->tor5 (...), ..." for a cycle of directed links.
  std::string describe(const std::vector<unsigned>& cycle) const;

 private:
  const topology& t_;
  std::vector<std::vector<unsigned>> next_;
};

// What a switch does with a frame for dst_host that came in on in_port: the egress ports it may
// pick (all members of the group it looks up).
using next_hops_fn = std::function<void(unsigned switch_index, unsigned in_port, unsigned dst_host, std::vector<unsigned>& ports)>;

// The dependency graph of an installed route set: for every destination host, every directed
// link a frame for it can reach from any other host (walking the tables, not a path list), and
// every turn the tables allow there.
dependency_graph dependencies_of(const topology& t, const next_hops_fn& next_hops);
// Which class an in-port of a switch is in, when next_hops answers every in-port of one class
// alike (the route tables' ingress classes): it is then asked once per class and destination.
using in_port_class_fn = std::function<unsigned(unsigned switch_index, unsigned in_port)>;
// The same over the given destination hosts only, in that order: with tables that treat every
// host of a set alike but at its own switch, one host of each set gives the whole graph. Without
// in_class, every in-port is asked on its own.
dependency_graph dependencies_of(const topology& t, const next_hops_fn& next_hops, const std::vector<unsigned>& destinations,
                                 const in_port_class_fn& in_class = nullptr);

}  // namespace netasic
