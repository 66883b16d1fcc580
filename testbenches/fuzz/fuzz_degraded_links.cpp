// topology.degraded_links entries ("A-B#i=GBPS", one per line) on a small leaf-spine: the link
// grammar every key that names links shares.
#include "fuzz_target.h"
#include "topology/topology.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const netasic::topology base = [] {
    netasic::leaf_spine_spec s;
    s.leaves = 2, s.spines = 2, s.hosts_per_leaf = 2, s.parallel_links = 2;
    s.host_rate_bps = 100'000'000'000ull, s.uplink_rate_bps = 100'000'000'000ull;
    return netasic::build_leaf_spine(s);
  }();
  netasic::topology t = base;
  return netasic::fuzz::expect_read_or_refused([&] {
    netasic::apply_degraded_links(t, netasic::fuzz::lines(netasic::fuzz::text(data, size)), "topology.degraded_links");
  });
}
