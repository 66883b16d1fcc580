#include "run/deter_run.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "common/rng.h"
#include "common/stats.h"
#include "scenario/checks.h"

namespace netasic {
namespace {

bool replay_must_match(const std::string& key) {
  for (const char* prefix : {"topology.", "switch.", "tm.", "pfc.", "ecn.", "lb.", "flowcut."})
    if (key.rfind(prefix, 0) == 0) return true;
  return key == "nic.mtu" || key == "nic.clock" || key == "nic.rx_pipe_cycles" || key == "sim.seed";
}

// The run's queue log, beside its record.
std::string queue_log_path(const std::string& record) {
  return (std::filesystem::path(record).parent_path() / "deter_queues.bin").string();
}

void check_settings(const config& c, const deter_record& rec, const std::string& path) {
  const auto mine = deter_settings(c);
  std::map<std::string, std::string> now(mine.begin(), mine.end());
  for (const auto& [key, value] : rec.settings) {
    auto it = now.find(key);
    if (it == now.end()) fail(c, "deter.record", fmt::format("{}: the record sets '{}', which this build does not know", path, key));
    if (it->second != value)
      fail(c, key, fmt::format("this replay has {}, the record {} was made with {} (a replay needs the record's topology, "
                               "switch and buffer settings)", it->second, path, value));
    now.erase(it);
  }
  if (!now.empty()) fail(c, now.begin()->first, fmt::format("the record {} does not say what it was (an older record)", path));
}

// A packet at a switch, for matching the two logs: the n-th time this (connection, IP_ID) passed it.
using hop_key = std::tuple<uint64_t, uint16_t, uint16_t>;
hop_key key_of(const deter_hop& h) { return {h.conn, h.ip_id, h.sw}; }

std::vector<const deter_hop*> sorted(const deter_queue_log& log) {
  std::vector<const deter_hop*> v;
  v.reserve(log.hops.size());
  for (const deter_hop& h : log.hops) v.push_back(&h);
  std::stable_sort(v.begin(), v.end(), [](const deter_hop* a, const deter_hop* b) { return key_of(*a) < key_of(*b); });
  return v;
}

void count_drops(const deter_queue_log& run, const deter_queue_log& rep, deter_comparison& out) {
  std::map<std::pair<uint64_t, uint16_t>, uint16_t> a, b;   // dropped packet -> where
  for (const deter_hop& h : run.hops)
    if (h.dropped) a[{h.conn, h.ip_id}] = h.sw;
  for (const deter_hop& h : rep.hops)
    if (h.dropped) b[{h.conn, h.ip_id}] = h.sw;
  out.run_drops = a.size();
  out.replay_drops = b.size();
  for (const auto& [pkt, sw] : a) {
    auto it = b.find(pkt);
    if (it == b.end()) ++out.false_accepts;
    else if (it->second != sw) ++out.wrong_location;
  }
  for (const auto& [pkt, sw] : b)
    if (!a.count(pkt)) ++out.false_drops;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> deter_settings(const config& c) {
  // config.toml's own lines: "[table]" then "leaf = value   # comment".
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(c.to_toml());
  std::string line, table;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') {
      table = line.substr(1, line.find(']') - 1);
      continue;
    }
    const size_t eq = line.find(" = ");
    if (eq == std::string::npos) continue;
    std::string value = line.substr(eq + 3);
    if (const size_t comment = value.find("  # "); comment != std::string::npos) value = value.substr(0, comment);
    while (!value.empty() && value.back() == ' ') value.pop_back();
    const std::string key = table + "." + line.substr(0, eq);
    if (replay_must_match(key)) out.push_back({key, value});
  }
  return out;
}

void deter_prepare(const config& c, fabric_config& f, std::vector<packet_trace>& traces) {
  if (f.deter.mode != deter_mode::replay) return;
  const std::string& path = f.deter.record;
  deter_record rec;
  try {
    rec = deter_record::load(path);
    deter_queue_log::check(queue_log_path(path));   // compared with after the run: refuse it now
  } catch (const std::exception& e) {
    fail(c, "deter.record", e.what());
  }
  check_settings(c, rec, path);
  if (rec.hosts != f.topo.hosts.size())
    fail(c, "deter.record", fmt::format("{}: the record has {} hosts, this topology {}", path, rec.hosts, f.topo.hosts.size()));
  // Each host's clock error: one uniform draw in [0, deter.clock_error] (the chapter's [0, 5] us).
  rng draws(f.deter.clock_seed);
  std::vector<uint64_t> offset(rec.hosts, 0);
  for (uint64_t& o : offset) o = f.deter.clock_error_ps ? draws.below(f.deter.clock_error_ps + 1) : 0;
  traces = rec.traces(offset);
  f.replay = &traces;
  f.arrivals_end_ps = 0;
  for (const packet_trace& t : traces)
    if (!t.empty()) f.arrivals_end_ps = std::max(f.arrivals_end_ps, t.back().time_ps);
}

double deter_comparison::drop_error() const {
  const uint64_t either = run_drops + false_drops;
  return either ? double(false_accepts + false_drops + wrong_location) / double(either) : 0.0;
}

deter_comparison deter_compare(const deter_queue_log& run, const deter_queue_log& replay, uint64_t mtu_bytes) {
  deter_comparison out;
  const auto a = sorted(run), b = sorted(replay);
  std::map<std::pair<unsigned, unsigned>, std::vector<double>> by_port;   // (switch, port) -> qdiff, MTU
  std::vector<double> all;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && key_of(*a[i]) < key_of(*b[j]))) { ++out.run_only; ++i; continue; }
    if (i == a.size() || key_of(*b[j]) < key_of(*a[i])) { ++out.replay_only; ++j; continue; }
    // The same packet at the same switch: the queue it found there, run against replay.
    const double d = std::abs(double(a[i]->queue_bytes) - double(b[j]->queue_bytes)) / double(mtu_bytes);
    by_port[{a[i]->sw, a[i]->port}].push_back(d);
    all.push_back(d);
    ++i;
    ++j;
  }
  auto fill = [](std::vector<double>& v, double& avg, double& p99, double& max) {
    if (v.empty()) return;
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (double x : v) sum += x;
    avg = sum / double(v.size());
    p99 = percentile(v, 99);
    max = v.back();
  };
  out.matched = all.size();
  fill(all, out.avg_mtu, out.p99_mtu, out.max_mtu);
  for (auto& [where, v] : by_port) {
    deter_comparison::port_diff p;
    p.sw = where.first;
    p.port = where.second;
    p.hops = v.size();
    fill(v, p.avg_mtu, p.p99_mtu, p.max_mtu);
    out.ports.push_back(p);
  }
  count_drops(run, replay, out);
  return out;
}

