#include "nic/deter_record.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "common/file_io.h"

namespace netasic {
namespace {

constexpr char magic[] = "NETASIC-DETER1\n";

void put(std::string& out, uint64_t v) {   // LEB128
  do {
    uint8_t b = v & 0x7F;
    v >>= 7;
    out.push_back(char(v ? b | 0x80 : b));
  } while (v);
}

// Reads varints from a loaded file; a read past the end names the file and the field.
struct reader {
  const std::string& data;
  const std::string& path;
  size_t at = 0;
  uint64_t get(const char* field) {
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      if (at >= data.size()) throw std::runtime_error(path + ": truncated at byte " + std::to_string(at) + " (reading " + field + ")");
      const uint8_t b = uint8_t(data[at++]);
      v |= uint64_t(b & 0x7F) << shift;
      if (!(b & 0x80)) return v;
    }
    throw std::runtime_error(path + ": a malformed number at byte " + std::to_string(at) + " (" + field + ")");
  }
  uint64_t get(const char* field, uint64_t max) {
    const uint64_t v = get(field);
    if (v > max) throw std::runtime_error(path + ": " + field + " = " + std::to_string(v) + " at byte " + std::to_string(at) + " is out of range (at most " + std::to_string(max) + ")");
    return v;
  }
};

void put_sender(std::string& o, const deter_connection_record& c) {
  for (uint64_t v : {uint64_t(c.src), uint64_t(c.dst), uint64_t(c.src_port), uint64_t(c.dst_port), uint64_t(c.protocol),
                     uint64_t(c.dscp), uint64_t(c.ecn), c.packets, uint64_t(c.sizes.size())})
    put(o, v);
  for (const auto& [bytes, n] : c.sizes) {
    put(o, bytes);
    put(o, n);
  }
  put(o, c.samples.size());
  uint64_t index = 0, time = 0;
  for (const deter_sample& s : c.samples) {   // deltas: indices rise, times do not fall
    put(o, s.index - index);
    put(o, s.time_ps - time);
    put(o, s.rate);
    index = s.index;
    time = s.time_ps;
  }
}

void put_receiver(std::string& o, const deter_connection_record& c) {
  put(o, c.received);
  put(o, c.dropped.size());
  uint64_t last = 0;
  for (uint64_t d : c.dropped) {
    put(o, d - last);
    last = d;
  }
  put(o, c.reordered);
  o.append(c.ce.begin(), c.ce.end());
}

void get_sender(reader& r, deter_connection_record& c, uint32_t hosts) {
  c.src = uint32_t(r.get("src host", hosts - 1));
  c.dst = uint32_t(r.get("dst host", hosts - 1));
  c.src_port = uint16_t(r.get("src port", 65535));
  c.dst_port = uint16_t(r.get("dst port", 65535));
  c.protocol = uint8_t(r.get("protocol", 255));
  c.dscp = uint8_t(r.get("dscp", 63));
  c.ecn = uint8_t(r.get("ecn", 3));
  c.packets = r.get("packets");
  const uint64_t runs = r.get("size runs", c.packets);
  uint64_t total = 0;
  for (uint64_t i = 0; i < runs; ++i) {
    const uint32_t bytes = uint32_t(r.get("frame bytes", 65535));
    if (bytes < 64) throw std::runtime_error(r.path + ": a frame of " + std::to_string(bytes) + " bytes at byte " + std::to_string(r.at) + " (the minimum is 64)");
    c.sizes.push_back({bytes, r.get("size run length", c.packets)});
    total += c.sizes.back().second;
  }
  if (total != c.packets) throw std::runtime_error(r.path + ": connection " + std::to_string(c.src) + "->" + std::to_string(c.dst) + ": its sizes cover " + std::to_string(total) + " packets of " + std::to_string(c.packets));
  const uint64_t n = r.get("samples", c.packets);
  uint64_t index = 0, time = 0;
  for (uint64_t i = 0; i < n; ++i) {
    index += r.get("sample index");
    time += r.get("sample time");
    c.samples.push_back({index, time, r.get("sample rate")});
  }
  if (c.packets && (c.samples.empty() || c.samples.front().index != 0 || c.samples.back().index >= c.packets))
    throw std::runtime_error(r.path + ": connection " + std::to_string(c.src) + "->" + std::to_string(c.dst) + ": its samples do not cover its packets");
}

void get_receiver(reader& r, deter_connection_record& c) {
  c.received = r.get("received", c.packets);
  const uint64_t n = r.get("dropped", c.packets);
  uint64_t last = 0;
  for (uint64_t i = 0; i < n; ++i) {
    last += r.get("dropped index");
    if (last >= c.packets) throw std::runtime_error(r.path + ": a dropped index past the connection's packets at byte " + std::to_string(r.at));
    c.dropped.push_back(last);
  }
  c.reordered = r.get("reordered");
  const size_t bytes = size_t((c.received + 7) / 8);
  if (r.at + bytes > r.data.size()) throw std::runtime_error(r.path + ": truncated at byte " + std::to_string(r.at) + " (reading CE bits)");
  c.ce.assign(r.data.begin() + long(r.at), r.data.begin() + long(r.at + bytes));
  r.at += bytes;
}

}  // namespace

