// The flow scheduler's pacing credit (nic/qp_pacer.h): a rate update between two frames of one
// QP applies to the next frame at once. Expected start times are exact arithmetic written out:
// a frame occupies (frame + 8 preamble + 12 IFG) bytes x 8 / rate, rounded up to 1 ps.
#include <gtest/gtest.h>

#include "nic/qp_pacer.h"

using namespace netasic;

TEST(QpPacer, GapIsTheFrameTimeAtTheRate) {
  // 1000-byte frame: 1020 bytes on the wire = 8160 bits.
  EXPECT_EQ(qp_pacer::gap_ps(1000, 100'000'000'000), 81'600u);      // 8160 bits / 100 Gbps
  EXPECT_EQ(qp_pacer::gap_ps(1000, 25'000'000'000), 326'400u);      // 8160 bits / 25 Gbps
  EXPECT_EQ(qp_pacer::gap_ps(1000, 7'000'000'000), 1'165'715u);     // 1'165'714.28... rounded up
}

TEST(QpPacer, RateCutBetweenTwoFramesDelaysTheNextToTheNewRate) {
  qp_pacer p;
  p.sent(1'000'000, 1000, 100'000'000'000);   // frame 1 starts at 1 us at 100 Gbps
  EXPECT_EQ(p.next_ps(), 1'081'600u);
  p.retime(25'000'000'000);                    // an ACK cuts the rate to 25 Gbps before frame 2
  EXPECT_EQ(p.next_ps(), 1'000'000u + 326'400u);   // frame 2: one 25G frame time after frame 1
  EXPECT_EQ(p.rate_bps(), 25'000'000'000u);
  p.retime(25'000'000'000);                    // the same rate again moves nothing
  EXPECT_EQ(p.next_ps(), 1'326'400u);
}

TEST(QpPacer, RateRiseBetweenTwoFramesBringsTheNextForward) {
  qp_pacer p;
  p.sent(2'000'000, 1000, 7'000'000'000);      // a slow QP: the next frame 1.166 us later
  EXPECT_EQ(p.next_ps(), 3'165'715u);
  p.retime(100'000'000'000);                   // a rise: the next frame may go at 2 us + 81.6 ns
  EXPECT_EQ(p.next_ps(), 2'081'600u);
}

TEST(QpPacer, HoldAddsToTheRetimedStart) {
  // The scheduler holds a window-blocked QP until the CC module's new window is out; a later
  // rate change shifts that start by the difference of the two frame times, as ns-3 does.
  qp_pacer p;
  p.sent(0, 1000, 100'000'000'000);
  p.hold_until(500'000);
  EXPECT_EQ(p.next_ps(), 500'000u);
  p.retime(50'000'000'000);                    // 163'200 - 81'600 later
  EXPECT_EQ(p.next_ps(), 581'600u);
}

TEST(QpPacer, NothingSentNothingToRetime) {
  qp_pacer p;
  p.retime(1'000'000'000);
  EXPECT_EQ(p.next_ps(), 0u);   // the first frame goes as soon as the QP is scheduled
}
