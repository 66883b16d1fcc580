// Topology description: nodes (hosts, switches) and full-duplex links with their rates, delays
// and faults. Plain C++; the fabric instantiates SystemC modules from it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace netasic {

enum class node_kind { host, sw };

struct topo_node {
  node_kind kind;
  std::string name;                 // "host12", "leaf3", "spine1", "edge5", "agg2", "core0"
  unsigned tier = 0;                // 0 host, 1 leaf/edge, 2 spine/agg, 3 core
  std::vector<unsigned> port_link;  // port number -> link index
};

struct topo_link {
  unsigned a = 0, b = 0;            // node indices; a is the lower tier
  unsigned a_port = 0, b_port = 0;
  uint64_t rate_bps = 0;
  uint64_t delay_ps = 0;
  bool failed = false;
  std::string name;                 // "leaf0-spine1#0"
};

struct topology {
  std::vector<topo_node> nodes;
  std::vector<topo_link> links;
  std::vector<unsigned> hosts;      // host index -> node index
  std::vector<unsigned> switches;   // switch index -> node index

  unsigned add_node(node_kind k, const std::string& name, unsigned tier);
  unsigned connect(unsigned a, unsigned b, uint64_t rate_bps, uint64_t delay_ps, const std::string& name);
  // The switch a host hangs off, and the port it uses there.
  unsigned host_switch(unsigned host) const;
  // Shortest-path hop distances (in links) from `node` over links that are up.
  std::vector<unsigned> distances_from(unsigned node) const;
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

// Faults named as "A-B" (every parallel link between A and B) or "A-B#i" (the i-th one).
// failed: "leaf0-spine1"; degraded: "leaf0-spine1#0=10" (new rate in Gbps). Throws
// config_error naming `key` and the entry when a name matches no link.
void apply_failed_links(topology& t, const std::vector<std::string>& entries, const std::string& key);
void apply_degraded_links(topology& t, const std::vector<std::string>& entries, const std::string& key);

}  // namespace netasic
