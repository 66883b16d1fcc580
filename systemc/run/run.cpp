#include "run/run.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <array>
#include <map>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "blocks/rtl_loop.h"
#include "clock/clock_network.h"
#include "fabric/fabric.h"
#include "output/csv.h"
#include "output/gtkw.h"
#include "output/report.h"
#include "output/vcd.h"
#include "switch/resources.h"

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
  m.collector_ip = host_ip(uint32_t(collector));

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

// The clock layer's results: its summary, and three series per device and algorithm appended to
// the probes, in ns: epsilon rounded up (-1 = no bound); the offset from the device's root,
// truncated toward zero so a sample never shows a violation the model did not have; and the
// offset from ideal time.
nlohmann::json clock_outputs(fabric& fab, probe_set& probes) {
  const clock_result cr = fab.clock()->finish(now_ps());
  for (const clock_algorithm_result& a : cr.algorithms) {
    const std::string name = std::string("clock.") + clock_algorithm_name(a.algorithm);
    for (size_t u = 0; u < cr.devices.size(); ++u) {
      probe_series e{cr.devices[u], name + ".epsilon", "ns", {}}, o{cr.devices[u], name + ".offset", "ns", {}},
          i{cr.devices[u], name + ".offset_ideal", "ns", {}};
      for (int64_t v : a.epsilon_ps[u]) e.samples.push_back(v == clock_result::no_bound ? -1 : (v + 999) / 1000);
      for (int64_t v : a.offset_ps[u]) o.samples.push_back(v / 1000);
      for (int64_t v : a.offset_ideal_ps[u]) i.samples.push_back(v / 1000);
      probes.series.push_back(std::move(e));
      probes.series.push_back(std::move(o));
      probes.series.push_back(std::move(i));
    }
  }
  nlohmann::json s = cr.summary;
  s["sync_dropped"] = fab.sync_dropped();
  s["sync_wait_max_ns"] = double(fab.sync_wait_max_ps()) / 1e3;
  s["reroutes"] = fab.reroutes();
  if (const sundial_controller* c = fab.sundial()) {
    nlohmann::json& d = s["sundial"];
    d["register_writes"] = c->register_writes();
    d["register_reads"] = c->register_reads();
    d["register_readback_mismatches"] = c->readback_mismatches();
    d["state_reads"] = c->state_reads();
    d["controller_replans"] = c->replans();
    d["controller_saw_evictions"] = c->evictions_seen();
    d["controller_saw_elections"] = c->elections_seen();
    d["configured_from"] = "registers";
  }
  if (s.contains("sundial") && s["sundial"]["plan_status"] != "ok")
    std::cerr << fmt::format("warning: Sundial found no complete backup plan ({}): devices run without backup parents "
                             "until the controller finds one\n", s["sundial"].value("plan_reason", ""));
  return s;
}

uint64_t peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return uint64_t(u.ru_maxrss) * 1024;
}

}  // namespace

double percentile_sorted(const std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  const size_t rank = size_t(std::ceil(p / 100.0 * double(v.size())));
  return v[rank == 0 ? 0 : rank - 1];
}

