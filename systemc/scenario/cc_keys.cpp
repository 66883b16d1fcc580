#include "scenario/cc_keys.h"

#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "scenario/key_binding.h"

namespace netasic {
namespace {

const names<cc_algorithm> cc_names{{cc_algorithm::none, "none"},   {cc_algorithm::hpcc, "hpcc"},
                                   {cc_algorithm::dcqcn, "dcqcn"}, {cc_algorithm::dctcp, "dctcp"},
                                   {cc_algorithm::timely, "timely"}};
const names<hpcc_config::divider> divider_names{{hpcc_config::divider::table, "table"}, {hpcc_config::divider::exact, "exact"}};
const names<dcqcn_variant> dcqcn_variant_names{{dcqcn_variant::mlx, "mlx"}, {dcqcn_variant::paper, "paper"}};

template <class K>
void cc_keys(K& k) {
  k.choice("cc.algorithm", cc_names, &cc_config::algorithm, "Congestion control of every QP; none = the fixed window nic.window alone");
  // Sets dcqcn_config::with_window or timely_config::with_window: read_cc.
  k.unbound.boolean("cc.window", false, "DCQCN and TIMELY with HPCC's sending window (\"+win\"): bytes in flight <= rate x cc.base_rtt");
  k.real("cc.base_rtt", us_as_ps, &cc_config::base_rtt_ps, 0, 1e6, "T: HPCC's base RTT (W_init = line rate x T) and the +win window; 0 = the unloaded RTT of one MTU packet between the farthest hosts, rounded up to a microsecond");
}

template <class K>
void hpcc_keys(K& k) {
  using H = hpcc_config;
  auto table = [](auto field) { return path(&H::table, field); };
  k.real("hpcc.eta", "fraction", &H::eta, 0.01, 1, "Target utilisation eta");
  k.integer("hpcc.max_stage", "stages", &H::max_stage, 0, 1000, "Additive-increase stages before a multiplicative update (0 in HPCC's simulations, 5 on its hardware)");
  k.integer("hpcc.w_ai", "bytes", &H::w_ai_bytes, 1, 1 << 24, "Additive increase W_AI per update");
  k.choice("hpcc.divider", divider_names, &H::division, "Window division: the reciprocal lookup table and a multiply, or an exact (iterative) divider");
  k.real("hpcc.epsilon", "fraction", table(&reciprocal_table_config::epsilon), 1e-6, 0.49, "Reciprocal table: kept values are at least this far apart in relative terms; also its worst relative error");
  k.integer("hpcc.table_input_bits", "bits", table(&reciprocal_table_config::input_bits), 1, 32, "Reciprocal table covers 1/n for 1 <= n <= 2^bits (HPCC: 22)");
  k.integer("hpcc.mantissa_bits", "bits", table(&reciprocal_table_config::mantissa_bits), 8, 53, "Reciprocal table: bits of each stored mantissa");
  k.integer("hpcc.u_frac_bits", "bits", &H::u_frac_bits, 1, 24, "Fraction bits of the fixed-point utilisation U (and of eta)");
  k.integer("hpcc.lookup_cycles", "cycles", table(&reciprocal_table_config::lookup_cycles), 1, 1000, "Reciprocal table: cycles to find and read an entry");
  k.integer("hpcc.base_cycles", "cycles", &H::base_cycles, 0, 100000, "CC module cycles per ACK besides the division");
}

// Rooted at cc_config: the notification point's CNP interval is the receiver's, not the RP's.
template <class K>
void dcqcn_keys(K& k) {
  auto d = [](auto field) { return path(&cc_config::dcqcn, field); };
  k.choice("dcqcn.variant", dcqcn_variant_names, d(&dcqcn_config::variant), "DCQCN reaction point as HPCC's ns-3 (Mellanox) implements it, or as the DCQCN paper specifies it");
  k.real("dcqcn.g", "", d(&dcqcn_config::g), 1e-6, 1, "Alpha EWMA gain g");
  k.real("dcqcn.alpha_interval", us_as_ps, d(&dcqcn_config::alpha_resume_interval_ps), 0.001, 1e6, "K: alpha update period");
  k.real("dcqcn.decrease_interval", us_as_ps, d(&dcqcn_config::rate_decrease_interval_ps), 0.001, 1e6, "T_d: at most one rate cut per this period");
  k.real("dcqcn.increase_timer", us_as_ps, d(&dcqcn_config::rp_timer_ps), 0.001, 1e7, "T_i: rate-increase timer (the vendor default; 55 in the DCQCN paper, 900 in Alibaba's setting)");
  k.integer("dcqcn.byte_counter", "bytes", d(&dcqcn_config::byte_counter_bytes), 0, 1LL << 40, "B: rate-increase byte counter; 0 = none (as HPCC's ns-3)");
  k.integer("dcqcn.fast_recovery", "steps", d(&dcqcn_config::fast_recovery_times), 0, 1000, "F: fast-recovery steps before additive increase");
  // Steps at the 25 Gbps reference, which make_cc scales; dcqcn_config's 0 means the same
  // steps derived inside the core, so these are not its fields' defaults: read_cc sets them.
  k.unbound.real("dcqcn.rate_ai", "Mbps", 5, 0.001, 1e6, "Additive increase per step at 25 Gbps, scaled with the line rate (HPCC's evaluation)");
  k.unbound.real("dcqcn.rate_hai", "Mbps", 50, 0.001, 1e6, "Hyper increase per step at 25 Gbps, scaled with the line rate");
  k.real("dcqcn.min_rate", mbps_as_bps, d(&dcqcn_config::min_rate_bps), 0.001, 1e6, "Lowest rate a cut may reach");
  k.real("dcqcn.cnp_interval", us_as_ps, &cc_config::cnp_interval_ps, 0, 1e6, "Notification point: at most one CNP per QP per this interval; 0 = one per CE-marked packet (HPCC's ns-3; the DCQCN paper used 50)");
}

template <class K>
void dctcp_keys(K& k) {
  k.real("dctcp.g", "", &dctcp_config::g, 1e-6, 1, "DCTCP alpha EWMA gain g");
}

template <class K>
void timely_keys(K& k) {
  using T = timely_config;
  k.real("timely.alpha", "", &T::alpha, 0, 1, "EWMA weight of the new RTT difference");
  k.real("timely.beta", "", &T::beta, 0, 1, "Multiplicative decrease factor");
  k.real("timely.t_low", us_as_ps, &T::t_low_ps, 0, 1e6, "Below this RTT: additive increase");
  k.real("timely.t_high", us_as_ps, &T::t_high_ps, 0, 1e6, "Above this RTT: multiplicative decrease");
  k.real("timely.min_rtt", us_as_ps, &T::min_rtt_ps, 0.001, 1e6, "Normaliser of the RTT gradient");
  // At the 10 Gbps reference, as dcqcn.rate_ai: read_cc sets it.
  k.unbound.real("timely.delta", "Mbps", 10, 0.001, 1e6, "Additive step at 10 Gbps, scaled with the line rate (HPCC's evaluation)");
  k.integer("timely.hai_n", "steps", &T::hai_n, 1, 1000, "Hyperactive increase: N steps after timely.hai_n non-positive gradients");
}

void read_hpcc(const config& c, cc_config& cc) {
  apply_keys<hpcc_config> k(c, cc.hpcc);
  hpcc_keys(k);
  if (cc.hpcc.division == hpcc_config::divider::exact) {
    unused_by_mode(c, {"hpcc.epsilon", "hpcc.table_input_bits", "hpcc.mantissa_bits", "hpcc.lookup_cycles"},
                "with hpcc.divider = \"exact\"");
    return;
  }
  try {
    cc.table = std::make_shared<const reciprocal_table>(cc.hpcc.table);
  } catch (const std::invalid_argument& e) {
    fail(c, "hpcc.epsilon", e.what());
  }
}

// The chosen algorithm's keys; the others' keys have no effect.
void read_algorithm(const config& c, const nic_config& nic, cc_config& cc) {
  const bool window = c.boolean("cc.window");
  switch (cc.algorithm) {
    case cc_algorithm::none: break;
    case cc_algorithm::hpcc: read_hpcc(c, cc); break;
    case cc_algorithm::dcqcn: {
      apply_keys<cc_config> k(c, cc);
      dcqcn_keys(k);
      cc.dcqcn.with_window = window;
      cc.dcqcn.mtu_bytes = nic.mtu_payload;
      cc.dcqcn.rate_ai_bps = uint64_t(c.real("dcqcn.rate_ai") * 1e6);   // at the reference rate; make_cc scales it
      cc.dcqcn.rate_hai_bps = uint64_t(c.real("dcqcn.rate_hai") * 1e6);
      break;
    }
    case cc_algorithm::dctcp: {
      apply_keys<dctcp_config> k(c, cc.dctcp);
      dctcp_keys(k);
      cc.dctcp.mss_bytes = nic.mtu_payload;
      break;
    }
    case cc_algorithm::timely: {
      timely_config& t = cc.timely;
      apply_keys<timely_config> k(c, t);
      timely_keys(k);
      t.with_window = window;
      t.mtu_bytes = nic.mtu_payload;
      if (t.t_high_ps < t.t_low_ps) fail(c, "timely.t_high", "is below timely.t_low");
      t.delta_bps = uint64_t(c.real("timely.delta") * 1e6);   // at the reference rate; make_cc scales it
      break;
    }
  }
}

}  // namespace

void declare_cc_keys(param_registry& r) {
  declare_keys<cc_config> cc(r);
  cc_keys(cc);
  declare_keys<hpcc_config> hpcc(r);
  hpcc_keys(hpcc);
  dcqcn_keys(cc);
  declare_keys<dctcp_config> dctcp(r);
  dctcp_keys(dctcp);
  declare_keys<timely_config> timely(r);
  timely_keys(timely);
}

void read_cc(const config& c, const switch_config& sw, nic_config& nic) {
  cc_config& cc = nic.cc;
  apply_keys<cc_config> k(c, cc);
  cc_keys(k);
  const std::string alg = c.string("cc.algorithm"), with = "with cc.algorithm = \"" + alg + "\"";
  for (const char* prefix : {"hpcc.", "dcqcn.", "dctcp.", "timely."})
    if (alg + "." != prefix) unused_by_mode(c, keys_under(prefix), with);
  if (cc.algorithm != cc_algorithm::dcqcn && cc.algorithm != cc_algorithm::timely) unused_by_mode(c, {"cc.window"}, with);
  if (cc.algorithm == cc_algorithm::none) unused_by_mode(c, {"cc.base_rtt"}, with);
  read_algorithm(c, nic, cc);
  // An algorithm without its signal would run open loop: say so before simulating.
  if (cc.algorithm == cc_algorithm::hpcc && !nic.int_enabled)
    fail(c, "nic.int_padding", "is false, but cc.algorithm = \"hpcc\" needs INT in every data frame");
  if ((cc.algorithm == cc_algorithm::dcqcn || cc.algorithm == cc_algorithm::dctcp) && !sw.tm.ecn[nic.data_priority].enabled)
    fail(c, "ecn.priorities", fmt::format("does not include nic.data_priority {}, but cc.algorithm = \"{}\" reacts to ECN marks",
                                          nic.data_priority, alg));
}

}  // namespace netasic
