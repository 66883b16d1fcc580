#include "nic/tcp/tcp_sender.h"

#include <algorithm>

namespace netasic {

tcp_sender::tcp_sender(const tcp_config& cfg, uint64_t total_bytes)
    : cfg_(cfg),
      total_(total_bytes),
      mss_(cfg.mss_bytes),
      cwnd_(uint64_t(cfg.init_cwnd_segments) * cfg.mss_bytes),
      rwnd_(cfg.rwnd_bytes),
      dctcp_(cfg.dctcp_g),
      cubic_(cfg.cubic_beta, cfg.cubic_c),
      rto_(cfg.rto_initial_ps) {}

uint32_t tcp_sender::seg_len(uint64_t seq) const { return uint32_t(std::min(mss_, total_ - seq)); }

bool tcp_sender::can_send() const {
  if (rtx_pending_) return true;   // RFC 5681 section 3.2 step 2: the lost segment goes regardless
  if (snd_nxt_ >= total_) return false;
  return snd_nxt_ + seg_len(snd_nxt_) <= snd_una_ + std::min(cwnd_, rwnd_);
}

tcp_segment tcp_sender::next_segment(uint64_t now) {
  tcp_segment s;
  if (rtx_pending_) {   // fast retransmit, or a partial ACK's next hole
    rtx_pending_ = false;
    s.seq = snd_una_;
  } else {
    s.seq = snd_nxt_;
  }
  s.len = seg_len(s.seq);
  s.retransmission = s.seq < snd_max_;
  if (s.seq == snd_nxt_) snd_nxt_ += s.len;
  snd_max_ = std::max(snd_max_, snd_nxt_);
  if (s.retransmission) {
    ++retransmissions_;
    timing_ = false;   // Karn: no RTT sample across a retransmission
  } else {
    if (!timing_) {
      timing_ = true;
      timed_end_ = s.seq + s.len;
      timed_at_ = now;
    }
    s.cwr = cwr_pending_;
    cwr_pending_ = false;
  }
  s.fin = s.seq + s.len == total_;
  s.ect = cfg_.ecn_capable() && !s.retransmission;
  s.ip_id = ip_id_++;
  if (rto_expiry_ == never) rto_expiry_ = now + rto_;   // RFC 6298 (5.1)
  return s;
}

void tcp_sender::on_ack(uint64_t ack, bool ece, uint64_t rwnd, uint64_t now) {
  if (ack > snd_max_) return;   // acknowledges nothing sent: ignored (RFC 9293 section 3.10.7.4)
  rwnd_ = rwnd;
  const uint64_t acked = ack > snd_una_ ? ack - snd_una_ : 0;
  if (cfg_.cc == tcp_cc::dctcp) dctcp_.on_ack(acked, ece, std::max(ack, snd_una_), snd_max_);
  if (acked) on_new_ack(ack, ece, now);
  else if (ack == snd_una_ && snd_max_ > snd_una_) on_dup_ack();
  if (ece && cfg_.ecn_capable()) on_ece();
}

void tcp_sender::on_new_ack(uint64_t ack, bool ece, uint64_t now) {
  const uint64_t acked = ack - snd_una_;
  if (timing_ && ack >= timed_end_) {
    timing_ = false;
    rtt_sample(now - timed_at_);
  }
  snd_una_ = ack;
  snd_nxt_ = std::max(snd_nxt_, ack);
  backoffs_ = 0;
  bool restart = true;
  if (in_recovery_) {
    if (ack >= recover_) {   // full ACK: RFC 6582 section 3.2 step 3, option 1
      cwnd_ = std::min(ssthresh_, std::max(snd_max_ - snd_una_, mss_) + mss_);
      in_recovery_ = false;
      dupacks_ = 0;
    } else {                 // partial ACK, step 5: retransmit the next hole, deflate
      rtx_pending_ = true;
      cwnd_ = cwnd_ > acked ? cwnd_ - acked : 0;
      if (acked >= mss_) cwnd_ += mss_;
      cwnd_ = std::max(cwnd_, mss_);
      restart = first_partial_;   // only the first partial ACK resets the timer
      first_partial_ = false;
    }
  } else {
    dupacks_ = 0;
    if (!ece) grow(acked, now);   // RFC 3168 section 6.1.2: no increase on an ECN-Echo ACK
  }
  if (snd_una_ == snd_max_) rto_expiry_ = never;     // RFC 6298 (5.2)
  else if (restart) rto_expiry_ = now + rto_;        // (5.3)
}

void tcp_sender::grow(uint64_t acked, uint64_t now) {
  if (cwnd_ < ssthresh_) {   // slow start, RFC 3465 with L = 2 SMSS
    cwnd_ += std::min(acked, 2 * mss_);
    return;
  }
  if (cfg_.cc == tcp_cc::cubic) {
    cwnd_ = cubic_.on_ack(cwnd_, acked, mss_, srtt_, now);
    return;
  }
  ca_acked_ += acked;        // congestion avoidance, RFC 5681 section 3.1 (byte counting)
  if (ca_acked_ >= cwnd_) {
    ca_acked_ -= cwnd_;
    cwnd_ += mss_;
  }
}

uint64_t tcp_sender::half_flight() const { return std::max((snd_max_ - snd_una_) / 2, 2 * mss_); }   // RFC 5681 (4)

uint64_t tcp_sender::loss_ssthresh() {
  return cfg_.cc == tcp_cc::cubic ? cubic_.on_congestion(cwnd_, mss_) : half_flight();
}

void tcp_sender::on_dup_ack() {
  ++dupacks_;
  if (in_recovery_) {        // RFC 6582 step 4: inflate by one SMSS per further duplicate
    cwnd_ += mss_;
    return;
  }
  // Step 2: the third duplicate starts fast retransmit only if the ACK covers more than
  // recover (after a timeout, duplicates of retransmitted data do not).
  if (dupacks_ != 3 || snd_una_ < recover_) return;
  ssthresh_ = loss_ssthresh();
  recover_ = snd_max_;
  cwnd_ = ssthresh_ + 3 * mss_;
  in_recovery_ = true;
  rtx_pending_ = true;
  first_partial_ = true;
  ++fast_retransmits_;
}

void tcp_sender::on_ece() {
  // Once per window, and not on top of a loss response in the same window.
  if (in_recovery_ || snd_una_ < ecn_recover_ || snd_max_ == snd_una_) return;
  if (cfg_.cc == tcp_cc::dctcp) ssthresh_ = std::max(uint64_t(double(cwnd_) * (1.0 - dctcp_.alpha() / 2)), 2 * mss_);
  else ssthresh_ = loss_ssthresh();
  cwnd_ = ssthresh_;
  ca_acked_ = 0;
  ecn_recover_ = snd_max_;
  cwr_pending_ = true;
  ++ecn_reductions_;
}

void tcp_sender::rtt_sample(uint64_t r) {
  if (!have_rtt_) {          // RFC 6298 (2.2)
    have_rtt_ = true;
    srtt_ = r;
    rttvar_ = r / 2;
  } else {                   // (2.3): RTTVAR from the old SRTT, beta = 1/4, alpha = 1/8
    const uint64_t diff = srtt_ > r ? srtt_ - r : r - srtt_;
    rttvar_ = (3 * rttvar_ + diff) / 4;
    srtt_ = (7 * srtt_ + r) / 8;
  }
  rto_ = std::clamp(srtt_ + std::max<uint64_t>(1, 4 * rttvar_), cfg_.rto_min_ps, cfg_.rto_max_ps);   // (2.3), (2.4), (2.5)
}

bool tcp_sender::on_timer(uint64_t now) {
  if (rto_expiry_ == never || now < rto_expiry_) return false;
  ++timeouts_;
  // RFC 5681 (4), held on a repeated timeout of the same data; cwnd = LW = 1 SMSS.
  if (backoffs_++ == 0) ssthresh_ = loss_ssthresh();
  cwnd_ = mss_;
  ca_acked_ = 0;
  recover_ = snd_max_;       // RFC 6582 section 3.2 step 4
  snd_nxt_ = snd_una_;       // RFC 6298 (5.4): the earliest unacknowledged segment goes again
  in_recovery_ = rtx_pending_ = timing_ = false;
  dupacks_ = 0;
  rto_ = std::min(2 * rto_, cfg_.rto_max_ps);   // (5.5)
  rto_expiry_ = now + rto_;                     // (5.6)
  return true;
}

}  // namespace netasic
