#include "scenario/nic_keys.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "scenario/key_binding.h"

namespace netasic {
namespace {

// flowcut.form: "off", or where the tables are.
const names<flowcut_variant> flowcut_form_names{
    {flowcut_variant::nic_only, "nic"}, {flowcut_variant::ingress_only, "ingress"}, {flowcut_variant::full_switch, "switch"}};

template <class K>
void nic_keys(K& k) {
  using N = nic_config;
  k.real("nic.clock", mhz_as_period_ps, &N::clock_period_ps, 1, 1e5, "NIC clock; received frames are handled on its edges (period: whole picoseconds)");
  k.integer("nic.mtu", "bytes", &N::mtu_payload, 1, 9000, "Payload bytes per data packet");
  k.integer("nic.window", "packets", &N::window_packets, 1, std::numeric_limits<int32_t>::max(), "Fixed window per flow (packets sent and not acknowledged)");
  k.real("nic.rto", us_as_ps, &N::rto_ps, 0.001, 1e9, "Retransmission timeout (go-back-N from the oldest unacknowledged packet)");
  k.boolean("nic.int_padding", &N::int_enabled, "Frames carry HPCC's 42-byte INT padding; switches write an INT record per hop");
  k.integer("nic.data_priority", "priority", &N::data_priority, 0, 7, "Traffic class of data frames (DSCP class selector)");
  k.integer("nic.ack_priority", "priority", &N::ack_priority, 0, 7, "Traffic class of ACK/NAK/CNP frames");
  k.integer("nic.rx_pipe_cycles", "cycles", &N::rx_pipe_cycles, 0, 1000000, "RX pipe: frame in to handled (ACK built, CC module fed)");
  k.integer("nic.tx_pipe_cycles", "cycles", &N::tx_pipe_cycles, 0, 1000000, "TX pipe: packet scheduled to on the MAC");
  k.integer("nic.scheduler.engines", "engines", &N::sched_engines, 1, 4096, "Flow-scheduler engines; QP n belongs to engine n mod engines (HPCC's FPGA: 6)");
  k.integer("nic.scheduler.visit_cycles", "cycles", &N::sched_visit_cycles, 1, 1000000, "Cycles an engine spends on one QP of its round-robin; a QP sends at most one packet per visit");
}

// One table config, put into the NICs or the switches by read_flowcut.
template <class K>
void flowcut_keys(K& k) {
  using F = flowcut_config;
  std::vector<std::string> forms = {"off"};
  for (const std::string& n : flowcut_form_names.all()) forms.push_back(n);
  k.unbound.choice("flowcut.form", "off", forms, "Flowcut: where the tables are: in each source NIC (its NIC-only form: the path is the ECMP entropy), in each switch with hosts (ingress only), or in every switch (full switch: ACKs retrace the data's path)");
  k.integer("flowcut.capacity", "entries", &F::capacity, 1, 1 << 24, "Flowcut: table entries (flows with bytes in flight) per NIC or switch");
  k.real("flowcut.rtt_ratio", "ratio", &F::rtt_ratio_threshold, 1, 255, "Flowcut: drain a flow when the EWMA of its RTT over the minimum RTT for its hop count passes this");
  k.integer("flowcut.ewma_shift", "", &F::ewma_shift, 0, 15, "Flowcut: the EWMA weight of a new RTT sample is 2^-shift");
  k.integer("flowcut.hold", kib_as_bytes, &F::hold_bytes, 0, 1 << 24, "Flowcut, switch forms: memory per switch for the packets of draining flows (in the shared buffer); full: the flow's drain ends early (it stays on its old path), or the packet is dropped (flowcut_hold_full); 0 = bounded by the shared buffer only");
  k.boolean("flowcut.source_pause", &F::source_pause, "Flowcut, switch forms: the ingress switch pauses a draining flow's source (PFC XOFF on the data priority of the host's port, the paper's fallback for FGFC) until the flow has drained");
}

}  // namespace

void declare_nic_keys(param_registry& r) {
  declare_keys<nic_config> nic(r);
  nic_keys(nic);
  declare_keys<flowcut_config> flowcut(r);
  flowcut_keys(flowcut);
}

void read_nic(const config& c, const switch_config& sw, nic_config& nic) {
  apply_keys<nic_config> k(c, nic);
  nic_keys(k);
  nic.pfc_response_cycles = sw.pfc_response_cycles;
  nic.rate_bps = to_bps(c.real("topology.host_rate"));   // each NIC takes its own link's rate; this one prices reports
}

void read_flowcut(const config& c, switch_config& sw, nic_config& nic) {
  const std::string form = c.string("flowcut.form");
  if (form == "off") {
    unused_by_mode(c, {"flowcut.capacity", "flowcut.rtt_ratio", "flowcut.ewma_shift", "flowcut.hold", "flowcut.source_pause"},
                "with flowcut.form = \"off\"");
    return;
  }
  if (sw.lb.mode != lb_mode::ecmp && sw.lb.mode != lb_mode::wcmp)
    fail(c, "flowcut.form", fmt::format("\"{}\" needs lb.mode = \"ecmp\" or \"wcmp\": Flowcut picks each flow's path itself, "
                                        "which lb.mode = \"{}\" would override", form, c.string("lb.mode")));
  flowcut_config table;
  apply_keys<flowcut_config> k(c, table);
  flowcut_keys(k);
  table.variant = flowcut_form_names.value(form);
  // The table prices a packet's transmission time in whole Gb/s: a fractional rate would be
  // rounded without a word.
  const double host_gbps = c.real("topology.host_rate");
  if (host_gbps != std::floor(host_gbps))
    fail(c, "topology.host_rate", fmt::format("{} Gbps: Flowcut's table keeps the link rate in whole Gb/s; use a whole "
                                              "number with flowcut.form = \"{}\"", host_gbps, form));
  table.link_rate_gbps = uint32_t(host_gbps);
  if (table.variant == flowcut_variant::nic_only) {
    unused_by_mode(c, {"flowcut.hold", "flowcut.source_pause"}, "with flowcut.form = \"nic\" (the NIC holds no packets)");
    nic.flowcut = true;
    table.port_bytes = 2;   // the "port" is 14 bits of UDP source-port entropy
    nic.flowcut_table = table;
    return;
  }
  // A switch's table counts a flow's bytes until their ACKs pass back: a dropped data packet
  // would keep its flow from ever changing path or finishing a drain.
  if (!((sw.tm.lossless >> nic.data_priority) & 1))
    fail(c, "flowcut.form", fmt::format("\"{}\" counts bytes in flight until their ACKs return, so data must not be dropped: "
                                        "add nic.data_priority {} to pfc.priorities", form, nic.data_priority));
  sw.flowcut_on = true;
  sw.flowcut = table;
  sw.flowcut_data_prio = nic.data_priority;
}

}  // namespace netasic
