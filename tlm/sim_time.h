// Simulated time as the models read it: integer picoseconds (a run sets the kernel's
// resolution to 1 ps, so a time's value is its count of ps).
#pragma once
#include <cstdint>

#include <systemc>

namespace netasic {

inline uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }
inline sc_core::sc_time ps(uint64_t v) { return sc_core::sc_time::from_value(v); }

}  // namespace netasic
