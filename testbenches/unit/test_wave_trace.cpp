// The --vcd recorder (common/wave_trace.h) against a golden model: thousands of random changes
// and intervals, each signal's value read back at every time that matters; the glob against
// std::regex; the pattern errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <stdexcept>

#include "common/wave_trace.h"

using namespace netasic;

namespace {

// The value a dump gives variable `id` at time t (0 before its first change).
uint64_t dump_value(const wave_dump& d, uint32_t id, uint64_t t) {
  uint64_t v = 0;
  for (const wave_change& c : d.changes)
    if (c.id == id && c.t_ps <= t) v = c.value;
  return v;
}

}  // namespace

TEST(WaveTrace, RandomChangesAndIntervalsMatchTheGoldenModel) {
  std::mt19937_64 g(7);
  for (int round = 0; round < 20; ++round) {
    wave_trace w;
    const unsigned sets = 4, levels = 3;
    std::vector<uint32_t> id;
    for (unsigned i = 0; i < sets + levels; ++i) id.push_back(w.add({"s" + std::to_string(i), i < sets ? 64u : 1u, false}));
    // Golden: per set-signal the calls in order; per level its intervals (same `from`: replace).
    std::vector<std::vector<std::pair<uint64_t, uint64_t>>> calls(sets);
    std::vector<std::vector<std::pair<uint64_t, uint64_t>>> spans(levels);
    std::vector<uint64_t> clock(sets + levels, 0);
    std::set<uint64_t> times = {0};
    for (int op = 0; op < 400; ++op) {
      const unsigned s = unsigned(g() % (sets + levels));
      clock[s] += g() % 3 == 0 ? 0 : g() % 50;   // same-time changes are common
      const uint64_t t = clock[s];
      if (s < sets) {
        const uint64_t v = g() % 4;
        // Now and then a late change (an earlier cycle's, applied late): it takes the time of
        // the signal's latest change.
        const uint64_t given = g() % 8 == 0 ? t - std::min<uint64_t>(t, g() % 40) : t;
        w.set(id[s], given, v);
        calls[s].push_back({calls[s].empty() ? given : std::max(given, calls[s].back().first), v});
        times.insert(calls[s].back().first);
      } else {
        auto& sp = spans[s - sets];
        // Either move the end of the last interval (a later PAUSE while paused) or start a new
        // one at or after its end; intervals of one signal never overlap.
        if (!sp.empty() && g() % 2 && sp.back().first <= t && t < sp.back().second) {
          sp.back().second = t + g() % 100;
          w.interval(id[s], sp.back().first, sp.back().second);
        } else {
          const uint64_t from = std::max(t, sp.empty() ? 0 : sp.back().second);
          sp.push_back({from, from + g() % 100});
          w.interval(id[s], from, sp.back().second);
          clock[s] = from;
        }
        times.insert(sp.back().first);
        times.insert(sp.back().second);
      }
    }
    const uint64_t end = *times.rbegin() - *times.rbegin() / 8;
    const wave_dump d = w.finish(end);
    EXPECT_EQ(d.end_ps, end);
    // In time order, one change per variable and time, no repeats, nothing after the end.
    std::vector<uint64_t> last(sets + levels, 0);
    for (size_t i = 0; i < d.changes.size(); ++i) {
      const wave_change& c = d.changes[i];
      EXPECT_LE(c.t_ps, end);
      if (i) {
        EXPECT_TRUE(d.changes[i - 1].t_ps < c.t_ps || (d.changes[i - 1].t_ps == c.t_ps && d.changes[i - 1].id < c.id));
      }
      EXPECT_NE(c.value, last[c.id]);
      last[c.id] = c.value;
    }
    for (uint64_t t : times) {
      if (t > end) break;
      for (unsigned s = 0; s < sets; ++s) {
        uint64_t v = 0;
        for (const auto& [ct, cv] : calls[s])
          if (ct <= t) v = cv;   // the last call at or before t wins
        ASSERT_EQ(dump_value(d, id[s], t), v) << "signal " << s << " at " << t;
      }
      for (unsigned l = 0; l < levels; ++l) {
        uint64_t v = 0;
        for (const auto& [from, until] : spans[l]) v |= from <= t && t < until;
        ASSERT_EQ(dump_value(d, id[sets + l], t), v) << "level " << l << " at " << t;
      }
    }
  }
}

TEST(WaveTrace, RepeatsAreNotKept) {
  // A queue's depth is set on every event, mostly to the value it has: only changes are held.
  wave_trace w;
  const uint32_t q = w.add({"q", 32, false}), r = w.add({"r", 32, false});
  for (uint64_t t = 0; t < 100; ++t) w.set(q, t, 5);    // one change, then 99 repeats
  for (uint64_t t = 0; t < 100; ++t) w.set(r, t, t);    // control: every call a change (but t = 0)
  EXPECT_EQ(w.pending(), 1u + 99u);
  const wave_dump d = w.finish(1000);
  EXPECT_EQ(d.changes.size(), 100u);
  EXPECT_EQ(dump_value(d, q, 99), 5u);
}

TEST(WaveTrace, OffSignalsRecordNothing) {
  wave_trace w;
  w.set(wave_trace::off, 5, 1);
  w.interval(wave_trace::off, 1, 2);
  EXPECT_EQ(w.pending(), 0u);
  EXPECT_TRUE(w.finish(10).changes.empty());
}

TEST(WaveTrace, GlobMatchesItsRegex) {
  std::mt19937_64 g(11);
  const std::string alphabet = "ab.";
  for (int i = 0; i < 5000; ++i) {
    std::string pattern, name, re;
    for (size_t k = g() % 6; k > 0; --k) {
      const unsigned c = unsigned(g() % 5);
      pattern += c < 3 ? alphabet[c] : c == 3 ? '*' : '?';
      re += c == 0 ? "a" : c == 1 ? "b" : c == 2 ? "\\." : c == 3 ? ".*" : ".";
    }
    for (size_t k = g() % 7; k > 0; --k) name += alphabet[g() % 3];
    EXPECT_EQ(wave_glob(pattern, name), std::regex_match(name, std::regex(re))) << pattern << " " << name;
  }
}

TEST(WaveTrace, PatternsThatMatchNothingAreErrorsWithCloseNames) {
  const std::vector<std::string> names = {"leaf0.port0.queue_bytes", "leaf0.port1.queue_bytes", "spine0.port0.tx_busy"};
  const auto on = wave_select(wave_patterns("leaf0.*, spine?.port0.tx_busy"), names, "--vcd");
  EXPECT_EQ(on, (std::vector<bool>{true, true, true}));
  EXPECT_EQ(wave_select({"*.port1.*"}, names, "--vcd"), (std::vector<bool>{false, true, false}));
  try {
    wave_select({"laef0.*"}, names, "--vcd");
    FAIL();
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("--vcd: pattern 'laef0.*' matches no signal"), std::string::npos) << m;
    EXPECT_NE(m.find("close names: leaf0.*"), std::string::npos) << m;
  }
  EXPECT_THROW(wave_patterns("a,,b"), std::invalid_argument);
  EXPECT_THROW(wave_patterns(""), std::invalid_argument);
}
