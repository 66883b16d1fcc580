// The flowlet table's RTL-in-the-loop adapter (cosim/flowlet_table/flowlet_table_rtl.*) steps over
// quiet cycles (no lookup, no sweep running or pending, the Delta timer short of its boundary)
// by writing the RTL's timer instead of clocking them. Under test: that this changes nothing.
// Three tables take the same calls: the core (systemc/blocks/flowlet_table.h), the adapter
// stepping over quiet cycles, and the adapter clocking every cycle. Every answer and, after each
// call, every counter must be the core's on both adapters, and so must the checker's state after
// each advance(). The calls come at random gaps (same cycle, a few cycles, a sweep's length,
// several Delta periods) and at the cycles around each Delta boundary ceil(s * Delta / P) and
// each sweep's end, where a step one cycle too long or too short would move a sweep. Control:
// the stepping adapter must have stepped over most cycles, and its clocked and stepped-over
// cycles must add up to the other adapter's clocked cycles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "blocks/flowlet_table.h"
#include "common/rng.h"
#include "cosim/flowlet_table/flowlet_table_rtl.h"

using namespace netasic;

namespace {

void expect_same(const flowlet_counters& a, const flowlet_counters& b, const std::string& where) {
  EXPECT_EQ(a.lookups, b.lookups) << where;
  EXPECT_EQ(a.new_flowlets, b.new_flowlets) << where;
  EXPECT_EQ(a.path_changes, b.path_changes) << where;
  EXPECT_EQ(a.occupancy, b.occupancy) << where;
  EXPECT_EQ(a.evictions, b.evictions) << where;
  EXPECT_EQ(a.sweeps, b.sweeps) << where;
  EXPECT_EQ(a.sweep_conflicts, b.sweep_conflicts) << where;
  EXPECT_EQ(a.sweep_overruns, b.sweep_overruns) << where;
  EXPECT_EQ(a.collisions, b.collisions) << where;
}

}  // namespace

TEST(FlowletTableRtl, SteppingOverQuietCyclesGivesEveryAnswerOfTheCore) {
  // Delta in ps: boundaries a fraction of a cycle apart (the ceiling matters), a sweep (8,192
  // cycles) shorter than Delta with quiet stretches between, and one longer (every boundary an
  // overrun or pending: never quiet).
  const uint64_t deltas_ps[] = {9'000'500, 12'345'678, 40'000'001, 6'000'250};
  rng r(20261128);
  for (const uint64_t delta : deltas_ps) {
    flowlet_config cfg = flowlet_table_rtl::rtl_parameters();
    cfg.delta_ps = delta;
    const uint64_t P = cfg.clock_period_ps;
    flowlet_table core(cfg);
    rtl_loop_count stepping_count, clocked_count;
    flowlet_table_rtl stepping(cfg, &stepping_count), clocked(cfg, &clocked_count);
    clocked.skip_quiet_cycles(false);
    const auto boundary = [&](uint64_t s) { return (s * delta + P - 1) / P; };   // cycle T_s
    uint64_t now = 0, s = 1, lookups = 0;
    uint64_t lane_cycle = ~uint64_t(0);   // the cycle of the last lookup, and its lanes taken
    unsigned lanes_used = 0;
    while (now < 400 * delta) {
      // The next call's cycle: a random gap, or one cycle either side of a boundary or a sweep's end.
      const uint64_t c = now / P;
      while (boundary(s) < c) ++s;
      uint64_t next;
      switch (r.below(24)) {   // mostly bursts of packets a few tens of cycles apart
        case 0: next = c; break;                                     // the same cycle
        case 1: next = c + 1 + r.below(4); break;
        case 2: next = c + r.below(9000); break;
        case 3: next = c + r.below(3 * delta / P); break;
        case 4: next = boundary(s) - 1 + r.below(3); break;          // T_s - 1, T_s, T_s + 1
        case 5: next = boundary(s) + core.sweep_cycles() - 1 + r.below(3); break;
        default: next = c + r.below(60); break;
      }
      next = std::max(next, c);
      now = std::max(now, next * P + r.below(P));
      const std::string where = "Delta " + std::to_string(delta) + " ps, at " + std::to_string(now) + " ps";
      if (r.below(4) == 0) {   // the load balancer's advance between packets
        core.advance(now);
        stepping.advance(now);
        clocked.advance(now);
        ASSERT_EQ(stepping.sweep_active(), core.sweep_active()) << where;
        ASSERT_EQ(clocked.sweep_active(), core.sweep_active()) << where;
        ASSERT_EQ(stepping.sweep_position(), core.sweep_position()) << where;
        ASSERT_EQ(clocked.sweep_position(), core.sweep_position()) << where;
      } else {
        if (now / P == lane_cycle && lanes_used == cfg.ports) now = (lane_cycle + 1) * P;   // the lanes are full
        lanes_used = now / P == lane_cycle ? lanes_used + 1 : 1;
        lane_cycle = now / P;
        // A few hot entries (the first rows), a band of 512 rows mid-table (sweeps that mix rows
        // with valid entries and empty ones), the table's last rows, and any entry.
        const uint64_t pick = r.below(8);
        const uint64_t hash = pick < 3 ? r.below(64) : pick < 6 ? 30'000 + r.below(4096) : pick < 7 ? cfg.entries - 1 - r.below(64) : r.next();
        const uint32_t port = uint32_t(r.below(4));
        const flowlet_result want = core.lookup(hash, now, port);
        const flowlet_result a = stepping.lookup(hash, now, port), b = clocked.lookup(hash, now, port);
        ASSERT_EQ(a.port, want.port) << where;
        ASSERT_EQ(a.new_flowlet, want.new_flowlet) << where;
        ASSERT_EQ(a.index, want.index) << where;
        ASSERT_EQ(b.port, want.port) << where;
        ASSERT_EQ(b.new_flowlet, want.new_flowlet) << where;
        ++lookups;
      }
      expect_same(stepping.counters(), core.counters(), where);
      expect_same(clocked.counters(), core.counters(), where);
      if (HasFailure()) return;
    }
    EXPECT_GT(core.counters().sweeps, 250u);
    EXPECT_GT(core.counters().evictions, 0u);
    // The control: quiet cycles were stepped over, and the two adapters went through the same cycles.
    EXPECT_EQ(clocked_count.quiet_cycles_skipped, 0u);
    EXPECT_EQ(stepping_count.cycles + stepping_count.quiet_cycles_skipped, clocked_count.cycles);
    // Most rows hold no valid entry, so most of a sweep's cycles are quiet too, and between
    // sweeps all but the lookups' and advances' cycles are: most cycles must have been stepped over.
    EXPECT_GT(stepping_count.quiet_cycles_skipped, clocked_count.cycles / 2) << delta;
    std::printf("Delta %llu ps: %llu cycles clocked, %llu stepped over\n", (unsigned long long)delta,
                (unsigned long long)stepping_count.cycles, (unsigned long long)stepping_count.quiet_cycles_skipped);
  }
}
