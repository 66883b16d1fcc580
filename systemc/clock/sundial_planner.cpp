#include "clock/sundial_planner.h"

#include <algorithm>

#include "clock/clock_world.h"

namespace netasic {

namespace {

constexpr uint32_t no_port = sundial_firmware_config::no_port;

// Without a complete plan the backup parents are not safe to use: run without them. Nor when
// the configuration switches the backup plan off (clock_network_config::backup_plan).
void drop_unsafe_backups(backup_plan& plan, const clock_network_config& cfg) {
  if (plan.ok() && cfg.backup_plan) return;
  std::fill(plan.backup_parent.begin(), plan.backup_parent.end(), backup_plan::none);
  plan.backup_root = backup_plan::none;
}

}  // namespace

sundial_firmware_config plan_config(const clock_world& w, const backup_plan& plan, const std::vector<char>& down,
                                    uint32_t u, bool& member) {
  auto port_to = [&](uint32_t a, uint32_t b) {
    const unsigned li = w.link_between(a, b, down);
    return li == clock_world::none ? no_port : w.port_on(li, a);
  };
  sundial_firmware_config f;
  f.first_timeout_ps = w.cfg.first_timeout_ps;
  member = false;
  if (w.is_switch(u)) {
    const uint32_t s = w.sw_of[u];
    if (s == plan.root) {
      f.root = member = true;
      return f;
    }
    if (!plan.member(s)) return f;
    member = true;
    f.primary_parent = port_to(u, w.node_of_switch(plan.parent[s]));
    if (plan.backup_parent[s] != backup_plan::none) f.backup_parent = port_to(u, w.node_of_switch(plan.backup_parent[s]));
    f.eps_base_ps = plan.depth_primary[s] * w.cfg.eps_per_hop_ps;
    f.eps_base_backup_ps =
        plan.depth_backup[s] != backup_plan::none ? plan.depth_backup[s] * w.cfg.eps_per_hop_ps : f.eps_base_ps;
    if (s == plan.backup_root && f.backup_parent != no_port) f.second_timeout_ps = w.cfg.second_timeout_ps;
  } else {
    // A host hangs off its switch with no backup parent (a single link cannot have one): after
    // a first timeout it stays put and waits for the messages or the controller.
    const uint32_t s = w.sw_of[w.tor[u]];
    f.primary_parent = 0;
    if (!plan.member(s)) return f;
    member = true;
    f.eps_base_ps = f.eps_base_backup_ps = (plan.depth_primary[s] + 1) * w.cfg.eps_per_hop_ps;
  }
  return f;
}

sundial_regs plan_regs(const sundial_firmware_config& f, bool member, uint64_t period_ps) {
  sundial_regs r;
  auto cycles = [&](uint64_t ps) { return uint32_t((ps + period_ps - 1) / period_ps); };
  r[sundial_regs::parent] = f.root ? 0 : f.primary_parent;
  r[sundial_regs::backup_parent] = f.root ? sundial_regs::none : f.backup_parent;
  r[sundial_regs::first_timeout] = cycles(f.first_timeout_ps);
  r[sundial_regs::second_timeout] = f.root ? 0 : cycles(f.second_timeout_ps);
  r[sundial_regs::eps_base] = f.root ? 0 : uint32_t(f.eps_base_ps);
  r[sundial_regs::eps_base_backup] = f.root ? 0 : uint32_t(f.eps_base_backup_ps);
  r[sundial_regs::root] = f.root;
  r[sundial_regs::valid] = member;
  return r;
}

sundial_firmware_config regs_config(const sundial_regs& r, bool sw, const clock_network_config& cfg, bool& member) {
  sundial_firmware_config f;
  f.first_timeout_ps = cfg.first_timeout_ps;
  member = r[sundial_regs::valid] != 0;
  if (!member) return f;
  f.first_timeout_ps = uint64_t(r[sundial_regs::first_timeout]) * cfg.oscillator_period_ps;
  if (sw && r[sundial_regs::root]) {
    f.root = true;
    return f;
  }
  f.primary_parent = r[sundial_regs::parent];
  f.backup_parent = r[sundial_regs::backup_parent];
  f.second_timeout_ps = uint64_t(r[sundial_regs::second_timeout]) * cfg.oscillator_period_ps;
  f.eps_base_ps = r[sundial_regs::eps_base];
  f.eps_base_backup_ps = r[sundial_regs::eps_base_backup];
  return f;
}

struct sundial_planner::impl {
  std::unique_ptr<clock_world> own;   // null: over the clock layer's world
  const clock_world& w;
  sync_graph g;
  backup_plan plan;
  std::vector<char> down, dead;
  std::vector<sundial_regs> regs, host_regs;

