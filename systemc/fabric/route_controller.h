// Route controller: computes shortest-path ECMP groups for every switch and destination host
// (plan_routes) and installs them over the register bus, as a control-plane driver would.
#pragma once
#include <string>
#include <vector>

#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include "topology/topology.h"
#include "tlm/regbus.h"

namespace netasic {

struct route_plan {
  struct sw_routes {
    std::vector<uint32_t> route;       // per destination host and ingress class: [31:16] base, [15:0] size
    std::vector<uint32_t> members;     // egress ports
    std::vector<uint32_t> port_class;  // per port (empty: every port class 0)
  };
  unsigned classes = 1;                     // ingress classes (route_table.h)
  std::vector<sw_routes> per_switch;        // by switch index
  std::vector<std::string> unreachable;     // "leaf0 -> host5" for pairs with no path
  // The static deadlock check of these tables (route_planner.h): the links of one cyclic buffer
  // dependency, empty when the route set is free of them.
  std::string cbd_cycle;
};

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
