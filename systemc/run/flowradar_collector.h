// FlowRadar's collector (docs/datasheets/flowradar.md): after the run, every switch's exported
// banks, epoch by epoch, are decoded (SingleDecode, then NetDecode: FlowDecode across neighbours
// and CounterDecode, blocks/flowradar_decode.*) and scored against the simulator's ground truth
// (every flow's packets at every switch): flowradar.csv, one row per epoch and switch, and the
// summary's "flowradar" object.
#pragma once
#include <cstddef>
#include <cstdint>

#include "common/params.h"
#include "fabric/fabric.h"
#include "run/run.h"
#include "tlm/drop_log.h"

namespace netasic {

// Before simulating: FlowCount must hold the run's flows (a cell can then never wrap), and
// PacketCount the most packets a switch can take in one epoch (every port at line rate with
// minimum frames). A clear error naming the width key otherwise.
void flowradar_check_widths(const config& c, const fabric_config& f, size_t flows);

// After sc_start: decode, score, write flowradar.csv into r.files and r.summary["flowradar"]; then
// the loss map and black holes (run/flowradar_loss_report.*), scored against the run's drops.
void flowradar_finish(fabric& fab, run_result& r, const drop_log& drops);

}  // namespace netasic
