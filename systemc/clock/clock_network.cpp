#include "clock/clock_network.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "clock/clock_world.h"
#include "clock/ptp_sim.h"
#include "clock/sundial_sim.h"
#include "clock/sync_sim.h"

namespace netasic {

void check_clock_network(const topology& topo, const clock_network_config& cfg) {
  clock_world w(topo, cfg);
  w.build(false);
}

struct clock_layer::impl {
  clock_world w;
  std::vector<uint32_t> fault_root;   // per fault: the device a root fault took down
  std::vector<std::unique_ptr<sync_sim>> sims;
  sundial_sim* sundial = nullptr;
  bool started = false;   // the sims begin at the first advance: after the first register writes
  bool in_fabric = false; // stepped by a fabric run, its messages carried as frames
  clock_result out;
  impl(const topology& t, const clock_network_config& c) : w(t, c) {}
};

clock_layer::clock_layer(const topology& topo, const clock_network_config& cfg, sync_transport* transport)
    : p_(std::make_unique<impl>(topo, cfg)) {
  if (cfg.algorithms.empty()) throw std::invalid_argument("clock network: no algorithm to run");
  for (size_t i = 0; i < cfg.algorithms.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (cfg.algorithms[i] == cfg.algorithms[j])
        throw std::invalid_argument(std::string("clock network: algorithm ") + clock_algorithm_name(cfg.algorithms[i]) + " listed twice");
  if (cfg.sync_interval_ps < 1 || cfg.first_timeout_ps < 1 || cfg.ptp_interval_ps < 1 || cfg.ptp_fast_interval_ps < 1)
    throw std::invalid_argument("clock network: intervals and timeouts must be at least 1 ps");
  impl& m = *p_;
  m.in_fabric = transport != nullptr;
  m.w.build(true);
  m.fault_root.assign(m.w.faults.size(), clock_world::none);
  for (size_t i = 0; i < cfg.algorithms.size(); ++i) {
    const clock_algorithm a = cfg.algorithms[i];
    if (a == clock_algorithm::sundial) {
      auto s = std::make_unique<sundial_sim>(m.w, uint8_t(i), transport, m.fault_root);
      m.sundial = s.get();
      m.sims.push_back(std::move(s));
    } else {
      m.sims.push_back(make_ptp_sim(m.w, a, uint8_t(i), transport, m.fault_root));
    }
  }
}

clock_layer::~clock_layer() = default;

uint64_t clock_layer::next_event_ps() const {
  if (!p_->started) return 0;
  uint64_t t = sync_sim::never;
  for (const auto& s : p_->sims) t = std::min(t, s->next_time());
  return t;
}

void clock_layer::advance(uint64_t now_ps) {
  if (!p_->started) {
    p_->started = true;
    for (auto& s : p_->sims) s->begin();
  }
  for (auto& s : p_->sims) s->advance(now_ps);
}

int64_t clock_layer::local_ps(uint32_t node, uint64_t t_ps) const { return p_->sims.at(0)->stamp(node, t_ps); }

int64_t clock_layer::stamp(const sync_header& m, uint64_t egress_ps) const {
  return p_->sims.at(m.algorithm)->stamp(m.sender, egress_ps);
}

void clock_layer::arrive(uint32_t node, uint32_t port, const sync_header& m, uint64_t now_ps) {
  advance(now_ps);
  p_->sims.at(m.algorithm)->arrive(node, port, m, now_ps);
}

void clock_layer::sample(uint64_t now_ps) {
  advance(now_ps);
  for (auto& s : p_->sims) s->sample(now_ps);
  p_->out.t_ps.push_back(now_ps);
}

void clock_layer::register_write(const sundial_reg_write& w) {
  if (p_->sundial) p_->sundial->register_write(w);
}

uint32_t clock_layer::sundial_state(uint32_t node) const {
  return p_->sundial ? p_->sundial->state(node) : uint32_t(sundial_regs::state_evicted);
}

void clock_layer::sundial_programmed(size_t fault, uint64_t now_ps) {
  advance(now_ps);
  if (p_->sundial) p_->sundial->controller_now(uint32_t(fault), now_ps);
}

uint32_t clock_layer::root_node() const { return p_->sims.front()->current_root(); }
size_t clock_layer::faults() const { return p_->w.faults.size(); }
uint64_t clock_layer::fault_at_ps(size_t i) const { return p_->w.faults.at(i).f.at_ps; }

std::vector<unsigned> clock_layer::fault_links(size_t i) const {
  const resolved_fault& f = p_->w.faults.at(i);
  if (f.f.what == clock_fault::kind::broken_clock) return {};
  if (f.f.what == clock_fault::kind::link) return f.links;
  std::vector<uint32_t> nodes = f.nodes;
  if (f.f.what == clock_fault::kind::root) nodes = {p_->fault_root[i] != clock_world::none ? p_->fault_root[i] : root_node()};
  std::vector<unsigned> out;
  for (uint32_t u : nodes) out.insert(out.end(), p_->w.topo.nodes[u].port_link.begin(), p_->w.topo.nodes[u].port_link.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

clock_result clock_layer::finish(uint64_t end_ps) {
  impl& m = *p_;
  const topology& topo = m.w.topo;
  const clock_network_config& cfg = m.w.cfg;
  end_ps = std::min(end_ps, cfg.duration_ps);
  // In a fabric run the fabric has stepped the layer through everything before its end, and what
  // falls due at the end itself lies past the run, as the fabric's own wake-ups there do: a
  // message sent then would go into a fabric that has stopped (and freed its frames).
  if (!m.in_fabric) advance(end_ps);
  else if (m.started && next_event_ps() < end_ps)
    throw std::logic_error("clock layer: an event before the run's end was not run");
  clock_result& out = m.out;
  if (!m.w.samples.empty()) out.t_ps = m.w.samples;
  for (const topo_node& nd : topo.nodes) out.devices.push_back(nd.name);
  nlohmann::json& s = out.summary;
  std::vector<std::string> names;
  for (clock_algorithm a : cfg.algorithms) names.push_back(clock_algorithm_name(a));
  s["algorithms"] = names;
  out.root = topo.nodes[m.w.root].name;
  s["root"] = out.root;
  s["devices"] = m.w.n;
  s["duration_s"] = double(end_ps) * 1e-12;
  s["sync_interval_us"] = ps_as_us(cfg.sync_interval_ps);
  s["controller_delay_us"] = ps_as_us(cfg.controller_delay_ps);
  std::vector<std::string> faults;
  for (const resolved_fault& f : m.w.faults) faults.push_back(f.f.text);
  s["faults"] = faults;
  for (size_t i = 0; i < m.sims.size(); ++i) {
    out.algorithms.push_back(m.sims[i]->end(end_ps));
    s[clock_algorithm_name(cfg.algorithms[i])] = out.algorithms.back().summary;
  }
  return std::move(out);
}

clock_result run_clock_network(const topology& topo, const clock_network_config& cfg) {
  return clock_layer(topo, cfg, nullptr).finish(cfg.duration_ps);
}

}  // namespace netasic
