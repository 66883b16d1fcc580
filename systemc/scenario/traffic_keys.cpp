#include "scenario/traffic_keys.h"

#include <limits>

#include <fmt/format.h>

#include "common/rng.h"
#include "scenario/key_binding.h"
#include "scenario/scenario.h"

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
  k.unbound.string("traffic.cdf", "websearch", "Flow-size CDF: websearch, fb_hadoop, datamining, enterprise, or a file path (SIZE_BYTES PERCENT per line)");
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
  if (t.pattern != traffic_pattern::poisson) reject_unused(c, {"traffic.remote_only"}, pattern);
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
  traffic_spec t;
  apply_keys<traffic_spec> k(c, t);
  traffic_keys(k);
  // A clock-only run: the list pattern with no flows listed.
  if (t.pattern == traffic_pattern::list && c.list("traffic.flows").empty() && c.string("clock.algorithm") != "off") {
    reject_unused(c, {"traffic.flow_size", "traffic.start", "traffic.cdf", "traffic.load", "traffic.remote_only",
                      "traffic.incast.senders", "traffic.incast.receiver"}, "with traffic.pattern = \"list\"");
    return {};
  }
  reject_unused_by_pattern(c, t);
  t.hosts = uint32_t(f.topo.hosts.size());
  t.host_rate_bps = c.real("topology.host_rate") * 1e9;
  if (t.remote_only) find_racks(f.topo, t);
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

}  // namespace netasic
