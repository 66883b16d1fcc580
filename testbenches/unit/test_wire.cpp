// The wire format (protocol/wire.h): frames serialised and parsed back, checked against the
// standards' byte layouts with independent arithmetic (RFC 1071 sums, a bit-serial CRC-32).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "common/rng.h"
#include "protocol/wire.h"

using namespace netasic;

namespace {

uint32_t be(const std::vector<uint8_t>& b, size_t at, unsigned n) {
  uint32_t v = 0;
  for (unsigned i = 0; i < n; ++i) v = v << 8 | b[at + i];
  return v;
}

// RFC 1071 done the slow way: add 16-bit words in 32 bits, fold at the end.
uint16_t ones_sum(const std::vector<uint8_t>& b, size_t from, size_t len) {
  uint64_t s = 0;
  for (size_t i = 0; i < len; i += 2) s += uint32_t(b[from + i]) << 8 | (i + 1 < len ? b[from + i + 1] : 0);
  while (s > 0xFFFF) s = (s & 0xFFFF) + (s >> 16);
  return uint16_t(s);
}

// Bit-serial reflected CRC-32 (IEEE 802.3), the reference for the table-driven ICRC.
uint32_t crc32_bitwise(const std::vector<uint8_t>& d) {
  uint32_t c = 0xFFFFFFFFu;
  for (uint8_t byte : d) {
    c ^= byte;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1)));
  }
  return ~c;
}

packet random_packet(rng& r) {
  packet p;
  const pkt_kind kinds[] = {pkt_kind::data, pkt_kind::ack, pkt_kind::nak, pkt_kind::cnp, pkt_kind::data,
                            pkt_kind::pause, pkt_kind::sync, pkt_kind::mirror};
  p.kind = kinds[r.below(8)];
  p.eth.dst_mac = r.next() & 0xFFFFFFFFFFFFull;
  p.eth.src_mac = r.next() & 0xFFFFFFFFFFFFull;
  p.ip.version = 4;
  p.ip.ihl = 5;
  p.ip.dscp = uint8_t(r.below(64));
  p.ip.ecn = uint8_t(r.below(4));
  p.ip.identification = uint16_t(r.next());
  p.ip.flags = uint16_t(r.below(8));
  p.ip.fragment_offset = uint16_t(r.below(8192));
  p.ip.ttl = uint8_t(r.next());
  p.ip.src = uint32_t(r.next());
  p.ip.dst = uint32_t(r.next());
  p.payload_bytes = uint32_t(r.below(r.below(2) ? 64 : 9000));
  if (p.kind == pkt_kind::pause) {
    p.eth.ethertype = pfc_frame::ethertype;
    p.pfc.class_enable = uint8_t(r.next());
    for (uint16_t& q : p.pfc.quanta) q = uint16_t(r.next());
  } else if (p.kind == pkt_kind::sync) {
    p.sync = {uint8_t(r.next()), uint32_t(r.next()), uint32_t(r.next()), r.next(), int64_t(r.next())};
  } else if (p.kind == pkt_kind::mirror) {
    p.ip.protocol = wire::proto_gre;
    p.seq = uint32_t(r.next());
    p.payload_bytes = 64 + 54 + uint32_t(r.below(1500));
  } else if (p.kind == pkt_kind::data && r.below(2)) {   // a TCP segment
    p.ip.protocol = ipv4_header::proto_tcp;
    p.tcp = {uint16_t(r.next()), uint16_t(r.next()), uint32_t(r.next()), uint32_t(r.next()), 5, uint8_t(r.next()),
             uint16_t(r.next()), 0, uint16_t(r.next())};
  } else {
    p.ip.protocol = ipv4_header::proto_udp;
    p.udp.src_port = uint16_t(r.next());
    p.udp.dst_port = udp_header::rocev2_port;
    p.int_enabled = r.below(2);
    p.intx.n_hop = r.below(6);
    p.intx.path_id = uint16_t(r.below(4096));
    for (int_hop& h : p.intx.hop) h = {uint8_t(r.below(16)), uint32_t(r.below(1 << 24)), uint32_t(r.below(1 << 20)), uint16_t(r.next())};
    const uint8_t op[] = {wire::bth_write_only, wire::bth_ack, wire::bth_ack, wire::bth_cnp};
    p.bth.opcode = op[p.kind == pkt_kind::data ? 0 : p.kind == pkt_kind::ack ? 1 : p.kind == pkt_kind::nak ? 2 : 3];
    p.bth.solicited = r.below(2);
    p.bth.pad_count = r.below(4);
    p.bth.pkey = uint16_t(r.next());
    p.bth.fecn = r.below(2);
    p.bth.becn = r.below(2);
    p.bth.dest_qp = uint32_t(r.below(1 << 24));
    p.bth.ack_req = r.below(2);
    p.bth.psn = uint32_t(r.below(1 << 24));
    if (p.kind != pkt_kind::data) p.payload_bytes = 0;
  }
  return p;
}

}  // namespace

