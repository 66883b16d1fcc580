#include "nic/host.h"

#include <algorithm>

namespace netasic {

host_nic::host_nic(sc_core::sc_module_name name, const nic_config& cfg, run_stats& stats,
                   std::vector<flow_ctx>& flows, event_queue& events)
    : sc_core::sc_module(name),
      tx("tx"),
      rx("rx", *this, 0),
      cfg_(cfg),
      stats_(stats),
      flows_(flows),
      events_(events) {
}

void host_nic::start_flow(uint32_t id) {
  flow_ctx& f = flows_[id];
  f.snd.total = uint32_t((f.size_bytes + cfg_.mtu_payload - 1) / cfg_.mtu_payload);
  f.snd.last_progress_ps = now_ps();
  active_.push_back(id);
  if (!rto_scheduled_) {
    rto_scheduled_ = true;
    events_.schedule(now_ps() + cfg_.rto_ps / 2, rto_timer_);
  }
  try_send();
}

packet* host_nic::make_data(flow_ctx& f) {
  packet* p = stats_.pool.alloc();
  ++stats_.sent;
  const uint32_t seq = f.snd.nxt;
  p->kind = pkt_kind::data;
  p->flow = f.id;
  p->seq = seq;
  p->payload_bytes = uint32_t(std::min<uint64_t>(cfg_.mtu_payload, f.size_bytes - uint64_t(seq) * cfg_.mtu_payload));
  p->int_enabled = cfg_.int_enabled;
  p->eth.ethertype = 0x0800;
  p->eth.src_mac = 0x020000000000ull | f.src;
  p->eth.dst_mac = 0x020000000000ull | f.dst;
  p->ip.version = 4;
  p->ip.ihl = 5;
  p->ip.ecn = 1;   // ECT(1): RoCEv2 traffic is ECN-capable
  p->ip.dscp = uint8_t(cfg_.data_priority << 3);
  p->prio = cfg_.data_priority;
  p->ip.ttl = 64;
  p->ip.protocol = 17;
  p->ip.src = ip_of(f.src);
  p->ip.dst = ip_of(f.dst);
  p->udp.src_port = f.src_port;
  p->udp.dst_port = udp_header::rocev2_port;
  p->bth.opcode = 0x0A;   // RC RDMA WRITE Only
  p->bth.dest_qp = f.id & 0xFFFFFFu;
  p->bth.ack_req = 1;
  p->bth.psn = seq & 0xFFFFFFu;
  p->ip.total_length = uint16_t(p->frame_bytes() - eth_header::bytes - eth_header::fcs_bytes);
  p->udp.length = uint16_t(p->ip.total_length - ipv4_header::bytes);
  if (f.snd.is_retransmission()) ++f.retransmitted;
  f.snd.sent_one();
  return p;
}

bool host_nic::pick_flow(uint32_t& flow) {
  for (size_t n = 0; n < active_.size(); ++n) {
    rr_ = (rr_ + 1) % active_.size();
    const uint32_t id = active_[rr_];
    if (flows_[id].snd.can_send(cfg_.window_packets)) {
      flow = id;
      return true;
    }
  }
  return false;
}

void host_nic::try_send() {
  if (armed_at_ != UINT64_MAX) return;   // a wake-up is pending and will call again
  const uint64_t now = now_ps();
  if (free_ps_ > now) {
    if (!active_.empty()) arm(free_ps_);
    return;
  }
  if (pause_.paused(now) >> cfg_.data_priority & 1) {
    // Paused: wait for the pause to run out, or for a resume (which calls again).
    const uint64_t until = pause_.resumes(uint8_t(1u << cfg_.data_priority), now);
    if (until != UINT64_MAX && !active_.empty()) arm(until);
    return;
  }
  uint32_t flow;
  if (!pick_flow(flow)) return;   // window-limited or idle; an ACK or a new flow calls again
  packet* p = make_data(flows_[flow]);
  free_ps_ = tx_if_->pkt_transport(*p, now);
  arm(free_ps_);
}

void host_nic::arm(uint64_t at) {
  if (at >= armed_at_) return;
  armed_at_ = at;
  events_.schedule(at, *this);
}

void host_nic::send_control(packet& p, uint64_t now) {
  // ACK/NAK frames go ahead of data: they take the wire as soon as the current frame is out.
  // Their start time is known now, so they need no event, unless their priority is paused.
  if (!control_.empty() || pause_.paused(now) >> cfg_.ack_priority & 1) {
    control_.push_back(&p);
    return;
  }
  free_ps_ = tx_if_->pkt_transport(p, std::max(now, free_ps_));
}

void host_nic::send_held_control(uint64_t now) {
  while (!control_.empty() && !(pause_.paused(now) >> cfg_.ack_priority & 1)) {
    free_ps_ = tx_if_->pkt_transport(*control_.front(), std::max(now, free_ps_));
    control_.pop_front();
  }
}

void host_nic::end_of_elaboration() { tx_if_ = tx.get_interface(0); }

void host_nic::wake(uint64_t now) {
  if (now != armed_at_) return;   // superseded by an earlier wake-up
  armed_at_ = UINT64_MAX;
  send_held_control(now);
  try_send();
}

void host_nic::pkt_receive(unsigned, packet& p, uint64_t now) {
  if (p.kind == pkt_kind::pause) {
    ++pause_.frames_received;
    const uint64_t effect = now + cfg_.pfc_response_cycles * cfg_.clock_period_ps;
    pause_.apply(p.pfc, effect, cfg_.rate_bps);
    stats_.release(p);
    // Whatever the frame says, look again once it has taken effect.
    arm(effect);
    return;
  }
  if (p.kind == pkt_kind::mirror) {   // a collector counts its copies and drops them
    ++mirror_received_;
    mirror_bytes_ += p.frame_bytes();
    return stats_.release(p);
  }
  ++stats_.delivered;
  flow_ctx& f = flows_[p.flow];
  if (p.kind == pkt_kind::data) {
    if (p.ip.ecn == 3) ++f.ecn_marked;
    const auto r = f.rcv.on_data(p.seq);
    if (r == gbn_receiver::reply::none) {
      stats_.pool.release(&p);
      return;
    }
    // The delivered data packet's buffer becomes the ACK/NAK: swap the addresses, drop payload.
    // The ACK counts as sent from here; until the wire takes it, it is in flight in the NIC.
    ++stats_.sent;
    p.kind = r == gbn_receiver::reply::ack ? pkt_kind::ack : pkt_kind::nak;
    p.seq = f.rcv.expected;
    p.payload_bytes = 0;
    std::swap(p.ip.src, p.ip.dst);
    const uint64_t mac = p.eth.src_mac;
    p.eth.src_mac = p.eth.dst_mac;
    p.eth.dst_mac = mac;
    p.bth.opcode = 0x11;   // RC Acknowledge
    p.ip.dscp = uint8_t(cfg_.ack_priority << 3);
    p.ip.ecn = 0;
    p.prio = cfg_.ack_priority;
    p.tuple_crc_valid = false;   // the 5-tuple is reversed
    p.bth.psn = p.seq & 0xFFFFFFu;
    p.ip.total_length = uint16_t(p.frame_bytes() - eth_header::bytes - eth_header::fcs_bytes);
    p.udp.length = uint16_t(p.ip.total_length - ipv4_header::bytes);
    send_control(p, now);
    return;
  }
  const uint32_t seq = p.seq;
  const bool nak = p.kind == pkt_kind::nak;
  stats_.pool.release(&p);
  if (f.snd.done()) return;   // late duplicate
  if (nak) f.snd.on_nak(seq, now);
  else f.snd.on_ack(seq, now);
  if (f.snd.done()) {
    f.finish_ps = now;
    active_.erase(std::find(active_.begin(), active_.end(), f.id));
    if (on_flow_done) on_flow_done(f);
  }
  try_send();
}

void host_nic::on_rto_check(uint64_t now) {
  for (uint32_t id : active_)
    if (flows_[id].snd.check_timeout(now, cfg_.rto_ps)) ++flows_[id].timeouts;
  rto_scheduled_ = !active_.empty();
  if (rto_scheduled_) events_.schedule(now + cfg_.rto_ps / 2, rto_timer_);
  try_send();
}

}  // namespace netasic
