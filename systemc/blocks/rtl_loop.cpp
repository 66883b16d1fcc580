#include "blocks/rtl_loop.h"

namespace netasic {

rtl_loop& rtl_blocks() {
  static rtl_loop r;
  return r;
}

std::unique_ptr<flowlet_table_if> flowlet_table_unit(const flowlet_config& cfg) {
  const rtl_loop& r = rtl_blocks();
  if (r.flowlet_table) return r.flowlet_table(cfg);
  return std::make_unique<flowlet_table>(cfg);
}

std::unique_ptr<balance_sketch_if> balance_sketch_unit(const balance_sketch_config& cfg) {
  const rtl_loop& r = rtl_blocks();
  if (r.balance_sketch) return r.balance_sketch(cfg);
  return std::make_unique<balance_sketch>(cfg);
}

std::unique_ptr<crc_hash_if> crc_hash_unit(const crc_hash_config& cfg) {
  const rtl_loop& r = rtl_blocks();
  if (r.crc_hash) return r.crc_hash(cfg);
  return std::make_unique<crc_hash>(cfg);
}

std::unique_ptr<stateful_alu_if> stateful_alu_unit(const stateful_alu_config& cfg, const stateful_alu_program& prog) {
  const rtl_loop& r = rtl_blocks();
  if (r.stateful_alu) return r.stateful_alu(cfg, prog);
  return std::make_unique<stateful_alu>(cfg, prog);
}

std::shared_ptr<const reciprocal_table_if> reciprocal_table_unit(const reciprocal_table& table) {
  const rtl_loop& r = rtl_blocks();
  if (r.reciprocal_table) return r.reciprocal_table(table);
  return std::shared_ptr<const reciprocal_table_if>(std::shared_ptr<void>(), &table);   // aliasing: owns nothing
}

}  // namespace netasic
