#include "blocks/flowlet_table.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>

namespace netasic {

namespace {
// The result built in the two registers it is returned in. GCC otherwise stores port and
// new_flowlet to the stack separately and loads them back as one 8-byte word, a load no single
// store can forward: a stall on every lookup (a fifth of the lookup's time in a profile).
static_assert(offsetof(flowlet_result, new_flowlet) == 4 && offsetof(flowlet_result, index) == 8);
flowlet_result flowlet_result_of(uint32_t port, bool new_flowlet, uint32_t index) {
  flowlet_result r;
  const uint64_t low = uint64_t(port) | uint64_t(new_flowlet) << 32;
  std::memcpy(&r, &low, sizeof low);
  r.index = index;
  return r;
}
}  // namespace

flowlet_table::flowlet_table(const flowlet_config& cfg) : cfg_(cfg) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("flowlet_table: " + what); };
  if (cfg.entries < 1) fail("entries must be at least 1");
  if (cfg.age_bits < 1 || cfg.age_bits > 16) fail("age_bits must be 1..16, got " + std::to_string(cfg.age_bits));
  if (cfg.clock_period_ps < 1) fail("clock_period_ps must be at least 1");
  if (cfg.delta_ps < cfg.clock_period_ps) fail("delta_ps must be at least one clock period");
  if (cfg.ports < 1) fail("ports must be at least 1");
  if (cfg.sweep_width < 1) fail("sweep_width must be at least 1");
  if (cfg.port_bits < 1 || cfg.port_bits > 32) fail("port_bits must be 1..32");
  life_ = uint64_t(1) << cfg.age_bits;
  if ((cfg.entries & (cfg.entries - 1)) == 0) index_mask_ = cfg.entries - 1;
  t_ = zeroed_array<slot>(cfg.entries);
  death_.assign(life_ + 1, {});
}

// A death (the life_-th visit after a touch) is never scheduled for the running sweep: a touch
// before the checker reaches the entry gives death sweep sweeps_ - 1 + life_ > sweeps_, a touch
// after it sweeps_ + life_. So the ring of life_ + 1 buckets never wraps onto a live one, and a
// bucket can be frozen and sorted when its sweep starts.
void flowlet_table::start_sweep() {
  ++sweeps_;
  ++count_.sweeps;
  active_ = true;
  pos_ = 0;
  std::vector<uint32_t>& b = death_[sweeps_ % (life_ + 1)];
  dying_.clear();
  dying_next_ = 0;
  for (uint32_t i : b)   // stale records: the entry was touched again or died since
    if (t_[i].valid && t_[i].v_touch + life_ == sweeps_) dying_.push_back(i);
  b.clear();
  std::sort(dying_.begin(), dying_.end());
}

// The running sweep visits entries pos_ .. p-1. Only the deaths need work; the other visits are
// the age increments that visits() accounts for. An entry on the list may have been hit since the
// sweep started (ahead of the checker), which moved its death to a later sweep.
void flowlet_table::visit_to(uint32_t p, uint64_t first_cycle) {
  while (dying_next_ < dying_.size() && dying_[dying_next_] < p) {
    const uint32_t index = dying_[dying_next_++];
    slot& e = t_[index];
    if (e.v_touch + life_ != sweeps_) continue;   // a packet came after the sweep started
    e.valid = false;
    ++count_.evictions;
    --count_.occupancy;
    if (wave) wave->set(wave_id, (first_cycle + (index - pos_) / cfg_.sweep_width) * cfg_.clock_period_ps, count_.occupancy);
  }
  pos_ = p;
  if (pos_ == cfg_.entries) {
    active_ = false;
    if (pending_) {   // the Delta boundary missed during this sweep: start at once
      pending_ = false;
      start_sweep();
    }
  }
}

