// Where the switch picks the next hop of a data packet among the members of its multipath
// group (the route table gives the group; see docs/datasheets/load_balancer.md):
//   ecmp, wcmp          the flow's hash; WCMP's weights are in the group itself (the route
//                       controller replicates members by link rate)
//   spray_random        per packet, a random member
//   spray_round_robin   per packet, the group's members in turn
//   letflow             LetFlow: a flowlet table indexed by the flow hash keeps a flowlet on its
//                       member; a new flowlet (idle for between Delta and 2 Delta with one age
//                       bit) takes a random member
//   balance_sketch      BurstBalancer: the BalanceSketch finds the flows that burst; a burst
//                       (a flowlet of a resident flow with vote > F) takes a random member and
//                       keeps it, every other packet goes by ECMP. In its Tofino form an
//                       outdated bucket is cleared by a mirrored packet recirculated once
//   conga               CONGA (leaf-spine only): a source leaf picks the uplink of a new flowlet
//                       by the congestion fed back from the destination leaf; the switch drives
//                       it (switch_model::conga_route), since it sees more than one group
// The stored choice is a member index, taken modulo the group size, so a flowlet entry that two
// destinations share always names a member of the packet's own group. ACKs, NAKs and CNPs
// always follow ECMP.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "blocks/balance_sketch.h"
#include "blocks/conga.h"
#include "blocks/flowlet_table.h"
#include "blocks/rtl_loop.h"
#include "common/rng.h"

namespace netasic {

enum class lb_mode : uint8_t { ecmp, wcmp, spray_random, spray_round_robin, letflow, balance_sketch, conga };

struct lb_config {
  lb_mode mode = lb_mode::ecmp;
  flowlet_config flowlet;           // letflow
  balance_sketch_config sketch;     // balance_sketch
  // conga: the fabric's shape (a leaf's ports are its hosts, then its uplinks) and this switch's
  // leaf number, or -1 for a spine
  int conga_leaf = -1;
  unsigned leaves = 0, hosts_per_leaf = 0, uplinks = 0;
  dre_config dre;                   // every link's DRE (link_gbps set per port)
  uint64_t conga_aging_ps = 10'000'000'000;
  uint32_t wcmp_table_size = 64;    // member entries a weighted group may take (route controller)
  uint64_t seed = 1;
};

class load_balancer {
 public:
  // `group_keys`: how many distinct group bases exist (the member table's size), for the
  // per-group round-robin pointers.
  load_balancer(const lb_config& cfg, unsigned group_keys);

  // Member index in [0, size) for a data packet of flow hash `hash` in the group starting at
  // member `base`.
  // `needs_clear` is set when the packet's BalanceSketch bucket must be cleared by a
  // recirculated packet (Tofino form).
  uint32_t pick(uint32_t hash, uint32_t base, uint32_t size, uint32_t bytes, uint64_t now_ps, bool& needs_clear);

  lb_mode mode() const { return cfg_.mode; }
  // The flowlet table's or BalanceSketch's counters (core or RTL in the loop); null in other modes.
  const flowlet_counters* flowlet_counts() const;
  const bs_counters* sketch_counts() const;
  uint64_t sketch_occupancy() const;
  conga_leaf* conga() { return conga_.get(); }
  const conga_leaf* conga() const { return conga_.get(); }
  void advance(uint64_t now_ps);

 private:
  lb_config cfg_;
  rng rng_;
  std::vector<uint32_t> rr_;                  // per group base: next member (round robin)
  std::unique_ptr<flowlet_table> flowlets_;
  std::unique_ptr<balance_sketch> sketch_;
  std::unique_ptr<flowlet_rtl> flowlets_rtl_;   // --rtl flowlet_table: instead of flowlets_
  std::unique_ptr<sketch_rtl> sketch_rtl_;      // --rtl balance_sketch: instead of sketch_
  std::unique_ptr<conga_leaf> conga_;
};

}  // namespace netasic
