// RoCEv2 NIC model (HPCC's FPGA NIC, Fig. 2.8): RX pipe, TX pipe, flow scheduler and a
// congestion-control module per queue pair, over one port. See docs/datasheets/nic.md.
//
// - RX pipe (`rx_pipe_cycles`, applied by the link as the NIC's front end): data -> ACK, or a
//   NAK when out of sequence, and a CNP when DCQCN's notification point says so; ACK -> the CC
//   module and the flow's unacknowledged count; NAK -> go-back-N; CNP -> the CC module.
// - TX pipe (`tx_pipe_cycles`): builds the RoCEv2 frame; ACK/NAK/CNP frames take the wire first.
// - Flow scheduler: each QP belongs to one of `engines` engines (QP number mod engines); an
//   engine visits its active QPs round-robin, one every `visit_cycles`, and a QP sends at most
//   one packet per visit, when its credit (pacing rate) and its window allow. With n QPs on an
//   engine a QP therefore sends at most one frame every n x visit_cycles cycles: past the number
//   of QPs whose frame time that covers, rates fall short (counted as scheduler-bound time).
// - The NIC honours PFC: while the switch has paused a priority, frames of that priority wait.
// - Control plane (`csr`): the Sundial register block (clock/sundial_regs.h), as on a switch.
#pragma once
#include <algorithm>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include <systemc>

#include "blocks/pfc_pause.h"
#include "common/rng.h"
#include "tlm/run_stats.h"
#include "blocks/flowcut_table.h"
#include "clock/sundial_csr.h"
#include "nic/cc/cc_factory.h"
#include "nic/endpoint.h"
#include "nic/gbn_transport.h"
#include "nic/qp_pacer.h"
#include "nic/tcp/tcp_config.h"
#include "tlm/event_queue.h"
#include "tlm/packet_port.h"
#include "tlm/regbus.h"
#include "workload/packet_trace.h"

namespace netasic {

struct nic_config {
  // The Sundial register block on the register bus (csr). A NIC has no other registers, so the
  // fabric leaves the socket out when no Sundial controller runs: at 8,192 hosts its socket and
  // SystemC records would be about 16 MiB.
  bool registers = true;
  uint64_t clock_period_ps = 1000;  // frames are received on the NIC clock's edges
  uint32_t mtu_payload = 1000;      // payload bytes per data packet
  uint32_t window_packets = 128;    // fixed window per flow
  uint64_t rto_ps = 1'000'000'000;  // retransmission timeout: 1 ms
  bool int_enabled = false;         // frames carry HPCC's INT padding
  uint8_t data_priority = 3;        // traffic class of data frames (DSCP class selector)
  uint8_t ack_priority = 7;         // traffic class of ACK/NAK frames
  uint32_t pfc_response_cycles = 64;   // PAUSE received -> its priorities stop
  uint64_t rate_bps = 100'000'000'000ull;   // the port's line rate (PAUSE quanta, pacing)
  uint32_t rx_pipe_cycles = 16;     // frame in -> handled (ACK built, CC fed)
  uint32_t tx_pipe_cycles = 16;     // scheduled -> on the MAC
  unsigned sched_engines = 6;       // flow-scheduler engines
  uint32_t sched_visit_cycles = 1;  // cycles an engine spends on one QP
  cc_config cc;                     // congestion control of every QP
  bool flowcut = false;             // Flowcut in the NIC: a QP changes path only when drained
  flowcut_config flowcut_table;
  uint64_t flowcut_seed = 1;
  nic_transport transport = nic_transport::roce;   // nic.transport: this NIC, or the TCP host (nic/tcp_host.*)
  tcp_config tcp;                   // the TCP host's
  uint64_t rx_pipe_ps() const { return uint64_t(rx_pipe_cycles) * clock_period_ps; }
  uint64_t tx_pipe_ps() const { return uint64_t(tx_pipe_cycles) * clock_period_ps; }
  // A PAUSE's arrival to the last frame this NIC still starts on the wire: its reaction, then
  // the frames its TX pipe had already taken (the switch's headroom covers them).
  uint64_t pause_stop_ps() const { return uint64_t(pfc_response_cycles) * clock_period_ps + tx_pipe_ps(); }
  // The biggest frame this NIC sends: a full data packet.
  uint32_t max_frame_bytes() const {
    packet p;
    p.payload_bytes = mtu_payload;
    p.int_enabled = int_enabled;
    return p.frame_bytes();
  }
};

// One path a flow's data took, as its receiver saw it: the switches passed (the first
// packet::path_max of them) and the payload bytes that arrived on it. Keyed by the path
// signature, which also tells apart parallel links between the same two switches.
struct flow_path {
  uint32_t sig = 0;
  uint8_t hops = 0;                  // switches passed (may exceed path_max)
  uint16_t sw[packet::path_max] = {};
  uint64_t bytes = 0;                // payload bytes of the data packets received on it
};

// Per-QP context, shared by the two ends of a flow (QP number = flow id).
struct flow_ctx {
  uint32_t id = 0, src = 0, dst = 0;
  uint64_t size_bytes = 0, start_ps = 0, finish_ps = 0;
  uint16_t src_port = 0;            // UDP source port: the flow's ECMP entropy
  uint16_t ip_id = 0, ack_ip_id = 0;   // next IPv4 identification: data (sender), ACK/NAK/CNP (receiver); +1 per frame (DETER)
  uint32_t retransmitted = 0, timeouts = 0;
  uint32_t ecn_marked = 0;          // data packets that arrived with ECN CE
  uint32_t cnps = 0;                // CNPs the receiver sent for it (DCQCN)
  // Receiver: paths and order of the data packets as they arrive.
  uint32_t path_changes = 0, out_of_order = 0, max_reorder = 0;
  uint32_t last_path_sig = 0;
  bool any_data = false;
  std::vector<flow_path> paths;     // in order of first use; the last packet's is paths[path_now]
  uint32_t path_now = 0;
  void count_path(const packet& p) {
    if (paths.empty() || paths[path_now].sig != p.path_sig) {
      path_now = 0;
      while (path_now < paths.size() && paths[path_now].sig != p.path_sig) ++path_now;
      if (path_now == paths.size()) {
        flow_path n;
        n.sig = p.path_sig;
        n.hops = p.hops;
        std::copy(p.path_sw, p.path_sw + packet::path_max, n.sw);
        paths.push_back(n);
      }
    }
    paths[path_now].bytes += p.payload_bytes;
  }
  gbn_sender snd;
  gbn_receiver rcv;
  // Sender: congestion control and the flow scheduler's state.
  std::unique_ptr<congestion_control> cc;
  qp_pacer pace;                    // credit: the pacing rate allows the next frame from here
  uint64_t scan_ok_ps = 0;          // the engine visits the QP again from here
  bool window_blocked = false;      // waiting for an ACK to open the window
  bool fc_paused = false;           // Flowcut: draining, or waiting for a free table entry
  bool fc_stamped = false;          // Flowcut: the next data packet carries this stamp
  uint16_t fc_stamp = 0;
  // Receiver: DCQCN's notification point.
  dcqcn_np np;
};

class host_nic : public nic_endpoint, private timed_client {
 public:
  host_nic(sc_core::sc_module_name name, const nic_config& cfg, run_stats& stats,
           std::vector<flow_ctx>& flows, event_queue& events);
  void start_flow(uint32_t flow) override;
  void pkt_receive(unsigned port, packet& p, uint64_t now_ps) override;
  const nic_scheduler_stats& scheduler() const override { return sched_; }
  const flowcut_table* flowcut() const override { return flowcut_.get(); }
  // Open-loop replay (DETER replay, or a packet trace with traffic.trace_mode = "packets"): this
  // NIC sends `trace` with no transport: each frame at its time, later
  // only while the wire is busy or its priority paused; what arrives is counted and freed.
  void replay(packet_trace trace) { trace_ = std::move(trace); replaying_ = true; }
  void start_replay() { if (!trace_.empty()) arm(trace_.front().time_ps); }

