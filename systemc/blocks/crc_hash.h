// CRC hash as switch ASICs compute it for ECMP and table indexing: width 16 or 32, any
// polynomial, initial value, reflection and final XOR. Table-driven; 32-bit CRCs take four bytes
// per step (slicing-by-4), since every switch hashes every packet.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

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

 private:
  unsigned width_;
  uint32_t poly_, init_, xorout_, mask_;
  bool reflect_;
  std::array<std::array<uint32_t, 256>, 4> table_{};   // slicing-by-4 (table_[0] is the byte table)
};

// Bit-serial reference, the way the polynomial division is defined; used by the tests.
uint32_t crc_bitwise(unsigned width, uint32_t poly, uint32_t init, bool reflect, uint32_t xorout,
                     const uint8_t* data, size_t len);

}  // namespace netasic
