#include "run/flowradar_loss_report.h"

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "blocks/flowradar_loss_map.h"
#include "output/format.h"
#include "protocol/headers.h"
#include "switch/switch.h"

namespace netasic {
namespace {

using status = flowradar_loss_status;
using segment_key = std::tuple<unsigned, uint64_t, unsigned>;   // flow, flowlet's first epoch, upstream switch

flowradar_flow flow_of(const drop_record& d) {
  return {uint8_t(d.src >> 24), uint8_t(d.src >> 16), uint8_t(d.src >> 8), uint8_t(d.src),
          uint8_t(d.dst >> 24), uint8_t(d.dst >> 16), uint8_t(d.dst >> 8), uint8_t(d.dst),
          d.proto, uint8_t(d.sport >> 8), uint8_t(d.sport), uint8_t(d.dport >> 8), uint8_t(d.dport)};
}
uint32_t ip_at(const flowradar_flow& f, unsigned i) {
  return uint32_t(f[i]) << 24 | uint32_t(f[i + 1]) << 16 | uint32_t(f[i + 2]) << 8 | f[i + 3];
}

struct places : flowradar_sites {   // the sites, as the loss map needs them
  using flowradar_sites::flowradar_sites;
  std::string host_name(uint32_t ip) const {
    const uint32_t h = host_of_ip(ip);
    return h < t.hosts.size() ? t.nodes[t.hosts[h]].name : fmt::format("{}", ip);
  }
  // The site whose count a dropped packet had last passed, when the next site would have counted
  // it; -1 when no site counts on both sides (before the first or after the last).
  int upstream_of(const drop_record& d, int last) const {
    int up = -1;
    if (d.on_link) {
      const topo_link& l = t.links[d.index];
      const unsigned from = d.dir ? l.b : l.a, to = d.dir ? l.a : l.b;
      if (site_of[from] >= 0 && site_of[to] >= 0) up = site_of[from];
    } else {
      up = int(d.index);
      const auto& ports = t.nodes[t.switches[d.index]].port_link;
      if (d.out_port >= 0 && unsigned(d.out_port) < ports.size() &&
          site_of[t.links[ports[unsigned(d.out_port)]].other(t.switches[d.index])] < 0)
        up = -1;   // into the queue to a host without a flowset
    }
    return up == last ? -1 : up;
  }
};

// The decoded records of every flow, the topology, and where a flow may hide undecoded.
struct loss_input {
  std::map<flowradar_flow, unsigned> index;
  std::vector<flowradar_flow> flow;
  std::vector<flowradar_loss_flow> flows;
  flowradar_loss_net net;
};

void gather(const places& p, const std::map<uint64_t, flowradar_decoded_epoch>& epochs, uint64_t n_epochs,
            bool drained, loss_input& in) {
  for (const auto& [e, d] : epochs)
    for (unsigned s = 0; s < d.sw.size(); ++s) {
      if (!d.active[s]) continue;
      const flowradar_net_switch& x = d.sw[s];
      for (size_t i = 0; i < x.flows.size(); ++i) {
        const int es = p.end_of(ip_at(x.flows[i], 0)), ed = p.end_of(ip_at(x.flows[i], 4));
        if (es < 0 || ed < 0) continue;   // not a flow of this fabric's hosts
        auto [it, fresh] = in.index.try_emplace(x.flows[i], unsigned(in.flows.size()));
        if (fresh) {
          in.flow.push_back(x.flows[i]);
          in.flows.push_back({unsigned(es), unsigned(ed), {}});
        }
        in.flows[it->second].decoded[{e, s}] = x.counted[i] ? x.packets[i] : flowradar_loss_flow::no_count;
      }
    }
  in.net.neighbours = p.adj;
  in.net.epochs = n_epochs;
  in.net.drained = drained;
  in.net.maybe_there = [&epochs, &in](unsigned f, unsigned s, uint64_t e) {
    auto it = epochs.find(e);
    if (it == epochs.end()) return false;
    for (const flowradar_table* t : it->second.incomplete[s])
      if (t->filter_has(in.flow[f])) return true;
    return false;
  };
}

// The drop log against the map, per (flow, flowlet, upstream switch).
struct score {
  std::map<segment_key, uint64_t> dropped;
  std::map<std::pair<unsigned, unsigned>, uint64_t> black_holed;   // (flow, switch) -> its first black-hole drop, ps
  std::map<std::tuple<unsigned, unsigned, uint64_t>, uint64_t> after;   // (flow, upstream switch, epoch) -> drops
  std::vector<std::pair<segment_key, uint64_t>> drop_at;   // each observable drop: its segment, its time
  std::map<std::pair<unsigned, uint64_t>, uint64_t> ttl_expired;   // (flow, epoch) -> drops for TTL (loops)
  uint64_t observable = 0, unobservable = 0, no_flowlet = 0, loop_drops = 0;
};

score score_drops(const places& p, const loss_input& in, const std::vector<flowradar_loss_segment>& segs,
                  const drop_log& log, uint64_t epoch_ps) {
  std::map<unsigned, std::vector<std::pair<uint64_t, uint64_t>>> flowlets;   // flow -> (first, last)
  for (const flowradar_loss_segment& s : segs) {
    auto& v = flowlets[s.flow];
    if (v.empty() || v.back().first != s.first_epoch) v.emplace_back(s.first_epoch, s.last_epoch);
  }
  score sc;
  for (const drop_record& d : log.records) {
    if (!d.data) continue;               // FlowRadar counts data packets only
    auto f = in.index.find(flow_of(d));
    if (d.reason == "ttl_expired") {   // a loop's: scored by loop_report, not the loss map
      ++sc.loop_drops;
      if (f != in.index.end()) ++sc.ttl_expired[{f->second, d.t_ps / epoch_ps}];
      continue;
    }
    const int up = p.upstream_of(d, p.end_of(d.dst));
    if (up < 0) {
      ++sc.unobservable;
      continue;
    }
    ++sc.observable;
    if (f == in.index.end()) {           // a flow no switch decoded in any epoch
      ++sc.no_flowlet;
      continue;
    }
    const uint64_t e = d.t_ps / epoch_ps;
    ++sc.after[{f->second, unsigned(up), e}];
    if (d.reason == "black_hole") sc.black_holed.try_emplace({f->second, unsigned(up)}, d.t_ps);
    // The flowlet it belongs to: counted upstream in [first, last], dropped by the end of last + 1.
    const auto& v = flowlets[f->second];
    auto fl = std::find_if(v.begin(), v.end(), [&](const auto& x) { return x.first <= e && e <= x.second + 1; });
    if (fl == v.end()) {
      ++sc.no_flowlet;
      continue;
    }
    const segment_key k{f->second, fl->first, unsigned(up)};
    ++sc.dropped[k];
    sc.drop_at.emplace_back(k, d.t_ps);
  }
  return sc;
}

std::string csv_row(const places& p, const flowradar_flow& f, uint64_t report, uint64_t first, uint64_t last, int up,
                    const std::string& down, const char* what, uint64_t up_n, uint64_t down_n, uint64_t lost, uint64_t dropped) {
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", report, first, last, p.host_name(ip_at(f, 0)),
                     p.host_name(ip_at(f, 4)), f[9] << 8 | f[10], f[11] << 8 | f[12], f[8], p.name(up), down, what,
                     up_n, down_n, lost, dropped);
}

// The loss map's rows (every segment that is not lossless) and its scores.
void loss_map_report(const places& p, const loss_input& in, const std::vector<flowradar_loss_segment>& segs,
                     const score& sc, uint64_t epoch_ps, std::string& csv, nlohmann::json& o, telemetry_result& plot) {
  std::map<segment_key, const flowradar_loss_segment*> found;
  std::set<std::pair<unsigned, uint64_t>> unsure;   // flowlets, or their segments, not decoded
  uint64_t flowlets = 0, lost_packets = 0, undecoded = 0, open = 0, looped = 0;
  uint64_t last_first = ~uint64_t(0), last_flow = ~0u;
  for (const flowradar_loss_segment& s : segs) {
    if (s.flow != last_flow || s.first_epoch != last_first) ++flowlets;
    last_flow = s.flow, last_first = s.first_epoch;
    open += s.status == status::open;
    looped += s.status == status::looped;
    undecoded += s.status == status::undecoded;
    if (s.status == status::undecoded || s.status == status::open || s.status == status::looped)
      unsure.insert({s.flow, s.first_epoch});
    if (s.status == status::lost) lost_packets += s.lost, found[{s.flow, s.first_epoch, unsigned(s.up)}] = &s;
    if (s.status == status::lossless) continue;
    auto d = s.up < 0 ? sc.dropped.end() : sc.dropped.find({s.flow, s.first_epoch, unsigned(s.up)});
    csv += csv_row(p, in.flow[s.flow], s.last_epoch + 1, s.first_epoch, s.last_epoch, s.up,
                   s.up >= 0 && s.down < 0 ? "?" : p.name(s.down), flowradar_loss_status_name(s.status),
                   s.up_packets, s.down_packets, s.lost, d == sc.dropped.end() ? 0 : d->second);
  }
  // Segments with drops: found (with the exact count?), or left in an undecoded flowlet.
  uint64_t matched = 0, exact = 0, true_undecoded = 0;
  for (const auto& [k, n] : sc.dropped) {
    auto it = found.find(k);
    if (it != found.end()) ++matched, exact += it->second->lost == n;
    else if (unsure.count({std::get<0>(k), std::get<1>(k)})) ++true_undecoded;
  }
  // Detection delay (Fig. 4.10): a loss is reported when the epoch after its flowlet is exported.
  uint64_t within_20 = 0, within_50 = 0;
  for (const auto& [k, t] : sc.drop_at) {
    auto it = found.find(k);
    if (it == found.end()) continue;
    const uint64_t reported = (it->second->last_epoch + 2) * epoch_ps, delay_ps = reported - std::min(reported, t);
    within_20 += delay_ps <= 20'000'000'000ull;
    within_50 += delay_ps <= 50'000'000'000ull;
    plot.loss_delay_ms.push_back(double(delay_ps) / 1e9);
  }
  plot.loss_map_drops = sc.observable;
  o["loss_map_flowlets"] = flowlets;
  o["loss_map_lost_segments"] = found.size();
  o["loss_map_lost_packets"] = lost_packets;
  o["loss_map_undecoded"] = undecoded;
  o["loss_map_open_flowlets"] = open;
  o["loss_map_looped_flowlets"] = looped;
  o["loss_map_loop_drops"] = sc.loop_drops;
  o["loss_map_dropped_packets"] = sc.observable;
  o["loss_map_unobservable_drops"] = sc.unobservable;
  o["loss_map_unmapped_drops"] = sc.no_flowlet;
  o["loss_map_true_segments"] = sc.dropped.size();
  o["loss_map_matched_segments"] = matched;
  o["loss_map_exact_segments"] = exact;
  o["loss_map_undecoded_true_segments"] = true_undecoded;
  o["loss_map_missed_segments"] = sc.dropped.size() - matched - true_undecoded;   // with drops, reported lossless
  o["loss_map_precision_pct"] = pct(matched, found.size());
  o["loss_map_recall_pct"] = pct(matched, sc.dropped.size());
  o["loss_map_within_20ms_pct"] = pct(within_20, sc.observable);
  o["loss_map_within_50ms_pct"] = pct(within_50, sc.observable);
}

// Black holes, one slot at a time (§4.6.1), scored per (flow, switch): the first report against
// the first black-hole drop.
void black_hole_report(const places& p, const loss_input& in, const score& sc, const std::vector<flowradar_loop>& loops,
                       uint64_t epoch_ps, std::string& csv, nlohmann::json& o) {
  // A loop's packets die of TTL at its switches, so its path seems to stop there: not a black hole.
  std::set<std::pair<unsigned, uint64_t>> looped;
  for (const flowradar_loop& l : loops) looped.insert({l.flow, l.epoch});
  std::map<std::pair<unsigned, unsigned>, uint64_t> stopped;   // -> first report, ps
  for (const flowradar_stop& x : flowradar_stops(in.flows, in.net)) {
    if (looped.count({x.flow, x.epoch}) || looped.count({x.flow, x.epoch + 1})) continue;
    stopped.try_emplace({x.flow, x.sw}, (x.epoch + 2) * epoch_ps);
    uint64_t dropped = 0;
    for (uint64_t e = x.epoch; e <= x.epoch + 1; ++e)
      if (auto it = sc.after.find({x.flow, x.sw, e}); it != sc.after.end()) dropped += it->second;
    csv += csv_row(p, in.flow[x.flow], x.epoch + 1, x.epoch, x.epoch, int(x.sw), "?", "black_hole", x.packets, 0,
                   x.packets, dropped);
  }
  uint64_t matched = 0, soon = 0, right = 0;
  for (const auto& [k, t] : sc.black_holed) {
    auto it = stopped.find(k);
    if (it == stopped.end()) continue;
    ++matched;
    soon += it->second - std::min(it->second, t) <= 20'000'000'000ull;
  }
  for (const auto& [k, t] : stopped) right += sc.black_holed.count(k);
  o["black_hole_found_pairs"] = stopped.size();
  o["black_hole_true_pairs"] = sc.black_holed.size();
  o["black_hole_matched_pairs"] = matched;
  o["black_hole_precision_pct"] = pct(right, stopped.size());
  o["black_hole_recall_pct"] = pct(matched, sc.black_holed.size());
  o["black_hole_within_20ms_pct"] = pct(soon, sc.black_holed.size());
}

// Loops, one slot at a time (§4.6.1), scored per flow: the flows reported against the flows whose
// data came back to a switch whose faults.misroute entry had sent it, the first report against
// the first return.
void loop_report(const fabric& fab, const places& p, const loss_input& in, const score& sc,
                 const std::vector<flowradar_loop>& loops, uint64_t epoch_ps, std::string& csv, nlohmann::json& o) {
  std::map<flowradar_flow, uint64_t> looped;   // -> its first return, ps
  for (const auto& sw : fab.switches())
    for (const loop_return& r : sw->loop_returns()) {
      const auto [it, fresh] = looped.try_emplace(r.flow, r.t_ps);
      if (!fresh) it->second = std::min(it->second, r.t_ps);
    }
  std::map<unsigned, uint64_t> found;   // flow -> its first report, ps
  for (const flowradar_loop& l : loops) {
    found.try_emplace(l.flow, (l.epoch + 1) * epoch_ps);
    std::string at;
    uint64_t most = 0;
    for (const auto& [s, n] : l.over) {
      at += (at.empty() ? "" : "+") + p.name(int(s));
      most = std::max(most, n);
    }
    const auto ttl = sc.ttl_expired.find({l.flow, l.epoch});
    csv += csv_row(p, in.flow[l.flow], l.epoch + 1, l.epoch, l.epoch, int(in.flows[l.flow].first_hop), at, "loop", l.entered,
                   most, 0, ttl == sc.ttl_expired.end() ? 0 : ttl->second);
  }
  uint64_t right = 0, matched = 0, soon = 0;
  for (const auto& [f, t] : found) right += looped.count(in.flow[f]);
  for (const auto& [flow, t] : looped) {
    const auto i = in.index.find(flow);
    const auto it = i == in.index.end() ? found.end() : found.find(i->second);
    if (it == found.end()) continue;
    ++matched;
    soon += it->second - std::min(it->second, t) <= 10'000'000'000ull;
  }
  o["loop_found_flows"] = found.size();
  o["loop_true_flows"] = looped.size();
  o["loop_matched_flows"] = matched;
  o["loop_precision_pct"] = pct(right, found.size());
  o["loop_recall_pct"] = pct(matched, looped.size());
  o["loop_within_10ms_pct"] = pct(soon, looped.size());
}

}  // namespace

