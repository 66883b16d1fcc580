// The fabric: switches, NICs and links instantiated from a topology, the register bus and the
// route controller, the traffic source that starts flows, and the probe sampler.
#pragma once
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include <systemc>

#include "clock/clock_driver.h"
#include "clock/sundial_controller.h"
#include "common/huge_pages.h"
#include "tlm/run_stats.h"
#include "fabric/pfc_deadlock_monitor.h"
#include "fabric/route_controller.h"
#include "fabric/route_planner.h"
#include "topology/topology.h"
#include "nic/deter_recorder.h"
#include "nic/host.h"
#include "nic/tcp_host.h"
#include "output/run_data.h"
#include "switch/switch.h"
#include "tlm/deter_queue_log.h"
#include "tlm/link.h"
#include "tlm/regbus.h"
#include "workload/traffic.h"

namespace netasic {

// Injected faults (faults.*, docs/datasheets/lossradar.md).
struct fault_config {
  struct link_drop {
    unsigned link = 0;
    uint8_t dir = 0;                // 0: from the link's end a to b; 1: from b to a
    double rate = 0;                // each frame lost with this probability
  };
  struct black_hole {
    unsigned sw = 0, host = 0;      // switch index drops every packet to host index
    uint64_t from_ps = 0;           // from this time on
  };
  // faults.link_flap (docs/datasheets/link.md): the link is down over [down_ps, up_ps), and again
  // every every_ps after (0: once). Outages of one link never overlap (read_faults checks).
  struct link_flap {
    unsigned link = 0;
    uint64_t down_ps = 0, up_ps = 0, every_ps = 0;
  };
  std::vector<link_drop> link_drops;
  std::vector<black_hole> black_holes;
  std::vector<link_flap> link_flaps;
  // faults.misroute: the stale entry of switch index `sw`.
  struct misroute {
    unsigned sw = 0;
    switch_config::misroute entry;
  };
  std::vector<misroute> misroutes;
};

struct fabric_config {
  topology topo;
  route_plan routes;                // plan_routes(topo), installed by the route controller
  switch_config sw;
  nic_config nic;
  uint64_t arrivals_end_ps = 0;     // no flow starts after this
  uint64_t probe_interval_ps = 0;   // 0 = no probes
  uint64_t seed = 1;                // sim.seed (switches' ECN draws)
  bool run_to_end = false;          // keep running (and sampling) after the last flow: runs with clock faults
  // The clock layer (null = none): its sync-messages are frames at TM priority sync_priority.
  // With Sundial, its controller programs the switches' and NICs' Sundial registers over the
  // register bus.
  // A fault takes its links down for the traffic too; the route controller routes around them
  // after clock->controller_delay_ps.
  const clock_network_config* clock = nullptr;
  uint8_t sync_priority = 7;
  // DETER (docs/datasheets/deter.md): record taps on the hosts' links and a queue log in every
  // switch.
  deter_config deter;
  // Each host's frames, sent open-loop by its NIC (no flows start): a DETER replay's
  // reconstruction or a trace played as packets (traffic.trace_mode = "packets").
  const std::vector<packet_trace>* replay = nullptr;
  fault_config faults;
  lossradar_config lossradar;       // telemetry.lossradar: the meters are the run's (run/lossradar_collector.h)
};

// PFC headroom (per lossless priority) of a switch's port on link l: pfc.headroom, or enough for
// the link and for how late the partner at its far end stops, a switch or a NIC.
uint64_t port_headroom(const fabric_config& cfg, const topo_link& l);

// A source port between two hosts, as one key: with `either_way`, the same key whichever host
// sends (a RoCE ACK carries its flow's ports back, so both directions share the port space).
inline uint64_t host_pair_port(uint32_t src, uint32_t dst, uint16_t port, bool either_way) {
  const uint32_t a = either_way ? std::min(src, dst) : src, b = either_way ? std::max(src, dst) : dst;
  return uint64_t(a) << 40 | uint64_t(b) << 16 | port;
}

// The fabric's links, one array: at k = 32 13 MB that every hop reads twice, on huge pages.
using link_array = std::vector<packet_link, huge_page_allocator<packet_link>>;

// Each flow without a source port (0) gets its ephemeral one: hashed from its id, in
// 49152..65535, and distinct from the port of every other flow between its two hosts (either
// way) while they have ports to spare (a hashed port already held moves to the next free one).
void assign_source_ports(std::vector<flow_ctx>& flows);

class fabric : public sc_core::sc_module {
  SC_HAS_PROCESS(fabric);

 public:
  // Takes the configuration by value: a caller done with it moves it in rather than keep two
  // copies of the topology and route plan (6 MB at k = 32).
  fabric(sc_core::sc_module_name name, fabric_config cfg, const std::vector<flow_spec>& flows);

