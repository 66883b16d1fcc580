#include "switch/load_balancer.h"

namespace netasic {

load_balancer::load_balancer(const lb_config& cfg, unsigned group_keys) : cfg_(cfg), rng_(cfg.seed) {
  if (cfg.mode == lb_mode::spray_round_robin) rr_.assign(group_keys, 0);
  if (cfg.mode == lb_mode::letflow) flowlets_ = std::make_unique<flowlet_table>(cfg.flowlet);
}

uint32_t load_balancer::pick(uint32_t hash, uint32_t base, uint32_t size, uint64_t now_ps) {
  switch (cfg_.mode) {
    case lb_mode::ecmp:
    case lb_mode::wcmp: return hash % size;
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
  }
  return hash % size;
}

}  // namespace netasic
