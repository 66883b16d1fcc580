#include "switch/flowcut_stage.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace netasic {

flowcut_stage::flowcut_stage(const flowcut_config& cfg, const std::vector<bool>& host_port, const route_table& routes,
                             port_bytes_fn port_bytes, resubmit_fn resubmit, buffer_hooks buffer)
    : table_(cfg),
      host_port_(host_port),
      routes_(routes),
      port_bytes_(std::move(port_bytes)),
      resubmit_(std::move(resubmit)),
      buffer_(std::move(buffer)),
      pausing_(host_port.size(), 0) {
  if (cfg.hold_bytes && !buffer_.drop_full)
    throw std::invalid_argument("flowcut_stage: a bounded hold memory needs the switch's drop");
}

bool flowcut_stage::data(packet& p, uint32_t hash, uint32_t base, uint32_t size, uint64_t now, unsigned& out) {
  const bool ingress = host_facing(p.in_port);
  if (!ingress && table_.config().variant == flowcut_variant::ingress_only) {   // not tracked here: ECMP
    out = routes_.member(base + hash % size);
    return true;
  }
  if (held_.count(p.flow)) return hold(p, hash, base, size, now, out);   // behind its flow's held packets
  // A new Flowcut goes up the least-loaded port (Flowcut §II, fat trees); ties by the flow's hash.
  unsigned best = routes_.member(base + hash % size);
  for (uint32_t i = 1; i < size; ++i) {
    const unsigned m = routes_.member(base + (hash + i) % size);
    if (port_bytes_(m) < port_bytes_(best)) best = m;
  }
  const flowcut_data_result r = table_.on_data(p.flow, p.fc_bytes, now, p.in_port, uint16_t(best), ingress);
  switch (r.action) {
    case flowcut_action::forward:
      out = r.out_port;
      if (r.stamped) {
        p.fc_valid = true;
        p.fc_stamp = uint16_t(r.stamp);
      }
      return true;
    case flowcut_action::bypass:
      out = routes_.member(base + hash % size);
      return true;
    case flowcut_action::hold:
      if (r.table_full) full_.push_back(p.flow);
      return hold(p, hash, base, size, now, out);
  }
  return true;
}

bool flowcut_stage::hold(packet& p, uint32_t hash, uint32_t base, uint32_t size, uint64_t now, unsigned& out) {
  const uint32_t bytes = p.frame_bytes();
  const uint64_t limit = table_.config().hold_bytes;
  if (limit && held_bytes_ + bytes > limit) {
    ++hold_full_;
    if (table_.cancel_drain(p.flow)) {
      // Resume early (§IV-A): the flow goes on on its old path, its held packets first, so
      // nothing is reordered; it gives up this move.
      ++hold_full_resumes_;
      end_source_pause(p.flow, now);
      release(p.flow, now);
      return data(p, hash, base, size, now, out);
    }
    buffer_.drop_full(p);   // held for a table entry or at the in-flight limit: nothing to let go
    return false;
  }
  if (buffer_.hold && !buffer_.hold(p, now)) return false;   // the buffer refused it (dropped)
  held_[p.flow].push_back(&p);
  held_bytes_ += bytes;
  ++packets_held_;
  held_peak_bytes_ = std::max(held_peak_bytes_, held_bytes_);
  return false;
}

void flowcut_stage::ack(const packet& p, uint64_t now, unsigned& out) {
  // Ingress-only tables sit where the flow entered: the ACK is leaving towards that host.
  if (table_.config().variant == flowcut_variant::ingress_only && !host_facing(out)) return;
  const flowcut_ack_result r = table_.on_ack(p.flow, p.fc_bytes, p.fc_stamp, p.hops, now);
  if (r.reverse_port >= 0) out = unsigned(r.reverse_port);   // full switch: back the data's way
  if (r.pause && table_.config().source_pause && buffer_.source_pause && host_facing(out)) {
    // The ACK goes back to the source: pause it there while the flow drains (§II-B).
    ++source_pauses_;
    paused_by_[p.flow] = out;
    if (pausing_[out]++ == 0) buffer_.source_pause(out, true, now);
  }
  if (r.resume) {
    end_source_pause(p.flow, now);
    release(p.flow, now);
  }
  if (r.freed && !full_.empty()) {
    std::vector<uint64_t> waiting;
    waiting.swap(full_);
    for (uint64_t f : waiting) release(f, now);
  }
}

void flowcut_stage::end_source_pause(uint64_t flow, uint64_t now) {
  const auto it = paused_by_.find(flow);
  if (it == paused_by_.end()) return;
  const unsigned port = it->second;
  paused_by_.erase(it);
  if (--pausing_[port] == 0) buffer_.source_pause(port, false, now);
}

void flowcut_stage::release(uint64_t flow, uint64_t now) {
  // The held packets go through the table again, oldest first; one that is held again keeps
  // the rest behind it.
  const auto it = held_.find(flow);
  if (it == held_.end()) return;
  std::deque<packet*> q;
  q.swap(it->second);
  held_.erase(it);
  for (packet* p : q) {
    held_bytes_ -= p->frame_bytes();
    if (buffer_.unhold) buffer_.unhold(*p);
    resubmit_(*p, now);
  }
}

}  // namespace netasic
