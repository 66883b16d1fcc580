#include "workload/trace_reader.h"

#include <pcap/pcap.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <memory>
#include <tuple>

#include <fmt/format.h>

#include "common/file_io.h"
#include "common/params.h"
#include "protocol/wire.h"

namespace netasic {
namespace {

std::string dotted(uint32_t a) { return fmt::format("{}.{}.{}.{}", a >> 24, a >> 16 & 255, a >> 8 & 255, a & 255); }

bool parse_u64(const std::string& s, uint64_t max, uint64_t& v) {
  if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos) return false;
  v = std::stoull(s);
  return v <= max;
}

// "A.B.C.D" -> address; false if it is not one.
bool parse_ipv4(const std::string& s, uint32_t& a) {
  a = 0;
  size_t from = 0;
  for (int i = 0; i < 4; ++i) {
    const size_t dot = i < 3 ? s.find('.', from) : s.size();
    uint64_t octet = 0;
    if (dot == std::string::npos || !parse_u64(s.substr(from, dot - from), 255, octet)) return false;
    a = a << 8 | uint32_t(octet);
    from = dot + 1;
  }
  return true;
}

// Microseconds with up to six decimals, exactly in picoseconds.
bool parse_time_us(const std::string& s, uint64_t& ps) {
  const size_t dot = s.find('.');
  const std::string whole = s.substr(0, dot), frac = dot == std::string::npos ? "" : s.substr(dot + 1);
  uint64_t w = 0, f = 0;
  if (!parse_u64(whole, 1'000'000'000'000ull, w) || frac.size() > 6 || (!frac.empty() && !parse_u64(frac, 999999, f)))
    return false;
  for (size_t i = frac.size(); i < 6; ++i) f *= 10;
  ps = w * 1'000'000 + f;
  return true;
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  size_t from = 0;
  while (true) {
    const size_t c = line.find(',', from);
    std::string f = line.substr(from, c == std::string::npos ? std::string::npos : c - from);
    f.erase(0, f.find_first_not_of(" \t"));
    f.erase(f.find_last_not_of(" \t\r") + 1);
    out.push_back(f);
    if (c == std::string::npos) return out;
    from = c + 1;
  }
}

// One record of a list file: its fields, with the line number for errors.
struct list_row {
  size_t line;
  std::vector<std::string> fields;
};

// Lines of a list file: '#' comments and blank lines skipped, a first line that starts with a
// letter taken as the column names. Each row must have min..max fields.
std::vector<list_row> read_rows(const std::string& path, size_t min, size_t max, const char* columns) {
  std::ifstream in;
  if (!open_input(in, path)) throw config_error(fmt::format("{}: cannot open the trace", path));
  std::vector<list_row> rows;
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    if (rows.empty() && std::isalpha(static_cast<unsigned char>(line[first])) && n == 1) continue;
    list_row r{n, split_csv(line)};
    if (r.fields.size() < min || r.fields.size() > max)
      throw config_error(fmt::format("{}:{}: {} fields, expected {}", path, n, r.fields.size(), columns));
    rows.push_back(std::move(r));
  }
  return rows;
}

uint32_t host_field(const trace_source& s, const std::string& f, const std::string& where) {
  uint32_t addr = 0;
  if (parse_ipv4(f, addr)) return trace_host(s, addr, where);
  uint64_t h = 0;
  if (!parse_u64(f, UINT32_MAX, h)) throw config_error(fmt::format("{}: '{}' is neither a host number nor an IPv4 address", where, f));
  if (h >= s.hosts) throw config_error(fmt::format("{}: host {} does not exist (hosts are 0..{})", where, h, s.hosts - 1));
  return uint32_t(h);
}

uint64_t number(const std::string& f, uint64_t max, const std::string& where, const char* what) {
  uint64_t v = 0;
  if (!parse_u64(f, max, v)) throw config_error(fmt::format("{}: {} '{}' is not an integer in 0..{}", where, what, f, max));
  return v;
}

// Time, source and destination, common to both lists; the time must not go backwards.
void row_head(const trace_source& s, const list_row& r, uint64_t& last, uint64_t& t, uint32_t& src, uint32_t& dst) {
  const std::string where = fmt::format("{}:{}", s.path, r.line);
  if (!parse_time_us(r.fields[0], t))
    throw config_error(fmt::format("{}: time '{}' is not microseconds with at most six decimals", where, r.fields[0]));
  if (t < last)
    throw config_error(fmt::format("{}: time {} us goes backwards (the line before is at {:.6f} us)", where, r.fields[0], double(last) * 1e-6));
  last = t;
  src = host_field(s, r.fields[1], where);
  dst = host_field(s, r.fields[2], where);
  if (src == dst) throw config_error(fmt::format("{}: source and destination are both host {}", where, src));
}

