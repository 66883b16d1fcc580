// HPCC's INT hop record against exact arithmetic, across the wrap-around of every field.
#include <gtest/gtest.h>

#include "common/rng.h"
#include "switch/int_writer.h"

using namespace netasic;

TEST(Int, FieldsAreBitExactAcrossWrapAround) {
  rng r(11);
  for (int i = 0; i < 20000; ++i) {
    int_stack s{};
    // Values far past every field's range: hours of time, terabytes sent, deep queues.
    const uint64_t ts_ps = r.next() >> 8, tx = r.next() >> 16, q = r.below(40'000'000);
    const unsigned id = unsigned(r.below(1u << 16));
    const uint8_t b = uint8_t(r.below(16));
    ASSERT_TRUE(int_push_hop(s, id, b, ts_ps, tx, q));
    EXPECT_EQ(s.n_hop, 1u);
    EXPECT_EQ(s.path_id, id % 4096);
    EXPECT_EQ(s.hop[0].b, b);
    EXPECT_EQ(s.hop[0].ts, (ts_ps / 1000) % (1u << 24));
    EXPECT_EQ(s.hop[0].tx_bytes, (tx / 128) % (1u << 20));
    EXPECT_EQ(s.hop[0].qlen, (q / 80) % (1u << 16));
  }
}

TEST(Int, WrapBoundaries) {
  int_stack s{};
  // TS: 2^24 ns - 1 ns is the last value before the wrap; 2^24 ns reads 0.
  int_push_hop(s, 1, 5, ((1ull << 24) - 1) * 1000 + 999, (1ull << 20) * 128 - 1, 65535ull * 80 + 79);
  EXPECT_EQ(s.hop[0].ts, (1u << 24) - 1);
  EXPECT_EQ(s.hop[0].tx_bytes, (1u << 20) - 1);
  EXPECT_EQ(s.hop[0].qlen, 65535u);
  int_push_hop(s, 2, 5, (1ull << 24) * 1000, (1ull << 20) * 128, 65536ull * 80);
  EXPECT_EQ(s.hop[1].ts, 0u);
  EXPECT_EQ(s.hop[1].tx_bytes, 0u);
  EXPECT_EQ(s.hop[1].qlen, 0u);
  // A sender takes differences modulo the field width; across the wrap they stay right.
  const uint32_t d_ts = (s.hop[1].ts - s.hop[0].ts) & 0xFFFFFF, d_tx = (s.hop[1].tx_bytes - s.hop[0].tx_bytes) & 0xFFFFF;
  EXPECT_EQ(d_ts, 1u);
  EXPECT_EQ(d_tx, 1u);
}

TEST(Int, PathIdAndHopCount) {
  int_stack s{};
  const unsigned ids[] = {0x123, 0xABC, 0x1FFF, 7, 4095};
  unsigned expect = 0;
  for (unsigned i = 0; i < int_stack::max_hops; ++i) {
    ASSERT_TRUE(int_push_hop(s, ids[i], 0, 0, 0, 0));
    expect ^= ids[i] & 0xFFF;
    EXPECT_EQ(s.n_hop, i + 1);
    EXPECT_EQ(s.path_id, expect);
  }
  // The padding holds max_hops records; a longer path leaves the stack as it is.
  const int_stack full = s;
  EXPECT_FALSE(int_push_hop(s, 99, 1, 1, 1, 1));
  EXPECT_EQ(s.n_hop, full.n_hop);
  EXPECT_EQ(s.path_id, full.path_id);
}
