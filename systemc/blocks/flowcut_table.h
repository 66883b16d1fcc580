// Flowcut table (Flowcut switching; core, no SystemC). A Flowcut is a run of a flow's packets
// on one path. The table keeps, per flow with bytes in flight, the path and the bytes not yet
// acknowledged; a flow may take a new path only when nothing of it is in flight, so packets
// arrive in order whatever the path delays (§I-D, §II-A). To move a flow off a congested path
// the table pauses its source until the in-flight bytes drain to 0, then the next packet starts
// a new Flowcut (§II-B). Time in picoseconds, sizes in bytes.
//
// Per data packet (on_data): look the key up in the CAM. No entry: create one on the caller's
// candidate port (least-loaded up-port, UGAL, or a random ECMP entropy value on a NIC;
// §II-A, §II-D). Add the bytes to in-flight; stamp the packet (ingress entries) with the time in
// the Flowcut header. While the flow drains, its packets are held, not forwarded.
// Per ACK (on_ack), which carries key, data bytes, the stamp and the hop count (§II-A, §III-A1):
//   rtt = now - stamp (mod 2^stamp_bits, in stamp units) - bytes*8*hops/rate   (tx time, §II-B)
//   minRTT[hops] = min(minRTT[hops], rtt)    one global word per hop count (§II-B)
//   n = rtt / minRTT[hops] in Q8.8 (>= 1)    the normalized RTT (§II-B)
//   in-flight -= bytes; at 0 the entry is deleted (and a draining flow resumes; §II-A, §II-B);
//   otherwise avg = EWMA(n), diff_avg = EWMA(n - last), last = n, and if avg > T_ratio or
//   diff_avg > T_diff the flow starts to drain: pause its source (FGFC XOFF, else PFC; §II-B).
// EWMA weight alpha = 2^-ewma_shift on the new sample, in integers: avg += floor((n - avg) * alpha).
//
// Variants (flowcut_variant; §II, §II-C, §II-D, Table II):
//   full_switch   a table in every switch; the entry also keeps the input port so the ACK goes
//                 back the data's way; only entries of flows entering here (ingress) measure
//                 RTT and drain, the others only count in-flight and re-route when it reaches 0.
//   ingress_only  a table in each ToR for flows of its own hosts; ACKs may come back any way.
//   nic_only      the table in the source NIC; the "port" is the ECMP entropy (e.g. the UDP
//                 source port) and holding a packet means not sending it.
//
// When the table is full (the paper sizes it so it never is, and says nothing more): a packet
// needing a new entry is held (flowcut_full_policy::hold, the default: in order, the caller
// retries when an ACK frees an entry) or forwarded untracked by ECMP without the Flowcut header,
// so no ACK comes back for it (::bypass: in-order no longer guaranteed for that flow).
//
// Caller contract for held packets: keep them per flow in arrival order, queue later packets of
// that flow behind them, and re-submit them (oldest first) after an on_ack that says `resume`
// (that flow) or `freed` (any flow held for a full table).
#pragma once
#include <cstdint>
#include <optional>
#include <unordered_map>

