// FlowRadar's analyses at the collector (docs/datasheets/flowradar.md, "Loss map and black
// holes"): the decoded epochs of every switch turned into the per-flow loss map and the
// black-hole candidates (blocks/flowradar_loss_map.*, thesis §4.6), scored against the
// simulator's drop log (tlm/drop_log.h): flowradar_loss.csv and the summary's loss_map_* and
// black_hole_* fields.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "blocks/flowradar_decode.h"
#include "fabric/fabric.h"
#include "run/run.h"
#include "switch/flowradar_stage.h"
#include "tlm/drop_log.h"

namespace netasic {

// The places that keep a FlowRadar flowset, "sites": the switches (site = switch index) and, with
// telemetry.flowradar_hosts, the hosts after them (site = switch count + host index).
struct flowradar_sites {
  const topology& t;
  std::vector<int> site_of;                    // node -> its site, -1: keeps no flowset
  std::vector<std::vector<unsigned>> adj;      // site -> the sites it has working links to
  flowradar_sites(const topology& topo, bool hosts);
  size_t size() const { return adj.size(); }
  std::string name(int site) const;            // "-" for -1
  // The site that counts a host's flows first (as their source) and last (as their destination):
  // the host when it keeps a flowset, else its edge switch; -1: not a host of this fabric.
  int end_of(uint32_t ip) const;
};

// One epoch as the collector decoded it, per site: whether a flowset of the site exported it (an
// idle one saw nothing), what NetDecode found in its flowsets (one, or one per port with
// telemetry.flowradar_per_port: their flows merged, counts summed, counted only where every
// flowset holding the flow counted it; complete when each of them is), and the flowsets NetDecode
// left incomplete (a flow in their filters may be there undecoded).
struct flowradar_decoded_epoch {
  std::vector<uint8_t> active;
  std::vector<flowradar_net_switch> sw;
  std::vector<std::vector<const flowradar_table*>> incomplete;
};

// Builds the loss map over every epoch and scores it: appends flowradar_loss.csv to r.files and
// its fields to r.summary["flowradar"].
void flowradar_loss_report(const fabric& fab, const std::map<uint64_t, flowradar_decoded_epoch>& epochs,
                           const drop_log& drops, run_result& r);

}  // namespace netasic
