// Sundial timeout unit: the edges of the first and second timeout interrupts after a clear,
// worked out by hand, and a random stream of clears compared, interrupt by interrupt, with a
// reference that counts every cycle.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "clock/sundial_timeout.h"
#include "common/rng.h"

using namespace netasic;

namespace {

constexpr uint64_t none = sundial_timeout::none;

struct interrupt {
  bool second;
  uint64_t edge;
  bool operator==(const interrupt& o) const { return second == o.second && edge == o.edge; }
};

// What sundial_unit::advance does with the edges: every interrupt due by `cycle`, in order; the
// firmware arms `second` cycles when the first is raised.
void due(sundial_timeout& t, uint64_t cycle, uint64_t second, std::vector<interrupt>& out) {
  for (;;) {
    const uint64_t a = t.first_edge(), b = t.second_edge();
    if (a <= b && a <= cycle) {
      t.raise_first();
      out.push_back({false, a});
      if (second) t.arm_second(second);
    } else if (b < a && b <= cycle) {
      t.raise_second();
      out.push_back({true, b});
    } else {
      return;
    }
  }
}

}  // namespace

TEST(SundialTimeout, TheInterruptsAreDueWhereTheCounterPassesEachTimeout) {
  sundial_timeout t(185, 100);   // cleared at cycle 100
  EXPECT_EQ(t.counter(100), 0u);
  EXPECT_EQ(t.counter(285), 185u);
  EXPECT_EQ(t.first_edge(), 286u);   // the counter reads 186 there: past 185
  EXPECT_EQ(t.second_edge(), none);  // not armed
  t.raise_first();
  EXPECT_EQ(t.first_edge(), none);   // once per silence
  t.arm_second(180);
  EXPECT_EQ(t.second_edge(), 466u);  // 100 + 185 + 180 + 1
  t.raise_second();
  EXPECT_EQ(t.second_edge(), none);
  EXPECT_EQ(t.counter(1000), 900u);  // the counter runs on
}

TEST(SundialTimeout, AValidMessageClearsTheCounterAndCancelsTheElection) {
  sundial_timeout t(185, 0);
  t.raise_first();
  t.arm_second(180);
  EXPECT_EQ(t.second_edge(), 366u);
  t.clear(300);
  EXPECT_EQ(t.cleared_at(), 300u);
  EXPECT_EQ(t.counter(300), 0u);
  EXPECT_EQ(t.first_edge(), 486u);
  EXPECT_EQ(t.second_edge(), none);
  EXPECT_EQ(t.second_cycles(), 0u);
}

TEST(SundialTimeout, ArmingAndRearming) {
  sundial_timeout t(10, 50);
  t.arm_second(5);                   // armed before the first is raised: both run from the clear
  EXPECT_EQ(t.first_edge(), 61u);
  EXPECT_EQ(t.second_edge(), 66u);
  t.arm_second(0);                   // disarmed
  EXPECT_EQ(t.second_edge(), none);
  t.raise_first();
  t.arm_second(7);
  t.raise_second();
  t.rearm();                         // a root: nothing raised, no second, the clear stands
  EXPECT_EQ(t.first_edge(), 61u);
  EXPECT_EQ(t.second_edge(), none);
  EXPECT_EQ(t.cleared_at(), 50u);
  t.set_first(20);
  EXPECT_EQ(t.first_cycles(), 20u);
  EXPECT_EQ(t.first_edge(), 71u);
  EXPECT_THROW(t.set_first(0), std::invalid_argument);
  EXPECT_THROW(sundial_timeout(0, 0), std::invalid_argument);
}

TEST(SundialTimeout, MatchesACounterThatCountsEveryCycle) {
  rng r(21);
  size_t firsts = 0, seconds = 0;
  for (int c = 0; c < 200; ++c) {
    const uint64_t first = 1 + r.below(60), second = r.below(2) ? 1 + r.below(40) : 0;
    sundial_timeout t(first, 0);
    std::vector<interrupt> got, want;
    // The reference: a counter cleared by valid messages, incremented at every edge.
    uint64_t counter = 0, at = 0;
    bool first_raised = false, second_raised = false;
    for (int m = 0; m < 100; ++m) {
      const uint64_t next = at + r.below(2 * (first + second + 2));
      due(t, next, second, got);
      for (uint64_t k = at + 1; k <= next; ++k) {
        ++counter;
        if (!first_raised && counter == first + 1) {
          first_raised = true;
          want.push_back({false, k});
        } else if (first_raised && second && !second_raised && counter == first + second + 1) {
          second_raised = true;
          want.push_back({true, k});
        }
      }
      at = next;
      ASSERT_EQ(t.counter(at), counter) << "config " << c << " step " << m;
      if (r.below(3)) {   // a valid message at this edge
        t.clear(at);
        counter = 0;
        first_raised = second_raised = false;
      }
    }
    ASSERT_EQ(got, want) << "config " << c;
    for (const interrupt& i : got) (i.second ? seconds : firsts)++;
  }
  EXPECT_GT(firsts, 1000u);
  EXPECT_GT(seconds, 300u);
}
