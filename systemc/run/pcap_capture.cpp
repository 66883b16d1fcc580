#include "run/pcap_capture.h"

#include <cctype>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "common/params.h"
#include "fabric/fabric.h"

namespace netasic {
namespace {

// "leaf0..leaf3, spine0..spine1, host0..host15": each name family with its lowest and highest
// number, for an error that says what would have been valid.
std::string node_ranges(const topology& t) {
  std::map<std::string, std::pair<unsigned, unsigned>> families;
  std::vector<std::string> order;
  for (const topo_node& n : t.nodes) {
    size_t d = n.name.size();
    while (d > 0 && std::isdigit(static_cast<unsigned char>(n.name[d - 1]))) --d;
    const std::string stem = n.name.substr(0, d);
    const unsigned num = d < n.name.size() ? unsigned(std::stoul(n.name.substr(d))) : 0;
    auto [it, fresh] = families.try_emplace(stem, num, num);
    if (fresh) order.push_back(stem);
    it->second.first = std::min(it->second.first, num);
    it->second.second = std::max(it->second.second, num);
  }
  std::string out;
  for (const std::string& s : order)
    out += fmt::format("{}{}{}..{}{}", out.empty() ? "" : ", ", s, families[s].first, s, families[s].second);
  return out;
}

void add_port(const topology& t, unsigned node, unsigned port, std::set<std::string>& seen,
              std::vector<pcap_tap_point>& out) {
  const unsigned li = t.nodes[node].port_link[port];
  const bool tx_a_to_b = t.links[li].a == node;
  const std::string base = fmt::format("pcap/{}.p{}", t.nodes[node].name, port);
  for (const bool tx : {true, false}) {
    pcap_tap_point pt{li, tx == tx_a_to_b, base + (tx ? ".tx.pcap" : ".rx.pcap")};
    if (seen.insert(pt.file).second) out.push_back(pt);
  }
}

}  // namespace

std::vector<pcap_tap_point> parse_pcap_ports(const topology& t, const std::string& spec) {
  std::vector<pcap_tap_point> out;
  std::set<std::string> seen;
  if (spec.empty()) return out;
  size_t from = 0;
  while (from <= spec.size()) {
    const size_t comma = std::min(spec.find(',', from), spec.size());
    const std::string item = spec.substr(from, comma - from);
    from = comma + 1;
    const size_t colon = item.find(':');
    const std::string name = item.substr(0, colon), port = colon == std::string::npos ? "*" : item.substr(colon + 1);
    const unsigned node = name.empty() ? topology::no_node : t.find_node(name);
    if (node == topology::no_node)
      throw config_error(fmt::format("--pcap: '{}' names no node of the topology (nodes: {})", item, node_ranges(t)));
    const unsigned ports = unsigned(t.nodes[node].port_link.size());
    if (port == "*") {
      for (unsigned p = 0; p < ports; ++p) add_port(t, node, p, seen, out);
      continue;
    }
    const bool digits = !port.empty() && port.size() < 6 &&
                        port.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoul(port) >= ports)
      throw config_error(fmt::format("--pcap: '{}': {} has ports 0..{} (or * for all)", item, name, ports - 1));
    add_port(t, node, unsigned(std::stoul(port)), seen, out);
  }
  return out;
}

pcap_capture::pcap_capture(fabric& fab, const std::vector<pcap_tap_point>& points, const std::string& run_dir)
    : points_(points) {
  namespace fs = std::filesystem;
  if (!points.empty()) fs::create_directories(fs::path(run_dir) / "pcap");
  for (const pcap_tap_point& pt : points) {
    packet_link& l = fab.links()[pt.link];
    link_direction& d = pt.a_to_b ? l.a_to_b : l.b_to_a;
    restore_.emplace_back(&d, d.tap);
    writers_.push_back(std::make_unique<pcap_writer>((fs::path(run_dir) / pt.file).string(), d.tap));
    d.tap = writers_.back().get();
  }
}

nlohmann::json pcap_capture::finish() {
  // Taps back as they were, in reverse (a direction tapped twice ends with its first tap).
  for (auto it = restore_.rbegin(); it != restore_.rend(); ++it) it->first->tap = it->second;
  nlohmann::json files = nlohmann::json::array();
  for (size_t i = 0; i < writers_.size(); ++i) {
    writers_[i]->close();
    files.push_back({{"file", points_[i].file}, {"frames", writers_[i]->frames()}, {"bytes", writers_[i]->bytes()}});
  }
  return files;
}

}  // namespace netasic
