// The flow scheduler's pacing credit for one queue pair (core, no SystemC): when the QP's next
// frame may start. A frame started at t with rate R lets the next start at t + (its wire time at
// R). A rate update re-times the frame not yet sent at once: the next start becomes t + (the
// same frame's wire time at the new rate), as HPCC's hardware scheduler does and as its authors'
// simulator does (ns-3 RdmaHw::ChangeRate: m_nextAvail += sz/new_rate - sz/old_rate).
#pragma once
#include <algorithm>
#include <cstdint>

#include "tlm/link.h"

namespace netasic {

class qp_pacer {
 public:
  // From the start of a `bytes` frame to the earliest start of the next, at `rate_bps`
  // (preamble and inter-frame gap included, rounded up to the next picosecond).
  static uint64_t gap_ps(uint32_t bytes, uint64_t rate_bps) { return link_timing{rate_bps}.occupancy_ps(bytes); }

  void reset() { *this = qp_pacer{}; }
  // A frame of `bytes` started at `start_ps` while the QP's rate was `rate_bps` (> 0).
  void sent(uint64_t start_ps, uint32_t bytes, uint64_t rate_bps) {
    next_ps_ = start_ps + gap_ps(bytes, rate_bps);
    rate_bps_ = rate_bps;
    bytes_ = bytes;
  }
  // The QP's rate is now `rate_bps` (> 0): the pending frame moves by the difference of the gaps.
  void retime(uint64_t rate_bps) {
    if (bytes_ == 0 || rate_bps == rate_bps_) return;
    // next_ps_ >= the old gap: it was set to a start plus that gap and has only been raised since.
    next_ps_ = next_ps_ - gap_ps(bytes_, rate_bps_) + gap_ps(bytes_, rate_bps);
    rate_bps_ = rate_bps;
  }
  // Nothing may start before `t_ps` (the CC module's new window is not out yet).
  void hold_until(uint64_t t_ps) { next_ps_ = std::max(next_ps_, t_ps); }

  uint64_t next_ps() const { return next_ps_; }
  uint64_t rate_bps() const { return rate_bps_; }

 private:
  uint64_t next_ps_ = 0;    // the next frame may start from here
  uint64_t rate_bps_ = 0;   // the rate next_ps_ was computed with
  uint32_t bytes_ = 0;      // the frame that set next_ps_ (0: none sent yet)
};

}  // namespace netasic