 private:
  void try_send();
  void replay_send(uint64_t now);
  void wake(uint64_t now) override;   // the wire is free again
  void on_rto_check(uint64_t now);
  bool pick_flow(uint64_t now, uint32_t& flow);
  packet* make_data(flow_ctx& f);
  void on_feedback(flow_ctx& f, packet& p, uint64_t now);   // ACK or NAK at the sender
  void send_cnp(flow_ctx& f, const packet& data, uint64_t now);
  uint64_t seq_bytes(const flow_ctx& f, uint32_t seq) const {
    return std::min<uint64_t>(uint64_t(seq) * cfg_.mtu_payload, f.size_bytes);
  }
  bool window_open(const flow_ctx& f) const;
  void repace(flow_ctx& f, uint64_t now);                   // a new rate re-times the next frame
  void rearm_for(const flow_ctx& f, uint64_t now);          // an update may let f go earlier
  bool flowcut_admit(flow_ctx& f, uint64_t now);            // Flowcut: may the QP send now?
  void flowcut_ack(flow_ctx& f, const packet& p, uint64_t now);

  nic_config cfg_;
  run_stats& stats_;
  std::vector<flow_ctx>& flows_;
  std::vector<uint32_t> active_;     // flows with data left to send or to be acknowledged
  std::vector<unsigned> engine_qps_; // active QPs per scheduler engine
  nic_scheduler_stats sched_;
  uint64_t scan_counted_until_ = 0;  // scheduler-bound time is counted up to here
  std::unique_ptr<flowcut_table> flowcut_;   // flowcut.form = "nic": the NIC-only Flowcut table
  lazy_rng flowcut_rng_{1};                  // new Flowcuts' ECMP entropy (flowcut.form = "nic")
  std::vector<uint32_t> flowcut_full_;       // QPs held for a free table entry
  size_t rr_ = 0;
  timer wake_;                       // the pending wake-up that counts (others are stale)
  bool rto_scheduled_ = false;
  packet_trace trace_;               // DETER replay
  size_t trace_next_ = 0;
  bool replaying_ = false;
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