TEST(Wire, RoundTripsRandomPackets) {
  rng r(16);
  std::vector<uint8_t> bytes;
  std::string why;
  for (int i = 0; i < 20000; ++i) {
    const packet p = random_packet(r);
    serialise(p, bytes);
    ASSERT_EQ(bytes.size() + 4, p.frame_bytes());
    parsed_frame f;
    ASSERT_TRUE(parse(bytes.data(), bytes.size(), bytes.size(), p.int_enabled, f, why)) << i << ": " << why;
    const packet& q = f.p;
    SCOPED_TRACE(i);
    EXPECT_EQ(f.wire_bytes, p.frame_bytes());
    EXPECT_EQ(q.kind, p.kind);
    EXPECT_EQ(q.frame_bytes(), p.frame_bytes());
    EXPECT_EQ(q.eth.src_mac, p.eth.src_mac);
    if (p.kind == pkt_kind::pause) {
      EXPECT_EQ(q.eth.dst_mac, wire::pfc_dst_mac);
      EXPECT_EQ(q.pfc.class_enable, p.pfc.class_enable);
      EXPECT_EQ(0, std::memcmp(q.pfc.quanta, p.pfc.quanta, sizeof p.pfc.quanta));
      continue;
    }
    EXPECT_EQ(q.eth.dst_mac, p.eth.dst_mac);
    if (p.kind == pkt_kind::sync) {
      EXPECT_EQ(q.sync.algorithm, p.sync.algorithm);
      EXPECT_EQ(q.sync.sender, p.sync.sender);
      EXPECT_EQ(q.sync.epoch, p.sync.epoch);
      EXPECT_EQ(q.sync.root_sent_ps, p.sync.root_sent_ps);
      EXPECT_EQ(q.sync.timestamp_ps, p.sync.timestamp_ps);
      continue;
    }
    ASSERT_TRUE(f.ipv4);
    EXPECT_EQ(q.ip.dscp, p.ip.dscp);
    EXPECT_EQ(q.ip.ecn, p.ip.ecn);
    EXPECT_EQ(q.ip.identification, p.ip.identification);
    EXPECT_EQ(q.ip.flags, p.ip.flags);
    EXPECT_EQ(q.ip.fragment_offset, p.ip.fragment_offset);
    EXPECT_EQ(q.ip.ttl, p.ip.ttl);
    EXPECT_EQ(q.ip.protocol, p.ip.protocol);
    EXPECT_EQ(q.ip.src, p.ip.src);
    EXPECT_EQ(q.ip.dst, p.ip.dst);
    EXPECT_EQ(ones_sum(bytes, 14, 20), 0xFFFF);   // a correct header sums to all ones
    if (p.kind == pkt_kind::mirror) {
      EXPECT_EQ(q.seq, p.seq);
      continue;
    }
    EXPECT_EQ(q.payload_bytes, p.payload_bytes);
    EXPECT_EQ(q.l4_src_port(), p.l4_src_port());
    EXPECT_EQ(q.l4_dst_port(), p.l4_dst_port());
    if (p.is_tcp()) {
      EXPECT_EQ(q.tcp.seq, p.tcp.seq);
      EXPECT_EQ(q.tcp.ack, p.tcp.ack);
      EXPECT_EQ(q.tcp.flags, p.tcp.flags);
      EXPECT_EQ(q.tcp.window, p.tcp.window);
      EXPECT_EQ(q.tcp.urgent, p.tcp.urgent);
      continue;
    }
    EXPECT_EQ(q.int_enabled, p.int_enabled);
    if (p.int_enabled) {
      EXPECT_EQ(q.intx.n_hop, p.intx.n_hop);
      EXPECT_EQ(q.intx.path_id, p.intx.path_id);
      for (unsigned h = 0; h < int_stack::max_hops; ++h) {
        EXPECT_EQ(q.intx.hop[h].b, p.intx.hop[h].b);
        EXPECT_EQ(q.intx.hop[h].ts, p.intx.hop[h].ts);
        EXPECT_EQ(q.intx.hop[h].tx_bytes, p.intx.hop[h].tx_bytes);
        EXPECT_EQ(q.intx.hop[h].qlen, p.intx.hop[h].qlen);
      }
    }
    EXPECT_EQ(q.bth.opcode, p.bth.opcode);
    EXPECT_EQ(q.bth.solicited, p.bth.solicited);
    EXPECT_EQ(q.bth.pad_count, p.bth.pad_count);
    EXPECT_EQ(q.bth.pkey, p.bth.pkey);
    EXPECT_EQ(q.bth.fecn, p.bth.fecn);
    EXPECT_EQ(q.bth.becn, p.bth.becn);
    EXPECT_EQ(q.bth.dest_qp, p.bth.dest_qp);
    EXPECT_EQ(q.bth.ack_req, p.bth.ack_req);
    EXPECT_EQ(q.bth.psn, p.bth.psn);
  }
}

