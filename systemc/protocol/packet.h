// The packet carried by the packet protocol: header structs plus the model's bookkeeping.
// Packets come from a pool and go back to it; nothing on the per-packet path allocates.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "common/huge_pages.h"
#include "protocol/headers.h"

namespace netasic {

// pause: a PFC frame; mirror: a switch's mirrored copy of a data frame (to its CPU port, or
// encapsulated to a collector host); cnp: RoCEv2 congestion notification (DCQCN); sync: a
// clock-synchronisation message (systemc/clock), sized like a mirror copy by payload_bytes
enum class pkt_kind : uint8_t { data, ack, nak, pause, mirror, cnp, sync };

struct packet {
  // Model bookkeeping, not on the wire. First, with the headers every hop reads after it, so a
  // hop touches two cache lines; the INT stack is last.
  pkt_kind kind = pkt_kind::data;
  bool int_enabled = false;         // carries the INT padding
  bool tuple_crc_valid = false;     // tuple_crc holds the 5-tuple's CRC with a zero seed
  bool ce_echo = false;             // an ACK/NAK: the data packet it answers arrived CE-marked
  bool conga_valid = false;         // carries a CONGA header (between leaves, lb.mode = conga)
  uint8_t prio = 0;                 // traffic class (IP DSCP class selector); set by the sender
  uint16_t in_port = 0;             // switch port the frame came in on (PFC ingress accounting)
  uint8_t passes = 0;               // pipeline passes taken in the current switch
  // Path tag (route_table.h, path table): which of its ToR pair's k shortest paths the frame
  // follows under topology.routing = "ksp". Pushed by the source ToR (flow hash mod the pair's
  // path count), matched at every hop, popped by the destination ToR; a fabric-internal label
  // like an MPLS or SRv6 segment, not serialised by wire.h.
  bool path_tagged = false;
  uint8_t path_id = 0;
  uint32_t flow = 0;                // flow id (also in bth.dest_qp's low bits)
  uint32_t seq = 0;                 // unwrapped packet sequence number within the flow
  uint32_t payload_bytes = 0;       // a mirrored copy: its whole frame (copy + encapsulation)
  uint32_t tuple_crc = 0;
  uint32_t path_sig = 0;            // data: a signature of the switches and ports it took
  uint16_t fc_stamp = 0;            // Flowcut header: send stamp (echoed by the ACK)
  uint16_t fc_bytes = 0;            // Flowcut: the data frame's bytes (echoed by the ACK)
  uint8_t hops = 0;                 // data: switches passed (Flowcut's hop count, echoed)
  bool fc_valid = false;            // carries the Flowcut header
  bool deter_tag = false;           // DETER replay: the record saw this packet dropped (tm_config::deter_drop_rule)
  uint8_t lr_batch = 0;             // LossRadar: batch ID written by the last upstream meter
  uint16_t lr_stamp_us = 0;         // LossRadar: that meter's 14-bit us timestamp (extended signature)
  uint32_t lr_meter = UINT32_MAX;   // LossRadar blackbox mode: the last upstream meter's ID (its segment)
  uint16_t misrouted_by = 0;        // faults.misroute: 1 + the last switch whose faulty entry sent it; back there = a loop
  packet* next = nullptr;           // intrusive list link (pool free list, switch queues)
  uint64_t rx_end_ps = 0;           // last bit in at the current receiver (cut-through)
  uint64_t sent_ps = 0;             // data: when the sender scheduled it; echoed by its ACK (RTT)

  ipv4_header ip{};
  udp_header udp{};
  eth_header eth{};
  rocev2_bth bth{};
  tcp_header tcp{};                 // a TCP segment (ip.protocol 6) carries this instead of UDP + BTH
  int_stack intx{};
  pfc_frame pfc{};
  conga_header conga{};
  sync_header sync{};
  // Data: the switches it passed, in order (switch ids; the first path_max of them). Last, so a
  // hop's one store here leaves the two lines it reads alone; read once at the receiver.
  static constexpr unsigned path_max = 8;
  uint16_t path_sw[path_max] = {};

