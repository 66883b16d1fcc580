#include "switch/load_balancer.h"

#include <algorithm>
#include <utility>

#include "blocks/rtl_loop.h"

namespace netasic {

load_balancer::load_balancer(const lb_config& cfg, const route_table& routes, const std::vector<uint64_t>& port_rate_bps)
    : cfg_(cfg), routes_(routes), rng_(cfg.seed) {
  if (cfg.mode == lb_mode::spray_round_robin) rr_.assign(routes.member_capacity(), 0);
  if (cfg.mode == lb_mode::letflow) flowlets_ = flowlet_table_unit(cfg.flowlet);
  if (cfg.mode == lb_mode::balance_sketch) {
    sketch_ = balance_sketch_unit(cfg.sketch);
    sketch_owner_.assign(size_t(cfg.sketch.buckets) * cfg.sketch.cells, flow_key_t{});
  }
  if (cfg.mode == lb_mode::conga && cfg.conga_leaf >= 0) {
    conga_config c;
    c.leaf_id = uint32_t(cfg.conga_leaf);
    c.leaves = cfg.leaves;
    c.uplinks = cfg.uplinks;
    c.dre = cfg.dre;
    c.flowlet = cfg.flowlet;
    c.aging_ps = cfg.conga_aging_ps;
    c.seed = cfg.seed;
    conga_ = std::make_unique<conga_leaf>(c);
  }
  if (cfg.mode == lb_mode::conga && cfg.conga_leaf < 0)   // a spine: a DRE per port
    for (uint64_t rate : port_rate_bps) {
      dre_config d = cfg.dre;
      d.link_gbps = double(rate) / 1e9;
      port_dre_.emplace_back(d);
    }
  update_hash_only();
}

void load_balancer::use_flowcut(const flowcut_config& cfg, const std::vector<bool>& host_port,
                                flowcut_stage::port_bytes_fn port_bytes, flowcut_stage::resubmit_fn resubmit,
                                flowcut_stage::buffer_hooks buffer) {
  flowcut_ = std::make_unique<flowcut_stage>(cfg, host_port, routes_, std::move(port_bytes), std::move(resubmit),
                                             std::move(buffer));
  update_hash_only();
}

void load_balancer::attach_waves(wave_trace* w, uint32_t flowlet_id, uint32_t sketch_id, uint32_t flowcut_id) {
  wave_ = w;
  wave_flowlet_ = flowlets_ ? flowlet_id : wave_trace::off;
  wave_sketch_ = sketch_ ? sketch_id : wave_trace::off;
  wave_flowcut_ = flowcut_ ? flowcut_id : wave_trace::off;
  if (auto* core = dynamic_cast<flowlet_table*>(flowlets_.get())) {
    core->wave = w;
    core->wave_id = wave_flowlet_;
  }
}

void load_balancer::trace_tables(uint64_t now_ps) {
  if (wave_flowlet_ != wave_trace::off) wave_->set(wave_flowlet_, now_ps, flowlets_->counters().occupancy);
  // BalanceSketch counts its cells: only when traced.
  if (wave_sketch_ != wave_trace::off) wave_->set(wave_sketch_, now_ps, sketch_->occupancy());
  if (wave_flowcut_ != wave_trace::off) wave_->set(wave_flowcut_, now_ps, flowcut_->table().entries());
}

void load_balancer::update_hash_only() {
  const bool hashes = cfg_.mode == lb_mode::ecmp || cfg_.mode == lb_mode::wcmp || (cfg_.mode == lb_mode::conga && !conga_);
  hash_only_ = hashes && !flowcut_;
}

lb_route load_balancer::decide(packet& p, uint32_t hash, uint32_t base, uint32_t size, uint64_t now_ps) {
  lb_route r;
  const bool data = p.kind == pkt_kind::data;
  if (flowcut_ && data) {
    r.held = !flowcut_->data(p, hash, base, size, now_ps, r.port);
    return r;
  }
  if (conga_ && conga_route(p, hash, base, size, now_ps, r.port)) return r;
  r.port = routes_.member(base + (data ? pick(p, hash, base, size, now_ps, r.clear) : hash % size));
  if (flowcut_ && p.fc_valid && (p.kind == pkt_kind::ack || p.kind == pkt_kind::nak)) flowcut_->ack(p, now_ps, r.port);
  return r;
}

uint32_t load_balancer::pick(const packet& p, uint32_t hash, uint32_t base, uint32_t size, uint64_t now_ps,
                            bool& clear) {
  switch (cfg_.mode) {
    case lb_mode::ecmp:
    case lb_mode::wcmp:
    case lb_mode::conga: return hash % size;   // CONGA: a spine, or a packet that stays in its leaf
    case lb_mode::spray_random: return uint32_t(rng_.below(size));
    case lb_mode::spray_round_robin: {
      uint32_t& next = rr_[base];
      const uint32_t i = next % size;
      next = i + 1;
      return i;
    }
    case lb_mode::letflow: {
      // A new flowlet takes a random member (LetFlow's choice); the draw is made for every packet
      // so the random stream does not depend on the table's state.
      const uint32_t fresh = uint32_t(rng_.below(size));
      return flowlets_->lookup(hash, now_ps, fresh).port % size;
    }
    case lb_mode::balance_sketch: return sketch_pick(p, hash, size, now_ps, clear);
  }
  return hash % size;
}

namespace {
const crc_engine& fingerprint_crc() {
  static const crc_engine crc = crc_engine::crc32c();
  return crc;
}
}  // namespace

uint32_t load_balancer::sketch_fingerprint(const packet& p) {
  uint8_t key[flow_key_bytes];
  flow_key(p, key);
  return fingerprint_crc().compute(key, flow_key_bytes);
}

uint32_t load_balancer::sketch_pick(const packet& p, uint32_t hash, uint32_t size, uint64_t now_ps, bool& clear) {
  // The bucket comes from the flow hash, the fingerprint from a second hash unit whose bits are
  // independent of it, up to the configured width (BurstBalancer §3.6: a collision needs the same
  // bucket AND the same fingerprint, Pr = 1 - (1 - 2^-n)^(M/l)).
  uint8_t raw[flow_key_bytes];
  flow_key(p, raw);
  const uint32_t hop = uint32_t(rng_.below(size));
  const bs_decision d = sketch_->process(hash, fingerprint_crc().compute(raw, flow_key_bytes), p.frame_bytes(), now_ps, hop);
  clear = d.bucket_clear;
  flow_key_t key;
  std::copy(raw, raw + flow_key_bytes, key.begin());
  flow_key_t& owner = sketch_owner_[size_t(d.bucket) * cfg_.sketch.cells + d.cell];
  if (d.event == bs_event::hit) {
    fingerprint_collisions_ += owner != key;   // the sketch took this packet for another flow's
  } else if (d.event != bs_event::decrement && d.event != bs_event::blocked) {
    owner = key;   // insert, expire, restart, replace: this flow took the cell
  }
  return d.steer ? d.next_hop % size : hash % size;
}

bool load_balancer::conga_route(packet& p, uint32_t hash, uint32_t base, uint32_t size, uint64_t now_ps, unsigned& out) {
  // Every packet between leaves (data, ACKs and CNPs alike) carries the overlay header: arriving
  // from the fabric it feeds this leaf's tables; leaving for another leaf it takes the uplink
  // CONGA picks for its flowlet, and the header with LBTag and feedback.
  const unsigned hosts = cfg_.hosts_per_leaf;
  if (p.conga_valid) {
    conga_->receive(host_of_ip(p.ip.src) / hosts, p.conga, now_ps);
    p.conga_valid = false;
  }
  const unsigned dst_leaf = host_of_ip(p.ip.dst) / hosts;
  if (p.in_port >= hosts || dst_leaf == unsigned(cfg_.conga_leaf)) return false;
  uint32_t allowed = 0;   // the uplinks routing offers (failed ones are not in the group)
  for (uint32_t i = 0; i < size; ++i) allowed |= 1u << (routes_.member(base + i) - hosts);
  const conga_send s = conga_->send(hash, dst_leaf, p.frame_bytes(), now_ps, allowed);
  out = hosts + s.uplink;
  p.conga = s.header;
  p.conga_valid = true;
  return true;
}

void load_balancer::conga_transmit(unsigned port, packet& p, uint64_t start_ps) {
  // Every link's DRE sees every frame; a frame between leaves takes the worst metric on its way
  // (the source leaf's uplink is counted by its CONGA block).
  port_dre_[port].add(start_ps, p.frame_bytes());
  if (p.conga_valid) conga_hop(p.conga, port_dre_[port].metric(start_ps));
}

void load_balancer::advance(uint64_t now_ps) {
  if (flowlets_) flowlets_->advance(now_ps);
  if (wave_) trace_tables(now_ps);
}

}  // namespace netasic