// Payload of a listed frame: its bytes less the headers and FCS; a minimum-size frame is taken
// as a bare header (its padding cannot be told from a payload of a few bytes).
uint32_t listed_payload(const trace_packet& p, bool int_padding) {
  if (p.frame_bytes <= eth_header::min_frame_bytes) return 0;
  uint32_t over = eth_header::bytes + ipv4_header::bytes + eth_header::fcs_bytes;
  over += p.protocol == ipv4_header::proto_tcp ? tcp_header::bytes : udp_header::bytes;
  if (p.protocol == ipv4_header::proto_udp && p.dst_port == udp_header::rocev2_port)
    over += rocev2_bth::bytes + rocev2_bth::icrc_bytes + (int_padding ? int_stack::bytes : 0);
  return p.frame_bytes > over ? p.frame_bytes - over : 0;
}

// time_us,src,dst,frame_bytes[,protocol,src_port,dst_port[,ip_id,ecn]]
packet_trace read_packet_list(const trace_source& s, std::vector<uint32_t>* payload) {
  packet_trace out;
  uint64_t last = 0;
  for (const list_row& r : read_rows(s.path, 4, 9, "time_us,src,dst,frame_bytes[,protocol,src_port,dst_port[,ip_id,ecn]]")) {
    const std::string where = fmt::format("{}:{}", s.path, r.line);
    trace_packet p;
    row_head(s, r, last, p.time_ps, p.src, p.dst);
    p.frame_bytes = uint32_t(number(r.fields[3], 65535 + 18, where, "frame size"));
    if (p.frame_bytes < eth_header::min_frame_bytes)
      throw config_error(fmt::format("{}: a frame of {} bytes is below the 64-byte minimum", where, p.frame_bytes));
    if (r.fields.size() > 4) {
      p.protocol = uint8_t(number(r.fields[4], 255, where, "protocol"));
      if (p.protocol != ipv4_header::proto_tcp && p.protocol != ipv4_header::proto_udp)
        throw config_error(fmt::format("{}: protocol {} is neither TCP (6) nor UDP (17)", where, p.protocol));
      if (r.fields.size() < 7) throw config_error(fmt::format("{}: a protocol needs src_port and dst_port after it", where));
      p.src_port = uint16_t(number(r.fields[5], 65535, where, "source port"));
      p.dst_port = uint16_t(number(r.fields[6], 65535, where, "destination port"));
    }
    if (r.fields.size() == 8) throw config_error(fmt::format("{}: ip_id needs ecn after it", where));
    if (r.fields.size() == 9) {
      p.ip_id = uint16_t(number(r.fields[7], 65535, where, "ip_id"));
      p.ecn = uint8_t(number(r.fields[8], 3, where, "ecn"));
    }
    if (payload) payload->push_back(listed_payload(p, s.int_padding));
    out.push_back(p);
  }
  return out;
}

struct pcap_closer {
  void operator()(pcap_t* p) const { pcap_close(p); }
};

packet_trace read_pcap(const trace_source& s, uint64_t& skipped, std::vector<uint32_t>* payload) {
  char err[PCAP_ERRBUF_SIZE] = {};
  std::unique_ptr<pcap_t, pcap_closer> in(pcap_open_offline_with_tstamp_precision(s.path.c_str(), PCAP_TSTAMP_PRECISION_NANO, err));
  if (!in) throw config_error(fmt::format("{}: not a readable pcap file ({})", s.path, err));
  if (pcap_datalink(in.get()) != DLT_EN10MB)
    throw config_error(fmt::format("{}: link type {} is not Ethernet (DLT_EN10MB)", s.path, pcap_datalink_val_to_name(pcap_datalink(in.get()))));
  packet_trace out;
  pcap_pkthdr* h = nullptr;
  const u_char* data = nullptr;
  uint64_t first_ns = 0, last_ns = 0;
  std::string why;
  for (uint64_t n = 1;; ++n) {
    const int rc = pcap_next_ex(in.get(), &h, &data);
    if (rc == PCAP_ERROR_BREAK) break;
    const std::string where = fmt::format("{}: packet {}", s.path, n);
    if (rc != 1) throw config_error(fmt::format("{}: {}", where, pcap_geterr(in.get())));
    const uint64_t ns = uint64_t(h->ts.tv_sec) * 1'000'000'000ull + uint64_t(h->ts.tv_usec);
    if (n == 1) first_ns = last_ns = ns;
    if (ns < last_ns)
      throw config_error(fmt::format("{}: its time stamp goes {} ns backwards", where, last_ns - ns));
    last_ns = ns;
    parsed_frame f;
    if (!parse(data, h->caplen, h->len, s.int_padding, f, why)) throw config_error(fmt::format("{}: {}", where, why));
    if (!f.ipv4 || (f.p.ip.protocol != ipv4_header::proto_tcp && f.p.ip.protocol != ipv4_header::proto_udp)) {
      ++skipped;
      continue;
    }
    trace_packet p;
    p.time_ps = (ns - first_ns) * 1000;
    p.src = trace_host(s, f.p.ip.src, where);
    p.dst = trace_host(s, f.p.ip.dst, where);
    if (p.src == p.dst) throw config_error(fmt::format("{}: source and destination are both host {}", where, p.src));
    p.frame_bytes = f.wire_bytes;
    p.protocol = f.p.ip.protocol;
    p.src_port = f.p.l4_src_port();
    p.dst_port = f.p.l4_dst_port();
    p.ip_id = f.p.ip.identification;
    p.ecn = f.p.ip.ecn;
    if (payload) payload->push_back(f.p.payload_bytes);
    out.push_back(p);
  }
  return out;
}

