#include "workload/traffic.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "common/params.h"

namespace netasic {

namespace {

[[noreturn]] void bad(const std::string& key, const std::string& what) {
  throw config_error(key + ": " + what);
}

std::string num(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

void validate(const traffic_spec& s) {
  if (s.pattern == traffic_pattern::list) {
    if (s.listed.empty()) bad("traffic.flows", "is empty; the list pattern sends only the flows listed there");
    return;
  }
  if (s.hosts < 2)
    bad("hosts", "the topology has " + std::to_string(s.hosts) +
                     " hosts; traffic needs at least 2 (a flow never goes to its own source)");
  if (s.pattern == traffic_pattern::poisson) {
    if (!s.cdf) bad("traffic.cdf", "the poisson pattern needs a flow-size CDF");
    if (!(s.load > 0 && s.load <= 1))
      bad("traffic.load", "is " + num(s.load) + ", must be in (0, 1]");
    if (!(s.host_rate_bps > 0 && std::isfinite(s.host_rate_bps)))
      bad("host link rate", "is " + num(s.host_rate_bps) + " bit/s, must be > 0");
    if (s.duration_ps == 0) bad("sim.duration", "must be > 0 for the poisson pattern");
    if (s.remote_only) {
      if (s.tor_first.size() != s.hosts || s.tor_end.size() != s.hosts)
        bad("traffic.remote_only", "needs each host's top-of-rack range");
      for (uint32_t h = 0; h < s.hosts; ++h)
        if (!(s.tor_first[h] <= h && h < s.tor_end[h] && s.tor_end[h] <= s.hosts))
          bad("traffic.remote_only", "host " + std::to_string(h) + " is outside its top-of-rack range");
      if (s.tor_end[0] - s.tor_first[0] == s.hosts)
        bad("traffic.remote_only", "every host is under one top-of-rack switch: there is no remote destination");
    }
    if (s.start_ps > UINT64_MAX - s.duration_ps)
      bad("sim.duration", "start + duration overflows the 64-bit picosecond clock");
    const double flows_per_s = s.load * s.host_rate_bps / (8.0 * s.cdf->mean_bytes());
    const double expected = flows_per_s * double(s.duration_ps) * 1e-12 * s.hosts;
    if (expected > double(max_generated_flows))
      bad("sim.duration", "would generate about " + std::to_string(uint64_t(expected)) +
                                  " flows, more than the limit of " + std::to_string(max_generated_flows) +
                                  " (shorten sim.duration or lower traffic.load)");
    return;
  }
  if (!s.cdf && s.flow_size_bytes == 0)
    bad("traffic.flow_size", "must be > 0 when no traffic.cdf is given");
  if (s.pattern == traffic_pattern::incast) {
    if (s.incast_receiver >= s.hosts)
      bad("traffic.incast.receiver", "host " + std::to_string(s.incast_receiver) +
                                         " does not exist (hosts are 0.." + std::to_string(s.hosts - 1) + ")");
    if (s.incast_senders == 0) bad("traffic.incast.senders", "must be at least 1");
    if (s.incast_senders >= s.hosts)
      bad("traffic.incast.senders", "is " + std::to_string(s.incast_senders) + " but only " +
                                        std::to_string(s.hosts - 1) + " hosts besides the receiver exist");
  }
  if (s.pattern == traffic_pattern::all_to_all &&
      uint64_t(s.hosts) * (s.hosts - 1) > max_generated_flows)
    bad("hosts", "all_to_all over " + std::to_string(s.hosts) + " hosts is " +
                     std::to_string(uint64_t(s.hosts) * (s.hosts - 1)) + " flows, more than the limit of " +
                     std::to_string(max_generated_flows));
}

uint64_t next_size(const traffic_spec& s, rng& r) { return s.cdf ? s.cdf->sample(r) : s.flow_size_bytes; }

// Uniform random permutation of v (Fisher-Yates with the project rng).
void shuffle(std::vector<uint32_t>& v, rng& r) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[r.below(i)]);
}

void poisson(const traffic_spec& s, rng& r, std::vector<flow_spec>& out) {
  const double flows_per_s = s.load * s.host_rate_bps / (8.0 * s.cdf->mean_bytes());
  const double mean_gap_ps = 1e12 / flows_per_s;
  const double end_ps = double(s.start_ps) + double(s.duration_ps);
  for (uint32_t src = 0; src < s.hosts; ++src) {
    // Accumulate in double and truncate each arrival, so rounding never drifts the rate.
    double t = double(s.start_ps);
    for (;;) {
      t += r.exponential(mean_gap_ps);
      if (t >= end_ps) break;
      uint32_t dst;
      if (!s.dsts.empty()) {   // a range by weight, then a host in it
        const auto& ranges = s.dsts[s.tor_of[src]];
        double x = r.uniform() * ranges.back().weight;   // weights are cumulative
        const auto it = std::upper_bound(ranges.begin(), ranges.end(), x,
                                         [](double v, const traffic_spec::dst_range& d) { return v < d.weight; });
        const traffic_spec::dst_range& d = it == ranges.end() ? ranges.back() : *it;
        dst = d.first + uint32_t(r.below(d.end - d.first));
      } else if (s.remote_only) {   // uniform over the hosts outside src's ToR range [lo, hi)
        const uint32_t lo = s.tor_first[src], hi = s.tor_end[src];
        dst = uint32_t(r.below(s.hosts - (hi - lo)));
        if (dst >= lo) dst += hi - lo;
      } else {
        dst = uint32_t(r.below(s.hosts - 1));
        if (dst >= src) ++dst;   // uniform over the hosts other than src
      }
      out.push_back({0, src, dst, s.cdf->sample(r), uint64_t(t)});
    }
  }
}

void incast(const traffic_spec& s, rng& r, std::vector<flow_spec>& out) {
  std::vector<uint32_t> candidates;
  for (uint32_t h = 0; h < s.hosts; ++h)
    if (h != s.incast_receiver) candidates.push_back(h);
  // Partial Fisher-Yates: the first N entries are a uniform N-subset.
  for (uint32_t i = 0; i < s.incast_senders; ++i)
    std::swap(candidates[i], candidates[i + r.below(candidates.size() - i)]);
  candidates.resize(s.incast_senders);
  std::sort(candidates.begin(), candidates.end());
  for (uint32_t src : candidates) {
    const uint64_t size = next_size(s, r);
    // A random phase per sender (paced sources, HPCC thesis Sec. 2.4); no draw without a spread.
    const uint64_t start = s.start_ps + (s.start_spread_ps ? r.below(s.start_spread_ps) : 0);
    out.push_back({0, src, s.incast_receiver, size, start});
  }
}

void permutation(const traffic_spec& s, rng& r, std::vector<flow_spec>& out) {
  // Rejection sampling gives a uniform derangement; about e (2.72) tries on average.
  std::vector<uint32_t> dst(s.hosts);
  for (;;) {
    std::iota(dst.begin(), dst.end(), 0u);
    shuffle(dst, r);
    bool fixed_point = false;
    for (uint32_t h = 0; h < s.hosts && !fixed_point; ++h) fixed_point = dst[h] == h;
    if (!fixed_point) break;
  }
  for (uint32_t src = 0; src < s.hosts; ++src) out.push_back({0, src, dst[src], next_size(s, r), s.start_ps});
}

void all_to_all(const traffic_spec& s, rng& r, std::vector<flow_spec>& out) {
  for (uint32_t src = 0; src < s.hosts; ++src)
    for (uint32_t dst = 0; dst < s.hosts; ++dst)
      if (dst != src) out.push_back({0, src, dst, next_size(s, r), s.start_ps});
}

}  // namespace

