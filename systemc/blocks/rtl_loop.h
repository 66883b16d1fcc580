// RTL in the loop (`netasic run --rtl BLOCK`): a block's Verilated RTL answers, in the fabric
// run, the calls its C++ core answers, and the run's results must not change. The adapters live
// in cosim/<block>/ (they need Verilator, which netasic_lib does not link); the netasic executable
// registers the ones asked for here before the run, and each model asks here for its block.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "blocks/balance_sketch.h"
#include "blocks/flowlet_table.h"
#include "blocks/reciprocal_table.h"

namespace netasic {

// LetFlow's flowlet table: what the load balancer calls on flowlet_table.
struct flowlet_rtl {
  virtual ~flowlet_rtl() = default;
  virtual flowlet_result lookup(uint64_t hash, uint64_t now_ps, uint32_t new_port, uint64_t flow_id) = 0;
  virtual void advance(uint64_t now_ps) = 0;
  virtual const flowlet_counters& counters() const = 0;
};

// BalanceSketch (software form): what the load balancer calls on balance_sketch.
struct sketch_rtl {
  virtual ~sketch_rtl() = default;
  virtual bs_decision process(uint64_t hash, uint32_t fingerprint, uint32_t bytes, uint64_t now_ps, uint32_t candidate_hop) = 0;
  virtual const bs_counters& counters() const = 0;
  virtual uint64_t occupancy() const = 0;
};

// The switch's 5-tuple hash: CRC-32 of the 13-byte key with the switch's seed as initial value.
struct hash_rtl {
  virtual ~hash_rtl() = default;
  virtual uint32_t hash(const uint8_t* key13, uint32_t seed) = 0;
};

// HPCC's reciprocal-table divider: x / n as reciprocal_table::divide computes it.
struct divider_rtl {
  virtual ~divider_rtl() = default;
  virtual uint64_t divide(uint64_t x, uint64_t n) = 0;
};

// Empty unless the block was asked for. Each throws std::invalid_argument when the
// configuration's structure differs from the Verilated parameters.
struct rtl_loop {
  std::function<std::unique_ptr<flowlet_rtl>(const flowlet_config&)> flowlet_table;
  std::function<std::unique_ptr<sketch_rtl>(const balance_sketch_config&)> balance_sketch;
  std::function<std::shared_ptr<hash_rtl>()> crc_hash;                            // stateless: may be shared
  std::function<std::shared_ptr<divider_rtl>(const ::netasic::reciprocal_table&)> reciprocal_table;   // likewise
  std::map<std::string, uint64_t> calls;   // per block in the loop: calls its RTL answered (summary.json)
};

rtl_loop& rtl_blocks();

}  // namespace netasic