namespace {

void finish_record(const config& c, fabric& fab, run_result& r, uint64_t sim_end_ps) {
  deter_recorder& rec = *fab.deter_record();
  const deter_record record = rec.finish(deter_settings(c));
  std::vector<uint64_t> per_host;
  r.files.push_back({"deter.rec", record.serialize(&per_host)});
  const double secs = double(sim_end_ps) * 1e-12;
  uint64_t bytes = 0, pcap = 0, samples = 0, packets = 0, drops = 0, reordered = 0;
  double max_rate = 0;
  for (size_t h = 0; h < per_host.size(); ++h) {
    bytes += per_host[h];
    pcap += rec.pcap_bytes()[h];
    max_rate = std::max(max_rate, double(per_host[h]) / secs);
  }
  for (const deter_connection_record& k : record.conns) {
    samples += k.samples.size();
    packets += k.packets;
    drops += k.dropped.size();
    reordered += k.reordered;
  }
  const double hosts = double(per_host.size());
  r.summary["deter"] = {{"mode", "record"}, {"th_us", double(record.th_ps) * 1e-6}, {"connections", record.conns.size()},
                        {"packets", packets}, {"samples", samples}, {"drops_detected", drops}, {"reordered", reordered},
                        {"record_bytes", bytes}, {"record_bytes_per_host_per_s", double(bytes) / hosts / secs},
                        {"record_bytes_per_host_per_s_max", max_rate}, {"pcap_bytes", pcap},
                        {"pcap_bytes_per_host_per_s", double(pcap) / hosts / secs},
                        {"record_over_pcap_percent", pcap ? 100.0 * double(bytes) / double(pcap) : 0.0},
                        {"queue_log_hops", fab.deter_log()->hops.size()},
                        {"clock", fab.config().deter.clock == deter_clock::clock_layer ? "clock_layer" : "exact"},
                        {"clock_error_max_ns", double(rec.clock_error_max_ps()) * 1e-3}};
}

void finish_replay(const config& c, fabric& fab, run_result& r) {
  deter_queue_log run_log;
  try {
    run_log = deter_queue_log::load(queue_log_path(fab.config().deter.record));
  } catch (const std::exception& e) {
    fail(c, "deter.record", e.what());
  }
  const uint64_t mtu = fab.config().nic.max_frame_bytes();
  const deter_comparison d = deter_compare(run_log, *fab.deter_log(), mtu);
  std::string csv = "switch,port,packets,qdiff_avg_mtu,qdiff_p99_mtu,qdiff_max_mtu\n";
  for (const auto& p : d.ports)
    csv += fmt::format("{},{},{},{:.4f},{:.4f},{:.4f}\n", fab.switches()[p.sw]->basename(), p.port, p.hops, p.avg_mtu, p.p99_mtu, p.max_mtu);
  r.files.push_back({"deter_qdiff.csv", csv});
  const double run_drops = double(std::max<uint64_t>(1, d.run_drops));
  r.summary["deter"] = {
      {"mode", "replay"}, {"drop_rule", fab.config().deter.drop_rule}, {"clock_error_us", double(fab.config().deter.clock_error_ps) * 1e-6},
      {"mtu_bytes", mtu}, {"hops_matched", d.matched}, {"hops_run_only", d.run_only}, {"hops_replay_only", d.replay_only},
      {"qdiff_avg_mtu", d.avg_mtu}, {"qdiff_p99_mtu", d.p99_mtu}, {"qdiff_max_mtu", d.max_mtu},
      {"run_drops", d.run_drops}, {"replay_drops", d.replay_drops}, {"false_accepts", d.false_accepts},
      {"false_drops", d.false_drops}, {"wrong_location", d.wrong_location}, {"drop_error", d.drop_error()},
      {"false_accepts_of_run_drops", double(d.false_accepts) / run_drops},
      {"false_drops_of_run_drops", double(d.false_drops) / run_drops},
      {"wrong_location_of_run_drops", double(d.wrong_location) / run_drops}};
}

}  // namespace

