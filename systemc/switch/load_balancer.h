// Where the switch sends each packet: every next-hop decision is made here, among the members of
// the packet's multipath group (the route table gives the group; see
// docs/datasheets/load_balancer.md):
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
//                       outdated bucket is cleared by a mirrored packet recirculated once. The
//                       bucket is the flow hash mod l; the fingerprint is a second hash unit's
//                       CRC-32C of the 5-tuple, independent of the flow hash (crc_engine::crc32c)
//   conga               CONGA (leaf-spine only): a source leaf picks the uplink of a new flowlet
//                       by the congestion fed back from the destination leaf, for every packet
//                       between leaves (ACKs and CNPs carry the feedback); each spine port's DRE
//                       raises the packets' CE as they leave (transmit). Spines hash
//   Flowcut             (flowcut.form = ingress or switch, over ecmp or wcmp) flowcut_stage.h
// The stored choice is a member index, taken modulo the group size, so a flowlet entry that two
// destinations share always names a member of the packet's own group. ACKs, NAKs and CNPs
// follow ECMP, except between CONGA leaves and back through Flowcut's switches.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "blocks/balance_sketch.h"
#include "blocks/conga.h"
#include "blocks/crc_hash.h"
#include "blocks/flowlet_table.h"
#include "common/rng.h"
#include "common/wave_trace.h"
#include "protocol/packet.h"
#include "switch/flowcut_stage.h"
#include "switch/route_table.h"

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

// The decision on one packet.
struct lb_route {
  unsigned port = 0;     // out port
  bool held = false;     // Flowcut holds the packet: it goes on when its flow may
  bool clear = false;    // BalanceSketch, Tofino form: recirculate one packet to clear its bucket
};

class load_balancer {
 public:
  // `routes`: the switch's route table (its member table maps member indices to ports);
  // `port_rate_bps`: each front-panel port's rate (CONGA's DREs).
  load_balancer(const lb_config& cfg, const route_table& routes, const std::vector<uint64_t>& port_rate_bps);
  // Flowcut in this switch (flowcut_stage.h).
  void use_flowcut(const flowcut_config& cfg, const std::vector<bool>& host_port, flowcut_stage::port_bytes_fn port_bytes,
                   flowcut_stage::resubmit_fn resubmit, flowcut_stage::buffer_hooks buffer = {});

  // The out port of packet p, of flow hash `hash`, whose destination's group is the members
  // [base, base + size) of the member table. Every switch routes every packet here: a packet
  // that only hashes is answered inline.
  lb_route route(packet& p, uint32_t hash, uint32_t base, uint32_t size, uint64_t now_ps) {
    if (hash_only_ || (p.kind != pkt_kind::data && !conga_ && !flowcut_)) return {routes_.member(base + hash % size)};
    const lb_route r = decide(p, hash, base, size, now_ps);
    if (wave_) trace_tables(now_ps);
    return r;
  }
  // p starts leaving on front-panel port `port` at start_ps (CONGA at a spine: the port's DRE).
  void transmit(unsigned port, packet& p, uint64_t start_ps) {
    if (!port_dre_.empty()) conga_transmit(port, p, start_ps);
  }
  void advance(uint64_t now_ps);
  // --vcd: the occupancy (entries) of the flowlet table, BalanceSketch and Flowcut's table, set
  // at each decision; the flowlet core also sets each invalidation at its checker cycle.
  void attach_waves(wave_trace* w, uint32_t flowlet_id, uint32_t sketch_id, uint32_t flowcut_id);

  lb_mode mode() const { return cfg_.mode; }
  // The flowlet table's or BalanceSketch's counters (core or RTL in the loop); null in other modes.
  const flowlet_counters* flowlet_counts() const { return flowlets_ ? &flowlets_->counters() : nullptr; }
  const bs_counters* sketch_counts() const { return sketch_ ? &sketch_->counters() : nullptr; }
  uint64_t sketch_occupancy() const { return sketch_ ? sketch_->occupancy() : 0; }
  // BalanceSketch: data packets whose fingerprint matched a cell taken by another flow (another
  // 5-tuple), so that the sketch took them for that flow. Hardware cannot see these; the model
  // keeps each cell's true owner to count them exactly.
  uint64_t sketch_fingerprint_collisions() const { return fingerprint_collisions_; }
  // The fingerprint BalanceSketch is given for packet p: CRC-32C of its 5-tuple (flow_key).
  static uint32_t sketch_fingerprint(const packet& p);
  const conga_leaf* conga() const { return conga_.get(); }   // CONGA at a leaf; null elsewhere
  const flowcut_stage* flowcut() const { return flowcut_.get(); }

 private:
  void update_hash_only();
  void trace_tables(uint64_t now_ps);
  lb_route decide(packet& p, uint32_t hash, uint32_t base, uint32_t size, uint64_t now_ps);
  // A data packet's member index in [0, size); `clear` as in lb_route.
  uint32_t pick(const packet& p, uint32_t hash, uint32_t base, uint32_t size, uint64_t now_ps, bool& clear);
  uint32_t sketch_pick(const packet& p, uint32_t hash, uint32_t size, uint64_t now_ps, bool& clear);
  // CONGA at a leaf: true when it chose `out` (a packet from a host to another leaf).
  bool conga_route(packet& p, uint32_t hash, uint32_t base, uint32_t size, uint64_t now_ps, unsigned& out);
  void conga_transmit(unsigned port, packet& p, uint64_t start_ps);

  lb_config cfg_;
  const route_table& routes_;
  lazy_rng rng_;   // random spraying and re-picks: most modes never draw
  std::vector<uint32_t> rr_;                     // per group base: next member (round robin)
  std::unique_ptr<flowlet_table_if> flowlets_;   // letflow: the core or its RTL (--rtl)
  std::unique_ptr<balance_sketch_if> sketch_;    // balance_sketch: likewise
  using flow_key_t = std::array<uint8_t, flow_key_bytes>;
  std::vector<flow_key_t> sketch_owner_;         // per cell: the 5-tuple that took it (model only)
  uint64_t fingerprint_collisions_ = 0;
  std::unique_ptr<conga_leaf> conga_;            // conga at a leaf
  std::vector<dre> port_dre_;                    // conga at a spine: each port's DRE
  std::unique_ptr<flowcut_stage> flowcut_;
  wave_trace* wave_ = nullptr;
  uint32_t wave_flowlet_ = wave_trace::off, wave_sketch_ = wave_trace::off, wave_flowcut_ = wave_trace::off;
  bool hash_only_ = false;   // every packet goes by its hash: ECMP, WCMP, a CONGA spine, no Flowcut
};

}  // namespace netasic
