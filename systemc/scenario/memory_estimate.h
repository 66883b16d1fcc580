// The memory a configuration needs, estimated from its keys before anything is built, so a
// fabric too large for the machine is refused with the estimate instead of dying of bad_alloc.
// The per-item costs were measured on this model (peak resident memory of runs of fat trees
// k = 4..24 and leaf-spines up to 128 x 64 x 8 links, sim.duration 1 us): see docs/performance.md.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/params.h"

namespace netasic {

struct memory_part {
  std::string what;      // "67108864 links x 1.3 KiB"
  double bytes = 0;
};

struct memory_estimate {
  double bytes = 0;                 // total, including the program's fixed part
  std::vector<memory_part> parts;   // largest first
  std::string drivers;              // the keys that set the largest part
};

// Per item, measured (see above).
constexpr double mem_fixed_bytes = 12.0 * 1048576;   // the program, SystemC, the kernel
constexpr double mem_link_bytes = 1.3 * 1024;        // a full-duplex link with its two switch/NIC ports
constexpr double mem_host_bytes = 2.8 * 1024;        // a NIC model (its register socket only with Sundial)
constexpr double mem_switch_bytes = 31.0 * 1024;     // a switch model without its ports
constexpr double mem_route_entry_bytes = 16;         // one (switch, destination prefix) route entry
constexpr double mem_host_route_bytes = 56;          // a host route: its hash-map node and window slot in the switch, its pair in the plan
constexpr double mem_lb_entry_bytes = 24;            // a flowlet-table entry or a BalanceSketch cell
constexpr double mem_rack_distances_bytes = 72;      // a rack's distance table for ideal FCTs: map node and vector
constexpr double mem_distance_bytes = 4;             // one switch's hop count in it

memory_estimate estimate_memory(const config& c);

// Throws config_error naming the estimate, its largest parts and the keys that drive it when it
// exceeds sim.max_memory (or, with sim.max_memory = 0, the memory the machine has available).
void check_memory(const config& c);

}  // namespace netasic
