// Flowlet table against a reference written from the LetFlow description alone: every entry
// holds an explicit age counter, and the checker is simulated cycle by cycle (triggers at Delta
// boundaries, lookups first, then one visit if a port is left). Random packet streams over small
// tables (table full, hash collisions, several lookups per cycle, single-ported tables, Delta
// shorter than a sweep) compare every lookup, every counter and every entry. Property tests pin
// LetFlow's aging bounds (kept below Delta, gone after 2*Delta, in cycles) over many streams, and a
// 64K table checks the overrun and conflict arithmetic and that millions of packets stay fast.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "blocks/flowlet_table.h"
#include "common/rng.h"

using namespace netasic;

namespace {

// ---- reference: explicit per-cycle checker ------------------------------------------------------

struct ref_flowlet {
  struct ent {
    bool valid = false, written = false, collided = false;
    uint32_t port = 0, age = 0;
    uint64_t owner = 0;
  };
  flowlet_config cfg;
  uint32_t max_age;
  std::vector<ent> t;
  uint64_t cur = 0;          // the cycle we are in: lookups may still come, the checker has not run
  uint64_t s = 1;            // next Delta boundary number
  unsigned in_cycle = 0;     // lookups so far in `cur`
  uint32_t last_cached = 0;  // what a new flowlet's choose() should have seen
  bool active = false, pending = false;
  uint32_t pos = 0;
  flowlet_counters c;

  explicit ref_flowlet(const flowlet_config& k) : cfg(k), max_age((1u << k.age_bits) - 1), t(k.entries) {}

  uint64_t trigger(uint64_t n) const {
    // Smallest cycle x with x * P >= n * Delta, found by walking rather than by formula.
    uint64_t x = n * cfg.delta_ps / cfg.clock_period_ps;
    while (x * cfg.clock_period_ps < n * cfg.delta_ps) ++x;
    return x;
  }
  void start() { active = true; pos = 0; ++c.sweeps; }
  // The end of cycle `cur`: its Delta boundary (if any) fires, then the checker visits. Lookups
  // never see a sweep's start directly (its first visit comes after them), so taking the boundary
  // at the end of the cycle changes nothing but keeps the counters comparable mid-cycle.
  void checker_step() {
    if (cur == trigger(s)) {
      ++s;
      if (active) { ++c.sweep_overruns; pending = true; }
      else start();
    }
    if (!active) return;
    if (in_cycle >= cfg.ports) { ++c.sweep_conflicts; return; }
    for (uint32_t k = 0; k < cfg.sweep_width && pos < cfg.entries; ++k, ++pos) {
      ent& e = t[pos];
      if (e.valid) {
        if (e.age == max_age) { e.valid = false; ++c.evictions; --c.occupancy; }
        else ++e.age;
      }
    }
    if (pos == cfg.entries) {
      active = false;
      if (pending) { pending = false; start(); }
    }
  }
  void enter(uint64_t cycle) {
    while (cur < cycle) {
      checker_step();
      ++cur;
      in_cycle = 0;
    }
  }
  flowlet_result lookup(uint64_t hash, uint64_t now, uint32_t new_port, uint64_t flow) {
    enter(now / cfg.clock_period_ps);
    if (++in_cycle > cfg.ports) ++c.port_overflows;
    ++c.lookups;
    const uint32_t i = uint32_t(hash % cfg.entries);
    ent& e = t[i];
    if (e.valid) {
      e.age = 0;
      if (flow != e.owner) {
        ++c.collision_hits;
        if (!e.collided) { e.collided = true; ++c.collisions; }
      }
      return {e.port, false, i};
    }
    last_cached = e.written ? e.port : flowlet_table::no_port;
    if (e.written && e.port != new_port) ++c.path_changes;
    ++c.new_flowlets;
    ++c.occupancy;
    e = ent{true, true, false, new_port, 0, flow};
    return {new_port, true, i};
  }
};

void expect_same_counters(const flowlet_counters& a, const flowlet_counters& b, const char* where) {
  EXPECT_EQ(a.lookups, b.lookups) << where;
  EXPECT_EQ(a.new_flowlets, b.new_flowlets) << where;
  EXPECT_EQ(a.path_changes, b.path_changes) << where;
  EXPECT_EQ(a.occupancy, b.occupancy) << where;
  EXPECT_EQ(a.collisions, b.collisions) << where;
  EXPECT_EQ(a.collision_hits, b.collision_hits) << where;
  EXPECT_EQ(a.evictions, b.evictions) << where;
  EXPECT_EQ(a.sweeps, b.sweeps) << where;
  EXPECT_EQ(a.sweep_conflicts, b.sweep_conflicts) << where;
  EXPECT_EQ(a.sweep_overruns, b.sweep_overruns) << where;
  EXPECT_EQ(a.port_overflows, b.port_overflows) << where;
}

// Next packet time: same cycle, a few cycles, within Delta, beyond it, or a long idle.
uint64_t next_time(rng& r, uint64_t now, uint64_t delta, uint64_t period) {
  switch (r.below(8)) {
    case 0: return now + r.below(period);                 // often the same cycle
    case 1: case 2: return now + r.below(4 * period);
    case 3: case 4: return now + r.below(delta / 2 + 1);
    case 5: return now + r.below(2 * delta + 1);
    case 6: return now + r.below(4 * delta + 1);
    default: return now + (r.below(20) == 0 ? r.below(12 * delta + 1) : r.below(period + 1));
  }
}

}  // namespace

