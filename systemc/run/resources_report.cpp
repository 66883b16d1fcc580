#include "run/resources_report.h"

#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "switch/resources.h"

namespace netasic {

std::string resources_report(const config& cfg, const fabric_config& fc, bool& fits) {
  stage_budget b;
  b.stages = unsigned(cfg.integer("switch.stages"));
  b.sram_blocks = unsigned(cfg.integer("switch.stage.sram_blocks"));
  b.sram_block_words = unsigned(cfg.integer("switch.stage.sram_block_words"));
  b.sram_word_bits = unsigned(cfg.integer("switch.stage.sram_word_bits"));
  b.tcam_blocks = unsigned(cfg.integer("switch.stage.tcam_blocks"));
  b.tcam_block_words = unsigned(cfg.integer("switch.stage.tcam_block_words"));
  b.tcam_word_bits = unsigned(cfg.integer("switch.stage.tcam_word_bits"));
  b.stateful_alus = unsigned(cfg.integer("switch.stage.stateful_alus"));
  b.hash_bits = unsigned(cfg.integer("switch.stage.hash_bits"));
  b.action_slots = unsigned(cfg.integer("switch.stage.action_slots"));
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
