#include "protocol/wire.h"

#include <algorithm>

namespace netasic {
namespace {

// Big-endian (network order) stores and loads.
void put(uint8_t* b, uint64_t v, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i) b[i] = uint8_t(v >> (8 * (bytes - 1 - i)));
}
uint64_t get(const uint8_t* b, unsigned bytes) {
  uint64_t v = 0;
  for (unsigned i = 0; i < bytes; ++i) v = v << 8 | b[i];
  return v;
}

void put_eth(uint8_t* b, uint64_t dst, uint64_t src, uint16_t type) {
  put(b, dst, 6);
  put(b + 6, src, 6);
  put(b + 12, type, 2);
}

// RFC 791 header without options; the model's packets are all version 4, IHL 5.
void put_ipv4(const ipv4_header& ip, uint8_t* b, uint32_t total, uint8_t protocol) {
  b[0] = 0x45;
  b[1] = uint8_t(ip.dscp << 2 | ip.ecn);
  put(b + 2, total, 2);
  put(b + 4, ip.identification, 2);
  put(b + 6, uint32_t(ip.flags) << 13 | ip.fragment_offset, 2);
  b[8] = ip.ttl;
  b[9] = protocol;
  put(b + 12, ip.src, 4);
  put(b + 16, ip.dst, 4);
  put(b + 10, internet_checksum(b, ipv4_header::bytes), 2);
}

// HPCC's INT stack (headers.h): nHop 4 and pathID 12, then max_hops 64-bit hop records.
void put_int(const int_stack& s, uint8_t* b) {
  put(b, uint32_t(s.n_hop) << 12 | s.path_id, 2);
  for (unsigned h = 0; h < int_stack::max_hops; ++h) {
    const int_hop& r = s.hop[h];
    put(b + 2 + h * int_hop::bytes,
        uint64_t(r.b) << 60 | uint64_t(r.ts) << 36 | uint64_t(r.tx_bytes) << 16 | r.qlen, 8);
  }
}

void put_bth(const rocev2_bth& t, uint8_t* b) {
  b[0] = t.opcode;
  b[1] = uint8_t(t.solicited << 7 | t.mig_req << 6 | t.pad_count << 4 | t.tver);
  put(b + 2, t.pkey, 2);
  b[4] = uint8_t(t.fecn << 7 | t.becn << 6 | t.resv6);
  put(b + 5, t.dest_qp, 3);
  b[8] = uint8_t(t.ack_req << 7 | t.resv7);
  put(b + 9, t.psn, 3);
}

uint32_t rocev2_int_bytes(const packet& p) { return p.int_enabled ? int_stack::bytes : 0; }
uint32_t rocev2_ext_bytes(pkt_kind k) {
  return k == pkt_kind::cnp ? rocev2_bth::cnp_reserved_bytes : k == pkt_kind::data ? 0 : rocev2_bth::aeth_bytes;
}

// IPv4, UDP, [INT], BTH, [AETH | CNP reserved], payload, ICRC.
void put_rocev2(const packet& p, uint8_t* ip) {
  const uint32_t in = rocev2_int_bytes(p), ext = rocev2_ext_bytes(p.kind);
  const uint32_t total = ipv4_header::bytes + udp_header::bytes + in + rocev2_bth::bytes + ext + p.payload_bytes +
                         rocev2_bth::icrc_bytes;
  put_ipv4(p.ip, ip, total, ipv4_header::proto_udp);
  uint8_t* u = ip + ipv4_header::bytes;
  put(u, p.udp.src_port, 2);
  put(u + 2, p.udp.dst_port, 2);
  put(u + 4, total - ipv4_header::bytes, 2);   // checksum 0: none, as RoCEv2 allows
  if (in) put_int(p.intx, u + udp_header::bytes);
  uint8_t* bth = u + udp_header::bytes + in;
  put_bth(p.bth, bth);
  if (p.kind == pkt_kind::ack || p.kind == pkt_kind::nak)   // MSN 0: the model counts no messages
    bth[rocev2_bth::bytes] = p.kind == pkt_kind::ack ? wire::aeth_ack : wire::aeth_nak_psn;
  const uint32_t icrc = rocev2_icrc(ip, total, in);
  for (unsigned i = 0; i < 4; ++i) ip[total - 4 + i] = uint8_t(icrc >> (8 * i));   // sent least significant byte first
}

// IPv4, TCP (no options), payload; the TCP checksum over the RFC 9293 pseudo-header.
void put_tcp(const packet& p, uint8_t* ip) {
  const uint32_t seg = tcp_header::bytes + p.payload_bytes, total = ipv4_header::bytes + seg;
  put_ipv4(p.ip, ip, total, ipv4_header::proto_tcp);
  uint8_t* t = ip + ipv4_header::bytes;
  put(t, p.tcp.src_port, 2);
  put(t + 2, p.tcp.dst_port, 2);
  put(t + 4, p.tcp.seq, 4);
  put(t + 8, p.tcp.ack, 4);
  t[12] = 5 << 4;
  t[13] = p.tcp.flags;
  put(t + 14, p.tcp.window, 2);
  put(t + 18, p.tcp.urgent, 2);
  uint8_t pseudo[12];
  std::copy(ip + 12, ip + 20, pseudo);
  pseudo[8] = 0;
  pseudo[9] = ipv4_header::proto_tcp;
  put(pseudo + 10, seg, 2);
  uint32_t sum = 0;
  for (unsigned i = 0; i < 12; i += 2) sum += uint32_t(get(pseudo + i, 2));
  put(t + 16, internet_checksum(t, tcp_header::bytes, sum), 2);   // the zero payload adds nothing
}

// 802.1Qbb: opcode, class-enable vector, eight pause times, padded to the minimum frame.
void put_pfc(const packet& p, uint8_t* b) {
  put_eth(b, wire::pfc_dst_mac, p.eth.src_mac, pfc_frame::ethertype);
  put(b + 14, pfc_frame::opcode, 2);
  put(b + 16, p.pfc.class_enable, 2);
  for (unsigned i = 0; i < 8; ++i) put(b + 18 + 2 * i, p.pfc.quanta[i], 2);
}

void put_sync(const packet& p, uint8_t* b) {
  put_eth(b, p.eth.dst_mac, p.eth.src_mac, wire::ethertype_sync);
  uint8_t* s = b + eth_header::bytes;
  s[0] = p.sync.algorithm;
  put(s + 1, p.sync.sender, 4);
  put(s + 5, p.sync.epoch, 4);
  put(s + 9, p.sync.root_sent_ps, 8);
  put(s + 17, uint64_t(p.sync.timestamp_ps), 8);
}

// A copy to a collector: IPv4/GRE (sequence number present)/ERSPAN type II around the copied
// frame, which the model does not keep (zeros). A copy to the CPU port is the bare frame.
void put_mirror(const packet& p, uint8_t* b) {
  if (p.ip.protocol != wire::proto_gre) {
    put_eth(b, p.eth.dst_mac, p.eth.src_mac, 0);
    return;
  }
  const uint32_t total = p.frame_bytes() - eth_header::bytes - eth_header::fcs_bytes;
  put_eth(b, p.eth.dst_mac, p.eth.src_mac, wire::ethertype_ipv4);
  uint8_t* ip = b + eth_header::bytes;
  put_ipv4(p.ip, ip, total, wire::proto_gre);
  uint8_t* g = ip + ipv4_header::bytes;
  put(g, 0x1000, 2);   // S: sequence number present, version 0
  put(g + 2, wire::ethertype_erspan, 2);
  put(g + 4, p.seq, 4);
  put(g + 8, 1u << 28, 4);   // ERSPAN version 1 (type II), VLAN 0, session 0
}

}  // namespace

