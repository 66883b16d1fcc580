// TCP's receiving side (core, no SystemC): cumulative ACKs over byte sequence numbers,
// out-of-order segments kept until the hole is filled, no SACK.
// - RFC 5681 section 4.2 / RFC 1122 4.2.3.2: an ACK for at least every second full-sized
//   segment, or when the delayed-ACK timer runs out; an immediate duplicate ACK for a segment
//   out of order and an immediate ACK for one that fills (part of) a hole. The flow's last
//   segment carries FIN and is acknowledged at once (RFC 9293 section 3.10.7.4).
// - ECN, RFC 3168 section 6.1.3: after a CE-marked segment every ACK carries ECE until a
//   segment with CWR arrives.
// - DCTCP, RFC 8257 section 3.2: each ACK's ECE is the CE state of the segments it covers; when
//   that state changes with an ACK delayed, the delayed ACK goes at once with the old state.
#pragma once
#include <cstdint>
#include <limits>
#include <map>

#include "nic/tcp/tcp_config.h"

namespace netasic {

struct tcp_ack {
  uint64_t ack = 0;   // next byte expected (unwrapped)
  bool ece = false;
};

// What one segment asks of the receiver: up to two ACKs to send now (DCTCP's state change
// sends the delayed one first).
struct tcp_rx_result {
  unsigned acks = 0;
  tcp_ack ack[2];
  bool duplicate = false;     // every byte was already received
  bool out_of_order = false;  // arrived beyond a hole
};

class tcp_receiver {
 public:
  static constexpr uint64_t never = std::numeric_limits<uint64_t>::max();
  tcp_receiver(const tcp_config& cfg, uint64_t total_bytes) : cfg_(cfg), total_(total_bytes) {}

  tcp_rx_result on_segment(uint64_t seq, uint32_t len, bool ce, bool cwr, uint64_t now);
  // The delayed-ACK timer at `now`: true (and the ACK in `out`) when it ran out.
  bool on_timer(uint64_t now, tcp_ack& out);
  uint64_t delack_deadline() const { return delack_at_; }
  uint64_t rcv_nxt() const { return rcv_nxt_; }
  bool complete() const { return rcv_nxt_ == total_; }
  uint64_t buffered_bytes() const;   // held out of order

 private:
  bool ece() const { return cfg_.cc == tcp_cc::dctcp ? ce_state_ : ece_; }
  void ack_now(tcp_rx_result& r);

  tcp_config cfg_;
  uint64_t total_;
  uint64_t rcv_nxt_ = 0;
  std::map<uint64_t, uint64_t> ooo_;   // out-of-order byte ranges: start -> end
  unsigned unacked_ = 0;               // in-order segments not yet acknowledged
  uint64_t delack_at_ = never;
  bool ece_ = false;                   // RFC 3168: echoing CE until CWR
  bool ce_state_ = false;              // RFC 8257: DCTCP.CE
};

}  // namespace netasic
