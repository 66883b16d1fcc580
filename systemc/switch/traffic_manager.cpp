#include "switch/traffic_manager.h"

#include <algorithm>
#include <stdexcept>

namespace netasic {

traffic_manager::traffic_manager(const tm_config& cfg, unsigned ports)
    : cfg_(cfg), port_(ports), rng_(cfg.seed) {
  for (unsigned c = 0; c < num_priorities; ++c)
    if (lossless(c)) lossless_rank_[c] = uint8_t(lossless_count_++);
  ingress_.resize(size_t(ports) * lossless_count_);
  for (uint32_t q : cfg.quantum)
    if (q == 0) throw std::invalid_argument("traffic_manager: a DWRR quantum of 0 bytes would never serve its queue");
  cfg_.headroom_bytes.resize(ports, 0);   // ports without a value (recirculation) get none
  uint64_t reserved = 0;
  for (uint64_t h : cfg_.headroom_bytes) reserved += unsigned(__builtin_popcount(cfg.lossless)) * h;
  pool_ = cfg.buffer_bytes > reserved ? cfg.buffer_bytes - reserved : 0;
}

uint64_t traffic_manager::xoff_threshold() const {
  if (cfg_.xoff_bytes) return cfg_.xoff_bytes;
  return uint64_t(cfg_.xoff_fraction * double(pool_ - std::min(pool_, shared_used_)));
}

uint64_t traffic_manager::port_bytes(unsigned out) const { return port_[out].total; }

tm_verdict traffic_manager::enqueue(packet& p, unsigned out) {
  const uint32_t bytes = p.frame_bytes();
  port_queues& pq = port_[out];
  fifo& q = pq.q[p.prio];
  if (cfg_.lossless >> p.prio & 1) {
    if (const tm_verdict v = charge_lossless(p, bytes); v != tm_verdict::admitted) return v;
  } else if (cfg_.deter_drop_rule) {
    if (const tm_verdict v = deter_admit(p, q, bytes); v != tm_verdict::admitted) return v;
    shared_used_ += bytes;
  } else {
    if (cfg_.queue_limit_bytes && q.bytes + bytes > cfg_.queue_limit_bytes) return tm_verdict::queue_limit;
    if (shared_used_ + bytes > pool_) return tm_verdict::buffer_full;
    const double alpha = cfg_.alpha[p.prio];
    if (alpha > 0 && double(q.bytes + bytes) > alpha * double(pool_ - shared_used_))
      return tm_verdict::dynamic_threshold;
    shared_used_ += bytes;
  }
  p.next = nullptr;
  if (q.tail) q.tail->next = &p;
  else q.head = &p;
  q.tail = &p;
  q.bytes += bytes;
  pq.nonempty |= uint8_t(1u << p.prio);
  pq.total += bytes;
  pq.peak = std::max(pq.peak, pq.total);
  return tm_verdict::admitted;
}

tm_verdict traffic_manager::deter_admit(const packet& p, const fifo& q, uint32_t bytes) const {
  if (!p.deter_tag) return tm_verdict::admitted;   // never drop what the run delivered
  // The queue's limit: the tightest of the buffer's room, the dynamic threshold and the static
  // limit; the tagged frame goes only while the queue stays 5 MTU under it.
  const uint64_t free = pool_ - std::min(pool_, shared_used_);
  uint64_t limit = q.bytes + free;
  tm_verdict why = tm_verdict::buffer_full;
  const double alpha = cfg_.alpha[p.prio];
  if (alpha > 0 && alpha * double(free) < double(limit)) {
    limit = uint64_t(alpha * double(free));
    why = tm_verdict::dynamic_threshold;
  }
  if (cfg_.queue_limit_bytes && cfg_.queue_limit_bytes < limit) {
    limit = cfg_.queue_limit_bytes;
    why = tm_verdict::queue_limit;
  }
  return q.bytes + bytes + cfg_.deter_margin_bytes > limit ? why : tm_verdict::admitted;
}

tm_verdict traffic_manager::charge_lossless(const packet& p, uint32_t bytes) {
  ingress_count& in = ingress(p.in_port, p.prio);
  if (in.shared + bytes <= xoff_threshold() && shared_used_ + bytes <= pool_) {
    in.shared += bytes;
    shared_used_ += bytes;
  } else if (in.headroom + bytes <= cfg_.headroom_bytes[p.in_port]) {
    in.headroom += bytes;
    headroom_used_ += bytes;
  } else {
    return tm_verdict::headroom;
  }
  return tm_verdict::admitted;
}

void traffic_manager::refund(const packet& p, uint32_t bytes) {
  if (cfg_.lossless >> p.prio & 1) {
    // Headroom is paid back first, so the port can leave XOFF as soon as possible (as HPCC's
    // simulator does).
    ingress_count& in = ingress(p.in_port, p.prio);
    const uint64_t from_headroom = std::min<uint64_t>(in.headroom, bytes);
    in.headroom -= from_headroom;
    headroom_used_ -= from_headroom;
    in.shared -= bytes - from_headroom;
    shared_used_ -= bytes - from_headroom;
  } else {
    shared_used_ -= bytes;
  }
}

tm_verdict traffic_manager::hold(const packet& p) {
  const uint32_t bytes = p.frame_bytes();
  if (cfg_.lossless >> p.prio & 1) {
    if (const tm_verdict v = charge_lossless(p, bytes); v != tm_verdict::admitted) return v;
  } else {
    if (shared_used_ + bytes > pool_) return tm_verdict::buffer_full;
    shared_used_ += bytes;
  }
  held_ += bytes;
  return tm_verdict::admitted;
}

void traffic_manager::unhold(const packet& p) {
  const uint32_t bytes = p.frame_bytes();
  held_ -= bytes;
  refund(p, bytes);
}

packet* traffic_manager::pop(port_queues& pq, unsigned prio, bool mark) {
  fifo& q = pq.q[prio];
  packet* p = q.head;
  q.head = p->next;
  if (!q.head) {
    q.tail = nullptr;
    pq.nonempty &= uint8_t(~(1u << prio));
  } else {
    // The next dequeue reads the new head's length first, a serialization time from now: by
    // then its frame has usually left the cache, so start bringing it back.
    __builtin_prefetch(q.head);
    __builtin_prefetch(reinterpret_cast<const char*>(q.head) + 64);
  }
  p->next = nullptr;
  // RED on the depth the frame saw at the head of its queue, itself included.
  const ecn_profile& red = cfg_.ecn[prio];
  if (mark && red.enabled && (p->ip.ecn == 1 || p->ip.ecn == 2)) {
    const double prob = red.probability(q.bytes);
    if (prob >= 1.0 || (prob > 0.0 && rng_.uniform() < prob)) {
      p->ip.ecn = 3;
      ++pq.marked;
      ++ecn_marked_;
    }
  }
  const uint32_t bytes = p->frame_bytes();
  q.bytes -= bytes;
  pq.total -= bytes;
  refund(*p, bytes);
  return p;
}

unsigned traffic_manager::pick_dwrr(port_queues& pq, uint8_t eligible) {
  // Deficit round robin: on its turn a priority gains its quantum once and sends while the
  // deficit covers the head frame; then the turn passes on. An emptied queue forgets its deficit.
  for (;;) {
    // A priority with nothing eligible passes its turn at once: go straight to the next one
    // that has frames (the same turns, without stepping through the idle priorities).
    if (!(eligible >> pq.rr & 1)) {
      const uint8_t ahead = uint8_t(eligible >> pq.rr | eligible << (num_priorities - pq.rr));   // rotated to rr
      pq.rr = (pq.rr + unsigned(__builtin_ctz(ahead))) % num_priorities;
      pq.credited = false;
    }
    const unsigned prio = pq.rr;
    if (!pq.credited) {
      pq.deficit[prio] += cfg_.quantum[prio];
      pq.credited = true;
    }
    const uint32_t head = pq.q[prio].head->frame_bytes();
    if (pq.deficit[prio] >= int64_t(head)) {
      pq.deficit[prio] -= head;
      if (pq.q[prio].bytes == head) {   // this frame empties the queue
        pq.deficit[prio] = 0;
        pq.rr = (prio + 1) % num_priorities;
        pq.credited = false;
      }
      return prio;
    }
    pq.rr = (prio + 1) % num_priorities;
    pq.credited = false;
  }
}

packet* traffic_manager::dequeue(unsigned out, uint8_t paused) {
  port_queues& pq = port_[out];
  const uint8_t eligible = pq.nonempty & uint8_t(~paused);
  if (!eligible) return nullptr;
  const uint8_t strict = eligible & cfg_.strict;
  if (strict) return pop(pq, 31u - unsigned(__builtin_clz(strict)));   // highest priority first
  return pop(pq, pick_dwrr(pq, eligible));
}

packet* traffic_manager::take(unsigned out, unsigned prio) {
  port_queues& pq = port_[out];
  if (!pq.q[prio].head) return nullptr;
  packet* p = pop(pq, prio, false);
  if (!pq.q[prio].head) pq.deficit[prio] = 0;   // as an emptied queue forgets its deficit
  return p;
}

bool traffic_manager::holds_from(unsigned out, unsigned prio, unsigned in_port) const {
  for (const packet* p = port_[out].q[prio].head; p; p = p->next)
    if (p->in_port == in_port) return true;
  return false;
}

bool traffic_manager::xoff_due(unsigned in_port, unsigned prio) {
  if (!lossless(prio)) return false;
  ingress_count& in = ingress(in_port, prio);
  if (in.xoff) return false;
  if (in.headroom == 0 && in.shared < xoff_threshold()) return false;
  in.xoff = true;
  return true;
}

bool traffic_manager::xon_due(unsigned in_port, unsigned prio) {
  if (!lossless(prio)) return false;   // never in XOFF
  ingress_count& in = ingress(in_port, prio);
  if (!in.xoff || in.headroom) return false;
  const uint64_t thr = xoff_threshold();
  if (in.shared > 0 && in.shared + cfg_.xon_offset_bytes > thr) return false;   // empty: always resume
  in.xoff = false;
  return true;
}

}  // namespace netasic
