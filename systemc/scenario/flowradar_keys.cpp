#include "scenario/flowradar_keys.h"

#include <limits>

#include <fmt/format.h>

#include "scenario/key_binding.h"

namespace netasic {
namespace {

template <class K>
void flowradar_keys(K& k) {
  using S = flowradar_stage_config;
  auto fr = [](auto m) { return path(&fabric_config::sw, &switch_config::flowradar, m); };
  auto pr = [](auto m) { return path(&fabric_config::sw, &switch_config::flowradar, &S::params, m); };
  k.boolean("telemetry.flowradar", fr(&S::on), "FlowRadar: every switch keeps an encoded flowset (flow filter + counting table, Alg. 6) updated by every data packet at ingress; the run decodes each epoch's banks and scores them against the simulator's flows (flowradar.csv)");
  k.integer("telemetry.flowradar_filter_bits", "bits", pr(&flowradar_params::filter_bits), 1, 1 << 30, "FlowRadar flow filter size m_f (Bloom filter bits, split evenly over its hashes)");
  k.integer("telemetry.flowradar_filter_hashes", "hashes", pr(&flowradar_params::filter_hashes), 1, 16, "FlowRadar flow filter hashes k_f");
  k.integer("telemetry.flowradar_cells", "cells", pr(&flowradar_params::cells), 1, 1 << 26, "FlowRadar counting table size m_c (cells, split evenly over its hashes)");
  k.integer("telemetry.flowradar_cell_hashes", "hashes", pr(&flowradar_params::cell_hashes), 1, 16, "FlowRadar counting table hashes k_c (the paper: 3 for SingleDecode, 4 for NetDecode)");
  k.integer("telemetry.flowradar_flow_count_bits", "bits", pr(&flowradar_params::flow_count_bits), 8, 32, "FlowRadar FlowCount width: 8, 16 or 32 (a stateful ALU word); must hold the run's flow count");
  k.integer("telemetry.flowradar_packet_count_bits", "bits", pr(&flowradar_params::packet_count_bits), 8, 32, "FlowRadar PacketCount width: 8, 16 or 32; must hold the packets a switch can take in one epoch");
  k.real("telemetry.flowradar_epoch", ms_as_ps, fr(&S::epoch_ps), 0.001, 1e6, "FlowRadar epoch (time slot): the banks swap and one is exported at every multiple of it");
  k.integer("telemetry.flowradar_seed", "", pr(&flowradar_params::seed), 0, std::numeric_limits<int64_t>::max(), "FlowRadar hash seed; each switch mixes its id into it, so neighbours hash differently");
  k.integer("telemetry.flowradar_collector", "host", fr(&S::collector), -1, 16383, "FlowRadar: the host every switch sends its banks to each epoch, as UDP frames through the fabric at priority 0 (their load shows on the links); -1: exported out of band, no frames");
  k.boolean("telemetry.flowradar_hosts", fr(&S::hosts), "FlowRadar: every host NIC keeps an encoded flowset too (the same sizes), counting the data packets it sends and receives, so the loss map and the loop and black-hole analyses see the first and last links (the thesis's \"switches (or hosts)\")");
  k.boolean("telemetry.flowradar_per_port", fr(&S::per_port), "FlowRadar: an encoded flowset per ingress port (each of the configured size, counting the packets that port receives) instead of one per switch (§4.5's two deployments; per switch multiplexes the ports' flows in less memory)");
  k.boolean("telemetry.flowradar_routing", fr(&S::routing), "FlowRadar collector: FlowDecode checks only a flow's previous and next hop (routing information) instead of every neighbour");
}

}  // namespace

void declare_flowradar_keys(param_registry& r) {
  declare_keys<fabric_config> k(r);
  flowradar_keys(k);
}

void read_flowradar(const config& c, fabric_config& f) {
  apply_keys<fabric_config> k(c, f);
  flowradar_keys(k);
  const flowradar_stage_config& s = f.sw.flowradar;
  if (!s.on) {
    unused_by_mode(c, {"telemetry.flowradar_filter_bits", "telemetry.flowradar_filter_hashes", "telemetry.flowradar_cells",
                       "telemetry.flowradar_cell_hashes", "telemetry.flowradar_flow_count_bits",
                       "telemetry.flowradar_packet_count_bits", "telemetry.flowradar_epoch", "telemetry.flowradar_seed",
                       "telemetry.flowradar_routing", "telemetry.flowradar_collector", "telemetry.flowradar_hosts",
                       "telemetry.flowradar_per_port"},
                   "when telemetry.flowradar is false");
    return;
  }
  const flowradar_params& p = s.params;
  for (auto [key, bits] : {std::pair{"telemetry.flowradar_flow_count_bits", p.flow_count_bits},
                           std::pair{"telemetry.flowradar_packet_count_bits", p.packet_count_bits}})
    if (bits != 8 && bits != 16 && bits != 32) fail(c, key, fmt::format("{} bits: a stateful ALU word is 8, 16 or 32 bits", bits));
  if (p.cells < p.cell_hashes)
    fail(c, "telemetry.flowradar_cells", fmt::format("{} cells for {} hashes: each hash needs its own slice of at least one cell", p.cells, p.cell_hashes));
  if (p.filter_bits < p.filter_hashes)
    fail(c, "telemetry.flowradar_filter_bits", fmt::format("{} bits for {} hashes: each hash needs its own slice", p.filter_bits, p.filter_hashes));
  if (s.collector >= 0 && size_t(s.collector) >= f.topo.hosts.size())
    fail(c, "telemetry.flowradar_collector", fmt::format("host {} does not exist; the topology has hosts 0 to {}", s.collector,
                                                          f.topo.hosts.size() - 1));
  if (s.collector >= 0 && (f.sw.tm.lossless & 1))
    fail(c, "telemetry.flowradar_collector", "the exports go at priority 0, which is lossless (pfc.priorities): they would pause traffic");
  // One bank goes out on the CPU port every epoch: it must be gone before the next swap.
  flowradar_table empty;
  empty.params = p;
  const uint64_t bytes = empty.export_bytes();
  const double export_ps = double(bytes) * 8 / double(f.sw.mirror.cpu_rate_bps) * 1e12;
  if (double(s.epoch_ps) < export_ps)
    fail(c, "telemetry.flowradar_epoch", fmt::format("{:.3f} ms is shorter than one export: a bank is {} bytes, {:.3f} ms on the {:.1f} Gb/s CPU port",
                                                      double(s.epoch_ps) * 1e-9, bytes, export_ps * 1e-9, double(f.sw.mirror.cpu_rate_bps) * 1e-9));
}

}  // namespace netasic