  bool is_tcp() const { return ip.protocol == ipv4_header::proto_tcp; }
  // The L4 ports, whichever header carries them (the 5-tuple's last two fields).
  uint16_t l4_src_port() const { return is_tcp() ? tcp.src_port : udp.src_port; }
  uint16_t l4_dst_port() const { return is_tcp() ? tcp.dst_port : udp.dst_port; }

  // Handled beside the MAC (PFC, clock sync): past the receiver's packet pipeline.
  bool at_mac() const { return kind == pkt_kind::pause || kind == pkt_kind::sync; }

  // Bytes of the Ethernet frame (header to FCS), padded to the 64-byte minimum. A hop asks
  // several times (the link, the traffic manager's admission and dequeue, the egress), so data
  // frames, ACKs and NAKs, TCP or RoCEv2, are tested for first.
  uint32_t frame_bytes() const {
    if (kind > pkt_kind::nak) {
      if (kind == pkt_kind::pause) return pfc_frame::bytes;
      if (kind == pkt_kind::mirror || kind == pkt_kind::sync) return padded(payload_bytes);
    }
    if (is_tcp()) return padded(tcp_bytes + payload_bytes);
    return padded(roce_bytes + payload_bytes + after_bth_bytes[unsigned(kind)] + (int_enabled ? int_stack::bytes : 0));
  }

 private:
  // A frame without its payload and extensions: Ethernet, IPv4, TCP and FCS; or Ethernet, IPv4,
  // UDP, BTH, ICRC and FCS.
  static constexpr uint32_t tcp_bytes = eth_header::bytes + ipv4_header::bytes + tcp_header::bytes + eth_header::fcs_bytes;
  static constexpr uint32_t roce_bytes = eth_header::bytes + ipv4_header::bytes + udp_header::bytes +
                                         rocev2_bth::bytes + rocev2_bth::icrc_bytes + eth_header::fcs_bytes;
  // RoCEv2, by pkt_kind: an ACK or NAK carries an AETH after its BTH, a CNP 16 reserved bytes.
  static constexpr uint8_t after_bth_bytes[] = {0, rocev2_bth::aeth_bytes, rocev2_bth::aeth_bytes, 0, 0,
                                                rocev2_bth::cnp_reserved_bytes, 0};
  static_assert(sizeof after_bth_bytes == unsigned(pkt_kind::sync) + 1 && unsigned(pkt_kind::cnp) == 5 && unsigned(pkt_kind::nak) == 2,
                "one entry per pkt_kind, in its order");
  static uint32_t padded(uint32_t b) { return b < eth_header::min_frame_bytes ? eth_header::min_frame_bytes : b; }
};

// Fixed-block packet pool. Counts live packets so the run can check its accounting. A block
// is one huge page of packets (common/huge_pages.h): the frames in flight are a large fabric's
// biggest working set, and a hop's first touch of its frame is then seldom also a TLB miss.
class packet_pool {
  static_assert(std::is_trivially_destructible_v<packet>, "a block goes back without running destructors");

 public:
  packet* alloc() {
    if (!free_) grow();
    packet* p = free_;
    free_ = p->next;
    *p = packet{};
    ++live_;
    return p;
  }
  void release(packet* p) {
    p->next = free_;
    free_ = p;
    --live_;
  }
  uint64_t live() const { return live_; }
  // When the run is over: the packets' memory goes back; live() keeps its count. No packet
  // may be allocated, released or read afterwards.
  void free_blocks() {
    blocks_.clear();
    blocks_.shrink_to_fit();
    free_ = nullptr;
  }
  uint64_t capacity_bytes() const { return blocks_.size() * block * sizeof(packet); }   // shrinks only by free_blocks
  static constexpr size_t block = huge_page_bytes / sizeof(packet);   // packets per allocation

 private:
  void grow() {
    blocks_.push_back(huge_page_alloc(block * sizeof(packet)));
    packet* b = static_cast<packet*>(blocks_.back().get());
    std::uninitialized_default_construct_n(b, block);
    for (size_t i = 0; i < block; ++i) release_new(&b[i]);
  }
  void release_new(packet* p) {
    p->next = free_;
    free_ = p;
  }
  std::vector<huge_page_ptr> blocks_;
  packet* free_ = nullptr;
  uint64_t live_ = 0;
};

}  // namespace netasic
