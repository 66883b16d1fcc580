// DETER in a run (docs/datasheets/deter.md): before elaboration, a replay's record is loaded,
// checked against this configuration and turned into each host's frames; after the run, a record
// run writes deter.rec and deter_queues.bin, and a replay compares its queues and drops with the
// record run's, packet by packet (thesis ch. 6 §6.5.4: qdiff in MTU, drop error).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/params.h"
#include "fabric/fabric.h"
#include "run/run.h"
#include "tlm/deter_queue_log.h"

namespace netasic {

// The settings a replay must share with its record: topology, switch, buffer (tm, pfc, ecn),
// load balancing, the NIC's frame size and receive timing, and the seed.
std::vector<std::pair<std::string, std::string>> deter_settings(const config& c);

// deter.mode = "replay": loads deter.record (config_error naming the file and what is wrong, or
// the first setting that differs, by its key), fills `traces` and points f.replay at them, and
// sets f.arrivals_end_ps to the last frame's time. Otherwise does nothing.
void deter_prepare(const config& c, fabric_config& f, std::vector<packet_trace>& traces);

// deter.mode = "record", on the fabric as built: config_error if two flows' frames would share a
// 5-tuple, which DETER keys a connection by (ports a trace gives can; the model's never do).
void deter_check_connections(const config& c, const fabric& fab);

// A replay runs this long after its last frame (every frame is through by then), not sim.drain.
constexpr uint64_t deter_replay_drain_ps = 10'000'000'000;   // 10 ms

// After the run: the record and the queue log (record), or the comparison (replay), into
// r.summary["deter"] and r.files.
void deter_finish(const config& c, fabric& fab, run_result& r, uint64_t sim_end_ps);

// The comparison of two queue logs, packet by packet at each switch. `mtu_bytes` is the unit.
struct deter_comparison {
  struct port_diff {
    unsigned sw = 0, port = 0;
    uint64_t hops = 0;
    double avg_mtu = 0, p99_mtu = 0, max_mtu = 0;
  };
  std::vector<port_diff> ports;
  uint64_t matched = 0, run_only = 0, replay_only = 0;
  double avg_mtu = 0, p99_mtu = 0, max_mtu = 0;
  uint64_t run_drops = 0, replay_drops = 0, false_accepts = 0, false_drops = 0, wrong_location = 0;
  double drop_error() const;   // (false accepts + false drops + wrong location) / drops in either
};
deter_comparison deter_compare(const deter_queue_log& run, const deter_queue_log& replay, uint64_t mtu_bytes);

}  // namespace netasic
