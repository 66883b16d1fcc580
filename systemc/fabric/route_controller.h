// Route controller: computes shortest-path ECMP groups for every switch and destination prefix
// (plan_routes) and installs them over the register bus, as a control-plane driver would.
#pragma once
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include "switch/route_table.h"
#include "topology/topology.h"
#include "tlm/regbus.h"

namespace netasic {

struct route_plan {
  struct sw_routes {
    std::vector<uint32_t> route;       // per destination prefix and ingress class: [31:16] base, [15:0] size
    std::vector<uint32_t> members;     // egress ports
    std::vector<uint32_t> port_class;  // per port (empty: every port class 0)
    // The /32s, by ascending host: the last hop to each attached host, a null route (0) to a
    // host whose link is down.
    std::vector<std::pair<uint32_t, uint32_t>> host_routes;
    // KSP's path table (route_table.h), by ascending key: the egress port of each path that
    // passes this switch, and at a source ToR the path count of each of its pairs.
    struct path_entry {
      uint32_t src_prefix, dst_prefix, path_id, port;
      bool operator<(const path_entry& o) const {
        return std::tie(src_prefix, dst_prefix, path_id) < std::tie(o.src_prefix, o.dst_prefix, o.path_id);
      }
    };
    struct path_count {
      uint32_t src_prefix, dst_prefix, paths;
    };
    std::vector<path_entry> paths;
    std::vector<path_count> path_counts;
  };
  unsigned classes = 1;                     // ingress classes (route_table.h)
  bool path_mode = false;                   // KSP: frames follow the path entries (sw_routes::paths)
  std::shared_ptr<const address_plan> addresses;   // host -> prefix (address_plan_of)
  std::vector<sw_routes> per_switch;        // by switch index
  std::vector<std::string> unreachable;     // "leaf0 -> host5" for pairs with no path
  // The static deadlock check of these tables (route_planner.h): the links of one cyclic buffer
  // dependency, empty when the route set is free of them.
  std::string cbd_cycle;

  // What switch `sw`'s table gives a frame for `host` from ingress class `cls`: the host entry
  // when there is one (the longer match), else the prefix's.
  uint32_t entry(unsigned sw, unsigned host, unsigned cls = 0) const;
};

// The groups of a plan being written: each distinct list of egress ports a switch needs is
// stored once in its members, in the order first asked for, and every route to it points there.
class route_groups {
 public:
  explicit route_groups(route_plan& plan) : plan_(plan), index_(plan.per_switch.size()) {}
  // The route entry ([31:16] base, [15:0] size) of switch sw's group of these ports.
  uint32_t of(unsigned sw, const std::vector<uint16_t>& ports);

 private:
  struct hash {
    size_t operator()(const std::vector<uint16_t>& v) const;
  };
  route_plan& plan_;
  std::vector<std::unordered_map<std::vector<uint16_t>, uint32_t, hash>> index_;   // per switch: ports -> base
};

// One prefix per switch with hosts, numbered in switch order: a rack's /24.
std::shared_ptr<const address_plan> address_plan_of(const topology& t);

// Shortest paths over links that are up; an ECMP group is every port on a shortest path. With
// wcmp_table_size > 0 a group is weighted (WCMP): each port is replicated in proportion to its
// link's rate, in at most that many member entries (path_select::replicate).
route_plan plan_routes(const topology& t, uint32_t wcmp_table_size = 0);

class route_controller : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<reg_driver> bus;
  route_controller(sc_core::sc_module_name name, const route_plan& plan, std::vector<unsigned> device_of_switch);
  uint64_t register_writes() const { return writes_; }
  // Writes a plan's member and route tables into every switch (after a failure, too).
  void install(const route_plan& plan);

 private:
  void start_of_simulation() override;   // routes are in place before the first packet moves
  const route_plan& plan_;
  std::vector<unsigned> device_;
  uint64_t writes_ = 0;
};

}  // namespace netasic
