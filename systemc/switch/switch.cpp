#include "switch/switch.h"

#include <fmt/format.h>

#include "tlm/regbus.h"

namespace netasic {

switch_model::switch_model(sc_core::sc_module_name name, unsigned id, unsigned ports, unsigned hosts,
                           const switch_config& cfg, run_stats& stats)
    : sc_core::sc_module(name),
      csr("csr"),
      id_(id),
      cfg_(cfg),
      stats_(stats),
      hash_(cfg.hash_bits == 16 ? crc_engine::crc16() : crc_engine::crc32()),
      routes_(id, ports, hosts, cfg.member_capacity),
      queue_(ports),
      buffer_(cfg.buffer_bytes) {
  for (unsigned p = 0; p < ports; ++p) {
    tx.push_back(std::make_unique<pkt_initiator_socket>(fmt::format("tx{}", p).c_str()));
    rx.push_back(std::make_unique<pkt_target_socket>(fmt::format("rx{}", p).c_str(), *this, p));
  }
  csr.register_b_transport(this, &switch_model::b_transport);
  seed_term_ = hash_.seed_term(cfg.hash_seed, tuple_bytes);
}

uint32_t switch_model::flow_hash(packet& p) const {
  // CRC is linear in its seed: crc(seed, key) = crc(0, key) ^ seed_term. The 5-tuple never
  // changes in flight, so its zero-seed CRC is computed at the first switch and carried along;
  // every switch then gets exactly the value it would compute itself.
  if (!p.tuple_crc_valid) {
    const uint8_t key[13] = {
        uint8_t(p.ip.src >> 24), uint8_t(p.ip.src >> 16), uint8_t(p.ip.src >> 8), uint8_t(p.ip.src),
        uint8_t(p.ip.dst >> 24), uint8_t(p.ip.dst >> 16), uint8_t(p.ip.dst >> 8), uint8_t(p.ip.dst),
        p.ip.protocol,
        uint8_t(p.udp.src_port >> 8), uint8_t(p.udp.src_port), uint8_t(p.udp.dst_port >> 8), uint8_t(p.udp.dst_port)};
    p.tuple_crc = hash_.compute(key, sizeof key, 0);
    p.tuple_crc_valid = true;
  }
  return p.tuple_crc ^ seed_term_;
}

void switch_model::drop(packet& p, uint64_t drop_counters::*reason) {
  ++(drops_.*reason);
  stats_.drop(p, reason);
}

void switch_model::pkt_receive(unsigned, packet& p, uint64_t now) {
  // The pipeline starts on the next clock edge; its latency is a whole number of cycles. All
  // ports share the latency, so frames reach the queues in the order they arrived.
  const uint64_t period = cfg_.clock_period_ps;
  const uint64_t ready = (now + period - 1) / period * period + pipeline_latency_ps();

  const int out = routes_.lookup(p.ip.dst & 0x00FFFFFFu, flow_hash(p));
  if (out < 0) return drop(p, &drop_counters::no_route);

  // Queues are drained to the current time only, so a probe sampled now still sees the frames
  // that leave between now and `ready`; admission looks ahead to `ready` without forgetting them.
  egress_queue& q = queue_[unsigned(out)];
  const uint32_t bytes = p.frame_bytes();
  buffer_.release(q.drain(now));
  if (cfg_.queue_limit_bytes && q.depth_at(ready) + bytes > cfg_.queue_limit_bytes)
    return drop(p, &drop_counters::queue_limit);
  if (!buffer_.fits(bytes)) {
    uint64_t leaving = 0;
    for (egress_queue& other : queue_) {
      buffer_.release(other.drain(now));
      leaving += other.held_bytes() - other.depth_at(ready);
    }
    if (!buffer_.fits(bytes, leaving)) return drop(p, &drop_counters::buffer_full);
  }
  // The link answers when the wire is free again; the buffer holds the frame until then.
  const uint64_t end = tx_if_[unsigned(out)]->pkt_transport(p, q.start_time(ready));
  buffer_.add(bytes);
  q.push(ready, end, bytes);
}

uint64_t switch_model::queue_depth(unsigned port, uint64_t t) {
  buffer_.release(queue_[port].drain(t));
  return queue_[port].depth_at(t);
}

uint64_t switch_model::buffer_used(uint64_t t) {
  uint64_t used = 0;
  for (unsigned p = 0; p < queue_.size(); ++p) used += queue_depth(p, t);
  return used;
}

void switch_model::end_of_elaboration() {
  // Resolve each port's link once; the per-packet path then makes one direct call.
  for (auto& s : tx) tx_if_.push_back(s->size() ? s->get_interface(0) : nullptr);
}

void switch_model::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
  if (!reg_access_ok(gp)) return;
  uint32_t* data = reinterpret_cast<uint32_t*>(gp.get_data_ptr());
  const uint32_t off = uint32_t(gp.get_address());
  const bool ok = gp.is_write() ? routes_.write(off, *data) : routes_.read(off, *data);
  gp.set_response_status(ok ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

}  // namespace netasic
