#include "clock/sundial_sim.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace netasic {

sundial_sim::sundial_sim(const clock_world& w, uint8_t index, sync_transport* transport, std::vector<uint32_t>& fault_root)
    : sync_sim(w, clock_algorithm::sundial, index, transport, fault_root),
      ctrl_(w),
      live_(w.cfg.sundial_live_registers),
      from_regs_(live_ || !w.cfg.sundial_writes.empty()),
      regs_(w.n) {
  // Every device's unit is built when the layer starts, inside the run: a device the RTL in the
  // loop cannot take (more ports than it was Verilated for) is refused here, before it.
  if (sundial_unit_rtl_factory())
    for (uint32_t u = 0; u < w_.n; ++u) {
      try {
        sundial_unit_unit(unit_config(u), *osc_[u], 0);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(fmt::format("{} (device {})", e.what(), w_.topo.nodes[u].name));
      }
    }
}

uint32_t sundial_sim::state(uint32_t u) const {
  if (u >= w_.n) return sundial_regs::state_evicted;
  if (unit_.empty() || dead_[u]) return sundial_regs::state_evicted;
  if (unit_[u]->current_mode() == sundial_unit::mode::evicted) return sundial_regs::state_evicted;
  if (unit_[u]->current_mode() == sundial_unit::mode::root) return sundial_regs::state_root;
  return uint32_t(fw_[u]->state());
}

void sundial_sim::start() {
  max_depth_backup_ = w_.plan0.ok() ? w_.plan0.max_depth_backup : 0;
  unit_.resize(w_.n);
  fw_.resize(w_.n);
  timer_.assign(w_.n, never);
  was_evicted_.assign(w_.n, 0);
  load_registers();
  for (uint32_t u = 0; u < w_.n; ++u) build_unit(u, 0);
  for (uint32_t u = 0; u < w_.n; ++u) arm(u);
}

// Replayed registers: the writes the fabric's sundial_controller made up to now.
void sundial_sim::load_registers() {
  const auto& log = cfg_.sundial_writes;
  for (; next_write_ < log.size() && log[next_write_].at_ps <= now_; ++next_write_) take(log[next_write_]);
}

void sundial_sim::take(const sundial_reg_write& x) {
  if (x.node >= regs_.size() || !regs_[x.node].write(x.offset, x.value))
    throw std::invalid_argument(fmt::format("clock network: bad Sundial register write 0x{:08x} to node {}", x.offset, x.node));
}

// The configuration of device u (switch or host); member = it is in the plan. From its own
// register block when the fabric's controller wrote them, else from this layer's own plan.
sundial_firmware_config sundial_sim::fw_config(uint32_t u, bool& member) const {
  if (!from_regs_) return ctrl_.config(u, member);
  return regs_config(regs_[u], w_.is_switch(u), cfg_, member);
}

// Where u sends and forwards: its primary and backup children (§3.4.3 Implementation: the
// controller configures the TX side of both), on the link each listens to; a switch's hosts.
std::vector<uint32_t> sundial_sim::tx_ports(uint32_t u) const {
  std::vector<uint32_t> out;
  if (!w_.is_switch(u)) return out;
  const uint32_t s = w_.sw_of[u];
  const auto& nd = w_.topo.nodes[u];
  const backup_plan& plan = ctrl_.plan();
  const std::vector<char>& down = ctrl_.links_down();
  for (uint32_t p = 0; p < nd.port_link.size(); ++p) {
    const unsigned li = nd.port_link[p];
    const uint32_t v = w_.other(li, u);
    if (down[li] || ctrl_.devices_down()[v]) continue;
    if (w_.is_switch(v) && from_regs_) {   // children: the switches whose (backup) parent port faces u
      const sundial_regs& r = regs_[v];
      if (r[sundial_regs::root] || !r[sundial_regs::valid] || w_.link_between(u, v, down) != li) continue;
      const uint32_t vp = w_.port_on(li, v);
      if (r[sundial_regs::parent] == vp || r[sundial_regs::backup_parent] == vp) out.push_back(p);
    } else if (w_.is_switch(v)) {
      const uint32_t c = w_.sw_of[v];
      if (c == plan.root || !plan.member(c) || w_.link_between(u, v, down) != li) continue;
      if (plan.parent[c] == s || plan.backup_parent[c] == s) out.push_back(p);
    } else {
      out.push_back(p);
    }
  }
  return out;
}

// Device u's unit as the layer's configuration sets it: its ports and the timers.
sundial_unit_config sundial_sim::unit_config(uint32_t u) const {
  sundial_unit_config c;
  c.ports = uint32_t(w_.topo.nodes[u].port_link.size());
  c.sync_interval_ps = cfg_.sync_interval_ps;
  c.first_timeout_ps = cfg_.first_timeout_ps;
  c.eps_per_hop_ps = cfg_.eps_per_hop_ps;
  c.max_drift_ppb = cfg_.max_drift_ppb;
  return c;
}

