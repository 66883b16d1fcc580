// Reliable transport of the first endpoint (core, no SystemC): a fixed window of packets,
// per-packet cumulative ACKs, a NAK when a packet arrives out of sequence, and go-back-N on a
// NAK or a retransmission timeout. This is RoCEv2's RC behaviour without congestion control.
#pragma once
#include <algorithm>
#include <cstdint>

namespace netasic {

struct gbn_sender {
  uint32_t total = 0;        // packets in the flow
  uint32_t una = 0;          // oldest unacknowledged
  uint32_t nxt = 0;          // next to send
  uint32_t max_sent = 0;     // one past the highest ever sent (to count retransmissions)
  uint64_t last_progress_ps = 0;

  bool done() const { return una == total; }
  bool can_send(uint32_t window) const { return nxt < total && nxt - una < window; }
  bool is_retransmission() const { return nxt < max_sent; }
  void sent_one() { max_sent = std::max(max_sent, ++nxt); }
  // Cumulative ACK: every packet before `next_expected` arrived. Returns true on progress.
  bool on_ack(uint32_t next_expected, uint64_t now) {
    if (next_expected <= una || next_expected > max_sent) return false;
    una = next_expected;
    nxt = std::max(nxt, una);
    last_progress_ps = now;
    return true;
  }
  // NAK: the receiver expects `next_expected`; everything before it arrived. Go back to it.
  void on_nak(uint32_t next_expected, uint64_t now) {
    on_ack(next_expected, now);
    if (next_expected >= una && next_expected < nxt) nxt = next_expected;
  }
  // Retransmission timeout: nothing acknowledged for `rto` while packets are outstanding.
  bool check_timeout(uint64_t now, uint64_t rto) {
    if (una == nxt || now - last_progress_ps < rto) return false;
    nxt = una;
    last_progress_ps = now;
    return true;
  }
};

struct gbn_receiver {
  enum class reply { ack, nak, none };
  uint32_t expected = 0;
  bool nak_outstanding = false;   // one NAK per gap, as RoCE NICs do
  reply on_data(uint32_t seq) {
    if (seq == expected) {
      ++expected;
      nak_outstanding = false;
      return reply::ack;
    }
    if (seq < expected) return reply::ack;   // duplicate after a go-back: re-acknowledge
    if (nak_outstanding) return reply::none;
    nak_outstanding = true;
    return reply::nak;
  }
};

}  // namespace netasic
