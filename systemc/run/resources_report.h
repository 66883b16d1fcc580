// `netasic resources`: each switch's program (sizing/switch_program.h) placed on the scenario's
// target (sizing/target.h, switch.target and switch.stage.*), as text, for every switch of a
// scenario's fabric; and the same placement as a struct for `netasic size`.
#pragma once
#include <string>
#include <vector>

#include "common/params.h"
#include "sizing/resources.h"

namespace netasic {

// What one block (a feature of the program) takes on the pipeline.
struct block_usage {
  std::string feature;
  uint64_t sram_blocks = 0, tcam_blocks = 0, stateful_alus = 0, hash_bits = 0, action_slots = 0;
  unsigned phv_bits = 0;
  double recirc_gbps = 0;
  uint64_t buffer_bytes = 0;        // held in the traffic manager's buffer, not placed
  bool placed = true;               // every item of the block found its stages
};

// The placement of a scenario's switches, for a caller that decides on it (`netasic size`).
struct placement_result {
  bool fits = false;                // every switch of the fabric fits
  std::string target;               // the target's name (switch.target)
  std::string switches;             // the group reported below: "N switches with P ports: names"
  std::string binding_resource;     // the first shortfall's resource; "" when it fits
  int stage = -1;                   // its stage; -1 when it fits or pipeline-wide
  std::string binding_item, advice; // the item that does not fit, and what to shrink
  std::vector<block_usage> blocks;  // per block, of the first group that does not fit (else the largest)
  std::vector<shortfall> shortfalls;   // of that group
};

// Throws config_error like run_scenario.
placement_result place_scenario(const config& cfg);

// Switches grouped by the program they run, each group's allocation per stage
// (format_allocation) and its buffer use. `fits` says whether every switch fits.
std::string resources_report(const config& cfg, bool& fits);

}  // namespace netasic
