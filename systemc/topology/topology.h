// Topology description: nodes (hosts, switches) and full-duplex links with their rates, delays
// and faults. Plain C++; the fabric instantiates SystemC modules from it.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace netasic {

enum class node_kind { host, sw };

struct topo_node {
  node_kind kind;
  std::string name;                 // "host12", "leaf3", "spine1", "edge5", "agg2", "core0"
  unsigned tier = 0;                // 0 host, 1 leaf/edge, 2 spine/agg, 3 core
  std::vector<unsigned> port_link;  // port number -> link index
  // Flattened Clos: port number -> virtual layer 1..k of a fabric port, 0 for a host port
  // (Zhao et al., NSDI'23, §3.1: the fixed port-to-layer map). Empty in other topologies.
  std::vector<unsigned> port_layer;
};

struct topo_link {
  unsigned a = 0, b = 0;            // node indices; a is the lower tier
  unsigned a_port = 0, b_port = 0;
  uint64_t rate_bps = 0;
  uint64_t delay_ps = 0;
  bool failed = false;
  std::string name;                 // "leaf0-spine1#0"

  unsigned other(unsigned node) const { return a == node ? b : a; }          // the far end from `node`
  unsigned port_on(unsigned node) const { return a == node ? a_port : b_port; }   // `node`'s port on it
};

// "A-B#i" read as device A, device B and the parallel index i (-1 for "A-B": every one).
struct link_name {
  std::string a, b;
  long index = -1;
};
// False, with `why`, for text of another form: no A-B ("must name its two devices as A-B ...",
// `out` left empty) or a bad index ("'#x' must be the index ...", out.a and out.b read).
bool parse_link_name(const std::string& spec, link_name& out, std::string& why);

// The links an "A-B" or "A-B#i" entry names, or why it names none.
struct link_match {
  std::vector<unsigned> links;      // in link order; empty when `error` says why
  std::string error;
};

struct topology {
  std::vector<topo_node> nodes;
  std::vector<topo_link> links;
  std::vector<unsigned> hosts;      // host index -> node index
  std::vector<unsigned> switches;   // switch index -> node index

  static constexpr unsigned no_node = ~0u;

  unsigned add_node(node_kind k, const std::string& name, unsigned tier);
  unsigned connect(unsigned a, unsigned b, uint64_t rate_bps, uint64_t delay_ps, const std::string& name);
  // The switch a host hangs off, and the port it uses there.
  unsigned host_switch(unsigned host) const;
  // Shortest-path hop distances (in links) from `node` over links that are up.
  std::vector<unsigned> distances_from(unsigned node) const;
  unsigned find_node(const std::string& name) const;   // the first node of that name, or no_node
  std::vector<unsigned> switch_index() const;          // node -> its index in `switches`, no_node for a host
  // The link grammar of every scenario entry that names links: "A-B" is every parallel link
  // between devices A and B (either order), "A-B#i" the i-th of them in link order.
  link_match find_links(const std::string& spec) const;
};

// The switches alone, over the links that are up, for searches repeated from many switches (the
// route planner's, once per rack; the ideal FCTs', once per destination rack). Hosts forward
// nothing, so a switch's distance here is topology::distances_from's.
struct switch_graph {
  static constexpr unsigned none = topology::no_node;
  explicit switch_graph(const topology& t);
  std::vector<unsigned> index_of;   // node -> switch index, none for a host
  std::vector<size_t> first_port;   // switch index -> its first port's entry in `peer`; one more at the end
  std::vector<unsigned> peer;       // per switch port: the switch at its far end over a link that is up, else none
  // Hop distances from switch index `from` to every switch (none: unreachable) into `dist`;
  // `queue` is scratch. Both are sized here and keep their memory for the next search.
  void distances_from(unsigned from, std::vector<unsigned>& dist, std::vector<unsigned>& queue) const;
};

struct leaf_spine_spec {
  unsigned leaves = 2, spines = 2, hosts_per_leaf = 4, parallel_links = 1;
  uint64_t host_rate_bps = 0, uplink_rate_bps = 0, delay_ps = 0;
};
topology build_leaf_spine(const leaf_spine_spec& s);

struct fat_tree_spec {
  unsigned k = 4;                   // k-ary: k pods, k^3/4 hosts
  uint64_t host_rate_bps = 0, uplink_rate_bps = 0, delay_ps = 0;
};
topology build_fat_tree(const fat_tree_spec& s);

// Links named as find_links reads them. failed: "leaf0-spine1"; degraded: "leaf0-spine1#0=10" (new rate in Gbps). Throws
// config_error naming `key` and the entry when a name matches no link.
void apply_failed_links(topology& t, const std::vector<std::string>& entries, const std::string& key);
void apply_degraded_links(topology& t, const std::vector<std::string>& entries, const std::string& key);

// True when the graph of n nodes and these undirected edges is connected (the random builders
// redraw a disconnected wiring).
bool edges_connected(unsigned n, const std::vector<std::pair<unsigned, unsigned>>& edges);

}  // namespace netasic
