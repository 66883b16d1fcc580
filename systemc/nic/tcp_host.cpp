#include "nic/tcp_host.h"

#include <algorithm>
#include <cmath>

namespace netasic {

namespace {
// A wrapped 32-bit sequence number nearest to `ref` (RFC 9293's modular comparison).
uint64_t unwrap(uint32_t wire, uint64_t ref) {
  const int64_t d = int32_t(wire - uint32_t(ref));
  return d < 0 && uint64_t(-d) > ref ? 0 : uint64_t(int64_t(ref) + d);
}
}  // namespace

tcp_host::tcp_host(sc_core::sc_module_name name, const nic_config& cfg, run_stats& stats, std::vector<flow_ctx>& flows,
                   event_queue& events)
    : nic_endpoint(name, cfg.registers), cfg_(cfg), stats_(stats), flows_(flows), events_(events), wshift_(window_shift(cfg.tcp.rwnd_bytes)) {}

unsigned tcp_host::window_shift(uint64_t rwnd) {
  unsigned s = 0;
  while ((rwnd >> s) > 0xFFFF) ++s;
  return s;
}

tcp_host::conn& tcp_host::conn_of(uint32_t flow) {
  auto it = conns_.find(flow);
  if (it == conns_.end()) it = conns_.emplace(flow, std::make_unique<conn>(*this, flow)).first;
  return *it->second;
}

void tcp_host::start_flow(uint32_t id) {
  flow_ctx& f = flows_[id];
  conn& c = conn_of(id);
  c.snd = std::make_unique<tcp_sender>(cfg_.tcp, f.size_bytes);
  if (c.snd->done()) return finish(c, f, now_ps());   // an empty flow
  active_.push_back(&c);
  try_send();
}

packet* tcp_host::make_segment(conn& c, const tcp_segment& s, uint64_t now) {
  const flow_ctx& f = flows_[c.flow];
  packet* p = stats_.pool.alloc();
  ++stats_.sent;
  p->kind = pkt_kind::data;
  p->flow = f.id;
  p->seq = uint32_t(s.seq / cfg_.tcp.mss_bytes);   // bookkeeping: the segment's index
  p->sent_ps = now;
  p->payload_bytes = s.len;
  p->eth.ethertype = 0x0800;
  p->eth.src_mac = 0x020000000000ull | f.src;
  p->eth.dst_mac = 0x020000000000ull | f.dst;
  p->ip.version = 4;
  p->ip.ihl = 5;
  p->ip.ecn = s.ect ? 2 : 0;   // ECT(0), RFC 3168
  p->ip.dscp = uint8_t(cfg_.data_priority << 3);
  p->prio = cfg_.data_priority;
  p->ip.protocol = ipv4_header::proto_tcp;
  p->ip.identification = s.ip_id;
  p->ip.src = host_ip(f.src);
  p->ip.dst = host_ip(f.dst);
  p->tcp.src_port = f.src_port;
  p->tcp.dst_port = server_port;
  p->tcp.seq = uint32_t(s.seq);
  p->tcp.data_offset = 5;
  p->tcp.flags = uint8_t(tcp_header::flag_ack | (s.fin ? tcp_header::flag_fin | tcp_header::flag_psh : 0) |
                         (s.cwr ? tcp_header::flag_cwr : 0));
  p->tcp.window = uint16_t(cfg_.tcp.rwnd_bytes >> wshift_);
  p->ip.total_length = uint16_t(p->frame_bytes() - eth_header::bytes - eth_header::fcs_bytes);
  return p;
}

void tcp_host::try_send() {
  if (wake_.armed()) return;   // a wake-up is pending and will call again
  const uint64_t now = now_ps();
  const uint64_t lead = cfg_.tx_pipe_ps();
  if (pace_ps_ > now + lead) {
    if (!active_.empty()) arm(pace_ps_ - lead);
    return;
  }
  if (pause_.paused(now) >> cfg_.data_priority & 1) {
    const uint64_t until = pause_.resumes(uint8_t(1u << cfg_.data_priority), now);
    if (until != UINT64_MAX && !active_.empty()) arm(until);
    return;
  }
  // Round-robin over the connections whose window lets a segment go.
  for (size_t n = 0; n < active_.size(); ++n) {
    rr_ = (rr_ + 1) % active_.size();
    conn& c = *active_[rr_];
    if (!c.snd->can_send()) continue;
    const tcp_segment s = c.snd->next_segment(now);
    flows_[c.flow].retransmitted = c.snd->retransmissions();
    packet* p = make_segment(c, s, now);
    const uint32_t bytes = p->frame_bytes();
    data_bytes_sent_ += bytes;
    // The host paces at line rate; its processing delay postpones the frame, not the pace.
    const uint64_t ready = std::max(now + lead, pace_ps_);
    last_delay_ps_ = processing_delay(flows_[c.flow].src);
    const uint64_t leave = std::max(ready + last_delay_ps_, free_ps_);
    free_ps_ = tx.send(*p, leave);
    pace_ps_ = ready + (free_ps_ - leave);
    rearm(c);   // the first segment in flight starts the retransmission timer
    arm(pace_ps_ - lead);
    return;
  }
}

uint64_t tcp_host::processing_delay(uint32_t self) {
  const tcp_config& t = cfg_.tcp;
  if (t.host_jitter_ps == 0) return t.host_delay_ps;
  // Each host its own stream, so one host's draws do not shift another's.
  if (!jitter_) jitter_.emplace(t.jitter_seed * 0x9E3779B97F4A7C15ull + self);
  // Box-Muller from two uniforms: the same draws under every standard library.
  const double u1 = jitter_->uniform(), u2 = jitter_->uniform();
  const double z = std::sqrt(-2.0 * std::log1p(-u1)) * std::cos(2.0 * M_PI * u2);
  const double d = double(t.host_delay_ps) + z * double(t.host_jitter_ps);
  return d > 0 ? uint64_t(std::llround(d)) : 0;
}

void tcp_host::arm(uint64_t at) {
  if (wake_.arm(at)) events_.schedule(at, *this);
}

void tcp_host::wake(uint64_t now) {
  if (!wake_.fire(now)) return;
  send_held_control(now, cfg_.ack_priority);
  // Control frames took the wire: the pace follows it, less the last data frame's processing
  // delay, which overlaps the next frames and must not add up from one frame to the next.
  pace_ps_ = std::max(pace_ps_, free_ps_ - std::min(free_ps_, last_delay_ps_));
  try_send();
}

void tcp_host::pkt_receive(unsigned, packet& p, uint64_t now) {
  uint64_t effect = timer::never;
  if (take_mac_frame(p, now, cfg_.pfc_response_cycles * cfg_.clock_period_ps, cfg_.rate_bps, stats_, effect)) {
    if (effect != timer::never) arm(effect);   // a PAUSE: look again once it has taken effect
    return;
  }
  ++stats_.delivered;
  flow_ctx& f = flows_[p.flow];
  if (p.kind == pkt_kind::data) on_data(f, p, now);
  else on_ack(f, p, now);
  stats_.pool.release(&p);
}

void tcp_host::on_data(flow_ctx& f, packet& p, uint64_t now) {
  const bool ce = p.ip.ecn == 3;
  if (ce) ++f.ecn_marked;
  if (f.any_data && p.path_sig != f.last_path_sig) ++f.path_changes;
  f.any_data = true;
  f.last_path_sig = p.path_sig;
  f.count_path(p);
  conn& c = conn_of(f.id);
  if (!c.rcv) c.rcv = std::make_unique<tcp_receiver>(cfg_.tcp, f.size_bytes);
  const uint64_t seq = unwrap(p.tcp.seq, c.rcv->rcv_nxt());
  if (seq > c.rcv->rcv_nxt()) {   // beyond the next expected byte: reordered (or one before it was lost)
    ++f.out_of_order;
    f.max_reorder = std::max(f.max_reorder, uint32_t((seq - c.rcv->rcv_nxt()) / cfg_.tcp.mss_bytes));
  }
  const tcp_rx_result r = c.rcv->on_segment(seq, p.payload_bytes, ce, p.tcp.flags & tcp_header::flag_cwr, now);
  for (unsigned i = 0; i < r.acks; ++i) send_ack(c, f, r.ack[i], now);
  rearm(c);
}

void tcp_host::send_ack(conn& c, const flow_ctx& f, const tcp_ack& a, uint64_t now) {
  packet& p = *stats_.pool.alloc();
  ++stats_.sent;   // in flight in the NIC until the wire takes it
  p.kind = pkt_kind::ack;
  p.flow = f.id;
  p.sent_ps = now;
  p.eth.ethertype = 0x0800;
  p.eth.src_mac = 0x020000000000ull | f.dst;
  p.eth.dst_mac = 0x020000000000ull | f.src;
  p.ip.version = 4;
  p.ip.ihl = 5;
  p.ip.dscp = uint8_t(cfg_.ack_priority << 3);   // not ECT: RFC 3168 section 6.1.4
  p.prio = cfg_.ack_priority;
  p.ip.protocol = ipv4_header::proto_tcp;
  p.ip.identification = c.ack_ip_id++;
  p.ip.src = host_ip(f.dst);
  p.ip.dst = host_ip(f.src);
  p.tcp.src_port = server_port;
  p.tcp.dst_port = f.src_port;
  p.tcp.ack = uint32_t(a.ack);
  p.tcp.data_offset = 5;
  p.tcp.flags = uint8_t(tcp_header::flag_ack | (a.ece ? tcp_header::flag_ece : 0));
  p.tcp.window = uint16_t(cfg_.tcp.rwnd_bytes >> wshift_);
  p.ip.total_length = uint16_t(p.frame_bytes() - eth_header::bytes - eth_header::fcs_bytes);
  send_control(p, now + cfg_.tx_pipe_ps(), cfg_.ack_priority);
  pace_ps_ = std::max(pace_ps_, free_ps_);
}

void tcp_host::on_ack(flow_ctx& f, packet& p, uint64_t now) {
  conn& c = conn_of(f.id);
  if (!c.snd || c.snd->done()) return;   // late duplicate
  const uint64_t ack = unwrap(p.tcp.ack, c.snd->snd_una());
  c.snd->on_ack(ack, p.tcp.flags & tcp_header::flag_ece, uint64_t(p.tcp.window) << wshift_, now);
  if (c.snd->done()) finish(c, f, now);
  rearm(c);
  try_send();
}

void tcp_host::finish(conn& c, flow_ctx& f, uint64_t now) {
  f.finish_ps = now;
  f.retransmitted = c.snd->retransmissions();
  // The flow record reads completion from the go-back-N counters: every segment acknowledged.
  f.snd.total = f.snd.una = f.snd.nxt = f.snd.max_sent =
      uint32_t((f.size_bytes + cfg_.tcp.mss_bytes - 1) / cfg_.tcp.mss_bytes);
  auto it = std::find(active_.begin(), active_.end(), &c);
  if (it != active_.end()) active_.erase(it);
  if (on_flow_done) on_flow_done(f);
}

void tcp_host::rearm(conn& c) {
  const uint64_t at = std::min(c.snd ? c.snd->rto_deadline() : timer::never, c.rcv ? c.rcv->delack_deadline() : timer::never);
  if (at != timer::never && c.t.arm(at)) events_.schedule(at, c);
}

void tcp_host::on_timer(conn& c, uint64_t now) {
  if (!c.t.fire(now)) return;   // superseded
  if (c.snd && !c.snd->done() && c.snd->on_timer(now)) {
    ++flows_[c.flow].timeouts;
    try_send();
  }
  tcp_ack a;
  if (c.rcv && c.rcv->on_timer(now, a)) send_ack(c, flows_[c.flow], a, now);
  rearm(c);
}

}  // namespace netasic