// A 1000-byte RoCEv2 write as the NIC builds it, byte by byte against IETF/IBA layouts.
TEST(Wire, RoceDataFrameLayout) {
  packet p;
  p.eth.dst_mac = 0x020000000005ull;
  p.eth.src_mac = 0x020000000002ull;
  p.ip = {4, 5, 3 << 3, 1, 0, 0x1234, 2, 0, 64, 17, 0, host_ip(2), host_ip(5)};
  p.udp.src_port = 50000;
  p.udp.dst_port = 4791;
  p.bth.opcode = 0x0A;
  p.bth.dest_qp = 0xABCDEF;
  p.bth.ack_req = 1;
  p.bth.psn = 0x123456;
  p.payload_bytes = 1000;
  std::vector<uint8_t> b;
  serialise(p, b);
  ASSERT_EQ(b.size(), 1058u);   // 1062-byte frame less the FCS (docs/packet-protocol.md)
  EXPECT_EQ(be(b, 0, 4), 0x02000000u);
  EXPECT_EQ(be(b, 4, 2), 0x0005u);
  EXPECT_EQ(be(b, 12, 2), 0x0800u);
  EXPECT_EQ(b[14], 0x45);
  EXPECT_EQ(b[15], (3 << 5) | 1);            // DSCP CS3, ECT(1)
  EXPECT_EQ(be(b, 16, 2), 1058u - 14);       // IPv4 total length
  EXPECT_EQ(be(b, 18, 2), 0x1234u);
  EXPECT_EQ(be(b, 20, 2), 0x4000u);          // DF
  EXPECT_EQ(b[22], 64);
  EXPECT_EQ(b[23], 17);
  EXPECT_EQ(be(b, 26, 4), 0x0A000002u);
  EXPECT_EQ(be(b, 30, 4), 0x0A000005u);
  EXPECT_EQ(be(b, 34, 2), 50000u);
  EXPECT_EQ(be(b, 36, 2), 4791u);
  EXPECT_EQ(be(b, 38, 2), 1058u - 34);       // UDP length
  EXPECT_EQ(be(b, 40, 2), 0u);               // no UDP checksum
  EXPECT_EQ(b[42], 0x0A);
  EXPECT_EQ(be(b, 47, 3), 0xABCDEFu);
  EXPECT_EQ(b[50], 0x80);
  EXPECT_EQ(be(b, 51, 3), 0x123456u);
  for (size_t i = 54; i < 1054; ++i) ASSERT_EQ(b[i], 0) << i;
  // ICRC: CRC-32 of 8 bytes of ones, then the datagram with TOS, TTL, both checksums and BTH
  // byte 4 set to ones, sent least significant byte first.
  std::vector<uint8_t> masked(8, 0xFF);
  masked.insert(masked.end(), b.begin() + 14, b.end() - 4);
  for (size_t at : {8 + 1, 8 + 8, 8 + 10, 8 + 11, 8 + 26, 8 + 27, 8 + 32}) masked[at] = 0xFF;
  const uint32_t icrc = crc32_bitwise(masked);
  EXPECT_EQ(b[1054] | b[1055] << 8 | b[1056] << 16 | uint32_t(b[1057]) << 24, icrc);
}

