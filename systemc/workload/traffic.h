// Flow arrivals: which host sends how many bytes to which host, and when. Generated up front
// from the run's seed, so a run's flow list is fixed before any packet moves.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/rng.h"
#include "workload/cdf.h"

namespace netasic {

struct flow_spec {
  uint32_t id, src, dst;     // hosts are 0..hosts-1
  uint64_t size_bytes;       // payload
  uint64_t start_ps;
  uint16_t src_port = 0;     // UDP source port (ECMP entropy); 0: the fabric derives one from the id
};

enum class traffic_pattern {
  poisson,       // every host: Poisson arrivals, CDF sizes, uniform destination among the others
  incast,        // N distinct random senders -> one receiver, all at start_ps
  permutation,   // random derangement: every host sends to exactly one other host, at start_ps
  all_to_all,    // every ordered pair of distinct hosts, at start_ps
  list,          // only the flows of traffic.flows
};

// "poisson", "incast", "permutation", "all_to_all", "list"; parse throws config_error naming
// traffic.pattern.
std::string to_string(traffic_pattern p);
traffic_pattern parse_traffic_pattern(const std::string& s);

struct traffic_spec {
  traffic_pattern pattern = traffic_pattern::poisson;
  uint32_t hosts = 0;
  double host_rate_bps = 0;               // host link rate, bits/s
  double load = 0.5;                      // poisson: offered payload / host link rate, (0, 1]
  std::optional<flow_size_cdf> cdf;       // poisson: required; others: sizes drawn from it if set
  uint64_t flow_size_bytes = 0;           // incast/permutation/all_to_all when no cdf
  uint64_t duration_ps = 0;               // poisson: arrivals in [start_ps, start_ps + duration_ps)
  uint32_t incast_senders = 16;
  uint32_t incast_receiver = 0;
  uint64_t start_ps = 0;
  uint64_t start_spread_ps = 0;           // incast: each start uniform in [start_ps, start_ps + spread)
  std::vector<flow_spec> listed;          // traffic.flows, added to any pattern
  // poisson: destinations only under another top-of-rack switch. tor_first[h] is the first host
  // under host h's ToR, tor_end[h] one past its last (a ToR's hosts are numbered contiguously).
  bool remote_only = false;
  std::vector<uint32_t> tor_first, tor_end;
  // poisson with traffic.matrix: a ToR-to-ToR traffic matrix spread over the hosts. Host h's
  // flows go to the host ranges dsts[tor_of[h]] (each [first, end), picked by weight, then a
  // host uniformly in it). Empty: uniform over all other hosts (or remote_only).
  struct dst_range {
    uint32_t first = 0, end = 0;
    double weight = 0;              // cumulative over the ToR's ranges, in order
  };
  std::vector<uint32_t> tor_of;
  std::vector<std::vector<dst_range>> dsts;
};

// traffic.flows: each item "SRC->DST BYTES@START_US", optionally repeated as
// "SRC->DST BYTES@START_US+EVERY_USxCOUNT" (COUNT flows, EVERY_US apart). Throws config_error
// naming traffic.flows, the item and what is wrong.
std::vector<flow_spec> parse_flow_list(const std::vector<std::string>& items, uint32_t hosts);

// Largest flow a list or traffic.flow_size may give: 1 TB (a flow's packet count must also fit
// the NIC's 32-bit sequence space at the run's MTU; the scenario checks that).
constexpr uint64_t max_flow_bytes = 1'000'000'000'000;

// Upper bound on one generated list (32 bytes a flow), so a mistyped duration or host count
// fails with a message instead of exhausting memory.
constexpr uint64_t max_generated_flows = 50'000'000;

// Validates the spec (config_error naming the parameter, e.g. traffic.load), then generates.
// Result: sorted by start_ps (ties in generation order), ids 0..n-1 in that order.
// Poisson rate per host: load * host_rate_bps / (8 * cdf.mean_bytes()) flows/s.
std::vector<flow_spec> generate_flows(const traffic_spec& spec, rng& r);

}  // namespace netasic