  run_stats stats;
  std::vector<flow_ctx> flows;
  probe_set probes;
  uint64_t flows_started = 0, flows_completed = 0;
  // Called at every probe sample with the current time (progress display).
  std::function<void(uint64_t now_ps)> on_sample;

  const fabric_config& config() const { return cfg_; }
  const std::vector<std::unique_ptr<switch_model>>& switches() const { return switches_; }
  const link_array& links() const { return links_; }   // in topology link order
  const std::vector<std::unique_ptr<nic_endpoint>>& hosts() const { return hosts_; }
  // telemetry.flowradar_hosts: host h's flowset (null: hosts keep none).
  flowradar_stage* host_flowradar(unsigned h) const { return h < host_flowradar_.size() ? host_flowradar_[h].get() : nullptr; }
  const route_controller& controller() const { return *ctrl_; }
  const sundial_controller* sundial() const { return sundial_.get(); }
  clock_driver* clock() { return clock_.get(); }
  uint64_t sync_dropped() const;   // sync-messages the switches' traffic managers refused
  uint64_t sync_wait_max_ps() const;   // over the switches (switch_model::sync_wait_max_ps)
  uint32_t reroutes() const { return reroutes_; }
  uint64_t link_outages() const { return link_outages_; }   // faults.link_flap: outages begun
  deter_recorder* deter_record() { return deter_rec_.get(); }     // record mode, else null
  // The PFC deadlock detector (pfc.deadlock_detect > 0 with a lossless priority), else null.
  pfc_deadlock_monitor* deadlock() { return deadlock_.get(); }
  const pfc_deadlock_monitor* deadlock() const { return deadlock_.get(); }
  const deter_queue_log* deter_log() const { return deter_log_.get(); }   // DETER on, else null
  const event_queue& events() const { return *events_; }
  event_queue& events() { return *events_; }
  std::vector<std::unique_ptr<switch_model>>& switches() { return switches_; }
  link_array& links() { return links_; }
  // The same flow alone on an idle fabric (analytic, see docs/timing-model.md).
  uint64_t ideal_fct_ps(uint32_t src, uint32_t dst, uint64_t bytes) const;
  // Peak queue depth over all switch ports, and its port name.
  std::pair<uint64_t, std::string> peak_queue() const;

 private:
  void start_flows();
  void sample();
  void clock_start();    // the clock layer's first step, at t = 0
  void replay_start();   // replay (DETER or a packet trace): every NIC's first frame
  void deter_wire(const std::vector<int>& host_of);
  void clock_faults();   // faults on the links, then new routes
  void link_flaps();     // faults.link_flap: each link down and up at its times
  void flow_done(flow_ctx& f);

  fabric_config cfg_;
  std::vector<std::unique_ptr<switch_model>> switches_;
  std::vector<std::unique_ptr<nic_endpoint>> hosts_;
  link_array links_;   // reserved once: ports and the event queue point into it
  std::unique_ptr<event_queue> events_;
  std::unique_ptr<regbus> bus_;
  std::unique_ptr<route_controller> ctrl_;
  std::unique_ptr<sundial_controller> sundial_;
  std::unique_ptr<clock_driver> clock_;
  uint32_t reroutes_ = 0;
  std::unique_ptr<deter_recorder> deter_rec_;
  std::unique_ptr<deter_queue_log> deter_log_;
  std::unique_ptr<pfc_deadlock_monitor> deadlock_;
  std::vector<std::unique_ptr<link_fault>> link_faults_;
  std::vector<std::unique_ptr<flowradar_stage>> host_flowradar_;
  std::vector<std::unique_ptr<flowradar_host_meter>> host_flowradar_meters_;
  std::vector<uint64_t> flap_next_ps_;   // per faults.link_flap entry: its next step (down or up)
  std::vector<bool> flap_down_;          // per entry: its link is down now by its doing
  sc_core::sc_event flap_step_;
  uint64_t link_outages_ = 0;
  std::vector<unsigned> flap_probe_links_;   // links with a flap, in link order (their probes)
  std::vector<flow_spec> pending_;   // sorted by start
  size_t next_flow_ = 0;
  sc_core::sc_event flow_start_, sample_tick_;
  switch_graph switch_graph_;   // the switches over the links that are up; index_of: node -> switch index
  // For ideal_fct_ps: each destination rack's hop counts from every switch, by switch index.
  mutable std::map<unsigned, std::vector<unsigned>> rack_distances_;
  struct probe_ref {
    unsigned sw, port;
    uint64_t rate_bps;
    uint64_t tx_bytes = 0;   // sent by the last sample (utilisation)
  };
  std::vector<probe_ref> probe_ports_;
  std::vector<uint64_t> host_tx_bytes_;   // at the last sample
};

}  // namespace netasic
