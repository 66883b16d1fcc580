// Switch ASIC model: parser -> ingress match-action stages -> traffic manager -> egress stages
// -> deparser, each a latency in cycles of the switch clock (see docs/datasheets/switch.md).
//
// Timing, with T the clock period and one pipe per group of ports:
// - A frame's data path starts on the first clock edge after its last bit (or, cutting through,
//   after its first bytes). A pipe's parser takes one frame per cycle; frames arriving on the same
//   edge queue in a FIFO of `pipe_fifo` frames, and beyond that are dropped (`pipe_overrun`).
// - After parser + ingress stages + traffic-manager cycles it is in its egress queue. The link
//   already adds this front-end latency, so an unloaded hop costs one wake-up.
// - The traffic manager dequeues for a port so that the frame, after the egress stages and the
//   deparser, reaches the MAC as the wire frees up; the egress pipe also takes one frame per
//   cycle. INT is written when the frame is emitted.
// - PFC frames are MAC control: they skip the pipeline. A PAUSE received stops the dequeue of its
//   priorities `pfc_response` cycles after its last bit; frames already past the traffic manager
//   still go out, which is what the headroom is for.
// - Recirculation: each data frame may take extra passes; a pass leaves the egress pipe through
//   the pipe's recirculation port (at its rate) and enters the parser again.
// - Mirroring (ingress, sampled): the ingress deparser copies one in `sample` data frames. The
//   copy, truncated if asked, is a frame of its own in the traffic manager (lossy priority
//   `prio`) and takes an egress pass to the CPU port (at `cpu_rate_bps`) or, encapsulated
//   (ERSPAN type II), to the port that routes to the collector host.
#pragma once
#include <array>
#include <memory>
#include <map>
#include <string>
#include <vector>

#include <systemc>
#include <tlm_utils/simple_target_socket.h>

#include "blocks/crc_hash.h"
#include "blocks/flowcut_table.h"
#include "blocks/lossradar.h"
#include "blocks/pfc_pause.h"
#include "blocks/pfc_watchdog.h"
#include "common/ring_fifo.h"
#include "clock/sundial_csr.h"
#include "tlm/run_stats.h"
#include "tlm/deter_queue_log.h"
#include "switch/flowradar_stage.h"
#include "switch/load_balancer.h"
#include "switch/route_table.h"
#include "switch/traffic_manager.h"
#include "tlm/event_queue.h"
#include "tlm/packet_port.h"

