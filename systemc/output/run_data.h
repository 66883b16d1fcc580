// What a run hands to the output writers: one record per flow and the sampled probe series.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/stats.h"
#include "common/text.h"

namespace netasic {

struct flow_record {
  uint32_t id = 0;
  uint32_t src = 0, dst = 0;       // host indices
  uint64_t size_bytes = 0;         // payload bytes
  double start_s = 0;              // when the flow was started at its source
  double fct_s = -1;               // completion time (last byte acknowledged at the source); -1 = not completed
  double ideal_fct_s = 0;          // same flow alone on an idle fabric
  double slowdown() const { return fct_s < 0 ? -1 : fct_s / ideal_fct_s; }
  uint32_t retransmitted_packets = 0;
  uint32_t path_changes = 0;           // data packets that took another path than the flow's previous one
  uint32_t out_of_order_packets = 0;   // data packets that arrived ahead of the next expected one
  uint32_t max_reorder_packets = 0;    // how far ahead the farthest of them was
  // The paths its data took, as "sw>sw>sw" (switch names; a path of more than packet::path_max
  // switches ends in ">..."), with the payload bytes received on each, in order of first use.
  std::vector<std::pair<std::string, uint64_t>> path_bytes;
  std::string path;                    // the path of the last data packet received; "" = none
};

// The flows the slowdown statistics count, in summary.json and report.html alike: completed,
// with an ideal FCT to divide by.
inline std::vector<sized_slowdown> completed_slowdowns(const std::vector<flow_record>& flows) {
  std::vector<sized_slowdown> out;
  for (const flow_record& f : flows)
    if (f.fct_s >= 0 && f.ideal_fct_s > 0) out.push_back({f.size_bytes, f.slowdown()});
  return out;
}

// One direction of a link from a switch port: what it carried over the run.
struct link_record {
  std::string from, to;     // "leaf0.port16", "spine0"
  uint64_t rate_bps = 0;
  uint64_t bytes = 0;       // frame bytes sent
  double utilization = 0;   // bytes over what the rate carries in the simulated time
};

// One probe sampled every interval: queue depth of a port, occupancy of a buffer, ...
struct probe_series {
  shared_text device;   // scope in the VCD and group in GTKWave, e.g. "leaf0"
  std::string name;     // e.g. "port3.qdepth"
  shared_text unit;     // e.g. "bytes"
  std::vector<int64_t> samples;   // one per probe_set::t_s entry
};

struct probe_set {
  double interval_s = 0;
  std::vector<double> t_s;          // sample times
  std::vector<probe_series> series;
};

}  // namespace netasic
