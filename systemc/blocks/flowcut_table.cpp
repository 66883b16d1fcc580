#include "blocks/flowcut_table.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace netasic {
namespace {

void flowcut_fail(const std::string& what) { throw std::invalid_argument("flowcut_table: " + what); }

// floor(x / 2^k) for negative x too (>> on a negative value is implementation-defined in C++17).
int64_t floor_shift(int64_t x, unsigned k) {
  const int64_t d = int64_t(1) << k;
  return x >= 0 ? x / d : -((-x + d - 1) / d);
}

int16_t clamp16(int64_t x) { return int16_t(x > 32767 ? 32767 : x < -32768 ? -32768 : x); }

}  // namespace

flowcut_table::flowcut_table(const flowcut_config& cfg) : cfg_(cfg) {
  if (uint8_t(cfg.variant) > uint8_t(flowcut_variant::nic_only)) flowcut_fail("variant out of range");
  if (uint8_t(cfg.when_full) > uint8_t(flowcut_full_policy::bypass)) flowcut_fail("when_full out of range");
  if (cfg.capacity < 1) flowcut_fail("capacity must be at least 1");
  if (cfg.key_bytes < 1) flowcut_fail("key_bytes must be at least 1");
  if (cfg.port_bytes != 1 && cfg.port_bytes != 2) flowcut_fail("port_bytes must be 1 or 2");
  if (cfg.inflight_bits < 8 || cfg.inflight_bits > 31) flowcut_fail("inflight_bits must be 8..31");
  if (!(cfg.rtt_ratio_threshold >= 1.0 && cfg.rtt_ratio_threshold < 256.0)) flowcut_fail("rtt_ratio_threshold must be in [1, 256)");
  if (!(cfg.rtt_diff_threshold >= 0.0 && cfg.rtt_diff_threshold < 128.0)) flowcut_fail("rtt_diff_threshold must be in [0, 128)");
  if (cfg.ewma_shift > 15) flowcut_fail("ewma_shift must be 0..15");
  if (cfg.stamp_bits < 8 || cfg.stamp_bits > 32) flowcut_fail("stamp_bits must be 8..32");
  if (cfg.stamp_unit_ps < 1) flowcut_fail("stamp_unit_ps must be at least 1");
  if (cfg.link_rate_gbps < 1) flowcut_fail("link_rate_gbps must be at least 1");
  stamp_mask_ = cfg.stamp_bits == 32 ? 0xFFFFFFFFu : (1u << cfg.stamp_bits) - 1;
  port_limit_ = 1u << (8 * cfg.port_bytes);
  inflight_max_ = (1u << cfg.inflight_bits) - 1;
  // Thresholds are Q8.8 words in the table, like the averages they are compared with.
  t_ratio_ = uint32_t(std::lround(cfg.rtt_ratio_threshold * 256));
  t_diff_ = uint32_t(std::lround(cfg.rtt_diff_threshold * 256));
  table_.reserve(cfg.capacity);
}

flowcut_data_result flowcut_table::hold(uint32_t bytes, flowcut_data_result r) {
  r.action = flowcut_action::hold;
  ++count_.packets_held;
  count_.bytes_held += bytes;
  return r;
}

flowcut_data_result flowcut_table::on_data(uint64_t key, uint32_t bytes, uint64_t now_ps, uint16_t in_port,
                                           uint16_t candidate_port, bool ingress) {
  if (bytes < 1) throw std::invalid_argument("flowcut_table: a data packet has at least 1 byte");
  if (bytes > inflight_max_) throw std::invalid_argument("flowcut_table: packet larger than the in-flight counter");
  if (in_port >= port_limit_ || candidate_port >= port_limit_)
    throw std::invalid_argument("flowcut_table: port does not fit port_bytes");
  ++count_.data_packets;
  count_.data_bytes += bytes;
  flowcut_data_result r;
  auto it = table_.find(key);
  if (it == table_.end()) {
    if (table_.size() >= cfg_.capacity) {
      ++count_.table_full;
      r.table_full = true;
      if (cfg_.when_full == flowcut_full_policy::hold) return hold(bytes, r);
      ++count_.bypassed;
      r.action = flowcut_action::bypass;
      return r;
    }
    flowcut_entry e;
    e.out_port = candidate_port;
    e.in_port = cfg_.variant == flowcut_variant::full_switch ? in_port : 0;
    e.ingress = cfg_.variant != flowcut_variant::full_switch || ingress;
    it = table_.emplace(key, e).first;
    ++count_.flowcuts;
    r.new_flowcut = true;
    if (table_.size() > count_.peak_entries) count_.peak_entries = table_.size();
  } else {
    // A draining flow sends nothing until its last ACK is back; that is the in-order guarantee.
    if (it->second.draining) return hold(bytes, r);
    if (uint64_t(it->second.inflight) + bytes > inflight_max_) {
      ++count_.inflight_limit;
      return hold(bytes, r);
    }
  }
  flowcut_entry& e = it->second;
  e.inflight += bytes;
  r.action = flowcut_action::forward;
  r.out_port = e.out_port;
  if (e.ingress) {
    r.stamped = true;
    r.stamp = stamp_of(now_ps);
  }
  ++count_.forwarded;
  return r;
}

