#include "fabric/pfc_deadlock_monitor.h"

#include <map>
#include <tuple>

#include <fmt/format.h>

namespace netasic {

pfc_deadlock_monitor::pfc_deadlock_monitor(const topology& t, const std::vector<std::unique_ptr<switch_model>>& switches,
                                           uint8_t lossless, uint64_t detect_ps)
    : t_(t), sw_(switches), lossless_(lossless), detector_(detect_ps),
      interval_ps_(std::max<uint64_t>(detect_ps / 4, 1)), next_check_ps_(detect_ps), sw_of_node_(t.nodes.size(), -1) {
  for (unsigned s = 0; s < t.switches.size(); ++s) sw_of_node_[t.switches[s]] = int(s);
}

std::vector<pfc_deadlock_monitor::queue_ref> pfc_deadlock_monitor::paused_queues(uint64_t now,
                                                                                 std::vector<paused_queue>& graph) const {
  // The nodes: every lossless egress queue toward a switch that is paused and holds frames.
  std::vector<queue_ref> refs;
  std::map<std::tuple<unsigned, unsigned, unsigned>, unsigned> index;
  for (unsigned s = 0; s < sw_.size(); ++s) {
    const switch_model& sw = *sw_[s];
    const topo_node& n = t_.nodes[t_.switches[s]];
    for (unsigned p = 0; p < sw.ports() && p < n.port_link.size(); ++p) {
      if (sw_of_node_[t_.links[n.port_link[p]].other(t_.switches[s])] < 0) continue;   // a host's PAUSE ends no cycle
      const uint8_t waiting = sw.paused(p, now) & sw.tm().backlogged(p) & lossless_;
      for (unsigned c = 0; c < num_priorities; ++c) {
        if (!(waiting >> c & 1)) continue;
        index[{s, p, c}] = unsigned(refs.size());
        refs.push_back({s, p, c});
        graph.push_back({sw.paused_since(p, c), sw.last_dequeue_ps(p, c), {}});
      }
    }
  }
  // The edges: queue (X, p, c) waits on (Y, r, c) when Y, at the far end of p, has its ingress
  // from X in XOFF and (Y, r, c) holds frames that came in there.
  for (unsigned i = 0; i < refs.size(); ++i) {
    const queue_ref& a = refs[i];
    const unsigned x = t_.switches[a.sw];
    const topo_link& l = t_.links[t_.nodes[x].port_link[a.port]];
    const unsigned y = unsigned(sw_of_node_[l.other(x)]), q = l.port_on(l.other(x));
    const switch_model& ys = *sw_[y];
    if (!ys.tm().xoff_active(q, a.prio)) continue;
    for (unsigned r = 0; r < ys.ports(); ++r) {
      const auto it = index.find({y, r, a.prio});
      if (it != index.end() && ys.tm().holds_from(r, a.prio, q)) graph[i].waits_on.push_back(it->second);
    }
  }
  return refs;
}

bool pfc_deadlock_monitor::poll(uint64_t now) {
  if (result_.detected || now < next_check_ps_) return false;
  next_check_ps_ = now + interval_ps_;
  ++result_.checks;
  std::vector<paused_queue> graph;
  const std::vector<queue_ref> refs = paused_queues(now, graph);
  const std::vector<std::vector<unsigned>> cycles = detector_.check(graph, now);
  if (cycles.empty()) return false;
  result_.detected = true;
  result_.detected_ps = now;
  for (const auto& c : cycles) {
    std::vector<pfc_deadlock_hop> hops;
    for (unsigned i : c) {
      const queue_ref& q = refs[i];
      const unsigned x = t_.switches[q.sw];
      const topo_link& l = t_.links[t_.nodes[x].port_link[q.port]];
      hops.push_back({fmt::format("{}.port{} priority {}", t_.nodes[x].name, q.port, q.prio),
                      fmt::format("{}->{} ({})", t_.nodes[x].name, t_.nodes[l.other(x)].name, l.name), graph[i].paused_since_ps});
    }
    result_.cycles.push_back(std::move(hops));
  }
  if (wave) wave->set(wave_id, now, 1);
  return true;
}

}  // namespace netasic
