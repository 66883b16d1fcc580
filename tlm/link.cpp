#include "tlm/link.h"

namespace netasic {

uint64_t link_direction::pkt_transport(packet& p, uint64_t start_ps) {
  const uint32_t frame = p.frame_bytes();
  const uint64_t next_start = start_ps + timing_.occupancy_ps(frame);
  if (meter && !p.at_mac())   // the NIC's upstream meters, before the wire
    for (link_meter* m = meter; m; m = m->next) m->sent(p, start_ps);
  if (!up_) {
    ++counters_.dropped_down;
    on_drop(p);
    return next_start;
  }
  ++counters_.frames;
  counters_.bytes += frame;
  if (tap) tap->on_frame(p, start_ps);
  if (wave) {
    wave->set(wave_busy, start_ps, 1);
    wave->set(wave_busy, start_ps + timing_.wire_ps(frame + link_timing::preamble_bytes), 0);
    wave->set(wave_frames, start_ps, counters_.frames);
  }
  if (fault && !p.at_mac() && fault->draws.uniform() < fault->rate) {
    fault->on_loss(p);
    return next_start;
  }
  // Start times from one transmitter never go backwards, so neither do arrivals within a FIFO:
  // each stays sorted and only the earlier head needs a pending notification.
  if (p.at_mac()) {
    const uint64_t arrive = timing_.control_delivery_ps(start_ps, frame);
    control_.push_back({arrive, &p});
    arm(arrive);
  } else {
    p.rx_end_ps = start_ps + timing_.arrival_after_ps(frame);
    const uint64_t arrive = timing_.delivery_ps(start_ps, frame);
    fifo_.push_back({arrive, &p});
    arm(arrive);
  }
  return next_start;
}

void link_direction::arm(uint64_t at) {
  if (wake_.arm(at)) events_->schedule(at, *this);
}

void link_direction::deliver_due(ring_fifo<in_flight>& fifo, uint64_t now) {
  while (!fifo.empty() && fifo.front().arrive_ps <= now) {
    packet* p = fifo.front().p;
    fifo.pop_front();
    if (!p->at_mac()) {
      ++*hop_counter;
      for (link_meter* m = meter; m; m = m->next) m->arrived(*p, now);
    }
    out.receive(*p, now);
  }
}

void link_direction::wake(uint64_t now) {
  if (!wake_.fire(now)) return;   // superseded by an earlier wake-up for a control frame
  if (!control_.empty()) deliver_due(control_, now);   // most links never carry one
  deliver_due(fifo_, now);
  if (!control_.empty()) arm(control_.front().arrive_ps);
  if (!fifo_.empty()) {
    arm(fifo_.front().arrive_ps);
    // The next frame is handled at this link's next wake-up; start pulling it into the cache.
    __builtin_prefetch(fifo_.front().p);
    __builtin_prefetch(reinterpret_cast<const char*>(fifo_.front().p) + 64);
  }
}

void link_direction::fail_now(uint64_t now) {
  up_ = false;
  // The pending wake-up stays armed: it finds nothing due and re-arms for what comes later.
  auto lose = [&](ring_fifo<in_flight>& q, auto arrived) {
    q.keep_if([&](const in_flight& f) {
      if (arrived(f)) return true;
      ++counters_.lost_in_flight;
      on_drop(*f.p);
      return false;
    });
  };
  lose(fifo_, [now](const in_flight& f) { return f.p->rx_end_ps <= now; });
  lose(control_, [now](const in_flight& f) { return f.arrive_ps <= now; });
}

}  // namespace netasic
