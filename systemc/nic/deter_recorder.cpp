#include "nic/deter_recorder.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "tlm/deter_queue_log.h"

namespace netasic {

deter_recorder::deter_recorder(unsigned hosts, uint64_t th_ps) : th_ps_(th_ps), pcap_(hosts, 24), last_read_(hosts, 0) {
  for (unsigned h = 0; h < hosts; ++h) {
    up_.push_back(std::make_unique<tap>(*this, h, true));
    down_.push_back(std::make_unique<tap>(*this, h, false));
  }
}

void deter_recorder::tap::on_frame(const packet& p, uint64_t start_ps) {
  // PFC and clock frames end at the MAC and mirrored copies are the switches': no connection's.
  if (p.kind == pkt_kind::pause || p.kind == pkt_kind::sync || p.kind == pkt_kind::mirror) return;
  r.pcap_[host] += 16 + p.frame_bytes();
  if (up) r.sent(host, p, start_ps);
  else r.received(p);
}

uint64_t deter_recorder::host_time(unsigned host, uint64_t t_ps) {
  if (!host_clock) return t_ps;
  const int64_t read = host_clock(host, t_ps);
  if (read > 0) last_read_[host] = std::max(last_read_[host], uint64_t(read));
  const uint64_t t = last_read_[host];
  clock_error_max_ps_ = std::max(clock_error_max_ps_, t > t_ps ? t - t_ps : t_ps - t);
  return t;
}

void deter_recorder::sent(unsigned host, const packet& p, uint64_t start_ps) {
  const uint64_t key = deter_connection(p);
  auto it = senders_.find(key);
  if (it == senders_.end()) {
    it = senders_.emplace(key, sender(th_ps_)).first;
    deter_connection_record& c = it->second.rec;
    c.src = host_of_ip(p.ip.src);
    c.dst = host_of_ip(p.ip.dst);
    c.src_port = p.l4_src_port();
    c.dst_port = p.l4_dst_port();
    c.protocol = p.ip.protocol;
    c.dscp = p.ip.dscp;
    c.ecn = p.ip.ecn;
  }
  sender& s = it->second;
  // The receiver reads drops from IP_ID gaps: the sender must number every frame of the
  // connection, retransmissions included, consecutively from 0.
  if (p.ip.identification != uint16_t(s.rec.packets))
    throw std::logic_error("DETER record: host " + std::to_string(s.rec.src) + " sent IP_ID " + std::to_string(p.ip.identification) +
                           " where " + std::to_string(uint16_t(s.rec.packets)) + " was due: its transport does not number frames consecutively");
  const uint32_t bytes = p.frame_bytes();
  if (s.rec.sizes.empty() || s.rec.sizes.back().first != bytes) s.rec.sizes.push_back({bytes, 0});
  ++s.rec.sizes.back().second;
  s.sampler.add(s.rec.packets++, host_time(host, start_ps));
}

void deter_recorder::received(const packet& p) {
  receiver& r = receivers_[deter_connection(p)];
  // Unwrap the 16-bit identification around the next one expected.
  const uint64_t id = r.next + uint64_t(int64_t(int16_t(uint16_t(p.ip.identification - uint16_t(r.next)))));
  if (id >= r.next) {
    for (uint64_t gap = r.next; gap < id; ++gap) r.missing.insert(gap);
    r.next = id + 1;
  } else if (r.missing.erase(id)) {
    ++r.reordered;   // came after a later one: reordered, not lost
  }
  if (r.received % 8 == 0) r.ce.push_back(0);
  if (p.ip.ecn == 3) r.ce.back() |= uint8_t(1u << (r.received % 8));
  ++r.received;
}

deter_record deter_recorder::finish(std::vector<std::pair<std::string, std::string>> settings) {
  deter_record rec;
  rec.settings = std::move(settings);
  rec.hosts = unsigned(up_.size());
  rec.th_ps = th_ps_;
  for (auto& [key, s] : senders_) {
    s.sampler.finish();
    deter_connection_record c = std::move(s.rec);
    c.samples = s.sampler.samples();
    auto r = receivers_.find(key);
    if (r != receivers_.end()) {
      c.received = r->second.received;
      c.dropped.assign(r->second.missing.begin(), r->second.missing.end());
      c.reordered = r->second.reordered;
      c.ce = std::move(r->second.ce);
    }
    rec.conns.push_back(std::move(c));
  }
  return rec;
}

}  // namespace netasic