void sundial_sim::build_unit(uint32_t u, uint64_t t) {
  bool member = false;
  sundial_firmware_config f = fw_config(u, member);
  if (f.primary_parent == sundial_firmware_config::no_port) f.primary_parent = 0;
  sundial_unit_config c = unit_config(u);
  c.root = f.root;
  c.parent_port = f.root ? 0 : f.primary_parent;
  c.tx_ports = tx_ports(u);
  fw_[u].reset();
  unit_[u] = sundial_unit_unit(c, *osc_[u], t);
  for (uint32_t p = 0; p < c.ports; ++p) unit_[u]->set_link_delay(p, std::max<int64_t>(w_.measured[u][p], 0));
  fw_[u] = std::make_unique<sundial_firmware>(f, *unit_[u]);
  timer_[u] = never;
}

void sundial_sim::arm(uint32_t u) {
  if (dead_[u]) return;
  const uint64_t t = unit_[u]->next_event_ps();
  if (t == never) {
    timer_[u] = never;
    return;
  }
  const uint64_t at = std::max(t, now_);
  if (at != timer_[u]) push({at, 0, kind::timer, u, 0, 0, 0, 0});
  timer_[u] = at;
}

// The unit's sends and interrupts due by t, handed to the firmware.
void sundial_sim::poll(uint32_t u, uint64_t t) {
  for (;;) {
    const std::vector<sundial_event> evs = unit_[u]->advance(t);
    if (evs.empty()) return;
    for (const sundial_event& e : evs) {
      const int64_t eps = e.what == sundial_event::kind::second_timeout ? epsilon(u, e.at_ps) : no_bound;
      fw_[u]->on_event(e);
      if (e.what == sundial_event::kind::send) transmit(u, e.at_ps, unit_[u]->tx_ports(), u, std::max(e.at_ps, now_));
      if (e.what == sundial_event::kind::second_timeout && fw_[u]->state() == firmware_state::root) {
        cur_root_ = u;   // elected (§3.4.2.2): its clock is the reference from now on
        synced(u, now_, eps, u, now_);
      }
    }
  }
}

void sundial_sim::on_timer(uint32_t u, uint64_t t) {
  if (timer_[u] != t) return;   // superseded
  timer_[u] = never;
  poll(u, t);
  arm(u);
}

void sundial_sim::on_arrival(uint32_t v, uint32_t port, int64_t ts, uint32_t epoch, uint64_t root_sent) {
  sundial_unit_if& un = *unit_[v];
  poll(v, now_);
  if (un.current_mode() == sundial_unit::mode::member && port == un.parent_port()) check(v, now_);
  const sundial_rx rx = un.on_sync(now_, port, ts);
  fw_[v]->on_rx(now_, port, rx);
  if (rx.verdict == sundial_verdict::valid) {
    synced(v, now_, rx.epsilon_ps == sundial_unit::unbounded ? no_bound : rx.epsilon_ps, epoch, root_sent);
    transmit(v, now_ + cfg_.forward_delay_ps, rx.forward, epoch, root_sent);
  } else if (rx.verdict == sundial_verdict::invalid) {
    ++invalid_;
  }
  if (un.current_mode() == sundial_unit::mode::evicted && !was_evicted_[v]) {
    was_evicted_[v] = 1;
    gone(v);
  }
  arm(v);
}

// The controller: after its delay it takes a broken clock out, reacts (sundial_planner::react)
// and reprograms the devices whose configuration changed (§3.4.3 Implementation).
void sundial_sim::on_controller(const resolved_fault& f, const std::vector<uint32_t>& nodes) {
  if (f.f.what == clock_fault::kind::broken_clock)
    for (uint32_t u : nodes)
      if (unit_[u]->current_mode() != sundial_unit::mode::evicted) {
        unit_[u]->evict(now_);
        was_evicted_[u] = 1;
      }
  std::vector<node_report> reports(w_.topo.switches.size(), node_report::running);
  for (uint32_t s = 0; s < reports.size(); ++s) {
    const uint32_t u = w_.node_of_switch(s);
    if (unit_[u]->current_mode() == sundial_unit::mode::evicted) reports[s] = node_report::evicted;
    else if (!dead_[u] && unit_[u]->current_mode() == sundial_unit::mode::root) reports[s] = node_report::elected;
  }
  if (!ctrl_.react(f.links, nodes, reports).replanned) return;
  const backup_plan& plan = ctrl_.plan();
  ++replans_;
  if (plan.ok()) max_depth_backup_ = std::max(max_depth_backup_, plan.max_depth_backup);
  plan_statuses_.push_back(plan_status_name(plan.status));
  load_registers();
  for (uint32_t u = 0; u < w_.n; ++u) reconfigure(u);
  cur_root_ = w_.node_of_switch(plan.root);
  if (from_regs_)
    for (uint32_t u : w_.topo.switches)
      if (regs_[u][sundial_regs::root] && !dead_[u]) cur_root_ = u;
  for (uint32_t u = 0; u < w_.n; ++u) arm(u);
}

