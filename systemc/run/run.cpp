#include "run/run.h"

#include <chrono>
#include <cmath>
#include <iostream>

#include <fmt/format.h>

#include "clock/clock_network.h"
#include "fabric/fabric.h"
#include "run/resources_report.h"
#include "run/run_summary.h"

namespace netasic {
namespace {

[[noreturn]] void fail(const config& c, const std::string& key, const std::string& msg) {
  throw config_error(fmt::format("{}: key '{}': {}", c.origin(key), key, msg));
}

uint64_t to_ps(double v, double ps_per_unit) { return uint64_t(std::llround(v * ps_per_unit)); }
uint64_t to_bps(double gbps) { return uint64_t(std::llround(gbps * 1e9)); }

bool is_default(const config& c, const std::string& key) {
  static const config defaults = default_config();
  switch (all_params().find(key)->type) {
    case param_type::integer: return c.integer(key) == defaults.integer(key);
    case param_type::real: return c.real(key) == defaults.real(key);
    case param_type::boolean: return c.boolean(key) == defaults.boolean(key);
    case param_type::string_list: return c.list(key) == defaults.list(key);
    case param_type::integer_list: return c.integers(key) == defaults.integers(key);
    case param_type::real_list: return c.reals(key) == defaults.reals(key);
    default: return c.string(key) == defaults.string(key);
  }
}

// A key the chosen topology or pattern does not use must not be set to anything but its default:
// nothing a user writes is ignored silently.
void reject_unused(const config& c, const std::vector<std::string>& keys, const std::string& because) {
  for (const auto& k : keys)
    if (!is_default(c, k)) fail(c, k, "is not used " + because + "; remove it or leave it at its default");
}

// The parameters of a mode that is not selected (another congestion control, another load
// balancer) have no effect. They are kept so one scenario can be swept over the modes, and the
// run says which ones it does not use.
void warn_unused(const config& c, const std::vector<std::string>& keys, const std::string& because) {
  for (const auto& k : keys)
    if (!is_default(c, k))
      std::cerr << fmt::format("warning: {}: key '{}' has no effect {}\n", c.origin(k), k, because);
}

uint64_t clock_period_ps(const config& c, const std::string& key) {
  const double mhz = c.real(key), period = 1e6 / mhz;
  if (std::fabs(period - std::round(period)) > 1e-6)
    fail(c, key, fmt::format("a {} MHz clock has a period of {} ps; it must be a whole number of picoseconds "
                             "(e.g. 1000, 1250, 1600 MHz)", mhz, period));
  return uint64_t(std::llround(period));
}

// Congestion control: the chosen algorithm's parameters; the others' keys must stay unset.
void make_cc_config(const config& c, nic_config& nic) {
  cc_config& cc = nic.cc;
  const std::string alg = c.string("cc.algorithm");
  const std::string with = "with cc.algorithm = \"" + alg + "\"";
  cc.algorithm = alg == "hpcc" ? cc_algorithm::hpcc : alg == "dcqcn" ? cc_algorithm::dcqcn : alg == "dctcp" ? cc_algorithm::dctcp
               : alg == "timely" ? cc_algorithm::timely : cc_algorithm::none;
  for (const char* prefix : {"hpcc.", "dcqcn.", "dctcp.", "timely."}) {
    if (alg + "." == prefix) continue;
    std::vector<std::string> keys;
    for (const param_def& d : all_params().all())
      if (d.key.rfind(prefix, 0) == 0) keys.push_back(d.key);
    warn_unused(c, keys, with);
  }
  if (cc.algorithm != cc_algorithm::dcqcn && cc.algorithm != cc_algorithm::timely) warn_unused(c, {"cc.window"}, with);
  if (cc.algorithm == cc_algorithm::none) warn_unused(c, {"cc.base_rtt"}, with);
  cc.base_rtt_ps = to_ps(c.real("cc.base_rtt"), 1e6);
  const bool window = c.boolean("cc.window");
  const uint32_t mtu = uint32_t(c.integer("nic.mtu"));
  switch (cc.algorithm) {
    case cc_algorithm::none: break;
    case cc_algorithm::hpcc: {
      hpcc_config& h = cc.hpcc;
      h.eta = c.real("hpcc.eta");
      h.max_stage = uint32_t(c.integer("hpcc.max_stage"));
      h.w_ai_bytes = uint64_t(c.integer("hpcc.w_ai"));
      h.u_frac_bits = unsigned(c.integer("hpcc.u_frac_bits"));
      h.base_cycles = uint32_t(c.integer("hpcc.base_cycles"));
      h.table.epsilon = c.real("hpcc.epsilon");
      h.table.input_bits = unsigned(c.integer("hpcc.table_input_bits"));
      h.table.mantissa_bits = unsigned(c.integer("hpcc.mantissa_bits"));
      h.table.lookup_cycles = uint32_t(c.integer("hpcc.lookup_cycles"));
      if (c.string("hpcc.divider") == "exact") {
        h.division = hpcc_config::divider::exact;
        warn_unused(c, {"hpcc.epsilon", "hpcc.table_input_bits", "hpcc.mantissa_bits", "hpcc.lookup_cycles"},
                    "with hpcc.divider = \"exact\"");
      } else {
        h.division = hpcc_config::divider::table;
        try {
          cc.table = std::make_shared<const reciprocal_table>(h.table);
        } catch (const std::invalid_argument& e) {
          fail(c, "hpcc.epsilon", e.what());
        }
      }
      break;
    }
    case cc_algorithm::dcqcn: {
      dcqcn_config& d = cc.dcqcn;
      d.variant = c.string("dcqcn.variant") == "paper" ? dcqcn_variant::paper : dcqcn_variant::mlx;
      d.with_window = window;
      d.mtu_bytes = mtu;
      d.g = c.real("dcqcn.g");
      d.alpha_resume_interval_ps = to_ps(c.real("dcqcn.alpha_interval"), 1e6);
      d.rate_decrease_interval_ps = to_ps(c.real("dcqcn.decrease_interval"), 1e6);
      d.rp_timer_ps = to_ps(c.real("dcqcn.increase_timer"), 1e6);
      d.byte_counter_bytes = uint64_t(c.integer("dcqcn.byte_counter"));
      d.fast_recovery_times = uint32_t(c.integer("dcqcn.fast_recovery"));
      d.rate_ai_bps = uint64_t(c.real("dcqcn.rate_ai") * 1e6);     // at the reference rate; make_cc scales it
      d.rate_hai_bps = uint64_t(c.real("dcqcn.rate_hai") * 1e6);
      d.min_rate_bps = uint64_t(c.real("dcqcn.min_rate") * 1e6);
      cc.cnp_interval_ps = to_ps(c.real("dcqcn.cnp_interval"), 1e6);
      break;
    }
    case cc_algorithm::dctcp:
      cc.dctcp.mss_bytes = mtu;
      cc.dctcp.g = c.real("dctcp.g");
      break;
    case cc_algorithm::timely: {
      timely_config& t = cc.timely;
      t.with_window = window;
      t.mtu_bytes = mtu;
      t.alpha = c.real("timely.alpha");
      t.beta = c.real("timely.beta");
      t.t_low_ps = to_ps(c.real("timely.t_low"), 1e6);
      t.t_high_ps = to_ps(c.real("timely.t_high"), 1e6);
      if (t.t_high_ps < t.t_low_ps) fail(c, "timely.t_high", "is below timely.t_low");
      t.min_rtt_ps = to_ps(c.real("timely.min_rtt"), 1e6);
      t.delta_bps = uint64_t(c.real("timely.delta") * 1e6);        // at the reference rate; make_cc scales it
      t.hai_n = uint32_t(c.integer("timely.hai_n"));
      break;
    }
  }
}

fabric_config make_fabric_config(const config& c) {
  fabric_config f;
  const uint64_t host_bps = to_bps(c.real("topology.host_rate")), up_bps = to_bps(c.real("topology.uplink_rate"));
  const uint64_t delay = to_ps(c.real("topology.link_delay"), 1e3);
  if (c.string("topology.kind") == "leaf_spine") {
    reject_unused(c, {"topology.k"}, "when topology.kind is leaf_spine");
    leaf_spine_spec s;
    s.leaves = unsigned(c.integer("topology.leaves"));
    s.spines = unsigned(c.integer("topology.spines"));
    s.hosts_per_leaf = unsigned(c.integer("topology.hosts_per_leaf"));
    s.parallel_links = unsigned(c.integer("topology.parallel_links"));
    s.host_rate_bps = host_bps;
    s.uplink_rate_bps = up_bps;
    s.delay_ps = delay;
    f.topo = build_leaf_spine(s);
  } else {
    reject_unused(c, {"topology.leaves", "topology.spines", "topology.hosts_per_leaf", "topology.parallel_links"},
                  "when topology.kind is fat_tree");
    fat_tree_spec s;
    s.k = unsigned(c.integer("topology.k"));
    if (s.k % 2) fail(c, "topology.k", fmt::format("{} is odd; a k-ary fat tree needs an even k", s.k));
    s.host_rate_bps = host_bps;
    s.uplink_rate_bps = up_bps;
    s.delay_ps = delay;
    f.topo = build_fat_tree(s);
  }
  // Each switch holds a route entry per host: past this size the tables alone take gigabytes.
  constexpr size_t max_hosts = 16384;
  if (f.topo.hosts.size() > max_hosts) {
    const std::string key = c.string("topology.kind") == "fat_tree" ? "topology.k" : "topology.hosts_per_leaf";
    fail(c, key, fmt::format("the topology has {} hosts; a run supports at most {} (per-host route tables)",
                             f.topo.hosts.size(), max_hosts));
  }
  for (const char* key : {"topology.failed_links", "topology.degraded_links"}) {
    try {
      if (std::string(key) == "topology.failed_links") apply_failed_links(f.topo, c.list(key), key);
      else apply_degraded_links(f.topo, c.list(key), key);
    } catch (const config_error& e) {
      throw config_error(c.origin(key) + ": " + e.what());
    }
  }

  switch_config& sw = f.sw;
  sw.clock_period_ps = clock_period_ps(c, "switch.clock");
  sw.parser_cycles = uint32_t(c.integer("switch.parser_cycles"));
  sw.stages = uint32_t(c.integer("switch.stages"));
  sw.stage_cycles = uint32_t(c.integer("switch.stage_cycles"));
  sw.tm_cycles = uint32_t(c.integer("switch.tm_cycles"));
  sw.deparser_cycles = uint32_t(c.integer("switch.deparser_cycles"));
  sw.pipes = unsigned(c.integer("switch.pipes"));
  for (unsigned s : f.topo.switches)
    if (f.topo.nodes[s].port_link.size() < sw.pipes)
      fail(c, "switch.pipes", fmt::format("{} has {} ports, fewer than {} pipes", f.topo.nodes[s].name,
                                          f.topo.nodes[s].port_link.size(), sw.pipes));
  sw.pipe_fifo = uint32_t(c.integer("switch.pipe_fifo"));
  if (c.string("switch.forwarding") == "cut_through") sw.cut_through_bytes = uint32_t(c.integer("switch.cut_through_bytes"));
  else reject_unused(c, {"switch.cut_through_bytes"}, "with switch.forwarding = \"store_and_forward\"");
  sw.recirculations = uint32_t(c.integer("switch.recirculations"));
  sw.recirc_rate_bps = to_bps(c.real("switch.recirc_rate"));
  sw.tm.buffer_bytes = uint64_t(c.integer("switch.buffer")) * 1024;
  sw.tm.queue_limit_bytes = uint64_t(c.integer("switch.queue_limit")) * 1024;
  sw.hash_bits = c.string("switch.hash") == "crc16" ? 16 : 32;
  sw.hash_seed = uint32_t(c.integer("switch.hash_seed"));
  sw.member_capacity = unsigned(c.integer("switch.ecmp_members"));

  // Traffic manager: per-priority lists, each element checked by the parameter system.
  auto priority_mask = [&](const std::string& key) {
    uint8_t m = 0;
    for (int64_t prio : c.integers(key)) {
      if (m >> prio & 1) fail(c, key, fmt::format("priority {} is listed twice", prio));
      m |= uint8_t(1u << prio);
    }
    return m;
  };
  sw.tm.strict = priority_mask("tm.strict");
  sw.tm.lossless = priority_mask("pfc.priorities");
  const uint8_t marked = priority_mask("ecn.priorities");
  for (unsigned q = 0; q < num_priorities; ++q) {
    sw.tm.alpha[q] = c.reals("tm.alpha")[q];
    sw.tm.quantum[q] = uint32_t(c.integers("tm.quantum")[q]);
    ecn_profile& e = sw.tm.ecn[q];
    e.enabled = marked >> q & 1;
    e.kmin_bytes = uint64_t(std::llround(c.reals("ecn.kmin")[q] * 1024));
    e.kmax_bytes = uint64_t(std::llround(c.reals("ecn.kmax")[q] * 1024));
    e.pmax = c.reals("ecn.pmax")[q];
    if (e.enabled && e.kmin_bytes > e.kmax_bytes)
      fail(c, "ecn.kmax", fmt::format("priority {}: kmax {} KiB is below kmin {} KiB", q, c.reals("ecn.kmax")[q], c.reals("ecn.kmin")[q]));
  }
  if (!marked) reject_unused(c, {"ecn.kmin", "ecn.kmax", "ecn.pmax"}, "when ecn.priorities is empty");
  if (sw.tm.lossless) {
    sw.tm.xoff_bytes = uint64_t(std::llround(c.real("pfc.xoff") * 1024));
    if (sw.tm.xoff_bytes) reject_unused(c, {"pfc.xoff_fraction"}, "when pfc.xoff sets a static threshold");
    sw.tm.xoff_fraction = c.real("pfc.xoff_fraction");
    sw.tm.xon_offset_bytes = uint64_t(std::llround(c.real("pfc.xon_offset") * 1024));
    sw.pfc_headroom_bytes = uint64_t(std::llround(c.real("pfc.headroom") * 1024));
    sw.pfc_quanta = uint16_t(c.integer("pfc.quanta"));
  } else {
    reject_unused(c, {"pfc.xoff", "pfc.xoff_fraction", "pfc.xon_offset", "pfc.headroom", "pfc.quanta"},
                  "when pfc.priorities is empty");
  }
  sw.pfc_response_cycles = uint32_t(c.integer("pfc.response_cycles"));

  lb_config& lb = sw.lb;
  const std::string lb_mode_name = c.string("lb.mode");
  lb.mode = lb_mode_name == "wcmp" ? lb_mode::wcmp : lb_mode_name == "spray_random" ? lb_mode::spray_random
          : lb_mode_name == "spray_round_robin" ? lb_mode::spray_round_robin : lb_mode_name == "letflow" ? lb_mode::letflow
          : lb_mode_name == "balance_sketch" ? lb_mode::balance_sketch : lb_mode_name == "conga" ? lb_mode::conga
          : lb_mode::ecmp;
  const std::string with_lb = "with lb.mode = \"" + lb_mode_name + "\"";
  if (lb.mode != lb_mode::wcmp) warn_unused(c, {"lb.wcmp_table_size"}, with_lb);
  if (lb.mode != lb_mode::letflow && lb.mode != lb_mode::conga)   // CONGA has a flowlet table too
    warn_unused(c, {"lb.flowlet.entries", "lb.flowlet.timeout", "lb.flowlet.age_bits", "lb.flowlet.ports", "lb.flowlet.sweep_width"}, with_lb);
  if (lb.mode != lb_mode::conga) warn_unused(c, {"lb.conga.dre_period", "lb.conga.dre_alpha", "lb.conga.q_bits", "lb.conga.aging"}, with_lb);
  if (lb.mode == lb_mode::conga) {
    if (c.string("topology.kind") != "leaf_spine") fail(c, "lb.mode", "conga runs between the leaves of a leaf-spine topology");
    lb.leaves = unsigned(c.integer("topology.leaves"));
    lb.hosts_per_leaf = unsigned(c.integer("topology.hosts_per_leaf"));
    lb.uplinks = unsigned(c.integer("topology.spines") * c.integer("topology.parallel_links"));
    if (lb.uplinks > 16) fail(c, "topology.spines", fmt::format("{} uplinks per leaf; CONGA's 4-bit LBTag names at most 16", lb.uplinks));
  }
  lb.dre.t_dre_ps = to_ps(c.real("lb.conga.dre_period"), 1e6);
  lb.dre.alpha = c.real("lb.conga.dre_alpha");
  lb.dre.q_bits = unsigned(c.integer("lb.conga.q_bits"));
  lb.dre.link_gbps = c.real("topology.uplink_rate");
  lb.conga_aging_ps = to_ps(c.real("lb.conga.aging"), 1e6);
  lb.wcmp_table_size = uint32_t(c.integer("lb.wcmp_table_size"));
  lb.flowlet.entries = uint32_t(c.integer("lb.flowlet.entries"));
  lb.flowlet.delta_ps = to_ps(c.real("lb.flowlet.timeout"), 1e6);
  lb.flowlet.age_bits = unsigned(c.integer("lb.flowlet.age_bits"));
  lb.flowlet.ports = unsigned(c.integer("lb.flowlet.ports"));
  lb.flowlet.sweep_width = uint32_t(c.integer("lb.flowlet.sweep_width"));
  lb.flowlet.clock_period_ps = sw.clock_period_ps;
  if (lb.mode != lb_mode::balance_sketch) {
    std::vector<std::string> keys;
    for (const param_def& d : all_params().all())
      if (d.key.rfind("lb.sketch.", 0) == 0) keys.push_back(d.key);
    warn_unused(c, keys, with_lb);
  }
  balance_sketch_config& bs = lb.sketch;
  bs.form = c.string("lb.sketch.form") == "tofino" ? bs_form::pipeline : bs_form::software;
  bs.buckets = uint32_t(c.integer("lb.sketch.buckets"));
  bs.cells = uint32_t(c.integer("lb.sketch.cells"));
  if (bs.form == bs_form::pipeline && bs.cells != 1)
    fail(c, "lb.sketch.cells", fmt::format("is {}; the Tofino form has one cell per bucket", bs.cells));
  bs.fingerprint_bits = unsigned(c.integer("lb.sketch.fingerprint_bits"));
  bs.timestamp_bits = unsigned(c.integer("lb.sketch.timestamp_bits"));
  bs.delta_ps = to_ps(c.real("lb.sketch.flowlet_timeout"), 1e6);
  bs.Delta_ps = to_ps(c.real("lb.sketch.flow_timeout"), 1e6);
  if (bs.Delta_ps <= bs.delta_ps) fail(c, "lb.sketch.flow_timeout", "must be longer than lb.sketch.flowlet_timeout");
  bs.F = uint32_t(c.integer("lb.sketch.vote_threshold"));
  bs.next_hops = sw.member_capacity;   // the switch passes the member to take; this only bounds it
  if (lb.mode == lb_mode::balance_sketch) {
    // The sketch checks its own widths (timestamps must span Delta in slices of delta): build
    // one now so a bad combination stops the run with the keys named.
    try {
      balance_sketch trial(bs);
    } catch (const std::invalid_argument& e) {
      fail(c, "lb.sketch.flow_timeout", fmt::format("{} (with lb.sketch.flowlet_timeout {} us, lb.sketch.flow_timeout {} us, "
                                                    "lb.sketch.timestamp_bits {})", e.what(), c.real("lb.sketch.flowlet_timeout"),
                                                    c.real("lb.sketch.flow_timeout"), bs.timestamp_bits));
    }
  }
  if (lb.mode == lb_mode::letflow && lb.flowlet.delta_ps < sw.clock_period_ps)
    fail(c, "lb.flowlet.timeout", fmt::format("{} us is shorter than one switch clock period", c.real("lb.flowlet.timeout")));

  mirror_config& m = sw.mirror;
  const std::string to = c.string("mirror.to");
  m.to = to == "cpu" ? mirror_config::target::cpu : to == "collector" ? mirror_config::target::collector : mirror_config::target::off;
  const std::string with_to = "with mirror.to = \"" + to + "\"";
  if (m.to == mirror_config::target::off)
    reject_unused(c, {"mirror.sample", "mirror.truncate", "mirror.collector", "mirror.priority", "mirror.cpu_rate"}, with_to);
  if (m.to != mirror_config::target::collector) reject_unused(c, {"mirror.collector"}, with_to);
  if (m.to != mirror_config::target::cpu) reject_unused(c, {"mirror.cpu_rate"}, with_to);
  m.sample = uint32_t(c.integer("mirror.sample"));
  m.truncate_bytes = uint32_t(c.integer("mirror.truncate"));
  if (m.truncate_bytes && m.truncate_bytes < 64)
    fail(c, "mirror.truncate", fmt::format("{} bytes is below the 64-byte minimum frame; use 0 for whole frames", m.truncate_bytes));
  m.prio = uint8_t(c.integer("mirror.priority"));
  if (m.to != mirror_config::target::off && (sw.tm.lossless >> m.prio & 1))
    fail(c, "mirror.priority", fmt::format("priority {} is lossless (pfc.priorities): mirrored copies would pause the traffic they copy", m.prio));
  m.cpu_rate_bps = to_bps(c.real("mirror.cpu_rate"));
  const int64_t collector = c.integer("mirror.collector");
  if (m.to == mirror_config::target::collector && size_t(collector) >= f.topo.hosts.size())
    fail(c, "mirror.collector", fmt::format("host {} does not exist; the topology has hosts 0 to {}", collector, f.topo.hosts.size() - 1));
  m.collector_ip = host_nic::ip_of(unsigned(collector));

  f.nic.clock_period_ps = clock_period_ps(c, "nic.clock");
  f.nic.mtu_payload = uint32_t(c.integer("nic.mtu"));
  f.nic.window_packets = uint32_t(c.integer("nic.window"));
  f.nic.rto_ps = to_ps(c.real("nic.rto"), 1e6);
  f.nic.int_enabled = c.boolean("nic.int_padding");
  f.nic.data_priority = uint8_t(c.integer("nic.data_priority"));
  f.nic.ack_priority = uint8_t(c.integer("nic.ack_priority"));
  f.nic.pfc_response_cycles = sw.pfc_response_cycles;
  f.nic.rate_bps = host_bps;   // each NIC takes its own link's rate; this one prices reports
  f.nic.rx_pipe_cycles = uint32_t(c.integer("nic.rx_pipe_cycles"));
  f.nic.tx_pipe_cycles = uint32_t(c.integer("nic.tx_pipe_cycles"));
  f.nic.sched_engines = unsigned(c.integer("nic.scheduler.engines"));
  f.nic.sched_visit_cycles = uint32_t(c.integer("nic.scheduler.visit_cycles"));
  const std::string fc_form = c.string("flowcut.form");
  if (fc_form == "off") {
    warn_unused(c, {"flowcut.capacity", "flowcut.rtt_ratio", "flowcut.ewma_shift"}, "with flowcut.form = \"off\"");
  } else {
    if (sw.lb.mode != lb_mode::ecmp && sw.lb.mode != lb_mode::wcmp)
      fail(c, "flowcut.form", fmt::format("\"{}\" needs lb.mode = \"ecmp\" or \"wcmp\": Flowcut picks each flow's path itself, "
                                          "which lb.mode = \"{}\" would override", fc_form, c.string("lb.mode")));
    flowcut_config fcc;
    fcc.variant = fc_form == "nic" ? flowcut_variant::nic_only
                : fc_form == "ingress" ? flowcut_variant::ingress_only : flowcut_variant::full_switch;
    fcc.capacity = uint32_t(c.integer("flowcut.capacity"));
    fcc.rtt_ratio_threshold = c.real("flowcut.rtt_ratio");
    fcc.ewma_shift = unsigned(c.integer("flowcut.ewma_shift"));
    fcc.link_rate_gbps = uint32_t(std::lround(c.real("topology.host_rate")));
    if (fcc.variant == flowcut_variant::nic_only) {
      f.nic.flowcut = true;
      fcc.port_bytes = 2;   // the "port" is 14 bits of UDP source-port entropy
      f.nic.flowcut_table = fcc;
    } else {
      // A switch's table counts a flow's bytes until their ACKs pass back: a dropped data packet
      // would keep its flow from ever changing path or finishing a drain.
      if (!((sw.tm.lossless >> f.nic.data_priority) & 1))
        fail(c, "flowcut.form", fmt::format("\"{}\" counts bytes in flight until their ACKs return, so data must not be dropped: "
                                            "add nic.data_priority {} to pfc.priorities", fc_form, f.nic.data_priority));
      sw.flowcut_on = true;
      sw.flowcut = fcc;
    }
  }
  f.seed = uint64_t(c.integer("sim.seed"));
  make_cc_config(c, f.nic);
  // An algorithm without its signal would run open loop: say so before simulating.
  if (f.nic.cc.algorithm == cc_algorithm::hpcc && !f.nic.int_enabled)
    fail(c, "nic.int_padding", "is false, but cc.algorithm = \"hpcc\" needs INT in every data frame");
  if ((f.nic.cc.algorithm == cc_algorithm::dcqcn || f.nic.cc.algorithm == cc_algorithm::dctcp) &&
      !sw.tm.ecn[f.nic.data_priority].enabled)
    fail(c, "ecn.priorities", fmt::format("does not include nic.data_priority {}, but cc.algorithm = \"{}\" reacts to ECN marks",
                                          f.nic.data_priority, c.string("cc.algorithm")));

  // A buffer or queue that cannot hold one full data frame can never forward one.
  const uint32_t largest = f.nic.max_frame_bytes();
  for (const auto& [key, bytes] : {std::pair{"switch.buffer", sw.tm.buffer_bytes}, {"switch.queue_limit", sw.tm.queue_limit_bytes}})
    if (bytes && bytes < largest)
      fail(c, key, fmt::format("{} bytes cannot hold one {}-byte data frame (nic.mtu {} bytes plus headers)", bytes,
                               largest, f.nic.mtu_payload));

  // The PFC headroom is reserved out of the buffer; the shared pool must keep room for frames.
  if (sw.tm.lossless) {
    const unsigned classes = unsigned(__builtin_popcount(sw.tm.lossless));
    for (unsigned s : f.topo.switches) {
      uint64_t reserved = 0;
      for (unsigned li : f.topo.nodes[s].port_link)
        reserved += classes * sw.port_headroom(f.topo.links[li].rate_bps, f.topo.links[li].delay_ps, largest);
      if (reserved + 2 * largest > sw.tm.buffer_bytes)
        fail(c, "switch.buffer", fmt::format("{} KiB leaves no shared buffer on {}: its PFC headroom ({} ports, {} lossless "
                                             "priorities) takes {:.1f} KiB", sw.tm.buffer_bytes / 1024, f.topo.nodes[s].name,
                                             f.topo.nodes[s].port_link.size(), classes, double(reserved) / 1024));
    }
  }

  f.arrivals_end_ps = to_ps(c.real("sim.duration"), 1e6);
  f.probe_interval_ps = to_ps(c.real("sim.probe_interval"), 1e6);
  // Clock faults may come after the last flow: such a run lasts sim.duration + sim.drain.
  f.run_to_end = c.string("clock.algorithm") != "off" && !c.list("clock.faults").empty();
  // Probes are kept in memory until the run ends: four series per switch port and per switch, one per NIC,
  // and with the clock layer an epsilon and two offsets per device and algorithm.
  size_t series = 4 * f.topo.switches.size() + f.topo.hosts.size();
  for (unsigned s : f.topo.switches) series += 4 * f.topo.nodes[s].port_link.size();
  if (c.string("clock.algorithm") != "off") series += 3 * f.topo.nodes.size() * (1 + c.list("clock.baselines").size());
  const double samples = (c.real("sim.duration") + c.real("sim.drain")) / c.real("sim.probe_interval");
  constexpr double max_values = 1e8;   // 800 MB of samples
  if (samples * double(series) > max_values)
    fail(c, "sim.probe_interval", fmt::format("{} us over a {} us run samples {} probes {:.3g} times: {:.3g} values, "
                                              "more than the {:.0e} kept in memory; raise the interval",
                                              c.real("sim.probe_interval"), c.real("sim.duration") + c.real("sim.drain"),
                                              series, samples, samples * double(series), max_values));
  return f;
}

std::vector<flow_spec> make_flows(const config& c, const fabric_config& f) {
  traffic_spec t;
  t.pattern = parse_traffic_pattern(c.string("traffic.pattern"));
  // A clock-only run: the list pattern with no flows listed.
  if (t.pattern == traffic_pattern::list && c.list("traffic.flows").empty() && c.string("clock.algorithm") != "off") {
    reject_unused(c, {"traffic.flow_size", "traffic.start", "traffic.cdf", "traffic.load", "traffic.remote_only",
                      "traffic.incast.senders", "traffic.incast.receiver"}, "with traffic.pattern = \"list\"");
    return {};
  }
  const std::string pattern = "with traffic.pattern = \"" + c.string("traffic.pattern") + "\"";
  if (t.pattern == traffic_pattern::poisson) reject_unused(c, {"traffic.flow_size", "traffic.start"}, pattern);
  else reject_unused(c, {"traffic.load"}, pattern);
  if (t.pattern != traffic_pattern::incast) reject_unused(c, {"traffic.incast.senders", "traffic.incast.receiver"}, pattern);
  if (t.pattern == traffic_pattern::list) reject_unused(c, {"traffic.flow_size", "traffic.start", "traffic.cdf"}, pattern);
  else if (t.pattern != traffic_pattern::poisson && c.integer("traffic.flow_size") > 0)
    reject_unused(c, {"traffic.cdf"}, "when traffic.flow_size fixes the flow size");
  t.hosts = uint32_t(f.topo.hosts.size());
  t.host_rate_bps = c.real("topology.host_rate") * 1e9;
  t.remote_only = c.boolean("traffic.remote_only");
  if (t.pattern != traffic_pattern::poisson) reject_unused(c, {"traffic.remote_only"}, pattern);
  if (t.remote_only)   // the builders number a ToR's hosts contiguously
    for (uint32_t h = 0; h < t.hosts; ++h) {
      uint32_t lo = h, hi = h + 1;
      while (lo > 0 && f.topo.host_switch(lo - 1) == f.topo.host_switch(h)) --lo;
      while (hi < t.hosts && f.topo.host_switch(hi) == f.topo.host_switch(h)) ++hi;
      t.tor_first.push_back(lo);
      t.tor_end.push_back(hi);
    }
  t.load = c.real("traffic.load");
  t.flow_size_bytes = uint64_t(c.integer("traffic.flow_size"));
  if (t.pattern == traffic_pattern::poisson || (t.pattern != traffic_pattern::list && t.flow_size_bytes == 0)) {
    try {
      t.cdf = flow_size_cdf::load(c.string("traffic.cdf"));
    } catch (const config_error& e) {
      fail(c, "traffic.cdf", e.what());
    }
  }
  t.duration_ps = f.arrivals_end_ps;
  t.start_ps = t.pattern == traffic_pattern::poisson ? 0 : to_ps(c.real("traffic.start"), 1e6);
  t.incast_senders = uint32_t(c.integer("traffic.incast.senders"));
  t.incast_receiver = uint32_t(c.integer("traffic.incast.receiver"));
  try {
    t.listed = parse_flow_list(c.list("traffic.flows"), t.hosts);
  } catch (const config_error& e) {
    throw config_error(c.origin("traffic.flows") + ": " + e.what());
  }
  rng r(uint64_t(c.integer("sim.seed")));
  try {
    return generate_flows(t, r);
  } catch (const config_error& e) {
    // The generator's messages start with the key they are about; point at where it was set.
    const std::string msg = e.what(), key = msg.substr(0, msg.find(':'));
    if (all_params().find(key)) throw config_error(fmt::format("{}: key '{}'{}", c.origin(key), key, msg.substr(key.size())));
    throw config_error(fmt::format("{}: {}", c.source_file().empty() ? "--set" : c.source_file(), msg));
  }
}

// The clock layer (docs/datasheets/sundial.md): its algorithms, parameters and faults, checked
// here so that a bad key stops the run before it simulates. False when clock.algorithm is off.
bool make_clock_config(const config& c, fabric_config& f, clock_network_config& k) {
  const std::string alg = c.string("clock.algorithm");
  std::vector<std::string> keys;
  for (const param_def& d : all_params().all())
    if (d.key.rfind("clock.", 0) == 0 && d.key != "clock.algorithm") keys.push_back(d.key);
  if (alg == "off") {
    warn_unused(c, keys, "with clock.algorithm = \"off\"");
    return false;
  }
  k.algorithms = {parse_clock_algorithm(alg)};
  for (const std::string& b : c.list("clock.baselines")) {
    if (b != "ptp" && b != "ptp_fast") fail(c, "clock.baselines", fmt::format("'{}' is not a baseline (ptp, ptp_fast)", b));
    const clock_algorithm a = parse_clock_algorithm(b);
    if (std::find(k.algorithms.begin(), k.algorithms.end(), a) != k.algorithms.end())
      fail(c, "clock.baselines", fmt::format("'{}' is listed twice, or is clock.algorithm itself", b));
    k.algorithms.push_back(a);
  }
  auto runs = [&](clock_algorithm a) { return std::find(k.algorithms.begin(), k.algorithms.end(), a) != k.algorithms.end(); };
  if (!runs(clock_algorithm::sundial))
    warn_unused(c, {"clock.sync_interval", "clock.first_timeout", "clock.second_timeout"}, "when Sundial does not run");
  if (!runs(clock_algorithm::ptp)) warn_unused(c, {"clock.ptp_interval", "clock.ptp_recovery"}, "when ptp does not run");
  if (!runs(clock_algorithm::ptp_fast))
    warn_unused(c, {"clock.ptp_fast_interval", "clock.ptp_fast_recovery"}, "when ptp_fast does not run");
  k.root = c.string("clock.root");
  k.sync_interval_ps = to_ps(c.real("clock.sync_interval"), 1e6);
  k.first_timeout_ps = to_ps(c.real("clock.first_timeout"), 1e6);
  k.second_timeout_ps = to_ps(c.real("clock.second_timeout"), 1e6);
  if (k.first_timeout_ps <= k.sync_interval_ps)
    fail(c, "clock.first_timeout", fmt::format("{} us is not longer than clock.sync_interval ({} us): every device would "
                                               "time out between two messages (the paper uses more than twice the interval)",
                                               c.real("clock.first_timeout"), c.real("clock.sync_interval")));
  k.eps_per_hop_ps = to_ps(c.real("clock.eps_per_hop"), 1e3);
  k.max_drift_ppb = uint64_t(std::llround(c.real("clock.max_drift") * 1e3));
  k.oscillator_bound_ppb = std::llround(c.real("clock.oscillator_bound") * 1e3);
  k.drift_ppb_per_s = std::llround(c.real("clock.drift") * 1e3);
  k.broken_rate_ppb = std::llround(c.real("clock.broken_rate") * 1e3);
  if (std::llabs(k.broken_rate_ppb) <= k.oscillator_bound_ppb)
    fail(c, "clock.broken_rate", fmt::format("{} ppm is within clock.oscillator_bound ({} ppm): such a clock is not broken",
                                             c.real("clock.broken_rate"), c.real("clock.oscillator_bound")));
  if (k.max_drift_ppb < uint64_t(2 * k.oscillator_bound_ppb))
    std::cerr << fmt::format("warning: {}: key 'clock.max_drift': {} ppm is below twice clock.oscillator_bound ({} ppm): two "
                             "clocks can drift apart faster than epsilon grows, so the bound may not hold\n",
                             c.origin("clock.max_drift"), c.real("clock.max_drift"), c.real("clock.oscillator_bound"));
  k.controller_delay_ps = to_ps(c.real("clock.controller_delay"), 1e6);
  k.ptp_interval_ps = to_ps(c.real("clock.ptp_interval"), 1e6);
  k.ptp_recovery_ps = to_ps(c.real("clock.ptp_recovery"), 1e6);
  k.ptp_fast_interval_ps = to_ps(c.real("clock.ptp_fast_interval"), 1e6);
  k.ptp_fast_recovery_ps = to_ps(c.real("clock.ptp_fast_recovery"), 1e6);
  // Every device's oscillator runs at the switch clock. A forwarded sync-message enters the
  // traffic manager after the ingress side of the pipeline (parser, ingress stages, TM); the
  // switch adds its queueing, the egress stages and the deparser.
  k.oscillator_period_ps = f.sw.clock_period_ps;
  k.forward_delay_ps = f.sw.ingress_ps();
  f.sync_priority = uint8_t(c.integer("clock.priority"));
  if (!(f.sw.tm.strict >> f.sync_priority & 1))
    fail(c, "clock.priority", fmt::format("priority {} is not strict (tm.strict): data could hold sync-messages back for "
                                          "as long as its deficit round robin takes", f.sync_priority));
  k.sample_interval_ps = 0;   // sampled with the probes
  k.duration_ps = f.arrivals_end_ps + to_ps(c.real("sim.drain"), 1e6);
  k.seed = f.seed;
  k.max_values = UINT64_MAX;   // make_fabric_config bounded the probes
  for (const std::string& item : c.list("clock.faults")) {
    try {
      k.faults.push_back(parse_clock_fault(item));
    } catch (const config_error& e) {
      fail(c, "clock.faults", e.what());
    }
  }
  try {
    check_clock_network(f.topo, k);
  } catch (const config_error& e) {
    const std::string m = e.what();
    fail(c, m.rfind("fault", 0) == 0 ? "clock.faults" : "clock.root", m);
  }
  return true;
}

// The progress line on stderr while the kernel runs: at most four a second on a terminal, one
// every ten seconds in a log.
struct progress_line {
  using wall_clock = std::chrono::steady_clock;
  progress_mode mode;
  uint64_t end_ps;
  size_t flows;
  wall_clock::time_point start = wall_clock::now(), last = start;

