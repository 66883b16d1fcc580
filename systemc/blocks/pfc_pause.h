// The receiving side of PFC on one port (core, no SystemC): which priorities the link partner
// has paused, until when, and how long each has been paused in total. Switch ports and NICs
// both keep one. A PAUSE takes effect `effect_ps` (the MAC's reaction) after it arrives and
// lasts quanta x 512 bit times at the port's rate; a later frame replaces the time left, and a
// zero quanta resumes at once.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>

#include "common/wave_trace.h"
#include "protocol/headers.h"

namespace netasic {

class pfc_pause {
 public:
  // How long `quanta` pause a port of this rate: quanta x 512 bit times, rounded up to a ps.
  // 65535 quanta x 512 bits x 10^12 ps/s overflows 64 bits: multiply in 128.
  static uint64_t duration_ps(uint16_t quanta, uint64_t rate_bps) {
    __extension__ typedef unsigned __int128 wide;
    return uint64_t((wide(quanta) * pfc_frame::quantum_bits * 1'000'000'000'000ull + rate_bps - 1) / rate_bps);
  }

  void apply(const pfc_frame& f, uint64_t effect_ps, uint64_t rate_bps) {
    if (!cls_) cls_ = std::make_unique<std::array<interval, 8>>();
    for (unsigned c = 0; c < 8; ++c) {
      if (!(f.class_enable >> c & 1)) continue;
      const uint64_t len = duration_ps(f.quanta[c], rate_bps);
      interval& i = (*cls_)[c];
      if (i.from <= effect_ps && effect_ps < i.until) {
        i.until = effect_ps + len;   // still paused: the new time replaces what was left
      } else {
        i.total += i.until - i.from;
        i.from = effect_ps;
        i.until = effect_ps + len;
      }
      if (wave) wave->interval(wave_id[c], i.from, i.until);
    }
  }
  // Priorities paused at t, bit per priority.
  uint8_t paused(uint64_t t) const {
    if (!cls_) return 0;
    uint8_t m = 0;
    for (unsigned c = 0; c < 8; ++c)
      if ((*cls_)[c].from <= t && t < (*cls_)[c].until) m |= uint8_t(1u << c);
    return m;
  }
  // When the earliest of the priorities in `mask` that are paused at t resumes on its own.
  uint64_t resumes(uint8_t mask, uint64_t t) const {
    uint64_t r = UINT64_MAX;
    if (!cls_) return r;
    for (unsigned c = 0; c < 8; ++c)
      if ((mask >> c & 1) && (*cls_)[c].from <= t && t < (*cls_)[c].until) r = std::min(r, (*cls_)[c].until);
    return r;
  }
  // When priority c's current pause took effect (meaningful while paused(t) has it): a refresh
  // before the pause ran out keeps it.
  uint64_t paused_since(unsigned c) const { return cls_ ? (*cls_)[c].from : 0; }
  // When priority c's last pause ends (or ended): 0 if it was never paused.
  uint64_t paused_until(unsigned c) const { return cls_ ? (*cls_)[c].until : 0; }
  // Total time priority c has been paused, up to t.
  uint64_t paused_ps(unsigned c, uint64_t t) const {
    if (!cls_) return 0;
    const interval& i = (*cls_)[c];
    const uint64_t end = std::min(i.until, t);
    return i.total + (end > i.from ? end - i.from : 0);
  }
  uint64_t frames_received = 0;
  // --vcd: each priority's pause as a level (null: not traced).
  wave_trace* wave = nullptr;
  std::array<uint32_t, 8> wave_id{};

 private:
  struct interval { uint64_t from = 0, until = 0, total = 0; };   // paused in [from, until)
  // Made at the first PAUSE received: most ports never receive one (no lossless priority, or no
  // congestion), and a fabric has one per switch port and NIC.
  std::unique_ptr<std::array<interval, 8>> cls_;
};

}  // namespace netasic