namespace netasic {

enum class flowcut_variant : uint8_t { full_switch, ingress_only, nic_only };
enum class flowcut_full_policy : uint8_t { hold, bypass };
enum class flowcut_action : uint8_t { forward, hold, bypass };

struct flowcut_config {
  flowcut_variant variant = flowcut_variant::full_switch;
  uint32_t capacity = 4096;              // entries (CAM); not stated, size with flowcut_memory_bytes()
  flowcut_full_policy when_full = flowcut_full_policy::hold;
  uint32_t key_bytes = 13;               // 5-tuple key in the CAM (§III-A1)
  uint32_t port_bytes = 1;               // 1 B "for 256-port switches" (§III-A2); 1 or 2
  unsigned inflight_bits = 21;           // 3 B "for up to 2 MiB" (§III-A2): 21 bits count, 3 hold the state
  double rtt_ratio_threshold = 4.0;      // T_ratio: "an RTT ratio of 4" (§III-C2)
  double rtt_diff_threshold = 0.0;       // T_diff on the EWMA of RTT differences; 0 = off (no value given)
  unsigned ewma_shift = 3;               // alpha = 1/8 (weight symbol and value lost, §III-C1)
  unsigned stamp_bits = 16;              // header timestamp: 2 B "RTTs up to 64 microseconds" (§III-A1)
  uint64_t stamp_unit_ps = 1000;         // "nanosecond resolution" (§III-A1)
  uint32_t link_rate_gbps = 200;         // B in the tx-time correction; 200 Gb/s in the evaluation
  // The switch forms' stage (switch/flowcut_stage.h), not the table: the memory for held packets
  // (frame bytes, 0 = bounded by the shared buffer only) and the pause of a draining flow's source.
  uint64_t hold_bytes = 0;
  bool source_pause = false;
};

struct flowcut_data_result {
  flowcut_action action = flowcut_action::forward;
  uint16_t out_port = 0;       // forward: the Flowcut's port (bypass: the caller's ECMP port)
  bool new_flowcut = false;    // this packet created the entry: a new path decision
  bool stamped = false;        // carries the Flowcut header: stamp, hop count 0 (ingress entries)
  uint32_t stamp = 0;
  bool table_full = false;     // needed an entry and found no free one
};

struct flowcut_ack_result {
  bool matched = false;        // an entry was found (else the ACK is ignored)
  int32_t reverse_port = -1;   // full switch: send the ACK out of the data's input port
  bool measured = false;       // an RTT sample was taken (ingress entry)
  uint32_t rtt = 0;            // corrected RTT, stamp units
  uint32_t normalized_q8 = 0;  // rtt / minRTT[hops], Q8.8
  bool pause = false;          // drain starts: pause the flow at its source
  bool ratio_trigger = false, diff_trigger = false;
  bool freed = false;          // in-flight reached 0: the entry is gone, a slot is free
  bool resume = false;         // ... and the flow was draining: resume it (new Flowcut next)
  uint64_t drain_ps = 0;       // resume: how long the drain took
};

// One entry as the table holds it. drain_start_ps is instrumentation, not hardware state.
struct flowcut_entry {
  uint16_t out_port = 0;
  uint16_t in_port = 0;        // full switch only
  uint32_t inflight = 0;       // bytes
  uint16_t avg_q8 = 0;         // EWMA of the normalized RTT; 0 = no sample yet
  uint16_t last_q8 = 0;        // last normalized RTT
  int16_t diff_avg_q8 = 0;     // EWMA of n - last, signed Q7.8
  bool draining = false;
  bool ingress = true;         // measures RTT and may drain
  uint64_t drain_start_ps = 0;
};

struct flowcut_counters {
  uint64_t data_packets = 0, data_bytes = 0;
  uint64_t forwarded = 0;          // data packets forwarded on an entry
  uint64_t flowcuts = 0;           // entries created: each starts a Flowcut (a path decision)
  uint64_t freed = 0;              // entries deleted at in-flight 0
  uint64_t table_full = 0;         // data packets that needed an entry and found the table full
  uint64_t bypassed = 0;           // ... forwarded untracked (bypass policy)
  uint64_t packets_held = 0, bytes_held = 0;   // hold answers: draining, full table, in-flight limit
  uint64_t inflight_limit = 0;     // hold answers because in-flight would pass 2^inflight_bits - 1
  uint64_t acks = 0, acks_unmatched = 0, ack_underflows = 0;
  uint64_t rtt_samples = 0;
  uint64_t drains = 0;             // pauses sent (triggers)
  uint64_t ratio_triggers = 0, diff_triggers = 0;
  uint64_t drains_completed = 0;   // drained to 0 and resumed: forced path switches
  uint64_t drains_cancelled = 0;   // source timeout before the drain ended (§IV-A)
  uint64_t drain_time_ps = 0;      // sum over completed drains
  uint64_t peak_entries = 0;
};

class flowcut_table {
 public:
  // Throws std::invalid_argument naming the field for a bad config.
  explicit flowcut_table(const flowcut_config& cfg);