namespace netasic {

struct mirror_config {
  enum class target : uint8_t { off, cpu, collector } to = target::off;
  uint32_t sample = 1;               // one in `sample` data frames entering the switch
  uint32_t truncate_bytes = 0;       // bytes of the frame copied; 0 = all
  uint32_t collector_ip = 0;         // target::collector: the host the copies are routed to
  uint8_t prio = 0;                  // traffic-manager priority of the copies (lossy)
  uint64_t cpu_rate_bps = 25'000'000'000ull;   // the CPU port (target::cpu)
  // Outer Ethernet, IPv4, GRE and ERSPAN type II headers and FCS around a collector's copy.
  static constexpr uint32_t erspan_bytes = 14 + 20 + 8 + 8 + 4;
};

// PFC watchdog (pfc.watchdog_action): what a queue paused for longer than pfc.watchdog does.
enum class pfc_watchdog_action : uint8_t { drop, forward };
// PFC deadlock detector (pfc.on_deadlock): what the run does once it finds a deadlock.
enum class pfc_deadlock_action : uint8_t { stop, run_on };

struct switch_config {
  uint64_t clock_period_ps = 1000;
  uint32_t parser_cycles = 32;
  uint32_t stages = 12;              // match-action stages, passed by ingress and by egress
  uint32_t stage_cycles = 12;
  uint32_t tm_cycles = 48;           // traffic manager, enqueue to earliest dequeue
  uint32_t deparser_cycles = 32;
  unsigned pipes = 1;                // ports are split evenly over the pipes
  uint32_t pipe_fifo = 128;          // frames waiting for the parser, per pipe
  uint32_t cut_through_bytes = 0;    // 0 = store and forward
  uint32_t recirculations = 0;       // extra pipeline passes of every data frame
  uint64_t recirc_rate_bps = 100'000'000'000ull;
  uint32_t pfc_response_cycles = 64; // PAUSE received -> its priorities stop
  uint16_t pfc_quanta = 0xFFFF;      // time field of the PAUSEs this switch sends
  uint64_t pfc_headroom_bytes = 0;   // per port and lossless priority; 0 = pfc_headroom_needed()
  // PFC watchdog, as switch OSes ship it (SONiC's pfcwd): a lossless queue paused for this long
  // with frames waiting is in a PFC storm; 0 = off. The storm ends once the queue has been
  // unpaused for the restoration time.
  uint64_t pfc_watchdog_ps = 0;
  uint64_t pfc_watchdog_restore_ps = 0;
  pfc_watchdog_action watchdog_action = pfc_watchdog_action::drop;
  // PFC deadlock detector (fabric/pfc_deadlock_monitor.*): a cycle of paused queues without a
  // dequeue for this long is a deadlock; 0 = off.
  uint64_t pfc_deadlock_detect_ps = 1'000'000'000;
  pfc_deadlock_action on_deadlock = pfc_deadlock_action::stop;
  mirror_config mirror;
  lb_config lb;                      // how a packet picks among its group's members
  tm_config tm;
  unsigned hash_bits = 32;           // 16 or 32
  uint32_t hash_seed = 0;
  // De-polarisation: a switch of topology tier t takes its flow hash rotated right by
  // (t-1)*hash_tier_offset bits (flow_hash_rotate); the fabric sets tier. 0 = every tier alike.
  unsigned hash_tier_offset = 8;
  unsigned tier = 1;                 // 1 leaf/edge, 2 spine/agg, 3 core
  unsigned member_capacity = 4096;   // ECMP member table entries
  route_kind routing = route_kind::shortest_path;
  unsigned route_classes = 1;        // ingress classes of the route table (route_table.h)
  // The fabric's address plan: the route table keyed by destination prefix (route_table.h);
  // null: by destination host.
  std::shared_ptr<const address_plan> addresses;
  unsigned ksp_paths = 32;           // paths per ToR pair of route_kind::ksp
  bool ksp_path_table = true;        // KSP in the path table (route_table.h); false: per ingress port only
  // Flowcut in the switch: variant full_switch (every switch) or ingress_only (switches with
  // hosts); off when flowcut_on is false. host_port[p]: port p faces a host (flows enter here).
  bool flowcut_on = false;
  flowcut_config flowcut;
  std::vector<bool> host_port;
  uint8_t flowcut_data_prio = 3;     // the priority flowcut.source_pause pauses (the NICs' data)
  flowradar_stage_config flowradar;  // telemetry.flowradar*: the encoded flowset at ingress
  // faults.black_hole: host index -> from when every packet to it is dropped by the ingress
  // tables here (UINT64_MAX: never).
  std::vector<uint64_t> black_hole_from_ps;
  // faults.misroute: from from_ps to to_ps every packet to `host` leaves by `port`, whatever the
  // route table says (a stale entry, as in a VM migration's transient loop, thesis §4.6.1).
  struct misroute {
    uint32_t host = 0;
    unsigned port = 0;
    uint64_t from_ps = 0, to_ps = UINT64_MAX;
  };
  std::vector<misroute> misroutes;

