// A scenario file: TOML text through the whole reader, as `netasic run` reads it before it
// builds anything (keys, types, ranges, cross-key checks, topology, the memory estimate).
#include <cstdio>
#include <fstream>

#include "fuzz_target.h"
#include "scenario/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The reader takes a path.
  static const netasic::fuzz::scratch_file file("scenario", ".toml");
  const std::string& path = file.path;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << netasic::fuzz::text(data, size);
  // A memory limit of its own, so a valid but huge fabric is refused rather than built.
  return netasic::fuzz::expect_read_or_refused([&] {
    const netasic::config c = netasic::load_scenario(path, {"sim.max_memory=256"});
    netasic::make_fabric_config(c);
  });
}
