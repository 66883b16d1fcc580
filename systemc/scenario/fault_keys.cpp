#include "scenario/fault_keys.h"

#include <fmt/format.h>

#include "scenario/checks.h"

namespace netasic {
namespace {

// "NAME=VALUE" split at its last '='; false when there is none or either side is empty.
bool split_entry(const std::string& e, std::string& name, std::string& value) {
  const size_t eq = e.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == e.size()) return false;
  name = e.substr(0, eq);
  value = e.substr(eq + 1);
  return true;
}

void read_link_drop(const config& c, fabric_config& f, const std::string& e) {
  const char* key = "faults.link_drop";
  const topology& t = f.topo;
  std::string name, value;
  if (!split_entry(e, name, value))
    fail(c, key, fmt::format("entry '{}' must be FROM-TO=RATE (frames from FROM to TO lost with probability RATE), e.g. '{}=0.01'",
                             e, t.links.empty() ? "leaf0-spine0" : t.links.front().name));
  double rate = 0;
  size_t used = 0;
  try {
    rate = std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != value.size()) fail(c, key, fmt::format("entry '{}': '{}' is not a number", e, value));
  if (!(rate >= 0 && rate <= 1)) fail(c, key, fmt::format("entry '{}': rate {} is outside [0, 1]", e, value));
  const link_match m = t.find_links(name);
  if (m.links.empty()) fail(c, key, fmt::format("entry '{}': {}", e, m.error));
  const unsigned from = t.find_node(name.substr(0, name.find('-')));
  for (unsigned li : m.links) {
    const uint8_t dir = t.links[li].a == from ? 0 : 1;
    for (const auto& d : f.faults.link_drops)
      if (d.link == li && d.dir == dir)
        fail(c, key, fmt::format("entry '{}': the direction {} of link {} is listed twice", e, name, t.links[li].name));
    f.faults.link_drops.push_back({li, dir, rate});
  }
}

void read_black_hole(const config& c, fabric_config& f, const std::string& e) {
  const char* key = "faults.black_hole";
  const topology& t = f.topo;
  std::string sw, host;
  if (!split_entry(e, sw, host))
    fail(c, key, fmt::format("entry '{}' must be SWITCH=HOST (the switch drops every packet to the host), e.g. '{}={}'", e,
                             t.switches.empty() ? "leaf0" : t.nodes[t.switches.back()].name,
                             t.hosts.empty() ? "host0" : t.nodes[t.hosts.back()].name));
  uint64_t from_ps = 0;
  if (const size_t at = host.find('@'); at != std::string::npos) {
    const std::string when = host.substr(at + 1);
    host = host.substr(0, at);
    double us = -1;
    size_t used = 0;
    try {
      us = std::stod(when, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != when.size() || !(us >= 0 && us <= 1e9))
      fail(c, key, fmt::format("entry '{}': '@{}' must be a start time in us, from 0 to 1e9", e, when));
    from_ps = to_ps(us, 1e6);
  }
  const unsigned s = t.find_node(sw), h = t.find_node(host);
  if (s == topology::no_node || t.nodes[s].kind != node_kind::sw)
    fail(c, key, fmt::format("entry '{}': no switch named '{}'", e, sw));
  if (h == topology::no_node || t.nodes[h].kind != node_kind::host)
    fail(c, key, fmt::format("entry '{}': no host named '{}'", e, host));
  const unsigned si = unsigned(std::find(t.switches.begin(), t.switches.end(), s) - t.switches.begin());
  const unsigned hi = unsigned(std::find(t.hosts.begin(), t.hosts.end(), h) - t.hosts.begin());
  for (const auto& b : f.faults.black_holes)
    if (b.sw == si && b.host == hi) fail(c, key, fmt::format("entry '{}' is listed twice", e));
  f.faults.black_holes.push_back({si, hi, from_ps});
}

}  // namespace

void declare_fault_keys(param_registry& r) {
  r.string_list("faults.link_drop", "", {},
                "Random drops on link directions: \"FROM-TO=RATE\" (or \"FROM-TO#i=RATE\", the link grammar) loses each frame "
                "from FROM to TO with probability RATE in [0, 1], drawn from sim.seed (a bad FCS: the frame takes its wire time)");
  r.string_list("faults.black_hole", "", {},
                "Destination black holes: \"SWITCH=HOST\" drops, in the switch's ingress tables, every packet to HOST; "
                "\"SWITCH=HOST@US\" from US microseconds on");
}

void read_faults(const config& c, fabric_config& f) {
  for (const std::string& e : c.list("faults.link_drop")) read_link_drop(c, f, e);
  for (const std::string& e : c.list("faults.black_hole")) read_black_hole(c, f, e);
}

}  // namespace netasic
