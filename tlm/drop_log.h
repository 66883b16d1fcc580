// The simulator's own record of every traffic drop: the packet, where, when and why. Kept only
// when something is scored against it (LossRadar, docs/datasheets/lossradar.md).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "protocol/packet.h"

namespace netasic {

struct drop_record {
  uint64_t t_ps = 0;
  uint32_t src = 0, dst = 0;        // IPv4
  uint16_t sport = 0, dport = 0, ip_id = 0;
  uint8_t proto = 0;
  bool syn = false;
  bool data = true;                 // a data packet (not an ACK, NAK or CNP): what FlowRadar counts
  std::string reason;               // a drop_counters field: buffer_full, link_fault, ...
  // Where: in a switch (index = switch index; the port it came in on, and the output port once
  // the ingress had chosen it, else -1), or on a link (index = link index; dir 0 from its end a
  // to b, 1 from b to a).
  bool on_link = false;
  unsigned index = 0;
  int in_port = -1, out_port = -1;
  uint8_t dir = 0;
  uint32_t last_meter = UINT32_MAX;  // LossRadar blackbox mode: the upstream meter the packet last passed
};

struct drop_log {
  std::vector<drop_record> records;
  void add(const packet& p, const char* reason, bool on_link, unsigned index, int in_port, int out_port, uint8_t dir,
           uint64_t t_ps) {
    drop_record r;
    r.t_ps = t_ps;
    r.src = p.ip.src;
    r.dst = p.ip.dst;
    r.sport = p.l4_src_port();
    r.dport = p.l4_dst_port();
    r.ip_id = p.ip.identification;
    r.proto = p.ip.protocol;
    r.syn = p.is_tcp() && (p.tcp.flags & tcp_header::flag_syn);
    r.data = p.kind == pkt_kind::data;
    r.reason = reason;
    r.on_link = on_link;
    r.index = index;
    r.in_port = in_port;
    r.out_port = out_port;
    r.dir = dir;
    r.last_meter = p.lr_meter;
    records.push_back(std::move(r));
  }
};

}  // namespace netasic