std::string deter_record::serialize(std::vector<uint64_t>* per_host) const {
  std::string o = magic;
  for (const auto& [k, v] : settings) o += k + " = " + v + "\n";
  o += "deter.hosts = " + std::to_string(hosts) + "\ndeter.th_ps = " + std::to_string(th_ps) + "\nend\n";
  if (per_host) per_host->assign(hosts, 0);
  put(o, conns.size());
  for (const deter_connection_record& c : conns) {
    size_t at = o.size();
    put_sender(o, c);
    if (per_host) (*per_host)[c.src] += o.size() - at;
    at = o.size();
    put_receiver(o, c);
    if (per_host) (*per_host)[c.dst] += o.size() - at;
  }
  return o;
}

deter_record deter_record::load(const std::string& path) {
  std::ifstream in;
  if (!open_input(in, path, std::ios::binary)) throw std::runtime_error(path + ": cannot open the DETER record");
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.compare(0, sizeof(magic) - 1, magic) != 0) throw std::runtime_error(path + ": not a DETER record (no NETASIC-DETER1 header)");
  deter_record rec;
  size_t at = sizeof(magic) - 1;
  for (int line = 2;; ++line) {
    const size_t end = data.find('\n', at);
    if (end == std::string::npos) throw std::runtime_error(path + ":" + std::to_string(line) + ": truncated header (no 'end' line)");
    const std::string text = data.substr(at, end - at);
    at = end + 1;
    if (text == "end") break;
    const size_t eq = text.find(" = ");
    if (eq == std::string::npos) throw std::runtime_error(path + ":" + std::to_string(line) + ": not 'key = value': " + text);
    const std::string key = text.substr(0, eq), value = text.substr(eq + 3);
    if (key == "deter.hosts") rec.hosts = uint32_t(std::stoul(value));
    else if (key == "deter.th_ps") rec.th_ps = std::stoull(value);
    else rec.settings.push_back({key, value});
  }
  if (rec.hosts == 0) throw std::runtime_error(path + ": key 'deter.hosts' missing from the header");
  reader r{data, path, at};
  rec.conns.resize(r.get("connections"));
  for (deter_connection_record& c : rec.conns) {
    get_sender(r, c, rec.hosts);
    get_receiver(r, c);
  }
  if (r.at != data.size()) throw std::runtime_error(path + ": " + std::to_string(data.size() - r.at) + " bytes after the last connection");
  return rec;
}

std::vector<packet_trace> deter_record::traces(const std::vector<uint64_t>& offset_ps) const {
  std::vector<packet_trace> out(hosts);
  for (const deter_connection_record& c : conns) {
    const std::vector<uint64_t> t = deter_sampler::times(c.samples, 0, c.packets);
    size_t run = 0, drop = 0;
    uint64_t left = c.sizes.empty() ? 0 : c.sizes[0].second;
    for (uint64_t i = 0; i < c.packets; ++i) {
      while (left == 0) left = c.sizes[++run].second;
      --left;
      trace_packet p;
      p.time_ps = t[i] + offset_ps[c.src];
      p.src = c.src;
      p.dst = c.dst;
      p.frame_bytes = c.sizes[run].first;
      p.protocol = c.protocol;
      p.src_port = c.src_port;
      p.dst_port = c.dst_port;
      p.ip_id = uint16_t(i);
      p.ecn = c.ecn;
      p.dscp = c.dscp;
      while (drop < c.dropped.size() && c.dropped[drop] < i) ++drop;
      p.drop_tag = drop < c.dropped.size() && c.dropped[drop] == i;
      out[c.src].push_back(p);
    }
  }
  for (packet_trace& h : out)
    std::stable_sort(h.begin(), h.end(), [](const trace_packet& a, const trace_packet& b) { return a.time_ps < b.time_ps; });
  return out;
}

}  // namespace netasic
