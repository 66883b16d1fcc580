// What every clock algorithm of a run shares (internal to the clock layer): the devices and
// their failure domains, one oscillator draw per device, each link's sync-message delay and each
// end's measurement of it, the controller's graph and initial plan, the faults resolved against
// the topology, and the sample times. The algorithms run side by side on exactly these.
#pragma once
#include <cstdint>
#include <vector>

#include "clock/backup_plan.h"
#include "clock/clock_config.h"
#include "clock/clock_domains.h"
#include "clock/oscillator.h"
#include "topology/topology.h"

namespace netasic {

// Picoseconds as microseconds, the unit the clock results are written in.
inline double ps_as_us(uint64_t ps) { return double(ps) / 1e6; }

struct resolved_fault {
  clock_fault f;
  std::vector<unsigned> links;   // link faults
  std::vector<uint32_t> nodes;   // device, domain, broken_clock (root: resolved when it happens)
};

struct clock_world {
  static constexpr uint32_t none = UINT32_MAX;

  const topology& topo;
  const clock_network_config& cfg;
  uint32_t n = 0;
  uint32_t root = none;                  // node
  std::vector<uint32_t> sw_of;           // node -> switch index (none for hosts)
  std::vector<uint32_t> tor;             // host node -> its switch
  clock_domains dom;
  std::vector<oscillator_config> osc;
  std::vector<uint64_t> latency;         // [link] egress timestamp to receipt: propagation + serialisation
  std::vector<std::vector<int64_t>> measured;   // [node][port] Fig. 3.1 delay
  std::vector<uint32_t> edge_of_link;    // link -> sync_graph edge (switch-to-switch links)
  sync_graph graph0;                     // switches; topology.failed_links down
  backup_plan plan0;
  std::vector<resolved_fault> faults;    // in time order
  std::vector<uint64_t> samples;

  clock_world(const topology& t, const clock_network_config& c) : topo(t), cfg(c) {}
  // Throws config_error for a fault that names nothing in the topology, a fault after the end, a
  // bad root; std::invalid_argument for an inconsistent configuration or too many values.
  // with_samples = false: the checks and the plan only (no sample times).
  void build(bool with_samples);

  uint32_t other(unsigned li, uint32_t u) const { return topo.links[li].other(u); }
  uint32_t port_on(unsigned li, uint32_t u) const { return topo.links[li].port_on(u); }
  bool is_switch(uint32_t u) const { return sw_of[u] != none; }
  uint32_t node_of_switch(uint32_t s) const { return topo.switches[s]; }
  // The link two devices use: the lowest-index one that is up (parallel links).
  unsigned link_between(uint32_t u, uint32_t v, const std::vector<char>& down) const;

 private:
  void place_devices();
  void draw_oscillators();
  void build_controller_graph();
  resolved_fault resolve(const clock_fault& f) const;
  void resolve_faults();
  void choose_samples();
};

}  // namespace netasic