flowcut_ack_result flowcut_table::on_ack(uint64_t key, uint32_t bytes, uint32_t stamp, unsigned hops, uint64_t now_ps) {
  if (bytes < 1) throw std::invalid_argument("flowcut_table: an ACK acknowledges at least 1 byte");
  ++count_.acks;
  flowcut_ack_result r;
  auto it = table_.find(key);
  if (it == table_.end()) {
    ++count_.acks_unmatched;
    return r;
  }
  flowcut_entry& e = it->second;
  r.matched = true;
  if (cfg_.variant == flowcut_variant::full_switch) r.reverse_port = e.in_port;

  if (e.ingress) {
    // RTT from the stamp (modulo the header's width), less the serialisation of this packet on
    // each hop, so a larger packet does not look like queueing (§II-B). At least 1 unit.
    hops &= 15;
    const uint32_t raw = (stamp_of(now_ps) - stamp) & stamp_mask_;
    const uint64_t tx = uint64_t(bytes) * 8 * hops * 1000 / cfg_.link_rate_gbps / cfg_.stamp_unit_ps;
    const uint32_t rtt = raw > tx ? uint32_t(raw - tx) : 1;
    uint32_t& mr = min_rtt_[hops];
    if (mr == 0 || rtt < mr) mr = rtt;
    const uint64_t n = uint64_t(rtt) * 256 / mr;
    r.measured = true;
    r.rtt = rtt;
    r.normalized_q8 = uint32_t(n > 0xFFFF ? 0xFFFF : n);
    ++count_.rtt_samples;
  }

  if (bytes > e.inflight) {
    ++count_.ack_underflows;
    e.inflight = 0;
  } else {
    e.inflight -= bytes;
  }
  if (e.inflight == 0) {
    // Nothing in flight: the Flowcut ends; the flow's next packet may take another path.
    r.freed = true;
    ++count_.freed;
    if (e.draining) {
      r.resume = true;
      r.drain_ps = now_ps - e.drain_start_ps;
      ++count_.drains_completed;
      count_.drain_time_ps += r.drain_ps;
    }
    table_.erase(it);
    return r;
  }

  if (r.measured) {
    const int64_t n = r.normalized_q8;
    if (e.avg_q8 == 0) {   // first sample of this Flowcut
      e.avg_q8 = uint16_t(n);
      e.last_q8 = uint16_t(n);
      e.diff_avg_q8 = 0;
    } else {
      e.avg_q8 = uint16_t(e.avg_q8 + floor_shift(n - e.avg_q8, cfg_.ewma_shift));
      e.diff_avg_q8 = clamp16(e.diff_avg_q8 + floor_shift((n - e.last_q8) - e.diff_avg_q8, cfg_.ewma_shift));
      e.last_q8 = uint16_t(n);
    }
    if (!e.draining) {
      r.ratio_trigger = e.avg_q8 > t_ratio_;
      r.diff_trigger = t_diff_ > 0 && e.diff_avg_q8 > int64_t(t_diff_);
      if (r.ratio_trigger || r.diff_trigger) {
        e.draining = true;
        e.drain_start_ps = now_ps;
        r.pause = true;
        ++count_.drains;
        count_.ratio_triggers += r.ratio_trigger;
        count_.diff_triggers += r.diff_trigger;
      }
    }
  }
  return r;
}

bool flowcut_table::cancel_drain(uint64_t key) {
  auto it = table_.find(key);
  if (it == table_.end() || !it->second.draining) return false;
  it->second.draining = false;
  ++count_.drains_cancelled;
  return true;
}

std::optional<flowcut_entry> flowcut_table::entry(uint64_t key) const {
  auto it = table_.find(key);
  if (it == table_.end()) return std::nullopt;
  return it->second;
}

uint32_t flowcut_entry_bytes(flowcut_variant v, uint32_t port_bytes) {
  const uint32_t ports = v == flowcut_variant::full_switch ? 2 * port_bytes : port_bytes;
  return ports + 3 + 2 + 4;
}

uint32_t flowcut_table::entry_bytes() const { return flowcut_entry_bytes(cfg_.variant, cfg_.port_bytes); }

uint32_t flowcut_table::global_bytes() const { return 16 * ((cfg_.stamp_bits + 7) / 8); }

uint64_t flowcut_table::memory_bytes() const {
  return uint64_t(cfg_.capacity) * (cfg_.key_bytes + entry_bytes()) + global_bytes();
}

uint64_t flowcut_active_flows_per_host(const flowcut_memory_model& m) {
  if (m.mtu_bytes < 1) throw std::invalid_argument("flowcut_memory_model: mtu_bytes must be at least 1");
  // Bits in flight per host: B [Gb/s] * L [ps] / 1000; packets: ceil(bits / (8 * MTU)).
  const uint64_t bits = uint64_t(m.bandwidth_gbps) * m.latency_ps / 1000;
  const uint64_t packets = (bits + 8ull * m.mtu_bytes - 1) / (8ull * m.mtu_bytes);
  return packets < m.flows_per_host ? packets : m.flows_per_host;
}

uint64_t flowcut_active_flows(const flowcut_memory_model& m, flowcut_variant v) {
  const uint64_t per_host = flowcut_active_flows_per_host(m);
  switch (v) {
    case flowcut_variant::full_switch: return m.hosts * per_host;
    case flowcut_variant::ingress_only: return m.hosts_per_tor * per_host;
    case flowcut_variant::nic_only: return per_host;
  }
  throw std::invalid_argument("flowcut_active_flows: variant out of range");
}

uint64_t flowcut_memory_bytes(const flowcut_memory_model& m, flowcut_variant v, uint32_t port_bytes) {
  return flowcut_active_flows(m, v) * flowcut_entry_bytes(v, port_bytes);
}

}  // namespace netasic
