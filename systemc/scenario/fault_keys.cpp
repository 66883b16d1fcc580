#include "scenario/fault_keys.h"

#include <algorithm>
#include <sstream>
#include <tuple>
#include <utility>

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

// "US": a time in us, the whole token a number in [0, 1e9], else the entry's error under `key`.
uint64_t entry_time_ps(const config& c, const char* key, const std::string& e, const std::string& token, const std::string& what) {
  double us = -1;
  size_t used = 0;
  try {
    us = std::stod(token, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != token.size() || !(us >= 0 && us <= 1e9))
    fail(c, key, fmt::format("entry '{}': {} '{}' must be a time in us, from 0 to 1e9", e, what, token));
  return to_ps(us, 1e6);
}

// The switch and host an entry names, as indices, else the entry's error under `key`.
std::pair<unsigned, unsigned> switch_and_host(const config& c, const char* key, const topology& t, const std::string& e,
                                              const std::string& sw, const std::string& host) {
  const unsigned s = t.find_node(sw), h = t.find_node(host);
  if (s == topology::no_node || t.nodes[s].kind != node_kind::sw)
    fail(c, key, fmt::format("entry '{}': no switch named '{}'", e, sw));
  if (h == topology::no_node || t.nodes[h].kind != node_kind::host)
    fail(c, key, fmt::format("entry '{}': no host named '{}'", e, host));
  return {unsigned(std::find(t.switches.begin(), t.switches.end(), s) - t.switches.begin()),
          unsigned(std::find(t.hosts.begin(), t.hosts.end(), h) - t.hosts.begin())};
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
    from_ps = entry_time_ps(c, key, e, host.substr(at + 1), "start time @");
    host = host.substr(0, at);
  }
  const auto [si, hi] = switch_and_host(c, key, t, e, sw, host);
  for (const auto& b : f.faults.black_holes)
    if (b.sw == si && b.host == hi) fail(c, key, fmt::format("entry '{}' is listed twice", e));
  f.faults.black_holes.push_back({si, hi, from_ps});
}

// "SWITCH=HOST->NEXT[@US[-US]]": SWITCH sends HOST's packets to its neighbour NEXT.
void read_misroute(const config& c, fabric_config& fc, const std::string& e) {
  const char* key = "faults.misroute";
  const topology& t = fc.topo;
  std::string sw, rest;
  const size_t arrow = e.find("->");
  if (!split_entry(e.substr(0, arrow), sw, rest) || arrow == std::string::npos || arrow + 2 == e.size())
    fail(c, key, fmt::format("entry '{}' must be SWITCH=HOST->NEXT (the switch sends every packet to HOST to its neighbour "
                             "NEXT), with @US or @US-US for when, e.g. 'edge0=host0->agg0@10000'", e));
  std::string next = e.substr(arrow + 2);
  fault_config::misroute f;
  switch_config::misroute& m = f.entry;
  if (const size_t at = next.find('@'); at != std::string::npos) {
    const std::string when = next.substr(at + 1);
    next = next.substr(0, at);
    const size_t dash = when.find('-');
    m.from_ps = entry_time_ps(c, key, e, when.substr(0, dash), "start time @");
    if (dash != std::string::npos) {
      m.to_ps = entry_time_ps(c, key, e, when.substr(dash + 1), "end time");
      if (m.to_ps <= m.from_ps) fail(c, key, fmt::format("entry '{}': the end time must be after the start time", e));
    }
  }
  std::tie(f.sw, m.host) = switch_and_host(c, key, t, e, sw, rest);
  const unsigned node = t.switches[f.sw], to = t.find_node(next);
  if (to == topology::no_node || t.nodes[to].kind != node_kind::sw)
    fail(c, key, fmt::format("entry '{}': no switch named '{}' (NEXT must be a switch)", e, next));
  const auto& ports = t.nodes[node].port_link;
  const auto li = std::find_if(ports.begin(), ports.end(), [&](unsigned l) { return t.links[l].other(node) == to && !t.links[l].failed; });
  if (li == ports.end()) fail(c, key, fmt::format("entry '{}': {} has no working link to {}", e, sw, next));
  m.port = unsigned(li - ports.begin());
  for (const auto& o : fc.faults.misroutes)
    if (o.sw == f.sw && o.entry.host == m.host && m.from_ps < o.entry.to_ps && o.entry.from_ps < m.to_ps)
      fail(c, key, fmt::format("entry '{}': overlaps another entry for {} at {}", e, rest, sw));
  fc.faults.misroutes.push_back(f);
}