void flowlet_table::advance_cycles(uint64_t c) {
  while (cycle_ < c) {
    const uint64_t trig = trigger_cycle(next_trigger_);
    if (trig <= cycle_) {   // == cycle_: the loop never steps past a boundary
      ++next_trigger_;
      if (active_) {
        ++count_.sweep_overruns;
        pending_ = true;
      } else {
        start_sweep();
      }
      continue;
    }
    if (!active_) {
      cycle_ = std::min(c, trig);
      continue;
    }
    // Lookups are in time order, so the only cycle ahead of the checker that can have lookups is
    // the one it is at.
    if (cycle_ == busy_cycle_ && busy_count_ >= cfg_.ports) {
      ++count_.sweep_conflicts;
      ++cycle_;
      continue;
    }
    // Free run: one row of sweep_width entries per cycle over [cycle_, stop). Boundaries inside it
    // find the sweep busy: overruns, all remembered by the one pending bit.
    // T_s < stop <=> s <= (stop - 1) P / Delta.
    const uint64_t w = cfg_.sweep_width;
    const uint64_t stop = std::min(c, cycle_ + (cfg_.entries - pos_ + w - 1) / w);
    if (trig < stop) {
      const uint64_t last = (stop - 1) * cfg_.clock_period_ps / cfg_.delta_ps;
      count_.sweep_overruns += last - next_trigger_ + 1;
      next_trigger_ = last + 1;
      pending_ = true;
    }
    const uint64_t n = stop - cycle_, first = cycle_;
    cycle_ = stop;
    visit_to(uint32_t(std::min<uint64_t>(cfg_.entries, pos_ + n * w)), first);
  }
}

uint64_t flowlet_table::cycle_at(uint64_t now_ps) {
  if (now_ps != last_now_) {   // the lanes of one cycle, and the advance to the next, divide once
    if (now_ps < last_now_) throw std::logic_error("flowlet_table: time went backwards");
    last_now_ = now_ps;
    last_cycle_ = now_ps / cfg_.clock_period_ps;
  }
  return last_cycle_;
}

void flowlet_table::advance(uint64_t now_ps) { advance_cycles(cycle_at(now_ps)); }

void flowlet_table::touch(uint32_t i, uint64_t v) {
  slot& e = t_[i];
  const bool same_death = e.valid && e.v_touch == v;
  e.v_touch = v;
  if (!same_death) death_[(v + life_) % (life_ + 1)].push_back(i);
}

flowlet_result flowlet_table::run(uint64_t hash, uint64_t now_ps, const choose_fn* choose, uint32_t new_port, uint64_t flow_id) {
  const uint64_t c = cycle_at(now_ps);
  advance_cycles(c);
  if (flow_id == flow_is_hash) flow_id = hash;
  const uint32_t i = uint32_t(index_mask_ ? hash & index_mask_ : hash % cfg_.entries);
  slot& e = t_[i];
  const uint64_t v = visits(i);
  // Valid means alive: deaths are applied as the checker passes. The port is chosen before any
  // state changes, so a choose function that throws leaves the table as it was.
  const bool hit = e.valid;
  const uint32_t port = hit ? e.port : choose ? (*choose)(e.written ? e.port : no_port) : new_port;

  if (busy_cycle_ == c) {
    ++busy_count_;
  } else {
    busy_cycle_ = c;
    busy_count_ = 1;
  }
  if (busy_count_ > cfg_.ports) ++count_.port_overflows;
  ++count_.lookups;
  if (hit) {
    if (flow_id != e.owner) {
      ++count_.collision_hits;
      if (!e.collided) {
        e.collided = true;
        ++count_.collisions;
      }
    }
    touch(i, v);
    return flowlet_result_of(port, false, i);
  }
  if (e.written && port != e.port) ++count_.path_changes;
  ++count_.new_flowlets;
  ++count_.occupancy;
  touch(i, v);   // while still invalid: a new life always gets its death scheduled
  e.valid = true;
  e.written = true;
  e.port = port;
  e.owner = flow_id;
  e.collided = false;
  return flowlet_result_of(port, true, i);
}

flowlet_result flowlet_table::lookup(uint64_t hash, uint64_t now_ps, uint32_t new_port, uint64_t flow_id) {
  return run(hash, now_ps, nullptr, new_port, flow_id);
}

flowlet_result flowlet_table::lookup_with(uint64_t hash, uint64_t now_ps, const choose_fn& choose, uint64_t flow_id) {
  if (!choose) throw std::invalid_argument("flowlet_table: empty choose function");
  return run(hash, now_ps, &choose, 0, flow_id);
}

flowlet_entry flowlet_table::entry(uint32_t index) const {
  if (index >= cfg_.entries)
    throw std::out_of_range("flowlet_table: index " + std::to_string(index) + " >= entries " + std::to_string(cfg_.entries));
  const slot& e = t_[index];
  return {e.valid, e.written, e.port, e.valid ? uint32_t(visits(index) - e.v_touch) : 0};
}

}  // namespace netasic
