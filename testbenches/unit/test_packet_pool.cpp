// The packet pool (protocol/packet.h): packets come back value-initialised, and the run's end
// gives the blocks back without losing the count of packets still in flight.
#include <gtest/gtest.h>

#include <vector>

#include "protocol/packet.h"

using namespace netasic;

TEST(PacketPool, AReusedPacketComesBackClean) {
  packet_pool pool;
  packet* p = pool.alloc();
  p->seq = 7;
  p->path_sw[3] = 9;
  pool.release(p);
  packet* q = pool.alloc();
  EXPECT_EQ(q, p);   // the free list is last in, first out
  EXPECT_EQ(q->seq, 0u);
  EXPECT_EQ(q->path_sw[3], 0u);
  EXPECT_EQ(pool.live(), 1u);
}

TEST(PacketPool, FreeBlocksKeepsTheLiveCountAndReturnsTheMemory) {
  packet_pool pool;
  std::vector<packet*> held;
  const int n = int(packet_pool::block) + 1;   // two blocks
  for (int i = 0; i < n; ++i) held.push_back(pool.alloc());
  pool.release(held.back());
  EXPECT_EQ(pool.live(), uint64_t(n - 1));
  EXPECT_EQ(pool.capacity_bytes(), 2 * packet_pool::block * sizeof(packet));
  pool.free_blocks();
  EXPECT_EQ(pool.live(), uint64_t(n - 1));
  EXPECT_EQ(pool.capacity_bytes(), 0u);
}