  // A data packet of flow `key` (bytes >= 1). in_port is kept by the full-switch variant;
  // ingress says the flow enters the network here (full switch; the other variants always are).
  flowcut_data_result on_data(uint64_t key, uint32_t bytes, uint64_t now_ps, uint16_t in_port,
                              uint16_t candidate_port, bool ingress = true);
  // An ACK: the data packet's bytes, the stamp it carried, its hop count (4 bits).
  flowcut_ack_result on_ack(uint64_t key, uint32_t bytes, uint32_t stamp, unsigned hops, uint64_t now_ps);
  // The source gave up waiting (lost ACK): the flow goes on on its old path. False if the key
  // has no draining entry.
  bool cancel_drain(uint64_t key);

  uint32_t stamp_of(uint64_t now_ps) const { return uint32_t((now_ps / cfg_.stamp_unit_ps) & stamp_mask_); }
  std::optional<flowcut_entry> entry(uint64_t key) const;
  size_t entries() const { return table_.size(); }   // flows tracked now
  uint32_t min_rtt(unsigned hops) const { return min_rtt_[hops & 15]; }   // 0 = none yet
  uint32_t ratio_threshold_q8() const { return t_ratio_; }
  uint32_t diff_threshold_q8() const { return t_diff_; }

  uint32_t entry_bytes() const;       // Table III: 11 (full switch) or 10, with 1-byte ports
  uint32_t global_bytes() const;      // minRTT per hop count: 16 words of stamp_bits
  uint64_t memory_bytes() const;      // capacity * (key + entry) + global
  const flowcut_counters& counters() const { return count_; }
  const flowcut_config& config() const { return cfg_; }

 private:
  flowcut_data_result hold(uint32_t bytes, flowcut_data_result r);

  flowcut_config cfg_;
  uint32_t stamp_mask_, port_limit_, inflight_max_, t_ratio_, t_diff_;
  std::unordered_map<uint64_t, flowcut_entry> table_;
  uint32_t min_rtt_[16] = {};
  flowcut_counters count_;
};

// Per-flow bytes of Table III: in port (full switch only) + out port + 3 in-flight + 2 RTT
// average + 4 (last RTT, average difference). Key not included, as in the paper.
uint32_t flowcut_entry_bytes(flowcut_variant v, uint32_t port_bytes = 1);

// The memory model of §III-A2 (Equation 1, rebuilt from the prose): each host has at most
// min(F, ceil(B * L / MTU)) flows with a packet in flight. The full switch holds, at worst, every
// flow in the network; the ingress ToR those of its hosts; the NIC its own (§III-A2, Fig. 4).
struct flowcut_memory_model {
  uint64_t hosts = 1024;
  uint64_t flows_per_host = uint64_t(1) << 20;   // F; large = limited by the BDP
  uint32_t bandwidth_gbps = 200;                 // B, per host
  uint64_t latency_ps = 5'000'000;               // L, ingress to egress (Fig. 4 uses RTTs of 5-50 µs)
  uint32_t mtu_bytes = 2048;                     // not stated; 2048 fits Fig. 4's 7 MiB and 50 MiB
  uint64_t hosts_per_tor = 8;                    // 1024 hosts / 128 ToRs in the simulated fat tree
};
uint64_t flowcut_active_flows_per_host(const flowcut_memory_model& m);
uint64_t flowcut_active_flows(const flowcut_memory_model& m, flowcut_variant v);
uint64_t flowcut_memory_bytes(const flowcut_memory_model& m, flowcut_variant v, uint32_t port_bytes = 1);

}  // namespace netasic
