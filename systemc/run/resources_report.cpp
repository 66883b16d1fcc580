#include "run/resources_report.h"

#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "scenario/scenario.h"
#include "scenario/switch_keys.h"
#include "switch/resources.h"

namespace netasic {

std::string resources_report(const config& cfg, bool& fits) {
  const fabric_config fc = make_fabric_config(cfg);
  const stage_budget b = make_stage_budget(cfg);
  // Every switch runs the same program; only its port count changes it. Group switches by it.
  std::map<unsigned, std::vector<std::string>> by_ports;
  for (unsigned s : fc.topo.switches)
    by_ports[unsigned(fc.topo.nodes[s].port_link.size())].push_back(fc.topo.nodes[s].name);
  std::string out = fmt::format("netasic resources: {} ({} switches)\n", cfg.string("scenario.name"), fc.topo.switches.size());
  fits = true;
  for (const auto& [ports, names] : by_ports) {
    const program prog = forwarding_program(fc.topo.hosts.size(), fc.sw.member_capacity, ports, fc.nic.int_enabled,
                                            fc.sw.mirror.to != mirror_config::target::off);
    const allocation a = allocate(prog, b);
    fits = fits && a.fits;
    out += fmt::format("\n== {} switch{} with {} ports: {}{} ==\n", names.size(), names.size() > 1 ? "es" : "", ports,
                       fmt::join(names.begin(), names.begin() + std::min<size_t>(names.size(), 8), ", "),
                       names.size() > 8 ? ", ..." : "");
    out += format_allocation(a, b);
  }
  return out;
}

}  // namespace netasic
