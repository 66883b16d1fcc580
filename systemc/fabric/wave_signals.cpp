#include "fabric/wave_signals.h"

#include <fmt/format.h>

#include "output/vcd.h"

namespace netasic {

namespace {
// As the fabric builds its monitor: with a lossless priority and the sampler's ticks.
bool deadlock_detector_on(const fabric_config& cfg) {
  return cfg.sw.pfc_deadlock_detect_ps && cfg.sw.tm.lossless && cfg.probe_interval_ps;
}
}  // namespace

std::vector<wave_point> wave_points(const fabric_config& cfg) {
  const topology& t = cfg.topo;
  std::vector<wave_point> out;
  auto port_points = [&](const std::string& dev, bool sw, unsigned index, unsigned port) {
    const std::string p = fmt::format("{}.port{}.", dev, port);
    if (sw) {
      out.push_back({p + "queue_bytes", wave_kind::queue_bytes, sw, index, port, 0});
      out.push_back({p + "ecn_marks", wave_kind::ecn_marks, sw, index, port, 0});
    }
    for (unsigned c = 0; c < 8; ++c) out.push_back({p + fmt::format("pfc_pause.p{}", c), wave_kind::pfc_pause, sw, index, port, c});
    out.push_back({p + "tx_busy", wave_kind::tx_busy, sw, index, port, 0});
    out.push_back({p + "tx_frames", wave_kind::tx_frames, sw, index, port, 0});
  };
  for (unsigned s = 0; s < t.switches.size(); ++s) {
    const topo_node& n = t.nodes[t.switches[s]];
    for (unsigned p = 0; p < n.port_link.size(); ++p) port_points(n.name, true, s, p);
    if (cfg.sw.lb.mode == lb_mode::letflow) out.push_back({n.name + ".flowlet_table.entries", wave_kind::flowlet, true, s, 0, 0});
    if (cfg.sw.lb.mode == lb_mode::balance_sketch)
      out.push_back({n.name + ".balance_sketch.entries", wave_kind::sketch, true, s, 0, 0});
    if (cfg.sw.flowcut_on) out.push_back({n.name + ".flowcut_table.entries", wave_kind::flowcut, true, s, 0, 0});
  }
  for (unsigned h = 0; h < t.hosts.size(); ++h) port_points(t.nodes[t.hosts[h]].name, false, h, 0);
  if (deadlock_detector_on(cfg)) out.push_back({"fabric.pfc_deadlock", wave_kind::pfc_deadlock, false, 0, 0, 0});
  return out;
}

// Mirrors the probe series the fabric (fabric.cpp) and the clock layer (run_summary.cpp) make;
// the system test WaveCli.PredictedProbePaths holds the two together.
std::vector<std::string> sampled_probe_paths(const fabric_config& cfg, const std::vector<std::string>& clock_algorithms) {
  if (!cfg.probe_interval_ps) return {};
  const topology& t = cfg.topo;
  std::vector<std::string> out;
  auto add = [&](const std::string& dev, const std::string& name, const std::string& unit) {
    out.push_back(vcd_signal_path(probe_series{dev, name, unit, {}}));
  };
  for (unsigned s = 0; s < t.switches.size(); ++s) {
    const topo_node& n = t.nodes[t.switches[s]];
    for (unsigned p = 0; p < n.port_link.size(); ++p) {
      if (t.links[n.port_link[p]].failed) continue;
      add(n.name, fmt::format("port{}.qdepth", p), "bytes");
      add(n.name, fmt::format("port{}.paused", p), "priority bitmap");
      add(n.name, fmt::format("port{}.ecn_marks", p), "packets");
      add(n.name, fmt::format("port{}.utilization", p), "%");
    }
    add(n.name, "buffer.used", "bytes");
    add(n.name, "buffer.headroom_used", "bytes");
    add(n.name, "drops", "packets");
    if (cfg.sw.lb.mode == lb_mode::letflow) add(n.name, "flowlets", "entries");
  }
  for (unsigned h = 0; h < t.hosts.size(); ++h) add(t.nodes[t.hosts[h]].name, "tx_rate", "Mbps");
  for (const std::string& a : clock_algorithms)
    for (const topo_node& n : t.nodes)
      for (const char* what : {".epsilon", ".offset", ".offset_ideal"}) add(n.name, "clock." + a + what, "ns");
  return out;
}

std::string default_wave_patterns(const fabric_config& cfg) {
  const topology& t = cfg.topo;
  if (t.switches.empty()) return "*";
  // The first switch's queues, pause levels, marks and tables; not the per-frame signals
  // (tx_busy, tx_frames), which are most of a trace and which a user asks for by name.
  const std::string sw = t.nodes[t.switches.front()].name;
  std::string p = fmt::format("{0}.*.queue_bytes,{0}.*.pfc_pause.*,{0}.*.ecn_marks", sw);
  if (cfg.sw.lb.mode == lb_mode::letflow || cfg.sw.lb.mode == lb_mode::balance_sketch || cfg.sw.flowcut_on)
    p += fmt::format(",{}.*.entries", sw);
  if (cfg.clock && cfg.probe_interval_ps) p += fmt::format(",{}.clock.*", sw);   // its sampled epsilon and offsets
  if (deadlock_detector_on(cfg)) p += ",fabric.pfc_deadlock";
  return p;
}

namespace {

// The link direction a node's port transmits on.
link_direction& tx_direction(fabric& fab, unsigned node, unsigned port) {
  const topology& t = fab.config().topo;
  const unsigned li = t.nodes[node].port_link[port];
  packet_link& l = fab.links()[li];
  return t.links[li].a == node && t.links[li].a_port == port ? l.a_to_b : l.b_to_a;
}

}  // namespace

void attach_waves(fabric& fab, wave_trace& w, const std::vector<wave_point>& points, const std::vector<bool>& selected) {
  const topology& t = fab.config().topo;
  std::vector<switch_waves> sw(t.switches.size());
  for (unsigned s = 0; s < t.switches.size(); ++s) {
    const size_t ports = t.nodes[t.switches[s]].port_link.size();
    sw[s].queue_bytes.assign(ports, wave_trace::off);
    sw[s].ecn_marks.assign(ports, wave_trace::off);
    std::array<uint32_t, num_priorities> none;
    none.fill(wave_trace::off);
    sw[s].pfc_pause.assign(ports, none);
  }
  std::vector<std::array<uint32_t, 8>> host_pause(t.hosts.size());
  for (auto& a : host_pause) a.fill(wave_trace::off);
  for (size_t i = 0; i < points.size(); ++i) {
    if (!selected[i]) continue;
    const wave_point& p = points[i];
    const bool level = p.kind == wave_kind::pfc_pause || p.kind == wave_kind::tx_busy || p.kind == wave_kind::pfc_deadlock;
    const uint32_t id = w.add({p.name, level ? 1u : 64u, false});
    const unsigned node = p.is_switch ? t.switches[p.device] : t.hosts[p.device];
    switch (p.kind) {
      case wave_kind::queue_bytes: sw[p.device].queue_bytes[p.port] = id; break;
      case wave_kind::ecn_marks: sw[p.device].ecn_marks[p.port] = id; break;
      case wave_kind::pfc_pause: (p.is_switch ? sw[p.device].pfc_pause[p.port] : host_pause[p.device])[p.prio] = id; break;
      case wave_kind::flowlet: sw[p.device].flowlet = id; break;
      case wave_kind::sketch: sw[p.device].sketch = id; break;
      case wave_kind::flowcut: sw[p.device].flowcut = id; break;
      case wave_kind::pfc_deadlock:
        if (pfc_deadlock_monitor* m = fab.deadlock()) {
          m->wave = &w;
          m->wave_id = id;
          w.set(id, 0, 0);
        }
        break;
      case wave_kind::tx_busy:
      case wave_kind::tx_frames: {
        link_direction& d = tx_direction(fab, node, p.port);
        d.wave = &w;
        (p.kind == wave_kind::tx_busy ? d.wave_busy : d.wave_frames) = id;
        break;
      }
    }
  }
  for (unsigned s = 0; s < t.switches.size(); ++s) fab.switches()[s]->attach_waves(w, sw[s]);
  for (unsigned h = 0; h < t.hosts.size(); ++h) fab.hosts()[h]->attach_waves(w, host_pause[h]);
}

}  // namespace netasic
