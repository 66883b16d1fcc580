#include "switch/flowradar_stage.h"

#include <utility>

#include "blocks/crc_hash.h"

namespace netasic {
namespace {
flowradar_params with_switch_seed(flowradar_params p, unsigned id) {
  p.seed = p.seed * 0x9E3779B97F4A7C15ull + id + 1;   // different hashes at every switch (Alg. 8 needs it)
  return p;
}
}  // namespace

flowradar_stage::flowradar_stage(const flowradar_stage_config& cfg, unsigned switch_id)
    : params_(with_switch_seed(cfg.params, switch_id)), epoch_ps_(cfg.epoch_ps), banks_(params_) {
  flowradar_table bank;
  bank.params = params_;
  frames_ = bank.export_frames();
}

void flowradar_stage::advance(uint64_t now) {
  const uint64_t e = now / epoch_ps_;
  if (e != epoch_) {
    end_epoch();
    epoch_ = e;
  }
}

void flowradar_stage::on_packet(const packet& p, uint64_t now, unsigned hop) {
  advance(now);
  flowradar_flow f;
  uint8_t key[flow_key_bytes];
  flow_key(p, key);
  for (unsigned k = 0; k < flowradar_flow_bytes; ++k) f[k] = key[k];
  banks_.update(f);
  dirty_ = true;
  auto [it, first] = truth_.try_emplace(f);
  if (first) it->second.hop = hop;
  ++it->second.packets;
}

void flowradar_stage::end_epoch() {
  if (!dirty_) return;
  out_.push_back({epoch_, banks_.swap(), std::move(truth_)});
  truth_.clear();
  dirty_ = false;
}

void flowradar_stage::finish() { end_epoch(); }

}  // namespace netasic
