// FlowRadar's analyses at the collector (docs/datasheets/flowradar.md, "Loss map and black
// holes"): the decoded epochs of every switch turned into the per-flow loss map and the
// black-hole candidates (blocks/flowradar_loss_map.*, thesis §4.6), scored against the
// simulator's drop log (tlm/drop_log.h): flowradar_loss.csv and the summary's loss_map_* and
// black_hole_* fields.
#pragma once
#include <cstdint>
#include <map>
#include <vector>

#include "blocks/flowradar_decode.h"
#include "fabric/fabric.h"
#include "run/run.h"
#include "switch/flowradar_stage.h"
#include "tlm/drop_log.h"

namespace netasic {

// One epoch as the collector exported and decoded it: per switch, its bank (null: idle, it saw
// nothing) and what NetDecode made of it.
struct flowradar_decoded_epoch {
  std::vector<const flowradar_epoch*> at;
  std::vector<flowradar_net_switch> sw;
};

// Builds the loss map over every epoch and scores it: appends flowradar_loss.csv to r.files and
// its fields to r.summary["flowradar"].
void flowradar_loss_report(const fabric& fab, const std::map<uint64_t, flowradar_decoded_epoch>& epochs,
                           const drop_log& drops, run_result& r);

}  // namespace netasic
