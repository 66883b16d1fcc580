#include "clock/clock_world.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "clock/sundial_unit.h"
#include "common/params.h"
#include "common/rng.h"

namespace netasic {

unsigned clock_world::link_between(uint32_t u, uint32_t v, const std::vector<char>& down) const {
  unsigned best = none;
  for (unsigned li : topo.nodes[u].port_link)
    if (!down[li] && other(li, u) == v) best = std::min(best, li);
  return best;
}

void clock_world::build(bool with_samples) {
  n = uint32_t(topo.nodes.size());
  if (topo.switches.empty()) throw std::invalid_argument("clock network: the topology has no switch");
  place_devices();
  draw_oscillators();
  build_controller_graph();
  resolve_faults();
  if (with_samples) choose_samples();
}

// Switches and the hosts under them, the failure domains, and the root: named, or the first
// switch of the top tier.
void clock_world::place_devices() {
  sw_of.assign(n, none);
  for (uint32_t s = 0; s < topo.switches.size(); ++s) sw_of[topo.switches[s]] = s;
  tor.assign(n, none);
  for (uint32_t u = 0; u < n; ++u)
    if (!is_switch(u)) {
      if (topo.nodes[u].port_link.size() != 1)
        throw std::invalid_argument("clock network: host " + topo.nodes[u].name + " must have exactly one link");
      tor[u] = other(topo.nodes[u].port_link[0], u);
    }
  dom = make_clock_domains(topo);
  if (cfg.root.empty()) {
    unsigned top = 0;
    for (unsigned s : topo.switches) top = std::max(top, topo.nodes[s].tier);
    for (unsigned s : topo.switches)
      if (topo.nodes[s].tier == top) {
        root = s;
        break;
      }
    return;
  }
  root = topo.find_node(cfg.root);
  if (root == none) throw config_error(fmt::format("root '{}' is not a device of the topology (e.g. '{}')", cfg.root,
                                                   topo.nodes[topo.switches.back()].name));
  if (!is_switch(root)) throw config_error(fmt::format("root '{}' is a host; the root must be a switch", cfg.root));
}

// One oscillator draw per device in node order, so the algorithms share them exactly. Then each
// link's one-way delay of a sync-message, and each end's Fig. 3.1 measurement of it (A sends at
// 1 us, B answers 1 us after receipt), taken on the free-running clocks.
void clock_world::draw_oscillators() {
  rng r(cfg.seed);
  auto uniform = [&](int64_t bound) { return bound <= 0 ? 0 : int64_t(r.below(2 * uint64_t(bound) + 1)) - bound; };
  for (uint32_t u = 0; u < n; ++u) {
    oscillator_config oc;
    oc.bound_ppb = cfg.oscillator_bound_ppb;
    oc.ppb = uniform(cfg.oscillator_bound_ppb);
    oc.drift_ppb_per_s = uniform(cfg.drift_ppb_per_s);
    oc.initial_offset_ps = uniform(cfg.initial_offset_ps);
    oc.period_ps = cfg.oscillator_period_ps;
    osc.push_back(oc);
  }
  for (const topo_link& l : topo.links) {
    if (!l.rate_bps) throw std::invalid_argument("clock network: link " + l.name + " has no rate");
    // The frame and its preamble and SFD (8 bytes), as tlm/link.h puts them on the wire.
    latency.push_back(l.delay_ps + (uint64_t(cfg.frame_bytes + 8) * 8 * 1'000'000'000'000 + l.rate_bps - 1) / l.rate_bps);
  }
  std::vector<oscillator> clk;
  for (const oscillator_config& oc : osc) clk.emplace_back(oc);
  measured.assign(n, {});
  for (uint32_t u = 0; u < n; ++u)
    for (unsigned li : topo.nodes[u].port_link) {
      const oscillator &a = clk[other(li, u)], &b = clk[u];
      const uint64_t d = latency[li], t1 = 1'000'000, turn = 1'000'000;
      measured[u].push_back(
          measure_link_delay(a.local_ps(t1), b.local_ps(t1 + d), b.local_ps(t1 + d + turn), a.local_ps(t1 + 2 * d + turn)));
    }
}

// The controller's graph: switches with their domains, switch-to-switch links; and its first plan.
void clock_world::build_controller_graph() {
  for (unsigned s : topo.switches) graph0.add_node(dom.of_node[s]);
  edge_of_link.assign(topo.links.size(), none);
  for (unsigned li = 0; li < topo.links.size(); ++li) {
    const topo_link& l = topo.links[li];
    if (!is_switch(l.a) || !is_switch(l.b)) continue;
    edge_of_link[li] = graph0.add_edge(sw_of[l.a], sw_of[l.b]);
    graph0.edges[edge_of_link[li]].failed = l.failed;
  }
  plan0 = compute_backup_plan(graph0, sw_of[root]);
  if (plan0.status == plan_status::bad_root) throw config_error("the clock root cannot be planned: " + plan0.reason);
}

// A fault's target resolved against the topology.
resolved_fault clock_world::resolve(const clock_fault& f) const {
  auto bad = [&](const std::string& why) { return config_error(fmt::format("fault \"{}\": {}", f.text, why)); };
  if (f.at_ps > cfg.duration_ps)
    throw bad(fmt::format("at {} us is after the end of the run ({} us)", ps_as_us(f.at_ps), ps_as_us(cfg.duration_ps)));
  resolved_fault rf{f, {}, {}};
  auto node = [&](const std::string& name) {
    const uint32_t u = topo.find_node(name);
    if (u == none) throw bad(fmt::format("no device named '{}' (devices are named like '{}' and '{}')", name,
                                         topo.nodes[topo.switches.back()].name, topo.nodes.back().name));
    return u;
  };
  switch (f.what) {
    case clock_fault::kind::link: {
      link_match m = topo.find_links(f.target);
      if (m.links.empty()) throw bad(m.error);
      rf.links = std::move(m.links);
      break;
    }
    case clock_fault::kind::device:
    case clock_fault::kind::broken_clock:
      rf.nodes = {node(f.target)};
      break;
    case clock_fault::kind::domain: {
      uint32_t d = none;
      for (uint32_t i = 0; i < dom.names.size(); ++i)
        if (dom.names[i] == f.target) d = i;
      if (d == none) {
        const uint32_t u = topo.find_node(f.target);
        if (u == none)
          throw bad(fmt::format("no domain or device named '{}' (domains: {}{})", f.target, dom.names.front(),
                                dom.names.size() > 1 ? ", " + dom.names[1] + ", ..." : ""));
        d = dom.of_node[u];
      }
      for (uint32_t u = 0; u < n; ++u)
        if (dom.of_node[u] == d) rf.nodes.push_back(u);
      break;
    }
    case clock_fault::kind::root: break;
  }
  return rf;
}

void clock_world::resolve_faults() {
  for (const clock_fault& f : cfg.faults) faults.push_back(resolve(f));
  std::stable_sort(faults.begin(), faults.end(),
                   [](const resolved_fault& a, const resolved_fault& b) { return a.f.at_ps < b.f.at_ps; });
  for (size_t i = 0; i < faults.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (faults[i].f.what == clock_fault::kind::broken_clock && faults[j].f.what == clock_fault::kind::broken_clock &&
          faults[i].nodes == faults[j].nodes)
        throw config_error(fmt::format("fault \"{}\": the clock of {} is already broken by \"{}\"", faults[i].f.text,
                                       faults[i].f.target, faults[j].f.text));
}

void clock_world::choose_samples() {
  if (!cfg.sample_times_ps.empty()) {
    samples = cfg.sample_times_ps;
    for (size_t i = 0; i < samples.size(); ++i)
      if ((i && samples[i] < samples[i - 1]) || samples[i] > cfg.duration_ps)
        throw std::invalid_argument("clock network: sample times must be non-decreasing and within the duration");
  } else if (cfg.sample_interval_ps) {   // 0: the owner calls clock_layer::sample
    for (uint64_t t = 0; t < cfg.duration_ps; t += cfg.sample_interval_ps) samples.push_back(t);
  }
  const double values = double(samples.size()) * n * double(cfg.algorithms.size()) * 3;
  if (values > double(cfg.max_values))
    throw std::invalid_argument(fmt::format("clock network: {} samples of {} devices x {} algorithms x 3 series are "
                                            "{:.3g} values, more than the {:.3g} kept in memory; sample less often",
                                            samples.size(), n, cfg.algorithms.size(), values, double(cfg.max_values)));
}

}  // namespace netasic
