#include "scenario/lossradar_keys.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "common/wave_trace.h"   // wave_select: names and globs

#include "scenario/checks.h"
#include "scenario/key_binding.h"

namespace netasic {
namespace {

const names<lossradar_sig_kind> sig_names{{lossradar_sig_kind::basic, "basic"}, {lossradar_sig_kind::extended, "extended"}};

template <class K>
void lossradar_keys(K& k) {
  auto l = [](auto m) { return path(&fabric_config::lossradar, m); };
  auto a = [](auto m) { return path(&fabric_config::lossradar, &lossradar_config::analyzer, m); };
  k.boolean("telemetry.lossradar", l(&lossradar_config::on), "LossRadar: an upstream meter at every output port and a downstream meter at every input port and host NIC, at the end of ingress; the run lists every lost packet with its place (lossradar.csv)");
  k.integer("telemetry.lossradar_cells", "cells", l(&lossradar_config::cells), 1, 1 << 24, "LossRadar: n_cell of each digest, a multiple of telemetry.lossradar_hashes (n_cell = 1.3 x the losses per batch decodes 99% of batches at k = 3)");
  k.integer("telemetry.lossradar_hashes", "hashes", l(&lossradar_config::hashes), 1, 16, "LossRadar: k, the cells each packet updates in a digest");
  k.real("telemetry.lossradar_batch", us_as_ps, l(&lossradar_config::batch_ps), 1, 1e6, "LossRadar: T, an upstream meter's batch; packets carry its ID");
  k.real("telemetry.lossradar_timeout", us_as_ps, l(&lossradar_config::timeout_ps), 0.001, 1e6, "LossRadar: a downstream batch lives T + this (under T: two digests per meter)");
  k.choice("telemetry.lossradar_signature", sig_names, l(&lossradar_config::sig), "LossRadar: basic (120 bits: 5-tuple, IP_ID) or extended (+ TCP SYN, TTL non-zero, 14-bit us timestamp; the analyzer needs it)");
  k.real("telemetry.lossradar_t_gap", us_as_ps, a(&lossradar_analyzer_params::t_gap_ps), 0.001, 1e6, "LossRadar analyzer (Table 5.3): t_gap, the largest gap between back-to-back losses of one burst");
  k.integer("telemetry.lossradar_n_burst", "losses", a(&lossradar_analyzer_params::n_burst), 1, 1 << 20, "LossRadar analyzer (Table 5.3): n_burst, the losses that make a burst");
  k.integer("telemetry.lossradar_n_bb", "losses", a(&lossradar_analyzer_params::n_bb), 1, 1 << 20, "LossRadar analyzer (Table 5.3): n_bb, a flow's consecutive losses in a burst that make a black hole");
  k.integer("telemetry.lossradar_n_nb", "losses", a(&lossradar_analyzer_params::n_nb), 1, 1 << 20, "LossRadar analyzer (Table 5.3): n_nb, a flow's consecutive losses in an interval that make a black hole");
  k.real("telemetry.lossradar_p_syn", "", a(&lossradar_analyzer_params::p_syn), 0, 1, "LossRadar analyzer (Table 5.3): p_syn, the SYN share of the remaining losses above which they are a black hole");
  k.real("telemetry.lossradar_p_rand", "", a(&lossradar_analyzer_params::p_rand), 0, 1, "LossRadar analyzer (Table 5.3): p_rand, the share of non-empty bins above which the remaining losses are random");
  k.real("telemetry.lossradar_long_term", us_as_ps, a(&lossradar_analyzer_params::long_term_ps), 1, 1e9, "LossRadar analyzer: long_term_interval of Algorithm 11");
}

}  // namespace

void declare_lossradar_keys(param_registry& r) {
  declare_keys<fabric_config> k(r);
  lossradar_keys(k);
  r.string_list("telemetry.lossradar_blackbox", "", {},
                "LossRadar blackbox (incremental) deployment (§5.4.2): switches without meters, by name or glob (\"edge*\"); the "
                "downstream meters past them keep one digest per upstream meter, whose ID the packet carries");
}

void read_lossradar(const config& c, fabric_config& f) {
  apply_keys<fabric_config> k(c, f);
  lossradar_keys(k);
  const lossradar_config& l = f.lossradar;
  if (!l.on) {
    std::vector<std::string> keys = keys_under("telemetry.lossradar_");
    unused_by_mode(c, keys, "when telemetry.lossradar is false");
    return;
  }
  if (l.cells % l.hashes != 0)
    fail(c, "telemetry.lossradar_cells", fmt::format("{} cells do not split into {} equal parts, one per hash; use a multiple of {}",
                                                      l.cells, l.hashes, l.hashes));
  if (l.timeout_ps >= l.batch_ps)
    fail(c, "telemetry.lossradar_timeout", fmt::format("{} us is not under the batch of {} us: a meter keeps two digests, so a "
                                                        "downstream batch must end before the next-but-one begins",
                                                        double(l.timeout_ps) * 1e-6, double(l.batch_ps) * 1e-6));
  if (l.batch_ps >= 16'384'000'000ull && l.sig == lossradar_sig_kind::extended)
    fail(c, "telemetry.lossradar_batch", "the extended signature's 14-bit us timestamp covers 16384 us; use a shorter batch");
  const std::vector<std::string>& bb = c.list("telemetry.lossradar_blackbox");
  if (bb.empty()) return;
  std::vector<std::string> names;
  for (unsigned node : f.topo.switches) names.push_back(f.topo.nodes[node].name);
  std::vector<bool> chosen;
  try {
    chosen = wave_select(bb, names, "telemetry.lossradar_blackbox");
  } catch (const std::invalid_argument& e) {
    fail(c, "telemetry.lossradar_blackbox", e.what());
  }
  f.lossradar.blackbox.assign(chosen.begin(), chosen.end());
  if (std::all_of(chosen.begin(), chosen.end(), [](bool b) { return b; }))
    fail(c, "telemetry.lossradar_blackbox", "takes every switch: no meter would be left but the hosts'");
}

}  // namespace netasic