std::string to_string(traffic_pattern p) {
  switch (p) {
    case traffic_pattern::poisson: return "poisson";
    case traffic_pattern::incast: return "incast";
    case traffic_pattern::permutation: return "permutation";
    case traffic_pattern::all_to_all: return "all_to_all";
    case traffic_pattern::list: return "list";
  }
  return "?";
}

traffic_pattern parse_traffic_pattern(const std::string& s) {
  for (auto p : {traffic_pattern::poisson, traffic_pattern::incast, traffic_pattern::permutation,
                 traffic_pattern::all_to_all, traffic_pattern::list})
    if (to_string(p) == s) return p;
  throw config_error("traffic.pattern: unknown pattern '" + s +
                     "' (choices: poisson, incast, permutation, all_to_all, list)");
}

std::vector<flow_spec> parse_flow_list(const std::vector<std::string>& items, uint32_t hosts) {
  std::vector<flow_spec> out;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string& item = items[i];
    auto fail = [&](const std::string& why) {
      bad("traffic.flows", "item " + std::to_string(i + 1) + " \"" + item + "\": " + why +
                               " (expected \"SRC->DST BYTES@START_US\" or \"SRC->DST BYTES@START_US+EVERY_USxCOUNT\")");
    };
    // Strict: every number is digits only (no sign), and a value too large for its field is an
    // error, not a wrap or a clamp.
    static const std::regex form(R"(\s*(\S+?)\s*->\s*(\S+)\s+(\S+?)\s*@\s*([^+\s]+)\s*(?:\+\s*(\S+?)\s*x\s*(\S+))?\s*)");
    std::smatch m;
    if (!std::regex_match(item, m, form)) fail("cannot read it");
    auto whole = [&](int g, const char* what, uint64_t max) {
      const std::string t = m[g].str();
      uint64_t v = 0;
      const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
      if (r.ec != std::errc() || r.ptr != t.data() + t.size() || v > max)
        fail(fmt::format("{} '{}' must be a whole number from 0 to {}", what, t, max));
      return v;
    };
    auto real = [&](int g, const char* what) {
      const std::string t = m[g].str();
      double v = 0;
      const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
      if (r.ec != std::errc() || r.ptr != t.data() + t.size() || !std::isfinite(v) || v < 0)
        fail(fmt::format("{} '{}' must be a number of us, 0 or more", what, t));
      return v;
    };
    const uint64_t src = whole(1, "source host", UINT32_MAX), dst = whole(2, "destination host", UINT32_MAX);
    const uint64_t bytes = whole(3, "size", max_flow_bytes);
    const double start_us = real(4, "start");
    double every_us = 0;
    uint64_t count = 1;
    if (m[5].matched) {
      every_us = real(5, "repetition interval");
      count = whole(6, "repetition count", max_generated_flows);
      if (!(every_us > 0) || count == 0) fail("the repetition needs EVERY_US > 0 and COUNT >= 1");
    }
    if (src >= hosts || dst >= hosts)
      fail("host " + std::to_string(std::max(src, dst)) + " does not exist (hosts are 0.." + std::to_string(hosts - 1) + ")");
    if (src == dst) fail("a flow needs two different hosts");
    if (bytes == 0) fail("a flow needs at least one byte");
    if (!(start_us >= 0) || !std::isfinite(start_us) || start_us + every_us * double(count) > 1e9) fail("start time out of range (0 to 1e9 us)");
    if (out.size() + count > max_generated_flows) fail("too many flows");
    for (uint64_t k = 0; k < count; ++k)
      out.push_back({0, uint32_t(src), uint32_t(dst), bytes, uint64_t(std::llround((start_us + double(k) * every_us) * 1e6))});
  }
  return out;
}

std::vector<flow_spec> generate_flows(const traffic_spec& spec, rng& r) {
  validate(spec);
  std::vector<flow_spec> flows;
  switch (spec.pattern) {
    case traffic_pattern::poisson: poisson(spec, r, flows); break;
    case traffic_pattern::incast: incast(spec, r, flows); break;
    case traffic_pattern::permutation: permutation(spec, r, flows); break;
    case traffic_pattern::all_to_all: all_to_all(spec, r, flows); break;
    case traffic_pattern::list: break;
  }
  flows.insert(flows.end(), spec.listed.begin(), spec.listed.end());
  // Stable: equal start times keep generation order, so the ids depend on the seed alone.
  std::stable_sort(flows.begin(), flows.end(),
                   [](const flow_spec& a, const flow_spec& b) { return a.start_ps < b.start_ps; });
  for (size_t i = 0; i < flows.size(); ++i) flows[i].id = uint32_t(i);
  return flows;
}

}  // namespace netasic
