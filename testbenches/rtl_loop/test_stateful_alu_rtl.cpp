// The stateful ALU's RTL-in-the-loop adapter (cosim/stateful_alu/stateful_alu_rtl.*) against the
// core, call for call, as the lockstep bench compares the RTL with the core cycle for cycle: the
// adapter's own bookkeeping is what is under test here. Random programs at each word width, dual
// and single, each driven by a random mix of executions, posted executions (in bursts, so several
// are in the RTL's pipeline at once), control-plane reads (one entry, or a range issued back to
// back) and writes right behind them, clears, and reads of the counters. Every answer the adapter
// gives must be the core's, and so must every refusal of a range past the array (before any entry
// is read). The cycles the adapter counts must be the RTL's timing (rtl/stateful_alu.sv): 2 of
// reset and one a row for each sweep, 4 for an execution or a read (the result comes out at the
// fourth edge), 1 for a post or a write, n + 3 for a range of n reads, and a read of the counters
// waits out the cycles the last post still owes. Half the programs run on an adapter that steps
// over a clear's sweep (its cycles clocked and stepped over must add up to that timing, and it
// must have stepped), the other half on one that clocks every cycle (it must not have stepped).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "blocks/stateful_alu.h"
#include "common/rng.h"
#include "cosim/stateful_alu/stateful_alu_random_program.h"
#include "cosim/stateful_alu/stateful_alu_rtl.h"

using namespace netasic;

namespace {
void expect_same_counters(const stateful_alu_if& rtl, const stateful_alu_if& core, const std::string& where) {
  const stateful_alu_counters& a = rtl.counters();
  const stateful_alu_counters& b = core.counters();
  EXPECT_EQ(a.executions, b.executions) << where;
  EXPECT_EQ(a.updates_lo, b.updates_lo) << where;
  EXPECT_EQ(a.updates_hi, b.updates_hi) << where;
  EXPECT_EQ(a.saturations, b.saturations) << where;
}
}  // namespace

// rtl/stateful_alu.sv's pipeline, issue to result: the timing the adapter's cycles are checked
// against, written here from the RTL rather than taken from the adapter under test.
constexpr uint32_t rtl_pipeline_cycles = 4;

