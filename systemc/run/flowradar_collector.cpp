#include "run/flowradar_collector.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "blocks/flowradar_decode.h"
#include "run/flowradar_loss_report.h"
#include "scenario/checks.h"
#include "switch/switch.h"

namespace netasic {
namespace {

// One epoch at one switch, scored.
struct epoch_score {
  uint64_t epoch = 0;
  unsigned sw = 0;
  uint64_t flows = 0, single = 0, decoded = 0, missed = 0, wrong = 0, counted = 0, wrong_counters = 0, iterations = 0;
};

struct totals {
  uint64_t flows = 0, single = 0, decoded = 0, missed = 0, wrong = 0, counted = 0, wrong_counters = 0, iterations = 0;
  double single_s = 0, flow_s = 0, counter_s = 0;
  void add(const epoch_score& e) {
    flows += e.flows; single += e.single; decoded += e.decoded; missed += e.missed; wrong += e.wrong;
    counted += e.counted; wrong_counters += e.wrong_counters; iterations += e.iterations;
  }
};


// One flowset the collector decodes: a switch's (or one of its ports'), or a host's.
struct flowset_ref {
  unsigned site;
  std::string name;
  flowradar_stage* stage;
};

// Every flowset of the run, site by site, and their neighbours: the flowsets of the sites next to
// its own (NetDecode's FlowDecode looks there).
std::vector<flowset_ref> flowsets(const fabric& fab, const flowradar_sites& sites, std::vector<std::vector<unsigned>>& adj) {
  std::vector<flowset_ref> out;
  std::vector<std::vector<unsigned>> of_site(sites.size());
  const auto& sws = fab.switches();
  for (unsigned s = 0; s < sites.size(); ++s) {
    if (s >= sws.size()) {
      of_site[s].push_back(unsigned(out.size()));
      out.push_back({s, sites.name(int(s)), fab.host_flowradar(s - unsigned(sws.size()))});
      continue;
    }
    const auto& tables = sws[s]->flowradar();
    for (size_t p = 0; p < tables.size(); ++p) {
      of_site[s].push_back(unsigned(out.size()));
      out.push_back({s, tables.size() > 1 ? fmt::format("{}:p{}", sites.name(int(s)), p) : sites.name(int(s)), tables[p].get()});
    }
  }
  adj.assign(out.size(), {});
  for (unsigned i = 0; i < out.size(); ++i)
    for (unsigned b : sites.adj[out[i].site]) adj[i].insert(adj[i].end(), of_site[b].begin(), of_site[b].end());
  return out;
}

// Scores one epoch: `at[i]` is flowset i's export of it (null: idle).
std::vector<epoch_score> score_epoch(uint64_t epoch, const std::vector<const flowradar_epoch*>& at,
                                     const std::vector<std::vector<unsigned>>& adj, bool routing, totals& t,
                                     flowradar_net_result& res) {
  using clock = std::chrono::steady_clock;
  const size_t n = at.size();
  flowradar_net_input in;
  in.neighbours = adj;
  std::map<flowradar_flow, std::vector<std::pair<unsigned, unsigned>>> hops;   // flow -> (hop, switch)
  for (unsigned s = 0; s < n; ++s) {
    in.tables.push_back(at[s] ? &at[s]->table : nullptr);
    if (at[s])
      for (const auto& [f, truth] : at[s]->truth) hops[f].emplace_back(truth.hop, s);
  }
  std::map<flowradar_flow, std::vector<unsigned>> routes;
  for (auto& [f, h] : hops) {
    std::sort(h.begin(), h.end());
    for (const auto& x : h) routes[f].push_back(x.second);
  }
  if (routing) in.routes = &routes;
  std::vector<epoch_score> out;
  std::vector<uint64_t> single(n, 0);
  const auto t0 = clock::now();
  for (unsigned s = 0; s < n; ++s)
    if (at[s]) single[s] = flowradar_single_decode(at[s]->table).flows.size();
  t.single_s += std::chrono::duration<double>(clock::now() - t0).count();
  res = flowradar_net_decode(in);
  t.flow_s += res.flow_decode_s;
  t.counter_s += res.counter_decode_s;
  for (unsigned s = 0; s < n; ++s) {
    if (!at[s]) continue;
    const auto& truth = at[s]->truth;
    const flowradar_net_switch& d = res.sw[s];
    epoch_score e{epoch, s, truth.size(), single[s], 0, 0, 0, 0, 0, d.solver_iterations};
    for (size_t i = 0; i < d.flows.size(); ++i) {
      auto it = truth.find(d.flows[i]);
      if (it == truth.end()) {
        ++e.wrong;
        continue;
      }
      ++e.decoded;
      if (!d.counted[i]) continue;
      ++e.counted;
      if (d.packets[i] != it->second.packets) ++e.wrong_counters;
    }
    e.missed = e.flows - e.decoded;
    t.add(e);
    out.push_back(e);
  }
  return out;
}

// The flowsets' decode of one epoch, merged site by site (flowradar_decoded_epoch).
flowradar_decoded_epoch by_site(const std::vector<flowset_ref>& sets, size_t sites, const std::vector<const flowradar_epoch*>& at,
                                const flowradar_net_result& res) {
  flowradar_decoded_epoch d;
  d.active.assign(sites, 0);
  d.sw.resize(sites);
  d.incomplete.resize(sites);
  std::vector<std::map<flowradar_flow, size_t>> index(sites);   // flow -> its place in d.sw[site], in decode order
  for (unsigned i = 0; i < sets.size(); ++i) {
    if (!at[i]) continue;
    const unsigned s = sets[i].site;
    const flowradar_net_switch& x = res.sw[i];
    if (!d.active[s]) d.sw[s].flows_complete = d.sw[s].counters_ok = true;
    d.active[s] = 1;
    d.sw[s].flows_complete = d.sw[s].flows_complete && x.flows_complete;
    d.sw[s].counters_ok = d.sw[s].counters_ok && x.counters_ok;
    if (!x.flows_complete) d.incomplete[s].push_back(&at[i]->table);
    flowradar_net_switch& m = d.sw[s];
    for (size_t k = 0; k < x.flows.size(); ++k) {
      const auto [it, fresh] = index[s].try_emplace(x.flows[k], m.flows.size());
      if (fresh) {
        m.flows.push_back(x.flows[k]);
        m.packets.push_back(x.packets[k]);
        m.counted.push_back(x.counted[k]);
      } else {
        m.packets[it->second] += x.packets[k];
        m.counted[it->second] = m.counted[it->second] && x.counted[k];
      }
    }
  }
  return d;
}

}  // namespace

void flowradar_check_widths(const config& c, const fabric_config& f, size_t flows) {
  const flowradar_stage_config& s = f.sw.flowradar;
  if (!s.on) return;
  const unsigned wf = s.params.flow_count_bits, wp = s.params.packet_count_bits;
  if (wf < 32 && flows > (uint64_t(1) << wf) - 1)
    fail(c, "telemetry.flowradar_flow_count_bits",
         fmt::format("{} bits hold {} flows and the run has {}: a cell's FlowCount could wrap", wf, (uint64_t(1) << wf) - 1, flows));
  // The most packets one switch takes in an epoch: all its ports at line rate, 64-byte frames
  // plus 20 bytes of preamble and gap.
  uint64_t worst = 0;
  for (unsigned node : f.topo.switches) {
    double bps = 0;
    for (unsigned l : f.topo.nodes[node].port_link) bps += double(f.topo.links[l].rate_bps);
    worst = std::max(worst, uint64_t(bps * double(s.epoch_ps) * 1e-12 / (84.0 * 8)) + 1);
  }
  if (wp < 32 && worst > (uint64_t(1) << wp) - 1)
    fail(c, "telemetry.flowradar_packet_count_bits",
         fmt::format("{} bits hold {} packets, and a switch can take {} in one {:.3f} ms epoch (every port at line rate, 64-byte frames)",
                     wp, (uint64_t(1) << wp) - 1, worst, double(s.epoch_ps) * 1e-9));
}

void flowradar_finish(fabric& fab, run_result& r, const drop_log& drops) {
  const flowradar_stage_config& cfg = fab.config().sw.flowradar;
  if (!cfg.on) return;
  const auto& sws = fab.switches();
  const flowradar_sites sites(fab.config().topo, cfg.hosts);
  std::vector<std::vector<unsigned>> adj;
  const std::vector<flowset_ref> sets = flowsets(fab, sites, adj);
  std::map<uint64_t, std::vector<const flowradar_epoch*>> epochs;
  for (unsigned i = 0; i < sets.size(); ++i) {
    sets[i].stage->finish();
    for (const flowradar_epoch& e : sets[i].stage->exported()) {
      auto& v = epochs[e.epoch];
      v.resize(sets.size(), nullptr);
      v[i] = &e;
    }
  }
  totals t;
  std::string csv = "epoch,start_ms,switch,flows,single_decoded_flows,decoded_flows,missed_flows,wrong_flows,"
                    "counted_flows,wrong_counters,solver_iterations,export_bytes\n";
  flowradar_table bank;
  bank.params = sets.empty() ? cfg.params : sets[0].stage->params();
  const uint64_t bank_bytes = bank.export_bytes();
  uint64_t last_epoch = 0;
  std::map<uint64_t, flowradar_decoded_epoch> decoded;
  telemetry_result& plot = r.telemetry;
  plot.flowradar = true;
  plot.epoch_ms = double(cfg.epoch_ps) / 1e9;
  for (const auto& [epoch, at] : epochs) {
    last_epoch = epoch;
    flowradar_epoch_flows& sum = plot.epochs.emplace_back(flowradar_epoch_flows{epoch, 0, 0, 0});
    flowradar_net_result res;
    for (const epoch_score& e : score_epoch(epoch, at, adj, cfg.routing, t, res)) {
      sum.flows += e.flows, sum.single_decoded += e.single, sum.decoded += e.decoded;
      csv += fmt::format("{},{:.3f},{},{},{},{},{},{},{},{},{},{}\n", e.epoch, double(e.epoch * cfg.epoch_ps) * 1e-9,
                         sets[e.sw].name, e.flows, e.single, e.decoded,
                         e.missed, e.wrong, e.counted, e.wrong_counters, e.iterations, bank_bytes);
    }
    decoded[epoch] = by_site(sets, sites.size(), at, res);
  }
  r.files.emplace_back("flowradar.csv", csv);
  const flowradar_flowset one(bank.params);
  size_t per_switch = 0;   // flowsets at the switch with the most
  for (const auto& sw : sws) per_switch = std::max(per_switch, sw->flowradar().size());
  r.summary["flowradar"] = {
      {"switches", sws.size()},
      {"flowsets_per_switch_max", per_switch},
      {"hosts", sites.size() - sws.size()},
      {"epochs", epochs.empty() ? 0 : last_epoch + 1},
      {"flows", t.flows},
      {"single_decoded_flows", t.single},
      {"decoded_flows", t.decoded},
      {"missed_flows", t.missed},
      {"wrong_flows", t.wrong},
      {"counted_flows", t.counted},
      {"wrong_counter_flows", t.wrong_counters},
      {"solver_iterations", t.iterations},
      {"epoch_export_bytes", bank_bytes},
      {"export_gbps", double(bank_bytes * per_switch) * 8 / double(cfg.epoch_ps) * 1e3},
      {"export_frames_per_bank", sets.empty() ? 0 : sets[0].stage->export_frames().size()},
      {"memory_bits", one.memory_bits()},
      {"switch_memory_bits_max", one.memory_bits() * per_switch},
      {"single_decode_wall_s", t.single_s},
      {"flow_decode_wall_s", t.flow_s},
      {"counter_decode_wall_s", t.counter_s},
  };
  if (cfg.collector >= 0) {   // the banks as frames through the fabric
    uint64_t frames = 0, bytes = 0, dropped = 0;
    for (const auto& sw : sws) {
      frames += sw->counters().flowradar_export_frames;
      bytes += sw->counters().flowradar_export_bytes;
      dropped += sw->counters().flowradar_export_dropped;
    }
    const auto& host = *fab.hosts()[size_t(cfg.collector)];
    nlohmann::json& s = r.summary["flowradar"];
    s["export_frames_sent"] = frames;
    s["export_bytes_sent"] = bytes;
    s["export_frames_dropped"] = dropped;
    s["collector_frames_received"] = host.export_received();
    s["collector_bytes_received"] = host.export_bytes();
  }
  flowradar_loss_report(fab, decoded, drops, r);
}

}  // namespace netasic
