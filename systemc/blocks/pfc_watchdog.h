// The PFC watchdog of one port (core, no SystemC), as switch operating systems ship it (SONiC's
// pfcwd, Junos's PFC watchdog): a lossless queue with frames waiting that the link partner has
// held paused for the detection time is in a PFC storm. The storm lasts while the pause does and
// for the restoration time after it ends; a PAUSE within that time keeps it going. Exact to the
// picosecond, where the shipped watchdogs poll. What a storm does to the queue (drop or forward)
// is the switch's.
#pragma once
#include <algorithm>
#include <cstdint>

#include "blocks/pfc_pause.h"

namespace netasic {

class pfc_watchdog {
 public:
  pfc_watchdog(uint64_t detect_ps, uint64_t restore_ps) : detect_ps_(detect_ps), restore_ps_(restore_ps) {}

  // The priorities in a storm at `now`. waiting: the lossless priorities with frames queued.
  // A storm that begins here is counted in storms_started.
  uint8_t storms(const pfc_pause& pause, uint8_t waiting, uint64_t now) {
    end_restored(pause, now);
    const uint8_t held = pause.paused(now) & waiting & uint8_t(~storm_);
    for (unsigned c = 0; c < 8; ++c)
      if ((held >> c & 1) && now >= pause.paused_since(c) + detect_ps_) {
        storm_ |= uint8_t(1u << c);
        ++storms_started;
      }
    return storm_;
  }
  // Whether priority c is in a storm at `now`, without starting one (a frame arriving for it).
  bool in_storm(const pfc_pause& pause, unsigned c, uint64_t now) {
    end_restored(pause, now);
    return storm_ >> c & 1;
  }
  // When the next storm can begin among the paused priorities in `waiting` (UINT64_MAX: none).
  uint64_t next_detection(const pfc_pause& pause, uint8_t waiting, uint64_t now) const {
    const uint8_t held = pause.paused(now) & waiting & uint8_t(~storm_);
    uint64_t due = UINT64_MAX;
    for (unsigned c = 0; c < 8; ++c)
      if (held >> c & 1) due = std::min(due, pause.paused_since(c) + detect_ps_);
    return due;
  }

  uint64_t storms_started = 0;

 private:
  // A storm ends once its priority has been unpaused for the restoration time.
  void end_restored(const pfc_pause& pause, uint64_t now) {
    if (!storm_) return;   // the common case, on every frame that arrives for the port
    const uint8_t paused = pause.paused(now);
    for (unsigned c = 0; c < 8; ++c)
      if ((storm_ >> c & 1) && !(paused >> c & 1) && now >= pause.paused_until(c) + restore_ps_)
        storm_ &= uint8_t(~(1u << c));
  }

  uint64_t detect_ps_, restore_ps_;
  uint8_t storm_ = 0;   // bit per priority
};

}  // namespace netasic