  impl(std::unique_ptr<clock_world> o, const clock_world& world) : own(std::move(o)), w(world) {
    g = w.graph0;
    plan = w.plan0;
    drop_unsafe_backups(plan, w.cfg);
    down.assign(w.topo.links.size(), 0);
    for (unsigned li = 0; li < w.topo.links.size(); ++li) down[li] = w.topo.links[li].failed;
    dead.assign(w.n, 0);
    regs.assign(w.topo.switches.size(), sundial_regs{});
    host_regs.assign(w.topo.hosts.size(), sundial_regs{});
    program();
  }
  void program() {
    for (uint32_t s = 0; s < regs.size(); ++s) {
      bool member = false;
      const sundial_firmware_config f = plan_config(w, plan, down, w.node_of_switch(s), member);
      regs[s] = plan_regs(f, member, w.cfg.oscillator_period_ps);
    }
    for (uint32_t h = 0; h < host_regs.size(); ++h) {   // a leaf under its switch (plan_config)
      bool member = false;
      const sundial_firmware_config f = plan_config(w, plan, down, w.topo.hosts[h], member);
      host_regs[h] = plan_regs(f, member, w.cfg.oscillator_period_ps);
    }
  }
  static std::unique_ptr<clock_world> built(const topology& topo, const clock_network_config& cfg) {
    auto w = std::make_unique<clock_world>(topo, cfg);
    w->build(false);
    return w;
  }
};

sundial_planner::sundial_planner(const topology& topo, const clock_network_config& cfg) {
  std::unique_ptr<clock_world> w = impl::built(topo, cfg);
  const clock_world& ref = *w;
  p_ = std::make_unique<impl>(std::move(w), ref);
}
sundial_planner::sundial_planner(const clock_world& w) : p_(std::make_unique<impl>(nullptr, w)) {}
sundial_planner::~sundial_planner() = default;

const std::vector<sundial_regs>& sundial_planner::registers() const { return p_->regs; }
const std::vector<sundial_regs>& sundial_planner::host_registers() const { return p_->host_regs; }
size_t sundial_planner::faults() const { return p_->w.faults.size(); }
uint64_t sundial_planner::fault_at_ps(size_t i) const { return p_->w.faults.at(i).f.at_ps; }
const backup_plan& sundial_planner::plan() const { return p_->plan; }
const std::vector<char>& sundial_planner::links_down() const { return p_->down; }
const std::vector<char>& sundial_planner::devices_down() const { return p_->dead; }

sundial_firmware_config sundial_planner::config(uint32_t u, bool& member) const {
  return plan_config(p_->w, p_->plan, p_->down, u, member);
}

sundial_planner::observed sundial_planner::react(const std::vector<unsigned>& links, const std::vector<uint32_t>& nodes,
                                                 const std::vector<node_report>& reports) {
  impl& m = *p_;
  std::vector<uint32_t> edges, switches;
  for (unsigned li : links) {   // parallel links stay one adjacency while one is up
    m.down[li] = 1;
    if (m.w.edge_of_link[li] != clock_world::none) edges.push_back(m.w.edge_of_link[li]);
  }
  for (uint32_t u : nodes) {
    m.dead[u] = 1;
    if (m.w.is_switch(u)) switches.push_back(m.w.sw_of[u]);
  }
  controller_reaction r = sundial_reaction(m.g, m.plan, edges, switches, reports);
  observed seen;
  seen.evictions = r.evictions;
  seen.election = r.election;
  seen.replanned = r.root != backup_plan::none;
  if (!seen.replanned) return seen;
  m.plan = std::move(r.plan);
  drop_unsafe_backups(m.plan, m.w.cfg);
  return seen;
}

sundial_planner::observed sundial_planner::learn(size_t i, const std::vector<uint32_t>& state) {
  impl& m = *p_;
  const resolved_fault& f = m.w.faults.at(i);
  std::vector<uint32_t> nodes = f.nodes;
  if (f.f.what == clock_fault::kind::root && m.plan.root != backup_plan::none) nodes = {m.w.node_of_switch(m.plan.root)};
  std::vector<node_report> reports(std::min<size_t>(state.size(), m.g.nodes()), node_report::running);
  for (size_t s = 0; s < reports.size(); ++s)
    if (state[s] == sundial_regs::state_evicted) reports[s] = node_report::evicted;
    else if (state[s] == sundial_regs::state_root) reports[s] = node_report::elected;
  const observed seen = react(f.links, nodes, reports);
  if (seen.replanned) m.program();
  return seen;
}

}  // namespace netasic
