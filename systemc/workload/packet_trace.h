// A packet-level traffic record: what a trace file (pcap or packet list) or a DETER record says
// each host put on its wire, and when. Replayed open-loop by the NICs, without a transport.
#pragma once
#include <cstdint>
#include <vector>

namespace netasic {

struct trace_packet {
  uint64_t time_ps = 0;        // the frame's first bit leaves the source host
  uint32_t src = 0, dst = 0;   // hosts (0..hosts-1)
  uint32_t frame_bytes = 0;    // Ethernet frame, header to FCS
  uint8_t protocol = 17;       // IPv4 protocol: 6 TCP, 17 UDP
  uint16_t src_port = 0, dst_port = 0;
  uint16_t ip_id = 0;          // IPv4 identification (consecutive per connection, as DETER reads it)
  uint8_t ecn = 0;             // IPv4 ECN field as sent
  uint8_t dscp = 0;            // IPv4 DSCP as sent (its class selector is the traffic class)
  bool drop_tag = false;       // DETER replay: the record saw this packet dropped
};

// Sorted by time_ps (ties: file order).
using packet_trace = std::vector<trace_packet>;

}  // namespace netasic
