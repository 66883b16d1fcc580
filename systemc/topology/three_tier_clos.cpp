#include "topology/three_tier_clos.h"

#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace netasic {

topology build_three_tier_clos(const three_tier_clos_spec& s) {
  if (s.pods < 1 || s.tors_per_pod < 1 || s.aggs_per_pod < 1)
    throw std::invalid_argument("pods: a Clos needs at least one pod with a ToR and an aggregation switch");
  if (s.spines < s.aggs_per_pod || s.spines % s.aggs_per_pod)
    throw std::invalid_argument(fmt::format("spines: {} spines cannot form {} equal planes (one per aggregation switch "
                                            "of a pod); use a multiple of aggs_per_pod", s.spines, s.aggs_per_pod));
  const unsigned P = s.pods, T = s.tors_per_pod, A = s.aggs_per_pod, plane = s.spines / A;
  topology t;
  std::vector<unsigned> tor, agg, spine;
  // Node order as build_fat_tree's: ToRs, aggregation, spines, then hosts.
  for (unsigned i = 0; i < P * T; ++i) tor.push_back(t.add_node(node_kind::sw, fmt::format("tor{}", i), 1));
  for (unsigned i = 0; i < P * A; ++i) agg.push_back(t.add_node(node_kind::sw, fmt::format("agg{}", i), 2));
  for (unsigned i = 0; i < s.spines; ++i) spine.push_back(t.add_node(node_kind::sw, fmt::format("spine{}", i), 3));
  for (unsigned e = 0; e < P * T; ++e)
    for (unsigned h = 0; h < s.hosts_per_tor; ++h) {
      const unsigned host = t.add_node(node_kind::host, fmt::format("host{}", e * s.hosts_per_tor + h), 0);
      t.connect(host, tor[e], s.host_rate_bps, s.delay_ps, fmt::format("{}-tor{}", t.nodes[host].name, e));
    }
  for (unsigned pod = 0; pod < P; ++pod)
    for (unsigned i = 0; i < T; ++i)
      for (unsigned j = 0; j < A; ++j) {
        const unsigned e = pod * T + i, a = pod * A + j;
        t.connect(tor[e], agg[a], s.uplink_rate_bps, s.delay_ps, fmt::format("tor{}-agg{}#0", e, a));
      }
  for (unsigned pod = 0; pod < P; ++pod)
    for (unsigned j = 0; j < A; ++j)
      for (unsigned c = 0; c < plane; ++c) {
        const unsigned a = pod * A + j, sp = j * plane + c;
        t.connect(agg[a], spine[sp], s.uplink_rate_bps, s.delay_ps, fmt::format("agg{}-spine{}#0", a, sp));
      }
  return t;
}

}  // namespace netasic
