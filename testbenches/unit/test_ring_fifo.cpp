// The ring FIFO against std::deque over random pushes, pops and filters (it stands in for deques
// in links, switch pipes and NICs), and lazy_rng against rng: the same draws.
#include <gtest/gtest.h>

#include <deque>

#include "common/ring_fifo.h"
#include "common/rng.h"

using netasic::ring_fifo;

TEST(RingFifo, AllocatesNothingUntilItsFirstPush) {
  ring_fifo<int> q;
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.capacity(), 0u);
  q.push_back(1);
  EXPECT_EQ(q.capacity(), 8u);
  EXPECT_EQ(q.front(), 1);
}

TEST(RingFifo, MatchesADequeOnRandomWorkloads) {
  netasic::rng r(7);
  ring_fifo<int> q;
  std::deque<int> ref;
  int next = 0;
  for (int step = 0; step < 200000; ++step) {
    const uint64_t op = r.below(100);
    if (op < 55) {
      q.push_back(next);
      ref.push_back(next++);
    } else if (op < 99) {
      if (ref.empty()) continue;
      ASSERT_EQ(q.front(), ref.front());
      q.pop_front();
      ref.pop_front();
    } else {   // drop the odd entries, in order, as a link that fails drops frames on the wire
      q.keep_if([](int v) { return v % 2 == 0; });
      std::deque<int> kept;
      for (int v : ref)
        if (v % 2 == 0) kept.push_back(v);
      ref.swap(kept);
    }
    ASSERT_EQ(q.size(), ref.size());
    for (size_t i = 0; i < ref.size(); i += 7) ASSERT_EQ(q[i], ref[i]);
  }
}

TEST(LazyRng, DrawsWhatRngDrawsWithTheSameSeed) {
  netasic::rng eager(42);
  netasic::lazy_rng lazy(42);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(lazy.below(16384), eager.below(16384));
    ASSERT_EQ(lazy.uniform(), eager.uniform());
  }
}
