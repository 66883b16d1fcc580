// CRC hash as switch ASICs compute it for ECMP and table indexing: width 16 or 32, any
// polynomial, initial value, reflection and final XOR. Table-driven; 32-bit CRCs take four bytes
// per step (slicing-by-4), since every switch hashes every packet.
//
// crc_hash, the switch's flow hash unit (rtl/crc_hash.sv), is such a CRC over a packet's 5-tuple
// with the switch's seed as initial value.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "protocol/packet.h"

namespace netasic {

class crc_engine {
 public:
  // poly in normal (MSB-first) form, e.g. 0x04C11DB7 for CRC-32, 0x1021 for CRC-16/CCITT.
  crc_engine(unsigned width, uint32_t poly, uint32_t init, bool reflect, uint32_t xorout);
  uint32_t compute(const uint8_t* data, size_t len) const { return compute(data, len, init_); }
  // Same CRC with another initial value: switches seed each hash unit differently.
  uint32_t compute(const uint8_t* data, size_t len, uint32_t init) const;
  unsigned width() const { return width_; }
  // CRC is linear in its initial value: compute(d, len, init) == compute(d, len, 0) ^
  // seed_term(init, len) for every d of that length.
  uint32_t seed_term(uint32_t init, size_t len) const;

  static crc_engine crc32() { return crc_engine(32, 0x04C11DB7u, 0xFFFFFFFFu, true, 0xFFFFFFFFu); }
  static crc_engine crc16() { return crc_engine(16, 0x1021u, 0xFFFFu, false, 0); }
  // CRC-32C (Castagnoli). Its polynomial is coprime with CRC-32's, so on the same key the two
  // CRCs are together one CRC modulo the product (degree 64): for uniformly random keys their 64
  // bits are independent. BalanceSketch's fingerprint unit (load_balancer) uses it.
  static crc_engine crc32c() { return crc_engine(32, 0x1EDC6F41u, 0xFFFFFFFFu, true, 0xFFFFFFFFu); }

 private:
  unsigned width_;
  uint32_t poly_, init_, xorout_, mask_;
  bool reflect_;
  std::array<std::array<uint32_t, 256>, 4> table_{};   // slicing-by-4 (table_[0] is the byte table)
};

struct crc_hash_config {
  unsigned bits = 32;     // 16: CRC-16/CCITT-FALSE; otherwise CRC-32 (ISO-HDLC)
  uint32_t seed = 0;      // initial value: each switch seeds its hash unit differently
};

// The key: src IP, dst IP, protocol, src port, dst port, each in network byte order.
constexpr size_t flow_key_bytes = 13;
void flow_key(const packet& p, uint8_t (&key)[flow_key_bytes]);

// What the switch calls for a packet's flow hash: the core below, or with `netasic run --rtl
// crc_hash` the Verilated RTL (cosim/crc_hash/crc_hash_rtl.h).
class crc_hash_if {
 public:
  virtual ~crc_hash_if() = default;
  // The CRC of p's key with the configured seed. May read and fill the zero-seed CRC the packet
  // carries (p.tuple_crc).
  virtual uint32_t hash(packet& p) = 0;
};

// The core. CRC is linear in its seed: crc(seed, key) = crc(0, key) ^ seed_term. The 5-tuple
// never changes in flight, so its zero-seed CRC is computed at the first switch and carried in
// the packet; every switch then gets exactly the value it would compute itself.
class crc_hash : public crc_hash_if {
 public:
  explicit crc_hash(const crc_hash_config& cfg);
  uint32_t hash(packet& p) override;
  const crc_hash_config& config() const { return cfg_; }

 private:
  crc_hash_config cfg_;
  const crc_engine& crc_;   // shared by every unit of its width
  uint32_t seed_term_;
};

// Bit-serial reference, the way the polynomial division is defined; used by the tests.
uint32_t crc_bitwise(unsigned width, uint32_t poly, uint32_t init, bool reflect, uint32_t xorout,
                     const uint8_t* data, size_t len);

}  // namespace netasic
