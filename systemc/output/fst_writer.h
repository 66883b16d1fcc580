// `netasic run --fst`: the event-exact trace as FST, GTKWave's compressed format, for long runs.
// The writer is GTKWave's own fstapi, taken at build time from the copy Verilator installs
// (include/gtkwave); a build without it has no FST and says so.
#pragma once
#include <string>

#include "common/wave_trace.h"

namespace netasic {

// True when this build has the FST writer.
bool fst_available();
// Same scopes, variables, times (1 ps) and values as write_vcd(path, d). Throws
// std::runtime_error when the file cannot be written or this build has no FST writer.
void write_fst(const std::string& path, const wave_dump& d);

}  // namespace netasic
