// DETER's queue probe (thesis ch. 6 §6.5.4): for every packet at every switch, the bytes its
// egress queue held when it arrived (or that it was dropped there). Kept in the record run and in
// the replay alike, so the two can be matched packet by packet (run/deter_replay.*). Written to
// the run directory as deter_queues.bin (docs/outputs.md).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "protocol/packet.h"

namespace netasic {

// A connection as DETER keys it: the 5-tuple, with the addresses as host numbers (the protocol
// is left out: a host pair's UDP and TCP connections use distinct ports).
inline uint64_t deter_connection(const packet& p) {
  return uint64_t(host_of_ip(p.ip.src) & 0xFFFF) << 48 | uint64_t(host_of_ip(p.ip.dst) & 0xFFFF) << 32 |
         uint64_t(p.l4_src_port()) << 16 | p.l4_dst_port();
}

struct deter_hop {
  uint64_t conn = 0;          // deter_connection()
  uint16_t ip_id = 0;         // IPv4 identification: the packet within its connection
  uint16_t sw = 0;            // switch index
  uint16_t port = 0;          // egress port
  uint8_t prio = 0;
  uint8_t dropped = 0;        // 1: the traffic manager refused it here
  uint32_t queue_bytes = 0;   // its egress queue (that priority) before it, in bytes
  uint32_t time_us = 0;       // when it met that queue, in whole us (saturating)
};
static_assert(sizeof(deter_hop) == 24, "deter_queues.bin stores 24-byte records");

class deter_queue_log {
 public:
  void add(const packet& p, unsigned sw, unsigned port, uint64_t queue_bytes, bool dropped, uint64_t now_ps) {
    deter_hop h;
    h.conn = deter_connection(p);
    h.ip_id = p.ip.identification;
    h.sw = uint16_t(sw);
    h.port = uint16_t(port);
    h.prio = p.prio;
    h.dropped = dropped;
    h.queue_bytes = uint32_t(queue_bytes < UINT32_MAX ? queue_bytes : UINT32_MAX);
    h.time_us = uint32_t(now_ps / 1'000'000 < UINT32_MAX ? now_ps / 1'000'000 : UINT32_MAX);
    hops.push_back(h);
  }
  std::vector<deter_hop> hops;   // in the order the switches saw them

  // "NETASIC-DETERQ2\n", the record count (8 bytes, little-endian), then the records as above.
  std::string serialize() const;
  // Throws std::runtime_error naming `path` for a missing, foreign, older or truncated file.
  static deter_queue_log load(const std::string& path);
  // The same checks from the header and the file's size alone, before a replay runs.
  static void check(const std::string& path);
};

}  // namespace netasic
