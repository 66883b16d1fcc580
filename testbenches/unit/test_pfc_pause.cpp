// The receiving side of PFC (blocks/pfc_pause.h) against a golden model and hand-computed cases
// (IEEE 802.1Qbb): a PAUSE takes effect effect_ps after it arrives, pauses each enabled
// priority for quanta x 512 bit times at the port's rate, a later frame replaces the time left,
// and zero quanta resumes at once. The golden model keeps every pause as an interval and works
// in exact 128-bit arithmetic; nothing expected is read back from the core.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "blocks/pfc_pause.h"
#include "common/rng.h"

using namespace netasic;

namespace {

__extension__ typedef unsigned __int128 u128;

constexpr uint64_t G = 1'000'000'000ull;

// quanta x 512 bit times at rate_bps, in ps, rounded up: the pause never ends early.
uint64_t pause_len_ps(uint16_t quanta, uint64_t rate_bps) {
  const u128 num = u128(quanta) * 512 * 1'000'000'000'000ull;
  return uint64_t((num + rate_bps - 1) / rate_bps);
}

pfc_frame frame(uint8_t enable, std::array<uint16_t, 8> quanta) {
  pfc_frame f{};
  f.class_enable = enable;
  for (unsigned c = 0; c < 8; ++c) f.quanta[c] = quanta[c];
  return f;
}

pfc_frame one(unsigned prio, uint16_t quanta) {
  std::array<uint16_t, 8> q{};
  q[prio] = quanta;
  return frame(uint8_t(1u << prio), q);
}

// Every pause of every priority as an interval [from, until); the last one may still run.
class golden_pause {
 public:
  void apply(const pfc_frame& f, uint64_t effect, uint64_t rate_bps) {
    for (unsigned c = 0; c < 8; ++c) {
      if (!(f.class_enable >> c & 1)) continue;
      const uint64_t until = effect + pause_len_ps(f.quanta[c], rate_bps);
      std::vector<span>& v = spans_[c];
      if (!v.empty() && v.back().from <= effect && effect < v.back().until) v.back().until = until;
      else v.push_back({effect, until});
    }
  }
  bool paused(unsigned c, uint64_t t) const { return until(c, t) != UINT64_MAX; }
  // The end of the pause that covers t. Spans are sorted and disjoint: search from the latest
  // and stop at the first that ended by t.
  uint64_t until(unsigned c, uint64_t t) const {
    for (auto s = spans_[c].rbegin(); s != spans_[c].rend() && s->until > t; ++s)
      if (s->from <= t) return s->until;
    return UINT64_MAX;
  }
  uint64_t total(unsigned c, uint64_t t) const {
    uint64_t sum = 0;
    for (const span& s : spans_[c]) {
      const uint64_t end = std::min(s.until, t);
      if (end > s.from) sum += end - s.from;
    }
    return sum;
  }

 private:
  struct span { uint64_t from, until; };
  std::array<std::vector<span>, 8> spans_;
};

}  // namespace

