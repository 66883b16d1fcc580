// What the fabric sees of a host's NIC, whichever transport it runs: the RoCEv2 NIC
// (nic/host.*) or the TCP host (nic/tcp_host.*). The ports, the PFC pause state, the Sundial
// register block and the counters the summary reads live here; the transport is the subclass.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>

#include <systemc>
#include <tlm_utils/simple_target_socket.h>

#include "blocks/pfc_pause.h"
#include "clock/sundial_csr.h"
#include "common/ring_fifo.h"
#include "tlm/packet_port.h"
#include "tlm/run_stats.h"

namespace netasic {

struct flow_ctx;
class flowcut_table;

// What a NIC's flow scheduler saw over the run.
struct nic_scheduler_stats {
  unsigned peak_qps_per_engine = 0;
  uint64_t scan_bound_ps = 0;       // wire idle while a QP had credit and window but no visit yet
  uint64_t cc_updates = 0, cc_cycles = 0;   // ACKs fed to the CC module and its cycles
};

class nic_endpoint : public sc_core::sc_module, public pkt_receiver {
 public:
  // Control-plane registers (the Sundial block); only when made with registers (nic_config).
  bool has_csr() const { return csr_ != nullptr; }
  tlm_utils::simple_target_socket<nic_endpoint>& csr() { return *csr_; }
  // The packet ports (tlm/packet_port.h): the fabric binds tx to the link direction leaving
  // the NIC, and that of arrival to rx().
  pkt_tx_port tx;
  pkt_rx_port rx() { return {this, 0}; }

  virtual void start_flow(uint32_t flow) = 0;
  std::function<void(flow_ctx&)> on_flow_done;
  // The clock layer: this NIC is topology node `node`. Sync-messages go to its clock unit beside
  // the MAC; its Sundial register block is on the csr socket (clock/sundial_csr.h).
  void attach_clock(clock_driver* clock, uint32_t node) { sundial_.attach(clock, node); }
  const sundial_regs& sundial_registers() const { return sundial_.regs(); }
  const pfc_pause& pause() const { return pause_; }
  // --vcd: trace each priority's pause (ids per priority; wave_trace::off: not traced).
  void attach_waves(wave_trace& w, const std::array<uint32_t, 8>& pause_ids) {
    pause_.wave = &w;
    pause_.wave_id = pause_ids;
  }
  uint64_t data_bytes_sent() const { return data_bytes_sent_; }   // frame bytes of data packets
  // Mirrored copies received (this host is a mirror collector).
  uint64_t mirror_received() const { return mirror_received_; }
  uint64_t mirror_bytes() const { return mirror_bytes_; }
  // FlowRadar bank export frames received (this host is telemetry.flowradar_collector).
  uint64_t export_received() const { return export_received_; }
  uint64_t export_bytes() const { return export_bytes_; }
  virtual const nic_scheduler_stats& scheduler() const { return no_scheduler_; }
  virtual const flowcut_table* flowcut() const { return nullptr; }

 protected:
  nic_endpoint(sc_core::sc_module_name name, bool registers);
  // A frame handled beside the MAC or by the collector (PAUSE, sync-message, mirrored copy):
  // taken and released here, true. A PAUSE sets `pause_effect` to when it takes effect.
  bool take_mac_frame(packet& p, uint64_t now, uint64_t response_ps, uint64_t rate_bps, run_stats& stats,
                      uint64_t& pause_effect) {
    if (p.kind != pkt_kind::pause && p.kind != pkt_kind::sync && p.kind != pkt_kind::mirror) return false;   // the common case, inline
    take_mac_side(p, now, response_ps, rate_bps, stats, pause_effect);
    return true;
  }

  // Control frames (ACK, NAK, CNP) go ahead of data: onto the wire as soon as the current frame
  // is out, with no event of their own, unless their priority `prio` is paused; then they wait
  // in order until send_held_control finds it resumed.
  void send_control(packet& p, uint64_t now, uint8_t prio) {
    if (!control_.empty() || pause_.paused(now) >> prio & 1) {
      control_.push_back(&p);
      return;
    }
    free_ps_ = tx.send(p, std::max(now, free_ps_));
  }
  void send_held_control(uint64_t now, uint8_t prio) {
    while (!control_.empty() && !(pause_.paused(now) >> prio & 1)) {
      free_ps_ = tx.send(*control_.front(), std::max(now, free_ps_));
      control_.pop_front();
    }
  }
  uint64_t free_ps_ = 0;             // when the wire is free for the next frame
  ring_fifo<packet*> control_;       // control frames held by a pause of their priority
  pfc_pause pause_;                  // priorities the switch has paused
  sundial_csr sundial_;              // Sundial register block, and the clock layer
  uint64_t mirror_received_ = 0, mirror_bytes_ = 0;
  uint64_t export_received_ = 0, export_bytes_ = 0;
  uint64_t data_bytes_sent_ = 0;

 private:
  void take_mac_side(packet& p, uint64_t now, uint64_t response_ps, uint64_t rate_bps, run_stats& stats,
                     uint64_t& pause_effect);
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  std::unique_ptr<tlm_utils::simple_target_socket<nic_endpoint>> csr_;
  static const nic_scheduler_stats no_scheduler_;
};

}  // namespace netasic