TEST(Wire, CrcReferenceIsTheStandardOne) {
  const std::string s = "123456789";
  EXPECT_EQ(crc32_bitwise(std::vector<uint8_t>(s.begin(), s.end())), 0xCBF43926u);   // the CRC-32 check value
}

TEST(Wire, TcpChecksumAndPadding) {
  packet p;
  p.ip = {4, 5, 0, 2, 0, 7, 2, 0, 64, 6, 0, host_ip(1), host_ip(3)};
  p.tcp = {40000, 80, 1000, 2000, 5, tcp_header::flag_ack, 65535, 0, 0};
  p.payload_bytes = 0;   // a pure ACK: 58 bytes, padded to 64
  std::vector<uint8_t> b;
  serialise(p, b);
  ASSERT_EQ(b.size(), 60u);
  EXPECT_EQ(be(b, 16, 2), 40u);   // IPv4 length excludes the padding
  EXPECT_EQ(b[46], 0x50);         // data offset 5
  EXPECT_EQ(b[47], 0x10);
  // Pseudo-header (src, dst, zero, protocol, TCP length) plus the segment sums to all ones.
  std::vector<uint8_t> v(b.begin() + 26, b.begin() + 34);
  v.insert(v.end(), {0, 6, 0, 20});
  v.insert(v.end(), b.begin() + 34, b.begin() + 54);
  EXPECT_EQ(ones_sum(v, 0, v.size()), 0xFFFF);
  for (size_t i = 54; i < 60; ++i) EXPECT_EQ(b[i], 0);
}

TEST(Wire, PfcFrameLayout) {
  packet p;
  p.kind = pkt_kind::pause;
  p.pfc.class_enable = 1 << 3;
  p.pfc.quanta[3] = 0xFFFF;
  std::vector<uint8_t> b;
  serialise(p, b);
  ASSERT_EQ(b.size(), 60u);
  EXPECT_EQ(be(b, 0, 4), 0x0180C200u);
  EXPECT_EQ(be(b, 4, 2), 0x0001u);
  EXPECT_EQ(be(b, 12, 2), 0x8808u);
  EXPECT_EQ(be(b, 14, 2), 0x0101u);
  EXPECT_EQ(be(b, 16, 2), 0x0008u);
  EXPECT_EQ(be(b, 18 + 6, 2), 0xFFFFu);
}

TEST(Wire, ParseRejectsCutFrames) {
  packet p;
  p.ip = {4, 5, 0, 0, 0, 0, 0, 0, 64, 17, 0, host_ip(1), host_ip(3)};
  p.udp.dst_port = 4791;
  p.payload_bytes = 100;
  std::vector<uint8_t> b;
  serialise(p, b);
  parsed_frame f;
  std::string why;
  EXPECT_FALSE(parse(b.data(), 10, b.size(), false, f, why));
  EXPECT_NE(why.find("Ethernet header cut short"), std::string::npos) << why;
  EXPECT_FALSE(parse(b.data(), 30, b.size(), false, f, why));
  EXPECT_NE(why.find("IPv4 header cut short"), std::string::npos) << why;
  EXPECT_FALSE(parse(b.data(), b.size(), 60, false, f, why));   // total length beyond the frame
  EXPECT_NE(why.find("malformed IPv4"), std::string::npos) << why;
  b[14] = 0x65;   // version 6
  EXPECT_FALSE(parse(b.data(), b.size(), b.size(), false, f, why));
}
