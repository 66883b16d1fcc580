// One clock.faults item ("KIND TARGET @ TIME_US"), as the clock layer reads it.
#include "clock/clock_faults.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return netasic::fuzz::expect_read_or_refused([&] { netasic::parse_clock_fault(netasic::fuzz::text(data, size)); });
}
