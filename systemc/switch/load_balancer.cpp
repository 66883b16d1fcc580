#include "switch/load_balancer.h"

namespace netasic {

load_balancer::load_balancer(const lb_config& cfg, unsigned group_keys) : cfg_(cfg), rng_(cfg.seed) {
  if (cfg.mode == lb_mode::spray_round_robin) rr_.assign(group_keys, 0);
  const rtl_loop& rtl = rtl_blocks();
  if (cfg.mode == lb_mode::letflow) {
    if (rtl.flowlet_table) flowlets_rtl_ = rtl.flowlet_table(cfg.flowlet);
    else flowlets_ = std::make_unique<flowlet_table>(cfg.flowlet);
  }
  if (cfg.mode == lb_mode::balance_sketch) {
    if (rtl.balance_sketch) sketch_rtl_ = rtl.balance_sketch(cfg.sketch);
    else sketch_ = std::make_unique<balance_sketch>(cfg.sketch);
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
}

uint32_t load_balancer::pick(uint32_t hash, uint32_t base, uint32_t size, uint32_t bytes, uint64_t now_ps,
                             bool& needs_clear) {
  needs_clear = false;
  switch (cfg_.mode) {
    case lb_mode::ecmp:
    case lb_mode::wcmp:
    case lb_mode::conga: return hash % size;   // CONGA's leaves are driven by the switch; spines hash
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
      const flowlet_result r = flowlets_rtl_ ? flowlets_rtl_->lookup(hash, now_ps, fresh, flowlet_table::flow_is_hash)
                                             : flowlets_->lookup(hash, now_ps, fresh);
      return r.port % size;
    }
    case lb_mode::balance_sketch: {
      // The fingerprint comes from other bits of the hash than the bucket index does.
      const uint32_t fingerprint = (hash * 0x9E3779B1u) >> 16;
      const uint32_t hop = uint32_t(rng_.below(size));
      const bs_decision d = sketch_rtl_ ? sketch_rtl_->process(hash, fingerprint, bytes, now_ps, hop)
                                        : sketch_->process(hash, fingerprint, bytes, now_ps, hop);
      needs_clear = d.bucket_clear;
      return d.steer ? d.next_hop % size : hash % size;
    }
  }
  return hash % size;
}

void load_balancer::advance(uint64_t now_ps) {
  if (flowlets_) flowlets_->advance(now_ps);
  if (flowlets_rtl_) flowlets_rtl_->advance(now_ps);
}

const flowlet_counters* load_balancer::flowlet_counts() const {
  return flowlets_ ? &flowlets_->counters() : flowlets_rtl_ ? &flowlets_rtl_->counters() : nullptr;
}

const bs_counters* load_balancer::sketch_counts() const {
  return sketch_ ? &sketch_->counters() : sketch_rtl_ ? &sketch_rtl_->counters() : nullptr;
}

uint64_t load_balancer::sketch_occupancy() const {
  return sketch_ ? sketch_->occupancy() : sketch_rtl_ ? sketch_rtl_->occupancy() : 0;
}

}  // namespace netasic
