// What `netasic run --vcd PATTERNS` can trace, by name, and the hooks that trace it.
//
// Event signals (each change at the time it happens, docs/outputs.md):
//   SW.portP.queue_bytes      bytes in the port's egress queues (all priorities)
//   SW.portP.ecn_marks        frames marked CE on the port so far
//   DEV.portP.pfc_pause.pC    1 while the link partner has priority C paused
//   DEV.portP.tx_busy         1 while a frame (preamble to FCS) leaves on the port's wire
//   DEV.portP.tx_frames       frames put on that wire so far: the port's packet-event marker
//   SW.flowlet_table.entries, SW.balance_sketch.entries, SW.flowcut_table.entries
//   fabric.pfc_deadlock       1 from the time the PFC deadlock detector finds a deadlock
// DEV is a switch or a host (hosts have port0). The sampled probes (probes.csv) can be traced
// too, at their samples, by their VCD path (vcd_signal_path: "leaf0.port3.qdepth_bytes").
#pragma once
#include <string>
#include <vector>

#include "common/wave_trace.h"
#include "fabric/fabric.h"

namespace netasic {

enum class wave_kind : uint8_t { queue_bytes, ecn_marks, pfc_pause, tx_busy, tx_frames, flowlet, sketch, flowcut, pfc_deadlock };

struct wave_point {
  std::string name;
  wave_kind kind;
  bool is_switch;
  unsigned device;   // switch or host index
  unsigned port;
  unsigned prio;     // pfc_pause
};

// Every event signal of a run of this configuration: per switch, then per host.
std::vector<wave_point> wave_points(const fabric_config& cfg);
// The VCD paths the sampled probes of this configuration will have; `clock_algorithms` names the
// clock layer's algorithms (empty: none).
std::vector<std::string> sampled_probe_paths(const fabric_config& cfg, const std::vector<std::string>& clock_algorithms);
// The patterns (comma-separated globs) a --vcd without patterns uses: the first switch's queues,
// PFC pause levels, ECN marks and table occupancy, and the deadlock detector's level.
std::string default_wave_patterns(const fabric_config& cfg);
// Declares the points with `selected[i]` in `w` and hooks them into the fabric's models.
void attach_waves(fabric& fab, wave_trace& w, const std::vector<wave_point>& points, const std::vector<bool>& selected);

}  // namespace netasic
