// TCP sender core against the RFCs' rules on scripted loss and ECN patterns: slow start doubling
// per RTT under delayed ACKs (RFC 5681 + RFC 3465), +1 SMSS per RTT in congestion avoidance,
// fast retransmit and NewReno recovery (RFC 6582: ssthresh = FlightSize/2, +3 SMSS, inflation,
// partial ACK -> next hole, full ACK deflation), the RFC 6298 estimator against its formulas over
// random RTTs, RTO backoff doubling to the cap with cwnd = 1 SMSS, ECE once per window with CWR,
// and DCTCP's alpha against exact rational arithmetic.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "common/rng.h"
#include "nic/tcp/tcp_sender.h"

using namespace netasic;

namespace {

constexpr uint64_t ms = 1'000'000'000;   // ps
constexpr uint64_t mss = 1000;

tcp_config base() {
  tcp_config c;
  c.mss_bytes = mss;
  c.rwnd_bytes = uint64_t(1) << 40;   // never the limit here
  return c;
}

std::vector<tcp_segment> send_all(tcp_sender& s, uint64_t now) {
  std::vector<tcp_segment> out;
  while (s.can_send()) out.push_back(s.next_segment(now));
  return out;
}

TEST(TcpSender, SlowStartDoublesPerRttWithDelayedAcks) {
  tcp_sender s(base(), 1'000'000'000);
  uint64_t now = 0, expect = 10 * mss;   // RFC 6928 IW10
  for (int round = 0; round < 8; ++round) {
    ASSERT_EQ(s.cwnd(), expect);
    const auto segs = send_all(s, now);
    ASSERT_EQ(segs.size() * mss, expect);   // exactly one window leaves
    now += ms;
    for (size_t i = 1; i < segs.size(); i += 2) s.on_ack(segs[i].seq + segs[i].len, false, uint64_t(1) << 40, now);   // every 2nd
    expect *= 2;
  }
  EXPECT_EQ(s.cwnd(), expect);
}

// Ten segments, segment 0 lost: nine duplicate ACKs. Returns the sender after the nine dupacks.
struct loss_run {
  tcp_sender s{base(), 100 * mss};
  std::vector<tcp_segment> first;
};

TEST(TcpSender, FastRetransmitHalvesFlightAndInflates) {
  loss_run r;
  r.first = send_all(r.s, 0);
  ASSERT_EQ(r.first.size(), 10u);
  const uint64_t flight = 10 * mss;
  for (int d = 1; d <= 9; ++d) {
    r.s.on_ack(0, false, 1 << 30, 1);
    if (d < 3) {
      EXPECT_FALSE(r.s.in_recovery());
      EXPECT_FALSE(r.s.can_send());   // no limited transmit
    }
    if (d == 3) {
      EXPECT_TRUE(r.s.in_recovery());
      EXPECT_EQ(r.s.ssthresh(), flight / 2);
      EXPECT_EQ(r.s.cwnd(), flight / 2 + 3 * mss);
      ASSERT_TRUE(r.s.can_send());
      const tcp_segment rtx = r.s.next_segment(1);
      EXPECT_EQ(rtx.seq, 0u);
      EXPECT_TRUE(rtx.retransmission);
      EXPECT_FALSE(rtx.ect);
    }
  }
  EXPECT_EQ(r.s.cwnd(), flight / 2 + 9 * mss);   // +1 SMSS for each of dupacks 4..9
  // Inflated window: SND.UNA + cwnd allows segments 10..13.
  const auto more = send_all(r.s, 2);
  ASSERT_EQ(more.size(), 4u);
  EXPECT_EQ(more.front().seq, 10 * mss);
  // Full ACK (covers recover = 10 segments): cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS).
  r.s.on_ack(10 * mss, false, 1 << 30, 3);
  EXPECT_FALSE(r.s.in_recovery());
  EXPECT_EQ(r.s.cwnd(), std::min<uint64_t>(flight / 2, 4 * mss + mss));
  EXPECT_EQ(r.s.retransmissions(), 1u);
  EXPECT_EQ(r.s.fast_retransmits(), 1u);
}

TEST(TcpSender, PartialAckRetransmitsNextHoleAndDeflates) {
  tcp_sender s(base(), 100 * mss);
  send_all(s, 0);   // 0..9; 0 and 5 lost: eight duplicate ACKs
  for (int d = 0; d < 8; ++d) s.on_ack(0, false, 1 << 30, 1);
  ASSERT_TRUE(s.in_recovery());
  EXPECT_EQ(s.next_segment(1).seq, 0u);
  const uint64_t inflated = s.cwnd();
  EXPECT_EQ(inflated, 5 * mss + 3 * mss + 5 * mss);
  s.on_ack(5 * mss, false, 1 << 30, 2);   // partial: below recover = 10 segments
  EXPECT_TRUE(s.in_recovery());
  EXPECT_EQ(s.cwnd(), inflated - 5 * mss + mss);   // deflate by the bytes acked, add one SMSS back
  ASSERT_TRUE(s.can_send());
  const tcp_segment hole = s.next_segment(2);
  EXPECT_EQ(hole.seq, 5 * mss);
  EXPECT_TRUE(hole.retransmission);
  s.on_ack(10 * mss, false, 1 << 30, 3);
  EXPECT_FALSE(s.in_recovery());
}

TEST(TcpSender, DupAcksBelowRecoverAfterTimeoutDoNotFastRetransmit) {
  tcp_sender s(base(), 100 * mss);
  send_all(s, 0);
  ASSERT_TRUE(s.on_timer(s.rto_deadline()));
  EXPECT_EQ(s.recover(), 10 * mss);
  for (int d = 0; d < 5; ++d) s.on_ack(0, false, 1 << 30, s.rto_deadline() - 1);
  EXPECT_FALSE(s.in_recovery());
  EXPECT_EQ(s.fast_retransmits(), 0u);
}

TEST(TcpSender, RtoBacksOffDoublingToTheCapWithOneSegmentWindow) {
  tcp_config c = base();
  tcp_sender s(c, 100 * mss);
  send_all(s, 0);
  EXPECT_EQ(s.rto_deadline(), c.rto_initial_ps);   // RFC 6298 (2.1), timer started by the first send
  EXPECT_FALSE(s.on_timer(c.rto_initial_ps - 1));
  uint64_t now = c.rto_initial_ps, expect = c.rto_initial_ps;
  for (int k = 1; k <= 8; ++k) {
    ASSERT_TRUE(s.on_timer(now));
    expect = std::min(2 * expect, c.rto_max_ps);
    EXPECT_EQ(s.rto(), expect);
    EXPECT_EQ(s.cwnd(), mss);
    EXPECT_EQ(s.ssthresh(), 5 * mss);   // set at the first timeout, held after
    const auto segs = send_all(s, now);
    ASSERT_EQ(segs.size(), 1u);          // one segment: SND.UNA again
    EXPECT_EQ(segs[0].seq, 0u);
    EXPECT_TRUE(segs[0].retransmission);
    EXPECT_EQ(s.rto_deadline(), now + expect);
    now += expect;
  }
  EXPECT_EQ(s.rto(), c.rto_max_ps);
  EXPECT_EQ(s.timeouts(), 8u);
}

TEST(TcpSender, RttEstimatorFollowsRfc6298OverRandomSamples) {
  tcp_config c = base();
  c.rto_min_ps = 1'000'000;   // 1 us: the formula shows, not the floor
  rng r(7);
  tcp_sender s(c, uint64_t(1) << 40);
  uint64_t now = 0, srtt = 0, rttvar = 0;
  for (int i = 0; i < 5000; ++i) {
    const tcp_segment seg = s.next_segment(now);   // one at a time: each is timed
    const uint64_t rtt = 1'000'000 + r.below(500'000'000);
    now += rtt;
    s.on_ack(seg.seq + seg.len, false, c.rwnd_bytes, now);
    if (i == 0) {
      srtt = rtt;
      rttvar = rtt / 2;
    } else {
      const uint64_t diff = srtt > rtt ? srtt - rtt : rtt - srtt;
      rttvar = (3 * rttvar + diff) / 4;
      srtt = (7 * srtt + rtt) / 8;
    }
    ASSERT_EQ(s.srtt(), srtt) << i;
    ASSERT_EQ(s.rttvar(), rttvar) << i;
    ASSERT_EQ(s.rto(), std::clamp(srtt + std::max<uint64_t>(1, 4 * rttvar), c.rto_min_ps, c.rto_max_ps)) << i;
  }
}

TEST(TcpSender, CongestionAvoidanceAddsOneSegmentPerWindow) {
  tcp_sender s(base(), uint64_t(1) << 40);
  send_all(s, 0);
  for (int d = 0; d < 3; ++d) s.on_ack(0, false, 1 << 30, 1);
  s.next_segment(1);
  s.on_ack(10 * mss, false, 1 << 30, 2);   // full ACK, nothing in flight: cwnd 2 SMSS, ssthresh 5
  ASSERT_EQ(s.cwnd(), 2 * mss);
  ASSERT_EQ(s.ssthresh(), 5 * mss);
  uint64_t now = 3;
  while (s.cwnd() < s.ssthresh()) {   // slow start back up
    const auto segs = send_all(s, now);
    for (const tcp_segment& g : segs) s.on_ack(g.seq + g.len, false, 1 << 30, now + 1);
    now += 2;
  }
  for (int round = 0; round < 20; ++round) {
    const uint64_t before = s.cwnd();
    const auto segs = send_all(s, now);
    ASSERT_EQ(segs.size() * mss, before);
    for (const tcp_segment& g : segs) s.on_ack(g.seq + g.len, false, 1 << 30, now + 1);   // an ACK per segment
    ASSERT_EQ(s.cwnd(), before + mss) << round;
    now += 2;
  }
}

TEST(TcpSender, EceReducesOncePerWindowAndSetsCwr) {
  tcp_config c = base();
  c.ecn = true;
  tcp_sender s(c, uint64_t(1) << 40);
  auto segs = send_all(s, 0);
  EXPECT_TRUE(segs[0].ect);
  s.on_ack(2 * mss, true, 1 << 30, 1);   // FlightSize 8 SMSS after it
  EXPECT_EQ(s.cwnd(), 4 * mss);
  EXPECT_EQ(s.ssthresh(), 4 * mss);
  EXPECT_EQ(s.ecn_reductions(), 1u);
  s.on_ack(4 * mss, true, 1 << 30, 1);   // same window (SND.UNA < 10 SMSS): no second cut, no growth
  EXPECT_EQ(s.cwnd(), 4 * mss);
  EXPECT_EQ(s.ecn_reductions(), 1u);
  segs = send_all(s, 2);   // SND.UNA + cwnd = 8 SMSS: nothing new yet
  EXPECT_TRUE(segs.empty());
  s.on_ack(10 * mss, false, 1 << 30, 3);
  segs = send_all(s, 3);
  ASSERT_FALSE(segs.empty());
  EXPECT_TRUE(segs[0].cwr);   // the first new segment after the cut
  for (size_t i = 1; i < segs.size(); ++i) EXPECT_FALSE(segs[i].cwr);
  s.on_ack(segs[0].seq + mss, true, 1 << 30, 4);   // a new window: a second cut
  EXPECT_EQ(s.ecn_reductions(), 2u);
}

TEST(TcpSender, IpIdCountsEverySegmentIncludingRetransmissions) {
  tcp_sender s(base(), 100 * mss);
  uint16_t expect = 0;
  for (const tcp_segment& g : send_all(s, 0)) EXPECT_EQ(g.ip_id, expect++);
  ASSERT_TRUE(s.on_timer(s.rto_deadline()));
  for (const tcp_segment& g : send_all(s, 1)) EXPECT_EQ(g.ip_id, expect++);
}

// DCTCP: alpha against a long-double golden model of RFC 8257 section 3.3 over random ACK
// streams, a hand-worked pair of windows, and the cut cwnd (1 - alpha/2).
TEST(TcpSender, DctcpAlphaMatchesGoldenEwma) {
  rng r(11);
  dctcp_alpha a(1.0 / 16);
  long double alpha = 1.0L;
  uint64_t acked = 0, marked = 0, window_end = 0, una = 0, nxt = 0;
  for (int i = 0; i < 20000; ++i) {
    nxt += r.below(3) * mss;
    const uint64_t step = std::min<uint64_t>(r.below(3) * mss, nxt - una);
    una += step;
    const bool ece = r.below(3) == 0;
    acked += step;
    if (ece) marked += step;
    bool updated = false;
    if (una > window_end) {
      alpha = alpha * 15 / 16 + (acked ? (long double)marked / (long double)acked : 0.0L) / 16;
      window_end = nxt;
      acked = marked = 0;
      updated = true;
    }
    ASSERT_EQ(a.on_ack(step, ece, una, nxt), updated) << i;
    ASSERT_NEAR(a.alpha(), double(alpha), 1e-12) << i;
  }
}

TEST(TcpSender, DctcpAlphaByHandAndCut) {
  dctcp_alpha a(1.0 / 16);
  EXPECT_TRUE(a.on_ack(mss, true, mss, 4 * mss));   // passes WindowEnd 0: F = 1, alpha stays 1
  EXPECT_DOUBLE_EQ(a.alpha(), 1.0);
  EXPECT_FALSE(a.on_ack(mss, false, 2 * mss, 4 * mss));
  EXPECT_FALSE(a.on_ack(mss, false, 3 * mss, 4 * mss));
  EXPECT_FALSE(a.on_ack(mss, true, 4 * mss, 6 * mss));   // SND.UNA = WindowEnd: not past it yet
  EXPECT_TRUE(a.on_ack(mss, false, 5 * mss, 6 * mss));   // F = 1/4
  EXPECT_DOUBLE_EQ(a.alpha(), 15.0 / 16 + 0.25 / 16);
  tcp_config c = base();
  c.cc = tcp_cc::dctcp;
  tcp_sender s(c, uint64_t(1) << 40);
  send_all(s, 0);
  s.on_ack(mss, true, 1 << 30, 1);   // alpha 1: cwnd 10 SMSS -> 5 SMSS
  EXPECT_DOUBLE_EQ(s.alpha(), 1.0);
  EXPECT_EQ(s.cwnd(), 5 * mss);
  EXPECT_EQ(s.ecn_reductions(), 1u);
}

// Thousands of random operations over a lossy, reordering channel with an ideal receiver:
// the invariants of the sequence space hold, and every flow finishes.
TEST(TcpSender, RandomLossAndReorderKeepInvariantsAndFinish) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    rng r(seed);
    tcp_config c = base();
    c.rto_min_ps = 10;
    c.rto_initial_ps = 50;
    const uint64_t total = (50 + r.below(400)) * mss + r.below(mss);
    tcp_sender s(c, total);
    std::vector<std::pair<uint64_t, uint64_t>> flight;   // (arrival, segment end) in the channel
    std::vector<bool> have((total + mss - 1) / mss, false);
    uint64_t rcv = 0, now = 0;
    uint16_t id = 0;
    for (; !s.done() && now < 10'000'000; ++now) {
      if (s.can_send()) {
        const tcp_segment g = s.next_segment(now);
        ASSERT_EQ(g.ip_id, id++);
        ASSERT_LE(g.seq + g.len, total);
        if (r.below(100) >= 5) flight.push_back({now + 5 + r.below(5), g.seq});
      }
      for (size_t i = 0; i < flight.size();) {
        if (flight[i].first != now) { ++i; continue; }
        have[flight[i].second / mss] = true;
        while (rcv < total && have[rcv / mss]) rcv = std::min(total, rcv + mss);
        if (r.below(100) >= 5) s.on_ack(rcv, false, c.rwnd_bytes, now);
        flight.erase(flight.begin() + long(i));
      }
      s.on_timer(now);
      ASSERT_LE(s.snd_una(), s.snd_nxt());
      ASSERT_LE(s.snd_nxt(), s.snd_max());
      ASSERT_LE(s.snd_max(), total);
      ASSERT_GE(s.cwnd(), mss);
    }
    EXPECT_TRUE(s.done()) << seed;
    EXPECT_GT(s.retransmissions(), 0u) << seed;
  }
}

}  // namespace
