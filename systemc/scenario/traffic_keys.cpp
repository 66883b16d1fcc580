#include "scenario/traffic_keys.h"

#include <cstdio>
#include <iostream>
#include <limits>
#include <map>

#include <filesystem>

#include <fmt/format.h>

#include "common/rng.h"
#include "scenario/key_binding.h"
#include "scenario/scenario.h"
#include "topology/traffic_matrix.h"
#include "workload/trace_reader.h"

namespace netasic {
namespace {

// The workload layer's names (to_string), one per pattern.
names<traffic_pattern> pattern_names() {
  return {{traffic_pattern::poisson, to_string(traffic_pattern::poisson)},
          {traffic_pattern::incast, to_string(traffic_pattern::incast)},
          {traffic_pattern::permutation, to_string(traffic_pattern::permutation)},
          {traffic_pattern::all_to_all, to_string(traffic_pattern::all_to_all)},
          {traffic_pattern::list, to_string(traffic_pattern::list)}};
}

template <class K>
void traffic_keys(K& k) {
  using T = traffic_spec;
  constexpr int64_t big = std::numeric_limits<int32_t>::max();
  static const names<traffic_pattern> patterns = pattern_names();
  k.choice("traffic.pattern", patterns, &T::pattern, "Flow arrival pattern (list: only traffic.flows)");
  // Parsed into traffic_spec::listed, and loaded into traffic_spec::cdf: make_flows.
  k.unbound.string_list("traffic.flows", "", {}, "Flows added to any pattern: \"SRC->DST BYTES@START_US\", or \"SRC->DST BYTES@START_US+EVERY_USxCOUNT\" for COUNT flows EVERY_US apart");
  // Read by make_flows (workload/trace_reader.h).
  k.unbound.string("traffic.trace", "", "Flows from a file, added to any pattern (list: the trace alone): a pcap capture, a packet list or a flow list; relative to the scenario file");
  k.unbound.choice("traffic.trace_format", "auto", {"auto", "pcap", "flows", "packets"}, "traffic.trace's format: pcap, flows (time_us,src,dst,size_bytes[,src_port]), packets (time_us,src,dst,frame_bytes[,protocol,src_port,dst_port[,ip_id,ecn]]); auto: pcap for .pcap, .pcapng, .cap");
  k.unbound.choice("traffic.trace_mode", "flows", {"flows", "packets"}, "traffic.trace played as flows (grouped by 5-tuple, sent by the NICs' transport) or as packets (a pcap or packet list: each host sends its frames at their recorded times, open-loop, no transport; traffic.pattern = \"list\", the run ends sim.drain after the last frame)");
  k.unbound.string_list("traffic.trace_hosts", "", {}, "traffic.trace's addresses: \"ADDRESS=HOST\" per host; unlisted 10.0.0.0/8 addresses are host (address & 0xFFFFFF)");
  k.unbound.string("traffic.cdf", "websearch", "Flow-size CDF: websearch, fb_hadoop, datamining, enterprise, or a file path (SIZE_BYTES PERCENT per line)");
  // Read by traffic_matrix_destinations (topology/traffic_matrix.h).
  k.unbound.string("traffic.matrix", "", "Poisson: destinations from a ToR-to-ToR traffic matrix, the ones `netasic paths --throughput` solves: \"all_to_all\", \"uniform:P\" (each ToR sends to a fraction P of the ToRs, drawn from sim.seed) or \"permutation\" (the near-worst permutation of ToRs); a ToR's hosts share its demands, each flow goes to a ToR by its demand, then to a host there uniformly; traffic.load stays per host link. Empty: uniform over all hosts");
  k.boolean("traffic.remote_only", &T::remote_only, "Poisson: destinations only under another top-of-rack (leaf or edge) switch, as in LetFlow's testbed; traffic.load stays per host link");
  k.real("traffic.load", "fraction", &T::load, 0.0001, 1, "Average offered load per host link, payload bytes over link rate (poisson)");
  k.integer("traffic.flow_size", "bytes", &T::flow_size_bytes, 0, int64_t(max_flow_bytes), "Fixed flow size for incast/permutation/all_to_all; 0 = draw from traffic.cdf");
  k.real("traffic.start", us_as_ps, &T::start_ps, 0, 1e9, "Start time of incast/permutation/all_to_all flows");
  k.real("traffic.incast.start_spread", us_as_ps, &T::start_spread_ps, 0, 1e9, "Incast: each sender starts at a uniform random time in [start, start + spread) (its phase, for paced senders)");
  k.integer("traffic.incast.senders", "hosts", &T::incast_senders, 1, big, "Senders of the incast");
  k.integer("traffic.incast.receiver", "host", &T::incast_receiver, 0, big, "Receiving host of the incast");
}

// A key the pattern does not use must hold its default.
void reject_unused_by_pattern(const config& c, const traffic_spec& t) {
  const std::string pattern = "with traffic.pattern = \"" + c.string("traffic.pattern") + "\"";
  if (t.pattern == traffic_pattern::poisson) reject_unused(c, {"traffic.flow_size", "traffic.start"}, pattern);
  else reject_unused(c, {"traffic.load"}, pattern);
  if (t.pattern != traffic_pattern::incast) reject_unused(c, {"traffic.incast.senders", "traffic.incast.receiver", "traffic.incast.start_spread"}, pattern);
  if (t.pattern == traffic_pattern::list) reject_unused(c, {"traffic.flow_size", "traffic.start", "traffic.cdf"}, pattern);
  else if (t.pattern != traffic_pattern::poisson && t.flow_size_bytes > 0)
    reject_unused(c, {"traffic.cdf"}, "when traffic.flow_size fixes the flow size");
  if (t.pattern != traffic_pattern::poisson) reject_unused(c, {"traffic.remote_only", "traffic.matrix"}, pattern);
}

// traffic.matrix: the matrix's demands as each ToR's destination host ranges, by weight.
void matrix_destinations(const config& c, const topology& topo, uint64_t seed, traffic_spec& t) {
  const std::string m = c.string("traffic.matrix");
  if (m.empty()) return;
  if (t.remote_only) fail(c, "traffic.matrix", "cannot be combined with traffic.remote_only (a matrix says where flows go)");
  traffic_matrix tm;
  if (m == "all_to_all") {
    tm = all_to_all_traffic(topo);
  } else if (m == "permutation") {
    tm = near_worst_permutation(topo);
  } else if (m.rfind("uniform:", 0) == 0) {
    double p = 0;
    size_t used = 0;
    try {
      p = std::stod(m.substr(8), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != m.size() - 8 || !(p > 0 && p <= 1))
      fail(c, "traffic.matrix", fmt::format("'{}': P in uniform:P must be a fraction in (0, 1]", m));
    tm = uniform_random_traffic(topo, p, seed);
  } else {
    fail(c, "traffic.matrix", fmt::format("'{}' is not a matrix (choices: all_to_all, uniform:P, permutation)", m));
  }
  const std::vector<unsigned> tors = tor_switches(topo);
  if (tors.size() < 2) fail(c, "traffic.matrix", "needs at least two switches with hosts");
  std::map<unsigned, unsigned> index;   // ToR node -> its place in tors
  for (unsigned i = 0; i < tors.size(); ++i) index[tors[i]] = i;
  std::vector<std::pair<uint32_t, uint32_t>> range(tors.size(), {UINT32_MAX, 0});   // a ToR's hosts, [first, end)
  t.tor_of.resize(t.hosts);
  for (uint32_t h = 0; h < t.hosts; ++h) {
    const unsigned i = index.at(topo.host_switch(h));
    t.tor_of[h] = i;
    range[i].first = std::min(range[i].first, h);
    range[i].second = std::max(range[i].second, h + 1);
  }
  for (unsigned i = 0; i < tors.size(); ++i)   // the builders number a ToR's hosts contiguously
    if (range[i].second - range[i].first != hosts_on(topo, tors[i]))
      fail(c, "traffic.matrix", fmt::format("the hosts of {} are not numbered contiguously", topo.nodes[tors[i]].name));
  t.dsts.assign(tors.size(), {});
  for (const demand& d : tm.demands) {
    auto& v = t.dsts[index.at(d.src)];
    const auto [first, end] = range[index.at(d.dst)];
    v.push_back({first, end, (v.empty() ? 0.0 : v.back().weight) + d.rate});
  }
  for (unsigned i = 0; i < tors.size(); ++i)
    if (t.dsts[i].empty())
      fail(c, "traffic.matrix", fmt::format("'{}' gives ToR {} no destination", m, topo.nodes[tors[i]].name));
}

// remote_only: each host's ToR range (the builders number a ToR's hosts contiguously).
void find_racks(const topology& topo, traffic_spec& t) {
  for (uint32_t h = 0; h < t.hosts; ++h) {
    uint32_t lo = h, hi = h + 1;
    while (lo > 0 && topo.host_switch(lo - 1) == topo.host_switch(h)) --lo;
    while (hi < t.hosts && topo.host_switch(hi) == topo.host_switch(h)) ++hi;
    t.tor_first.push_back(lo);
    t.tor_end.push_back(hi);
  }
}

// traffic.trace_hosts: "A.B.C.D=HOST" entries.
std::map<uint32_t, uint32_t> trace_hosts(const config& c, uint32_t hosts) {
  std::map<uint32_t, uint32_t> m;
  for (const std::string& e : c.list("traffic.trace_hosts")) {
    const size_t eq = e.find('=');
    const auto bad = [&](const std::string& why) {
      fail(c, "traffic.trace_hosts", fmt::format("entry '{}': {}", e, why));
    };
    if (eq == std::string::npos) bad("expected ADDRESS=HOST");
    unsigned a[4] = {}, h = 0;
    char tail = 0;
    const std::string addr = e.substr(0, eq), host = e.substr(eq + 1);
    if (std::sscanf(addr.c_str(), "%u.%u.%u.%u%c", &a[0], &a[1], &a[2], &a[3], &tail) != 4 || a[0] > 255 || a[1] > 255 ||
        a[2] > 255 || a[3] > 255)
      bad("'" + addr + "' is not an IPv4 address");
    if (std::sscanf(host.c_str(), "%u%c", &h, &tail) != 1 || host.find_first_not_of("0123456789") != std::string::npos)
      bad("'" + host + "' is not a host number");
    if (h >= hosts) bad(fmt::format("host {} does not exist (hosts are 0..{})", h, hosts - 1));
    if (!m.emplace(a[0] << 24 | a[1] << 16 | a[2] << 8 | a[3], h).second) bad("the address is listed twice");
  }
  return m;
}

// traffic.trace as a reader opens it (its format still "auto").
trace_source trace_of(const config& c, uint32_t hosts) {
  const std::string name = c.string("traffic.trace");
  trace_source src;
  const std::filesystem::path given(name);
  src.path = given.is_absolute() ? name : (std::filesystem::path(c.base_dir("traffic.trace")) / given).lexically_normal().string();
  src.hosts = hosts;
  src.host_of = trace_hosts(c, hosts);
  src.int_padding = c.boolean("nic.int_padding");
  return src;
}

// traffic.trace's flows.
std::vector<flow_spec> trace_flows(const config& c, uint32_t hosts) {
  const std::string name = c.string("traffic.trace");
  if (name.empty()) {
    reject_unused(c, {"traffic.trace_format", "traffic.trace_mode", "traffic.trace_hosts"}, "without traffic.trace");
    return {};
  }
  trace_source src = trace_of(c, hosts);
  uint64_t skipped = 0;
  std::vector<flow_spec> flows;
  try {
    src.format = parse_trace_format(c.string("traffic.trace_format"), src.path);
    flows = read_trace_flows(src, skipped);
  } catch (const config_error& e) {
    throw config_error(fmt::format("{}: key 'traffic.trace': {}", c.origin("traffic.trace"), e.what()));
  }
  if (flows.empty())
    fail(c, "traffic.trace", src.path + " holds no flow (no TCP or UDP packet with a payload)");
  if (skipped)
    std::cerr << fmt::format("warning: {}: {} frames that are not IPv4 TCP or UDP left out\n", src.path, skipped);
  return flows;
}

}  // namespace

void declare_traffic_keys(param_registry& r) {
  declare_keys<traffic_spec> k(r);
  traffic_keys(k);
}

namespace {

// A flow's packets are numbered in 32 bits (the NIC's sequence space): a flow with more packets at
// this MTU cannot run, whichever key made it (traffic.flow_size, traffic.flows, traffic.cdf).
void check_packet_counts(const config& c, const std::vector<flow_spec>& flows, uint32_t mtu) {
  for (const flow_spec& fl : flows)
    if ((fl.size_bytes + mtu - 1) / mtu > UINT32_MAX)
      throw config_error(fmt::format("{}: key 'nic.mtu': a flow of {} bytes is more than 2^32 - 1 packets of {} bytes; "
                                     "raise nic.mtu or make the flows smaller", c.origin("nic.mtu"), fl.size_bytes, mtu));
}

}  // namespace

std::vector<flow_spec> make_flows(const config& c, const fabric_config& f) {
  if (c.string("traffic.trace_mode") == "packets") return {};   // the NICs play the trace: prepare_packet_trace
  traffic_spec t;
  apply_keys<traffic_spec> k(c, t);
  traffic_keys(k);
  // A clock-only run: the list pattern with no flows listed.
  if (t.pattern == traffic_pattern::list && c.list("traffic.flows").empty() && c.string("traffic.trace").empty() &&
      c.string("clock.algorithm") != "off") {
    reject_unused(c, {"traffic.trace_format", "traffic.trace_mode", "traffic.trace_hosts", "traffic.flow_size", "traffic.start", "traffic.cdf", "traffic.load", "traffic.remote_only", "traffic.matrix",
                      "traffic.incast.senders", "traffic.incast.receiver"}, "with traffic.pattern = \"list\"");
    return {};
  }
  reject_unused_by_pattern(c, t);
  t.hosts = uint32_t(f.topo.hosts.size());
  t.host_rate_bps = c.real("topology.host_rate") * 1e9;
  if (t.remote_only) find_racks(f.topo, t);
  matrix_destinations(c, f.topo, f.seed, t);
  if (t.pattern == traffic_pattern::poisson || (t.pattern != traffic_pattern::list && t.flow_size_bytes == 0)) {
    try {
      t.cdf = flow_size_cdf::load(c.string("traffic.cdf"), c.base_dir("traffic.cdf"));
    } catch (const config_error& e) {
      fail(c, "traffic.cdf", e.what());
    }
  }
  t.duration_ps = f.arrivals_end_ps;
  try {
    t.listed = parse_flow_list(c.list("traffic.flows"), t.hosts);
  } catch (const config_error& e) {
    throw config_error(c.origin("traffic.flows") + ": " + e.what());
  }
  const std::vector<flow_spec> traced = trace_flows(c, t.hosts);
  t.listed.insert(t.listed.end(), traced.begin(), traced.end());
  rng r(f.seed);
  try {
    std::vector<flow_spec> flows = generate_flows(t, r);
    check_packet_counts(c, flows, f.nic.mtu_payload);
    return flows;
  } catch (const config_error& e) {
    // The generator's messages start with the key they are about; point at where it was set.
    const std::string msg = e.what(), key = msg.substr(0, msg.find(':'));
    if (all_params().find(key)) throw config_error(fmt::format("{}: key '{}'{}", c.origin(key), key, msg.substr(key.size())));
    throw config_error(fmt::format("{}: {}", c.source_file().empty() ? "--set" : c.source_file(), msg));
  }
}

namespace {

// traffic.trace_mode = "packets" plays the trace alone, and only a trace of packets.
void check_packet_mode(const config& c, const traffic_spec& t) {
  const std::string key = "traffic.trace_mode";
  if (c.string("traffic.trace").empty()) fail(c, key, "\"packets\" plays traffic.trace, which is not set");
  if (c.string("deter.mode") != "off")
    fail(c, key, fmt::format("\"packets\" cannot be combined with deter.mode = \"{}\" (DETER records a transport's flows and replays its own record)",
                             c.string("deter.mode")));
  if (t.pattern != traffic_pattern::list)
    fail(c, key, fmt::format("\"packets\" plays the trace alone: traffic.pattern must be \"list\", not \"{}\"", c.string("traffic.pattern")));
  if (!c.list("traffic.flows").empty()) fail(c, key, "\"packets\" plays the trace alone: traffic.flows must be empty");
  reject_unused_by_pattern(c, t);
  reject_unused(c, {"sim.duration"}, "with traffic.trace_mode = \"packets\" (the run ends sim.drain after the trace's last frame)");
}

}  // namespace

bool prepare_packet_trace(const config& c, fabric_config& f, std::vector<packet_trace>& traces) {
  if (c.string("traffic.trace_mode") != "packets") return false;
  traffic_spec t;
  apply_keys<traffic_spec> k(c, t);
  traffic_keys(k);
  check_packet_mode(c, t);
  const uint32_t hosts = uint32_t(f.topo.hosts.size());
  trace_source src = trace_of(c, hosts);
  uint64_t skipped = 0;
  packet_trace all;
  const auto as_trace_error = [&](const config_error& e) {
    return config_error(fmt::format("{}: key 'traffic.trace': {}", c.origin("traffic.trace"), e.what()));
  };
  try {
    src.format = parse_trace_format(c.string("traffic.trace_format"), src.path);
  } catch (const config_error& e) {
    throw as_trace_error(e);
  }
  if (src.format == trace_format::flows)
    fail(c, "traffic.trace_mode", src.path + " is a flow list (traffic.trace_format = \"flows\"); \"packets\" plays a pcap or a packet list");
  try {
    all = read_packet_trace(src, skipped);
  } catch (const config_error& e) {
    throw as_trace_error(e);
  }
  if (all.empty()) fail(c, "traffic.trace", src.path + " holds no IPv4 TCP or UDP packet");
  if (skipped) std::cerr << fmt::format("warning: {}: {} frames that are not IPv4 TCP or UDP left out\n", src.path, skipped);
  traces.assign(hosts, {});
  for (const trace_packet& p : all) traces[p.src].push_back(p);   // each keeps the file's time order
  f.replay = &traces;
  f.arrivals_end_ps = all.back().time_ps;
  return true;
}

}  // namespace netasic