run_result run_scenario(const config& cfg, progress_mode progress) {
  using clock = std::chrono::steady_clock;
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

  const auto wall0 = clock::now();
  auto last_print = wall0;
  fab.on_sample = [&](uint64_t now) {
    if (progress == progress_mode::none) return;
    const auto w = clock::now();
    const double since = std::chrono::duration<double>(w - last_print).count();
    if (since < (progress == progress_mode::terminal ? 0.25 : 10.0)) return;
    last_print = w;
    const double wall = std::chrono::duration<double>(w - wall0).count();
    const std::string line = fmt::format(
        "[{:3.0f}%] sim {:.3f} of {:.3f} ms | flows {} done of {} | {:.2f} M packet-hops/s | wall {:.1f} s",
        100.0 * double(now) / double(end_ps), double(now) * 1e-9, double(end_ps) * 1e-9, fab.flows_completed,
        specs.size(), double(fab.stats.hops) / wall * 1e-6, wall);
    if (progress == progress_mode::terminal) std::cerr << "\r" << line << "\x1b[K" << std::flush;
    else std::cerr << line << "\n";
  };

  sc_core::sc_start(ps(end_ps));
  const double wall = std::chrono::duration<double>(clock::now() - wall0).count();
  if (progress == progress_mode::terminal) std::cerr << "\r\x1b[K" << std::flush;
  const uint64_t sim_end = now_ps();

  run_result r;
  r.probes = std::move(fab.probes);
  const nlohmann::json clock_summary = clock_on ? clock_outputs(fab, r.probes) : nlohmann::json();
  std::vector<double> slowdowns;
  for (const flow_ctx& f : fab.flows) {
    flow_record rec;
    rec.id = f.id;
    rec.src = f.src;
    rec.dst = f.dst;
    rec.size_bytes = f.size_bytes;
    rec.start_s = double(f.start_ps) * 1e-12;
    rec.ideal_fct_s = double(fab.ideal_fct_ps(f.src, f.dst, f.size_bytes)) * 1e-12;
    rec.retransmitted_packets = f.retransmitted;
    rec.path_changes = f.path_changes;
    rec.out_of_order_packets = f.out_of_order;
    rec.max_reorder_packets = f.max_reorder;
    if (f.snd.total && f.snd.done()) {
      rec.fct_s = double(f.finish_ps - f.start_ps) * 1e-12;
      slowdowns.push_back(rec.slowdown());
    }
    r.flows.push_back(rec);
  }
  std::sort(slowdowns.begin(), slowdowns.end());
  for (unsigned s = 0; s < fc.topo.switches.size(); ++s) {
    const topo_node& n = fc.topo.nodes[fc.topo.switches[s]];
    for (unsigned p = 0; p < n.port_link.size(); ++p) {
      const topo_link& l = fc.topo.links[n.port_link[p]];
      link_record rec;
      rec.from = fmt::format("{}.port{}", n.name, p);
      rec.to = fc.topo.nodes[l.a == fc.topo.switches[s] ? l.b : l.a].name;
      rec.rate_bps = l.failed ? 0 : l.rate_bps;
      rec.bytes = fab.switches()[s]->tx_bytes(p);
      rec.utilization = rec.rate_bps && sim_end ? double(rec.bytes) * 8 / (double(rec.rate_bps) * double(sim_end) * 1e-12) : 0.0;
      r.links.push_back(rec);
    }
  }

  const run_stats& st = fab.stats;
  const uint64_t dropped = st.dropped.total(), in_flight = st.in_flight();
  r.accounting_ok = st.sent == st.delivered + dropped + in_flight;
  const auto [peak_q, peak_port] = fab.peak_queue();
  uint64_t timeouts = 0, retrans = 0, path_changes = 0, out_of_order = 0;
  uint32_t max_reorder = 0;
  for (const flow_ctx& f : fab.flows) {
    timeouts += f.timeouts;
    retrans += f.retransmitted;
    path_changes += f.path_changes;
    out_of_order += f.out_of_order;
    max_reorder = std::max(max_reorder, f.max_reorder);
  }
  nlohmann::json& s = r.summary;
  s["scenario"] = cfg.string("scenario.name");
  s["seed"] = cfg.integer("sim.seed");
  s["sim_time_s"] = double(sim_end) * 1e-12;
  s["wall_time_s"] = wall;
  s["packet_hops"] = st.hops;
  s["packet_hops_per_s"] = wall > 0 ? double(st.hops) / wall : 0.0;
  s["peak_memory_bytes"] = peak_rss_bytes();
  s["packets"] = {{"sent", st.sent}, {"delivered", st.delivered}, {"dropped", dropped}, {"in_flight", in_flight}};
  s["drops"] = {{"buffer_full", st.dropped.buffer_full}, {"queue_limit", st.dropped.queue_limit},
                {"dynamic_threshold", st.dropped.dynamic_threshold}, {"headroom", st.dropped.headroom},
                {"pipe_overrun", st.dropped.pipe_overrun}, {"no_route", st.dropped.no_route},
                {"link_down", st.dropped.link_down}};
  s["flows"] = {{"total", specs.size()}, {"started", fab.flows_started}, {"completed", fab.flows_completed},
                {"retransmitted_packets", retrans}, {"timeouts", timeouts},
                {"path_changes", path_changes}, {"out_of_order_packets", out_of_order},
                {"max_reorder_packets", max_reorder}};
  s["fct_slowdown"] = {{"p50", percentile_sorted(slowdowns, 50)},
                       {"p95", percentile_sorted(slowdowns, 95)},
                       {"p99", percentile_sorted(slowdowns, 99)}};
  // FCT slowdown by flow size, in HPCC's style: short flows' tails are where congestion control
  // shows. Buckets are [lower, upper) in payload bytes.
  const uint64_t edges[] = {0, 3'000, 12'000, 48'000, 192'000, 768'000, 3'000'000, UINT64_MAX};
  nlohmann::json by_size = nlohmann::json::array();
  for (size_t b = 0; b + 1 < std::size(edges); ++b) {
    std::vector<double> v;
    for (const flow_record& rec : r.flows)
      if (rec.fct_s > 0 && rec.size_bytes >= edges[b] && rec.size_bytes < edges[b + 1]) v.push_back(rec.slowdown());
    if (v.empty()) continue;
    std::sort(v.begin(), v.end());
    by_size.push_back({{"min_bytes", edges[b]}, {"max_bytes", edges[b + 1] == UINT64_MAX ? nlohmann::json(nullptr) : nlohmann::json(edges[b + 1])},
                       {"flows", v.size()}, {"p50", percentile_sorted(v, 50)}, {"p95", percentile_sorted(v, 95)},
                       {"p99", percentile_sorted(v, 99)}});
  }
  s["fct_slowdown_by_size"] = by_size;
  // Queue-length distribution: every sample of every switch port's queue.
  std::vector<double> qs;
  for (const probe_series& ps : r.probes.series)
    if (ps.name.size() > 7 && ps.name.compare(ps.name.size() - 7, 7, ".qdepth") == 0)
      qs.insert(qs.end(), ps.samples.begin(), ps.samples.end());
  std::sort(qs.begin(), qs.end());
  s["queue"] = {{"peak_bytes", peak_q}, {"peak_port", peak_port},
                {"samples", qs.size()},
                {"p50_bytes", percentile_sorted(qs, 50)}, {"p95_bytes", percentile_sorted(qs, 95)},
                {"p99_bytes", percentile_sorted(qs, 99)}, {"p999_bytes", percentile_sorted(qs, 99.9)}};
  s["topology"] = {{"hosts", fc.topo.hosts.size()}, {"switches", fc.topo.switches.size()},
                   {"links", fc.topo.links.size()}, {"route_register_writes", fab.controller().register_writes()}};
  if (clock_on) s["clock"] = clock_summary;
  s["accounting_ok"] = r.accounting_ok;
  s["events"] = {{"wakeups", fab.events().wakeups()}, {"kernel_notifications", fab.events().kernel_notifications()}};

  // Traffic manager: PFC, ECN, INT, recirculation, over all switches.
  switch_counters sum;
  uint64_t marked = 0;
  std::array<double, num_priorities> paused_s{};
  std::pair<double, std::string> most_paused{0, ""};
  for (const auto& sw : fab.switches()) {
    sum.pfc_sent += sw->counters().pfc_sent;
    sum.pfc_received += sw->counters().pfc_received;
    sum.recirculated += sw->counters().recirculated;
    sum.int_written += sw->counters().int_written;
    marked += sw->tm().ecn_marked();
    for (unsigned p = 0; p < sw->ports(); ++p)
      for (unsigned q = 0; q < num_priorities; ++q) {
        const double t = double(sw->paused_ps(p, q, sim_end)) * 1e-12;
        paused_s[q] += t;
        if (t > most_paused.first) most_paused = {t, fmt::format("{}.port{} priority {}", sw->basename(), p, q)};
      }
  }
  double host_paused_s = 0;
  for (const auto& h : fab.hosts())
    for (unsigned q = 0; q < num_priorities; ++q) host_paused_s += double(h->pause().paused_ps(q, sim_end)) * 1e-12;
  s["pfc"] = {{"pause_frames_sent", sum.pfc_sent},
              {"pause_frames_received_by_switches", sum.pfc_received},
              {"switch_port_pause_time_s_by_priority", paused_s},
              {"host_pause_time_s", host_paused_s},
              {"most_paused", most_paused.second},
              {"most_paused_time_s", most_paused.first}};
  s["ecn_marked_packets"] = marked;
  s["int_records_written"] = sum.int_written;
  s["recirculated_packets"] = sum.recirculated;
  if (fc.sw.mirror.to != mirror_config::target::off) {
    for (const auto& sw : fab.switches()) {
      sum.mirrored += sw->counters().mirrored;
      sum.mirror_dropped += sw->counters().mirror_dropped;
      sum.mirror_to_cpu += sw->counters().mirror_to_cpu;
      sum.mirror_cpu_bytes += sw->counters().mirror_cpu_bytes;
    }
    uint64_t at_collector = 0, collector_bytes = 0;
    for (const auto& h : fab.hosts()) {
      at_collector += h->mirror_received();
      collector_bytes += h->mirror_bytes();
    }
    s["mirror"] = {{"copies_made", sum.mirrored},
                   {"copies_dropped", sum.mirror_dropped},
                   {"copies_delivered", sum.mirror_to_cpu + at_collector},
                   {"bytes_delivered", sum.mirror_cpu_bytes + collector_bytes},
                   {"copies_in_flight", sum.mirrored - sum.mirror_dropped - sum.mirror_to_cpu - at_collector}};
  }
  // Load balancing: the flowlet tables of every switch.
  if (fc.sw.lb.mode == lb_mode::letflow) {
    flowlet_counters fl;
    uint64_t peak = 0;
    for (const auto& sw : fab.switches()) {
      const flowlet_counters& c = *sw->lb().flowlet_counts();
      fl.lookups += c.lookups;
      fl.new_flowlets += c.new_flowlets;
      fl.path_changes += c.path_changes;
      fl.collisions += c.collisions;
      fl.evictions += c.evictions;
      fl.sweep_conflicts += c.sweep_conflicts;
      fl.sweep_overruns += c.sweep_overruns;
    }
    for (const probe_series& ps : r.probes.series)
      if (ps.name == "flowlets") peak = std::max<uint64_t>(peak, ps.samples.empty() ? 0 : uint64_t(*std::max_element(ps.samples.begin(), ps.samples.end())));
    s["load_balancer"] = {{"mode", cfg.string("lb.mode")},
                          {"flowlet_lookups", fl.lookups},
                          {"new_flowlets", fl.new_flowlets},
                          {"flowlet_path_changes", fl.path_changes},
                          {"flowlet_collisions", fl.collisions},
                          {"flowlet_evictions", fl.evictions},
                          {"sweep_conflict_cycles", fl.sweep_conflicts},
                          {"sweep_overruns", fl.sweep_overruns},
                          {"peak_table_occupancy", peak},
                          {"table_entries", fc.sw.lb.flowlet.entries}};
  } else if (fc.sw.lb.mode == lb_mode::balance_sketch) {
    bs_counters b;
    uint64_t occupancy = 0, clears = 0, clears_lost = 0;
    for (const auto& sw : fab.switches()) {
      const bs_counters& c = *sw->lb().sketch_counts();
      b.packets += c.packets;
      b.collisions += c.collisions;
      b.flowlet_starts += c.flowlet_starts;
      b.path_changes += c.path_changes;
      b.steered_packets += c.steered_packets;
      b.bucket_clears += c.bucket_clears;
      occupancy = std::max(occupancy, sw->lb().sketch_occupancy());
      clears += sw->counters().sketch_clears;
      clears_lost += sw->counters().sketch_clears_lost;
    }
    s["load_balancer"] = {{"mode", cfg.string("lb.mode")},
                          {"sketch_packets", b.packets},
                          {"sketch_collisions", b.collisions},
                          {"flowlet_starts", b.flowlet_starts},
                          {"burst_path_changes", b.path_changes},
                          {"steered_packets", b.steered_packets},
                          {"bucket_clears", b.bucket_clears},
                          {"bucket_clears_recirculated", clears},
                          {"bucket_clears_not_admitted", clears_lost},
                          {"max_cells_in_use", occupancy},
                          {"sketch_memory_bits", balance_sketch(fc.sw.lb.sketch).memory_bits()}};
  } else if (fc.sw.lb.mode == lb_mode::conga) {
    conga_counters cg;
    uint64_t flowlet_changes = 0;
    for (const auto& sw : fab.switches()) {
      const conga_leaf* leaf = sw->lb().conga();
      if (!leaf) continue;   // a spine
      cg.sent += leaf->counters().sent;
      cg.received += leaf->counters().received;
      cg.new_flowlets += leaf->counters().new_flowlets;
      cg.random_choices += leaf->counters().random_choices;
      cg.feedback_sent += leaf->counters().feedback_sent;
      cg.feedback_received += leaf->counters().feedback_received;
      flowlet_changes += leaf->flowlets().counters().path_changes;
    }
    s["load_balancer"] = {{"mode", cfg.string("lb.mode")},
                          {"packets_sent_between_leaves", cg.sent},
                          {"packets_received_from_leaves", cg.received},
                          {"new_flowlets", cg.new_flowlets},
                          {"flowlet_path_changes", flowlet_changes},
                          {"random_tie_breaks", cg.random_choices},
                          {"feedback_sent", cg.feedback_sent},
                          {"feedback_received", cg.feedback_received}};
  } else {
    s["load_balancer"] = {{"mode", cfg.string("lb.mode")}};
  }

  // Flowcut: the NICs' tables, or the switches'.
  std::vector<const flowcut_table*> fc_tables;
  uint64_t fc_held_peak = 0, fc_switch_held = 0;
  if (fc.nic.flowcut)
    for (const auto& h : fab.hosts()) fc_tables.push_back(h->flowcut());
  for (const auto& sw : fab.switches())
    if (sw->flowcut()) {
      fc_tables.push_back(sw->flowcut());
      fc_held_peak = std::max(fc_held_peak, sw->counters().flowcut_held_peak_bytes);
      fc_switch_held += sw->counters().flowcut_packets_held;
    }
  if (!fc_tables.empty()) {
    flowcut_counters fcs;
    uint64_t peak = 0;
    for (const flowcut_table* t : fc_tables) {
      const flowcut_counters& c = t->counters();
      fcs.flowcuts += c.flowcuts;
      fcs.drains += c.drains;
      fcs.drains_completed += c.drains_completed;
      fcs.drains_cancelled += c.drains_cancelled;
      fcs.drain_time_ps += c.drain_time_ps;
      fcs.table_full += c.table_full;
      fcs.packets_held += c.packets_held;
      fcs.rtt_samples += c.rtt_samples;
      fcs.acks_unmatched += c.acks_unmatched;
      peak = std::max(peak, c.peak_entries);
    }
    s["flowcut"] = {{"form", cfg.string("flowcut.form")},
                    {"tables", fc_tables.size()},
                    {"flowcuts", fcs.flowcuts},
                    {"drains", fcs.drains},
                    {"drains_completed", fcs.drains_completed},
                    {"drains_cancelled", fcs.drains_cancelled},
                    {"drain_time_s", double(fcs.drain_time_ps) * 1e-12},
                    {"table_full_events", fcs.table_full},
                    // A NIC holds a QP (it stops sending); a switch holds packets.
                    {"packets_held", fc.nic.flowcut ? fcs.packets_held : fc_switch_held},
                    {"held_peak_bytes", fc_held_peak},
                    {"rtt_samples", fcs.rtt_samples},
                    {"acks_unmatched", fcs.acks_unmatched},
                    {"peak_entries_per_table", peak},
                    {"table_bytes", fc_tables.front()->memory_bytes()}};
  }

  // NIC: congestion control and the flow scheduler.
  nic_scheduler_stats nics;
  uint64_t cnps = 0;
  for (const auto& h : fab.hosts()) {
    nics.peak_qps_per_engine = std::max(nics.peak_qps_per_engine, h->scheduler().peak_qps_per_engine);
    nics.scan_bound_ps += h->scheduler().scan_bound_ps;
    nics.cc_updates += h->scheduler().cc_updates;
    nics.cc_cycles += h->scheduler().cc_cycles;
  }
  for (const flow_ctx& f : fab.flows) cnps += f.cnps;
  // A QP sends at most one frame per round of its engine: the most QPs an engine can hold while
  // one of them still gets line rate.
  const uint64_t frame_ps = link_timing{fc.nic.rate_bps}.occupancy_ps(fc.nic.max_frame_bytes());
  const uint64_t visit_ps = uint64_t(fc.nic.sched_visit_cycles) * fc.nic.clock_period_ps;
  const uint64_t line_rate_qps = frame_ps / visit_ps;
  s["nic"] = {{"congestion_control", cfg.string("cc.algorithm")},
              {"base_rtt_s", double(fab.config().nic.cc.base_rtt_ps) * 1e-12},
              {"cc_updates", nics.cc_updates},
              {"cc_cycles_per_update", nics.cc_updates ? double(nics.cc_cycles) / double(nics.cc_updates) : 0.0},
              {"cnps_sent", cnps},
              {"peak_qps_per_engine", nics.peak_qps_per_engine},
              {"line_rate_qps_per_engine", line_rate_qps},
              {"scheduler_bound_time_s", double(nics.scan_bound_ps) * 1e-12}};
  if (const reciprocal_table* t = fc.nic.cc.table.get()) {
    // The division of HPCC's window update: the table the NICs hold, checked over every n.
    const unsigned quotient_bits = hpcc::window_bits;
    s["hpcc_reciprocal_table"] = {{"entries", t->entries()},
                                  {"bytes", t->bytes()},
                                  {"epsilon", t->config().epsilon},
                                  {"worst_relative_error", t->worst_relative_error()},
                                  {"divide_cycles", t->divide_cycles()},
                                  {"iterative_divider_cycles", reciprocal_table::iterative_divider_cycles(quotient_bits)}};
  }
  // Blocks whose Verilated RTL stood in for the core (--rtl), and how many calls each answered.
  for (const auto& [block, calls] : rtl_blocks().calls) s["rtl_in_loop"][block] = {{"calls", calls}};
  if (nics.peak_qps_per_engine > line_rate_qps && nics.scan_bound_ps)
    std::cerr << fmt::format("warning: the NIC flow scheduler fell short: up to {} QPs on one engine, where one engine keeps a "
                             "QP at line rate for at most {} ({} ns frames, {} ns per visit); wires idled {:.1f} us in all "
                             "waiting for engine visits. Raise nic.scheduler.engines or lower nic.scheduler.visit_cycles.\n",
                             nics.peak_qps_per_engine, line_rate_qps, double(frame_ps) / 1e3, double(visit_ps) / 1e3,
                             double(nics.scan_bound_ps) * 1e-6);
  if (st.dropped.headroom)
    std::cerr << fmt::format("warning: lossless priorities dropped {} frames: the PFC headroom was full after XOFF "
                             "(pfc.headroom = {} KiB). Leave pfc.headroom at 0 to size it for each port's link.\n",
                             st.dropped.headroom, cfg.real("pfc.headroom"));
  return r;
}

std::string resources_report(const config& cfg, bool& fits) {
  const fabric_config fc = make_fabric_config(cfg);
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

void write_run_outputs(const std::string& dir, const config& cfg, const run_result& r, bool vcd) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  const fs::path d(dir);
  std::ofstream(d / "summary.json") << r.summary.dump(2) << "\n";
  std::ofstream(d / "config.toml") << cfg.to_toml();
  write_flows_csv((d / "flows.csv").string(), r.flows);
  write_probes_csv((d / "probes.csv").string(), r.probes);
  write_links_csv((d / "links.csv").string(), r.links);
  if (vcd) {
    write_vcd((d / "waves.vcd").string(), r.probes);
    write_gtkw((d / "waves.gtkw").string(), "waves.vcd", r.probes);
  }
  write_report_html((d / "report.html").string(), r.summary, r.flows, r.probes);
}

}  // namespace netasic
