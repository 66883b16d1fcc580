#include "sizing/switch_program.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "blocks/flowradar.h"
#include "protocol/headers.h"

namespace netasic {

namespace {

unsigned bits_for(uint64_t values) {   // bits to tell `values` values apart
  unsigned n = 0;
  while (n < 64 && (uint64_t(1) << n) < values) ++n;
  return n;
}

// A stateful ALU word holds 8, 16 or 32 bits (stateful_alu.md).
unsigned word_width(unsigned bits) { return bits <= 8 ? 8 : bits <= 16 ? 16 : 32; }

void add_after(program& p, const std::string& table, const std::string& dep) {
  for (table_decl& t : p.tables)
    if (t.name == table) t.after.push_back(dep);
}

// LetFlow (Vanini et al., NSDI'17, §3): one register per entry {valid, age, member}, indexed by
// the flow hash; the member table is read after it.
void letflow(program& p, const switch_program_inputs& in) {
  const flowlet_config& f = in.sw.lb.flowlet;
  const unsigned w = word_width(1 + f.age_bits + f.port_bits);
  p.registers.push_back(register_decl{"letflow", "flowlet", f.entries, w, false, true, gress::ingress, {"route"},
                                      "lb.flowlet.entries"});
  add_after(p, "ecmp_member", "flowlet");
  p.phv.push_back(phv_decl{"letflow", "flowlet_member", 16});
}

// BalanceSketch, Tofino form (BurstBalancer §4.2.1-4.2.2, Fig. 8): SEL_ID (dual), SEL_TS, the
// stateless gap stage, SCH_ID (dual), SCH_NH, one index h(f) into each. An outdated bucket is
// cleared by a mirrored 64 B frame recirculated once: at most one clear per bucket per Delta
// (a cleared bucket must idle Delta again), so buckets / Delta clears per second at worst.
void sketch_tofino(program& p, const switch_program_inputs& in) {
  const balance_sketch_config& s = in.sw.lb.sketch;
  const unsigned w_id = word_width(std::max(s.fingerprint_bits, s.vote_bits)), w_ts = word_width(s.timestamp_bits);
  const unsigned w_sch = s.scheduler_timestamp_bits, w_nh = word_width(bits_for(s.next_hops));
  const std::string k = "lb.sketch.buckets";
  p.registers.push_back(register_decl{"balance_sketch", "bs_sel_id", s.buckets, w_id, true, true, gress::ingress, {"route"}, k});
  p.registers.push_back(register_decl{"balance_sketch", "bs_sel_ts", s.buckets, w_ts, false, true, gress::ingress, {"bs_sel_id"}, k});
  p.tables.push_back(table_decl{"balance_sketch", "bs_gap", match_kind::index, 1, 0, 0, gress::ingress, {"bs_sel_ts"}, ""});
  p.registers.push_back(register_decl{"balance_sketch", "bs_sch_id", s.buckets, w_sch, true, true, gress::ingress, {"bs_gap"}, k});
  p.registers.push_back(register_decl{"balance_sketch", "bs_sch_nh", s.buckets, w_nh, false, true, gress::ingress, {"bs_sch_id"}, k});
  add_after(p, "ecmp_member", "bs_sch_nh");
  const double clears_per_s = double(s.buckets) * 1e12 / double(s.Delta_ps);
  const double gbps = clears_per_s * eth_header::min_frame_bytes * 8 / 1e9;
  p.recirc.push_back(recirc_decl{"balance_sketch", "bs_bucket_clear", gbps,
                                 fmt::format("{} buckets / Delta {} us x {} B clear frames", s.buckets,
                                             double(s.Delta_ps) / 1e6, eth_header::min_frame_bytes), k});
  p.phv.push_back(phv_decl{"balance_sketch", "bs_metadata", 2 * w_id + w_ts + 2 * w_sch + w_nh});
}

// BalanceSketch, software form (Algorithm 1, d cells per bucket): one register array per cell
// field, l x d words each, read in turn; no recirculation (the model's mapping: the paper put
// only the Tofino form on a pipeline).
void sketch_software(program& p, const switch_program_inputs& in) {
  const balance_sketch_config& s = in.sw.lb.sketch;
  const uint64_t cells = uint64_t(s.buckets) * s.cells;
  const std::string k = "lb.sketch.buckets";
  const std::pair<const char*, unsigned> fields[] = {{"bs_fingerprint", s.fingerprint_bits},
                                                     {"bs_vote", s.vote_bits},
                                                     {"bs_timestamp", std::min(s.timestamp_bits, 32u)},
                                                     {"bs_next_hop", bits_for(uint64_t(s.next_hops) + 1)}};
  std::string prev = "route";
  unsigned phv = 0;
  for (const auto& [name, bits] : fields) {
    p.registers.push_back(register_decl{"balance_sketch", name, cells, word_width(bits), false, true, gress::ingress, {prev}, k});
    prev = name;
    phv += word_width(bits);
  }
  add_after(p, "ecmp_member", prev);
  p.phv.push_back(phv_decl{"balance_sketch", "bs_metadata", phv});
}

// CONGA (Alizadeh et al., SIGCOMM'14, §3) at a leaf: the congestion-to-leaf table (a row of
// uplinks x (Q + 1 valid) bits per destination leaf, read whole for the min), the
// congestion-from-leaf table (Q + changed + fresh bits per source leaf and LBTag), the flowlet
// table, and a DRE per uplink at egress. At a spine: a DRE per port.
void conga(program& p, const switch_program_inputs& in) {
  const lb_config& lb = in.sw.lb;
  const unsigned q = lb.dre.q_bits;
  p.phv.push_back(phv_decl{"conga", "conga_header", 4 + q + 4 + q});
  if (!in.conga_leaf) {
    p.registers.push_back(register_decl{"conga", "conga_dre", in.ports, 32, false, false, gress::egress, {}, ""});
    return;
  }
  const uint64_t row_bits = uint64_t(lb.uplinks) * (q + 1);
  const unsigned rows = unsigned((row_bits + 63) / 64);   // a dual 32-bit word holds 64 bits of a row
  std::vector<std::string> to_leaf;
  for (unsigned r = 0; r < rows; ++r) {
    to_leaf.push_back(rows == 1 ? "conga_to_leaf" : fmt::format("conga_to_leaf_{}", r));
    const unsigned bits = unsigned(std::min<uint64_t>(64, row_bits - 64 * r));
    p.registers.push_back(register_decl{"conga", to_leaf.back(), lb.leaves, bits > 32 ? 32 : word_width(bits), bits > 32,
                                        false, gress::ingress, {"route"}, ""});
  }
  p.registers.push_back(register_decl{"conga", "conga_from_leaf", uint64_t(lb.leaves) * lb.uplinks, word_width(q + 2),
                                      false, false, gress::ingress, {}, ""});
  const flowlet_config& f = lb.flowlet;
  p.registers.push_back(register_decl{"conga", "conga_flowlet", f.entries, word_width(1 + f.age_bits + bits_for(lb.uplinks)),
                                      false, true, gress::ingress, to_leaf, "lb.flowlet.entries"});
  add_after(p, "ecmp_member", "conga_flowlet");
  p.registers.push_back(register_decl{"conga", "conga_dre", lb.uplinks, 32, false, false, gress::egress, {}, ""});
}

// Flowcut in the switch (Flowcut §III-A, Table III): the flow table (exact match on the 5-tuple,
// the ports as action data) and its changing state in register arrays indexed by the entry
// (in-flight + state 24 bits, RTT average 16, last RTT + diff average 32), minRTT per hop count.
// Held packets wait in the shared buffer: a drained flow holds at most one window.
void flowcut(program& p, const switch_program_inputs& in) {
  const flowcut_config& c = in.sw.flowcut;
  if (c.variant == flowcut_variant::ingress_only && in.host_ports == 0) return;   // not on this switch
  const unsigned ports = (c.variant == flowcut_variant::full_switch ? 2 : 1) * c.port_bytes * 8;
  const std::string k = "flowcut.capacity";
  p.tables.push_back(table_decl{"flowcut", "flowcut_flow", match_kind::exact, c.capacity, c.key_bytes * 8, ports,
                                gress::ingress, {"route"}, k});
  p.registers.push_back(register_decl{"flowcut", "flowcut_inflight", c.capacity, word_width(c.inflight_bits + 3), false,
                                      false, gress::ingress, {"flowcut_flow"}, k});
  p.registers.push_back(register_decl{"flowcut", "flowcut_min_rtt", 16, word_width(c.stamp_bits), false, false,
                                      gress::ingress, {"flowcut_flow"}, ""});
  p.registers.push_back(register_decl{"flowcut", "flowcut_rtt_avg", c.capacity, 16, false, false, gress::ingress,
                                      {"flowcut_min_rtt"}, k});
  p.registers.push_back(register_decl{"flowcut", "flowcut_rtt_diff", c.capacity, 32, false, false, gress::ingress,
                                      {"flowcut_rtt_avg"}, k});
  p.phv.push_back(phv_decl{"flowcut", "flowcut_header", c.stamp_bits + 4 + bits_for(c.capacity)});
  p.buffer.push_back(buffer_decl{"flowcut", "flowcut_held", uint64_t(c.capacity) * in.window_packets * in.frame_bytes,
                                 fmt::format("draining flows hold at most one window each: {} entries x {} packets x {} B",
                                             c.capacity, in.window_packets, in.frame_bytes)});
}

// Sundial (Li et al., OSDI'20, §3.4.1): the eight SUNDIAL registers the controller writes
// (switch.md, Registers) as one configuration entry, and the device's sync state (last sync
// time, 64 bits) that every sync-message updates.
void sundial(program& p) {
  p.tables.push_back(table_decl{"sundial", "sundial_config", match_kind::index, 1, 0, 8 * 32, gress::ingress, {}, ""});
  p.registers.push_back(register_decl{"sundial", "sundial_state", 1, 32, true, false, gress::ingress, {"sundial_config"}, ""});
  p.phv.push_back(phv_decl{"sundial", "sync_timestamp", 64});
}

// Path-based routing keys the route by destination and the frame's ingress class: up-down
// (Zhao et al., NSDI'23; arrived up or down, at which layer) as a legal-turn check, and the EDST
// and KSP baselines (the ingress tree, the ingress port). Each ingress port's class is read by
// index, then entries = prefixes x classes (route_table.h). The block is named after the routing.
void route_classes(program& p, const switch_program_inputs& in) {
  const unsigned classes = in.sw.route_classes;
  p.tables.push_back(table_decl{route_kind_name(in.sw.routing), "port_class", match_kind::index, in.ports, 0, 8, gress::ingress, {}, ""});
  for (table_decl& t : p.tables)
    if (t.name == "route") {
      t.entries *= classes;
      t.key_bits += bits_for(classes);
      t.after.push_back("port_class");
    }
}

// KSP's path table (route_table.h): (source prefix, destination prefix, path id) -> egress port,
// consulted before the prefix route; the source ToR's path counts give the tag's range. A switch
// that only carries paths (a spine) is no pair's source and holds no path counts.
void path_table(program& p, const switch_program_inputs& in) {
  p.tables.push_back(table_decl{"ksp", "path", match_kind::exact, in.path_entries, path_key_bits(in.prefixes),
                                path_result_bits(in.ports), gress::ingress, {}, "topology.ksp_paths"});
  if (in.path_counts)
    p.tables.push_back(table_decl{"ksp", "path_count", match_kind::exact, in.path_counts, 2 * bits_for(in.prefixes),
                                  route_table::path_id_bits + 1, gress::ingress, {}, "topology.ksp_paths"});
  p.phv.push_back(phv_decl{"ksp", "path_tag", route_table::path_id_bits + 1});
}

// FlowRadar (thesis ch. 4, Alg. 6; flowradar.md): the flow filter's k_f slices as 32-bit words
// (test-and-set one bit: or_ with a one-hot mask, the old word out), then per counting-table hash
// the cell array (dual: FlowXOR slice + FlowCount), the FlowXOR lanes and PacketCount, all after
// the filter (they need its "new flow" bit). Per port (telemetry.flowradar_per_port) every array
// holds the ports' flowsets one after another (index + port * size), as LossRadar's digests do.
void flowradar_program(program& p, const switch_program_inputs& in) {
  const flowradar_params& f = in.sw.flowradar.params;
  const uint64_t sets = in.sw.flowradar.per_port ? in.ports : 1;
  std::vector<std::string> filter;
  for (unsigned i = 0; i < f.filter_hashes; ++i) {
    filter.push_back(fmt::format("fr_filter_{}", i));
    const uint64_t words = sets * ((uint64_t(flowradar_slice_size(f.filter_bits, f.filter_hashes, i)) + 31) / 32);
    p.registers.push_back(register_decl{"flowradar", filter.back(), words, 32, false, true, gress::ingress, {}, "telemetry.flowradar_filter_bits"});
  }
  const std::string k = "telemetry.flowradar_cells";
  for (unsigned i = 0; i < f.cell_hashes; ++i) {
    const uint64_t n = sets * flowradar_slice_size(f.cells, f.cell_hashes, i);
    p.registers.push_back(register_decl{"flowradar", fmt::format("fr_cell_{}", i), n, f.flow_count_bits, true, true, gress::ingress, filter, k});
    unsigned lane = 0;
    for (unsigned rest = flowradar_flow_bytes - f.flow_count_bits / 8; rest > 0; ++lane) {
      const unsigned b = rest < 4 ? rest : 4;
      p.registers.push_back(register_decl{"flowradar", fmt::format("fr_xor_{}_{}", i, lane), n, word_width(8 * b), false, true, gress::ingress, filter, k});
      rest -= b;
    }
    p.registers.push_back(register_decl{"flowradar", fmt::format("fr_packets_{}", i), n, f.packet_count_bits, false, true, gress::ingress, {}, k});
  }
  p.phv.push_back(phv_decl{"flowradar", "fr_new_flow", 8});
}

// LossRadar (thesis §5.6, the P4 implementation): at the end of ingress, the upstream meters'
// register arrays, then the downstream meters'. Each meter kind holds 2 batches x ports digests
// of n_cell cells (cell index i + (b * n_port + p) * n_cell); with the cells split into k parts,
// one per hash, each part is its own set of arrays so a packet makes one access per array. The
// arrays are the model's (lossradar_meter_digest): a dual 32-bit cell (xorSum's word 0 and the
// count), the signature's next three 32-bit words, and with the extended signature a 16-bit one.
void lossradar(program& p, const switch_program_inputs& in) {
  const lossradar_config& c = in.lossradar;
  const unsigned lanes = c.sig == lossradar_sig_kind::extended ? 4 : 3;
  const uint64_t entries = 2ull * in.ports * (c.cells / c.hashes);
  const std::string k = "telemetry.lossradar_cells";
  std::string prev = "ecmp_member";   // the output port (the upstream meter's) is known
  for (const char* kind : {"up", "down"})
    for (unsigned h = 0; h < c.hashes; ++h) {
      const std::string base = fmt::format("lr_{}{}", kind, h);
      p.registers.push_back(register_decl{"lossradar", base + "_cell", entries, 32, true, true, gress::ingress, {prev}, k});
      for (unsigned l = 1; l <= lanes; ++l)
        p.registers.push_back(register_decl{"lossradar", fmt::format("{}_xor{}", base, l), entries, l == 4 ? 16u : 32u, false,
                                            true, gress::ingress, {prev}, k});
      if (h + 1 == c.hashes) prev = base + "_cell";   // the downstream meters after the upstream ones
    }
  // Batch ID and timestamp staged for the header, and each hash's cell index.
  p.phv.push_back(phv_decl{"lossradar", "lr_metadata", 8 + 16 + c.hashes * bits_for(entries)});
}

void balancer(program& p, const switch_program_inputs& in) {
  switch (in.sw.lb.mode) {
    case lb_mode::ecmp: break;   // the member table itself
    case lb_mode::wcmp:
      // Weighted groups are members replicated by link rate in the member table.
      for (table_decl& t : p.tables)
        if (t.name == "ecmp_member") t.feature = "wcmp";
      break;
    case lb_mode::spray_random: p.phv.push_back(phv_decl{"spray_random", "random_member", 16}); break;
    case lb_mode::spray_round_robin:
      // The next member of each group, indexed by the group's base.
      p.registers.push_back(register_decl{"spray_round_robin", "rr_next", in.sw.member_capacity, 16, false, false,
                                          gress::ingress, {"route"}, "switch.ecmp_members"});
      add_after(p, "ecmp_member", "rr_next");
      break;
    case lb_mode::letflow: letflow(p, in); break;
    case lb_mode::balance_sketch:
      if (in.sw.lb.sketch.form == bs_form::software) sketch_software(p, in);
      else sketch_tofino(p, in);
      break;
    case lb_mode::conga: conga(p, in); break;
  }
}

}  // namespace

const char* lb_feature(lb_mode m) {
  switch (m) {
    case lb_mode::ecmp: return "ecmp";
    case lb_mode::wcmp: return "wcmp";
    case lb_mode::spray_random: return "spray_random";
    case lb_mode::spray_round_robin: return "spray_round_robin";
    case lb_mode::letflow: return "letflow";
    case lb_mode::balance_sketch: return "balance_sketch";
    case lb_mode::conga: return "conga";
  }
  return "?";
}

unsigned path_key_bits(uint64_t prefixes) { return 2 * bits_for(prefixes) + route_table::path_id_bits; }
unsigned path_result_bits(unsigned ports) { return bits_for(ports); }

program switch_program(const switch_program_inputs& in) {
  const switch_config& sw = in.sw;
  program p = forwarding_program(in.prefixes, sw.member_capacity, in.ports, in.int_enabled,
                                 sw.mirror.to != mirror_config::target::off, in.host_routes);
  // Parsed headers (Ethernet, IPv4, UDP, BTH) and the lookups' results.
  p.phv.push_back(phv_decl{"routing", "headers",
                           8 * (eth_header::bytes + ipv4_header::bytes + udp_header::bytes + rocev2_bth::bytes)});
  p.phv.push_back(phv_decl{"routing", "route_result", 32});
  p.phv.push_back(phv_decl{"ecmp", "flow_hash", sw.hash_bits});
  if (in.int_enabled) p.phv.push_back(phv_decl{"int", "int_record", 8 * int_hop::bytes});
  if (sw.mirror.to != mirror_config::target::off) p.phv.push_back(phv_decl{"mirror", "mirror_session_id", 16});
  if (sw.route_classes > 1) route_classes(p, in);
  if (in.path_entries) path_table(p, in);
  balancer(p, in);
  if (sw.flowcut_on) flowcut(p, in);
  if (in.sundial) sundial(p);
  if (sw.flowradar.on) flowradar_program(p, in);
  if (in.lossradar.on) lossradar(p, in);
  return p;
}

}  // namespace netasic
