// First endpoint (NIC) model: per-QP go-back-N transport over one port. ACK/NAK frames take the
// wire first; the active flows share the rest round-robin, one frame each time the wire frees.
// The NIC honours PFC: while the switch has paused a priority, frames of that priority wait.
#pragma once
#include <deque>
#include <functional>
#include <vector>

#include <systemc>

#include "common/pfc_pause.h"
#include "common/run_stats.h"
#include "nic/gbn_transport.h"
#include "tlm/event_queue.h"
#include "tlm/packet_socket.h"

namespace netasic {

struct nic_config {
  uint64_t clock_period_ps = 1000;  // frames are received on the NIC clock's edges
  uint32_t mtu_payload = 1000;      // payload bytes per data packet
  uint32_t window_packets = 64;     // fixed window per flow
  uint64_t rto_ps = 0;              // retransmission timeout
  bool int_enabled = false;         // frames carry HPCC's INT padding
  uint8_t data_priority = 3;        // traffic class of data frames (DSCP class selector)
  uint8_t ack_priority = 7;         // traffic class of ACK/NAK frames
  uint32_t pfc_response_cycles = 64;   // PAUSE received -> its priorities stop
  uint64_t rate_bps = 100'000'000'000ull;   // the port's line rate (PAUSE quanta)
  // The biggest frame this NIC sends: a full data packet.
  uint32_t max_frame_bytes() const {
    packet p;
    p.payload_bytes = mtu_payload;
    p.int_enabled = int_enabled;
    return p.frame_bytes();
  }
};

// Per-QP context, shared by the two ends of a flow (QP number = flow id).
struct flow_ctx {
  uint32_t id = 0, src = 0, dst = 0;
  uint64_t size_bytes = 0, start_ps = 0, finish_ps = 0;
  uint16_t src_port = 0;            // UDP source port: the flow's ECMP entropy
  uint32_t retransmitted = 0, timeouts = 0;
  uint32_t ecn_marked = 0;          // data packets that arrived with ECN CE
  gbn_sender snd;
  gbn_receiver rcv;
};

class host_nic : public sc_core::sc_module, public pkt_receiver, private timed_client {
 public:
  pkt_initiator_socket tx;
  pkt_target_socket rx;

  host_nic(sc_core::sc_module_name name, const nic_config& cfg, run_stats& stats,
           std::vector<flow_ctx>& flows, event_queue& events);
  void start_flow(uint32_t flow);
  void pkt_receive(unsigned port, packet& p, uint64_t now_ps) override;
  std::function<void(flow_ctx&)> on_flow_done;
  const pfc_pause& pause() const { return pause_; }
  // Mirrored copies received (this host is a mirror collector).
  uint64_t mirror_received() const { return mirror_received_; }
  uint64_t mirror_bytes() const { return mirror_bytes_; }

  static uint32_t ip_of(unsigned host) { return 0x0A000000u | host; }   // 10.0.0.0/8

 private:
  void try_send();
  void send_control(packet& p, uint64_t now);
  void send_held_control(uint64_t now);
  void end_of_elaboration() override;
  void wake(uint64_t now) override;   // the wire is free again
  void on_rto_check(uint64_t now);
  bool pick_flow(uint32_t& flow);
  packet* make_data(flow_ctx& f);

  nic_config cfg_;
  run_stats& stats_;
  std::vector<flow_ctx>& flows_;
  std::vector<uint32_t> active_;     // flows with data left to send or to be acknowledged
  size_t rr_ = 0;
  pkt_fw_transport_if* tx_if_ = nullptr;   // the link tx is bound to
  uint64_t free_ps_ = 0;             // when the wire is free for the next frame
  pfc_pause pause_;                  // priorities the switch has paused
  uint64_t mirror_received_ = 0, mirror_bytes_ = 0;
  std::deque<packet*> control_;      // ACK/NAK frames held by a pause of their priority
  uint64_t armed_at_ = UINT64_MAX;   // the pending wake-up that counts (others are stale)
  bool rto_scheduled_ = false;
  void arm(uint64_t at);
  event_queue& events_;
  // The retransmission check is a second wake-up source on the same event queue.
  struct rto_timer : timed_client {
    host_nic& nic;
    explicit rto_timer(host_nic& n) : nic(n) {}
    void wake(uint64_t now) override { nic.on_rto_check(now); }
  } rto_timer_{*this};
};

}  // namespace netasic
