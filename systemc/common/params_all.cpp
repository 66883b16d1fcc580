// Every parameter of netasic, declared once: key, unit, default, range, meaning.
// `netasic params` prints this table; docs/config-reference.md is generated from it.
#include <limits>

#include "common/params.h"

namespace netasic {
namespace {

constexpr int64_t big = std::numeric_limits<int32_t>::max();

void declare_sim(param_registry& r) {
  r.string("scenario.name", "unnamed", "Name shown in the report and summary.json");
  r.integer("sim.seed", "", 1, 0, std::numeric_limits<int64_t>::max(), "Random seed; same seed and configuration give the same results, bit for bit");
  r.real("sim.duration", "us", 1000, 0.001, 1e9, "Window in which flows start (Poisson arrivals are generated over it)");
  r.real("sim.drain", "us", 10000, 0, 1e9, "Extra time after the arrival window for flows to finish; the run stops earlier once all flows are done");
  r.real("sim.probe_interval", "us", 1, 0.001, 1e6, "Sampling interval of the probe time series (queue depths, buffer occupancy) and of waves.vcd");
}

void declare_topology(param_registry& r) {
  r.choice("topology.kind", "leaf_spine", {"leaf_spine", "fat_tree"}, "Topology builder");
  r.integer("topology.leaves", "switches", 2, 1, 1024, "Leaf (ToR) switches (leaf_spine)");
  r.integer("topology.spines", "switches", 2, 1, 1024, "Spine switches (leaf_spine)");
  r.integer("topology.hosts_per_leaf", "hosts", 4, 1, 1024, "Hosts under each leaf (leaf_spine)");
  r.integer("topology.parallel_links", "links", 1, 1, 64, "Parallel links between each leaf and each spine (leaf_spine)");
  r.integer("topology.k", "ports", 4, 2, 64, "Switch radix k of the k-ary fat tree: k pods, k^3/4 hosts (fat_tree; even)");
  r.real("topology.host_rate", "Gbps", 100, 0.001, 1e5, "Rate of every host link");
  r.real("topology.uplink_rate", "Gbps", 400, 0.001, 1e5, "Rate of every switch-to-switch link");
  r.real("topology.link_delay", "ns", 1000, 0, 1e9, "Propagation delay of every link");
  r.string_list("topology.failed_links", "", {}, "Links that are down, e.g. [\"leaf0-spine1\"] (all parallel links) or [\"leaf0-spine1#0\"]");
  r.string_list("topology.degraded_links", "Gbps", {}, "Links running below their rate, e.g. [\"leaf0-spine1#0=10\"]");
}

void declare_switch(param_registry& r) {
  r.real("switch.clock", "MHz", 1000, 1, 1e5, "Pipeline clock; the period must be a whole number of picoseconds");
  r.integer("switch.pipeline_cycles", "cycles", 400, 0, big, "Parser-to-deparser latency (ingress + egress) in switch clock cycles");
  r.integer("switch.buffer", "KiB", 16384, 1, big, "Shared packet buffer");
  r.integer("switch.queue_limit", "KiB", 0, 0, big, "Static limit per egress queue; 0 = only the shared buffer limits (tail drop)");
  r.choice("switch.hash", "crc32", {"crc32", "crc16"}, "ECMP hash of the 5-tuple");
  r.integer("switch.hash_seed", "", 0, 0, 0xFFFFFFFF, "Hash initial value; each switch XORs its ID times 0x9E3779B1 into it so switches do not polarize");
  r.integer("switch.ecmp_members", "entries", 4096, 1, 65535, "ECMP member table size per switch");
}

void declare_nic(param_registry& r) {
  r.real("nic.clock", "MHz", 1000, 1, 1e5, "NIC clock; received frames are handled on its edges (period: whole picoseconds)");
  r.integer("nic.mtu", "bytes", 1000, 1, 9000, "Payload bytes per data packet");
  r.integer("nic.window", "packets", 128, 1, big, "Fixed window per flow (packets sent and not acknowledged)");
  r.real("nic.rto", "us", 1000, 0.001, 1e9, "Retransmission timeout (go-back-N from the oldest unacknowledged packet)");
  r.boolean("nic.int_padding", false, "Frames carry HPCC's 42-byte INT padding");
}

void declare_traffic(param_registry& r) {
  r.choice("traffic.pattern", "poisson", {"poisson", "incast", "permutation", "all_to_all"}, "Flow arrival pattern");
  r.string("traffic.cdf", "websearch", "Flow-size CDF: websearch, fb_hadoop, datamining, enterprise, or a file path (SIZE_BYTES PERCENT per line)");
  r.real("traffic.load", "fraction", 0.5, 0.0001, 1, "Average offered load per host link, payload bytes over link rate (poisson)");
  r.integer("traffic.flow_size", "bytes", 0, 0, std::numeric_limits<int64_t>::max(), "Fixed flow size for incast/permutation/all_to_all; 0 = draw from traffic.cdf");
  r.real("traffic.start", "us", 0, 0, 1e9, "Start time of incast/permutation/all_to_all flows");
  r.integer("traffic.incast.senders", "hosts", 16, 1, big, "Senders of the incast");
  r.integer("traffic.incast.receiver", "host", 0, 0, big, "Receiving host of the incast");
}

}  // namespace

const param_registry& all_params() {
  static const param_registry reg = [] {
    param_registry r;
    declare_sim(r);
    declare_topology(r);
    declare_switch(r);
    declare_nic(r);
    declare_traffic(r);
    return r;
  }();
  return reg;
}

}  // namespace netasic