uint16_t internet_checksum(const uint8_t* data, size_t len, uint32_t sum) {
  for (size_t i = 0; i + 1 < len; i += 2) sum += uint32_t(data[i] << 8 | data[i + 1]);
  if (len & 1) sum += uint32_t(data[len - 1]) << 8;
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return uint16_t(~sum);
}

uint32_t rocev2_icrc(const uint8_t* ip, size_t ip_len, size_t int_bytes) {
  static const auto table = [] {
    std::vector<uint32_t> t(256);
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t crc = 0xFFFFFFFFu;
  auto feed = [&](uint8_t byte) { crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8); };
  for (int i = 0; i < 8; ++i) feed(0xFF);   // the LRH a RoCEv2 frame does not carry, as ones
  const size_t udp = ipv4_header::bytes, bth = udp + udp_header::bytes + int_bytes;
  for (size_t i = 0; i + rocev2_bth::icrc_bytes < ip_len; ++i) {
    if (i >= udp + udp_header::bytes && i < bth) continue;   // HPCC's INT stack: rewritten per hop
    const bool variant = i == 1 || i == 8 || i == 10 || i == 11 ||   // IPv4 TOS, TTL, checksum
                         i == udp + 6 || i == udp + 7 || i == bth + 4;   // UDP checksum, BTH resv8a
    feed(variant ? 0xFF : ip[i]);
  }
  return ~crc;
}

void serialise(const packet& p, std::vector<uint8_t>& out) {
  out.assign(p.frame_bytes() - eth_header::fcs_bytes, 0);
  uint8_t* b = out.data();
  switch (p.kind) {
    case pkt_kind::pause: return put_pfc(p, b);
    case pkt_kind::sync: return put_sync(p, b);
    case pkt_kind::mirror: return put_mirror(p, b);
    default: break;
  }
  put_eth(b, p.eth.dst_mac, p.eth.src_mac, wire::ethertype_ipv4);
  if (p.is_tcp()) put_tcp(p, b + eth_header::bytes);
  else put_rocev2(p, b + eth_header::bytes);
}

}  // namespace netasic

