// Full-duplex link: two directed channels, each with a rate and a propagation delay.
// Serialization counts the 8-byte preamble+SFD and the 12-byte inter-frame gap. A frame handed
// in at its start time is delivered to the far end on the first edge of the receiver's clock at
// or after its last bit arrives (the receiver cannot act earlier), so all frames reaching the
// fabric on one clock edge share one kernel notification.
//
// The receiver's fixed front-end latency (a switch's parser, ingress stages and traffic manager)
// is added here, so a frame costs one wake-up at the point where the receiver next decides
// something. A cut-through receiver is handed the frame once its first `cut_through_bytes` are
// in. MAC control frames (PFC) and clock sync-messages are handled beside the receiver's MAC
// (packet::at_mac): they skip that latency, and travel in a second FIFO so they can overtake
// data frames still inside it.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "common/ring_fifo.h"
#include "common/wave_trace.h"
#include "common/rng.h"
#include "tlm/event_queue.h"
#include "tlm/frame_tap.h"
#include "tlm/packet_port.h"

namespace netasic {

struct link_counters {
  uint64_t frames = 0, bytes = 0;       // bytes = frame bytes (header to FCS)
  uint64_t dropped_down = 0;            // frames sent while the link was down
  uint64_t lost_in_flight = 0;          // frames on the wire when it went down (fail_now)
};

struct link_timing {
  uint64_t rate_bps = 0;
  uint64_t delay_ps = 0;
  uint64_t rx_clock_ps = 1;   // receiver's clock period: deliveries land on its edges
  uint64_t rx_latency_ps = 0;        // receiver's front end, applied to data frames
  uint32_t cut_through_bytes = 0;    // 0: the receiver stores and forwards
  static constexpr uint32_t preamble_bytes = 8;   // preamble + start-of-frame delimiter
  static constexpr uint32_t ifg_bytes = 12;       // minimum inter-frame gap
  // Time to put `bytes` on the wire at this rate, rounded up to the next picosecond.
  uint64_t wire_ps(uint64_t bytes) const { return (bytes * 8'000'000'000'000ull + rate_bps - 1) / rate_bps; }
  // From the first bit of the preamble to the last bit of the FCS at the receiver.
  uint64_t arrival_after_ps(uint32_t frame) const { return wire_ps(frame + preamble_bytes) + delay_ps; }
  uint64_t edge_at_or_after(uint64_t t) const { return (t + rx_clock_ps - 1) / rx_clock_ps * rx_clock_ps; }
  // When the receiver has a frame started at `start`: its next clock edge after the last bit
  // (or, cutting through, after the first bytes), plus its front-end latency.
  uint64_t delivery_ps(uint64_t start, uint32_t frame) const {
    const uint32_t needed = cut_through_bytes && cut_through_bytes < frame ? cut_through_bytes : frame;
    return edge_at_or_after(start + arrival_after_ps(needed)) + rx_latency_ps;
  }
  // A MAC control frame: the next edge after its last bit.
  uint64_t control_delivery_ps(uint64_t start, uint32_t frame) const {
    return edge_at_or_after(start + arrival_after_ps(frame));
  }
  // From the start of one frame to the earliest start of the next.
  uint64_t occupancy_ps(uint32_t frame) const { return wire_ps(frame + preamble_bytes + ifg_bytes); }
};

struct packet_link;

// faults.link_drop: each data-path frame on this direction is lost with probability `rate`, as
// a frame the receiver's MAC discards for a bad FCS: it takes its time on the wire and is gone.
// The draws are the fault's own random source, seeded from sim.seed and the link.
struct link_fault {
  double rate = 0;
  rng draws;
  std::function<void(packet&)> on_loss;   // counts and frees the frame
  explicit link_fault(double r, uint64_t seed) : rate(r), draws(seed) {}
};

// A host NIC's telemetry on its link (LossRadar's meters, FlowRadar's flowset at hosts): sent()
// as a frame goes onto the wire, arrived() as one is delivered to the NIC. Frames handled at the
// MAC (PFC, clock sync) are not shown. Several chain through `next`.
class link_meter {
 public:
  virtual ~link_meter() = default;
  virtual void sent(packet& p, uint64_t now_ps) = 0;
  virtual void arrived(packet& p, uint64_t now_ps) = 0;
  link_meter* next = nullptr;
};

// One direction of a link: a FIFO of frames in flight, ordered by arrival. A plain object, not
// a SystemC module: the transmitter's port calls pkt_transport directly, and at each frame's
// time the direction hands it to the receiver's port (tlm/packet_port.h). The fabric holds
// every link in one vector.
class link_direction : public pkt_fw_transport_if, private timed_client {
 public:
  pkt_rx_port out;   // the receiver's port it delivers to (bound with connect())

  link_direction(const link_timing& timing, event_queue& events) : timing_(timing), events_(&events) {}
  // Movable only so that a vector can hold links while they are built; once connected a
  // direction must stay where it is (ports and the event queue point at it).
  link_direction(link_direction&&) = default;
  link_direction& operator=(link_direction&&) = delete;

  uint64_t pkt_transport(packet& p, uint64_t start_ps) override;
  const link_timing& timing() const { return timing_; }
  const link_counters& counters() const { return counters_; }
  void set_up(bool up) { up_ = up; }
  bool up() const { return up_; }
  // faults.link_flap: down from `now`, and every frame whose last bit has not reached the far end
  // is lost with the link (handed to on_drop); a frame already in, waiting out the receiver's
  // front end, is kept. set_up(false) alone lets every frame arrive (a clock fault's link).
  void fail_now(uint64_t now);
  // Called for a frame lost because the link is down; the owner counts and frees it.
  std::function<void(packet&)> on_drop;
  uint64_t* hop_counter = nullptr;   // run-wide packet-hop count, incremented per delivery
  frame_tap* tap = nullptr;          // sees every frame put on the wire (pcap, DETER record)
  // --vcd (null: not traced): the wire busy from the preamble's first bit to the FCS's last, and
  // the frames put on it, counted (the transmitter's packet-event marker).
  wave_trace* wave = nullptr;
  uint32_t wave_busy = wave_trace::off, wave_frames = wave_trace::off;
  link_fault* fault = nullptr;       // injected random drops (null: none)
  link_meter* meter = nullptr;       // a host NIC's counters on this direction (null: none), chained

 private:
  void wake(uint64_t now) override;   // deliver every frame whose last bit has arrived

  struct in_flight { uint64_t arrive_ps; packet* p; };
  void deliver_due(ring_fifo<in_flight>& fifo, uint64_t now);
  void arm(uint64_t at);
  link_timing timing_;
  link_counters counters_;
  bool up_ = true;
  ring_fifo<in_flight> fifo_, control_;   // each sorted by arrival; most stay empty, so allocated on first use
  timer wake_;                             // the wake-up that is due next (others are stale)
  event_queue* events_;
};

// The transmitter's port `from` sends into `d`, which delivers to the receiver's port `to`.
inline void connect(pkt_tx_port& from, link_direction& d, pkt_rx_port to) {
  from.bind(d);
  d.out = to;
}

// A full-duplex link: two directions, which differ only in the receiver's clock.
struct packet_link {
  link_direction a_to_b, b_to_a;
  packet_link(const link_timing& a_to_b, const link_timing& b_to_a, event_queue& events)
      : a_to_b(a_to_b, events), b_to_a(b_to_a, events) {}
  void set_up(bool up) { a_to_b.set_up(up); b_to_a.set_up(up); }
  void fail_now(uint64_t now) { a_to_b.fail_now(now); b_to_a.fail_now(now); }
};

}  // namespace netasic
