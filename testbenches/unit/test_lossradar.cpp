// LossRadar's digest against straightforward references: a cell array updated by the textbook
// rule (§5.3.1), and the multiset difference of what the two meters saw. Random streams with
// collisions and overloaded tables: a decode that completes lists exactly the lost packets, and
// one that does not never lists a wrong one. The size rule is checked against the IBF peeling
// threshold (k = 3 decodes below n/n_cell = 1/1.222 and fails above it, Eppstein et al.).
#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "blocks/lossradar.h"
#include "common/rng.h"

namespace netasic {
namespace {

lossradar_sig random_sig(rng& r, bool extended) {
  lossradar_sig s;
  s.a = r.next();
  s.b = r.next() & 0xFFFFFFFF00FFFFFFull;   // ports, protocol (8 bits) and IP_ID: 120 bits in all
  if (extended) s.ext = uint16_t(r.next());
  return s;
}

// The textbook IBF on a plain array: every insert XORs the signature into its k cells and adds
// one to their counts; the cells are the digest's own hash choices.
struct reference_ibf {
  std::vector<lossradar_sig> xr;
  std::vector<uint64_t> count;   // exact, unbounded
  explicit reference_ibf(size_t n) : xr(n), count(n) {}
  void insert(const lossradar_digest& d, const lossradar_sig& s, int sign) {
    for (unsigned i = 0; i < d.hashes(); ++i) {
      const unsigned c = d.index(s, i);
      xr[c].flip(s);
      count[c] += uint64_t(int64_t(sign));
    }
  }
};

TEST(LossRadar, CellsFollowTheTextbookUpdateOnRandomStreams) {
  rng r(11);
  for (unsigned trial = 0; trial < 40; ++trial) {
    const unsigned k = 1 + unsigned(r.below(5)), cells = k * (1 + unsigned(r.below(60)));
    lossradar_digest up(cells, k, r.next()), down = up;
    reference_ibf ref(cells);
    for (unsigned op = 0; op < 500; ++op) {
      const lossradar_sig s = random_sig(r, trial & 1);
      up.insert(s);
      ref.insert(up, s, +1);
      if (r.below(4)) {   // three in four arrive downstream
        down.insert(s);
        ref.insert(up, s, -1);
      }
    }
    lossradar_digest diff = up;
    diff.subtract(down);
    for (unsigned c = 0; c < cells; ++c) {
      EXPECT_EQ(diff.raw()[c].xor_sum, ref.xr[c]);
      EXPECT_EQ(diff.raw()[c].count, uint32_t(ref.count[c]));
    }
    // Adding the downstream digest back restores the upstream one (the blackbox sum, §5.4.2).
    diff.add(down);
    EXPECT_TRUE(diff == up);
  }
}

// The meter's digest on stateful ALUs reads out exactly the textbook IBF of what went in, over
// random streams, both signature kinds, clears between batches. Control: a meter with another
// seed (other hash functions) reads out differently.
TEST(LossRadar, MeterOnStatefulAlusReadsOutTheTextbookDigest) {
  rng r(23);
  for (unsigned trial = 0; trial < 30; ++trial) {
    const bool extended = trial & 1;
    const auto kind = extended ? lossradar_sig_kind::extended : lossradar_sig_kind::basic;
    const unsigned k = 1 + unsigned(r.below(4)), cells = k * (1 + unsigned(r.below(60)));
    const uint64_t seed = r.next();
    lossradar_meter_digest meter(cells, k, seed, kind), other(cells, k, seed + 1, kind);
    for (unsigned batch = 0; batch < 3; ++batch) {
      lossradar_digest golden(cells, k, seed);
      reference_ibf ref(cells);
      for (unsigned op = 0; op < 300; ++op) {
        const lossradar_sig s = random_sig(r, extended);
        meter.insert(s);
        other.insert(s);
        ref.insert(golden, s, +1);
      }
      const lossradar_digest d = meter.read();
      for (unsigned c = 0; c < cells; ++c) {
        ASSERT_EQ(d.raw()[c].xor_sum, ref.xr[c]) << "trial " << trial << " batch " << batch << " cell " << c;
        ASSERT_EQ(d.raw()[c].count, uint32_t(ref.count[c]));
      }
      if (cells > k) {
        EXPECT_FALSE(other.read() == d);
      }
      meter.clear();
      other.clear();
      EXPECT_TRUE(meter.read().empty());
    }
  }
}

TEST(LossRadar, AHashesCellsAreDistinctAndInTheirPart) {
  rng r(5);
  const lossradar_digest d(60, 4, 99);
  for (int i = 0; i < 2000; ++i) {
    const lossradar_sig s = random_sig(r, true);
    std::set<unsigned> seen;
    for (unsigned h = 0; h < 4; ++h) {
      const unsigned c = d.index(s, h);
      EXPECT_GE(c, h * 15);
      EXPECT_LT(c, (h + 1) * 15);
      seen.insert(c);
    }
    EXPECT_EQ(seen.size(), 4u);
  }
}

// Thousands of meter pairs: random traffic, a random subset lost, tables from roomy to
// overloaded, duplicate signatures (collisions of the key) included.
TEST(LossRadar, PeelListsExactlyTheLossesOrFailsWithoutAWrongOne) {
  rng r(2024);
  unsigned complete = 0, failed = 0;
  for (unsigned trial = 0; trial < 3000; ++trial) {
    const unsigned k = 2 + unsigned(r.below(3));
    const unsigned cells = k * (1 + unsigned(r.below(40)));
    lossradar_digest up(cells, k, r.next()), down = up;
    std::multiset<lossradar_sig> lost;
    const unsigned sent = unsigned(r.below(400));
    std::vector<lossradar_sig> pool;
    for (unsigned i = 0; i < sent; ++i) {
      const lossradar_sig s = !pool.empty() && r.below(20) == 0 ? pool[r.below(pool.size())] : random_sig(r, trial & 1);
      pool.push_back(s);
      up.insert(s);
      if (r.below(100) < 10) lost.insert(s);
      else down.insert(s);
    }
    lossradar_digest diff = up;
    diff.subtract(down);
    EXPECT_EQ(diff.packets(), lost.size());
    const lossradar_peel p = diff.peel();
    std::multiset<lossradar_sig> listed(p.losses.begin(), p.losses.end());
    if (p.complete) {
      ++complete;
      EXPECT_EQ(listed, lost) << "trial " << trial;
      EXPECT_EQ(p.undecoded, 0u);
    } else {
      ++failed;
      EXPECT_TRUE(std::includes(lost.begin(), lost.end(), listed.begin(), listed.end())) << "trial " << trial;
      EXPECT_EQ(p.losses.size() + p.undecoded, lost.size()) << "trial " << trial;
    }
  }
  EXPECT_GT(complete, 500u);   // both outcomes are exercised
  EXPECT_GT(failed, 500u);
}

// k = 3 peels with high probability below the threshold n_cell / n = 1.222 and almost never
// above it; at 1000 losses: c = 1.5 always, c = 1.0 (overloaded) almost never.
TEST(LossRadar, SizeRuleMatchesThePeelingThreshold) {
  rng r(77);
  auto success = [&](unsigned cells, unsigned losses, unsigned trials) {
    unsigned ok = 0;
    for (unsigned t = 0; t < trials; ++t) {
      lossradar_digest d(cells, 3, r.next());
      for (unsigned i = 0; i < losses; ++i) d.insert(random_sig(r, false));
      ok += d.peel().complete;
    }
    return ok;
  };
  EXPECT_EQ(success(1500, 1000, 20), 20u);
  EXPECT_LE(success(1002, 1000, 20), 1u);
}

TEST(LossRadar, AnEmptyDifferenceAndAnUnderflowDoNotDecodeToPackets) {
  rng r(3);
  lossradar_digest up(30, 3, 1), down = up;
  EXPECT_TRUE(up.peel().complete);
  EXPECT_TRUE(up.peel().losses.empty());
  // Downstream saw a packet upstream did not: the count wraps to 2^32 - 1, which is never pure.
  down.insert(random_sig(r, false));
  up.subtract(down);
  const lossradar_peel p = up.peel();
  EXPECT_FALSE(p.complete);
  EXPECT_TRUE(p.losses.empty());
}

TEST(LossRadar, SignatureCarriesTheFiveTupleAndIpIdAndTheExtendedBits) {
  packet p;
  p.ip.src = 0x0A000001;
  p.ip.dst = 0x0A000007;
  p.ip.protocol = ipv4_header::proto_tcp;
  p.tcp.src_port = 50000;
  p.tcp.dst_port = 80;
  p.tcp.flags = tcp_header::flag_syn;
  p.ip.identification = 0xBEEF;
  p.ip.ttl = 64;
  p.lr_stamp_us = 0x3ABC;
  const lossradar_sig b = lossradar_signature(p, lossradar_sig_kind::basic, 0);
  EXPECT_EQ(b.src(), 0x0A000001u);
  EXPECT_EQ(b.dst(), 0x0A000007u);
  EXPECT_EQ(b.sport(), 50000);
  EXPECT_EQ(b.dport(), 80);
  EXPECT_EQ(b.proto(), 6);
  EXPECT_EQ(b.ip_id(), 0xBEEF);
  EXPECT_EQ(b.ext, 0);
  // 120 bits: nothing above the 5-tuple and IP_ID is set.
  EXPECT_EQ(b.b >> 24 & 0xFF, 0u);
  const lossradar_sig e = lossradar_signature(p, lossradar_sig_kind::extended, 1);
  EXPECT_TRUE(e.syn());
  EXPECT_TRUE(e.ttl_nonzero());
  EXPECT_EQ(e.stamp_us(), 0x3ABC);
  // TTL 1 toward a switch: that switch drops it (TTL 0 after its decrement); toward a host not.
  p.ip.ttl = 1;
  p.tcp.flags = tcp_header::flag_ack;
  const lossradar_sig z = lossradar_signature(p, lossradar_sig_kind::extended, 1);
  EXPECT_FALSE(z.syn());
  EXPECT_FALSE(z.ttl_nonzero());
  EXPECT_TRUE(lossradar_signature(p, lossradar_sig_kind::extended, 0).ttl_nonzero());
}

TEST(LossRadar, CellsMustSplitIntoTheHashes) {
  EXPECT_THROW(lossradar_digest(10, 3, 0), std::invalid_argument);
  EXPECT_THROW(lossradar_digest(0, 3, 0), std::invalid_argument);
  EXPECT_THROW(lossradar_digest(9, 0, 0), std::invalid_argument);
}

}  // namespace
}  // namespace netasic