// time_us,src,dst,size_bytes[,src_port]
std::vector<flow_spec> read_flow_list(const trace_source& s) {
  std::vector<flow_spec> out;
  uint64_t last = 0;
  for (const list_row& r : read_rows(s.path, 4, 5, "time_us,src,dst,size_bytes[,src_port]")) {
    const std::string where = fmt::format("{}:{}", s.path, r.line);
    flow_spec f{0, 0, 0, 0, 0};
    row_head(s, r, last, f.start_ps, f.src, f.dst);
    f.size_bytes = number(r.fields[3], UINT64_MAX >> 1, where, "size");
    if (f.size_bytes == 0) throw config_error(fmt::format("{}: a flow of 0 bytes", where));
    if (r.fields.size() == 5) f.src_port = uint16_t(number(r.fields[4], 65535, where, "source port"));
    out.push_back(f);
  }
  return out;
}

}  // namespace

uint32_t trace_host(const trace_source& s, uint32_t addr, const std::string& where) {
  const auto it = s.host_of.find(addr);
  const bool mapped = it != s.host_of.end();
  if (!mapped && (addr >> 24) != 10)
    throw config_error(fmt::format("{}: address {} maps to no host (not in traffic.trace_hosts, not in 10.0.0.0/8)", where, dotted(addr)));
  const uint32_t h = mapped ? it->second : host_of_ip(addr);
  if (h >= s.hosts)
    throw config_error(fmt::format("{}: address {} is host {}, but the topology has hosts 0..{}", where, dotted(addr), h, s.hosts - 1));
  return h;
}

packet_trace read_packet_trace(const trace_source& s, uint64_t& skipped, std::vector<uint32_t>* payload_bytes) {
  skipped = 0;
  if (s.format == trace_format::flows)
    throw config_error(fmt::format("{}: a flow list is no packet trace", s.path));
  return s.format == trace_format::pcap ? read_pcap(s, skipped, payload_bytes) : read_packet_list(s, payload_bytes);
}

std::vector<flow_spec> read_trace_flows(const trace_source& s, uint64_t& skipped) {
  skipped = 0;
  if (s.format == trace_format::flows) return read_flow_list(s);
  std::vector<uint32_t> payload;
  const packet_trace t = read_packet_trace(s, skipped, &payload);
  using five_tuple = std::tuple<uint32_t, uint32_t, uint8_t, uint16_t, uint16_t>;
  std::map<five_tuple, size_t> index;   // -> position in `out`
  std::vector<flow_spec> out;
  for (size_t i = 0; i < t.size(); ++i) {
    const trace_packet& p = t[i];
    if (payload[i] == 0) continue;
    const auto [it, fresh] = index.try_emplace(five_tuple{p.src, p.dst, p.protocol, p.src_port, p.dst_port}, out.size());
    if (fresh) out.push_back(flow_spec{0, p.src, p.dst, 0, p.time_ps, p.src_port});
    out[it->second].size_bytes += payload[i];
  }
  return out;   // in order of first packet, which is by start
}

trace_format parse_trace_format(const std::string& name, const std::string& path) {
  if (name == "pcap") return trace_format::pcap;
  if (name == "flows") return trace_format::flows;
  if (name == "packets") return trace_format::packets;
  for (const char* ext : {".pcap", ".pcapng", ".cap"}) {
    const std::string e = ext;
    if (path.size() > e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0) return trace_format::pcap;
  }
  throw config_error("traffic.trace_format: cannot tell the format of '" + path +
                     "' from its name (.pcap, .pcapng, .cap are pcap); set it to pcap, flows or packets");
}

}  // namespace netasic
