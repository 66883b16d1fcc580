// A traffic trace (traffic.trace): the first byte picks the format (pcap, flow list, packet
// list), the rest is the file. Read both ways a run reads it: as flows, and as packets.
#include <fstream>

#include "fuzz_target.h"
#include "workload/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The reader takes a path (libpcap opens it).
  static const netasic::fuzz::scratch_file file("trace");
  const std::string& path = file.path;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << netasic::fuzz::text(data + 1, size - 1);
  netasic::trace_source s;
  s.path = path;
  s.format = netasic::trace_format(data[0] % 3);
  s.hosts = 16;
  s.int_padding = data[0] & 4;
  uint64_t skipped = 0;
  netasic::fuzz::expect_read_or_refused([&] { netasic::read_trace_flows(s, skipped); });
  return netasic::fuzz::expect_read_or_refused([&] { netasic::read_packet_trace(s, skipped); });
}
