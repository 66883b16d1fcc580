#include "blocks/crc_hash.h"

#include <stdexcept>
#include <vector>

namespace netasic {
namespace {
// Bit reversal of the low n bits (n = 8, 16 or 32) by swapping ever larger groups: it runs on
// every packet's hash when the seed is reflected, so no loop.
uint32_t reflect_bits(uint32_t v, unsigned n) {
  v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
  v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
  v = ((v >> 4) & 0x0F0F0F0Fu) | ((v & 0x0F0F0F0Fu) << 4);
  v = ((v >> 8) & 0x00FF00FFu) | ((v & 0x00FF00FFu) << 8);
  v = (v >> 16) | (v << 16);
  return v >> (32 - n);
}
}  // namespace

crc_engine::crc_engine(unsigned width, uint32_t poly, uint32_t init, bool reflect, uint32_t xorout)
    : width_(width), poly_(poly), init_(init), xorout_(xorout), reflect_(reflect) {
  if (width != 16 && width != 32) throw std::invalid_argument("crc width must be 16 or 32");
  mask_ = width == 32 ? 0xFFFFFFFFu : 0xFFFFu;
  // Reflected CRCs shift right with the reflected polynomial; normal ones shift left.
  const uint32_t rpoly = reflect_bits(poly_ & mask_, width_);
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t c;
    if (reflect_) {
      c = b;
      for (int k = 0; k < 8; ++k) c = (c & 1u) ? (c >> 1) ^ rpoly : c >> 1;
    } else {
      c = b << (width_ - 8);
      const uint32_t top = 1u << (width_ - 1);
      for (int k = 0; k < 8; ++k) c = (c & top) ? ((c << 1) ^ poly_) & mask_ : (c << 1) & mask_;
    }
    table_[0][b] = c & mask_;
  }
  for (unsigned k = 1; k < 4; ++k)
    for (uint32_t b = 0; b < 256; ++b) {
      const uint32_t prev = table_[k - 1][b];
      table_[k][b] = reflect_ ? (prev >> 8) ^ table_[0][prev & 0xFFu]
                              : ((prev << 8) ^ table_[0][(prev >> (width_ - 8)) & 0xFFu]) & mask_;
    }
}

uint32_t crc_engine::compute(const uint8_t* data, size_t len, uint32_t init) const {
  // Runs once a packet (the 5-tuple's 13 bytes): the branches on the CRC's form are taken once,
  // outside the loops, and a zero initial value (the switches' hash) skips its reflection.
  const auto& t = table_;
  size_t i = 0;
  if (reflect_) {
    uint32_t c = init & mask_ ? reflect_bits(init & mask_, width_) : 0;
    if (width_ == 32)
      for (; i + 4 <= len; i += 4) {
        c ^= uint32_t(data[i]) | uint32_t(data[i + 1]) << 8 | uint32_t(data[i + 2]) << 16 | uint32_t(data[i + 3]) << 24;
        c = t[3][c & 0xFFu] ^ t[2][(c >> 8) & 0xFFu] ^ t[1][(c >> 16) & 0xFFu] ^ t[0][c >> 24];
      }
    for (; i < len; ++i) c = (c >> 8) ^ t[0][(c ^ data[i]) & 0xFFu];
    return (c ^ xorout_) & mask_;
  }
  uint32_t c = init & mask_;
  if (width_ == 32)
    for (; i + 4 <= len; i += 4) {
      c ^= uint32_t(data[i]) << 24 | uint32_t(data[i + 1]) << 16 | uint32_t(data[i + 2]) << 8 | uint32_t(data[i + 3]);
      c = t[3][c >> 24] ^ t[2][(c >> 16) & 0xFFu] ^ t[1][(c >> 8) & 0xFFu] ^ t[0][c & 0xFFu];
    }
  for (; i < len; ++i) c = ((c << 8) ^ t[0][((c >> (width_ - 8)) ^ data[i]) & 0xFFu]) & mask_;
  return (c ^ xorout_) & mask_;
}

uint32_t crc_engine::seed_term(uint32_t init, size_t len) const {
  const std::vector<uint8_t> zeros(len, 0);
  return compute(zeros.data(), len, init) ^ compute(zeros.data(), len, 0);
}

void flow_key(const packet& p, uint8_t (&key)[flow_key_bytes]) {
  const uint32_t src = p.ip.src, dst = p.ip.dst;
  const uint16_t sport = p.l4_src_port(), dport = p.l4_dst_port();
  key[0] = uint8_t(src >> 24), key[1] = uint8_t(src >> 16), key[2] = uint8_t(src >> 8), key[3] = uint8_t(src);
  key[4] = uint8_t(dst >> 24), key[5] = uint8_t(dst >> 16), key[6] = uint8_t(dst >> 8), key[7] = uint8_t(dst);
  key[8] = p.ip.protocol;
  key[9] = uint8_t(sport >> 8), key[10] = uint8_t(sport), key[11] = uint8_t(dport >> 8), key[12] = uint8_t(dport);
}

namespace {

// The tables depend on the width alone (a switch's seed is its initial value): built once and
// shared by every switch's hash unit, instead of 4 KiB of tables per switch.
const crc_engine& shared_engine(unsigned bits) {
  static const crc_engine crc16 = crc_engine::crc16(), crc32 = crc_engine::crc32();
  return bits == 16 ? crc16 : crc32;
}

}  // namespace

crc_hash::crc_hash(const crc_hash_config& cfg)
    : cfg_(cfg), crc_(shared_engine(cfg.bits)),
      seed_term_(crc_.seed_term(cfg.seed, flow_key_bytes)) {}

uint32_t crc_hash::hash(packet& p) {
  if (!p.tuple_crc_valid) {
    uint8_t key[flow_key_bytes];
    flow_key(p, key);
    p.tuple_crc = crc_.compute(key, flow_key_bytes, 0);
    p.tuple_crc_valid = true;
  }
  return p.tuple_crc ^ seed_term_;
}

uint32_t crc_bitwise(unsigned width, uint32_t poly, uint32_t init, bool reflect, uint32_t xorout,
                     const uint8_t* data, size_t len) {
  const uint64_t mask = (uint64_t(1) << width) - 1, top = uint64_t(1) << (width - 1);
  uint64_t c = init & mask;
  for (size_t i = 0; i < len; ++i) {
    const uint32_t byte = reflect ? reflect_bits(data[i], 8) : data[i];
    for (int k = 7; k >= 0; --k) {
      const bool bit = ((byte >> k) & 1u) != 0;
      const bool msb = (c & top) != 0;
      c = (c << 1) & mask;
      if (bit != msb) c ^= poly & mask;
    }
  }
  if (reflect) c = reflect_bits(uint32_t(c), width);
  return uint32_t((c ^ xorout) & mask);
}

}  // namespace netasic
