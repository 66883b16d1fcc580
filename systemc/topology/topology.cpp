#include "topology/topology.h"

#include <deque>
#include <limits>

#include <fmt/format.h>

#include "common/params.h"

namespace netasic {

unsigned topology::add_node(node_kind k, const std::string& name, unsigned tier) {
  nodes.push_back({k, name, tier, {}});
  const unsigned id = unsigned(nodes.size() - 1);
  (k == node_kind::host ? hosts : switches).push_back(id);
  return id;
}

unsigned topology::connect(unsigned a, unsigned b, uint64_t rate_bps, uint64_t delay_ps, const std::string& name) {
  topo_link l;
  l.a = a;
  l.b = b;
  l.rate_bps = rate_bps;
  l.delay_ps = delay_ps;
  l.name = name;
  const unsigned id = unsigned(links.size());
  l.a_port = unsigned(nodes[a].port_link.size());
  nodes[a].port_link.push_back(id);
  l.b_port = unsigned(nodes[b].port_link.size());
  nodes[b].port_link.push_back(id);
  links.push_back(l);
  return id;
}

unsigned topology::host_switch(unsigned host) const {
  const topo_link& l = links[nodes[hosts[host]].port_link[0]];
  return l.a == hosts[host] ? l.b : l.a;
}

std::vector<unsigned> topology::distances_from(unsigned node) const {
  constexpr unsigned inf = std::numeric_limits<unsigned>::max();
  std::vector<unsigned> d(nodes.size(), inf);
  std::deque<unsigned> q{node};
  d[node] = 0;
  while (!q.empty()) {
    const unsigned n = q.front();
    q.pop_front();
    // Hosts do not forward: paths go through switches only.
    if (n != node && nodes[n].kind == node_kind::host) continue;
    for (unsigned li : nodes[n].port_link) {
      const topo_link& l = links[li];
      if (l.failed) continue;
      const unsigned m = l.a == n ? l.b : l.a;
      if (d[m] == inf) {
        d[m] = d[n] + 1;
        q.push_back(m);
      }
    }
  }
  return d;
}

topology build_leaf_spine(const leaf_spine_spec& s) {
  topology t;
  std::vector<unsigned> leaf, spine;
  for (unsigned i = 0; i < s.leaves; ++i) leaf.push_back(t.add_node(node_kind::sw, fmt::format("leaf{}", i), 1));
  for (unsigned i = 0; i < s.spines; ++i) spine.push_back(t.add_node(node_kind::sw, fmt::format("spine{}", i), 2));
  for (unsigned l = 0; l < s.leaves; ++l)
    for (unsigned h = 0; h < s.hosts_per_leaf; ++h) {
      const unsigned host = t.add_node(node_kind::host, fmt::format("host{}", l * s.hosts_per_leaf + h), 0);
      t.connect(host, leaf[l], s.host_rate_bps, s.delay_ps, fmt::format("{}-leaf{}", t.nodes[host].name, l));
    }
  for (unsigned l = 0; l < s.leaves; ++l)
    for (unsigned sp = 0; sp < s.spines; ++sp)
      for (unsigned p = 0; p < s.parallel_links; ++p)
        t.connect(leaf[l], spine[sp], s.uplink_rate_bps, s.delay_ps, fmt::format("leaf{}-spine{}#{}", l, sp, p));
  return t;
}

topology build_fat_tree(const fat_tree_spec& s) {
  topology t;
  const unsigned half = s.k / 2;
  std::vector<unsigned> edge, agg, core;
  for (unsigned i = 0; i < s.k * half; ++i) edge.push_back(t.add_node(node_kind::sw, fmt::format("edge{}", i), 1));
  for (unsigned i = 0; i < s.k * half; ++i) agg.push_back(t.add_node(node_kind::sw, fmt::format("agg{}", i), 2));
  for (unsigned i = 0; i < half * half; ++i) core.push_back(t.add_node(node_kind::sw, fmt::format("core{}", i), 3));
  for (unsigned e = 0; e < s.k * half; ++e)
    for (unsigned h = 0; h < half; ++h) {
      const unsigned host = t.add_node(node_kind::host, fmt::format("host{}", e * half + h), 0);
      t.connect(host, edge[e], s.host_rate_bps, s.delay_ps, fmt::format("{}-edge{}", t.nodes[host].name, e));
    }
  for (unsigned pod = 0; pod < s.k; ++pod)
    for (unsigned i = 0; i < half; ++i)
      for (unsigned j = 0; j < half; ++j) {
        const unsigned e = pod * half + i, a = pod * half + j;
        t.connect(edge[e], agg[a], s.uplink_rate_bps, s.delay_ps, fmt::format("edge{}-agg{}#0", e, a));
      }
  // Aggregation switch j of every pod connects to core switches j*k/2 .. j*k/2 + k/2 - 1.
  for (unsigned pod = 0; pod < s.k; ++pod)
    for (unsigned j = 0; j < half; ++j)
      for (unsigned c = 0; c < half; ++c) {
        const unsigned a = pod * half + j, co = j * half + c;
        t.connect(agg[a], core[co], s.uplink_rate_bps, s.delay_ps, fmt::format("agg{}-core{}#0", a, co));
      }
  return t;
}

namespace {
// Links whose name matches "A-B" (any parallel index) or "A-B#i"; either endpoint order.
std::vector<unsigned> match_links(const topology& t, const std::string& spec) {
  std::vector<unsigned> out;
  const auto dash = spec.find('-');
  if (dash == std::string::npos) return out;
  std::string a = spec.substr(0, dash), rest = spec.substr(dash + 1), idx;
  const auto hash = rest.find('#');
  if (hash != std::string::npos) {
    idx = rest.substr(hash);
    rest = rest.substr(0, hash);
  }
  for (unsigned i = 0; i < t.links.size(); ++i) {
    const std::string& n = t.links[i].name;
    for (const auto& candidate : {a + "-" + rest, rest + "-" + a}) {
      if (n == candidate + idx || (idx.empty() && n.rfind(candidate + "#", 0) == 0) ||
          (idx.empty() && n == candidate)) {
        out.push_back(i);
        break;
      }
    }
  }
  return out;
}
}  // namespace

void apply_failed_links(topology& t, const std::vector<std::string>& entries, const std::string& key) {
  for (const auto& e : entries) {
    const auto m = match_links(t, e);
    if (m.empty())
      throw config_error(fmt::format("key '{}': no link named '{}' (links are named like '{}')", key, e,
                                     t.links.back().name));
    for (unsigned i : m) t.links[i].failed = true;
  }
}

void apply_degraded_links(topology& t, const std::vector<std::string>& entries, const std::string& key) {
  for (const auto& e : entries) {
    const auto eq = e.find('=');
    double gbps = 0;
    size_t used = 0;
    if (eq != std::string::npos) {
      try {
        gbps = std::stod(e.substr(eq + 1), &used);
      } catch (const std::exception&) {
        used = 0;
      }
    }
    if (eq == std::string::npos || used == 0 || used != e.size() - eq - 1 || !(gbps > 0))
      throw config_error(fmt::format("key '{}': entry '{}' must be LINK=GBPS with a positive rate, e.g. '{}=10'",
                                     key, e, t.links.back().name));
    const auto m = match_links(t, e.substr(0, eq));
    if (m.empty())
      throw config_error(fmt::format("key '{}': no link named '{}' (links are named like '{}')", key,
                                     e.substr(0, eq), t.links.back().name));
    for (unsigned i : m) t.links[i].rate_bps = uint64_t(gbps * 1e9 + 0.5);
  }
}

}  // namespace netasic
