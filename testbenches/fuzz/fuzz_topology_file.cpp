// A topology file (topology.kind = "file"): the whole text through the parser, as a scenario's
// topology.file is read before anything is built (names, ports, links, rates, connectivity).
#include "fuzz_target.h"
#include "topology/topology_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  netasic::topology_file_defaults d;
  d.host_rate_bps = 100'000'000'000ull, d.uplink_rate_bps = 400'000'000'000ull, d.delay_ps = 1'000'000;
  return netasic::fuzz::expect_read_or_refused(
      [&] { netasic::parse_topology_text(netasic::fuzz::text(data, size), "fuzz.topo", d); });
}
