#include "scenario/lb_keys.h"

#include <stdexcept>

#include <fmt/format.h>

#include "blocks/balance_sketch.h"
#include "scenario/key_binding.h"

namespace netasic {
namespace {

const names<lb_mode> lb_mode_names{{lb_mode::ecmp, "ecmp"},
                                   {lb_mode::wcmp, "wcmp"},
                                   {lb_mode::spray_random, "spray_random"},
                                   {lb_mode::spray_round_robin, "spray_round_robin"},
                                   {lb_mode::letflow, "letflow"},
                                   {lb_mode::balance_sketch, "balance_sketch"},
                                   {lb_mode::conga, "conga"}};
// BurstBalancer's forms: Algorithm 1, the paper's Tofino design, and that design's registers
// run on the project's stateful ALUs (identical decisions; `--rtl stateful_alu` runs them on RTL).
const names<bs_form> sketch_form_names{
    {bs_form::software, "software"}, {bs_form::pipeline, "tofino"}, {bs_form::stateful_alu, "stateful_alu"}};

template <class K>
void lb_keys(K& k) {
  using L = lb_config;
  auto flowlet = [](auto field) { return path(&L::flowlet, field); };
  auto dre = [](auto field) { return path(&L::dre, field); };
  auto sketch = [](auto field) { return path(&L::sketch, field); };
  k.choice("lb.mode", lb_mode_names, &L::mode, "How a switch picks among the next hops of a data packet's multipath group (ACKs follow ECMP)");
  k.integer("lb.wcmp_table_size", "entries", &L::wcmp_table_size, 2, 65535, "WCMP: member entries a weighted group may take (each next hop replicated by its link rate)");
  k.integer("lb.flowlet.entries", "entries", flowlet(&flowlet_config::entries), 1, 1 << 26, "LetFlow: flowlet table entries (indexed by flow hash modulo entries)");
  k.real("lb.flowlet.timeout", us_as_ps, flowlet(&flowlet_config::delta_ps), 0.001, 1e7, "LetFlow: Delta, the checker's sweep period; an idle flowlet ends after Delta to 2 Delta with one age bit");
  k.integer("lb.flowlet.age_bits", "bits", flowlet(&flowlet_config::age_bits), 1, 16, "LetFlow: age bits per entry");
  k.integer("lb.flowlet.ports", "ports", flowlet(&flowlet_config::ports), 1, 16, "LetFlow: table memory accesses per cycle, shared by lookups and the checker");
  k.integer("lb.flowlet.sweep_width", "entries", flowlet(&flowlet_config::sweep_width), 1, 1 << 16, "LetFlow: entries the checker visits per cycle (entries per SRAM row)");
  k.real("lb.conga.dre_period", us_as_ps, dre(&dre_config::t_dre_ps), 0.001, 1e6, "CONGA: T_dre, the DRE's decrement period (tau = T_dre / alpha)");
  k.real("lb.conga.dre_alpha", "fraction", dre(&dre_config::alpha), 0.0001, 1, "CONGA: alpha, the fraction of the DRE register removed every T_dre");
  k.integer("lb.conga.q_bits", "bits", dre(&dre_config::q_bits), 1, 8, "CONGA: bits of a congestion metric");
  k.real("lb.conga.aging", us_as_ps, &L::conga_aging_ps, 0, 1e9, "CONGA: a fed-back metric not refreshed for this long reads 0; 0 = never ages");
  k.choice("lb.sketch.form", sketch_form_names, sketch(&balance_sketch_config::form), "BurstBalancer: Algorithm 1 as written, or the paper's Tofino design (selector and scheduler registers; outdated buckets cleared by a recirculated packet), or that design on the stateful ALUs (register actions as ALU programs)");
  k.integer("lb.sketch.buckets", "buckets", sketch(&balance_sketch_config::buckets), 1, 1 << 24, "BalanceSketch: buckets l (BurstBalancer's leaf-spine runs: 250)");
  k.integer("lb.sketch.cells", "cells", sketch(&balance_sketch_config::cells), 1, 64, "BalanceSketch: cells d per bucket (the Tofino form takes 1)");
  k.integer("lb.sketch.fingerprint_bits", "bits", sketch(&balance_sketch_config::fingerprint_bits), 1, 32, "BalanceSketch: flow fingerprint width");
  k.integer("lb.sketch.timestamp_bits", "bits", sketch(&balance_sketch_config::timestamp_bits), 2, 64, "BalanceSketch: compact cyclic timestamp width (in units of the flowlet timeout)");
  k.real("lb.sketch.flowlet_timeout", us_as_ps, sketch(&balance_sketch_config::delta_ps), 0.001, 1e7, "BalanceSketch: delta, the gap that starts a new flowlet (burst)");
  k.real("lb.sketch.flow_timeout", us_as_ps, sketch(&balance_sketch_config::Delta_ps), 0.001, 1e9, "BalanceSketch: Delta, the idle time after which a flow's cell may be taken");
  k.integer("lb.sketch.vote_threshold", "votes", sketch(&balance_sketch_config::F), 0, 1 << 30, "BalanceSketch: F, a flowlet is a burst when its flow's vote exceeds this");
}

// CONGA runs between the leaves of a leaf-spine fabric; its 4-bit LBTag names an uplink.
void read_conga_fabric(const config& c, lb_config& lb) {
  if (c.string("topology.kind") != "leaf_spine") fail(c, "lb.mode", "conga runs between the leaves of a leaf-spine topology");
  lb.leaves = unsigned(c.integer("topology.leaves"));
  lb.hosts_per_leaf = unsigned(c.integer("topology.hosts_per_leaf"));
  lb.uplinks = unsigned(c.integer("topology.spines") * c.integer("topology.parallel_links"));
  if (lb.uplinks > 16) fail(c, "topology.spines", fmt::format("{} uplinks per leaf; CONGA's 4-bit LBTag names at most 16", lb.uplinks));
}

void check_sketch(const config& c, const lb_config& lb) {
  const balance_sketch_config& bs = lb.sketch;
  if (bs.form != bs_form::software && bs.cells != 1)
    fail(c, "lb.sketch.cells", fmt::format("is {}; the Tofino form has one cell per bucket", bs.cells));
  if (bs.Delta_ps <= bs.delta_ps) fail(c, "lb.sketch.flow_timeout", "must be longer than lb.sketch.flowlet_timeout");
  if (lb.mode != lb_mode::balance_sketch) return;
  // The sketch checks its own widths (timestamps must span Delta in slices of delta): build one
  // now so a bad combination stops the run with the keys named.
  try {
    balance_sketch trial(bs);
  } catch (const std::invalid_argument& e) {
    fail(c, "lb.sketch.flow_timeout", fmt::format("{} (with lb.sketch.flowlet_timeout {} us, lb.sketch.flow_timeout {} us, "
                                                  "lb.sketch.timestamp_bits {})", e.what(), c.real("lb.sketch.flowlet_timeout"),
                                                  c.real("lb.sketch.flow_timeout"), bs.timestamp_bits));
  }
}

}  // namespace

void declare_lb_keys(param_registry& r) {
  declare_keys<lb_config> k(r);
  lb_keys(k);
}

void read_lb(const config& c, switch_config& sw) {
  lb_config& lb = sw.lb;
  apply_keys<lb_config> k(c, lb);
  lb_keys(k);
  const std::string with_lb = "with lb.mode = \"" + c.string("lb.mode") + "\"";
  if (lb.mode != lb_mode::wcmp) unused_by_mode(c, {"lb.wcmp_table_size"}, with_lb);
  if (lb.mode != lb_mode::letflow && lb.mode != lb_mode::conga)   // CONGA has a flowlet table too
    unused_by_mode(c, keys_under("lb.flowlet."), with_lb);
  if (lb.mode != lb_mode::conga) unused_by_mode(c, keys_under("lb.conga."), with_lb);
  if (lb.mode == lb_mode::conga) read_conga_fabric(c, lb);
  lb.dre.link_gbps = c.real("topology.uplink_rate");
  lb.flowlet.clock_period_ps = sw.clock_period_ps;
  if (lb.mode != lb_mode::balance_sketch) unused_by_mode(c, keys_under("lb.sketch."), with_lb);
  lb.sketch.next_hops = sw.member_capacity;   // the switch passes the member to take; this only bounds it
  check_sketch(c, lb);
  if (lb.mode == lb_mode::letflow && lb.flowlet.delta_ps < sw.clock_period_ps)
    fail(c, "lb.flowlet.timeout", fmt::format("{} us is shorter than one switch clock period", c.real("lb.flowlet.timeout")));
}

}  // namespace netasic