void deter_check_connections(const config& c, const fabric& fab) {
  const fabric_config& fc = fab.config();
  if (fc.deter.mode != deter_mode::record) return;
  // A RoCE ACK carries its flow's UDP ports back, so a flow's data and the ACKs of a flow the
  // other way share a 5-tuple when their ports match; a TCP ACK swaps the ports.
  const bool roce = fc.nic.transport != nic_transport::tcp;
  std::unordered_map<uint64_t, uint32_t> first;   // (hosts, source port) -> the flow holding it
  for (const flow_ctx& f : fab.flows) {
    const auto [it, fresh] = first.emplace(host_pair_port(f.src, f.dst, f.src_port, roce), f.id);
    if (fresh) continue;
    const flow_ctx& g = fab.flows[it->second];
    fail(c, "deter.mode",
         fmt::format("is \"record\", but flows {} ({} -> {}) and {} ({} -> {}) both have source port {}{}; DETER keys a "
                     "connection by its 5-tuple: give them distinct ports",
                     g.id, g.src, g.dst, f.id, f.src, f.dst, f.src_port,
                     g.src == f.src ? "" : ", and a RoCE ACK carries its flow's ports back"));
  }
}

void deter_finish(const config& c, fabric& fab, run_result& r, uint64_t sim_end_ps) {
  const deter_mode mode = fab.config().deter.mode;
  if (mode == deter_mode::off) return;
  r.files.push_back({"deter_queues.bin", fab.deter_log()->serialize()});
  if (mode == deter_mode::record) finish_record(c, fab, r, sim_end_ps);
  else finish_replay(c, fab, r);
}

}  // namespace netasic
