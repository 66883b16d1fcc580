// The Sundial unit's RTL-in-the-loop adapter (cosim/sundial_unit/sundial_unit_rtl.*) against the
// core when the firmware writes a timeout. The core raises an interrupt at the edge where the
// counter passes the timeout; a timeout written below what the counter already reads is due at an
// edge already past, which the core reports and the RTL, which compares at each edge, cannot.
// The adapter must stop the run there with an error naming the race, and must not stop it when
// the timeout is still ahead of the counter (then both raise it at the same edge).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "clock/oscillator.h"
#include "clock/sundial_unit.h"
#include "cosim/sundial_unit/sundial_unit_rtl.h"

using namespace netasic;

namespace {

constexpr uint64_t us = 1'000'000;   // ps

// A member of a tree whose parent has gone silent: no message clears its counter.
sundial_unit_config silent_member() {
  sundial_unit_config c;
  c.ports = 2;
  c.parent_port = 0;
  c.tx_ports = {1};
  c.sync_interval_ps = 4 * us;
  c.first_timeout_ps = 10 * us;
  return c;
}

struct pair_of_units {
  oscillator core_clock{oscillator_config{}}, rtl_clock{oscillator_config{}};
  sundial_unit core{silent_member(), core_clock};
  sundial_unit_rtl rtl{silent_member(), rtl_clock, 0};

  // Both advanced to `now`, handing over the same events.
  void advance(uint64_t now) {
    std::vector<sundial_event> a, b;
    for (std::vector<sundial_event> e; !(e = core.advance(now)).empty();) a.insert(a.end(), e.begin(), e.end());
    for (std::vector<sundial_event> e; !(e = rtl.advance(now)).empty();) b.insert(b.end(), e.begin(), e.end());
    ASSERT_EQ(a.size(), b.size()) << "at " << now << " ps";
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].what, b[i].what) << "event " << i << " at " << now << " ps";
      EXPECT_EQ(a[i].at_ps, b[i].at_ps) << "event " << i << " at " << now << " ps";
    }
  }
};

}  // namespace

TEST(SundialUnitRtl, ATimeoutWrittenAheadOfTheCounterIsRaisedAtTheCoresEdge) {
  pair_of_units u;
  u.advance(5 * us);   // the counter reads 5,000 cycles of the 10,000 the first timeout waits
  EXPECT_EQ(u.core.counters().timeouts, 0u);
  u.core.set_first_timeout(8 * us);
  u.rtl.set_first_timeout(8 * us);
  EXPECT_EQ(u.rtl.next_event_ps(), u.core.next_event_ps());
  EXPECT_EQ(u.core.next_event_ps(), 8 * us + 1'000);   // the edge where the counter passes 8,000
  u.advance(9 * us);
  EXPECT_EQ(u.core.counters().timeouts, 1u);
  EXPECT_EQ(u.rtl.counters().timeouts, 1u);
  // Written at 5,000 cycles, what the counter reads at 5 us: due at the next edge, the one the
  // write takes in the RTL, for both.
  pair_of_units v;
  v.advance(5 * us);
  v.core.set_first_timeout(5 * us);
  v.rtl.set_first_timeout(5 * us);
  EXPECT_EQ(v.core.next_event_ps(), 5 * us + 1'000);
  EXPECT_EQ(v.rtl.next_event_ps(), 5 * us + 1'000);
  v.advance(5 * us + 1'000);
  EXPECT_EQ(v.rtl.counters().timeouts, 1u);
  // The backup root's second timeout, armed while it is still ahead of the counter.
  u.core.arm_second_timeout(3 * us);
  u.rtl.arm_second_timeout(3 * us);
  EXPECT_EQ(u.rtl.next_event_ps(), u.core.next_event_ps());
  u.advance(12 * us);
  EXPECT_EQ(u.core.counters().second_timeouts, 1u);
  EXPECT_EQ(u.rtl.counters().second_timeouts, 1u);
}

TEST(SundialUnitRtl, ATimeoutWrittenBelowTheCounterStopsTheRunAsARace) {
  {
    pair_of_units u;
    u.advance(5 * us);
    u.core.set_first_timeout(4 * us + 999'000);
    // The core raises it at the edge where the counter passed 4,999 cycles, at 5 us; the RTL can
    // raise it only at the write's edge, one later.
    EXPECT_EQ(u.core.next_event_ps(), 5 * us);
    try {
      u.rtl.set_first_timeout(4 * us + 999'000);
      ADD_FAILURE() << "the RTL raised the first timeout late and went on";
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find("the first timeout was written below"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("1 edge back"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("so the run stops"), std::string::npos) << e.what();
    }
  }
  {
    pair_of_units u;
    u.advance(11 * us);   // the first timeout was raised at 10.001 us
    EXPECT_EQ(u.rtl.counters().timeouts, 1u);
    u.core.arm_second_timeout(500'000);   // due 0.5 us after the first: at 10.501 us, past
    EXPECT_EQ(u.core.next_event_ps(), 10 * us + 501'000);
    try {
      u.rtl.arm_second_timeout(500'000);
      ADD_FAILURE() << "the RTL raised the second timeout late and went on";
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find("the second timeout was written below"), std::string::npos) << e.what();
    }
  }
}
