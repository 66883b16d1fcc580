// DETER's recorder stamping with the hosts' clocks (deter.clock = "clock_layer"): a host whose
// clock runs 700 ns ahead records every sending time 700 ns late and one 300 ns behind 300 ns
// early, so the replay's traces carry exactly those errors; control: with true time (no host
// clock) the traces give the true times. A clock that steps back, or reads below its epoch,
// holds at its last reading (a monotonic counter from 0).
#include <gtest/gtest.h>

#include <vector>

#include "nic/deter_recorder.h"
#include "protocol/packet.h"

namespace netasic {
namespace {

constexpr uint64_t th = 5'000'000, gap = 1'000'000;   // ps: the sampler's th; one frame a us

packet frame(unsigned src, unsigned dst, uint16_t id) {
  packet p;
  p.kind = pkt_kind::data;
  p.ip.src = host_ip(src);
  p.ip.dst = host_ip(dst);
  p.ip.identification = id;
  p.udp.src_port = uint16_t(1000 + src);
  p.udp.dst_port = 4791;
  p.payload_bytes = 1000;
  return p;
}

// Host 0 and host 1 each send 50 frames to host 2 at a constant rate (the sampler rebuilds a
// constant rate exactly) from true time 10 us.
std::vector<packet_trace> record(deter_recorder& r) {
  for (uint16_t i = 0; i < 50; ++i)
    for (unsigned h = 0; h < 2; ++h) r.uplink(h).on_frame(frame(h, 2, i), 10'000'000 + i * gap);
  return r.finish({}).traces({0, 0, 0});
}

TEST(DeterRecorder, HostClocksCarryTheirOffsetsIntoTheReplay) {
  const int64_t ahead[2] = {700'000, -300'000};
  deter_recorder clocked(3, th), exact(3, th);
  clocked.host_clock = [&](unsigned h, uint64_t t) { return int64_t(t) + ahead[h]; };
  const auto with = record(clocked), without = record(exact);
  for (unsigned h = 0; h < 2; ++h) {
    ASSERT_EQ(with[h].size(), 50u);
    ASSERT_EQ(without[h].size(), 50u);
    for (uint64_t i = 0; i < 50; ++i) {
      const uint64_t truth = 10'000'000 + i * gap;
      EXPECT_EQ(without[h][i].time_ps, truth) << "control, host " << h << " frame " << i;
      EXPECT_EQ(int64_t(with[h][i].time_ps), int64_t(truth) + ahead[h]) << "host " << h << " frame " << i;
    }
  }
  EXPECT_EQ(clocked.clock_error_max_ps(), 700'000u);
  EXPECT_EQ(exact.clock_error_max_ps(), 0u);
}

TEST(DeterRecorder, AClockSteppedBackHoldsItsLastReading) {
  deter_recorder r(3, 0);   // th = 0: every sending time kept exactly
  // Reads 2 us behind true time until 5 us, then a correction steps it 3 us back at once.
  r.host_clock = [](unsigned, uint64_t t) { return int64_t(t) - 2'000'000 - (t >= 5'000'000 ? 3'000'000 : 0); };
  const uint64_t sent[] = {1'000'000, 4'000'000, 6'000'000, 8'000'000, 12'000'000};
  uint16_t id = 0;
  for (uint64_t t : sent) r.uplink(0).on_frame(frame(0, 2, id++), t);
  const auto traces = r.finish({}).traces({0, 0, 0});
  std::vector<uint64_t> got;
  for (const auto& p : traces[0]) got.push_back(p.time_ps);
  // Below the epoch -> 0; 2 us; held at 2 us twice (1 us and 3 us read); then 7 us.
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[0], 0u);
  EXPECT_EQ(got[1], 2'000'000u);
  EXPECT_EQ(got[2], 2'000'000u);
  EXPECT_EQ(got[3], 3'000'000u);
  EXPECT_EQ(got[4], 7'000'000u);
}

}  // namespace
}  // namespace netasic
