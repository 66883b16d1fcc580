#include "topology/topology.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "common/params.h"

namespace netasic {

unsigned topology::add_node(node_kind k, const std::string& name, unsigned tier) {
  nodes.push_back({k, name, tier, {}, {}});
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
  return links[nodes[hosts[host]].port_link[0]].other(hosts[host]);
}

std::vector<unsigned> topology::switch_index() const {
  std::vector<unsigned> index(nodes.size(), no_node);
  for (unsigned s = 0; s < switches.size(); ++s) index[switches[s]] = s;
  return index;
}

switch_graph::switch_graph(const topology& t) : index_of(t.switch_index()), first_port(t.switches.size() + 1, 0) {
  for (unsigned s = 0; s < t.switches.size(); ++s) first_port[s + 1] = first_port[s] + t.nodes[t.switches[s]].port_link.size();
  peer.assign(first_port.back(), none);
  for (unsigned s = 0; s < t.switches.size(); ++s) {
    const unsigned node = t.switches[s];
    const std::vector<unsigned>& pl = t.nodes[node].port_link;
    for (unsigned p = 0; p < pl.size(); ++p) {
      const topo_link& l = t.links[pl[p]];
      if (!l.failed) peer[first_port[s] + p] = index_of[l.other(node)];   // none for a host
    }
  }
}

void switch_graph::distances_from(unsigned from, std::vector<unsigned>& dist, std::vector<unsigned>& queue) const {
  dist.assign(first_port.size() - 1, none);
  queue.assign(1, from);
  dist[from] = 0;
  for (size_t head = 0; head < queue.size(); ++head) {
    const unsigned u = queue[head];
    for (size_t k = first_port[u]; k < first_port[u + 1]; ++k) {
      const unsigned v = peer[k];
      if (v != none && dist[v] == none) dist[v] = dist[u] + 1, queue.push_back(v);
    }
  }
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
      const unsigned m = l.other(n);
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

unsigned topology::find_node(const std::string& name) const {
  for (unsigned u = 0; u < nodes.size(); ++u)
    if (nodes[u].name == name) return u;
  return no_node;
}

bool parse_link_name(const std::string& spec, link_name& out, std::string& why) {
  out = {};
  const size_t dash = spec.find('-');
  if (dash == std::string::npos || spec.front() == '-' || spec.back() == '-') {
    why = "must name its two devices as A-B (or A-B#i for the i-th parallel link)";
    return false;
  }
  out = {spec.substr(0, dash), spec.substr(dash + 1), -1};
  if (const size_t hash = out.b.find('#'); hash != std::string::npos) {
    const std::string idx = out.b.substr(hash + 1);
    out.b = out.b.substr(0, hash);
    if (idx.empty() || idx.find_first_not_of("0123456789") != std::string::npos || idx.size() > 6) {
      why = "'#" + idx + "' must be the index of a parallel link, e.g. #0";
      return false;
    }
    out.index = std::stol(idx);
  }
  return true;
}

link_match topology::find_links(const std::string& spec) const {
  link_match m;
  link_name n;
  if (!parse_link_name(spec, n, m.error)) return m;
  const unsigned a = find_node(n.a), b = find_node(n.b);
  if (a == no_node || b == no_node) {
    m.error = fmt::format("no device named '{}' (devices are named like '{}' and '{}')", a == no_node ? n.a : n.b,
                          switches.empty() ? "" : nodes[switches.back()].name, nodes.empty() ? "" : nodes.back().name);
    return m;
  }
  std::vector<unsigned> between;
  for (unsigned li : nodes[a].port_link)
    if (links[li].other(a) == b) between.push_back(li);
  std::sort(between.begin(), between.end());
  if (between.empty()) {
    m.error = fmt::format("no link joins {} and {}", n.a, n.b);
  } else if (n.index >= long(between.size())) {
    m.error = fmt::format("{} and {} have {} parallel link{}; #{} does not exist", n.a, n.b, between.size(),
                          between.size() == 1 ? "" : "s", n.index);
  } else {
    m.links = n.index >= 0 ? std::vector<unsigned>{between[size_t(n.index)]} : between;
  }
  return m;
}

void apply_failed_links(topology& t, const std::vector<std::string>& entries, const std::string& key) {
  std::set<unsigned> listed;
  for (const auto& e : entries) {
    const link_match m = t.find_links(e);
    if (m.links.empty())
      throw config_error(fmt::format("key '{}': no link named '{}' (links are named like '{}')", key, e,
                                     t.links.back().name));
    for (unsigned i : m.links) {
      if (!listed.insert(i).second)   // a second entry for one link is a typo for another
        throw config_error(fmt::format("key '{}': entry '{}': link {} is listed twice", key, e, t.links[i].name));
      t.links[i].failed = true;
    }
  }
}

void apply_degraded_links(topology& t, const std::vector<std::string>& entries, const std::string& key) {
  std::set<unsigned> degraded;
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
    const link_match m = t.find_links(e.substr(0, eq));
    if (m.links.empty())
      throw config_error(fmt::format("key '{}': no link named '{}' (links are named like '{}')", key,
                                     e.substr(0, eq), t.links.back().name));
    for (unsigned i : m.links)
      if (!degraded.insert(i).second)   // a second entry for one link is a typo for another
        throw config_error(fmt::format("key '{}': entry '{}': link {} is listed twice", key, e, t.links[i].name));
    // Degraded means slower: a rate at or above the link's own is a typo, not a degradation
    // (compared before the rate is made a whole number, which a huge one would overflow).
    for (unsigned i : m.links)
      if (gbps * 1e9 >= double(t.links[i].rate_bps))
        throw config_error(fmt::format("key '{}': entry '{}': {} Gbps is not below the link's own rate of {} Gbps", key, e,
                                       e.substr(eq + 1), double(t.links[i].rate_bps) / 1e9));
    const uint64_t rate = uint64_t(gbps * 1e9 + 0.5);
    if (rate < 1'000'000)   // a rate that rounds to nothing would divide by zero on the wire
      throw config_error(fmt::format("key '{}': entry '{}': {} Gbps is below the smallest rate, 0.001 Gbps", key, e, e.substr(eq + 1)));
    for (unsigned i : m.links) t.links[i].rate_bps = rate;
  }
}

bool edges_connected(unsigned n, const std::vector<std::pair<unsigned, unsigned>>& edges) {
  std::vector<std::vector<unsigned>> adj(n);
  for (const auto& [x, y] : edges) adj[x].push_back(y), adj[y].push_back(x);
  std::vector<bool> seen(n, false);
  std::deque<unsigned> q{0};
  seen[0] = true;
  unsigned reached = 1;
  while (!q.empty()) {
    const unsigned u = q.front();
    q.pop_front();
    for (unsigned v : adj[u])
      if (!seen[v]) seen[v] = true, ++reached, q.push_back(v);
  }
  return reached == n;
}

}  // namespace netasic
