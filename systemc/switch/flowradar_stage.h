// FlowRadar in the switch (docs/datasheets/flowradar.md): the encoded flowset (blocks/flowradar.*)
// updated by every data packet at ingress, two banks swapped at each epoch boundary; the bank
// that ends an epoch is handed over for export with the simulator's ground truth beside it.
#pragma once
#include <cstdint>
#include <map>
#include <vector>

#include "blocks/flowradar.h"
#include "protocol/packet.h"
#include "tlm/link.h"

namespace netasic {

struct flowradar_stage_config {   // telemetry.flowradar*
  bool on = false;
  flowradar_params params;        // params.seed: the run's; each switch mixes in its id
  uint64_t epoch_ps = 10'000'000'000ull;   // 10 ms, the paper's time slot (§4.3)
  bool routing = true;            // the collector's FlowDecode knows each flow's path
  int collector = -1;             // telemetry.flowradar_collector: the host the banks go to as frames; -1 none
  bool hosts = false;             // telemetry.flowradar_hosts: every host NIC keeps a flowset too
  bool per_port = false;          // telemetry.flowradar_per_port: a flowset per ingress port, not per switch
};

// The id a per-port flowset mixes into its hashes: apart from every switch's and host's.
inline unsigned flowradar_port_table_id(unsigned switch_id, unsigned port) { return 0x40000000u + switch_id * 4096u + port; }

// Not hardware: what the simulator knows of one flow at one switch in one epoch.
struct flowradar_truth {
  uint64_t packets = 0;
  unsigned hop = 0;               // the place on its path of the flow's first packet here: 0 the source NIC, 1 the first switch
};

struct flowradar_epoch {
  uint64_t epoch = 0;             // [epoch * epoch_ps, (epoch + 1) * epoch_ps)
  flowradar_table table;
  std::map<flowradar_flow, flowradar_truth> truth;
};

class flowradar_stage {
 public:
  flowradar_stage(const flowradar_stage_config& cfg, unsigned switch_id);
  // Ends the epoch that is over at now (its bank goes to the control plane).
  void advance(uint64_t now);
  // A data packet at ingress (first pass), at time now, `hop` places into its path (as
  // flowradar_truth::hop): advance(now), then the update.
  void on_packet(const packet& p, uint64_t now, unsigned hop);
  // One bank's export, frame by frame (bytes on the wire).
  const std::vector<uint32_t>& export_frames() const { return frames_; }
  // End of run: the live epoch is handed over too.
  void finish();
  const std::vector<flowradar_epoch>& exported() const { return out_; }
  const flowradar_params& params() const { return params_; }

 private:
  void end_epoch();

  flowradar_params params_;
  uint64_t epoch_ps_;
  flowradar banks_;
  uint64_t epoch_ = 0;
  bool dirty_ = false;            // the live bank has seen a packet
  std::map<flowradar_flow, flowradar_truth> truth_;
  std::vector<flowradar_epoch> out_;   // epochs with traffic; an idle one exports an empty bank
  std::vector<uint32_t> frames_;
};

// FlowRadar at a host NIC (telemetry.flowradar_hosts; the thesis counts "upstream and downstream
// switches (or hosts)", §4.6.2): the NIC's flowset counts the data packets it puts on its link
// (hop 0) and those delivered to it (after every switch). One meter per link direction.
class flowradar_host_meter : public link_meter {
 public:
  flowradar_host_meter(flowradar_stage& stage, bool from_host) : stage_(stage), from_host_(from_host) {}
  void sent(packet& p, uint64_t now) override {
    if (from_host_ && p.kind == pkt_kind::data) stage_.on_packet(p, now, 0);
  }
  void arrived(packet& p, uint64_t now) override {
    if (!from_host_ && p.kind == pkt_kind::data) stage_.on_packet(p, now, p.hops + 1u);
  }

 private:
  flowradar_stage& stage_;
  bool from_host_;
};

}  // namespace netasic
