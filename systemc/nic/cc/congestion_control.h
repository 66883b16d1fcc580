// The NIC's congestion-control module (core, no SystemC): the interface the flow scheduler and
// the RX pipe talk to. One object per queue pair (flow), created when the QP is. Time is in
// picoseconds, sizes in bytes, rates in bits per second.
//
// - The RX pipe hands it every ACK/NAK (on_ack), after the module's `update_cycles()`.
// - The flow scheduler asks it, before each packet, for the pacing rate (rate_bps) and the
//   sending window (window_bytes: bytes sent and not yet acknowledged may not exceed it), and
//   tells it about each packet sent (on_send).
// - DCQCN's notification point sends CNPs; the reaction point gets them through on_cnp.
#pragma once
#include <cstdint>

#include "protocol/headers.h"

namespace netasic {

// What the RX pipe extracts from one ACK (or NAK) for the CC module.
struct cc_feedback {
  uint64_t now_ps = 0;
  uint64_t ack_bytes = 0;       // cumulative: every byte before this has arrived (the ACK's seq)
  uint64_t snd_nxt_bytes = 0;   // the sender's next byte to send, when the ACK is handled
  uint64_t newly_acked_bytes = 0;
  bool ecn_echo = false;        // the data packet it acknowledges arrived CE-marked (DCTCP)
  uint64_t rtt_ps = 0;          // now minus the acknowledged packet's send time; 0 = not measured
  const int_stack* intx = nullptr;   // the INT records the receiver copied into the ACK (HPCC)
};

// a·b/c through a 128-bit product: a rate (bps) times a time (ps) overflows 64 bits.
inline uint64_t mul_div(uint64_t a, uint64_t b, uint64_t c) {
  __extension__ typedef unsigned __int128 u128;
  return static_cast<uint64_t>(static_cast<u128>(a) * b / c);
}

// Bits per byte times picoseconds per second: bytes = rate_bps · t_ps / ps_bits_per_byte.
constexpr uint64_t ps_bits_per_byte = 8'000'000'000'000;

class congestion_control {
 public:
  virtual ~congestion_control() = default;
  virtual const char* name() const = 0;
  virtual void on_ack(const cc_feedback& fb) = 0;
  virtual void on_cnp(uint64_t /*now_ps*/) {}
  virtual void on_send(uint64_t /*now_ps*/, uint32_t /*bytes*/) {}
  // Pacing rate at `now_ps` (timer-driven algorithms catch up on their timers here).
  virtual uint64_t rate_bps(uint64_t now_ps) = 0;
  // Cap on bytes in flight; UINT64_MAX = no window.
  virtual uint64_t window_bytes() const = 0;
  // Cycles of the NIC clock the module takes per ACK.
  virtual uint32_t update_cycles() const = 0;
};

}  // namespace netasic