// ---- against the reference ------------------------------------------------------------------------

TEST(FlowletTable, MatchesPerCycleReferenceOnRandomStreams) {
  rng r(0xF10E1E7);
  const uint32_t sizes[] = {1, 3, 16, 61, 64};
  const uint64_t periods[] = {1000, 1, 333};
  int configs = 0;
  uint64_t packets = 0, conflicts = 0, overruns = 0, collisions = 0, evictions = 0;
  for (uint32_t entries : sizes)
    for (unsigned age_bits = 1; age_bits <= 3; ++age_bits)
      for (unsigned ports = 1; ports <= 2; ++ports)
        for (uint64_t period : periods) {
          flowlet_config cfg;
          cfg.entries = entries;
          cfg.age_bits = age_bits;
          cfg.ports = ports;
          cfg.clock_period_ps = period;
          cfg.sweep_width = r.below(3) ? 1 : 1 + uint32_t(r.below(5));
          // Delta from one cycle and half a sweep (overruns) to several sweeps.
          const uint64_t sweep_ps = (entries + cfg.sweep_width - 1) / cfg.sweep_width * period;
          const uint64_t choices[] = {period, 3 * period + 1, sweep_ps / 2 + period, sweep_ps,
                                      sweep_ps + r.below(period) + 1, 3 * sweep_ps + 7, 8 * sweep_ps};
          cfg.delta_ps = std::max<uint64_t>(period, choices[r.below(7)]);
          flowlet_table dut(cfg);
          ref_flowlet ref(cfg);
          ++configs;

          // Flows with random 64-bit hashes: more flows than entries fills the table and collides.
          const uint32_t flows = 1 + uint32_t(r.below(3 * entries + 2));
          std::vector<uint64_t> hash(flows);
          for (auto& h : hash) h = r.next();
          const uint64_t budget_cycles = 2'000'000;   // keeps the per-cycle reference cheap
          uint64_t now = r.below(cfg.delta_ps);
          for (int n = 0; n < 3000; ++n) {
            now = next_time(r, now, cfg.delta_ps, period);
            if (now / period > budget_cycles) break;
            const uint32_t f = uint32_t(r.below(flows));
            const uint32_t port = uint32_t(r.below(4));
            flowlet_result got;
            const flowlet_result want = ref.lookup(hash[f], now, port, f);
            if (r.below(2)) {
              got = dut.lookup(hash[f], now, port, f);
            } else {
              uint32_t cached = 999;
              got = dut.lookup_with(hash[f], now, [&](uint32_t c) { cached = c; return port; }, f);
              if (want.new_flowlet) ASSERT_EQ(cached, ref.last_cached);
              else ASSERT_EQ(cached, 999u);   // not called on a hit
            }
            ASSERT_EQ(got.index, want.index);
            ASSERT_EQ(got.new_flowlet, want.new_flowlet) << "packet " << n << " at " << now << " entries " << entries
                                                         << " age_bits " << age_bits << " ports " << ports;
            ASSERT_EQ(got.port, want.port);
            ++packets;
            if (n % 97 == 0) {
              expect_same_counters(dut.counters(), ref.c, "mid-stream");
              if (::testing::Test::HasFailure()) return;
            }
          }
          dut.advance(now + 3 * cfg.delta_ps);
          ref.enter((now + 3 * cfg.delta_ps) / period);
          expect_same_counters(dut.counters(), ref.c, "end");
          for (uint32_t i = 0; i < entries; ++i) {
            const flowlet_entry e = dut.entry(i);
            EXPECT_EQ(e.valid, ref.t[i].valid) << i;
            EXPECT_EQ(e.written, ref.t[i].written) << i;
            if (e.written) { EXPECT_EQ(e.port, ref.t[i].port) << i; }
            if (e.valid) { EXPECT_EQ(e.age, ref.t[i].age) << i; }
          }
          EXPECT_EQ(dut.sweep_active(), ref.active);
          if (ref.active) { EXPECT_EQ(dut.sweep_position(), ref.pos); }
          if (::testing::Test::HasFailure()) return;
          conflicts += ref.c.sweep_conflicts;
          overruns += ref.c.sweep_overruns;
          collisions += ref.c.collisions;
          evictions += ref.c.evictions;
        }
  // The streams must have exercised what they are meant to.
  EXPECT_EQ(configs, 90);
  EXPECT_GT(conflicts, 1000u);
  EXPECT_GT(overruns, 100u);
  EXPECT_GT(collisions, 1000u);
  EXPECT_GT(evictions, 1000u);
  std::printf("[          ] %d configs, %llu packets; conflicts %llu, overruns %llu, collisions %llu, evictions %llu\n",
              configs, (unsigned long long)packets, (unsigned long long)conflicts, (unsigned long long)overruns,
              (unsigned long long)collisions, (unsigned long long)evictions);
}