namespace netasic {
namespace {

struct reader {
  const uint8_t* b;
  size_t caplen;
  std::string& why;
  bool need(size_t end, const char* what) {
    if (end <= caplen) return true;
    why = std::string(what) + " cut short (" + std::to_string(caplen) + " bytes captured, " + std::to_string(end) +
          " needed)";
    return false;
  }
};

void get_bth(const uint8_t* b, rocev2_bth& t) {
  t.opcode = b[0];
  t.solicited = b[1] >> 7 & 1;
  t.mig_req = b[1] >> 6 & 1;
  t.pad_count = b[1] >> 4 & 3;
  t.tver = b[1] & 15;
  t.pkey = uint16_t(get(b + 2, 2));
  t.fecn = b[4] >> 7 & 1;
  t.becn = b[4] >> 6 & 1;
  t.resv6 = b[4] & 63;
  t.dest_qp = uint32_t(get(b + 5, 3));
  t.ack_req = b[8] >> 7 & 1;
  t.resv7 = b[8] & 127;
  t.psn = uint32_t(get(b + 9, 3));
}

void get_int(const uint8_t* b, int_stack& s) {
  const uint32_t head = uint32_t(get(b, 2));
  s.n_hop = head >> 12 & 15;
  s.path_id = head & 0xFFF;
  for (unsigned h = 0; h < int_stack::max_hops; ++h) {
    const uint64_t v = get(b + 2 + h * int_hop::bytes, 8);
    s.hop[h].b = v >> 60 & 15;
    s.hop[h].ts = v >> 36 & 0xFFFFFF;
    s.hop[h].tx_bytes = v >> 16 & 0xFFFFF;
    s.hop[h].qlen = uint16_t(v);
  }
}

// UDP at `u` (`l4` bytes of datagram after the IPv4 header); RoCEv2 behind port 4791.
bool parse_udp(reader& r, size_t u, uint32_t l4, bool int_padding, packet& p) {
  if (!r.need(u + udp_header::bytes, "UDP header")) return false;
  p.udp.src_port = uint16_t(get(r.b + u, 2));
  p.udp.dst_port = uint16_t(get(r.b + u + 2, 2));
  p.udp.length = uint16_t(get(r.b + u + 4, 2));
  p.udp.checksum = uint16_t(get(r.b + u + 6, 2));
  p.payload_bytes = l4 - udp_header::bytes;
  if (p.udp.dst_port != udp_header::rocev2_port) return true;
  const uint32_t in = int_padding ? int_stack::bytes : 0;
  const size_t bth = u + udp_header::bytes + in;
  if (!r.need(bth + rocev2_bth::bytes + rocev2_bth::aeth_bytes, "RoCEv2 BTH")) return false;
  p.int_enabled = int_padding;
  if (in) get_int(r.b + u + udp_header::bytes, p.intx);
  get_bth(r.b + bth, p.bth);
  p.kind = p.bth.opcode == wire::bth_cnp ? pkt_kind::cnp
           : p.bth.opcode != wire::bth_ack ? pkt_kind::data
           : r.b[bth + rocev2_bth::bytes] == wire::aeth_ack ? pkt_kind::ack : pkt_kind::nak;
  const uint32_t over = udp_header::bytes + in + rocev2_bth::bytes + rocev2_ext_bytes(p.kind) + rocev2_bth::icrc_bytes;
  if (l4 < over) {
    r.why = "RoCEv2 datagram of " + std::to_string(l4) + " bytes is shorter than its headers";
    return false;
  }
  p.payload_bytes = l4 - over;
  return true;
}

bool parse_tcp(reader& r, size_t t, uint32_t l4, packet& p) {
  if (!r.need(t + tcp_header::bytes, "TCP header")) return false;
  p.tcp.src_port = uint16_t(get(r.b + t, 2));
  p.tcp.dst_port = uint16_t(get(r.b + t + 2, 2));
  p.tcp.seq = uint32_t(get(r.b + t + 4, 4));
  p.tcp.ack = uint32_t(get(r.b + t + 8, 4));
  p.tcp.data_offset = r.b[t + 12] >> 4;
  p.tcp.flags = r.b[t + 13];
  p.tcp.window = uint16_t(get(r.b + t + 14, 2));
  p.tcp.checksum = uint16_t(get(r.b + t + 16, 2));
  p.tcp.urgent = uint16_t(get(r.b + t + 18, 2));
  const uint32_t hdr = p.tcp.data_offset * 4u;
  if (hdr < tcp_header::bytes || hdr > l4) {
    r.why = "TCP data offset " + std::to_string(p.tcp.data_offset) + " does not fit the segment";
    return false;
  }
  p.payload_bytes = l4 - hdr;
  return true;
}

bool parse_ipv4(reader& r, size_t ip, size_t ip_room, bool int_padding, parsed_frame& out) {
  packet& p = out.p;
  if (!r.need(ip + ipv4_header::bytes, "IPv4 header")) return false;
  const uint8_t* b = r.b + ip;
  p.ip.version = b[0] >> 4;
  p.ip.ihl = b[0] & 15;
  p.ip.dscp = b[1] >> 2;
  p.ip.ecn = b[1] & 3;
  p.ip.total_length = uint16_t(get(b + 2, 2));
  p.ip.identification = uint16_t(get(b + 4, 2));
  p.ip.flags = uint16_t(get(b + 6, 2) >> 13);
  p.ip.fragment_offset = uint16_t(get(b + 6, 2) & 0x1FFF);
  p.ip.ttl = b[8];
  p.ip.protocol = b[9];
  p.ip.checksum = uint16_t(get(b + 10, 2));
  p.ip.src = uint32_t(get(b + 12, 4));
  p.ip.dst = uint32_t(get(b + 16, 4));
  const uint32_t hdr = p.ip.ihl * 4u;
  if (p.ip.version != 4 || hdr < ipv4_header::bytes || p.ip.total_length < hdr || p.ip.total_length > ip_room) {
    r.why = "malformed IPv4 header (version " + std::to_string(p.ip.version) + ", IHL " + std::to_string(p.ip.ihl) +
            ", total length " + std::to_string(p.ip.total_length) + " in " + std::to_string(ip_room) + " bytes)";
    return false;
  }
  out.ipv4 = true;
  p.prio = p.ip.dscp >> 3;
  const uint32_t l4 = p.ip.total_length - hdr;
  if (p.ip.protocol == ipv4_header::proto_udp) return parse_udp(r, ip + hdr, l4, int_padding, p);
  if (p.ip.protocol == ipv4_header::proto_tcp) return parse_tcp(r, ip + hdr, l4, p);
  if (p.ip.protocol == wire::proto_gre && l4 >= wire::gre_bytes + wire::erspan_bytes &&
      r.need(ip + hdr + wire::gre_bytes, "GRE header") && get(r.b + ip + hdr + 2, 2) == wire::ethertype_erspan) {
    p.kind = pkt_kind::mirror;
    p.seq = uint32_t(get(r.b + ip + hdr + 4, 4));
    p.payload_bytes = out.wire_bytes;
    return true;
  }
  p.payload_bytes = l4;
  return r.why.empty();
}

}  // namespace

bool parse(const uint8_t* data, size_t caplen, size_t len, bool int_padding, parsed_frame& out, std::string& why) {
  out = parsed_frame{};
  why.clear();
  reader r{data, std::min(caplen, len), why};
  if (!r.need(eth_header::bytes, "Ethernet header")) return false;
  out.wire_bytes = uint32_t(std::max<size_t>(len + eth_header::fcs_bytes, eth_header::min_frame_bytes));
  packet& p = out.p;
  p.eth.dst_mac = get(data, 6);
  p.eth.src_mac = get(data + 6, 6);
  size_t at = 12;
  uint16_t type = uint16_t(get(data + at, 2));
  if (type == wire::ethertype_vlan) {   // one 802.1Q tag: its PCP is the priority
    if (!r.need(18, "802.1Q tag")) return false;
    p.prio = data[14] >> 5;
    at += 4;
    type = uint16_t(get(data + at, 2));
  }
  p.eth.ethertype = type;
  const size_t body = at + 2;
  if (type == pfc_frame::ethertype) {
    if (!r.need(body + 20, "PFC frame")) return false;
    if (get(data + body, 2) != pfc_frame::opcode) return true;   // another MAC control frame
    p.kind = pkt_kind::pause;
    p.pfc.class_enable = uint8_t(get(data + body + 2, 2));
    for (unsigned i = 0; i < 8; ++i) p.pfc.quanta[i] = uint16_t(get(data + body + 4 + 2 * i, 2));
    return true;
  }
  if (type == wire::ethertype_sync) {
    if (!r.need(body + wire::sync_bytes, "sync-message")) return false;
    p.kind = pkt_kind::sync;
    p.sync.algorithm = data[body];
    p.sync.sender = uint32_t(get(data + body + 1, 4));
    p.sync.epoch = uint32_t(get(data + body + 5, 4));
    p.sync.root_sent_ps = get(data + body + 9, 8);
    p.sync.timestamp_ps = int64_t(get(data + body + 17, 8));
    p.payload_bytes = out.wire_bytes;
    return true;
  }
  if (type != wire::ethertype_ipv4) return true;
  return parse_ipv4(r, body, len - body, int_padding, out);
}

}  // namespace netasic
