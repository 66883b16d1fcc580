// RTL in the loop for the switch's flow hash: the calls the switch makes on its hash unit
// (crc_hash_if, systemc/blocks/crc_hash.h), answered by the Verilated rtl/crc_hash.sv. Free of
// Verilator's headers (the model is behind a pointer to an implementation).
//
// One key per call, the hash one edge later. Every call hashes: the zero-seed CRC a packet
// carries (the core's shortcut) is neither read nor written, so every switch's hash of every
// packet is the RTL's.
#pragma once
#include <cstdint>
#include <memory>

#include "blocks/crc_hash.h"
#include "cosim/harness/rtl_loop_register.h"

namespace netasic {

class crc_hash_rtl : public crc_hash_if {
 public:
  // std::invalid_argument unless cfg.bits is 32: the RTL is Verilated for CRC-32. `count`, if
  // given, counts the hashes answered and the cycles clocked.
  explicit crc_hash_rtl(const crc_hash_config& cfg, rtl_loop_count* count = nullptr);
  ~crc_hash_rtl() override;
  crc_hash_rtl(const crc_hash_rtl&) = delete;
  crc_hash_rtl& operator=(const crc_hash_rtl&) = delete;

  uint32_t hash(packet& p) override;

 private:
  struct impl;
  crc_hash_config cfg_;
  std::unique_ptr<impl> p_;
  rtl_loop_count* count_;
};

// `netasic run --rtl crc_hash`.
rtl_loop_block crc_hash_rtl_loop();

}  // namespace netasic