  uint64_t ingress_ps() const { return uint64_t(parser_cycles + stages * stage_cycles + tm_cycles) * clock_period_ps; }
  uint64_t egress_ps() const { return uint64_t(stages * stage_cycles + deparser_cycles) * clock_period_ps; }
  uint64_t pass_ps() const { return ingress_ps() + egress_ps(); }
  // A PAUSE's arrival to the last frame this switch still starts on the wire: its reaction,
  // then the frames its egress pipe had already taken.
  uint64_t pause_stop_ps() const { return uint64_t(pfc_response_cycles) * clock_period_ps + egress_ps(); }
  // PFC headroom of a port on a link: as configured, or pfc_headroom_needed() when that is 0.
  uint64_t port_headroom(uint64_t rate_bps, uint64_t delay_ps, uint32_t max_frame_bytes, uint64_t partner_stop_ps) const;
};

// The flow hash a switch of tier `tier` uses: `h` (a CRC of width `width`) rotated right within
// its width by (tier-1)*offset bits. A CRC is linear in its seed, so per-switch seeds only
// relabel a power-of-two group's members and a flow's choice at one tier would fix its choice at
// the next; other bits of the hash at each tier break that, as ASICs' per-switch hash offsets do.
// The rotation is fixed when the switch is built, so a packet pays for the shift, not the modulo.
struct flow_hash_rotation {
  uint32_t mask;
  unsigned width, right;
  flow_hash_rotation(unsigned w, unsigned tier, unsigned offset)
      : mask(w >= 32 ? 0xFFFFFFFFu : (1u << w) - 1), width(w), right(tier > 1 ? (tier - 1) * offset % w : 0) {}
  uint32_t operator()(uint32_t h) const {
    h &= mask;
    return right == 0 ? h : ((h >> right) | (h << (width - right))) & mask;
  }
};
inline uint32_t flow_hash_rotate(uint32_t h, unsigned width, unsigned tier, unsigned offset) {
  return flow_hash_rotation(width, tier, offset)(h);
}

// What a switch counts besides drops.
struct switch_counters {
  uint64_t pfc_sent = 0, pfc_received = 0, recirculated = 0, int_written = 0;
  uint64_t mirrored = 0;             // copies made
  uint64_t mirror_dropped = 0;       // copies the traffic manager did not admit (or no route)
  uint64_t mirror_to_cpu = 0, mirror_cpu_bytes = 0;   // copies delivered to the CPU port
  uint64_t flowradar_export_frames = 0, flowradar_export_bytes = 0;   // FlowRadar banks sent to the collector
  uint64_t flowradar_export_dropped = 0;                            // ... frames not admitted (or no route)
  uint64_t sketch_clears = 0, sketch_clears_lost = 0;  // BalanceSketch bucket clears recirculated / not admitted
  uint64_t flowcut_packets_held = 0;     // Flowcut: data packets held (draining flows, full table)
  uint64_t flowcut_held_peak_bytes = 0;  // ... and the most bytes held at once
  uint64_t flowcut_hold_full = 0;        // packets that found the hold memory (flowcut.hold) full
  uint64_t flowcut_hold_full_resumes = 0;   // ... whose draining flow was let go on its old path
  uint64_t flowcut_source_pauses = 0;    // drains that paused their source (flowcut.source_pause)
  uint64_t pfc_watchdog_storms = 0;      // PFC watchdog: a queue found paused too long (a storm began)
  uint64_t misrouted = 0;                // packets sent by a faults.misroute entry
  uint64_t loop_returns = 0;             // ... that had been sent by this switch's entry before: looped
};

// A data packet back at the switch whose misroute entry sent it before (faults.misroute): the
// ground truth of a routing loop. Logged at most once per flow per 100 us.
struct loop_return {
  flowradar_flow flow{};                 // its 5-tuple
  uint64_t t_ps = 0;
};

// --vcd: the ids of a switch's traced signals (wave_trace::off: not traced), per front-panel port.
struct switch_waves {
  std::vector<uint32_t> queue_bytes, ecn_marks;           // the port's egress queues, all priorities
  std::vector<std::array<uint32_t, num_priorities>> pfc_pause;   // what the link partner paused
  uint32_t flowlet = wave_trace::off, sketch = wave_trace::off, flowcut = wave_trace::off;   // entries
};

class switch_model : public sc_core::sc_module, public pkt_receiver {
 public:
  tlm_utils::simple_target_socket<switch_model> csr;       // control-plane registers
  // The packet ports, one each way per front-panel port (tlm/packet_port.h): the fabric binds
  // tx(p) to the link direction leaving port p, and that of arrival to rx(p).
  pkt_tx_port& tx(unsigned port) { return tx_[port]; }
  pkt_rx_port rx(unsigned port) { return {this, port}; }

  // port_rate_bps: each port's line rate (PAUSE quanta, INT's speed code).
  switch_model(sc_core::sc_module_name name, unsigned id, const std::vector<uint64_t>& port_rate_bps,
               unsigned hosts, const switch_config& cfg, run_stats& stats, event_queue& events);

  void pkt_receive(unsigned port, packet& p, uint64_t now_ps) override;

