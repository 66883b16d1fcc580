// A DETER record (thesis ch. 6, Table 6.1, the network part): per connection, what its sender
// logged (the rate sampler's samples and the frame sizes) and what its receiver logged (the
// packets missing from the consecutive IPv4 identifications, i.e. drops, the reordered ones, and
// one ECN CE bit per packet received). Core, no SystemC. The file format is documented in
// docs/outputs.md (deter.rec): a text header of the settings a replay must share with the run,
// then the connections in LEB128 varints.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "blocks/deter_sampler.h"
#include "workload/packet_trace.h"

namespace netasic {

struct deter_connection_record {
  // Sender side (counted to the source host's record).
  uint32_t src = 0, dst = 0;
  uint16_t src_port = 0, dst_port = 0;
  uint8_t protocol = 17, dscp = 0, ecn = 0;
  uint64_t packets = 0;                                // frames sent; IP_ID = index mod 2^16
  std::vector<std::pair<uint32_t, uint64_t>> sizes;    // frame bytes, run length
  std::vector<deter_sample> samples;
  // Receiver side (counted to the destination host's record).
  uint64_t received = 0;
  std::vector<uint64_t> dropped;                       // indices never received (IP_ID gaps)
  uint64_t reordered = 0;                              // received after a later index
  std::vector<uint8_t> ce;                             // 1 bit per packet received, LSB first
};

struct deter_record {
  // Settings the replay must share with the run ("key = value" as config.toml writes them).
  std::vector<std::pair<std::string, std::string>> settings;
  uint32_t hosts = 0;
  uint64_t th_ps = 0;
  std::vector<deter_connection_record> conns;

  // The file's bytes; `per_host` (if given) gets the bytes of each host's part of it.
  std::string serialize(std::vector<uint64_t>* per_host = nullptr) const;
  // Throws std::runtime_error naming `path` and what is wrong (missing, foreign, truncated, a
  // connection naming a host the header does not have).
  static deter_record load(const std::string& path);

  // Every host's reconstructed frames, sorted by time: times from the samples plus the host's
  // clock error (`offset_ps[src]`), the packets the receiver missed tagged drop_tag.
  std::vector<packet_trace> traces(const std::vector<uint64_t>& offset_ps) const;
};

}  // namespace netasic