  void sample(const fabric& fab, uint64_t now) {
    if (mode == progress_mode::none) return;
    const auto w = wall_clock::now();
    if (std::chrono::duration<double>(w - last).count() < (mode == progress_mode::terminal ? 0.25 : 10.0)) return;
    last = w;
    const double wall = std::chrono::duration<double>(w - start).count();
    const std::string line = fmt::format(
        "[{:3.0f}%] sim {:.3f} of {:.3f} ms | flows {} done of {} | {:.2f} M packet-hops/s | wall {:.1f} s",
        100.0 * double(now) / double(end_ps), double(now) * 1e-9, double(end_ps) * 1e-9, fab.flows_completed,
        flows, double(fab.stats.hops) / wall * 1e-6, wall);
    if (mode == progress_mode::terminal) std::cerr << "\r" << line << "\x1b[K" << std::flush;
    else std::cerr << line << "\n";
  }
  double elapsed_s() const { return std::chrono::duration<double>(wall_clock::now() - start).count(); }
};

}  // namespace

run_result run_scenario(const config& cfg, progress_mode progress) {
  fabric_config fc = make_fabric_config(cfg);
  const std::vector<flow_spec> specs = make_flows(cfg, fc);
  clock_network_config clock_cfg;
  const bool clock_on = make_clock_config(cfg, fc, clock_cfg);
  const bool sundial_on = clock_on && std::find(clock_cfg.algorithms.begin(), clock_cfg.algorithms.end(),
                                                 clock_algorithm::sundial) != clock_cfg.algorithms.end();
  if (clock_on) {
    clock_cfg.sundial_live_registers = sundial_on;   // its controller programs the switches and NICs over the register bus
    fc.clock = &clock_cfg;
  }
  // ECMP groups must fit the member table: a configuration error, found before simulating.
  fc.routes = plan_routes(fc.topo, fc.sw.lb.mode == lb_mode::wcmp ? fc.sw.lb.wcmp_table_size : 0);
  const route_plan& plan = fc.routes;
  for (unsigned s = 0; s < plan.per_switch.size(); ++s)
    if (plan.per_switch[s].members.size() > fc.sw.member_capacity)
      fail(cfg, "switch.ecmp_members", fmt::format("{} needs {} ECMP member entries, the table has {}",
                                                    fc.topo.nodes[fc.topo.switches[s]].name,
                                                    plan.per_switch[s].members.size(), fc.sw.member_capacity));
  if (!plan.unreachable.empty())
    std::cerr << fmt::format("warning: {} switch-to-host pairs have no path (first: {}); packets to them are "
                             "dropped as no_route\n", plan.unreachable.size(), plan.unreachable.front());

  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  // The kernel's info messages ("simulation stopped by user") are noise in a tool's output.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  // The fabric lives until the process ends, as the kernel does (it runs once per process).
  // Destroying it would cost time quadratic in its size: SystemC unregisters every port, export
  // and module by a linear search of its registries.
  static fabric* kept = nullptr;
  kept = new fabric("fabric", fc, specs);
  fabric& fab = *kept;
  const uint64_t end_ps = fc.arrivals_end_ps + to_ps(cfg.real("sim.drain"), 1e6);

  progress_line line{progress, end_ps, specs.size()};
  fab.on_sample = [&](uint64_t now) { line.sample(fab, now); };
  sc_core::sc_start(ps(end_ps));
  const double wall = line.elapsed_s();
  if (progress == progress_mode::terminal) std::cerr << "\r\x1b[K" << std::flush;
  const uint64_t sim_end = now_ps();

  run_result r;
  r.probes = std::move(fab.probes);
  if (clock_on) r.clock = clock_records(fab, r.probes);
  r.flows = flow_records(fab);
  r.links = link_records(fab, sim_end);
  const run_stats& st = fab.stats;
  r.accounting_ok = st.sent == st.delivered + st.dropped.total() + st.in_flight();
  r.summary = run_summary(cfg, fab, r, wall, sim_end);
  warn_about_run(cfg, fab, r);
  return r;
}

std::string resources_report(const config& cfg, bool& fits) {
  return resources_report(cfg, make_fabric_config(cfg), fits);
}

}  // namespace netasic
