// RTL in the loop for the switch's flow hash (see the header). Built into netasic_cosim, which
// Verilates rtl/ (CMakeLists.txt).
#include "cosim/crc_hash/crc_hash_rtl.h"

#include <verilated.h>

#include <stdexcept>
#include <string>

#include "Vcrc_hash.h"
#include "Vcrc_hash___024root.h"
#include "cosim/harness/dut.h"

namespace netasic {

struct crc_hash_rtl::impl {
  cosim::dut<Vcrc_hash> m;

  void tick() { m.tick(); }
};

crc_hash_rtl::crc_hash_rtl(const crc_hash_config& cfg, rtl_loop_count* count) : cfg_(cfg), count_(count) {
  if (cfg.bits != 32)
    throw std::invalid_argument("--rtl crc_hash: the RTL computes CRC-32; switch.hash_bits is " + std::to_string(cfg.bits));
  p_ = std::make_unique<impl>();
  if (count) p_->m.count_cycles(&count->cycles);
  p_->m->in_valid = 0;
  p_->m->rst = 1;
  p_->tick();
  p_->tick();
  p_->m->rst = 0;
}

crc_hash_rtl::~crc_hash_rtl() = default;

uint32_t crc_hash_rtl::hash(packet& p) {
  uint8_t key[flow_key_bytes];
  flow_key(p, key);
  auto& m = *p_->m;
  for (unsigned w = 0; w < 4; ++w) m.in_key[w] = 0;
  for (unsigned i = 0; i < flow_key_bytes; ++i) {   // byte 0 is the top byte of in_key
    const unsigned bit = (flow_key_bytes - 1 - i) * 8;
    m.in_key[bit / 32] |= uint32_t(key[i]) << (bit % 32);
  }
  m.in_seed = cfg_.seed;
  m.in_valid = 1;
  p_->tick();
  if (count_) ++count_->calls;
  return m.out_hash;
}

rtl_loop_block crc_hash_rtl_loop() {
  rtl_loop_block b;   // no scenario key fixes the RTL, and every run hashes
  b.unused = [](const config&) { return std::string(); };
  b.use = [](rtl_loop& loop, rtl_loop_count* count) {
    loop.crc_hash = [count](const crc_hash_config& c) { return std::make_unique<crc_hash_rtl>(c, count); };
  };
  return b;
}

}  // namespace netasic
