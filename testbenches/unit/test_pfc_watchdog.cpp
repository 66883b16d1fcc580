// The PFC watchdog of one port: detection after the pause has held a waiting queue for the
// detection time, and the end of the storm after the restoration time without a pause. Directed
// cases with hand-computed picosecond times, then random pause timelines checked against the
// definition at every step.
#include <gtest/gtest.h>

#include <random>

#include "blocks/pfc_watchdog.h"

namespace netasic {
namespace {

constexpr uint64_t rate = 100'000'000'000;   // 100G: one quantum is 512 bits, 5 120 ps
constexpr uint8_t prio3 = 1u << 3;

pfc_frame pause3(uint16_t quanta) {
  pfc_frame f;
  f.class_enable = prio3;
  f.quanta[3] = quanta;
  return f;
}

TEST(PfcWatchdog, AStormBeginsAfterDetectionAndEndsAfterRestoration) {
  pfc_pause pause;
  pause.apply(pause3(10), 0, rate);   // paused over [0, 51 200) ps
  pfc_watchdog wd(10'000, 50'000);
  EXPECT_EQ(wd.next_detection(pause, prio3, 0), 10'000u);
  EXPECT_EQ(wd.storms(pause, prio3, 9'999), 0u);
  EXPECT_EQ(wd.storms(pause, prio3, 10'000), prio3);
  EXPECT_EQ(wd.storms_started, 1u);
  EXPECT_EQ(wd.next_detection(pause, prio3, 10'000), UINT64_MAX);   // in a storm: nothing more to detect
  EXPECT_TRUE(wd.in_storm(pause, 3, 51'199));    // still paused
  EXPECT_TRUE(wd.in_storm(pause, 3, 51'200));    // unpaused, restoring
  EXPECT_TRUE(wd.in_storm(pause, 3, 101'199));
  EXPECT_FALSE(wd.in_storm(pause, 3, 101'200));  // 51 200 + 50 000
  EXPECT_EQ(wd.storms_started, 1u);
}

TEST(PfcWatchdog, WithoutARestorationTimeTheStormEndsWithThePause) {
  pfc_pause pause;
  pause.apply(pause3(10), 0, rate);
  pfc_watchdog wd(10'000, 0);
  EXPECT_EQ(wd.storms(pause, prio3, 10'000), prio3);
  EXPECT_TRUE(wd.in_storm(pause, 3, 51'199));
  EXPECT_FALSE(wd.in_storm(pause, 3, 51'200));
}

TEST(PfcWatchdog, APauseWhileRestoringKeepsTheStormWithoutANewDetection) {
  pfc_pause pause;
  pause.apply(pause3(10), 0, rate);        // [0, 51 200)
  pfc_watchdog wd(10'000, 50'000);
  EXPECT_EQ(wd.storms(pause, prio3, 20'000), prio3);
  pause.apply(pause3(10), 80'000, rate);   // [80 000, 131 200): within the restoration time
  EXPECT_EQ(wd.storms(pause, prio3, 80'000), prio3);   // at once, not 10 000 ps later
  EXPECT_TRUE(wd.in_storm(pause, 3, 181'199));
  EXPECT_FALSE(wd.in_storm(pause, 3, 181'200));       // 131 200 + 50 000
  EXPECT_EQ(wd.storms_started, 1u);
  // Paused again after the storm ended: a new storm needs a new detection time.
  pause.apply(pause3(10), 200'000, rate);
  EXPECT_EQ(wd.storms(pause, prio3, 209'999), 0u);
  EXPECT_EQ(wd.storms(pause, prio3, 210'000), prio3);
  EXPECT_EQ(wd.storms_started, 2u);
}

TEST(PfcWatchdog, AnEmptyOrUnpausedQueueIsNotInAStorm) {
  pfc_pause pause;
  pause.apply(pause3(100), 0, rate);
  pfc_watchdog wd(10'000, 0);
  EXPECT_EQ(wd.storms(pause, 0, 20'000), 0u);           // nothing waiting
  EXPECT_EQ(wd.storms(pause, 1u << 2, 20'000), 0u);     // waiting on a priority not paused
  EXPECT_EQ(wd.next_detection(pause, 1u << 2, 20'000), UINT64_MAX);
  EXPECT_EQ(wd.storms_started, 0u);
}

// Random timelines on all 8 priorities: pauses of random length (some refreshing the one before,
// some resuming at once), checks at random times with random queues waiting. At every check the
// answer must follow from the definition, computed here from the pause's own intervals.
TEST(PfcWatchdog, RandomTimelinesFollowTheDefinition) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    const uint64_t detect = 1'000 + rng() % 100'000, restore = rng() % 3 ? rng() % 200'000 : 0;
    pfc_pause pause;
    pfc_watchdog wd(detect, restore);
    // Per priority: the last pause interval [from, until), and whether a storm is on.
    uint64_t from[8] = {}, until[8] = {};
    bool storm[8] = {};
    uint64_t now = 0, started = 0;
    for (int step = 0; step < 2'000; ++step) {
      now += rng() % 40'000;
      if (rng() % 3 == 0) {   // a PAUSE frame for some priorities
        pfc_frame f;
        f.class_enable = uint8_t(rng());
        for (unsigned c = 0; c < 8; ++c) f.quanta[c] = rng() % 4 == 0 ? 0 : uint16_t(rng() % 60);
        pause.apply(f, now, rate);
        for (unsigned c = 0; c < 8; ++c) {
          if (!(f.class_enable >> c & 1)) continue;
          const uint64_t len = pfc_pause::duration_ps(f.quanta[c], rate);
          if (!(from[c] <= now && now < until[c])) from[c] = now;   // a refresh keeps the start
          until[c] = now + len;
        }
        continue;
      }
      const uint8_t waiting = uint8_t(rng());
      const uint8_t got = wd.storms(pause, waiting, now);
      for (unsigned c = 0; c < 8; ++c) {
        const bool paused = from[c] <= now && now < until[c];
        if (storm[c] && !paused && now >= until[c] + restore) storm[c] = false;   // restored
        if (!storm[c] && paused && (waiting >> c & 1) && now >= from[c] + detect) {
          storm[c] = true;
          ++started;
        }
        ASSERT_EQ(bool(got >> c & 1), storm[c]) << "trial " << trial << " step " << step << " priority " << c
                                                << " at " << now << " ps";
      }
      ASSERT_EQ(wd.storms_started, started);
    }
  }
}

}  // namespace
}  // namespace netasic
