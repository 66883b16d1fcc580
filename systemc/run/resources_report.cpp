#include "run/resources_report.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fabric/route_planner.h"
#include "scenario/scenario.h"
#include "scenario/switch_keys.h"
#include "sizing/switch_program.h"
#include "sizing/target.h"

namespace netasic {

namespace {

// Switches that run one program: same ports, host ports and CONGA role.
struct switch_group {
  switch_program_inputs in;
  std::vector<std::string> names;
  program prog;
  allocation alloc;
};

// KSP's path table per switch (route_table.h): path entries and path counts, by switch index.
struct path_tables {
  std::vector<uint64_t> entries, counts;
};

path_tables path_tables_of(const fabric_config& fc) {
  path_tables p;
  p.entries.assign(fc.topo.switches.size(), 0);
  p.counts.assign(fc.topo.switches.size(), 0);
  if (fc.sw.routing != route_kind::ksp) return p;
  const route_plan plan = plan_fabric_routes(fc.topo, fc.sw);
  for (size_t s = 0; s < plan.per_switch.size(); ++s)
    p.entries[s] = plan.per_switch[s].paths.size(), p.counts[s] = plan.per_switch[s].path_counts.size();
  return p;
}

// One line on the path table: entries per switch, key width and memory, with units. The memory
// is the exact-match key plus the egress port per entry, rounded up to whole bytes.
std::string path_table_line(const path_tables& p, uint64_t prefixes, unsigned ports) {
  if (p.entries.empty()) return "";
  const uint64_t most = *std::max_element(p.entries.begin(), p.entries.end());
  if (!most) return "";
  uint64_t sum = 0;
  for (uint64_t e : p.entries) sum += e;
  const unsigned key = path_key_bits(prefixes), result = path_result_bits(ports), entry_bytes = (key + result + 7) / 8;
  const uint64_t most_counts = *std::max_element(p.counts.begin(), p.counts.end());
  return fmt::format("path table (topology.routing = \"ksp\"): {} entries per switch at most, {:.1f} on average over {} "
                     "switches; match key {} bits (source prefix {} + destination prefix {} + path id {}), egress "
                     "port {} bits; {} B per entry, {} B in the fullest switch; plus up to {} path counts per source ToR\n",
                     most, double(sum) / double(p.entries.size()), p.entries.size(), key, (key - route_table::path_id_bits) / 2,
                     (key - route_table::path_id_bits) / 2, route_table::path_id_bits, result, entry_bytes, most * entry_bytes, most_counts);
}

std::vector<switch_group> build_groups(const config& cfg, const stage_budget& b, std::string* path_line = nullptr) {
  const fabric_config fc = make_fabric_config(cfg);
  const path_tables paths = path_tables_of(fc);
  const bool sundial = cfg.string("clock.algorithm") == "sundial";
  // The route tables' sizes (route_table.h): a prefix per switch with hosts; a host route per
  // attached host whose link is up, and in every switch a null route per host whose link is down.
  uint64_t prefixes = 0, down_hosts = 0;
  for (unsigned s : fc.topo.switches) {
    bool any = false;
    for (unsigned li : fc.topo.nodes[s].port_link) any = any || fc.topo.nodes[fc.topo.links[li].other(s)].kind == node_kind::host;
    prefixes += any;
  }
  for (unsigned h : fc.topo.hosts) down_hosts += fc.topo.links[fc.topo.nodes[h].port_link[0]].failed;
  std::map<std::tuple<unsigned, unsigned, bool, uint64_t>, switch_group> by_program;
  for (unsigned s = 0; s < fc.topo.switches.size(); ++s) {
    const topo_node& n = fc.topo.nodes[fc.topo.switches[s]];
    unsigned host_ports = 0, live_hosts = 0;
    for (unsigned li : n.port_link) {
      const topo_link& l = fc.topo.links[li];
      const bool to_host = fc.topo.nodes[l.a].kind == node_kind::host || fc.topo.nodes[l.b].kind == node_kind::host;
      host_ports += to_host;
      live_hosts += to_host && !l.failed;
    }
    const bool leaf = fc.sw.lb.mode == lb_mode::conga && s < fc.sw.lb.leaves;   // leaves come first (fabric.cpp)
    const uint64_t host_routes = live_hosts + down_hosts;
    switch_group& g = by_program[{unsigned(n.port_link.size()), host_ports, leaf, host_routes}];
    if (g.names.empty()) {
      g.in = switch_program_inputs{fc.sw, prefixes, unsigned(n.port_link.size()), host_ports, leaf,
                                   fc.nic.int_enabled, sundial, fc.nic.max_frame_bytes(), fc.nic.window_packets,
                                   fc.lossradar, host_routes};
    }
    g.names.push_back(n.name);
    // One program for the group: sized for its fullest path table.
    g.in.path_entries = std::max(g.in.path_entries, paths.entries[s]);
    g.in.path_counts = std::max(g.in.path_counts, paths.counts[s]);
  }
  if (path_line) {
    unsigned ports = 0;
    for (unsigned s : fc.topo.switches) ports = std::max(ports, unsigned(fc.topo.nodes[s].port_link.size()));
    *path_line = path_table_line(paths, prefixes, ports);
  }
  std::vector<switch_group> groups;
  for (auto& [key, g] : by_program) {
    g.prog = switch_program(g.in);
    g.alloc = allocate(g.prog, b);
    groups.push_back(std::move(g));
  }
  return groups;
}

std::string describe_group(const switch_group& g) {
  const size_t n = g.names.size();
  return fmt::format("{} switch{} with {} ports{}: {}{}", n, n > 1 ? "es" : "", g.in.ports,
                     g.in.conga_leaf ? " (CONGA leaf)" : "",
                     fmt::join(g.names.begin(), g.names.begin() + std::min<size_t>(n, 8), ", "), n > 8 ? ", ..." : "");
}

std::vector<block_usage> usage_by_block(const switch_group& g) {
  std::vector<block_usage> out;
  const auto block = [&out](const std::string& f) -> block_usage& {
    for (block_usage& u : out)
      if (u.feature == f) return u;
    out.push_back(block_usage{});
    out.back().feature = f;
    return out.back();
  };
  for (const std::string& f : g.prog.features()) block(f);
  for (const placement& p : g.alloc.placed)
    for (const stage_part& part : p.parts) {
      block_usage& u = block(p.feature);
      u.sram_blocks += part.use.sram_blocks, u.tcam_blocks += part.use.tcam_blocks;
      u.stateful_alus += part.use.stateful_alus, u.hash_bits += part.use.hash_bits;
      u.action_slots += part.use.action_slots;
    }
  for (const shortfall& s : g.alloc.shortfalls) block(s.feature).placed = false;
  for (const phv_decl& p : g.prog.phv) block(p.feature).phv_bits += p.bits;
  for (const recirc_decl& r : g.prog.recirc) block(r.feature).recirc_gbps += r.gbps;
  for (const buffer_decl& d : g.prog.buffer) block(d.feature).buffer_bytes += d.bytes;
  return out;
}

uint64_t sram_of(const allocation& a) {
  uint64_t n = 0;
  for (const stage_use& u : a.stage) n += u.sram_blocks;
  return n;
}

}  // namespace

placement_result place_scenario(const config& cfg) {
  const stage_budget b = make_stage_budget(cfg);
  const std::vector<switch_group> groups = build_groups(cfg, b);
  placement_result r;
  r.target = cfg.string("switch.target");
  r.fits = std::all_of(groups.begin(), groups.end(), [](const switch_group& g) { return g.alloc.fits; });
  if (groups.empty()) return r;
  const auto worst = std::find_if(groups.begin(), groups.end(), [](const switch_group& g) { return !g.alloc.fits; });
  const switch_group& g = worst != groups.end()
                              ? *worst
                              : *std::max_element(groups.begin(), groups.end(), [](const auto& x, const auto& y) {
                                  return sram_of(x.alloc) < sram_of(y.alloc);
                                });
  r.switches = describe_group(g);
  r.blocks = usage_by_block(g);
  r.shortfalls = g.alloc.shortfalls;
  if (!r.shortfalls.empty()) {
    const shortfall& s = r.shortfalls.front();
    r.binding_resource = s.resource, r.stage = s.stage, r.binding_item = s.item, r.advice = s.advice;
  }
  return r;
}

std::string resources_report(const config& cfg, bool& fits) {
  const stage_budget b = make_stage_budget(cfg);
  const pipeline_target t = load_target(cfg.string("switch.target"), cfg.base_dir("switch.target"));
  std::string path_line;
  const std::vector<switch_group> groups = build_groups(cfg, b, &path_line);
  std::string out = fmt::format("netasic resources: {} on target {} ({})\n", cfg.string("scenario.name"), t.name,
                                t.description);
  out += path_line;
  fits = true;
  for (const switch_group& g : groups) {
    fits = fits && g.alloc.fits;
    out += fmt::format("\n== {} ==\n", describe_group(g));
    out += format_allocation(g.alloc, b);
    for (const buffer_decl& d : g.prog.buffer)
      out += fmt::format("buffer: '{}' ({}) holds up to {} B of the traffic manager's {} B ({}); not a stage resource\n",
                         d.name, d.feature, d.bytes, g.in.sw.tm.buffer_bytes, d.basis);
  }
  return out;
}

}  // namespace netasic
