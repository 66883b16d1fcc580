// The PFC deadlock detector's model: at a coarse interval (a quarter of the detection time, on the
// probe sampler's ticks, so it adds no event of its own) it reads every switch's paused lossless
// queues into the wait-for graph of switch/pfc_deadlock_detector.h and reports the first deadlock:
// each cycle as its queues, the links they feed and the time each one's PAUSE took effect.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/wave_trace.h"
#include "switch/pfc_deadlock_detector.h"
#include "switch/switch.h"
#include "topology/topology.h"

namespace netasic {

struct pfc_deadlock_hop {
  std::string queue;          // "tor0.port4 priority 3": the paused egress queue
  std::string link;           // "tor0->tor3 (tor0-tor3#0)": the link it feeds
  uint64_t paused_since_ps;   // when the PAUSE that stopped it took effect
};

struct pfc_deadlock_result {
  bool detected = false;
  uint64_t detected_ps = 0;
  std::vector<std::vector<pfc_deadlock_hop>> cycles;   // each in wait order
  uint64_t checks = 0;                                 // wait-for graphs built
};

class pfc_deadlock_monitor {
 public:
  pfc_deadlock_monitor(const topology& t, const std::vector<std::unique_ptr<switch_model>>& switches, uint8_t lossless,
                       uint64_t detect_ps);
  // At a probe sample: checks once a check is due; true the first time a deadlock is found.
  bool poll(uint64_t now);
  const pfc_deadlock_result& result() const { return result_; }
  // --vcd: a level that goes high at detection (null: not traced).
  wave_trace* wave = nullptr;
  uint32_t wave_id = 0;

 private:
  struct queue_ref { unsigned sw, port, prio; };
  std::vector<queue_ref> paused_queues(uint64_t now, std::vector<paused_queue>& graph) const;

  const topology& t_;
  const std::vector<std::unique_ptr<switch_model>>& sw_;
  uint8_t lossless_;
  pfc_deadlock_detector detector_;
  uint64_t interval_ps_, next_check_ps_;
  std::vector<int> sw_of_node_;   // node index -> switch index, -1 for a host
  pfc_deadlock_result result_;
};

}  // namespace netasic
