// TCP receiver core: delayed ACKs every second segment and on the timer (RFC 5681 section 4.2),
// immediate duplicate ACKs out of order and an immediate ACK when a hole fills, FIN acknowledged
// at once, RFC 3168's ECE until CWR, and RFC 8257's ECE state machine checked over thousands of
// random CE patterns: every ACK's ECE equals the CE mark of each segment it newly covers.
#include <gtest/gtest.h>

#include <vector>

#include "common/rng.h"
#include "nic/tcp/tcp_receiver.h"

using namespace netasic;

namespace {

constexpr uint64_t ms = 1'000'000'000;
constexpr uint32_t mss = 1000;

tcp_config base(tcp_cc cc = tcp_cc::newreno) {
  tcp_config c;
  c.mss_bytes = mss;
  c.cc = cc;
  return c;
}

TEST(TcpReceiver, AcksEverySecondSegmentOrOnTheTimer) {
  const tcp_config c = base();
  tcp_receiver r(c, 100 * mss);
  for (uint64_t i = 0; i < 10; ++i) {
    const tcp_rx_result x = r.on_segment(i * mss, mss, false, false, i);
    if (i % 2 == 0) {
      EXPECT_EQ(x.acks, 0u);
      EXPECT_EQ(r.delack_deadline(), i + c.delack_ps);
    } else {
      ASSERT_EQ(x.acks, 1u);
      EXPECT_EQ(x.ack[0].ack, (i + 1) * mss);
      EXPECT_EQ(r.delack_deadline(), tcp_receiver::never);
    }
  }
  r.on_segment(10 * mss, mss, false, false, 100);
  tcp_ack a;
  EXPECT_FALSE(r.on_timer(100 + c.delack_ps - 1, a));
  ASSERT_TRUE(r.on_timer(100 + c.delack_ps, a));   // 40 ms later
  EXPECT_EQ(a.ack, 11 * mss);
}

TEST(TcpReceiver, OutOfOrderDupAcksAtOnceAndFillingAcksEverything) {
  tcp_receiver r(base(), 10 * mss);
  r.on_segment(0, mss, false, false, 0);
  for (uint64_t i = 2; i < 5; ++i) {
    const tcp_rx_result x = r.on_segment(i * mss, mss, false, false, i);
    ASSERT_EQ(x.acks, 1u);
    EXPECT_TRUE(x.out_of_order);
    EXPECT_EQ(x.ack[0].ack, 1 * mss);   // a duplicate ACK for the hole
  }
  EXPECT_EQ(r.buffered_bytes(), 3 * mss);
  const tcp_rx_result fill = r.on_segment(mss, mss, false, false, 9);
  ASSERT_EQ(fill.acks, 1u);
  EXPECT_EQ(fill.ack[0].ack, 5 * mss);
  EXPECT_EQ(r.buffered_bytes(), 0u);
  const tcp_rx_result dup = r.on_segment(0, mss, false, false, 10);
  ASSERT_EQ(dup.acks, 1u);
  EXPECT_TRUE(dup.duplicate);
}

TEST(TcpReceiver, LastSegmentIsAckedAtOnce) {
  tcp_receiver r(base(), 2 * mss + 10);
  r.on_segment(0, mss, false, false, 0);
  r.on_segment(mss, mss, false, false, 0);
  const tcp_rx_result x = r.on_segment(2 * mss, 10, false, false, 0);
  ASSERT_EQ(x.acks, 1u);
  EXPECT_EQ(x.ack[0].ack, 2 * mss + 10);
  EXPECT_TRUE(r.complete());
}

TEST(TcpReceiver, EchoesCeUntilCwr) {
  tcp_config c = base();
  c.delack_ps = 0;   // an ACK per segment shows each flag
  tcp_receiver r(c, 100 * mss);
  EXPECT_FALSE(r.on_segment(0, mss, false, false, 0).ack[0].ece);
  EXPECT_TRUE(r.on_segment(mss, mss, true, false, 0).ack[0].ece);
  EXPECT_TRUE(r.on_segment(2 * mss, mss, false, false, 0).ack[0].ece);   // still echoing
  EXPECT_TRUE(r.on_segment(3 * mss, mss, false, false, 0).ack[0].ece);
  EXPECT_FALSE(r.on_segment(4 * mss, mss, false, true, 0).ack[0].ece);   // CWR ends it
  EXPECT_TRUE(r.on_segment(5 * mss, mss, true, true, 0).ack[0].ece);     // CWR and CE: echo again
}

TEST(TcpReceiver, DctcpEceMatchesTheCeOfEverySegmentAcked) {
  const tcp_config c = base(tcp_cc::dctcp);
  rng g(5);
  const uint64_t n = 20000;
  tcp_receiver r(c, n * mss);
  std::vector<bool> ce(n);
  uint64_t acked = 0, acks = 0, changes = 0;
  auto check = [&](const tcp_ack& a) {
    ASSERT_GT(a.ack, acked);
    for (uint64_t s = acked / mss; s < a.ack / mss; ++s) ASSERT_EQ(ce[s], a.ece) << s;
    acked = a.ack;
    ++acks;
  };
  uint64_t now = 0;
  for (uint64_t s = 0; s < n; ++s) {
    ce[s] = g.below(4) == 0;
    if (s && ce[s] != ce[s - 1]) ++changes;
    now += 1000;
    const tcp_rx_result x = r.on_segment(s * mss, mss, ce[s], false, now);
    for (unsigned i = 0; i < x.acks; ++i) check(x.ack[i]);
    if (g.below(50) == 0) {   // now and then the delayed-ACK timer runs out
      tcp_ack a;
      if (r.on_timer(r.delack_deadline(), a)) check(a);
    }
  }
  EXPECT_EQ(acked, n * mss);
  // Delayed ACKs: about one per two segments, plus one more per CE change at most.
  EXPECT_LE(acks, n / 2 + changes + n / 50 + 1);
  EXPECT_GE(acks, n / 2);
  (void)ms;
}

}  // namespace