flowradar_sites::flowradar_sites(const topology& topo, bool hosts) : t(topo), site_of(topo.nodes.size(), -1) {
  for (unsigned s = 0; s < t.switches.size(); ++s) site_of[t.switches[s]] = int(s);
  if (hosts)
    for (unsigned h = 0; h < t.hosts.size(); ++h) site_of[t.hosts[h]] = int(t.switches.size() + h);
  adj.resize(t.switches.size() + (hosts ? t.hosts.size() : 0));
  for (const topo_link& l : t.links)
    if (!l.failed && site_of[l.a] >= 0 && site_of[l.b] >= 0) {
      adj[unsigned(site_of[l.a])].push_back(unsigned(site_of[l.b]));
      adj[unsigned(site_of[l.b])].push_back(unsigned(site_of[l.a]));
    }
  for (auto& a : adj) {
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
  }
}

std::string flowradar_sites::name(int site) const {
  if (site < 0) return "-";
  const size_t s = size_t(site);
  return t.nodes[s < t.switches.size() ? t.switches[s] : t.hosts[s - t.switches.size()]].name;
}

int flowradar_sites::end_of(uint32_t ip) const {
  const uint32_t h = host_of_ip(ip);
  if (h >= t.hosts.size()) return -1;
  return site_of[t.hosts[h]] >= 0 ? site_of[t.hosts[h]] : site_of[t.host_switch(h)];
}

