#include "clock/sync_sim.h"

#include "common/stats.h"

#include <algorithm>
#include <cmath>

#include "clock/clock_faults.h"

namespace netasic {

namespace {
double ns(int64_t ps) { return double(ps) / 1e3; }
}  // namespace

sync_sim::sync_sim(const clock_world& w, clock_algorithm alg, uint8_t index, sync_transport* transport,
                   std::vector<uint32_t>& fault_root)
    : w_(w), cfg_(w.cfg), alg_(alg), index_(index), transport_(transport), fault_root_(fault_root) {
  for (const oscillator_config& oc : w.osc) osc_.push_back(std::make_unique<oscillator>(oc));
  dead_.assign(w.n, 0);
  link_down_.assign(w.topo.links.size(), 0);
  for (unsigned li = 0; li < w.topo.links.size(); ++li) link_down_[li] = w.topo.links[li].failed;
  epoch_.assign(w.n, w.root);
  last_sync_.assign(w.n, never);
  pending_.assign(w.n, {});
  cur_root_ = w.root;
  res_.algorithm = alg;
  for (auto* series : {&res_.epsilon_ps, &res_.offset_ps, &res_.offset_ideal_ps}) {
    series->assign(w.n, {});
    for (auto& v : *series) v.reserve(w.samples.size());
  }
  local_.assign(w.n, 0);
}

uint32_t sync_sim::lowest_live_switch(uint64_t t) const {
  for (unsigned s : w_.topo.switches)
    if (healthy(s, t)) return s;
  return none;
}

// ---- bound checks and failure bookkeeping ---------------------------------------------------------

void sync_sim::check(uint32_t u, uint64_t t) {
  if (dead_[u] || evicted(u) || is_root(u)) return;
  const int64_t eps = epsilon(u, t);
  if (eps != no_bound) judge(u, t, eps, offset(u, t));
}

void sync_sim::judge(uint32_t u, uint64_t t, int64_t eps, int64_t off) {
  if (dead_[u] || evicted(u) || is_root(u) || eps == no_bound) return;
  const int64_t mag = off < 0 ? -off : off;
  if (broken(u, t)) {   // its own promise is void until it is evicted (§3.4.4 Practical considerations)
    if (mag > eps) ++res_.broken_clock_violations;
    return;
  }
  if (broken(epoch_[u], t)) return;
  ++res_.bound_checks;
  if (mag > eps) ++res_.bound_violations;
  if (eps > 0) res_.worst_offset_over_epsilon = std::max(res_.worst_offset_over_epsilon, double(mag) / double(eps));
  max_abs_offset_ = std::max(max_abs_offset_, mag);
}

void sync_sim::synced(uint32_t u, uint64_t t, int64_t eps_before, uint32_t epoch, uint64_t root_sent) {
  if (eps_before != no_bound && healthy(u, t)) note_peak(u, eps_before);   // the sawtooth's top
  epoch_[u] = epoch;
  std::vector<uint32_t>& p = pending_[u];
  for (size_t i = 0; i < p.size();) {
    tracked& f = fails_[p[i]];
    if (eps_before != no_bound) peak(f.r, u, eps_before);
    if (root_sent < f.r.at_ps || epoch == f.failed_root) {   // sent before the failure: the outage starts later
      f.last_before[u] = t;
      ++i;
      continue;
    }
    ++f.r.recovered;
    impact(f, u, t);
    if (f.last_before[u] != never) {
      const uint64_t outage = t - f.last_before[u];
      f.r.min_outage_ps = f.r.outage_known ? std::min(f.r.min_outage_ps, outage) : outage;
      f.r.max_outage_ps = std::max(f.r.max_outage_ps, outage);
      f.r.outage_known = true;
    }
    f.r.min_resync_ps = f.r.recovered == 1 ? t - f.r.at_ps : std::min(f.r.min_resync_ps, t - f.r.at_ps);
    if (t - f.r.at_ps >= f.r.resync_ps) {
      f.r.resync_ps = t - f.r.at_ps;
      f.r.slowest = w_.topo.nodes[u].name;
    }
    p[i] = p.back();
    p.pop_back();
  }
  last_sync_[u] = t;
}

// The largest epsilon of healthy devices, overall and by depth, at samples and at arrivals.
void sync_sim::note_peak(uint32_t u, int64_t eps) {
  eps_max_ = std::max(eps_max_, eps);
  const uint32_t d = depth(u);
  if (d == none) return;
  if (d >= by_depth_.size()) by_depth_.resize(d + 1, 0);
  by_depth_[d] = std::max(by_depth_[d], eps);
}

void sync_sim::peak(clock_failure_result& r, uint32_t u, int64_t eps) {
  if (eps <= r.peak_epsilon_ps && !r.peak_device.empty()) return;
  r.peak_epsilon_ps = eps;
  r.peak_device = w_.topo.nodes[u].name;
  r.peak_epsilon_base_ps = int64_t(eps_base(u));
}

// u went without a valid sync-message from its last one before the failure (or the failure) to t.
void sync_sim::impact(tracked& f, uint32_t u, uint64_t t) {
  const uint64_t dt = t - (f.last_before[u] != never ? f.last_before[u] : f.r.at_ps);
  f.r.impacted_ps += dt;
  if (w_.is_switch(u)) f.r.impacted_switch_ps += dt;
}

void sync_sim::gone(uint32_t u) {
  for (uint32_t fi : pending_[u]) --fails_[fi].r.affected;
  pending_[u].clear();
}

void sync_sim::apply_fault(uint32_t idx) {
  const resolved_fault& rf = w_.faults[idx];
  tracked tr;
  tr.r.at_ps = now_;
  tr.r.kind = clock_fault_kind_name(rf.f.what);
  tr.r.text = rf.f.text;
  tr.r.target = rf.f.target;
  tr.nodes = rf.nodes;
  if (rf.f.what == clock_fault::kind::root) {
    if (fault_root_[idx] == none) fault_root_[idx] = cur_root_;
    tr.nodes = {fault_root_[idx]};
    tr.r.target = w_.topo.nodes[fault_root_[idx]].name;
  }
  switch (rf.f.what) {
    case clock_fault::kind::link:
      for (unsigned li : rf.links) link_down_[li] = 1;
      break;
    case clock_fault::kind::device:
    case clock_fault::kind::domain:
    case clock_fault::kind::root:
      for (uint32_t u : tr.nodes) {
        if (!dead_[u]) gone(u);
        dead_[u] = 1;
      }
      break;
    case clock_fault::kind::broken_clock: {
      const uint32_t u = tr.nodes[0];
      const int64_t rate = cfg_.broken_rate_ppb;
      osc_[u]->break_clock(now_, rate, 0, std::max<int64_t>(rate < 0 ? -rate : rate, 1));
      gone(u);
      on_clock_broken(u);
      break;
    }
  }
  if ((rf.f.what == clock_fault::kind::root || rf.f.what == clock_fault::kind::broken_clock) && is_root(tr.nodes[0]))
    tr.failed_root = tr.nodes[0];
  find_affected(tr, idx);
  fails_.push_back(std::move(tr));
  if (notified(rf.f.what) && self_scheduled_controller())
    push({now_ + cfg_.controller_delay_ps, 0, kind::controller, idx, 0, 0, 0, 0});
}

// The devices a root r (none: no root) still reaches over live links and healthy devices (a
// broken clock forwards no usable time; hosts do not forward).
std::vector<char> sync_sim::reachable_from(uint32_t r) const {
  std::vector<char> reach(w_.n, 0);
  if (r == none) return reach;
  std::vector<uint32_t> q{r};
  reach[r] = 1;
  for (size_t h = 0; h < q.size(); ++h) {
    if (!w_.is_switch(q[h]) && q[h] != r) continue;
    for (unsigned li : w_.topo.nodes[q[h]].port_link) {
      const uint32_t m = w_.other(li, q[h]);
      if (!link_down_[li] && healthy(m, now_) && !reach[m]) {
        reach[m] = 1;
        q.push_back(m);
      }
    }
  }
  return reach;
}

// Survivors the failure disconnected from the successor root are cut off; affected: a survivor
// whose current path to its root crosses something that is down or broken.
void sync_sim::find_affected(tracked& tr, uint32_t idx) {
  const std::vector<char> reach = reachable_from(successor_root());
  tr.last_before.assign(w_.n, never);
  for (uint32_t u = 0; u < w_.n; ++u) {
    if (!healthy(u, now_) || is_root(u)) continue;
    if (!reach[u]) {
      ++tr.r.cut_off;
      continue;
    }
    bool hit = false;
    uint32_t v = u;
    for (uint32_t steps = 0; !is_root(v); ++steps) {
      const unsigned li = parent_link(v);
      if (li == none || steps > w_.n) break;   // not in a tree
      const uint32_t p = w_.other(li, v);
      if (link_down_[li] || !healthy(p, now_)) {
        hit = true;
        break;
      }
      v = p;
    }
    if (is_root(v) && !healthy(v, now_)) hit = true;
    if (!hit) continue;
    ++tr.r.affected;
    tr.last_before[u] = last_sync_[u];
    pending_[u].push_back(idx);
  }
}

// ---- stepping -----------------------------------------------------------------------------------

void sync_sim::sample(uint64_t t) {
  for (uint32_t u = 0; u < w_.n; ++u) local_[u] = osc_[u]->local_ps(t);
  for (uint32_t u = 0; u < w_.n; ++u) {
    const int64_t eps = epsilon(u, t), off = local_[u] - local_[epoch_[u]];
    res_.epsilon_ps[u].push_back(eps);
    res_.offset_ps[u].push_back(off);
    res_.offset_ideal_ps[u].push_back(local_[u] - int64_t(t));
    judge(u, t, eps, off);
    if (eps != no_bound && !is_root(u) && healthy(u, t)) {
      eps_ns_.push_back(ns(eps));
      note_peak(u, eps);
    }
  }
}

void sync_sim::begin() {
  start();
  for (uint32_t i = 0; i < w_.faults.size(); ++i) push({w_.faults[i].f.at_ps, 0, kind::fault, i, 0, 0, 0, 0});
  if (!w_.samples.empty()) push({w_.samples[0], 0, kind::sample, 0, 0, 0, 0, 0});
}

void sync_sim::arrive(uint32_t v, uint32_t port, const sync_header& m, uint64_t now) {
  now_ = now;
  const unsigned li = w_.topo.nodes[v].port_link[port];
  if (dead_[v] || link_down_[li]) return;   // lost with the link or the device
  ++res_.delivered;
  on_arrival(v, port, m.timestamp_ps, m.epoch, m.root_sent_ps);
}

// A message leaves its sender: onto the fabric, or (standalone) across its link.
void sync_sim::send(const ev& e) {
  const uint32_t u = e.node;
  if (dead_[u] || !can_send(u)) return;
  const unsigned li = w_.topo.nodes[u].port_link[e.port];
  if (link_down_[li]) return;
  ++res_.messages;
  sync_header m;
  m.algorithm = index_;
  m.sender = u;
  m.epoch = e.epoch;
  m.root_sent_ps = e.root_sent;
  if (transport_) {
    transport_->send_sync(u, e.port, m);
    return;
  }
  const uint32_t v = w_.other(li, u);
  push({e.t + w_.latency[li], 0, kind::arrival, v, w_.port_on(li, v), stamp(u, e.t), e.epoch, e.root_sent});
}

void sync_sim::advance(uint64_t t) {
  while (!q_.empty() && q_.top().t <= t && q_.top().t <= cfg_.duration_ps) {
    const ev e = q_.top();
    q_.pop();
    now_ = e.t;
    switch (e.what) {
      case kind::sample:
        sample(w_.samples[e.node]);
        if (e.node + 1 < w_.samples.size()) push({w_.samples[e.node + 1], 0, kind::sample, e.node + 1, 0, 0, 0, 0});
        break;
      case kind::fault:
        apply_fault(e.node);
        break;
      case kind::controller:
        on_controller(w_.faults[e.node], fails_[e.node].nodes);
        break;
      case kind::timer:
        if (!dead_[e.node]) on_timer(e.node, e.t);
        break;
      case kind::egress:
        send(e);
        break;
      case kind::arrival: {
        sync_header m;
        m.timestamp_ps = e.ts;
        m.epoch = e.epoch;
        m.root_sent_ps = e.root_sent;
        arrive(e.node, e.port, m, e.t);
        break;
      }
    }
  }
}

// ---- the end of the run ---------------------------------------------------------------------------

// Devices still waiting at the end did not recover; their epsilon counts as it stands.
void sync_sim::close_failures(uint64_t end_ps) {
  for (uint32_t u = 0; u < w_.n; ++u)
    for (uint32_t fi : pending_[u]) {
      tracked& f = fails_[fi];
      const int64_t eps = epsilon(u, now_);
      if (eps != no_bound) peak(f.r, u, eps);
      if (f.r.all_recovered) f.r.slowest = w_.topo.nodes[u].name;   // the first one left waiting
      f.r.all_recovered = false;
      impact(f, u, end_ps);
    }
}

void sync_sim::summarise(uint64_t end_ps) {
  // The samples can be millions: percentiles by selection, the same nearest rank as elsewhere.
  auto pick = [&](double p) { return percentile_unsorted(eps_ns_, p); };
  const double seconds = double(end_ps) * 1e-12;
  res_.messages_per_s = seconds > 0 ? double(res_.messages) / seconds : 0.0;
  nlohmann::json& s = res_.summary;
  res_.epsilon_p50_ns = pick(50);
  res_.epsilon_p99_ns = pick(99);
  res_.epsilon_max_ns = ns(eps_max_);   // exact: also at every arrival, the sawtooth's tops
  res_.max_abs_offset_ns = ns(max_abs_offset_);
  s["epsilon_p50_ns"] = res_.epsilon_p50_ns;
  s["epsilon_p99_ns"] = res_.epsilon_p99_ns;
  s["epsilon_max_ns"] = res_.epsilon_max_ns;
  s["epsilon_samples"] = eps_ns_.size();
  std::vector<double> by_depth;   // Fig. 3.22: index = depth in the configured primary tree (0 = root)
  for (int64_t e : by_depth_) by_depth.push_back(ns(e));
  s["epsilon_max_by_depth_ns"] = by_depth;
  s["max_abs_offset_ns"] = res_.max_abs_offset_ns;
  s["bound_checks"] = res_.bound_checks;
  s["bound_violations"] = res_.bound_violations;
  s["worst_offset_over_epsilon"] = res_.worst_offset_over_epsilon;
  s["broken_clock_violations"] = res_.broken_clock_violations;
  s["messages"] = res_.messages;
  s["messages_delivered"] = res_.delivered;
  s["messages_per_s"] = res_.messages_per_s;
  nlohmann::json fl = nlohmann::json::array();
  uint64_t impacted = 0, impacted_switches = 0, impacted_devices = 0;
  for (tracked& f : fails_) {
    impacted += f.r.impacted_ps;
    impacted_switches += f.r.impacted_switch_ps;
    impacted_devices += f.r.affected;
    if (!f.r.all_recovered) f.r.resync_ps = never;
    res_.failures.push_back(f.r);
    const clock_failure_result& r = f.r;
    fl.push_back({{"time_us", ps_as_us(r.at_ps)},
                  {"fault", r.text},
                  {"kind", r.kind},
                  {"target", r.target},
                  {"affected_devices", r.affected},
                  {"cut_off_devices", r.cut_off},
                  {"recovered_devices", r.recovered},
                  {"recovered", r.all_recovered},
                  {"max_outage_us", r.outage_known ? nlohmann::json(ps_as_us(r.max_outage_ps)) : nlohmann::json(nullptr)},
                  {"min_outage_us", r.outage_known ? nlohmann::json(ps_as_us(r.min_outage_ps)) : nlohmann::json(nullptr)},
                  {"resync_after_failure_us", r.all_recovered ? nlohmann::json(ps_as_us(r.resync_ps)) : nlohmann::json(nullptr)},
                  {"first_resync_after_failure_us", r.recovered > 0 ? nlohmann::json(ps_as_us(r.min_resync_ps)) : nlohmann::json(nullptr)},
                  {"peak_epsilon_ns", ns(r.peak_epsilon_ps)},
                  {"peak_device", r.peak_device},
                  {"peak_epsilon_base_ns", ns(r.peak_epsilon_base_ps)},
                  {"slowest_device", r.slowest},
                  {"impacted_device_time_us", ps_as_us(r.impacted_ps)},
                  {"impacted_switch_time_us", ps_as_us(r.impacted_switch_ps)}});
  }
  s["failures"] = fl;
  s["impacted_device_time_ms"] = double(impacted) / 1e9;   // Fig. 3.20's blast radius, over every failure
  s["impacted_switch_time_ms"] = double(impacted_switches) / 1e9;   // the switches' part of it
  s["impacted_devices"] = impacted_devices;
}

clock_algorithm_result sync_sim::end(uint64_t end_ps) {
  now_ = end_ps;
  close_failures(end_ps);
  summarise(end_ps);
  finish(res_.summary);
  return std::move(res_);
}

}  // namespace netasic
