// The bytes of a frame on the wire: a packet's headers serialised in network order, and the
// reverse parse. Used by the pcap writer (docs/outputs.md) and the trace reader; the hop path
// never serialises. The layout of every frame kind is in docs/packet-protocol.md.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "protocol/packet.h"

namespace netasic {

struct wire {
  // EtherTypes the model's own frames use besides IPv4 and MAC control: sync-messages on the
  // IEEE 802 local experimental type, ERSPAN II inside GRE (mirror copies to a collector).
  static constexpr uint16_t ethertype_ipv4 = 0x0800, ethertype_vlan = 0x8100, ethertype_sync = 0x88B5,
                            ethertype_erspan = 0x88BE;
  static constexpr uint64_t pfc_dst_mac = 0x0180C2000001ull;   // 802.1Qbb: the MAC control address
  static constexpr uint8_t proto_gre = 47;
  static constexpr uint8_t bth_write_only = 0x0A, bth_ack = 0x11, bth_cnp = 0x81;
  static constexpr uint8_t aeth_ack = 0x00, aeth_nak_psn = 0x60;   // AETH syndromes (IBA 9.3.5)
  static constexpr uint32_t gre_bytes = 8, erspan_bytes = 8, sync_bytes = 25;
};

// The frame from the destination MAC to the last byte before the FCS (what a pcap of
// DLT_EN10MB holds), frame_bytes() - 4 bytes long: headers as the packet holds them, lengths and
// checksums computed, the payload as zero bytes, a short frame padded with zeros.
void serialise(const packet& p, std::vector<uint8_t>& out);

// RFC 1071 one's-complement sum over 16-bit words (an odd last byte padded with zero).
uint16_t internet_checksum(const uint8_t* data, size_t len, uint32_t sum = 0);
// RoCEv2's invariant CRC (IBA annex A17.4) over the IPv4 datagram at `ip`, `ip_len` bytes with
// the ICRC last: eight bytes of ones for the LRH, then the datagram with its variant fields (TOS,
// TTL, IPv4 and UDP checksums, BTH resv8a) as ones; HPCC's INT stack (`int_bytes` after UDP),
// which every hop rewrites, is left out.
uint32_t rocev2_icrc(const uint8_t* ip, size_t ip_len, size_t int_bytes = 0);

// What parse() recovers. `wire_bytes`: the frame with FCS, as the link counts it.
struct parsed_frame {
  packet p;
  uint32_t wire_bytes = 0;
  bool ipv4 = false;        // an IPv4 frame (the trace reader's only kind)
};

// Reads a frame of `len` bytes on the wire (without FCS), of which `caplen` were captured.
// `int_padding`: UDP frames to port 4791 carry HPCC's INT stack (the wire does not say).
// Returns false with `why` set when the headers are cut short or malformed; frames of other
// EtherTypes parse with ipv4 = false.
bool parse(const uint8_t* data, size_t caplen, size_t len, bool int_padding, parsed_frame& out, std::string& why);

}  // namespace netasic
