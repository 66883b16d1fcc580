#include "nic/host.h"

#include <algorithm>

#include "tlm/link.h"

namespace netasic {

host_nic::host_nic(sc_core::sc_module_name name, const nic_config& cfg, run_stats& stats,
                   std::vector<flow_ctx>& flows, event_queue& events)
    : nic_endpoint(name, cfg.registers),
      cfg_(cfg),
      stats_(stats),
      flows_(flows),
      engine_qps_(cfg.sched_engines, 0),
      events_(events) {
  if (cfg.flowcut) {
    flowcut_ = std::make_unique<flowcut_table>(cfg.flowcut_table);
    flowcut_rng_ = lazy_rng(cfg.flowcut_seed);
  }
}

void host_nic::start_flow(uint32_t id) {
  flow_ctx& f = flows_[id];
  f.snd.total = uint32_t((f.size_bytes + cfg_.mtu_payload - 1) / cfg_.mtu_payload);
  f.snd.last_progress_ps = now_ps();
  f.cc = make_cc(cfg_.cc, cfg_.rate_bps);
  f.np = dcqcn_np(cfg_.cc.cnp_interval_ps);   // the receiver's notification point
  f.pace.reset();
  f.scan_ok_ps = 0;
  active_.push_back(id);
  unsigned& qps = engine_qps_[id % cfg_.sched_engines];
  sched_.peak_qps_per_engine = std::max(sched_.peak_qps_per_engine, ++qps);
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
  p->sent_ps = now_ps();
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
  p->ip.identification = f.ip_id++;   // consecutive per connection, retransmissions too (DETER reads drops from gaps)
  p->ip.protocol = 17;
  p->ip.src = host_ip(f.src);
  p->ip.dst = host_ip(f.dst);
  p->udp.src_port = f.src_port;
  p->fc_valid = f.fc_stamped;
  p->fc_stamp = f.fc_stamp;
  p->udp.dst_port = udp_header::rocev2_port;
  p->bth.opcode = 0x0A;   // RC RDMA WRITE Only
  p->bth.dest_qp = f.id & 0xFFFFFFu;
  p->bth.ack_req = 1;
  p->bth.psn = seq & 0xFFFFFFu;
  p->ip.total_length = uint16_t(p->frame_bytes() - eth_header::bytes - eth_header::fcs_bytes);
  p->udp.length = uint16_t(p->ip.total_length - ipv4_header::bytes);
  p->fc_bytes = uint16_t(p->frame_bytes());
  if (f.snd.is_retransmission()) ++f.retransmitted;
  f.snd.sent_one();
  return p;
}

bool host_nic::window_open(const flow_ctx& f) const {
  if (!f.cc) return true;
  return seq_bytes(f, f.snd.nxt) - seq_bytes(f, f.snd.una) < f.cc->window_bytes();
}

bool host_nic::pick_flow(uint64_t now, uint32_t& flow) {
  // Round-robin over the QPs that have a packet to send and room in both windows; the first
  // whose credit and engine visit are due goes. Otherwise wake up when the earliest is due.
  uint64_t earliest = UINT64_MAX, earliest_paced = 0;
  for (size_t n = 0; n < active_.size(); ++n) {
    rr_ = (rr_ + 1) % active_.size();
    flow_ctx& f = flows_[active_[rr_]];
    if (!f.snd.can_send(cfg_.window_packets) || f.fc_paused) continue;
    if (!window_open(f)) {
      f.window_blocked = true;
      continue;
    }
    repace(f, now);
    const uint64_t due = std::max(f.pace.next_ps(), f.scan_ok_ps);
    if (due <= now) {
      flow = f.id;
      return true;
    }
    if (due < earliest) {
      earliest = due;
      earliest_paced = f.pace.next_ps();
    }
  }
  if (earliest == UINT64_MAX) return false;   // window-limited or idle; an ACK or a new flow calls again
  // The wire idles until then; when the engine's scan, not the credit, decides it, that is the
  // scheduler falling short of the rate the QP was allowed. A later call before then counts
  // only the time it adds.
  const uint64_t from = std::max({now, earliest_paced, scan_counted_until_});
  if (earliest > earliest_paced && earliest > from) {
    sched_.scan_bound_ps += earliest - from;
    scan_counted_until_ = earliest;
  }
  arm(earliest);
  return false;
}

bool host_nic::flowcut_admit(flow_ctx& f, uint64_t now) {
  // The next packet's bytes enter the table. A packet that starts a new Flowcut (nothing of the
  // flow in flight) takes fresh ECMP entropy: the UDP source port, so the switches hash it anew.
  packet next;   // its frame size, as the ACK will echo it
  next.payload_bytes = uint32_t(seq_bytes(f, f.snd.nxt + 1) - seq_bytes(f, f.snd.nxt));
  next.int_enabled = cfg_.int_enabled;
  const flowcut_data_result r = flowcut_->on_data(f.id, next.frame_bytes(), now, 0, uint16_t(flowcut_rng_.below(16384)));
  if (r.action == flowcut_action::hold) {
    f.fc_paused = true;
    if (r.table_full) flowcut_full_.push_back(f.id);
    return false;
  }
  if (r.new_flowcut) f.src_port = uint16_t(49152 + r.out_port % 16384);
  f.fc_stamped = r.stamped;
  f.fc_stamp = uint16_t(r.stamp);
  return true;
}

void host_nic::flowcut_ack(flow_ctx& f, const packet& p, uint64_t now) {
  if (!p.fc_valid) return;
  const flowcut_ack_result r = flowcut_->on_ack(f.id, p.fc_bytes, p.fc_stamp, p.hops, now);
  if (r.pause) f.fc_paused = true;    // drain: send nothing more until every byte is acknowledged
  if (r.resume) f.fc_paused = false;  // drained: the next packet starts a new Flowcut
  if (r.freed) {
    for (uint32_t id : flowcut_full_) flows_[id].fc_paused = false;
    flowcut_full_.clear();
  }
}

void host_nic::try_send() {
  if (wake_.armed()) return;   // a wake-up is pending and will call again
  const uint64_t now = now_ps();
  if (replaying_) return replay_send(now);
  // The TX pipe takes tx_pipe_cycles to reach the MAC: schedule that far ahead of a free wire.
  const uint64_t lead = cfg_.tx_pipe_ps();
  if (free_ps_ > now + lead) {
    if (!active_.empty()) arm(free_ps_ - lead);
    return;
  }
  if (pause_.paused(now) >> cfg_.data_priority & 1) {
    // Paused: wait for the pause to run out, or for a resume (which calls again).
    const uint64_t until = pause_.resumes(uint8_t(1u << cfg_.data_priority), now);
    if (until != UINT64_MAX && !active_.empty()) arm(until);
    return;
  }
  uint32_t id;
  if (!pick_flow(now, id)) return;
  flow_ctx& f = flows_[id];
  if (flowcut_ && !flowcut_admit(f, now)) return try_send();   // held: another QP may go
  packet* p = make_data(f);
  const uint64_t start = std::max(now + lead, free_ps_);
  const uint32_t bytes = p->frame_bytes();
  data_bytes_sent_ += bytes;
  free_ps_ = tx.send(*p, start);
  // Credit: the next frame may start one frame time at the pacing rate later. The engine visits
  // the QP again after a round over its active QPs.
  // Every CC module keeps its rate within [min rate, line rate]; the bounds only guard the division.
  const uint64_t rate = f.cc ? std::clamp<uint64_t>(f.cc->rate_bps(now), 1, cfg_.rate_bps) : cfg_.rate_bps;
  f.pace.sent(start - lead, bytes, rate);
  f.scan_ok_ps = now + uint64_t(engine_qps_[id % cfg_.sched_engines]) * cfg_.sched_visit_cycles * cfg_.clock_period_ps;
  if (f.cc) f.cc->on_send(now, bytes);
  arm(free_ps_ - lead);
}

void host_nic::replay_send(uint64_t now) {
  while (trace_next_ < trace_.size()) {
    const trace_packet& t = trace_[trace_next_];
    const uint8_t prio = uint8_t(t.dscp >> 3);
    if (pause_.paused(now) >> prio & 1) {
      const uint64_t until = pause_.resumes(uint8_t(1u << prio), now);
      if (until != UINT64_MAX) arm(until);
      return;   // or a resume calls again
    }
    const uint64_t at = std::max(t.time_ps, free_ps_);
    if (at > now) return arm(at);
    packet* p = stats_.pool.alloc();
    ++stats_.sent;
    p->ip.protocol = t.protocol;
    const uint32_t header = p->is_tcp() ? eth_header::bytes + ipv4_header::bytes + tcp_header::bytes + eth_header::fcs_bytes
                                        : eth_header::bytes + ipv4_header::bytes + udp_header::bytes + rocev2_bth::bytes +
                                              rocev2_bth::icrc_bytes + eth_header::fcs_bytes;
    p->payload_bytes = t.frame_bytes - header;   // a record holds frames of 64 bytes and more
    p->eth.ethertype = 0x0800;
    p->eth.src_mac = 0x020000000000ull | t.src;
    p->eth.dst_mac = 0x020000000000ull | t.dst;
    p->ip.version = 4;
    p->ip.ihl = 5;
    p->ip.src = host_ip(t.src);
    p->ip.dst = host_ip(t.dst);
    p->ip.identification = t.ip_id;
    p->ip.ecn = t.ecn;
    p->ip.dscp = t.dscp;
    p->prio = prio;
    p->ip.total_length = uint16_t(t.frame_bytes - eth_header::bytes - eth_header::fcs_bytes);
    if (p->is_tcp()) {
      p->tcp.src_port = t.src_port;
      p->tcp.dst_port = t.dst_port;
    } else {
      p->udp.src_port = t.src_port;
      p->udp.dst_port = t.dst_port;
      p->udp.length = uint16_t(p->ip.total_length - ipv4_header::bytes);
    }
    p->deter_tag = t.drop_tag;
    p->sent_ps = now;
    ++trace_next_;
    data_bytes_sent_ += t.frame_bytes;
    free_ps_ = tx.send(*p, now);
  }
}

// A rate update applies to the frame not yet sent (qp_pacer: HPCC's scheduler re-times it).
void host_nic::repace(flow_ctx& f, uint64_t now) {
  if (f.cc) f.pace.retime(std::clamp<uint64_t>(f.cc->rate_bps(now), 1, cfg_.rate_bps));
}

// After an ACK or CNP changed f's rate or window: if f can now go before the pending wake-up,
// wake earlier (a later wake-up than needed would hold the new rate back).
void host_nic::rearm_for(const flow_ctx& f, uint64_t now) {
  if (!wake_.armed() || f.snd.done() || !f.snd.can_send(cfg_.window_packets) || f.fc_paused || !window_open(f)) return;
  const uint64_t due = std::max({f.pace.next_ps(), f.scan_ok_ps, now});
  if (due < wake_.at()) arm(due);
}

void host_nic::arm(uint64_t at) {
  if (wake_.arm(at)) events_.schedule(at, *this);
}

void host_nic::wake(uint64_t now) {
  if (!wake_.fire(now)) return;   // superseded by an earlier wake-up
  send_held_control(now, cfg_.ack_priority);
  try_send();
}

void host_nic::pkt_receive(unsigned, packet& p, uint64_t now) {
  uint64_t effect = timer::never;
  if (take_mac_frame(p, now, cfg_.pfc_response_cycles * cfg_.clock_period_ps, cfg_.rate_bps, stats_, effect)) {
    if (effect != timer::never) arm(effect);   // a PAUSE: whatever it says, look again once it has taken effect
    return;
  }
  ++stats_.delivered;
  if (replaying_) return stats_.pool.release(&p);   // DETER replay: no transport answers
  flow_ctx& f = flows_[p.flow];
  if (p.kind == pkt_kind::data) {
    const bool ce = p.ip.ecn == 3;
    if (ce) ++f.ecn_marked;
    if (f.any_data && p.path_sig != f.last_path_sig) ++f.path_changes;
    f.any_data = true;
    f.last_path_sig = p.path_sig;
    f.count_path(p);
    if (p.seq > f.rcv.expected) {   // ahead of the next expected PSN: reordered (or one before it was lost)
      ++f.out_of_order;
      f.max_reorder = std::max(f.max_reorder, p.seq - f.rcv.expected);
    }
    // DCQCN's notification point: at most one CNP per QP per interval, for CE-marked data.
    if (ce && cfg_.cc.algorithm == cc_algorithm::dcqcn && f.np.should_send_cnp(now, true)) send_cnp(f, p, now);
    const auto r = f.rcv.on_data(p.seq);
    if (r == gbn_receiver::reply::none) {
      stats_.pool.release(&p);
      return;
    }
    // The delivered data packet's buffer becomes the ACK/NAK: swap the addresses, drop payload,
    // keep the INT records (HPCC's receiver copies them into the ACK) and the send time.
    // The ACK counts as sent from here; until the wire takes it, it is in flight in the NIC.
    ++stats_.sent;
    p.kind = r == gbn_receiver::reply::ack ? pkt_kind::ack : pkt_kind::nak;
    p.seq = f.rcv.expected;
    p.payload_bytes = 0;
    p.ce_echo = ce;
    std::swap(p.ip.src, p.ip.dst);
    p.ip.ttl = ipv4_header::initial_ttl;
    const uint64_t mac = p.eth.src_mac;
    p.eth.src_mac = p.eth.dst_mac;
    p.eth.dst_mac = mac;
    p.bth.opcode = 0x11;   // RC Acknowledge
    p.ip.dscp = uint8_t(cfg_.ack_priority << 3);
    p.ip.ecn = 0;
    p.prio = cfg_.ack_priority;
    p.tuple_crc_valid = false;   // the 5-tuple is reversed
    p.ip.identification = f.ack_ip_id++;
    p.bth.psn = p.seq & 0xFFFFFFu;
    p.ip.total_length = uint16_t(p.frame_bytes() - eth_header::bytes - eth_header::fcs_bytes);
    p.udp.length = uint16_t(p.ip.total_length - ipv4_header::bytes);
    send_control(p, now + cfg_.tx_pipe_ps(), cfg_.ack_priority);
    return;
  }
  if (p.kind == pkt_kind::cnp) {
    if (f.cc && !f.snd.done()) {
      f.cc->on_cnp(now);
      repace(f, now);
    }
    stats_.pool.release(&p);
    return;
  }
  on_feedback(f, p, now);
  stats_.pool.release(&p);
  if (f.cc && !f.snd.done()) rearm_for(f, now);
  try_send();
}

void host_nic::on_feedback(flow_ctx& f, packet& p, uint64_t now) {
  if (flowcut_) flowcut_ack(f, p, now);
  if (f.snd.done()) return;   // late duplicate
  const uint32_t una = f.snd.una;
  if (p.kind == pkt_kind::nak) f.snd.on_nak(p.seq, now);
  else f.snd.on_ack(p.seq, now);
  if (f.cc) {
    cc_feedback fb;
    fb.now_ps = now;
    fb.ack_bytes = seq_bytes(f, p.seq);
    fb.snd_nxt_bytes = seq_bytes(f, f.snd.nxt);
    fb.newly_acked_bytes = seq_bytes(f, f.snd.una) - seq_bytes(f, una);
    fb.ecn_echo = p.ce_echo;
    fb.rtt_ps = p.sent_ps && now > p.sent_ps ? now - p.sent_ps : 0;
    fb.intx = p.int_enabled ? &p.intx : nullptr;
    f.cc->on_ack(fb);
    repace(f, now);
    ++sched_.cc_updates;
    sched_.cc_cycles += f.cc->update_cycles();
    // A QP waiting for its window sends no earlier than the CC module's new window is out.
    if (f.window_blocked) {
      f.window_blocked = false;
      f.pace.hold_until(now + uint64_t(f.cc->update_cycles()) * cfg_.clock_period_ps);
    }
  }
  if (f.snd.done()) {
    f.finish_ps = now;
    active_.erase(std::find(active_.begin(), active_.end(), f.id));
    --engine_qps_[f.id % cfg_.sched_engines];
    f.cc.reset();
    if (on_flow_done) on_flow_done(f);
  }
}

void host_nic::send_cnp(flow_ctx& f, const packet& data, uint64_t now) {
  packet& c = *stats_.pool.alloc();
  ++stats_.sent;
  ++f.cnps;
  c.kind = pkt_kind::cnp;
  c.flow = f.id;
  c.eth = data.eth;
  c.eth.src_mac = data.eth.dst_mac;
  c.eth.dst_mac = data.eth.src_mac;
  c.ip = data.ip;
  std::swap(c.ip.src, c.ip.dst);
  c.ip.ttl = ipv4_header::initial_ttl;   // a new packet, not the data's decremented TTL
  c.ip.identification = f.ack_ip_id++;   // the ACKs' connection (same 5-tuple)
  c.ip.ecn = 0;
  c.ip.dscp = uint8_t(cfg_.ack_priority << 3);
  c.prio = cfg_.ack_priority;
  c.udp = data.udp;
  c.bth = data.bth;
  c.bth.opcode = 0x81;   // RoCEv2 CNP
  c.ip.total_length = uint16_t(c.frame_bytes() - eth_header::bytes - eth_header::fcs_bytes);
  c.udp.length = uint16_t(c.ip.total_length - ipv4_header::bytes);
  send_control(c, now + cfg_.tx_pipe_ps(), cfg_.ack_priority);
}

void host_nic::on_rto_check(uint64_t now) {
  for (uint32_t id : active_)
    if (flows_[id].snd.check_timeout(now, cfg_.rto_ps)) {
      ++flows_[id].timeouts;
      // The source gives up waiting for a drain that a lost ACK stalls: the flow goes on.
      if (flowcut_ && flowcut_->cancel_drain(id)) flows_[id].fc_paused = false;
    }
  rto_scheduled_ = !active_.empty();
  if (rto_scheduled_) events_.schedule(now + cfg_.rto_ps / 2, rto_timer_);
  try_send();
}

}  // namespace netasic
