#include "scenario/memory_estimate.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>


namespace netasic {

namespace {

// MemAvailable from /proc/meminfo, in bytes; 0 when unknown.
double available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  double kib = 0;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

std::string mib(double bytes) {
  return bytes >= 1024.0 * 1048576 ? fmt::format("{:.1f} GiB", bytes / (1024.0 * 1048576)) : fmt::format("{:.0f} MiB", bytes / 1048576);
}

}  // namespace

memory_estimate estimate_memory(const config& c) {
  double switches = 0, hosts = 0, links = 0, prefixes = 0;   // prefixes: switches with hosts (route_table.h)
  std::string drivers;
  const std::string kind = c.string("topology.kind");
  if (kind == "leaf_spine") {
    const double leaves = double(c.integer("topology.leaves")), spines = double(c.integer("topology.spines"));
    switches = leaves + spines;
    prefixes = leaves;
    hosts = leaves * double(c.integer("topology.hosts_per_leaf"));
    links = hosts + leaves * spines * double(c.integer("topology.parallel_links"));
    drivers = "topology.leaves, topology.spines, topology.parallel_links, topology.hosts_per_leaf";
  } else if (kind == "fat_tree") {
    const double k = double(c.integer("topology.k"));
    switches = 5 * k * k / 4;
    prefixes = k * k / 2;
    hosts = k * k * k / 4;
    links = hosts + k * k * k / 2;
    drivers = "topology.k";
  } else if (kind == "flattened_clos" || kind == "jellyfish") {   // ToR-only fabrics of one shape
    const double tors = double(c.integer("topology.tors"));
    switches = tors;
    prefixes = tors;
    hosts = tors * double(c.integer("topology.hosts_per_tor"));
    links = hosts + tors * double(c.integer("topology.fabric_ports")) / 2;
    drivers = "topology.tors, topology.fabric_ports, topology.hosts_per_tor";
  } else if (kind == "xpander") {   // (d + 1) L ToRs of degree d
    const double d = double(c.integer("topology.fabric_ports"));
    switches = prefixes = (d + 1) * double(c.integer("topology.lifts"));
    hosts = switches * double(c.integer("topology.hosts_per_tor"));
    links = hosts + switches * d / 2;
    drivers = "topology.lifts, topology.fabric_ports, topology.hosts_per_tor";
  } else if (kind == "clos") {
    const double pods = double(c.integer("topology.pods")), tors = pods * double(c.integer("topology.tors_per_pod")),
                 aggs = pods * double(c.integer("topology.aggs_per_pod")), spines = double(c.integer("topology.spines"));
    switches = tors + aggs + spines;
    prefixes = tors;
    hosts = tors * double(c.integer("topology.hosts_per_tor"));
    links = hosts + tors * double(c.integer("topology.aggs_per_pod")) + pods * spines;
    drivers = "topology.pods, topology.tors_per_pod, topology.aggs_per_pod, topology.spines, topology.hosts_per_tor";
  } else if (kind == "dragonfly") {
    const double groups = double(c.integer("topology.groups")), per = double(c.integer("topology.routers_per_group"));
    switches = groups * per;
    prefixes = switches;
    hosts = switches * double(c.integer("topology.hosts_per_tor"));
    links = hosts + groups * per * (per - 1) / 2 + switches * double(c.integer("topology.global_links")) / 2;
    drivers = "topology.groups, topology.routers_per_group, topology.hosts_per_tor";
  }   // file: the file's size is known only once read
  memory_estimate e;
  // The load balancer's table in every switch: its C++ entries, not the ASIC's bits.
  double lb_entries = 0;
  std::string lb_key;
  if (c.string("lb.mode") == "letflow") lb_entries = double(c.integer("lb.flowlet.entries")), lb_key = "lb.flowlet.entries";
  if (c.string("lb.mode") == "balance_sketch")
    lb_entries = double(c.integer("lb.sketch.buckets")) * double(c.integer("lb.sketch.cells")), lb_key = "lb.sketch.buckets";
  e.parts = {
      {fmt::format("{:.0f} load-balancer entries ({:.0f} switches x {:.0f}) x {:.0f} B", switches * lb_entries, switches,
                   lb_entries, mem_lb_entry_bytes), switches * lb_entries * mem_lb_entry_bytes},
      {fmt::format("{:.0f} links x {:.1f} KiB", links, mem_link_bytes / 1024), links * mem_link_bytes},
      {fmt::format("{:.0f} route entries ({:.0f} switches x {:.0f} prefixes) x {:.0f} B", switches * prefixes, switches,
                   prefixes, mem_route_entry_bytes), switches * prefixes * mem_route_entry_bytes},
      {fmt::format("{:.0f} host routes x {:.0f} B", hosts, mem_host_route_bytes), hosts * mem_host_route_bytes},
      {fmt::format("{:.0f} NICs x {:.1f} KiB", hosts, mem_host_bytes / 1024), hosts * mem_host_bytes},
      {fmt::format("{:.0f} switches x {:.0f} KiB", switches, mem_switch_bytes / 1024), switches * mem_switch_bytes},
      // fabric::ideal_fct_ps keeps each destination rack's hop counts from every switch, once used.
      {fmt::format("{:.0f} racks' distance tables ({:.0f} switches each) x {:.0f} B", prefixes, switches,
                   mem_distance_bytes), prefixes * (switches * mem_distance_bytes + mem_rack_distances_bytes)},
  };
  std::sort(e.parts.begin(), e.parts.end(), [](const memory_part& a, const memory_part& b) { return a.bytes > b.bytes; });
  e.bytes = mem_fixed_bytes;
  for (const auto& p : e.parts) e.bytes += p.bytes;
  e.drivers = e.parts.front().what.find("load-balancer") != std::string::npos ? lb_key + ", " + drivers : drivers;
  return e;
}

void check_memory(const config& c) {
  const double limit_mib = c.real("sim.max_memory");
  const double limit = limit_mib > 0 ? limit_mib * 1048576 : available_bytes();
  if (limit <= 0) return;   // no limit set and the machine does not say what it has
  const memory_estimate e = estimate_memory(c);
  if (e.bytes <= limit) return;
  std::string parts;
  for (size_t i = 0; i < e.parts.size() && i < 3; ++i) parts += fmt::format("{}{} = {}", i ? ", " : "", e.parts[i].what, mib(e.parts[i].bytes));
  throw config_error(fmt::format("{}: this configuration needs about {} of memory ({}), more than {} ({}); make it "
                                 "smaller through {}", c.source_file().empty() ? "--set" : c.source_file(), mib(e.bytes),
                                 parts, mib(limit),
                                 limit_mib > 0 ? fmt::format("{}: key 'sim.max_memory'", c.origin("sim.max_memory"))
                                               : "the memory this machine has available; key 'sim.max_memory' sets another limit",
                                 e.drivers));
}

}  // namespace netasic
