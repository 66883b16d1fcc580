// CRC engine against the published check values (CRC RevEng catalogue: CRC of "123456789")
// and against the bit-serial definition on random data, every width/reflection combination.
#include <gtest/gtest.h>

#include <vector>

#include "blocks/crc_hash.h"
#include "common/rng.h"

using netasic::crc_engine;

namespace {
const uint8_t check[] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
}

TEST(Crc, PublishedCheckValues) {
  EXPECT_EQ(crc_engine::crc32().compute(check, 9), 0xCBF43926u);                                // CRC-32 (ISO-HDLC)
  EXPECT_EQ(crc_engine(32, 0x04C11DB7u, 0xFFFFFFFFu, false, 0xFFFFFFFFu).compute(check, 9), 0xFC891918u);  // BZIP2
  EXPECT_EQ(crc_engine(32, 0x04C11DB7u, 0xFFFFFFFFu, false, 0).compute(check, 9), 0x0376E6E7u);  // MPEG-2
  EXPECT_EQ(crc_engine(32, 0x1EDC6F41u, 0xFFFFFFFFu, true, 0xFFFFFFFFu).compute(check, 9), 0xE3069283u);   // CRC-32C
  EXPECT_EQ(crc_engine::crc16().compute(check, 9), 0x29B1u);                                     // CCITT-FALSE
  EXPECT_EQ(crc_engine(16, 0x8005u, 0, true, 0).compute(check, 9), 0xBB3Du);                     // ARC
  EXPECT_EQ(crc_engine(16, 0x1021u, 0, true, 0).compute(check, 9), 0x2189u);                     // KERMIT
}

TEST(Crc, TableMatchesBitSerialOnRandomData) {
  netasic::rng r(7);
  struct variant { unsigned w; uint32_t poly; bool refl; };
  for (const variant v : {variant{32, 0x04C11DB7u, true}, variant{32, 0x04C11DB7u, false}, variant{32, 0x1EDC6F41u, true},
                          variant{16, 0x1021u, false}, variant{16, 0x8005u, true}, variant{16, 0x8BB7u, false}}) {
    for (int trial = 0; trial < 2000; ++trial) {
      // A quarter with a zero initial value, as the switches' hash unit computes the 5-tuple's CRC.
      const uint32_t init = trial % 4 == 0 ? 0 : uint32_t(r.next()) & (v.w == 32 ? 0xFFFFFFFFu : 0xFFFFu);
      const uint32_t xorout = uint32_t(r.next()) & (v.w == 32 ? 0xFFFFFFFFu : 0xFFFFu);
      std::vector<uint8_t> data(r.below(40));
      for (auto& b : data) b = uint8_t(r.next());
      const crc_engine e(v.w, v.poly, 0, v.refl, xorout);
      ASSERT_EQ(e.compute(data.data(), data.size(), init),
                netasic::crc_bitwise(v.w, v.poly, init, v.refl, xorout, data.data(), data.size()))
          << "width " << v.w << " poly " << std::hex << v.poly << " len " << std::dec << data.size();
    }
  }
}

TEST(Crc, SeedChangesTheHash) {
  const crc_engine e = crc_engine::crc32();
  EXPECT_NE(e.compute(check, 9, 0), e.compute(check, 9, 0x9E3779B1u));
}

TEST(Crc, SeedTermMakesTheSeedLinear) {
  // What lets a switch reuse a packet's zero-seed CRC: for every key of a given length,
  // crc(seed, key) == crc(0, key) ^ seed_term(seed).
  netasic::rng r(11);
  for (const crc_engine& e : {crc_engine::crc32(), crc_engine::crc16(), crc_engine(32, 0x04C11DB7u, 0, false, 0x5A5A5A5Au)}) {
    for (int trial = 0; trial < 2000; ++trial) {
      const size_t len = 1 + r.below(20);
      std::vector<uint8_t> key(len);
      for (auto& b : key) b = uint8_t(r.next());
      const uint32_t seed = uint32_t(r.next()) & (e.width() == 32 ? 0xFFFFFFFFu : 0xFFFFu);
      ASSERT_EQ(e.compute(key.data(), len, seed), e.compute(key.data(), len, 0) ^ e.seed_term(seed, len));
    }
  }
}