TEST(StatefulAluRtl, EveryAnswerIsTheCoresUnderPostedExecutions) {
  rng r(20261128);
  uint64_t posted = 0, executed = 0, reads_behind_posts = 0, counters_behind_posts = 0, clears_behind_posts = 0;
  uint64_t ranges_behind_posts = 0, whole_ranges = 0, ranges_refused = 0, rows_stepped = 0;
  std::vector<stateful_alu_entry> got, want;
  const unsigned widths[] = {8, 16, 32};
  for (int n = 0; n < 48; ++n) {
    stateful_alu_config cfg;
    cfg.width_bits = widths[n % 3];
    cfg.dual = n % 2 == 0;
    cfg.entries = 1 + uint32_t(r.below(n % 4 == 0 ? stateful_alu_rtl::loop_entries : 6));   // small: RAW on one entry
    cfg.latency_cycles = rtl_pipeline_cycles;
    stateful_alu_program prog = random_program(r, cfg.width_bits);
    if (!cfg.dual && needs_hi(prog)) strip_hi(prog);
    uint64_t ops = 0;
    rtl_loop_count count;
    stateful_alu core(cfg, prog);
    stateful_alu_rtl rtl(cfg, prog, &count);
    const bool step = n / 4 % 2 == 0;   // both ways at every width, shape and size
    const uint64_t stepped_at_reset = count.quiet_cycles_skipped;
    rtl.step_sweeps(step);
    uint64_t pass = 0;
    unsigned in_flight = 0;   // posts since the last access that waits for its result
    uint64_t cycles = 2 + cfg.entries;   // reset, then the sweep
    unsigned owed = 0;                   // cycles until the last post's result
    auto clocked = [&](uint64_t c) {     // c cycles pass
      cycles += c;
      owed = c >= owed ? 0 : owed - unsigned(c);
    };
    for (int k = 0; k < 400; ++k) {
      const std::string where = "program " + std::to_string(n) + " op " + std::to_string(k) + " width " +
                                std::to_string(cfg.width_bits) + (cfg.dual ? " dual" : " single");
      const uint32_t index = uint32_t(r.below(cfg.entries));
      const uint32_t a = corner_value(r, cfg.width_bits), b = corner_value(r, cfg.width_bits);
      const uint64_t what = r.below(100);
      if (what < 55) {   // a posted execution, often several in a row
        ++pass;
        core.post(pass, index, a, b);
        rtl.post(pass, index, a, b);
        clocked(1);
        owed = rtl_pipeline_cycles - 1;
        ++posted;
        ++in_flight;
        ++ops;
      } else if (what < 75) {
        ++pass;
        const stateful_alu_result c = core.execute(pass, index, a, b), t = rtl.execute(pass, index, a, b);
        ASSERT_EQ(t.output, c.output) << where;
        ASSERT_EQ(t.p_lo, c.p_lo) << where;
        ASSERT_EQ(t.p_hi, c.p_hi) << where;
        ASSERT_EQ(t.cycles, c.cycles) << where;
        clocked(rtl_pipeline_cycles);
        ++executed;
        in_flight = 0;
        ++ops;
      } else if (what < 80) {
        const stateful_alu_entry c = core.read(index), t = rtl.read(index);
        ASSERT_EQ(t.lo, c.lo) << where;
        ASSERT_EQ(t.hi, c.hi) << where;
        clocked(rtl_pipeline_cycles);
        reads_behind_posts += in_flight > 0;
        in_flight = 0;
        ++ops;
      } else if (what < 85) {   // a range: to the array's end, or a random stretch, or one past it
        const uint32_t first = r.below(4) == 0 ? 0 : index;
        const uint32_t room = cfg.entries - first;
        const bool past = r.below(16) == 0;
        const uint32_t n = past ? room + 1 + uint32_t(r.below(3)) : r.below(2) ? room : 1 + uint32_t(r.below(room));
        got.assign(n, {0xDEAD, 0xBEEF});
        want.assign(n, {0xDEAD, 0xBEEF});
        if (past) {
          EXPECT_THROW(core.read_range(first, n, want.data()), std::out_of_range) << where;
          EXPECT_THROW(rtl.read_range(first, n, got.data()), std::out_of_range) << where;
          for (uint32_t k = 0; k < n; ++k)   // refused before anything was read
            ASSERT_TRUE(got[k].lo == 0xDEAD && want[k].lo == 0xDEAD) << where << " range entry " << first + k;
          ++ranges_refused;
        } else {
          core.read_range(first, n, want.data());
          rtl.read_range(first, n, got.data());
          for (uint32_t k = 0; k < n; ++k) {
            ASSERT_EQ(got[k].lo, want[k].lo) << where << " range entry " << first + k;
            ASSERT_EQ(got[k].hi, want[k].hi) << where << " range entry " << first + k;
          }
          clocked(n + rtl_pipeline_cycles - 1);
          ranges_behind_posts += in_flight > 0;
          whole_ranges += first == 0 && n == cfg.entries;
          in_flight = 0;
          ops += n;
        }
      } else if (what < 92) {
        const uint32_t lo = corner_value(r, cfg.width_bits), hi = corner_value(r, cfg.width_bits);
        core.write(index, lo, hi);
        rtl.write(index, lo, hi);
        clocked(1);
        ++ops;
      } else if (what < 99) {
        counters_behind_posts += in_flight > 0;
        expect_same_counters(rtl, core, where);
        clocked(owed);
        in_flight = 0;
      } else {
        clears_behind_posts += in_flight > 0;
        core.clear();
        rtl.clear();
        clocked(1 + cfg.entries);
        in_flight = 0;
        ++ops;
      }
      ASSERT_EQ(count.cycles + count.quiet_cycles_skipped, cycles) << where;
      if (HasFailure()) return;
    }
    // The counters straight after the run, then every word, one read at a time.
    expect_same_counters(rtl, core, "program " + std::to_string(n) + " at its end");
    for (uint32_t i = 0; i < cfg.entries; ++i) {
      const stateful_alu_entry c = core.read(i), t = rtl.read(i);
      ASSERT_EQ(t.lo, c.lo) << "program " << n << " entry " << i;
      ASSERT_EQ(t.hi, c.hi) << "program " << n << " entry " << i;
    }
    EXPECT_EQ(count.calls, ops + cfg.entries) << "program " << n;   // every access the RTL answered
    if (step)
      rows_stepped += count.quiet_cycles_skipped - stepped_at_reset;
    else
      EXPECT_EQ(count.quiet_cycles_skipped, stepped_at_reset) << "program " << n << " clocks every cycle";
  }
  // The mix reaches what it is here for.
  EXPECT_GT(posted, 8000u);
  EXPECT_GT(executed, 3000u);
  EXPECT_GT(reads_behind_posts, 500u);
  EXPECT_GT(counters_behind_posts, 400u);
  EXPECT_GT(clears_behind_posts, 50u);
  EXPECT_GT(ranges_behind_posts, 200u);
  EXPECT_GT(whole_ranges, 100u);
  EXPECT_GT(ranges_refused, 30u);
  EXPECT_GT(rows_stepped, 1000u);   // the stepping adapters stepped over clears' sweeps
}