// "LINK down@US up@US [every US]": the link's outage [down, up), repeated every US when given.
fault_config::link_flap parse_link_flap(const config& c, const topology& t, const std::string& e, std::vector<unsigned>& links) {
  const char* key = "faults.link_flap";
  std::istringstream in(e);
  std::vector<std::string> w;
  for (std::string tok; in >> tok;) w.push_back(tok);
  const auto starts = [](const std::string& s, const char* p) { return s.rfind(p, 0) == 0; };
  if (!((w.size() == 3 || (w.size() == 5 && w[3] == "every")) && starts(w[1], "down@") && starts(w[2], "up@")))
    fail(c, key, fmt::format("entry '{}' must be \"LINK down@US up@US\" or \"LINK down@US up@US every US\", e.g. '{} down@500 "
                             "up@700 every 1000'", e, t.links.empty() ? "leaf0-spine0" : t.links.front().name));
  const link_match m = t.find_links(w[0]);
  if (m.links.empty()) fail(c, key, fmt::format("entry '{}': {}", e, m.error));
  for (unsigned li : m.links)
    if (t.links[li].failed)
      fail(c, key, fmt::format("entry '{}': link {} is down for the whole run (topology.failed_links)", e, t.links[li].name));
  links = m.links;
  fault_config::link_flap f;
  f.down_ps = entry_time_ps(c, key, e, w[1].substr(5), "down@");
  f.up_ps = entry_time_ps(c, key, e, w[2].substr(3), "up@");
  if (f.up_ps <= f.down_ps) fail(c, key, fmt::format("entry '{}': the link must come up after it goes down", e));
  if (w.size() == 5) {
    f.every_ps = entry_time_ps(c, key, e, w[4], "every");
    if (f.every_ps <= f.up_ps - f.down_ps)
      fail(c, key, fmt::format("entry '{}': the period {} us must be longer than the outage ({} us), or the outages overlap", e,
                               w[4], double(f.up_ps - f.down_ps) * 1e-6));
  }
  const uint64_t end_ps = to_ps(c.real("sim.duration"), 1e6) + to_ps(c.real("sim.drain"), 1e6);
  if (f.down_ps >= end_ps)
    fail(c, key, fmt::format("entry '{}': down@{} is at or after the end of the run ({} us: sim.duration + sim.drain)", e,
                             w[1].substr(5), double(end_ps) * 1e-6));
  return f;
}

void read_link_flap(const config& c, fabric_config& f, const std::string& e) {
  std::vector<unsigned> links;
  const fault_config::link_flap flap = parse_link_flap(c, f.topo, e, links);
  // One link's outages must not overlap: a periodic entry is its link's only one, one-off ones
  // must be disjoint.
  for (const fault_config::link_flap& o : f.faults.link_flaps)
    for (unsigned li : links) {
      if (o.link != li) continue;
      if (o.every_ps || flap.every_ps)
        fail(c, "faults.link_flap", fmt::format("entry '{}': link {} has another entry, and one of them repeats: a repeating "
                                                "entry must be its link's only one", e, f.topo.links[li].name));
      if (flap.down_ps < o.up_ps && o.down_ps < flap.up_ps)
        fail(c, "faults.link_flap", fmt::format("entry '{}': its outage of link {} overlaps another entry's", e, f.topo.links[li].name));
    }
  for (unsigned li : links) {
    fault_config::link_flap one = flap;
    one.link = li;
    f.faults.link_flaps.push_back(one);
  }
}

}  // namespace

void declare_fault_keys(param_registry& r) {
  r.string_list("faults.link_drop", "", {},
                "Random drops on link directions: \"FROM-TO=RATE\" (or \"FROM-TO#i=RATE\", the link grammar) loses each frame "
                "from FROM to TO with probability RATE in [0, 1], drawn from sim.seed (a bad FCS: the frame takes its wire time)");
  r.string_list("faults.black_hole", "", {},
                "Destination black holes: \"SWITCH=HOST\" drops, in the switch's ingress tables, every packet to HOST; "
                "\"SWITCH=HOST@US\" from US microseconds on");
  r.string_list("faults.misroute", "", {},
                "Stale route entries: \"SWITCH=HOST->NEXT\" makes SWITCH send every packet to HOST to its neighbour switch NEXT, "
                "whatever its routes say; \"...@US\" from US microseconds on, \"...@US-US\" over that window. When NEXT routes HOST "
                "back through SWITCH, the packets loop until their TTL runs out (drops.ttl_expired), as the thesis's transient "
                "loop (§4.6.1)");
  r.string_list("faults.link_flap", "", {},
                "Links that go down and come back: \"LINK down@US up@US\" takes LINK (the link grammar: FROM-TO, every parallel "
                "link, or FROM-TO#i) down at US microseconds and up at US; \"... every US\" repeats the outage with that period to "
                "the end of the run. Frames sent onto a down link or on its wire when it fails are lost (drops.link_down)");
}

void read_faults(const config& c, fabric_config& f) {
  for (const std::string& e : c.list("faults.link_drop")) read_link_drop(c, f, e);
  for (const std::string& e : c.list("faults.black_hole")) read_black_hole(c, f, e);
  for (const std::string& e : c.list("faults.link_flap")) read_link_flap(c, f, e);
  for (const std::string& e : c.list("faults.misroute")) read_misroute(c, f, e);
}

}  // namespace netasic
