// The arithmetic output queue and shared buffer against a brute-force reference that keeps
// every frame's [ready, end) interval and sums the ones covering a time.
#include <gtest/gtest.h>

#include <vector>

#include "common/rng.h"
#include "switch/egress_queue.h"

using namespace netasic;

TEST(EgressQueue, DepthMatchesIntervalReference) {
  rng r(3);
  for (int trial = 0; trial < 50; ++trial) {
    egress_queue q;
    struct frame { uint64_t ready, end; uint32_t bytes; };
    std::vector<frame> ref;
    uint64_t t = 0, wire_free = 0, last_drain = 0;
    for (int i = 0; i < 2000; ++i) {
      t += r.below(3000);                       // next frame reaches the queue
      const uint32_t bytes = 64 + uint32_t(r.below(1500));
      const uint64_t occupancy = bytes * 80ull;   // 100 Gb/s
      // Reference: FIFO start is max(ready, previous end).
      const uint64_t start = std::max(t, wire_free);
      ASSERT_EQ(q.start_time(t), start);
      uint64_t admitted = 0, left = 0;
      for (const frame& f : ref) {
        if (f.ready <= t && t < f.end) admitted += f.bytes;
        if (f.end <= t && f.end > last_drain) left += f.bytes;
      }
      ASSERT_EQ(q.drain(t), left);   // exactly the frames that finished since the last drain
      last_drain = t;
      ASSERT_EQ(q.held_bytes(), admitted);
      q.push(t, start + occupancy, bytes);
      ref.push_back({t, start + occupancy, bytes});
      wire_free = start + occupancy;
      // Probe at a random time between now and the next arrival, excluding not-yet-ready frames.
      const uint64_t probe = t + r.below(1000);
      uint64_t expect = 0;
      for (const frame& f : ref) if (f.ready <= probe && probe < f.end) expect += f.bytes;
      ASSERT_EQ(q.depth_at(probe), expect) << "trial " << trial << " frame " << i;
      if (r.below(2)) {   // sometimes drain at the probe time too, as the probe sampler does
        q.drain(probe);
        last_drain = probe;
        ASSERT_EQ(q.depth_at(probe), expect);
      }
      t = probe;
    }
  }
}

TEST(SharedBuffer, TailDropAtCapacity) {
  shared_buffer b(3000);
  EXPECT_TRUE(b.fits(3000));
  b.add(1500);
  b.add(1500);
  EXPECT_FALSE(b.fits(1));
  b.release(1500);
  EXPECT_TRUE(b.fits(1500));
  EXPECT_FALSE(b.fits(1501));
  EXPECT_EQ(b.used_bound(), 1500u);
}
