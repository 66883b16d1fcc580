#include "topology/topology_file.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <deque>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "common/file_io.h"
#include "common/params.h"

namespace netasic {

namespace {

struct device_decl {
  node_kind kind;
  std::string name;
  size_t line;
  unsigned ports = 0;       // 0: as many as its links
  unsigned tier = 1;
};

struct link_end {
  std::string name;
  long port = -1;           // -1: the lowest port no END names
  unsigned device = 0;
};

struct link_decl {
  link_end end[2];
  size_t line;
  double rate_gbps = 0, delay_ns = -1, degraded_gbps = 0;   // 0 / -1: the scenario's default
  bool failed = false;
};

struct reader {
  std::string source;
  std::vector<device_decl> devices;
  std::vector<link_decl> links;
  std::map<std::string, unsigned> by_name;

  [[noreturn]] void fail(size_t line, const std::string& what) const {
    throw config_error(fmt::format("{}:{}: {}", source, line, what));
  }
  void statement(size_t line, const std::vector<std::string>& words);
  void device(size_t line, node_kind kind, const std::vector<std::string>& words);
  void link(size_t line, const std::vector<std::string>& words);
  link_end end(size_t line, const std::string& word) const;
  double number(size_t line, const std::string& key, const std::string& value, double lo, double hi) const;
  unsigned whole(size_t line, const std::string& key, const std::string& value, unsigned lo, unsigned hi) const {
    const double v = number(line, key, value, lo, hi);
    if (v != std::floor(v)) fail(line, fmt::format("{}={}: must be a whole number", key, value));
    return unsigned(v);
  }
};

bool valid_name(const std::string& n) {
  return !n.empty() && std::all_of(n.begin(), n.end(), [](char c) { return std::isalnum((unsigned char)c) || c == '_' || c == '.'; });
}

double reader::number(size_t line, const std::string& key, const std::string& value, double lo, double hi) const {
  double v = 0;
  const auto res = std::from_chars(value.data(), value.data() + value.size(), v);
  if (res.ec != std::errc() || res.ptr != value.data() + value.size() || !std::isfinite(v))
    fail(line, fmt::format("{}={}: '{}' is not a number", key, value, value));
  if (v < lo || v > hi) fail(line, fmt::format("{}={}: must be between {} and {}", key, value, lo, hi));
  return v;
}

void reader::statement(size_t line, const std::vector<std::string>& w) {
  if (w[0] == "switch") device(line, node_kind::sw, w);
  else if (w[0] == "host") device(line, node_kind::host, w);
  else if (w[0] == "link") link(line, w);
  else fail(line, fmt::format("'{}' is not a statement; a line is 'switch NAME ...', 'host NAME' or 'link END END ...'", w[0]));
}

void reader::device(size_t line, node_kind kind, const std::vector<std::string>& w) {
  if (w.size() < 2) fail(line, fmt::format("'{}' needs a name", w[0]));
  device_decl d{kind, w[1], line};
  if (!valid_name(d.name)) fail(line, fmt::format("'{}' is not a name: use letters, digits, '_' and '.'", d.name));
  if (const auto it = by_name.find(d.name); it != by_name.end())
    fail(line, fmt::format("'{}' is already declared on line {}", d.name, devices[it->second].line));
  for (size_t i = 2; i < w.size(); ++i) {
    const size_t eq = w[i].find('=');
    const std::string key = w[i].substr(0, eq), value = eq == std::string::npos ? "" : w[i].substr(eq + 1);
    if (kind == node_kind::sw && key == "ports" && eq != std::string::npos) d.ports = whole(line, key, value, 1, 4096);
    else if (kind == node_kind::sw && key == "tier" && eq != std::string::npos) d.tier = whole(line, key, value, 1, 8);
    else fail(line, fmt::format("'{}' is not an attribute of a {} ({})", w[i], w[0], kind == node_kind::sw ? "ports=N, tier=T" : "it has none"));
  }
  by_name[d.name] = unsigned(devices.size());
  devices.push_back(d);
}

link_end reader::end(size_t line, const std::string& word) const {
  link_end e;
  const size_t colon = word.find(':');
  e.name = word.substr(0, colon);
  if (colon != std::string::npos) {
    const std::string p = word.substr(colon + 1);
    if (p.empty() || p.size() > 5 || p.find_first_not_of("0123456789") != std::string::npos)
      fail(line, fmt::format("'{}': the port after ':' must be a number, e.g. {}:0", word, e.name));
    e.port = std::stol(p);
  }
  return e;
}

void reader::link(size_t line, const std::vector<std::string>& w) {
  if (w.size() < 3) fail(line, "a link names its two ends: link A B, or link A:PORT B:PORT");
  link_decl l{{end(line, w[1]), end(line, w[2])}, line};
  for (size_t i = 3; i < w.size(); ++i) {
    const size_t eq = w[i].find('=');
    const std::string key = w[i].substr(0, eq), value = eq == std::string::npos ? "" : w[i].substr(eq + 1);
    if (w[i] == "failed") l.failed = true;
    else if (key == "rate" && eq != std::string::npos) l.rate_gbps = number(line, key, value, 0.001, 1e5);
    else if (key == "delay" && eq != std::string::npos) l.delay_ns = number(line, key, value, 0, 1e9);
    else if (key == "degraded" && eq != std::string::npos) l.degraded_gbps = number(line, key, value, 0.001, 1e5);
    else fail(line, fmt::format("'{}' is not an attribute of a link (rate=GBPS, delay=NS, failed, degraded=GBPS)", w[i]));
  }
  if (l.failed && l.degraded_gbps > 0) fail(line, "a link is failed or degraded, not both");
  links.push_back(l);
}

std::vector<std::string> words_of(const std::string& text) {
  std::istringstream in(text.substr(0, text.find('#')));
  std::vector<std::string> w;
  for (std::string s; in >> s;) w.push_back(s);
  return w;
}

// Every END's device, and what no link may be: to itself, host to host.
void resolve_ends(reader& r) {
  for (link_decl& l : r.links) {
    for (link_end& e : l.end) {
      const auto it = r.by_name.find(e.name);
      if (it == r.by_name.end()) r.fail(l.line, fmt::format("no switch or host is named '{}'", e.name));
      e.device = it->second;
      const device_decl& d = r.devices[e.device];
      if (d.kind == node_kind::host && e.port > 0) r.fail(l.line, fmt::format("host {} has one port, 0; there is no port {}", e.name, e.port));
      if (d.ports && e.port >= long(d.ports))
        r.fail(l.line, fmt::format("{} has {} ports (ports={} on line {}); port {} does not exist", e.name, d.ports, d.ports, d.line, e.port));
    }
    if (l.end[0].device == l.end[1].device) r.fail(l.line, fmt::format("the link joins {} to itself", l.end[0].name));
    if (r.devices[l.end[0].device].kind == node_kind::host && r.devices[l.end[1].device].kind == node_kind::host)
      r.fail(l.line, fmt::format("the link joins two hosts ({} and {}); a host hangs off a switch", l.end[0].name, l.end[1].name));
  }
}

// Port numbers: the named ones first (each used once), then the lowest free ones in line order.
// Returns each device's port -> link index.
std::vector<std::vector<long>> assign_ports(reader& r) {
  std::vector<std::vector<long>> owner(r.devices.size());   // port -> link, -1 free
  auto take = [&](link_end& e, unsigned li) {
    auto& o = owner[e.device];
    if (size_t(e.port) >= o.size()) o.resize(size_t(e.port) + 1, -1);
    if (o[size_t(e.port)] >= 0)
      r.fail(r.links[li].line, fmt::format("port {} of {} is already used by the link on line {}", e.port, e.name,
                                           r.links[size_t(o[size_t(e.port)])].line));
    o[size_t(e.port)] = long(li);
  };
  for (unsigned li = 0; li < r.links.size(); ++li)
    for (link_end& e : r.links[li].end)
      if (e.port >= 0) take(e, li);
  for (unsigned li = 0; li < r.links.size(); ++li)
    for (link_end& e : r.links[li].end) {
      if (e.port >= 0) continue;
      const auto& o = owner[e.device];
      e.port = long(std::find(o.begin(), o.end(), -1) - o.begin());
      const device_decl& d = r.devices[e.device];
      if (d.kind == node_kind::host && e.port > 0)
        r.fail(r.links[li].line, fmt::format("host {} is already on the link on line {}; a host has one port", e.name, r.links[size_t(o[0])].line));
      if (d.ports && e.port >= long(d.ports))
        r.fail(r.links[li].line, fmt::format("{} has no free port left (ports={} on line {})", e.name, d.ports, d.line));
      take(e, li);
    }
  return owner;
}

// What the port assignment leaves open: a declared port no link uses, a host on no link, the
// hosts of one switch apart from each other in declaration order.
void check_devices(const reader& r, const std::vector<std::vector<long>>& owner) {
  std::vector<unsigned> host_switch(r.devices.size(), ~0u);
  for (unsigned u = 0; u < r.devices.size(); ++u) {
    const device_decl& d = r.devices[u];
    if (d.kind == node_kind::host) {
      if (owner[u].empty()) r.fail(d.line, fmt::format("host {} is on no switch: no link names it", d.name));
      const link_decl& l = r.links[size_t(owner[u][0])];
      host_switch[u] = l.end[l.end[0].device == u ? 1 : 0].device;
      continue;
    }
    if (owner[u].empty()) r.fail(d.line, fmt::format("switch {} has no link", d.name));
    const size_t ports = d.ports ? d.ports : owner[u].size();
    for (size_t p = 0; p < ports; ++p)
      if (p >= owner[u].size() || owner[u][p] < 0)
        r.fail(d.line, fmt::format("port {} of {} is dangling: {} has {} ports but no link uses port {}", p, d.name, d.name, ports, p));
  }
  std::map<unsigned, unsigned> last_host;   // switch -> its latest host so far
  unsigned previous = ~0u;
  for (unsigned u = 0; u < r.devices.size(); ++u) {
    if (r.devices[u].kind != node_kind::host) continue;
    const unsigned sw = host_switch[u];
    if (last_host.count(sw) && previous != sw)
      r.fail(r.devices[u].line, fmt::format("host {} hangs off {}, whose other hosts end with {} on line {}; declare the hosts of a "
                                            "switch one after another (host numbers are declaration order)", r.devices[u].name,
                                            r.devices[sw].name, r.devices[last_host[sw]].name, r.devices[last_host[sw]].line));
    last_host[sw] = u;
    previous = sw;
  }
}

// The switches and the links between them form one graph (failed links included: a failure is a
// state of the fabric, not its shape).
void check_connected(const reader& r) {
  std::vector<std::vector<unsigned>> adj(r.devices.size());
  for (const link_decl& l : r.links) adj[l.end[0].device].push_back(l.end[1].device), adj[l.end[1].device].push_back(l.end[0].device);
  unsigned first = ~0u;
  for (unsigned u = 0; u < r.devices.size() && first == ~0u; ++u)
    if (r.devices[u].kind == node_kind::sw) first = u;
  std::vector<bool> seen(r.devices.size(), false);
  std::deque<unsigned> q{first};
  seen[first] = true;
  while (!q.empty()) {
    const unsigned u = q.front();
    q.pop_front();
    for (unsigned v : adj[u])
      if (!seen[v] && r.devices[v].kind == node_kind::sw) seen[v] = true, q.push_back(v);
  }
  for (unsigned u = 0; u < r.devices.size(); ++u)
    if (r.devices[u].kind == node_kind::sw && !seen[u])
      r.fail(r.devices[u].line, fmt::format("the fabric is disconnected: switch {} cannot reach switch {} (line {})",
                                            r.devices[u].name, r.devices[first].name, r.devices[first].line));
}

topology build(const reader& r, const std::vector<std::vector<long>>& owner, const topology_file_defaults& dflt) {
  topology t;
  for (const device_decl& d : r.devices) t.add_node(d.kind, d.name, d.kind == node_kind::host ? 0 : d.tier);
  std::map<std::pair<unsigned, unsigned>, unsigned> parallel;
  for (const link_decl& l : r.links) {
    // The lower tier first, as the builders have it ("host3-leaf0", "leaf0-spine1").
    const bool swap = t.nodes[l.end[1].device].tier < t.nodes[l.end[0].device].tier;
    const link_end &a = l.end[swap ? 1 : 0], &b = l.end[swap ? 0 : 1];
    const bool host_link = t.nodes[a.device].kind == node_kind::host;
    topo_link k;
    k.a = a.device, k.b = b.device, k.a_port = unsigned(a.port), k.b_port = unsigned(b.port);
    k.rate_bps = l.rate_gbps > 0 ? uint64_t(std::llround(l.rate_gbps * 1e9)) : host_link ? dflt.host_rate_bps : dflt.uplink_rate_bps;
    k.delay_ps = l.delay_ns >= 0 ? uint64_t(std::llround(l.delay_ns * 1e3)) : dflt.delay_ps;
    if (l.degraded_gbps > 0) {
      const uint64_t slow = uint64_t(std::llround(l.degraded_gbps * 1e9));
      if (slow >= k.rate_bps)
        r.fail(l.line, fmt::format("degraded={} Gbps is not below the link's rate of {} Gbps", l.degraded_gbps, double(k.rate_bps) / 1e9));
      k.rate_bps = slow;
    }
    k.failed = l.failed;
    const unsigned idx = parallel[{std::min(k.a, k.b), std::max(k.a, k.b)}]++;
    k.name = host_link ? fmt::format("{}-{}", a.name, b.name) : fmt::format("{}-{}#{}", a.name, b.name, idx);
    t.links.push_back(k);
  }
  for (unsigned u = 0; u < t.nodes.size(); ++u)
    for (long li : owner[u]) t.nodes[u].port_link.push_back(unsigned(li));
  return t;
}

}  // namespace

topology parse_topology_text(const std::string& text, const std::string& source, const topology_file_defaults& d) {
  reader r;
  r.source = source;
  std::istringstream in(text);
  size_t line = 0;
  for (std::string s; std::getline(in, s);) {
    ++line;
    const std::vector<std::string> w = words_of(s);
    if (!w.empty()) r.statement(line, w);
  }
  if (std::none_of(r.devices.begin(), r.devices.end(), [](const device_decl& x) { return x.kind == node_kind::host; }))
    r.fail(std::max<size_t>(line, 1), "the file declares no host");
  if (std::none_of(r.devices.begin(), r.devices.end(), [](const device_decl& x) { return x.kind == node_kind::sw; }))
    r.fail(std::max<size_t>(line, 1), "the file declares no switch");
  resolve_ends(r);
  const std::vector<std::vector<long>> owner = assign_ports(r);
  check_devices(r, owner);
  check_connected(r);
  return build(r, owner, d);
}

topology read_topology_file(const std::string& path, const topology_file_defaults& d) {
  std::ifstream in;
  if (!open_input(in, path)) throw config_error(fmt::format("cannot read the topology file '{}'", path));
  std::stringstream s;
  s << in.rdbuf();
  return parse_topology_text(s.str(), path, d);
}

}  // namespace netasic