// Device u takes its configuration under the new plan.
void sundial_sim::reconfigure(uint32_t u) {
  if (dead_[u] || ctrl_.devices_down()[u] || unit_[u]->current_mode() == sundial_unit::mode::evicted) return;
  bool member = false;
  const sundial_firmware_config c = fw_config(u, member);
  const bool unit_root = unit_[u]->current_mode() == sundial_unit::mode::root;
  if (c.root && !unit_root) {   // made root by the controller
    const int64_t eps = epsilon(u, now_);
    poll(u, now_);
    unit_[u]->become_root(now_);
    fw_[u]->configure(c);
    cur_root_ = u;
    synced(u, now_, eps, u, now_);
    ++reconfigured_;
  } else if (!c.root && unit_root) {   // a second root (split by several failures): demoted
    build_unit(u, now_);
    ++reconfigured_;
  } else if (member) {
    // A device still on its backup parent is put back on the plan's primary too: otherwise it
    // would stay on a path the new plan no longer backs up, and the next failure of that path
    // would strand it until the controller's next reaction.
    const sundial_firmware_config& o = fw_[u]->config();
    if (o.root != c.root || o.primary_parent != c.primary_parent || o.backup_parent != c.backup_parent ||
        o.eps_base_ps != c.eps_base_ps || o.eps_base_backup_ps != c.eps_base_backup_ps ||
        o.first_timeout_ps != c.first_timeout_ps || o.second_timeout_ps != c.second_timeout_ps ||
        fw_[u]->state() != firmware_state::primary) {
      poll(u, now_);
      fw_[u]->configure(c);
      ++reconfigured_;
    }
  }
  const std::vector<uint32_t> tx = tx_ports(u);
  if (tx != unit_[u]->tx_ports()) unit_[u]->set_tx_ports(tx);
}

int64_t sundial_sim::epsilon(uint32_t u, uint64_t t) const {
  if (dead_[u]) return no_bound;
  const int64_t e = unit_[u]->epsilon_ps(t);
  return e == sundial_unit::unbounded ? no_bound : e;
}

uint32_t sundial_sim::depth(uint32_t u) const {
  const backup_plan& plan = ctrl_.plan();
  const uint32_t s = w_.is_switch(u) ? w_.sw_of[u] : w_.sw_of[w_.tor[u]];
  if (!plan.member(s)) return none;
  return plan.depth_primary[s] + (w_.is_switch(u) ? 0 : 1);
}

unsigned sundial_sim::parent_link(uint32_t u) const {
  if (unit_[u]->current_mode() != sundial_unit::mode::member) return none;
  return w_.topo.nodes[u].port_link[unit_[u]->parent_port()];
}

uint32_t sundial_sim::successor_root() const {
  if (healthy(cur_root_, now_)) return cur_root_;
  const backup_plan& plan = ctrl_.plan();
  if (plan.backup_root != backup_plan::none) {
    const uint32_t b = w_.node_of_switch(plan.backup_root);
    if (healthy(b, now_)) return b;
  }
  return lowest_live_switch(now_);
}

void sundial_sim::finish(nlohmann::json& s) {
  sundial_counters uc;
  sundial_firmware_counters fc;
  for (uint32_t u = 0; u < w_.n; ++u) {
    uc.timeouts += unit_[u]->counters().timeouts;
    uc.invalid += unit_[u]->counters().invalid;
    const sundial_firmware_counters& c = fw_[u]->counters();
    fc.switches_to_backup += c.switches_to_backup;
    fc.elections += c.elections;
    fc.evictions += c.evictions;
    fc.stranded += c.stranded;
  }
  uint32_t deepest = 0;
  for (uint32_t d : w_.plan0.depth_primary)
    if (d != backup_plan::none) deepest = std::max(deepest, d);
  s["backup_plan"] = cfg_.backup_plan;   // false: no backup parents programmed (clock.backup_plan)
  s["plan_status"] = plan_status_name(w_.plan0.status);
  if (!w_.plan0.ok()) s["plan_reason"] = w_.plan0.reason;
  s["backup_root"] = w_.plan0.backup_root == backup_plan::none ? std::string()
                                                                : w_.topo.nodes[w_.node_of_switch(w_.plan0.backup_root)].name;
  s["max_switch_depth"] = deepest;   // hosts are one deeper
  s["max_depth_backup"] = max_depth_backup_;
  s["replans"] = replans_;
  s["replan_statuses"] = plan_statuses_;
  s["reconfigured_devices"] = reconfigured_;
  s["first_timeouts"] = uc.timeouts;
  s["switches_to_backup"] = fc.switches_to_backup;
  s["elections"] = fc.elections;
  s["evictions"] = fc.evictions;
  s["stranded_timeouts"] = fc.stranded;
  s["invalid_messages"] = invalid_;
}

}  // namespace netasic
