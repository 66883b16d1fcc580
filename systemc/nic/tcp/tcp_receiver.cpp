#include "nic/tcp/tcp_receiver.h"

#include <algorithm>

namespace netasic {

void tcp_receiver::ack_now(tcp_rx_result& r) {
  r.ack[r.acks++] = {rcv_nxt_, ece()};
  unacked_ = 0;
  delack_at_ = never;
}

tcp_rx_result tcp_receiver::on_segment(uint64_t seq, uint32_t len, bool ce, bool cwr, uint64_t now) {
  tcp_rx_result r;
  if (cfg_.cc == tcp_cc::dctcp) {
    if (ce != ce_state_ && unacked_ > 0) ack_now(r);   // the delayed ACK, with the old CE state
    ce_state_ = ce;
  } else {
    if (cwr) ece_ = false;
    if (ce) ece_ = true;
  }
  const uint64_t end = seq + len;
  if (end <= rcv_nxt_) {            // all old: a spurious retransmission, acknowledged at once
    r.duplicate = true;
    ack_now(r);
    return r;
  }
  if (seq > rcv_nxt_) {             // beyond a hole: keep it, and a duplicate ACK at once
    r.out_of_order = true;
    auto [it, fresh] = ooo_.emplace(seq, end);
    if (!fresh) it->second = std::max(it->second, end);
    ack_now(r);
    return r;
  }
  const bool filled = !ooo_.empty();
  rcv_nxt_ = end;
  while (!ooo_.empty() && ooo_.begin()->first <= rcv_nxt_) {
    rcv_nxt_ = std::max(rcv_nxt_, ooo_.begin()->second);
    ooo_.erase(ooo_.begin());
  }
  ++unacked_;
  if (filled || rcv_nxt_ == total_ || unacked_ >= 2 || cfg_.delack_ps == 0) ack_now(r);
  else if (delack_at_ == never) delack_at_ = now + cfg_.delack_ps;
  return r;
}

bool tcp_receiver::on_timer(uint64_t now, tcp_ack& out) {
  if (delack_at_ == never || now < delack_at_) return false;
  tcp_rx_result r;
  ack_now(r);
  out = r.ack[0];
  return true;
}

uint64_t tcp_receiver::buffered_bytes() const {
  uint64_t n = 0;
  for (const auto& [s, e] : ooo_) n += e - s;
  return n;
}

}  // namespace netasic