// The cached port handed to choose() is the port the invalid entry still holds.
TEST(FlowletTable, ChooseSeesCachedPort) {
  flowlet_config cfg;
  cfg.entries = 4;
  cfg.delta_ps = 10'000;      // 10 cycles per Delta, 4-cycle sweep
  flowlet_table t(cfg);
  uint32_t seen = 12345;
  auto pick = [&](uint32_t port) { return [&, port](uint32_t cached) { seen = cached; return port; }; };
  EXPECT_TRUE(t.lookup_with(6, 0, pick(3)).new_flowlet);
  EXPECT_EQ(seen, flowlet_table::no_port);
  // Idle for 3 Deltas: gone. The entry still holds 3.
  const flowlet_result r = t.lookup_with(6, 30'000, pick(5));
  EXPECT_TRUE(r.new_flowlet);
  EXPECT_EQ(seen, 3u);
  EXPECT_EQ(r.port, 5u);
  EXPECT_EQ(t.counters().path_changes, 1u);
  EXPECT_EQ(t.counters().evictions, 1u);
  // Same port again after another timeout: a new flowlet, not a path change.
  EXPECT_TRUE(t.lookup_with(6, 60'000, pick(5)).new_flowlet);
  EXPECT_EQ(seen, 5u);
  EXPECT_EQ(t.counters().path_changes, 1u);
  EXPECT_EQ(t.counters().new_flowlets, 3u);
}

// LetFlow's one-bit scheme by hand: Delta = 10 cycles, 4 entries, entry 1 visited at cycles
// 11, 21, 31 ... (triggers at 10, 20, 30; entry i at trigger + i).
TEST(FlowletTable, OneAgeBitByHand) {
  flowlet_config cfg;
  cfg.entries = 4;
  cfg.delta_ps = 10'000;
  flowlet_table t(cfg);
  EXPECT_TRUE(t.lookup(1, 5'000, 7).new_flowlet);        // cycle 5
  t.advance(12'000);                                     // visit at 11 set the age bit
  EXPECT_EQ(t.entry(1).age, 1u);
  EXPECT_TRUE(t.entry(1).valid);
  EXPECT_FALSE(t.lookup(1, 21'500, 9).new_flowlet);      // cycle 21: the lookup goes before the visit
  t.advance(22'000);
  EXPECT_EQ(t.entry(1).age, 1u);                         // cleared by the packet, set again by the visit at 21
  t.advance(32'000);                                     // visit at 31: age bit was set, so invalid
  EXPECT_FALSE(t.entry(1).valid);
  EXPECT_EQ(t.counters().evictions, 1u);
  EXPECT_EQ(t.counters().occupancy, 0u);
  EXPECT_EQ(t.counters().sweeps, 3u);
  EXPECT_EQ(t.lookup(1, 32'000, 2).port, 2u);
}

// ---- aging bounds -----------------------------------------------------------------------------------

// No conflicts (two ports, at most one packet per cycle) and no overruns (a sweep fits in Delta).
// With k age bits and D = Delta / P: an entry idle for at most (2^k - 1) * floor(D) cycles is
// always kept, one idle for at least 2^k * ceil(D) cycles is always gone, and both outcomes occur
// in between. With k = 1 that is LetFlow's "between Delta and 2 Delta".
TEST(FlowletTable, AgingBoundsHoldOverRandomStreams) {
  rng r(0xA6E);
  for (unsigned age_bits = 1; age_bits <= 3; ++age_bits) {
    uint64_t kept_between = 0, gone_between = 0, checked = 0;
    for (int stream = 0; stream < 40; ++stream) {
      flowlet_config cfg;
      cfg.entries = 8 + uint32_t(r.below(120));
      cfg.age_bits = age_bits;
      cfg.clock_period_ps = 1000 + r.below(3) * 250;
      cfg.sweep_width = r.below(2) ? 1 : 1 + uint32_t(r.below(8));
      cfg.delta_ps = cfg.entries * cfg.clock_period_ps + r.below(5 * cfg.entries * cfg.clock_period_ps);
      const uint64_t P = cfg.clock_period_ps;
      const uint64_t dmin = cfg.delta_ps / P, dmax = (cfg.delta_ps + P - 1) / P;
      const uint64_t lo = ((1u << age_bits) - 1) * dmin, hi = (uint64_t(1) << age_bits) * dmax;
      const uint64_t first_sweep_done = dmax + cfg.entries;
      flowlet_table t(cfg);
      // One flow per entry (hash = index), so each entry's history is one flow's.
      std::vector<uint64_t> last(cfg.entries, UINT64_MAX);
      uint64_t cycle = 0;
      for (int n = 0; n < 4000; ++n) {
        // Gaps spread over [0, 1.3 * hi] cycles for the chosen entry, one packet per cycle at most.
        cycle += 1 + r.below(3);
        const uint32_t i = uint32_t(r.below(cfg.entries));
        if (last[i] != UINT64_MAX && r.below(2)) {
          // Jump the clock so this entry's gap lands near the interesting range.
          const uint64_t target = last[i] + r.below(hi + hi / 3 + 2);
          if (target > cycle) cycle = target;
        }
        const flowlet_result res = t.lookup(i, cycle * P + r.below(P), 1);
        if (last[i] != UINT64_MAX && last[i] >= first_sweep_done) {
          const uint64_t gap = cycle - last[i];
          ++checked;
          if (gap <= lo) {
            ASSERT_FALSE(res.new_flowlet) << "gap " << gap << " <= " << lo;
          } else if (gap >= hi) {
            ASSERT_TRUE(res.new_flowlet) << "gap " << gap << " >= " << hi;
          } else {
            (res.new_flowlet ? gone_between : kept_between)++;
          }
        }
        last[i] = cycle;
      }
      EXPECT_EQ(t.counters().sweep_conflicts, 0u);
      EXPECT_EQ(t.counters().sweep_overruns, 0u);
    }
    EXPECT_GT(checked, 50000u);
    EXPECT_GT(kept_between, 100u) << "age_bits " << age_bits;   // in between, the sweep phase decides
    EXPECT_GT(gone_between, 100u) << "age_bits " << age_bits;
  }
}

// ---- sweep conflicts and overruns at scale --------------------------------------------------------

// 64K entries need 65536 cycles per sweep. With Delta = 50 us at 1 GHz (50 000 cycles) every sweep
// overruns: the checker runs back to back from the first boundary, so every boundary after the first
// is an overrun and a sweep starts every 65536 cycles.
TEST(FlowletTable, ShortDeltaOverrunsLargeTable) {
  flowlet_config cfg;
  cfg.entries = 65536;
  cfg.delta_ps = 50'000'000;
  flowlet_table t(cfg);
  const uint64_t end_cycle = 10'000'000;   // 10 ms
  t.advance(end_cycle * 1000);
  const uint64_t boundaries = (end_cycle - 1) / 50'000;   // boundaries at cycles 50 000 k < end
  EXPECT_EQ(t.counters().sweep_overruns, boundaries - 1);
  EXPECT_EQ(t.counters().sweeps, 1 + (end_cycle - 1 - 50'000) / 65536);
  EXPECT_EQ(t.counters().sweep_conflicts, 0u);

  // Delta at exactly one sweep: no overrun. One cycle less: overruns again.
  cfg.delta_ps = 65'536'000;
  flowlet_table exact(cfg);
  exact.advance(end_cycle * 1000);
  EXPECT_EQ(exact.counters().sweep_overruns, 0u);
  cfg.delta_ps = 65'535'000;
  flowlet_table short1(cfg);
  short1.advance(end_cycle * 1000);
  EXPECT_GT(short1.counters().sweep_overruns, 0u);

  // The same 50 us with a checker that reads a row of 8 entries per cycle: 8192 cycles per sweep.
  cfg.delta_ps = 50'000'000;
  cfg.sweep_width = 8;
  flowlet_table wide(cfg);
  EXPECT_EQ(wide.sweep_cycles(), 8192u);
  wide.advance(end_cycle * 1000);
  EXPECT_EQ(wide.counters().sweep_overruns, 0u);
  EXPECT_EQ(wide.counters().sweeps, boundaries);
  cfg.sweep_width = 1;

  // Delta of one cycle over a simulated second (10^9 cycles): every boundary after the first is
  // an overrun, counted arithmetically rather than one by one.
  cfg.delta_ps = 1000;
  flowlet_table tiny(cfg);
  tiny.advance(1'000'000'000'000);
  EXPECT_EQ(tiny.counters().sweep_overruns, 1'000'000'000u - 2);   // boundaries at 1 .. 10^9 - 1
  EXPECT_EQ(tiny.counters().sweeps, 1 + (1'000'000'000u - 2) / 65536);
}

// Single-ported table, a lookup every cycle: the checker never gets the port, every active cycle
// is a conflict, and the sweep never moves.
TEST(FlowletTable, SinglePortStarvesChecker) {
  flowlet_config cfg;
  cfg.entries = 65536;
  cfg.delta_ps = 100'000'000;   // 100 000 cycles
  cfg.ports = 1;
  flowlet_table t(cfg);
  rng r(5);
  const uint64_t cycles = 400'000;
  for (uint64_t c = 0; c < cycles; ++c) t.lookup(r.next(), c * 1000, 0);
  t.advance(cycles * 1000);
  // Active from cycle 100 000 onwards; boundaries at 200 000 and 300 000 overrun.
  EXPECT_EQ(t.counters().sweep_conflicts, cycles - 100'000);
  EXPECT_EQ(t.counters().sweep_overruns, 2u);
  EXPECT_EQ(t.sweep_position(), 0u);
  EXPECT_EQ(t.counters().evictions, 0u);
  // A lookup every other cycle: the checker gets every other cycle, so a sweep takes 2N cycles.
  flowlet_table half(cfg);
  for (uint64_t c = 0; c < cycles; c += 2) half.lookup(r.next(), c * 1000, 0);
  half.advance(cycles * 1000);
  EXPECT_EQ(half.counters().sweep_conflicts, (cycles - 100'000) / 2);
  EXPECT_EQ(half.sweep_position(), uint32_t(((cycles - 100'000) / 2) % 65536));
}

// Millions of packets on a 64K table: the lazy checker keeps this to well under a second.
TEST(FlowletTable, MillionsOfPacketsStayFast) {
  flowlet_config cfg;   // 64K entries, Delta 500 us, 1 GHz
  flowlet_table t(cfg);
  rng r(77);
  std::vector<uint64_t> flows(100'000);
  for (auto& f : flows) f = r.next();
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t now = 0;
  const int packets = 3'000'000;
  for (int n = 0; n < packets; ++n) {
    now += 1000 + r.below(20'000);   // one packet per ~11 ns: 33 ms simulated
    const uint64_t f = flows[r.below(flows.size())];
    t.lookup(f, now, uint32_t(f & 7));
  }
  t.advance(now);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const flowlet_counters& c = t.counters();
  EXPECT_EQ(c.lookups, uint64_t(packets));
  EXPECT_LE(c.occupancy, uint64_t(cfg.entries));
  EXPECT_EQ(c.new_flowlets, c.occupancy + c.evictions);   // every life ends by eviction or is still on
  EXPECT_GT(c.collisions, 0u);
  std::printf("[          ] %d packets, %.1f ms simulated, %.3f s; occupancy %llu, new flowlets %llu, collisions %llu\n",
              packets, double(now) / 1e9, secs, (unsigned long long)c.occupancy,
              (unsigned long long)c.new_flowlets, (unsigned long long)c.collisions);
}

// ---- errors -------------------------------------------------------------------------------------

TEST(FlowletTable, RejectsBadConfigAndBackwardsTime) {
  auto make = [](auto edit) { flowlet_config c; edit(c); return flowlet_table(c); };
  EXPECT_THROW(make([](flowlet_config& c) { c.entries = 0; }), std::invalid_argument);
  EXPECT_THROW(make([](flowlet_config& c) { c.age_bits = 0; }), std::invalid_argument);
  EXPECT_THROW(make([](flowlet_config& c) { c.age_bits = 17; }), std::invalid_argument);
  EXPECT_THROW(make([](flowlet_config& c) { c.ports = 0; }), std::invalid_argument);
  EXPECT_THROW(make([](flowlet_config& c) { c.sweep_width = 0; }), std::invalid_argument);
  EXPECT_THROW(make([](flowlet_config& c) { c.clock_period_ps = 0; }), std::invalid_argument);
  EXPECT_THROW(make([](flowlet_config& c) { c.delta_ps = 999; }), std::invalid_argument);
  flowlet_config cfg;
  cfg.entries = 8;
  flowlet_table t(cfg);
  t.lookup(1, 5000, 1);
  EXPECT_THROW(t.lookup(1, 4999, 1), std::logic_error);
  EXPECT_THROW(t.advance(10), std::logic_error);
  EXPECT_THROW(t.entry(8), std::out_of_range);
  EXPECT_THROW(t.lookup_with(1, 6000, flowlet_table::choose_fn{}), std::invalid_argument);
  EXPECT_EQ(t.counters().lookups, 1u);
  EXPECT_EQ(t.memory_bits(), 8u * (1 + 1 + 8));
}
