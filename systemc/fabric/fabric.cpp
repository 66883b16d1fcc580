#include "fabric/fabric.h"

#include <algorithm>
#include <iostream>
#include <limits>
#include <unordered_set>

#include <fmt/format.h>

#include "fabric/build_memory.h"

namespace netasic {

// The port is the QP's ECMP entropy. The frames between two hosts keep their connections apart
// by 5-tuple, as on a real host (DETER and the telemetry sketches key a connection by it). A RoCE
// ACK carries its flow's UDP ports back, so a flow's port must differ from those of the flows the
// other way too: ports are distinct per pair of hosts, whichever sends.
void assign_source_ports(std::vector<flow_ctx>& flows) {
  constexpr uint32_t first = 49152, ports = 16384;
  auto key = [](const flow_ctx& f, uint32_t port) { return host_pair_port(f.src, f.dst, uint16_t(port), true); };
  std::unordered_set<uint64_t> taken;
  taken.reserve(flows.size());
  for (const flow_ctx& f : flows)
    if (f.src_port) taken.insert(key(f, f.src_port));
  for (flow_ctx& f : flows) {
    if (f.src_port) continue;
    const uint32_t hashed = (f.id * 2654435761u >> 18) % ports;
    uint32_t i = 0;
    while (i < ports && taken.count(key(f, first + (hashed + i) % ports))) ++i;
    f.src_port = uint16_t(first + (hashed + (i < ports ? i : 0)) % ports);
    taken.insert(key(f, f.src_port));
  }
}

uint64_t port_headroom(const fabric_config& cfg, const topo_link& l) {
  const bool to_host = cfg.topo.nodes[l.a].kind == node_kind::host || cfg.topo.nodes[l.b].kind == node_kind::host;
  return cfg.sw.port_headroom(l.rate_bps, l.delay_ps, cfg.nic.max_frame_bytes(),
                              to_host ? cfg.nic.pause_stop_ps() : cfg.sw.pause_stop_ps());
}

fabric::fabric(sc_core::sc_module_name name, fabric_config cfg, const std::vector<flow_spec>& specs)
    : sc_core::sc_module(name), cfg_(std::move(cfg)), pending_(specs), switch_graph_(cfg_.topo) {
  const topology& t = cfg_.topo;
  flows.resize(specs.size());
  for (const flow_spec& s : specs) {
    flow_ctx& f = flows[s.id];
    f.id = s.id;
    f.src = s.src;
    f.dst = s.dst;
    f.size_bytes = s.size_bytes;
    f.start_ps = s.start_ps;
    f.src_port = s.src_port;
  }
  assign_source_ports(flows);

  events_ = std::make_unique<event_queue>("events");
  bus_ = std::make_unique<regbus>("regbus");
  std::vector<unsigned> device_of_switch;
  for (unsigned s = 0; s < t.switches.size(); ++s) {
    const topo_node& n = t.nodes[t.switches[s]];
    switch_config sc = cfg_.sw;
    sc.hash_seed ^= s * 0x9E3779B1u;
    sc.addresses = cfg_.routes.addresses;   // the route table keyed by destination prefix
    sc.tier = n.tier;   // which bits of the hash it uses (switch_config::hash_tier_offset)
    sc.tm.seed = cfg_.seed * 0x100000001B3ull + s;   // each switch its own ECN draws
    sc.lb.seed = cfg_.seed * 0x9E3779B97F4A7C15ull + s;   // and its own load-balancer draws
    sc.lb.sketch.seed = sc.lb.seed;
    if (sc.lb.mode == lb_mode::conga && s < sc.lb.leaves) sc.lb.conga_leaf = int(s);   // leaves come first
    for (const fault_config::black_hole& b : cfg_.faults.black_holes)
      if (b.sw == s) {
        sc.black_hole_from_ps.resize(t.hosts.size(), UINT64_MAX);
        sc.black_hole_from_ps[b.host] = b.from_ps;
      }
    for (const fault_config::misroute& m : cfg_.faults.misroutes)
      if (m.sw == s) sc.misroutes.push_back(m.entry);
    std::vector<uint64_t> rates;
    for (unsigned li : n.port_link) {
      const topo_link& l = t.links[li];
      sc.host_port.push_back(t.nodes[l.a].kind == node_kind::host || t.nodes[l.b].kind == node_kind::host);
      rates.push_back(l.rate_bps);
      sc.tm.headroom_bytes.push_back(port_headroom(cfg_, l));
    }
    const uint64_t heap0 = heap_in_use_bytes();
    auto sw = std::make_unique<switch_model>(n.name.c_str(), s, rates, unsigned(t.hosts.size()), sc, stats, *events_);
    fabric_build_memory().switch_bytes += heap_in_use_bytes() - heap0;
    switches_.push_back(std::move(sw));
    device_of_switch.push_back(bus_->attach(switches_.back()->csr));
  }
  // T of congestion control: the unloaded RTT of one full packet to the farthest host, rounded
  // up to a microsecond ("slightly greater than the maximum RTT", as HPCC chose it).
  if (cfg_.nic.cc.algorithm != cc_algorithm::none && cfg_.nic.cc.base_rtt_ps == 0) {
    uint64_t rtt = 0;
    for (unsigned h = 1; h < t.hosts.size(); ++h) rtt = std::max(rtt, ideal_fct_ps(0, h, cfg_.nic.mtu_payload));
    constexpr uint64_t us = 1'000'000;
    cfg_.nic.cc.base_rtt_ps = std::max<uint64_t>(1, (rtt + us - 1) / us) * us;
  }
  // A NIC's only registers are its Sundial block: without a Sundial controller it needs no socket.
  const bool sundial_runs = cfg_.clock && std::find(cfg_.clock->algorithms.begin(), cfg_.clock->algorithms.end(),
                                                    clock_algorithm::sundial) != cfg_.clock->algorithms.end();
  for (unsigned h = 0; h < t.hosts.size(); ++h) {
    nic_config nc = cfg_.nic;
    nc.registers = sundial_runs;
    nc.rate_bps = t.links[t.nodes[t.hosts[h]].port_link[0]].rate_bps;
    nc.flowcut_seed = cfg_.seed * 0xD1B54A32D192ED03ull + h;   // each NIC its own Flowcut entropy
    const char* name = t.nodes[t.hosts[h]].name.c_str();
    // A DETER replay or a packet trace sends its frames open-loop, with no transport: the RoCE
    // NIC's replay engine does it whatever transport is set.
    const uint64_t heap0 = heap_in_use_bytes();
    std::unique_ptr<nic_endpoint> nic;
    if (nc.transport == nic_transport::tcp && !cfg_.replay) nic = std::make_unique<tcp_host>(name, nc, stats, flows, *events_);
    else nic = std::make_unique<host_nic>(name, nc, stats, flows, *events_);
    fabric_build_memory().host_bytes += heap_in_use_bytes() - heap0;
    hosts_.push_back(std::move(nic));
    hosts_.back()->on_flow_done = [this](flow_ctx& f) { flow_done(f); };
  }
  // The NICs' register blocks after the switches': the switches keep their device numbers.
  std::vector<unsigned> device_of_host;
  if (sundial_runs)
    for (const auto& h : hosts_) device_of_host.push_back(bus_->attach(h->csr()));
  ctrl_ = std::make_unique<route_controller>("route_controller", cfg_.routes, device_of_switch);
  ctrl_->bus.bind(bus_->in);
  if (cfg_.clock) {
    const clock_network_config& k = *cfg_.clock;
    clock_ = std::make_unique<clock_driver>(t, k, *events_);
    clock_->send = [this, bytes = k.frame_bytes](uint32_t node, uint32_t port, const sync_header& m) {
      switches_[switch_graph_.index_of[node]]->send_sync(port, m, bytes, now_ps());
    };
    for (unsigned s = 0; s < t.switches.size(); ++s) switches_[s]->attach_clock(clock_.get(), t.switches[s], cfg_.sync_priority);
    for (unsigned h = 0; h < t.hosts.size(); ++h) hosts_[h]->attach_clock(clock_.get(), t.hosts[h]);
    if (sundial_runs) {
      sundial_ = std::make_unique<sundial_controller>("sundial_controller", cfg_.topo, k, device_of_switch, device_of_host,
                                                      clock_.get());
      sundial_->bus.bind(bus_->in);
    }
    SC_METHOD(clock_start);
    SC_THREAD(clock_faults);
  }

  // Node index -> its tx/rx ports.
  std::vector<int> host_of(t.nodes.size(), -1);
  for (unsigned h = 0; h < t.hosts.size(); ++h) host_of[t.hosts[h]] = int(h);
  auto is_switch = [&](unsigned node) { return switch_graph_.index_of[node] != switch_graph::none; };
  auto tx = [&](unsigned node, unsigned port) -> pkt_tx_port& {
    return is_switch(node) ? switches_[switch_graph_.index_of[node]]->tx(port) : hosts_[unsigned(host_of[node])]->tx;
  };
  auto rx = [&](unsigned node, unsigned port) -> pkt_rx_port {
    return is_switch(node) ? switches_[switch_graph_.index_of[node]]->rx(port) : hosts_[unsigned(host_of[node])]->rx();
  };
  // Every link in one vector, reserved at once: a link is never moved once its ports point at it.
  const uint64_t links_heap0 = heap_in_use_bytes();
  links_.reserve(t.links.size());
  for (const topo_link& l : t.links) {
    // Into a switch, the link adds the switch's front end (and may cut through); into a NIC, its
    // RX pipe.
    auto timing_to = [&](unsigned node) {
      if (!is_switch(node)) return link_timing{l.rate_bps, l.delay_ps, cfg_.nic.clock_period_ps, cfg_.nic.rx_pipe_ps()};
      return link_timing{l.rate_bps, l.delay_ps, cfg_.sw.clock_period_ps, cfg_.sw.ingress_ps(), cfg_.sw.cut_through_bytes};
    };
    packet_link& pl = links_.emplace_back(timing_to(l.b), timing_to(l.a), *events_);
    connect(tx(l.a, l.a_port), pl.a_to_b, rx(l.b, l.b_port));
    connect(tx(l.b, l.b_port), pl.b_to_a, rx(l.a, l.a_port));
    const unsigned li = unsigned(links_.size() - 1);
    for (uint8_t dir : {0, 1}) {
      link_direction* d = dir ? &pl.b_to_a : &pl.a_to_b;
      d->hop_counter = &stats.hops;
      auto lost = [this, li, dir](packet& p, uint64_t drop_counters::*reason) {
        if (stats.log && !is_internal(p)) stats.log->add(p, drop_reason_name(reason), true, li, -1, -1, dir, now_ps());
        stats.drop(p, reason);
      };
      d->on_drop = [lost](packet& p) { lost(p, &drop_counters::link_down); };   // PFC frames are not counted
      for (const fault_config::link_drop& f : cfg_.faults.link_drops)
        if (f.link == li && f.dir == dir) {
          link_faults_.push_back(std::make_unique<link_fault>(f.rate, cfg_.seed * 0xA0761D6478BD642Full + li * 2 + dir));
          link_faults_.back()->on_loss = [lost](packet& p) { lost(p, &drop_counters::link_fault); };
          d->fault = link_faults_.back().get();
        }
    }
    pl.set_up(!l.failed);
  }
  fabric_build_memory().link_bytes += heap_in_use_bytes() - links_heap0;

  if (cfg_.sw.flowradar.on && cfg_.sw.flowradar.hosts)   // each its own hashes: ids after the switches'
    for (unsigned h = 0; h < t.hosts.size(); ++h) {
      host_flowradar_.push_back(std::make_unique<flowradar_stage>(cfg_.sw.flowradar, unsigned(t.switches.size()) + h));
      const unsigned node = t.hosts[h], li = t.nodes[node].port_link[0];
      packet_link& pl = links_[li];
      for (bool from_host : {true, false}) {
        link_direction& d = (t.links[li].a == node) == from_host ? pl.a_to_b : pl.b_to_a;
        host_flowradar_meters_.push_back(std::make_unique<flowradar_host_meter>(*host_flowradar_.back(), from_host));
        host_flowradar_meters_.back()->next = d.meter;
        d.meter = host_flowradar_meters_.back().get();
      }
    }

  if (!cfg_.faults.link_flaps.empty()) {
    for (const fault_config::link_flap& f : cfg_.faults.link_flaps) {
      flap_next_ps_.push_back(f.down_ps);
      flap_probe_links_.push_back(f.link);
    }
    flap_down_.assign(flap_next_ps_.size(), false);
    std::sort(flap_probe_links_.begin(), flap_probe_links_.end());
    flap_probe_links_.erase(std::unique(flap_probe_links_.begin(), flap_probe_links_.end()), flap_probe_links_.end());
    SC_METHOD(link_flaps);   // initialised: its first activation, at 0, arms the first step
    sensitive << flap_step_;
  }

  if (cfg_.deter.mode != deter_mode::off) deter_wire(host_of);
  if (cfg_.replay) {   // a DETER replay or traffic.trace_mode = "packets": the NICs send each host's frames
    for (size_t h = 0; h < hosts_.size(); ++h) static_cast<host_nic&>(*hosts_[h]).replay((*cfg_.replay)[h]);
    SC_METHOD(replay_start);
  }

  SC_METHOD(start_flows);
  sensitive << flow_start_;
  if (pending_.empty()) dont_initialize();

  // Probes: for every switch port that faces a link that is up, its queue, the priorities the
  // link partner has paused and its ECN marks; for every switch, its buffer and its drops.
  if (cfg_.probe_interval_ps) {
    if (cfg_.sw.pfc_deadlock_detect_ps && cfg_.sw.tm.lossless)   // checked on the sampler's ticks
      deadlock_ = std::make_unique<pfc_deadlock_monitor>(cfg_.topo, switches_, cfg_.sw.tm.lossless, cfg_.sw.pfc_deadlock_detect_ps);
    probes.interval_s = double(cfg_.probe_interval_ps) * 1e-12;
    // At most 4 series a switch port and a switch, 2 a flapped link, 1 a host: reserved at once,
    // since growing by doubling would hold the old and the new array together (45 MiB at k = 32).
    size_t most = 4 * t.switches.size() + 2 * flap_probe_links_.size() + t.hosts.size();
    for (unsigned node : t.switches) most += 4 * t.nodes[node].port_link.size();
    probes.series.reserve(most);
    for (unsigned s = 0; s < t.switches.size(); ++s) {
      const topo_node& n = t.nodes[t.switches[s]];
      for (unsigned p = 0; p < n.port_link.size(); ++p) {
        if (t.links[n.port_link[p]].failed) continue;
        probe_ports_.push_back({s, p, t.links[n.port_link[p]].rate_bps});
        probes.series.push_back({n.name, fmt::format("port{}.qdepth", p), "bytes", {}});
        probes.series.push_back({n.name, fmt::format("port{}.paused", p), "priority bitmap", {}});
        probes.series.push_back({n.name, fmt::format("port{}.ecn_marks", p), "packets", {}});
        probes.series.push_back({n.name, fmt::format("port{}.utilization", p), "%", {}});
      }
    }
    for (unsigned s = 0; s < t.switches.size(); ++s) {
      probes.series.push_back({t.nodes[t.switches[s]].name, "buffer.used", "bytes", {}});
      probes.series.push_back({t.nodes[t.switches[s]].name, "buffer.headroom_used", "bytes", {}});
      probes.series.push_back({t.nodes[t.switches[s]].name, "drops", "packets", {}});
      if (cfg_.sw.lb.mode == lb_mode::letflow)
        probes.series.push_back({t.nodes[t.switches[s]].name, "flowlets", "entries", {}});
    }
    // faults.link_flap: each flapped link's state and the frames it lost being down (both
    // directions; sent onto it while down, or on the wire when it went down).
    for (unsigned li : flap_probe_links_) {
      probes.series.push_back({t.links[li].name, "up", "state", {}});
      probes.series.push_back({t.links[li].name, "frames_lost_down", "frames", {}});
    }
    // Each NIC's transmit rate over the last interval (data, retransmissions included).
    for (unsigned h = 0; h < t.hosts.size(); ++h) probes.series.push_back({t.nodes[t.hosts[h]].name, "tx_rate", "Mbps", {}});
    host_tx_bytes_.assign(t.hosts.size(), 0);
    SC_METHOD(sample);
    sensitive << sample_tick_;
  }
}

void fabric::deter_wire(const std::vector<int>& host_of) {
  deter_log_ = std::make_unique<deter_queue_log>();
  for (auto& sw : switches_) sw->deter_log = deter_log_.get();
  if (cfg_.deter.mode == deter_mode::record) {
    // Each host's record taps its own cable: what it puts on the wire, what reaches it.
    deter_rec_ = std::make_unique<deter_recorder>(unsigned(hosts_.size()), cfg_.deter.th_ps);
    if (cfg_.deter.clock == deter_clock::clock_layer)   // read_deter made sure the clock layer runs
      deter_rec_->host_clock = [this](unsigned h, uint64_t t) { return clock_->local_ps(cfg_.topo.hosts[h], t); };
    for (size_t i = 0; i < cfg_.topo.links.size(); ++i) {
      const topo_link& l = cfg_.topo.links[i];
      if (host_of[l.a] >= 0) {
        links_[i].a_to_b.tap = &deter_rec_->uplink(unsigned(host_of[l.a]));
        links_[i].b_to_a.tap = &deter_rec_->downlink(unsigned(host_of[l.a]));
      } else if (host_of[l.b] >= 0) {
        links_[i].b_to_a.tap = &deter_rec_->uplink(unsigned(host_of[l.b]));
        links_[i].a_to_b.tap = &deter_rec_->downlink(unsigned(host_of[l.b]));
      }
    }
  }
}

void fabric::replay_start() {
  for (auto& h : hosts_) static_cast<host_nic&>(*h).start_replay();   // replaying, every host is a host_nic
}

void fabric::start_flows() {
  const uint64_t now = now_ps();
  while (next_flow_ < pending_.size() && pending_[next_flow_].start_ps <= now) {
    const flow_spec& s = pending_[next_flow_++];
    ++flows_started;
    hosts_[s.src]->start_flow(s.id);
  }
  if (next_flow_ < pending_.size()) flow_start_.notify(ps(pending_[next_flow_].start_ps - now));
}

void fabric::flow_done(flow_ctx&) {
  ++flows_completed;
  // Every flow is done and no more will start: nothing left to simulate once the last PAUSE
  // frame and mirrored copy have arrived.
  if (flows_completed != pending_.size() || cfg_.run_to_end) return;
  if (stats.internal_live == 0) events_->stop();
  else stats.on_internal_drained = [this] { events_->stop(); };
}

void fabric::sample() {
  const uint64_t now = now_ps();
  if (probes.t_s.empty()) {
    // Every sample the arrival window takes (those before it ends), at once: growing by
    // doubling leaves up to half of each series unused (8 MB at k = 32).
    const size_t window = size_t((cfg_.arrivals_end_ps + cfg_.probe_interval_ps - 1) / cfg_.probe_interval_ps);
    probes.t_s.reserve(window);
    for (probe_series& ps : probes.series) ps.samples.reserve(window);
  }
  probes.t_s.push_back(double(now) * 1e-12);
  size_t i = 0;
  for (probe_ref& r : probe_ports_) {
    const switch_model& sw = *switches_[r.sw];
    probes.series[i++].samples.push_back(int64_t(sw.queue_depth(r.port)));
    probes.series[i++].samples.push_back(int64_t(sw.paused(r.port, now)));
    probes.series[i++].samples.push_back(int64_t(sw.ecn_marked(r.port)));
    // Bytes handed to the wire since the last sample over what the link could carry (frames
    // counted when they start, so one sample may read a frame above 100%).
    const uint64_t sent = sw.tx_bytes(r.port);
    probes.series[i++].samples.push_back(
        int64_t(double(sent - r.tx_bytes) * 8 * 100 * 1e12 / (double(r.rate_bps) * double(cfg_.probe_interval_ps))));
    r.tx_bytes = sent;
  }
  for (const auto& sw : switches_) {
    probes.series[i++].samples.push_back(int64_t(sw->buffer_used()));
    probes.series[i++].samples.push_back(int64_t(sw->headroom_used()));
    probes.series[i++].samples.push_back(int64_t(sw->drops().total()));
    if (cfg_.sw.lb.mode == lb_mode::letflow) {
      sw->lb_advance(now);
      probes.series[i++].samples.push_back(int64_t(sw->lb().flowlet_counts()->occupancy));
    }
  }
  for (unsigned li : flap_probe_links_) {
    const packet_link& l = links_[li];
    probes.series[i++].samples.push_back(l.a_to_b.up() ? 1 : 0);
    const link_counters &ab = l.a_to_b.counters(), &ba = l.b_to_a.counters();
    probes.series[i++].samples.push_back(int64_t(ab.dropped_down + ab.lost_in_flight + ba.dropped_down + ba.lost_in_flight));
  }
  for (size_t h = 0; h < hosts_.size(); ++h) {
    const uint64_t bytes = hosts_[h]->data_bytes_sent();
    probes.series[i++].samples.push_back(int64_t((bytes - host_tx_bytes_[h]) * 8 * 1'000'000 / cfg_.probe_interval_ps));
    host_tx_bytes_[h] = bytes;
  }
  if (clock_) clock_->sample(now);
  if (on_sample) on_sample(now);
  if (deadlock_ && deadlock_->poll(now) && cfg_.sw.on_deadlock == pfc_deadlock_action::stop) return sc_core::sc_stop();
  sample_tick_.notify(ps(cfg_.probe_interval_ps));
}

void fabric::clock_start() { clock_->advance(now_ps()); }

void fabric::clock_faults() {
  // Each fault takes its links down at its time (a device's: all of its links; a broken clock:
  // none); clock.controller_delay later the route controller installs routes around every link
  // down by then. Nothing that owns memory lives across a wait(): SystemC never unwinds the stack
  // of a thread still waiting when the run ends, so it would be leaked.
  const clock_network_config& k = *cfg_.clock;
  auto step_list = [&] {   // (time, fault index * 2 + 0: down, 1: reroute), in time order
    std::vector<std::pair<uint64_t, size_t>> steps;
    for (size_t i = 0; i < clock_->faults(); ++i) {
      steps.push_back({clock_->fault_at_ps(i), 2 * i});
      steps.push_back({clock_->fault_at_ps(i) + k.controller_delay_ps, 2 * i + 1});
    }
    std::stable_sort(steps.begin(), steps.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return steps;
  };
  for (size_t n = 0; n < 2 * clock_->faults(); ++n) {
    const auto [at, step] = step_list()[n];
    if (at > now_ps()) wait(ps(at - now_ps()));
    if (step % 2 == 0) {
      clock_->advance(now_ps());   // a root fault takes down the root of this moment
      for (unsigned li : clock_->fault_links(step / 2)) links_[li].set_up(false);
      continue;
    }
    topology now_topo = cfg_.topo;   // with every link a fault has taken down by now
    const auto steps = step_list();
    for (size_t d = 0; d < n; ++d)
      if (steps[d].second % 2 == 0)
        for (unsigned li : clock_->fault_links(steps[d].second / 2)) now_topo.links[li].failed = true;
    route_plan plan = plan_fabric_routes(now_topo, cfg_.sw);
    bool fits = true;
    for (const auto& r : plan.per_switch) fits = fits && r.members.size() <= cfg_.sw.member_capacity;
    if (!fits) {
      std::cerr << "warning: the routes around the failed links do not fit the ECMP member table; the old routes stay\n";
      continue;
    }
    ctrl_->install(plan);
    ++reroutes_;
  }
}

void fabric::link_flaps() {
  const uint64_t now = now_ps();
  const std::vector<fault_config::link_flap>& flaps = cfg_.faults.link_flaps;
  // Ups before downs: one outage of a link may end at the instant its next one begins.
  for (const bool ending : {true, false})
    for (size_t i = 0; i < flaps.size(); ++i) {
      if (flap_next_ps_[i] != now || flap_down_[i] != ending) continue;
      const fault_config::link_flap& f = flaps[i];
      const uint64_t outage = f.up_ps - f.down_ps;
      if (ending) {
        links_[f.link].set_up(true);
        flap_next_ps_[i] = f.every_ps ? now - outage + f.every_ps : UINT64_MAX;
      } else {
        links_[f.link].fail_now(now);
        ++link_outages_;
        flap_next_ps_[i] = now + outage;
      }
      flap_down_[i] = !ending;
    }
  const uint64_t next = *std::min_element(flap_next_ps_.begin(), flap_next_ps_.end());
  if (next != UINT64_MAX) flap_step_.notify(ps(next - now));
}

uint64_t fabric::sync_dropped() const {
  uint64_t n = 0;
  for (const auto& sw : switches_) n += sw->sync_dropped();
  return n;
}

uint64_t fabric::sync_wait_max_ps() const {
  uint64_t n = 0;
  for (const auto& sw : switches_) n = std::max(n, sw->sync_wait_max_ps());
  return n;
}

std::pair<uint64_t, std::string> fabric::peak_queue() const {
  std::pair<uint64_t, std::string> best{0, ""};
  for (const auto& sw : switches_)
    for (unsigned p = 0; p < sw->ports(); ++p)
      if (sw->queue_peak(p) > best.first) best = {sw->queue_peak(p), fmt::format("{}.port{}", sw->basename(), p)};
  return best;
}

uint64_t fabric::ideal_fct_ps(uint32_t src, uint32_t dst, uint64_t bytes) const {
  // Walk one shortest path (the fastest link at each step), then price it: store-and-forward,
  // no queueing, the last packet behind (n-1) bottleneck slots, and its ACK coming back; each
  // NIC adds its TX pipe to what it sends and its RX pipe to what it receives.
  const topology& t = cfg_.topo;
  const topo_link& last_hop = t.links[t.nodes[t.hosts[dst]].port_link[0]];
  if (last_hop.failed) return 0;   // unreachable
  // Distances to the destination's switch, shared by every host under it. Kept for switches
  // only, 4 B a switch: a run keeps one table per destination rack, and at 8,192 hosts tables
  // over every node were 19 MB.
  const unsigned rack = t.host_switch(dst);
  auto cached = rack_distances_.find(rack);
  if (cached == rack_distances_.end()) {
    std::vector<unsigned> sw, queue;
    switch_graph_.distances_from(switch_graph_.index_of[rack], sw, queue);
    cached = rack_distances_.emplace(rack, std::move(sw)).first;
  }
  const std::vector<unsigned>& sw_dist = cached->second;
  constexpr unsigned inf = std::numeric_limits<unsigned>::max();
  // A host forwards nothing, so its distance is one more than its nearest switch's.
  auto dist = [&](unsigned node) {
    if (t.nodes[node].kind == node_kind::sw) return sw_dist[switch_graph_.index_of[node]];
    unsigned d = inf;
    for (unsigned li : t.nodes[node].port_link) {
      const topo_link& l = t.links[li];
      const unsigned peer = l.other(node);
      if (!l.failed && t.nodes[peer].kind == node_kind::sw) d = std::min(d, sw_dist[switch_graph_.index_of[peer]]);
    }
    return d == inf ? inf : d + 1;
  };
  std::vector<const topo_link*> path;
  unsigned node = t.hosts[src];
  while (node != rack) {
    const topo_link* best = nullptr;
    const unsigned here = dist(node);
    for (unsigned li : t.nodes[node].port_link) {
      const topo_link& l = t.links[li];
      const unsigned peer = l.a == node ? l.b : l.a;
      if (l.failed || t.nodes[peer].kind != node_kind::sw || dist(peer) + 1 != here) continue;
      if (!best || l.rate_bps > best->rate_bps) best = &l;
    }
    if (!best) return 0;   // unreachable
    path.push_back(best);
    node = best->a == node ? best->b : best->a;
  }
  path.push_back(&last_hop);
  const uint32_t mtu = cfg_.nic.mtu_payload;
  const uint64_t n = (bytes + mtu - 1) / mtu;
  packet full, last, ack;
  full.payload_bytes = mtu;
  last.payload_bytes = uint32_t(bytes - (n - 1) * mtu);
  ack.kind = pkt_kind::ack;
  full.int_enabled = last.int_enabled = ack.int_enabled = cfg_.nic.int_enabled;
  if (cfg_.nic.transport == nic_transport::tcp) full.ip.protocol = last.ip.protocol = ack.ip.protocol = ipv4_header::proto_tcp;
  // Per switch: every pass through the pipeline, and the recirculation port between passes.
  const switch_config& sw = cfg_.sw;
  auto through_switch = [&](const packet& p) {
    const uint64_t extra = p.kind == pkt_kind::data ? sw.recirculations : 0;   // only data recirculates
    return (1 + extra) * sw.pass_ps() + extra * link_timing{sw.recirc_rate_bps}.wire_ps(p.frame_bytes() + link_timing::preamble_bytes);
  };
  // The last packet's first bit leaves the source at 0; at each switch it starts out after the
  // pipeline, from its last bit (store and forward) or its first bytes (cut-through, never running
  // out before its last bit is in).
  auto one_way = [&](const packet& p) {
    uint64_t start = 0, end = 0;
    for (size_t i = 0; i < path.size(); ++i) {
      const link_timing lt{path[i]->rate_bps, path[i]->delay_ps};
      if (i > 0) {
        const uint64_t cut = sw.cut_through_bytes && sw.cut_through_bytes < p.frame_bytes()
                                 ? start + path[i - 1]->delay_ps + link_timing{path[i - 1]->rate_bps}.wire_ps(sw.cut_through_bytes + link_timing::preamble_bytes)
                                 : end;
        start = std::max(cut + through_switch(p), end - std::min(end, lt.wire_ps(p.frame_bytes() + link_timing::preamble_bytes)));
      }
      end = start + lt.arrival_after_ps(p.frame_bytes());
    }
    return end;
  };
  uint64_t slot = 0;
  for (const topo_link* l : path) slot = std::max(slot, link_timing{l->rate_bps, l->delay_ps}.occupancy_ps(full.frame_bytes()));
  std::reverse(path.begin(), path.end());
  const uint64_t back = one_way(ack);
  std::reverse(path.begin(), path.end());
  const uint64_t nic = 2 * (cfg_.nic.tx_pipe_ps() + cfg_.nic.rx_pipe_ps());
  return (n - 1) * slot + one_way(last) + back + nic;
}

}  // namespace netasic
