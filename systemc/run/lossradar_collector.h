// LossRadar in a run (thesis ch. 5; docs/datasheets/lossradar.md): the meters, their collector
// and the loss analyzer, scored against the simulator's drop log.
//
// Meters (§5.4.1): every link direction is a segment, with an upstream meter where its frames
// are decided on (a switch's output port at the end of ingress, before the shared buffer, or a
// host NIC as the frame goes onto the wire) and a downstream meter where they arrive (the far
// switch's input port at the end of its ingress, or the host NIC). A segment thus spans the
// upstream switch's buffer and egress, the link and the downstream switch's ingress tables.
// Each meter keeps two digests, one per live batch (§5.3.4): the upstream meter writes its batch
// ID and timestamp into the packet, the downstream meter files the packet by that ID.
//
// Collector: T + timeout after a batch ends it reads both meters of every segment, exports the
// difference where they disagree, and clears them. At the end of the run it peels every export,
// lists the lost packets, runs the analyzer (Algorithms 10 and 11) per segment and scores both
// against the drop log packet by packet.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "blocks/lossradar.h"
#include "blocks/lossradar_analyzer.h"
#include "output/report_telemetry.h"
#include "tlm/drop_log.h"
#include "tlm/event_queue.h"

namespace netasic {

class fabric;

struct lossradar_listing {
  unsigned segment = 0;
  analyzed_loss loss;
  int truth = -1;             // index of the drop-log record it is, -1: none (still in flight at the end)
};

class lossradar_collector : private lossradar_switch_hook, private timed_client {
 public:
  // Attaches the meters to every switch and host link of `fab` and starts its drop log.
  explicit lossradar_collector(fabric& fab);
  ~lossradar_collector() override;
  // After the run: collects the batches still live, peels, analyses and scores.
  void finish();
  nlohmann::json summary() const;     // summary.json's "lossradar"
  std::string losses_csv() const;     // lossradar.csv: every listed loss
  std::string drops_csv() const;      // lossradar_drops.csv: the drop log, and whether each was listed
  void report(telemetry_result& t) const;   // report.html's losses per batch, listed and in the drop log
  const std::vector<lossradar_listing>& listings() const { return listed_; }
  const drop_log& log() const { return log_; }

 private:
  struct meter {
    std::vector<lossradar_meter_digest> d;   // by batch parity: the two live batches
  };
  struct segment {
    std::string name;                 // "leaf0:p2>spine1:p0"
    uint64_t seed = 0;                // its digests' hash functions (both ends alike)
    bool to_switch = false;           // leads into a switch, which decrements TTL
    meter up, down;
    // Blackbox mode: past a switch without meters, this segment's downstream meter keeps one
    // digest per upstream meter its packets come from (`through`, by that meter's segment), and
    // an upstream meter knows the downstream meters that keep one for it (`fed`).
    std::map<unsigned, meter> through;
    std::vector<unsigned> fed;
  };
  struct host_hook;
  struct exported {
    uint64_t batch;
    unsigned seg;
    lossradar_digest diff;            // upstream minus downstream
  };

  void ingress_end(unsigned sw, unsigned in_port, unsigned out_port, packet& p, uint64_t now) override;
  void wake(uint64_t now) override;
  void upstream(unsigned seg, packet& p, uint64_t now);
  void downstream(unsigned seg, packet& p, uint64_t now);
  void collect(uint64_t batch);
  void decode();
  void score();
  int truth_segment(const drop_record& r) const;
  // Whether upstream meter u's listings cover segment s: s itself, or (blackbox mode) a segment
  // leaving the switches without meters that u's segment leads into.
  bool covers(unsigned u, unsigned s) const;
  meter new_meter(uint64_t seed) const;
  nlohmann::json fault_scores() const;

  fabric& fab_;
  lossradar_config cfg_;
  drop_log log_;
  std::vector<segment> seg_;                          // link * 2 + direction (0: a to b)
  std::vector<std::vector<unsigned>> out_seg_, in_seg_;   // [switch][port]
  std::vector<int> region_;                           // by node: its blackbox region (connected switches without meters), -1: none
  std::vector<std::unique_ptr<host_hook>> host_hooks_;
  bool pending_ = false;
  uint64_t pending_batch_ = 0, highest_batch_ = 0, collected_through_ = 0;
  bool any_collected_ = false;
  std::vector<exported> exports_;
  std::vector<lossradar_listing> listed_;
  std::vector<int> listed_by_record_;                 // per drop-log record: its listing, -1: none
  uint64_t batches_ = 0, failed_digests_ = 0, undecoded_ = 0, late_ = 0;
};

}  // namespace netasic
