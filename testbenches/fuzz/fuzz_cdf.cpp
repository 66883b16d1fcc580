// A flow-size CDF file (workloads/*.cdf grammar).
#include "fuzz_target.h"
#include "workload/cdf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return netasic::fuzz::expect_read_or_refused(
      [&] { netasic::flow_size_cdf::parse(netasic::fuzz::text(data, size), "fuzz.cdf"); });
}
