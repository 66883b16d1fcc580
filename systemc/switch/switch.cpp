#include "switch/switch.h"

#include <cmath>

#include <fmt/format.h>

#include "blocks/rtl_loop.h"
#include "switch/int_writer.h"
#include "tlm/link.h"
#include "tlm/regbus.h"

namespace netasic {

uint8_t int_speed_code(uint64_t rate_bps) {
  constexpr uint64_t g = 1'000'000'000ull;
  const uint64_t rates[] = {10 * g, 25 * g, 40 * g, 50 * g, 100 * g, 200 * g, 400 * g, 800 * g};
  for (unsigned i = 0; i < 8; ++i)
    if (rate_bps == rates[i]) return uint8_t(i + 1);
  return 0;
}

uint64_t pfc_headroom_needed(const switch_config& cfg, uint64_t rate_bps, uint64_t delay_ps, uint32_t max_frame_bytes,
                             uint64_t partner_stop_ps) {
  const uint64_t time_ps = cfg.ingress_ps() + cfg.egress_ps() + 2 * delay_ps + partner_stop_ps;
  const uint64_t wire_bytes = uint64_t(std::ceil(double(time_ps) * double(rate_bps) / 8e12));
  const uint32_t framing = 8 + 12;   // preamble and gap: the wire carries them, the buffer does not
  // The frame that found the threshold crossed is itself in the headroom; then one frame in
  // progress at each end.
  return max_frame_bytes + wire_bytes + 2 * (max_frame_bytes + framing) + pfc_frame::bytes + framing;
}

uint64_t switch_config::port_headroom(uint64_t rate_bps, uint64_t delay_ps, uint32_t max_frame_bytes,
                                      uint64_t partner_stop_ps) const {
  return pfc_headroom_bytes ? pfc_headroom_bytes
                            : pfc_headroom_needed(*this, rate_bps, delay_ps, max_frame_bytes, partner_stop_ps);
}

switch_model::switch_model(sc_core::sc_module_name name, unsigned id, const std::vector<uint64_t>& port_rate_bps,
                           unsigned hosts, const switch_config& cfg, run_stats& stats, event_queue& events)
    : sc_core::sc_module(name),
      csr("csr"),
      id_(id),
      cfg_(cfg),
      stats_(stats),
      events_(events),
      hash_(crc_hash_unit(crc_hash_config{cfg.hash_bits, cfg.hash_seed})),
      hash_rotation_(cfg.hash_bits, cfg.tier, cfg.hash_tier_offset),
      routes_(cfg.addresses ? route_table(id, unsigned(port_rate_bps.size()), cfg.addresses, cfg.member_capacity, cfg.route_classes)
                            : route_table(id, unsigned(port_rate_bps.size()), hosts, cfg.member_capacity, cfg.route_classes)),
      lb_(cfg.lb, routes_, port_rate_bps),
      // Front-panel ports, one recirculation port per pipe, the CPU port.
      tm_(cfg.tm, unsigned(port_rate_bps.size()) + cfg.pipes + 1),
      tx_(port_rate_bps.size()),
      port_(port_rate_bps.size() + cfg.pipes + 1),
      pipe_(cfg.pipes) {
  const unsigned ports = unsigned(port_rate_bps.size());
  cpu_port_ = ports + cfg.pipes;
  for (port_state& ps : port_) ps.watchdog = pfc_watchdog(cfg.pfc_watchdog_ps, cfg.pfc_watchdog_restore_ps);
  if (cfg.pfc_deadlock_detect_ps && cfg.tm.lossless) last_dequeue_.resize(port_.size());   // the detector runs
  for (unsigned p = 0; p < port_.size(); ++p) {
    port_state& ps = port_[p];
    ps.rate_bps = p < ports ? port_rate_bps[p] : p < cpu_port_ ? cfg.recirc_rate_bps : cfg.mirror.cpu_rate_bps;
    ps.int_speed = int_speed_code(ps.rate_bps);
    ps.pipe = p < ports ? p * cfg.pipes / ports : p < cpu_port_ ? p - ports : 0;
    ps.dequeue.sw = this;
    ps.dequeue.fn = &switch_model::kick;
    ps.dequeue.index = p;
  }
  for (unsigned i = 0; i < pipe_.size(); ++i) {
    pipe_[i].parser.sw = pipe_[i].recirc_port.sw = this;
    pipe_[i].parser.fn = &switch_model::parser_drain;
    pipe_[i].recirc_port.fn = &switch_model::recirc_arrive;
    pipe_[i].parser.index = pipe_[i].recirc_port.index = i;
  }
  // Ingress-only tables sit in the switches flows enter by: those with hosts.
  const bool has_hosts = std::find(cfg.host_port.begin(), cfg.host_port.end(), true) != cfg.host_port.end();
  if (cfg.flowcut_on && (cfg.flowcut.variant == flowcut_variant::full_switch || has_hosts))
    lb_.use_flowcut(cfg.flowcut, cfg.host_port, [this](unsigned port) { return tm_.port_bytes(port); },
                    [this](packet& p, uint64_t now) { enqueue(p, now); }, flowcut_buffer());
  if (cfg.flowradar.on) {   // one flowset, or one per ingress port (each its own hashes)
    if (!cfg.flowradar.per_port) flowradar_.push_back(std::make_unique<flowradar_stage>(cfg.flowradar, id));
    else
      for (unsigned p = 0; p < port_rate_bps.size(); ++p)
        flowradar_.push_back(std::make_unique<flowradar_stage>(cfg.flowradar, flowradar_port_table_id(id, p)));
  }
  refresh_.sw = this;
  refresh_.fn = &switch_model::pfc_refresh;
  flowradar_epoch_.sw = this;
  flowradar_epoch_.fn = &switch_model::flowradar_epoch_end;
  csr.register_b_transport(this, &switch_model::b_transport);
}

flowcut_stage::buffer_hooks switch_model::flowcut_buffer() {
  // Held packets take the shared buffer like queued ones (and may send XOFF to where they came
  // from); the traffic manager's refusal is a drop with its reason.
  flowcut_stage::buffer_hooks h;
  h.hold = [this](packet& p, uint64_t now) {
    const tm_verdict v = tm_.hold(p);
    if (v != tm_verdict::admitted) {
      drop(p, v == tm_verdict::headroom ? &drop_counters::headroom : &drop_counters::buffer_full);
      return false;
    }
    if (p.in_port < tx_.size() && tm_.xoff_due(p.in_port, p.prio)) send_pause(p.in_port, p.prio, cfg_.pfc_quanta, now);
    return true;
  };
  h.unhold = [this](const packet& p) { tm_.unhold(p); };
  h.drop_full = [this](packet& p) { drop(p, &drop_counters::flowcut_hold_full); };
  h.source_pause = [this](unsigned port, bool pause, uint64_t now) {
    // PFC on the data priority of the host's port (the paper's fallback where the NIC has no
    // FGFC, §II-B); the traffic manager's own XOFF and this one share the port's pause state.
    const unsigned prio = cfg_.flowcut_data_prio;
    port_[port].flowcut_pause = pause;
    if (!tm_.xoff_active(port, prio)) send_pause(port, prio, pause ? cfg_.pfc_quanta : 0, now);
  };
  return h;
}

switch_counters switch_model::counters() const {
  switch_counters c = counters_;
  if (const flowcut_stage* f = lb_.flowcut()) {
    c.flowcut_packets_held = f->packets_held();
    c.flowcut_held_peak_bytes = f->held_peak_bytes();
    c.flowcut_hold_full = f->hold_full();
    c.flowcut_hold_full_resumes = f->hold_full_resumes();
    c.flowcut_source_pauses = f->source_pauses();
  }
  return c;
}

void switch_model::drop(packet& p, uint64_t drop_counters::*reason, int out) {
  if (p.kind == pkt_kind::mirror) ++counters_.mirror_dropped;   // a copy is not traffic
  else ++(drops_.*reason);
  if (stats_.log && !is_internal(p))
    stats_.log->add(p, drop_reason_name(reason), false, id_, p.in_port, out, 0, now_ps());
  stats_.drop(p, reason);
}

void switch_model::arm(waker& w, uint64_t at) {
  if (w.due.arm(at)) events_.schedule(at, w);
}

void switch_model::pkt_receive(unsigned port, packet& p, uint64_t now) {
  if (p.kind == pkt_kind::pause) return receive_pause(port, p, now);
  if (p.kind == pkt_kind::sync) {   // the clock unit beside the MAC takes it
    if (clock_driver* c = sundial_.clock()) c->receive(sundial_.node(), port, p.sync, now);
    return stats_.release(p);
  }
  p.in_port = uint16_t(port);
  p.passes = 0;
  if (!flowradar_.empty() && p.kind == pkt_kind::data)
    flowradar_[cfg_.flowradar.per_port ? port : 0]->on_packet(p, now, p.hops + 1u);
  parse(port_[port].pipe, p, now);
}

void switch_model::parse(unsigned pipe, packet& p, uint64_t now) {
  // `now` already includes the front end (parser, ingress stages, traffic manager): the frame
  // reached the parser at `now - front`. The parser takes one frame per cycle.
  pipe_state& ps = pipe_[pipe];
  const uint64_t front = cfg_.ingress_ps(), at_parser = now - front;
  const uint64_t slot = std::max(at_parser, ps.parser_free_ps);
  // Whole cycles waited so far, at least pipe_fifo: the FIFO is full (compared without dividing).
  if (slot - at_parser >= uint64_t(cfg_.pipe_fifo) * cfg_.clock_period_ps) return drop(p, &drop_counters::pipe_overrun);
  ps.parser_free_ps = slot + cfg_.clock_period_ps;
  if (slot == at_parser) return enqueue(p, now);
  ps.parser_fifo.push_back({slot + front, &p});
  arm(ps.parser, ps.parser_fifo.front().first);
}

void switch_model::parser_drain(unsigned pipe, uint64_t now) {
  pipe_state& ps = pipe_[pipe];
  while (!ps.parser_fifo.empty() && ps.parser_fifo.front().first <= now) {
    packet* p = ps.parser_fifo.front().second;
    ps.parser_fifo.pop_front();
    enqueue(*p, now);
  }
  if (!ps.parser_fifo.empty()) arm(ps.parser, ps.parser_fifo.front().first);
}

void switch_model::recirculate_clear(unsigned pipe, uint64_t now) {
  // BalanceSketch on Tofino clears an outdated bucket with a mirrored packet that takes one
  // pass through the pipe's recirculation port; the clear is done when it comes back.
  packet& c = internal_frame(eth_header::min_frame_bytes);
  if (!queue_internal(c, unsigned(tx_.size()) + pipe, now)) ++counters_.sketch_clears_lost;
}

packet& switch_model::internal_frame(uint32_t bytes) {
  packet& c = *stats_.alloc_internal();
  c.kind = pkt_kind::mirror;
  c.payload_bytes = bytes;
  c.in_port = uint16_t(cpu_port_);   // not from a front-panel port: no PFC accounting
  return c;
}

void switch_model::send_sync(unsigned port, const sync_header& m, uint32_t bytes, uint64_t now) {
  // At a strict priority, from no front-panel port (no PFC accounting), through the egress pipe.
  packet& c = *stats_.alloc_internal();
  c.kind = pkt_kind::sync;
  c.payload_bytes = bytes;
  c.prio = sync_prio_;
  c.in_port = uint16_t(cpu_port_);
  c.sync = m;
  c.sent_ps = now;
  if (!queue_internal(c, port, now)) ++sync_dropped_;
}

bool switch_model::queue_internal(packet& c, unsigned port, uint64_t now) {
  if (tm_.enqueue(c, port) != tm_verdict::admitted) {
    stats_.release(c);
    return false;
  }
  if (wave_) trace_port(port, now);
  kick(port, now);
  return true;
}

void switch_model::enqueue(packet& p, uint64_t now) {
  if (p.kind == pkt_kind::mirror && p.passes > 0) {   // a BalanceSketch clear, back from recirculation
    ++counters_.sketch_clears;
    return stats_.release(p);
  }
  // Ingress match-action: the route lookup and the load balancer's next hop, or the pipe's
  // recirculation port while the frame has passes left.
  unsigned out;
  if (p.kind == pkt_kind::data && p.passes < cfg_.recirculations) {
    out = unsigned(tx_.size()) + port_[p.in_port].pipe;
  } else {
    uint32_t base, size;
    const uint32_t dst = host_of_ip(p.ip.dst);
    // RFC 1812: a router decrements TTL and discards the packet when it reaches 0.
    if (p.ip.ttl <= 1) return drop(p, &drop_counters::ttl_expired);
    --p.ip.ttl;
    if (dst < cfg_.black_hole_from_ps.size() && now >= cfg_.black_hole_from_ps[dst]) return drop(p, &drop_counters::black_hole);
    const int wrong = cfg_.misroutes.empty() ? -1 : misroute_port(p, dst, now);
    if (wrong >= 0) {
      out = unsigned(wrong);
    } else {
      // KSP's path table first: the frame's one path, no load balancing along it.
      const int path = routes_.path_mode() ? routes_.path_port(host_of_ip(p.ip.src), dst, flow_hash(p), p.path_tagged, p.path_id)
                                           : route_table::path_none;
      if (path == route_table::path_miss) return drop(p, &drop_counters::no_route);
      if (path >= 0) {
        out = unsigned(path);
      } else {
        if (!routes_.group(dst, p.in_port, base, size)) return drop(p, &drop_counters::no_route);
        const lb_route r = lb_.route(p, flow_hash(p), base, size, now);
        if (r.held) return;
        if (r.clear) recirculate_clear(port_[p.in_port].pipe, now);
        out = r.port;
      }
    }
  }
  if (p.kind == pkt_kind::data && p.passes == 0) {
    p.path_sig = (p.path_sig ^ (id_ << 8 | out)) * 0x9E3779B1u;
    if (p.hops < packet::path_max) p.path_sw[p.hops] = uint16_t(id_);
    ++p.hops;
  }
  if (cfg_.mirror.to != mirror_config::target::off && p.kind == pkt_kind::data && p.passes == 0 &&
      ++mirror_count_ % cfg_.mirror.sample == 0)
    mirror(p, now);
  if (lossradar && out < tx_.size() && !is_internal(p)) lossradar->ingress_end(id_, p.in_port, out, p, now);
  if (cfg_.pfc_watchdog_ps && out < tx_.size() && watchdog_drops(out, p.prio, now)) return drop(p, &drop_counters::pfc_watchdog, int(out));
  const uint64_t queued = deter_log ? tm_.queue_bytes(out, p.prio) : 0;
  const tm_verdict verdict = tm_.enqueue(p, out);
  if (deter_log && out < tx_.size()) deter_log->add(p, id_, out, queued, verdict != tm_verdict::admitted, now);
  switch (verdict) {
    case tm_verdict::admitted: break;
    case tm_verdict::buffer_full: return drop(p, &drop_counters::buffer_full, int(out));
    case tm_verdict::dynamic_threshold: return drop(p, &drop_counters::dynamic_threshold, int(out));
    case tm_verdict::queue_limit: return drop(p, &drop_counters::queue_limit, int(out));
    case tm_verdict::headroom: return drop(p, &drop_counters::headroom, int(out));
  }
  if (wave_) trace_port(out, now);
  if (p.in_port < tx_.size() && tm_.xoff_due(p.in_port, p.prio)) send_pause(p.in_port, p.prio, cfg_.pfc_quanta, now);
  kick(out, now);
}

int switch_model::misroute_port(packet& p, uint32_t dst, uint64_t now) {
  for (const switch_config::misroute& m : cfg_.misroutes) {
    if (m.host != dst || now < m.from_ps || now >= m.to_ps) continue;
    ++counters_.misrouted;
    if (p.misrouted_by == id_ + 1) {   // sent by this entry before and back: a loop
      ++counters_.loop_returns;
      if (p.kind == pkt_kind::data) {
        loop_return r{{}, now};
        uint8_t key[flow_key_bytes];
        flow_key(p, key);
        std::copy(key, key + flowradar_flow_bytes, r.flow.begin());
        const auto [last, fresh] = loop_logged_ps_.try_emplace(r.flow, now);
        if (fresh || now - last->second >= 100'000'000) {
          last->second = now;
          loop_returns_.push_back(r);
        }
      }
    }
    p.misrouted_by = uint16_t(id_ + 1);
    return int(m.port);
  }
  return -1;
}

void switch_model::mirror(const packet& p, uint64_t now) {
  // The copy is made by the ingress deparser and queued on its own: the original's verdict
  // does not decide the copy's, and the copy costs buffer and an egress pass like any frame.
  const mirror_config& mc = cfg_.mirror;
  const uint32_t copied = mc.truncate_bytes ? std::min(mc.truncate_bytes, p.frame_bytes()) : p.frame_bytes();
  const bool collector = mc.to == mirror_config::target::collector;
  packet& m = internal_frame(copied + (collector ? mirror_config::erspan_bytes : 0));
  ++counters_.mirrored;
  m.prio = mc.prio;
  m.flow = p.flow;
  m.seq = p.seq;
  unsigned out = cpu_port_;
  if (collector) {
    m.ip.src = p.ip.src;
    m.ip.dst = mc.collector_ip;
    m.ip.protocol = 47;   // GRE
    m.udp = p.udp;        // ECMP entropy: the copy follows the hash of the flow it mirrors
    const int r = routes_.lookup(host_of_ip(m.ip.dst), flow_hash(m));
    if (r < 0) return drop(m, &drop_counters::no_route);
    out = unsigned(r);
  }
  if (!queue_internal(m, out, now)) ++counters_.mirror_dropped;
}

void switch_model::flowradar_export(uint64_t now) {
  // The control plane sends the bank the epoch handed it as UDP frames to the collector, through
  // the egress queues like any frame (lowest priority), so they load the links they take.
  const uint32_t collector_ip = host_ip(unsigned(cfg_.flowradar.collector));
  std::vector<uint32_t> frames;   // every flowset's bank, one after another
  for (const auto& table : flowradar_) frames.insert(frames.end(), table->export_frames().begin(), table->export_frames().end());
  for (uint32_t bytes : frames) {
    packet& m = internal_frame(bytes);
    m.prio = 0;
    m.ip.src = 0;                      // a switch has no host address
    m.ip.dst = collector_ip;
    m.ip.protocol = 17;
    m.udp.src_port = uint16_t(id_);   // ECMP entropy: each switch's frames hash alike
    m.udp.dst_port = flowradar_export_port;
    const int r = routes_.lookup(host_of_ip(m.ip.dst), flow_hash(m));
    if (r < 0 || !queue_internal(m, unsigned(r), now)) {
      if (r < 0) stats_.release(m);
      ++counters_.flowradar_export_dropped;
      continue;
    }
    ++counters_.flowradar_export_frames;
    counters_.flowradar_export_bytes += bytes;
  }
}

void switch_model::kick(unsigned port, uint64_t now) {
  port_state& ps = port_[port];
  if (!tm_.backlogged(port)) return;
  // Dequeue so that the frame reaches the MAC, after the egress pipeline, as the wire frees up;
  // the egress pipe takes one frame per cycle.
  const uint64_t egress = cfg_.egress_ps();
  pipe_state& pipe = pipe_[ps.pipe];
  // The last edge that still gets it there in time, so frames leave back to back.
  const uint64_t T = cfg_.clock_period_ps;
  const uint64_t in_time = ps.wire_free_ps > egress ? (ps.wire_free_ps - egress) / T * T : 0;
  const uint64_t at = std::max({now, in_time, pipe.egress_free_ps});
  if (at > now) return arm(ps.dequeue, at);
  uint8_t paused = ps.pause.paused(now);
  if (cfg_.pfc_watchdog_ps && paused) paused = mitigate_storms(port, paused, now);
  packet* p = tm_.dequeue(port, paused);
  if (!p) {   // all paused: wait for the earliest resume (or the watchdog's next check)
    const uint64_t due = cfg_.pfc_watchdog_ps ? ps.watchdog.next_detection(ps.pause, lossless_waiting(port), now) : UINT64_MAX;
    const uint64_t at = std::min(ps.pause.resumes(tm_.backlogged(port), now), due);
    if (at != UINT64_MAX) arm(ps.dequeue, at);
    return;
  }
  if (wave_) trace_port(port, now);
  if (!last_dequeue_.empty()) last_dequeue_[port][p->prio] = now;
  pipe.egress_free_ps = now + cfg_.clock_period_ps;
  if (p->in_port < tx_.size() && tm_.xon_due(p->in_port, p->prio) && !flowcut_pausing(p->in_port, p->prio))
    send_pause(p->in_port, p->prio, 0, now);
  uint64_t start = std::max(now + egress, ps.wire_free_ps);
  // Cutting through, the frame must not run out before its last bit has come in.
  if (cfg_.cut_through_bytes) {
    const uint64_t out_ps = link_timing{ps.rate_bps}.wire_ps(p->frame_bytes() + link_timing::preamble_bytes);
    if (p->rx_end_ps > start + out_ps) start = p->rx_end_ps - out_ps;
  }
  emit(port, *p, start);
  if (tm_.backlogged(port)) kick(port, now);   // arms the next dequeue
}

void switch_model::emit(unsigned port, packet& p, uint64_t start) {
  port_state& ps = port_[port];
  const uint32_t bytes = p.frame_bytes();
  if (port >= tx_.size()) {   // a recirculation port or the CPU's
    ps.wire_free_ps = start + link_timing{ps.rate_bps, 0}.occupancy_ps(bytes);
    if (port != cpu_port_) return recirculate(ps.pipe, p, start);
    ++counters_.mirror_to_cpu;
    counters_.mirror_cpu_bytes += bytes;
    return stats_.release(p);
  }
  lb_.transmit(port, p, start);   // CONGA at a spine: the port's DRE
  // INT records the port as the frame leaves: txBytes counts the bytes sent before it.
  if (p.kind == pkt_kind::data && p.int_enabled &&
      int_push_hop(p.intx, id_, ps.int_speed, start, ps.tx_bytes, tm_.port_bytes(port)))
    ++counters_.int_written;
  ps.tx_bytes += bytes;
  if (p.kind == pkt_kind::sync && sundial_.clock()) {
    sundial_.clock()->stamp(p.sync, start);   // egress timestamp
    sync_wait_max_ps_ = std::max(sync_wait_max_ps_, start - p.sent_ps - cfg_.egress_ps());
  }
  if (!tx_[port].bound()) return drop(p, &drop_counters::link_down, int(port));   // a port without a cable
  ps.wire_free_ps = tx_[port].send(p, start);
}

void switch_model::recirculate(unsigned pipe, packet& p, uint64_t start) {
  // Through the recirculation port at its rate, back to the parser of the same pipe.
  pipe_state& ps = pipe_[pipe];
  ++p.passes;
  ++counters_.recirculated;
  const link_timing port{cfg_.recirc_rate_bps, 0, cfg_.clock_period_ps};
  ps.recirc.push_back({port.control_delivery_ps(start, p.frame_bytes()) + cfg_.ingress_ps(), &p});
  arm(ps.recirc_port, ps.recirc.front().first);
}

void switch_model::recirc_arrive(unsigned pipe, uint64_t now) {
  pipe_state& ps = pipe_[pipe];
  while (!ps.recirc.empty() && ps.recirc.front().first <= now) {
    packet* p = ps.recirc.front().second;
    ps.recirc.pop_front();
    parse(pipe, *p, now);
  }
  if (!ps.recirc.empty()) arm(ps.recirc_port, ps.recirc.front().first);
}

void switch_model::attach_waves(wave_trace& w, const switch_waves& ids) {
  wave_ = &w;
  wave_ids_ = ids;
  for (unsigned p = 0; p < ids.pfc_pause.size() && p < port_.size(); ++p) {
    port_[p].pause.wave = &w;
    port_[p].pause.wave_id = ids.pfc_pause[p];
  }
  lb_.attach_waves(&w, ids.flowlet, ids.sketch, ids.flowcut);
}

void switch_model::trace_port(unsigned port, uint64_t now) {
  if (port >= wave_ids_.queue_bytes.size()) return;   // the CPU and recirculation ports
  wave_->set(wave_ids_.queue_bytes[port], now, tm_.port_bytes(port));
  wave_->set(wave_ids_.ecn_marks[port], now, tm_.ecn_marked(port));
}

void switch_model::receive_pause(unsigned port, packet& p, uint64_t now) {
  port_state& ps = port_[port];
  ++counters_.pfc_received;
  ++ps.pause.frames_received;
  const uint64_t effect = now + uint64_t(cfg_.pfc_response_cycles) * cfg_.clock_period_ps;
  ps.pause.apply(p.pfc, effect, ps.rate_bps);
  stats_.release(p);
  // A resume (or a shorter pause) may let frames go at `effect`.
  if (tm_.backlogged(port)) arm(ps.dequeue, effect);
}

void switch_model::send_pause(unsigned port, unsigned prio, uint16_t quanta, uint64_t now) {
  if (!tx_[port].bound()) return;
  port_state& ps = port_[port];
  packet& f = *stats_.alloc_internal();
  f.kind = pkt_kind::pause;
  f.eth.ethertype = pfc_frame::ethertype;
  f.pfc.class_enable = uint8_t(1u << prio);
  f.pfc.quanta[prio] = quanta;
  // MAC control takes the wire at the next frame boundary, after the frames the egress pipe has
  // already handed to the MAC (at most one egress-pipeline latency of them).
  const uint64_t start = std::max(now, ps.wire_free_ps);
  ps.wire_free_ps = tx_[port].send(f, start);
  ++counters_.pfc_sent;
  if (quanta) {
    // Re-send before the partner's pause runs out, while still in XOFF.
    if (refresh_at_.empty()) refresh_at_.resize(tx_.size());
    refresh_at_[port][prio] = start + pfc_pause::duration_ps(quanta, ps.rate_bps) / 2;
    arm(refresh_, refresh_at_[port][prio]);
  } else if (!refresh_at_.empty()) {
    refresh_at_[port][prio] = 0;
  }
}

void switch_model::pfc_refresh(unsigned, uint64_t now) {
  uint64_t next = UINT64_MAX;
  for (unsigned port = 0; port < refresh_at_.size(); ++port)
    for (unsigned prio = 0; prio < num_priorities; ++prio) {
      uint64_t& at = refresh_at_[port][prio];
      if (!at) continue;
      if (!tm_.xoff_active(port, prio) && !flowcut_pausing(port, prio)) at = 0;
      else if (at <= now) send_pause(port, prio, cfg_.pfc_quanta, now);
      if (at) next = std::min(next, at);
    }
  if (next != UINT64_MAX) arm(refresh_, next);
}

uint8_t switch_model::lossless_waiting(unsigned port) const { return tm_.backlogged(port) & cfg_.tm.lossless; }

uint8_t switch_model::mitigate_storms(unsigned port, uint8_t paused, uint64_t now) {
  port_state& ps = port_[port];
  const uint64_t before = ps.watchdog.storms_started;
  const uint8_t storm = ps.watchdog.storms(ps.pause, lossless_waiting(port), now);
  counters_.pfc_watchdog_storms += ps.watchdog.storms_started - before;
  if (cfg_.watchdog_action == pfc_watchdog_action::forward) return paused & uint8_t(~storm);
  for (unsigned c = 0; c < num_priorities; ++c) {
    if (!(storm >> c & 1)) continue;
    // Drop what waits; each frame gives its ingress count back, so XON may go upstream.
    while (packet* f = tm_.take(port, c)) {
      const unsigned in = f->in_port, prio = f->prio;
      drop(*f, &drop_counters::pfc_watchdog, int(port));
      if (in < tx_.size() && tm_.xon_due(in, prio) && !flowcut_pausing(in, prio)) send_pause(in, prio, 0, now);
    }
    if (wave_) trace_port(port, now);
  }
  return paused;
}

bool switch_model::watchdog_drops(unsigned port, unsigned prio, uint64_t now) {
  port_state& ps = port_[port];
  return cfg_.watchdog_action == pfc_watchdog_action::drop && ps.watchdog.in_storm(ps.pause, prio, now);
}

void switch_model::end_of_elaboration() {
  // A collector gets each bank when its epoch ends, not when the next packet comes.
  if (!flowradar_.empty() && cfg_.flowradar.collector >= 0) arm(flowradar_epoch_, cfg_.flowradar.epoch_ps);
}

void switch_model::flowradar_epoch_end(unsigned, uint64_t now) {
  // The epoch's banks to the control plane (a packet at this instant may have done it).
  for (auto& table : flowradar_) table->advance(now);
  flowradar_export(now);
  arm(flowradar_epoch_, (now / cfg_.flowradar.epoch_ps + 1) * cfg_.flowradar.epoch_ps);
}

void switch_model::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
  if (!reg_access_ok(gp)) return;
  uint32_t* data = reinterpret_cast<uint32_t*>(gp.get_data_ptr());
  const uint32_t off = uint32_t(gp.get_address());
  bool ok;
  if (sundial_csr::owns(off)) {
    ok = sundial_.access(gp.is_write(), off, *data, now_ps());
  } else {
    ok = gp.is_write() ? routes_.write(off, *data) : routes_.read(off, *data);
  }
  gp.set_response_status(ok ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

}  // namespace netasic
