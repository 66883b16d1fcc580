#include "nic/tcp/dctcp_alpha.h"

namespace netasic {

bool dctcp_alpha::on_ack(uint64_t acked, bool ece, uint64_t snd_una, uint64_t snd_nxt) {
  acked_ += acked;                 // step 3: DCTCP.BytesAcked
  if (ece) marked_ += acked;       // step 4: DCTCP.BytesMarked
  if (snd_una <= window_end_) return false;   // step 5: the observation window has not ended
  const double f = acked_ ? double(marked_) / double(acked_) : 0.0;   // step 6: M
  alpha_ = alpha_ * (1.0 - g_) + g_ * f;                               // step 7
  window_end_ = snd_nxt;           // step 8: the next window, counters reset
  acked_ = marked_ = 0;
  return true;
}

}  // namespace netasic
