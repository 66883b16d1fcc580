// traffic.flows items, one per line ("SRC->DST BYTES@START_US[+EVERY_USxCOUNT]"), on 16 hosts.
#include "fuzz_target.h"
#include "workload/traffic.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return netasic::fuzz::expect_read_or_refused(
      [&] { netasic::parse_flow_list(netasic::fuzz::lines(netasic::fuzz::text(data, size)), 16); });
}