void flowradar_loss_report(const fabric& fab, const std::map<uint64_t, flowradar_decoded_epoch>& epochs,
                           const drop_log& drops, run_result& r) {
  const uint64_t epoch_ps = fab.config().sw.flowradar.epoch_ps;
  const places p(fab.config().topo, fab.config().sw.flowradar.hosts);
  loss_input in;
  gather(p, epochs, epochs.empty() ? 0 : epochs.rbegin()->first + 1, fab.stats.in_flight() == 0, in);
  const std::vector<flowradar_loss_segment> segs = flowradar_loss_map(in.flows, in.net);
  const score sc = score_drops(p, in, segs, drops, epoch_ps);
  std::string csv = "report_epoch,first_epoch,last_epoch,src,dst,sport,dport,proto,upstream,downstream,status,"
                    "upstream_packets,downstream_packets,lost_packets,dropped_packets\n";
  auto& o = r.summary["flowradar"];
  loss_map_report(p, in, segs, sc, epoch_ps, csv, o, r.telemetry);
  const std::vector<flowradar_loop> loops = flowradar_loops(in.flows, in.net);
  black_hole_report(p, in, sc, loops, epoch_ps, csv, o);
  loop_report(fab, p, in, sc, loops, epoch_ps, csv, o);
  r.files.emplace_back("flowradar_loss.csv", csv);
}

}  // namespace netasic
