// DCTCP's congestion estimate at the sender (core, no SystemC): RFC 8257 section 3.3, steps
// 1-8. Bytes acknowledged and bytes acknowledged with ECE over one window of data give the
// fraction F of marked bytes; once per window alpha = (1 - g) alpha + g F.
#pragma once
#include <cstdint>

namespace netasic {

class dctcp_alpha {
 public:
  explicit dctcp_alpha(double g) : g_(g) {}
  // One ACK: `acked` new bytes (0 for a duplicate), `ece` its ECN-Echo flag; snd_una after it
  // and SND.NXT (the highest byte sent plus one). Returns true when alpha was updated.
  bool on_ack(uint64_t acked, bool ece, uint64_t snd_una, uint64_t snd_nxt);
  double alpha() const { return alpha_; }
  uint64_t window_end() const { return window_end_; }

 private:
  double g_;
  double alpha_ = 1.0;        // RFC 8257 section 3.3: DCTCP.Alpha starts at 1
  uint64_t acked_ = 0, marked_ = 0;
  uint64_t window_end_ = 0;   // DCTCP.WindowEnd
};

}  // namespace netasic