TEST(PfcPause, OneQuantumIs512BitTimesAtThePortRate) {
  // 512 bits at 100 Gb/s = 5.12 ns; at 25 Gb/s 20.48 ns; at 3 Gb/s 170.666… ns, rounded up.
  const struct { uint64_t rate; uint16_t quanta; uint64_t ps; } cases[] = {
      {100 * G, 1, 5'120},       {100 * G, 10, 51'200},     {25 * G, 1, 20'480},
      {400 * G, 3, 3'840},       {3 * G, 1, 170'667},       {100 * G, 0xFFFF, 335'539'200},
      {400 * G, 0xFFFF, 83'884'800}, {10 * G, 0xFFFF, 3'355'392'000},
  };
  for (const auto& k : cases) {
    pfc_pause p;
    p.apply(one(3, k.quanta), 1'000, k.rate);
    EXPECT_EQ(p.resumes(0xFF, 1'000), 1'000 + k.ps) << k.rate << " bit/s, quanta " << k.quanta;
    EXPECT_EQ(p.paused(1'000 + k.ps - 1), 1u << 3);
    EXPECT_EQ(p.paused(1'000 + k.ps), 0u);
    EXPECT_EQ(p.paused_ps(3, 1'000 + k.ps + 7), k.ps);
    // The sender's refresh (switch.cpp) times its re-send from the same duration.
    EXPECT_EQ(pfc_pause::duration_ps(k.quanta, k.rate), k.ps);
  }
}

TEST(PfcPause, TakesEffectAtEffectTimeOnlyOnEnabledPriorities) {
  pfc_pause p;
  // Priorities 1 and 5 enabled; priority 2 carries a time but is not enabled.
  p.apply(frame(0x22, {0, 100, 100, 0, 0, 200, 0, 0}), 50'000, 100 * G);
  EXPECT_EQ(p.paused(49'999), 0u);
  EXPECT_EQ(p.paused(50'000), 0x22u);
  EXPECT_EQ(p.paused(50'000 + 512'000 - 1), 0x22u);       // 100 quanta: 512 ns
  EXPECT_EQ(p.paused(50'000 + 512'000), 0x20u);           // priority 5 has 200 quanta
  EXPECT_EQ(p.paused(50'000 + 1'024'000), 0u);
  EXPECT_EQ(p.resumes(0x22, 60'000), 562'000u);           // the earliest of the two
  EXPECT_EQ(p.resumes(0x20, 60'000), 1'074'000u);
  EXPECT_EQ(p.resumes(0x04, 60'000), UINT64_MAX);         // not paused
  EXPECT_EQ(p.resumes(0x22, 40'000), UINT64_MAX);         // not yet paused
  EXPECT_EQ(p.paused_ps(2, 2'000'000), 0u);
}

TEST(PfcPause, ALaterFrameReplacesTheTimeLeft) {
  pfc_pause p;
  p.apply(one(3, 100), 0, 100 * G);             // [0, 512 000)
  p.apply(one(3, 10), 100'000, 100 * G);        // shortened: ends at 100 000 + 51 200
  EXPECT_EQ(p.resumes(0x08, 100'000), 151'200u);
  EXPECT_EQ(p.paused(151'199), 0x08u);
  EXPECT_EQ(p.paused(151'200), 0u);
  p.apply(one(3, 1000), 140'000, 100 * G);      // lengthened: ends at 140 000 + 5 120 000
  EXPECT_EQ(p.resumes(0x08, 150'000), 5'260'000u);
  EXPECT_EQ(p.paused_ps(3, 10'000'000), 5'260'000u);   // one pause, never interrupted
}

TEST(PfcPause, ZeroQuantaResumesAtOnce) {
  pfc_pause p;
  p.apply(one(6, 100), 0, 100 * G);
  p.apply(one(6, 0), 200'000, 100 * G);
  EXPECT_EQ(p.paused(199'999), 0x40u);
  EXPECT_EQ(p.paused(200'000), 0u);
  EXPECT_EQ(p.paused_ps(6, 1'000'000), 200'000u);
  // Zero quanta when nothing is paused pauses nothing.
  p.apply(one(6, 0), 300'000, 100 * G);
  EXPECT_EQ(p.paused(300'000), 0u);
  EXPECT_EQ(p.paused_ps(6, 1'000'000), 200'000u);
}

TEST(PfcPause, TotalsAddUpPerPriority) {
  pfc_pause p;
  p.apply(one(0, 1), 0, 100 * G);          // [0, 5 120)
  p.apply(one(0, 1), 10'000, 100 * G);     // [10 000, 15 120)
  p.apply(one(7, 2), 10'000, 100 * G);     // [10 000, 20 240)
  EXPECT_EQ(p.paused_ps(0, 12'000), 5'120u + 2'000u);
  EXPECT_EQ(p.paused_ps(0, 20'000), 10'240u);
  EXPECT_EQ(p.paused_ps(7, 20'000), 10'000u);
  EXPECT_EQ(p.paused_ps(7, 30'000), 10'240u);
  p.apply(one(0, 1), 15'120, 100 * G);     // starts just as the last ended: a new pause
  EXPECT_EQ(p.paused_ps(0, 30'000), 15'360u);
  for (unsigned c = 1; c < 7; ++c) EXPECT_EQ(p.paused_ps(c, 30'000), 0u) << c;
}

TEST(PfcPause, RandomFramesMatchTheGoldenModel) {
  const uint64_t rates[] = {100 * G, 25 * G, 400 * G, 10 * G, 3'000'000'007ull};
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    rng r(seed);
    const uint64_t rate = rates[r.below(std::size(rates))];
    pfc_pause core;
    golden_pause gold;
    uint64_t now = 0;
    for (int i = 0; i < 3000; ++i) {
      now += r.below(3) == 0 ? 0 : r.below(400'000);   // some frames at the same instant
      std::array<uint16_t, 8> q{};
      for (uint16_t& x : q) {
        const uint64_t k = r.below(8);   // zero, short, mid-range and near-full quanta
        x = uint16_t(k == 0 ? 0 : k < 4 ? r.below(64) : k < 7 ? r.below(65536) : 0xFFFF - r.below(16));
      }
      const pfc_frame f = frame(uint8_t(r.below(256)), q);
      core.apply(f, now, rate);
      gold.apply(f, now, rate);
      // Probe now and a few later instants (never before the last effect time).
      for (uint64_t t : {now, now + r.below(1'000'000), now + r.below(1'000'000'000)}) {
        uint8_t mask = 0;
        for (unsigned c = 0; c < 8; ++c) {
          if (gold.paused(c, t)) mask |= uint8_t(1u << c);
          ASSERT_EQ(core.paused_ps(c, t), gold.total(c, t)) << "seed " << seed << " frame " << i << " prio " << c;
        }
        ASSERT_EQ(core.paused(t), mask) << "seed " << seed << " frame " << i << " t " << t;
        const uint8_t ask = uint8_t(r.below(256));
        uint64_t first = UINT64_MAX;
        for (unsigned c = 0; c < 8; ++c)
          if (ask >> c & 1) first = std::min(first, gold.until(c, t));
        ASSERT_EQ(core.resumes(ask, t), first) << "seed " << seed << " frame " << i;
      }
    }
  }
}
