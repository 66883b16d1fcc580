// TCP's sending side (core, no SystemC): when segments leave and which. Not a full stack: a
// connection starts established and ends when its last byte is acknowledged; no SACK.
// - Slow start and congestion avoidance, RFC 5681 section 3.1, with appropriate byte counting
//   (RFC 3465: slow start adds min(acked, 2 SMSS), so cwnd doubles per RTT under delayed ACKs;
//   congestion avoidance adds one SMSS per cwnd of bytes acknowledged).
// - Fast retransmit on the third duplicate ACK and NewReno fast recovery with partial ACKs,
//   RFC 6582 section 3.2 (full ACK: cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS)).
// - The retransmission timer of RFC 6298 (SRTT, RTTVAR, Karn's rule, exponential backoff,
//   RTO.min a key: Linux's 200 ms by default); on expiry cwnd = 1 SMSS and go back to SND.UNA.
// - ECN, RFC 3168 section 6.1.2: ECE reduces cwnd once per window of data (NewReno: to
//   max(FlightSize/2, 2 SMSS); DCTCP, RFC 8257 section 3.3: cwnd (1 - alpha/2)) and the next
//   new segment carries CWR. An ACK with ECE does not grow cwnd.
// - CUBIC (RFC 9438, cubic.h): congestion avoidance follows W_cubic, and every congestion event
//   (third duplicate ACK, ECE, timeout) sets ssthresh = cwnd beta instead of FlightSize/2.
// - Every segment sent, retransmissions included, takes the next IPv4 identification.
#pragma once
#include <cstdint>
#include <limits>

#include "nic/tcp/cubic.h"
#include "nic/tcp/dctcp_alpha.h"
#include "nic/tcp/tcp_config.h"

namespace netasic {

struct tcp_segment {
  uint64_t seq = 0;          // first byte (unwrapped)
  uint32_t len = 0;
  bool retransmission = false;
  bool cwr = false;          // RFC 3168: the window was reduced
  bool fin = false;          // carries the flow's last byte
  bool ect = false;          // ECN-capable transport (not on retransmissions, RFC 3168 section 6.1.5)
  uint16_t ip_id = 0;
};

class tcp_sender {
 public:
  static constexpr uint64_t never = std::numeric_limits<uint64_t>::max();
  tcp_sender(const tcp_config& cfg, uint64_t total_bytes);

  bool done() const { return snd_una_ == total_; }
  bool can_send() const;                    // a segment may leave now
  tcp_segment next_segment(uint64_t now);   // only when can_send()
  // A cumulative ACK (unwrapped), its ECE flag and the receiver's window in bytes.
  void on_ack(uint64_t ack, bool ece, uint64_t rwnd, uint64_t now);
  // The retransmission timer at `now`: true when it expired (go back to SND.UNA).
  bool on_timer(uint64_t now);
  uint64_t rto_deadline() const { return rto_expiry_; }

  uint64_t cwnd() const { return cwnd_; }
  uint64_t ssthresh() const { return ssthresh_; }
  uint64_t snd_una() const { return snd_una_; }
  uint64_t snd_nxt() const { return snd_nxt_; }
  uint64_t snd_max() const { return snd_max_; }
  uint64_t recover() const { return recover_; }
  bool in_recovery() const { return in_recovery_; }
  unsigned dupacks() const { return dupacks_; }
  uint64_t rto() const { return rto_; }
  uint64_t srtt() const { return srtt_; }
  uint64_t rttvar() const { return rttvar_; }
  double alpha() const { return dctcp_.alpha(); }
  const cubic_window& cubic() const { return cubic_; }
  uint32_t retransmissions() const { return retransmissions_; }
  uint32_t timeouts() const { return timeouts_; }
  uint32_t fast_retransmits() const { return fast_retransmits_; }
  uint32_t ecn_reductions() const { return ecn_reductions_; }
  uint16_t ip_id() const { return ip_id_; }   // the next segment's

 private:
  void on_new_ack(uint64_t ack, bool ece, uint64_t now);
  void on_dup_ack();
  void grow(uint64_t acked, uint64_t now);
  void on_ece();
  void rtt_sample(uint64_t r);
  uint64_t half_flight() const;
  uint64_t loss_ssthresh();          // ssthresh after a congestion event
  uint32_t seg_len(uint64_t seq) const;

  tcp_config cfg_;
  uint64_t total_, mss_;
  uint64_t snd_una_ = 0, snd_nxt_ = 0, snd_max_ = 0;
  uint64_t cwnd_, ssthresh_ = never, rwnd_;
  uint64_t ca_acked_ = 0;            // congestion avoidance: bytes acknowledged toward one SMSS
  unsigned dupacks_ = 0;
  bool in_recovery_ = false, rtx_pending_ = false, first_partial_ = false;
  uint64_t recover_ = 0;             // RFC 6582: highest byte sent (plus one) at the last loss
  uint64_t ecn_recover_ = 0;         // no new ECE response until SND.UNA passes this
  bool cwr_pending_ = false;
  dctcp_alpha dctcp_;
  cubic_window cubic_;
  // RFC 6298.
  uint64_t srtt_ = 0, rttvar_ = 0, rto_;
  bool have_rtt_ = false, timing_ = false;
  uint64_t timed_end_ = 0, timed_at_ = 0;   // the segment being timed: its end and send time
  uint64_t rto_expiry_ = never;
  unsigned backoffs_ = 0;            // timeouts since the last new ACK
  uint32_t retransmissions_ = 0, timeouts_ = 0, fast_retransmits_ = 0, ecn_reductions_ = 0;
  uint16_t ip_id_ = 0;
};

}  // namespace netasic