  unsigned id() const { return id_; }
  const sundial_regs& sundial_registers() const { return sundial_.regs(); }
  // The clock layer: this switch is topology node `node`; sync frames go at TM priority `prio`.
  // Its Sundial register block is on the csr socket (clock/sundial_csr.h).
  void attach_clock(clock_driver* clock, uint32_t node, uint8_t prio) {
    sundial_.attach(clock, node);
    sync_prio_ = prio;
  }
  // The clock unit sends a sync-message of `bytes` out of `port` now.
  void send_sync(unsigned port, const sync_header& m, uint32_t bytes, uint64_t now);
  uint64_t sync_dropped() const { return sync_dropped_; }   // not admitted by the traffic manager
  // The longest a sync-message waited beyond the unloaded egress pipeline (frames ahead of it
  // on the wire or in the egress pipe: strict priority keeps data queues from adding more).
  uint64_t sync_wait_max_ps() const { return sync_wait_max_ps_; }
  unsigned ports() const { return unsigned(tx_.size()); }   // front-panel ports
  unsigned cpu_port() const { return cpu_port_; }          // traffic-manager port of the CPU
  // Probes at the current time.
  uint64_t queue_depth(unsigned port) const { return tm_.port_bytes(port); }
  uint64_t buffer_used() const { return tm_.used(); }
  uint64_t headroom_used() const { return tm_.headroom_used(); }
  uint8_t paused(unsigned port, uint64_t t) const { return port_[port].pause.paused(t); }
  uint64_t paused_ps(unsigned port, unsigned prio, uint64_t t) const { return port_[port].pause.paused_ps(prio, t); }
  // The deadlock detector's view of an egress queue: since when its pause has lasted, when its
  // last frame left (0: never).
  uint64_t paused_since(unsigned port, unsigned prio) const { return port_[port].pause.paused_since(prio); }
  uint64_t last_dequeue_ps(unsigned port, unsigned prio) const {
    return last_dequeue_.empty() ? 0 : last_dequeue_[port][prio];
  }
  uint64_t ecn_marked(unsigned port) const { return tm_.ecn_marked(port); }
  uint64_t queue_peak(unsigned port) const { return tm_.peak_bytes(port); }
  const drop_counters& drops() const { return drops_; }
  switch_counters counters() const;
  const traffic_manager& tm() const { return tm_; }
  deter_queue_log* deter_log = nullptr;   // DETER: log every packet's queue on enqueue (null: off)
  lossradar_switch_hook* lossradar = nullptr;   // LossRadar's meters at the end of ingress (null: off)
  const load_balancer& lb() const { return lb_; }
  const flowcut_table* flowcut() const { return lb_.flowcut() ? &lb_.flowcut()->table() : nullptr; }
  void lb_advance(uint64_t now_ps) { lb_.advance(now_ps); }
  // FlowRadar's flowsets: none (telemetry.flowradar off), one, or one per port (per ingress port).
  const std::vector<std::unique_ptr<flowradar_stage>>& flowradar() const { return flowradar_; }
  const std::vector<loop_return>& loop_returns() const { return loop_returns_; }   // faults.misroute's loops
  uint64_t tx_bytes(unsigned port) const { return port_[port].tx_bytes; }   // sent so far
  // Trace these signals into `w` from now on (once, before the run).
  void attach_waves(wave_trace& w, const switch_waves& ids);
  // Clock-aligned frame to egress queue to wire, unloaded, per pass.
  uint64_t pipeline_latency_ps() const { return cfg_.pass_ps(); }

 private:
  // A timed_client that forwards to a member function with an index (a port or a pipe).
  struct waker : timed_client {
    switch_model* sw = nullptr;
    void (switch_model::*fn)(unsigned, uint64_t) = nullptr;
    unsigned index = 0;
    timer due;
    void wake(uint64_t now) override {
      if (due.fire(now)) (sw->*fn)(index, now);   // else superseded by an earlier wake-up
    }
  };
  struct port_state {
    uint64_t rate_bps = 0;
    uint64_t wire_free_ps = 0;      // when the MAC can start the next frame
    uint64_t tx_bytes = 0;          // INT's txBytes counter (before 128-byte units)
    uint8_t int_speed = 0;          // INT's B field
    unsigned pipe = 0;
    pfc_pause pause;                // what the link partner has paused
    bool flowcut_pause = false;     // Flowcut pauses this host port's data priority (a flow drains)
    pfc_watchdog watchdog{0, 0};    // PFC watchdog (pfc.watchdog > 0)
    waker dequeue;
  };
  struct pipe_state {
    uint64_t parser_free_ps = 0, egress_free_ps = 0;   // next free cycle of each pipe
    ring_fifo<std::pair<uint64_t, packet*>> parser_fifo;   // (queue-arrival time, frame)
    uint64_t recirc_free_ps = 0;
    ring_fifo<std::pair<uint64_t, packet*>> recirc;   // (parser-arrival time + front end, frame)
    waker parser, recirc_port;
  };

  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void end_of_elaboration() override;
  void trace_port(unsigned port, uint64_t now);   // --vcd: the port's queue and ECN marks
  // out: the output port the ingress chose (-1: dropped before, or not known).
  void drop(packet& p, uint64_t drop_counters::*reason, int out = -1);
  void arm(waker& w, uint64_t at);
  uint64_t edge(uint64_t t) const { return (t + cfg_.clock_period_ps - 1) / cfg_.clock_period_ps * cfg_.clock_period_ps; }

