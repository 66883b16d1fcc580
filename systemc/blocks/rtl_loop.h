// RTL in the loop (`netasic run --rtl BLOCK`): a block's Verilated RTL answers, in the fabric
// run, the calls its C++ core answers, and the run's results must not change. Core and adapter
// implement one interface, declared beside the core (flowlet_table_if, balance_sketch_if,
// crc_hash_if, reciprocal_table_if, stateful_alu_if); a model asks here for its block once and then calls it.
// The adapters live in cosim/<block>/ (they need Verilator, which netasic_lib does not link): the
// netasic executable injects the factories of the blocks `--rtl` names before the run.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "blocks/balance_sketch.h"
#include "blocks/crc_hash.h"
#include "blocks/flowlet_table.h"
#include "blocks/reciprocal_table.h"
#include "blocks/stateful_alu.h"

namespace netasic {

// What a block's RTL did in a run (summary.json's rtl_in_loop), summed over its instances: the
// calls it answered in place of the core, the clock cycles its Verilated models were clocked
// through (resets, sweeps and idle cycles included), the cost of putting it in the loop, and the
// quiet cycles an adapter stepped over without clocking them (the flowlet table's, the Sundial
// unit's and the rows of the stateful ALU's sweeps; 0 for the others).
struct rtl_loop_count {
  uint64_t calls = 0;
  uint64_t cycles = 0;
  uint64_t quiet_cycles_skipped = 0;
};

// Empty unless the block was asked for. Each factory throws std::invalid_argument when the
// configuration's structure differs from the Verilated parameters.
struct rtl_loop {
  std::function<std::unique_ptr<flowlet_table_if>(const flowlet_config&)> flowlet_table;
  std::function<std::unique_ptr<balance_sketch_if>(const balance_sketch_config&)> balance_sketch;
  std::function<std::unique_ptr<crc_hash_if>(const crc_hash_config&)> crc_hash;
  // Loaded from the run's table, which outlives the run's models.
  std::function<std::shared_ptr<const reciprocal_table_if>(const ::netasic::reciprocal_table&)> reciprocal_table;
  // Every register array of a sketch that runs on stateful ALUs (FlowRadar, BalanceSketch's
  // stateful_alu form), each with its program.
  std::function<std::unique_ptr<stateful_alu_if>(const stateful_alu_config&, const stateful_alu_program&)> stateful_alu;
  std::map<std::string, rtl_loop_count> counts;   // per block in the loop
};

rtl_loop& rtl_blocks();

// The unit a model calls: its RTL if a factory was injected, else the core.
std::unique_ptr<flowlet_table_if> flowlet_table_unit(const flowlet_config& cfg);
std::unique_ptr<balance_sketch_if> balance_sketch_unit(const balance_sketch_config& cfg);
std::unique_ptr<crc_hash_if> crc_hash_unit(const crc_hash_config& cfg);
std::unique_ptr<stateful_alu_if> stateful_alu_unit(const stateful_alu_config& cfg, const stateful_alu_program& prog);
// The table itself (not owned: it outlives the caller) or its RTL.
std::shared_ptr<const reciprocal_table_if> reciprocal_table_unit(const reciprocal_table& table);

}  // namespace netasic
