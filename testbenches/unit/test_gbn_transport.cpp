// Go-back-N sender and receiver cores over a lossy, delaying channel model: every flow
// completes, the receiver sees each sequence number in order exactly once, and without loss
// nothing is retransmitted.
#include <gtest/gtest.h>

#include <deque>

#include "common/rng.h"
#include "nic/gbn_transport.h"

using namespace netasic;

namespace {
struct result { uint32_t delivered_in_order = 0; uint64_t sends = 0; uint64_t steps = 0; };

// One packet slot per step; forward and reverse channels delay by `delay` steps and drop with
// probability `loss`. The sender times out after `rto` steps without progress.
result simulate(uint32_t total, uint32_t window, double loss, uint64_t delay, uint64_t rto, uint64_t seed) {
  rng r(seed);
  gbn_sender s;
  gbn_receiver rcv;
  s.total = total;
  struct msg { uint64_t at; uint32_t seq; bool nak; };
  std::deque<msg> fwd, rev;
  result out;
  for (uint64_t now = 0; !s.done(); ++now) {
    if (++out.steps > 10'000'000) break;
    if (s.can_send(window)) {
      if (r.uniform() >= loss) fwd.push_back({now + delay, s.nxt, false});
      s.sent_one();
      ++out.sends;
    }
    while (!fwd.empty() && fwd.front().at <= now) {
      const uint32_t seq = fwd.front().seq;
      fwd.pop_front();
      const uint32_t before = rcv.expected;
      const auto reply = rcv.on_data(seq);
      if (rcv.expected != before) {
        EXPECT_EQ(seq, out.delivered_in_order);   // in order, exactly once
        ++out.delivered_in_order;
      }
      if (reply != gbn_receiver::reply::none && r.uniform() >= loss)
        rev.push_back({now + delay, rcv.expected, reply == gbn_receiver::reply::nak});
    }
    while (!rev.empty() && rev.front().at <= now) {
      const msg m = rev.front();
      rev.pop_front();
      if (m.nak) s.on_nak(m.seq, now);
      else s.on_ack(m.seq, now);
    }
    s.check_timeout(now, rto);
  }
  return out;
}
}  // namespace

TEST(GoBackN, LosslessSendsEachPacketOnce) {
  const result r = simulate(5000, 32, 0.0, 10, 1000, 1);
  EXPECT_EQ(r.delivered_in_order, 5000u);
  EXPECT_EQ(r.sends, 5000u);
}

TEST(GoBackN, EveryFlowCompletesUnderLoss) {
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const double loss = 0.001 * double(seed % 50);
    const result r = simulate(300 + uint32_t(seed * 7 % 500), 1 + uint32_t(seed % 64), loss, 1 + seed % 20, 200, seed);
    ASSERT_EQ(r.delivered_in_order, 300 + uint32_t(seed * 7 % 500)) << "seed " << seed;
    if (loss > 0.01) {
      EXPECT_GT(r.sends, uint64_t(r.delivered_in_order)) << "loss must cost retransmissions";
    }
  }
}

TEST(GoBackN, NakRewindsToTheGap) {
  gbn_sender s;
  s.total = 10;
  for (int i = 0; i < 6; ++i) s.sent_one();
  s.on_nak(2, 0);   // receiver has 0 and 1, expects 2
  EXPECT_EQ(s.una, 2u);
  EXPECT_EQ(s.nxt, 2u);
  EXPECT_TRUE(s.is_retransmission());
  gbn_receiver r;
  EXPECT_EQ(r.on_data(0), gbn_receiver::reply::ack);
  EXPECT_EQ(r.on_data(2), gbn_receiver::reply::nak);
  EXPECT_EQ(r.on_data(3), gbn_receiver::reply::none);   // one NAK per gap
  EXPECT_EQ(r.on_data(1), gbn_receiver::reply::ack);
  EXPECT_EQ(r.expected, 2u);
}