  void parse(unsigned pipe, packet& p, uint64_t now);   // at the parser (plus front end)
  void parser_drain(unsigned pipe, uint64_t now);
  void recirc_arrive(unsigned pipe, uint64_t now);
  void enqueue(packet& p, uint64_t now);                  // ingress match-action, traffic manager
  void kick(unsigned port, uint64_t now);                 // dequeue for a port if it can
  void emit(unsigned port, packet& p, uint64_t start);    // egress: INT, onto the wire
  void recirculate(unsigned pipe, packet& p, uint64_t egress_done);
  void mirror(const packet& p, uint64_t now);             // ingress mirror session
  void flowradar_export(uint64_t now);                     // FlowRadar: a bank to the collector host
  void flowradar_epoch_end(unsigned, uint64_t now);         // ... at each epoch boundary
  int misroute_port(packet& p, uint32_t dst, uint64_t now);  // faults.misroute's port for p, or -1
  void recirculate_clear(unsigned pipe, uint64_t now);     // BalanceSketch's bucket clear
  packet& internal_frame(uint32_t bytes);                  // a mirror copy or a clear, from the pool
  bool queue_internal(packet& c, unsigned port, uint64_t now);   // false: refused and released
  void receive_pause(unsigned port, packet& p, uint64_t now);
  void send_pause(unsigned port, unsigned prio, uint16_t quanta, uint64_t now);
  void pfc_refresh(unsigned, uint64_t now);
  // PFC watchdog: the paused priorities the port still honours at `now` (a storm in forward mode
  // is not honoured; in drop mode its queue is emptied).
  uint8_t mitigate_storms(unsigned port, uint8_t paused, uint64_t now);
  uint8_t lossless_waiting(unsigned port) const;   // lossless priorities with frames queued
  bool watchdog_drops(unsigned port, unsigned prio, uint64_t now);   // drop mode: arriving frame dropped
  flowcut_stage::buffer_hooks flowcut_buffer();
  bool flowcut_pausing(unsigned port, unsigned prio) const {
    return port_[port].flowcut_pause && prio == cfg_.flowcut_data_prio;
  }

  unsigned id_;
  switch_config cfg_;
  run_stats& stats_;
  event_queue& events_;
  std::unique_ptr<crc_hash_if> hash_;   // the 5-tuple hash: the core, or its RTL (--rtl crc_hash)
  flow_hash_rotation hash_rotation_;     // this tier's bits of it
  uint32_t flow_hash(packet& p) { return hash_rotation_(hash_->hash(p)); }   // every use of the flow hash
  unsigned cpu_port_ = 0;    // traffic-manager port of the CPU (after the recirculation ports)
  uint64_t mirror_count_ = 0;   // data frames seen by the mirror session's sampler
  route_table routes_;
  sundial_csr sundial_;                           // Sundial register block, and the clock layer
  uint8_t sync_prio_ = 7;
  uint64_t sync_dropped_ = 0, sync_wait_max_ps_ = 0;
  load_balancer lb_;   // every next-hop decision
  std::vector<std::unique_ptr<flowradar_stage>> flowradar_;
  traffic_manager tm_;
  std::vector<pkt_tx_port> tx_;   // per front-panel port: its link (unbound: no cable)
  std::vector<port_state> port_;
  // Per port and priority, state that few runs use, so kept out of port_state (a k = 32 fat tree
  // has 43,520 ports): when an XOFF sent is due again (made at the first XOFF), and when a
  // queue's last frame left, the deadlock detector's progress (kept only when it runs).
  std::vector<std::array<uint64_t, num_priorities>> refresh_at_, last_dequeue_;
  std::vector<pipe_state> pipe_;
  waker refresh_;
  waker flowradar_epoch_;   // FlowRadar with a collector: the epoch boundaries
  drop_counters drops_;
  switch_counters counters_;
  std::vector<loop_return> loop_returns_;
  std::map<flowradar_flow, uint64_t> loop_logged_ps_;   // flow -> its last loop_return
  wave_trace* wave_ = nullptr;   // --vcd, else null
  switch_waves wave_ids_;
};

// PFC headroom a port needs so a lossless priority never drops: the frame that crossed the
// threshold and everything that can still arrive after the XOFF decision. That is the frames in
// this switch's front end, the PAUSE waiting behind the frames its egress pipe already handed to
// the MAC plus its own time on the wire, two propagation delays, and the link partner's
// pause_stop_ps (a switch's or a NIC's: reaction plus its egress or TX pipe), with a maximum
// frame in progress at each end.
uint64_t pfc_headroom_needed(const switch_config& cfg, uint64_t rate_bps, uint64_t delay_ps, uint32_t max_frame_bytes,
                             uint64_t partner_stop_ps);

// INT's 4-bit speed code for a line rate: 1 = 10G, 2 = 25G, 3 = 40G, 4 = 50G, 5 = 100G,
// 6 = 200G, 7 = 400G, 8 = 800G, 0 = other.
uint8_t int_speed_code(uint64_t rate_bps);

}  // namespace netasic
