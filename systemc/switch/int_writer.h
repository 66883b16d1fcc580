// HPCC's INT at a switch's egress (core, no SystemC): when a frame is emitted, append one hop
// record and fold the switch ID into the path ID. Field widths are the hardware's; every counter
// is truncated to its field, so it wraps as the hardware's does:
//   TS       24 bits, ns               wraps every 16.8 ms
//   txBytes  20 bits, 128-byte units   wraps every 128 MiB sent
//   qLen     16 bits, 80-byte units    wraps above 5.2 MB (a P4 cast truncates; it does not saturate)
// A frame whose stack already holds max_hops records passes unchanged.
#pragma once
#include <cstdint>

#include "protocol/headers.h"

namespace netasic {

// Returns false when the stack was full.
inline bool int_push_hop(int_stack& s, unsigned switch_id, uint8_t speed_code, uint64_t emit_ps,
                         uint64_t port_tx_bytes, uint64_t port_queue_bytes) {
  if (s.n_hop >= int_stack::max_hops) return false;
  int_hop& h = s.hop[s.n_hop];
  h.b = speed_code & 0xF;
  h.ts = uint32_t(emit_ps / 1000) & 0xFFFFFFu;
  h.tx_bytes = uint32_t(port_tx_bytes / int_hop::tx_bytes_unit) & 0xFFFFFu;
  h.qlen = uint16_t(port_queue_bytes / int_hop::qlen_unit);
  s.n_hop = (s.n_hop + 1) & 0xF;
  s.path_id = (s.path_id ^ switch_id) & 0xFFF;
  return true;
}

}  // namespace netasic
