// The arithmetic output queue and shared buffer against a brute-force reference that keeps
// every frame's [ready, end) interval and sums the ones covering a time.
#include <gtest/gtest.h>

#include <vector>

#include "common/rng.h"
#include "switch/egress_queue.h"

using namespace netasic;

TEST(EgressQueue, DepthMatchesIntervalReference) {
  // Used as the switch uses it: a frame arrives at `now`, the queue is drained to `now`, and the
  // frame joins the queue a pipeline latency later, at `ready`. Probes are taken at the current
  // time, which may be earlier than the `ready` of frames already admitted. (Draining to `ready`
  // instead would lose frames a probe at `now` must still see; this test catches that.)
  rng r(3);
  for (int trial = 0; trial < 50; ++trial) {
    egress_queue q;
    struct frame { uint64_t ready, end; uint32_t bytes; };
    std::vector<frame> ref;
    auto depth = [&](uint64_t t) {
      uint64_t d = 0;
      for (const frame& f : ref) if (f.ready <= t && t < f.end) d += f.bytes;
      return d;
    };
    const uint64_t latency = r.below(5000);
    uint64_t now = 0, wire_free = 0, last_drain = 0, peak = 0;
    for (int i = 0; i < 2000; ++i) {
      now += r.below(3000);                     // next frame arrives
      const uint64_t ready = now + latency;
      const uint32_t bytes = 64 + uint32_t(r.below(1500));
      const uint64_t occupancy = bytes * 80ull;   // 100 Gb/s
      uint64_t left = 0;
      for (const frame& f : ref) if (f.end <= now && f.end > last_drain) left += f.bytes;
      ASSERT_EQ(q.drain(now), left);   // exactly the frames that finished since the last drain
      last_drain = now;
      ASSERT_EQ(q.depth_at(ready), depth(ready));   // what admission sees
      const uint64_t start = std::max(ready, wire_free);   // FIFO: after the previous frame
      ASSERT_EQ(q.start_time(ready), start);
      q.push(ready, start + occupancy, bytes);
      ref.push_back({ready, start + occupancy, bytes});
      wire_free = start + occupancy;
      peak = std::max(peak, depth(ready));
      ASSERT_EQ(q.peak_bytes(), peak);
      // Probe at a random time before the next arrival, as the sampler does: drain, then read.
      now += r.below(1000);
      if (r.below(2)) {
        q.drain(now);
        last_drain = now;
      }
      ASSERT_EQ(q.depth_at(now), depth(now)) << "trial " << trial << " frame " << i;
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
  EXPECT_TRUE(b.fits(2000, 500));   // 500 of the counted bytes leave before admission
}
