// CONGA (core, no SystemC): congestion-aware flowlet load balancing between leaves (Alizadeh et
// al., SIGCOMM'14), the scheme LetFlow is compared against.
//
// DRE, the discounting rate estimator, one per link: a register X grows by each packet's bytes and
// every T_dre loses a fraction alpha of itself (X -= X * alpha). For a steady rate R, X approaches
// R * tau with tau = T_dre / alpha, so the link's congestion metric is X / (C * tau) (C the link
// rate), quantised to Q bits.
//
// Packets between leaves carry (in CONGA, in the VXLAN overlay header):
//   LBTag      the source leaf's uplink the packet took (4 bits)
//   CE         the path's congestion: max of the egress-link metrics on the way (Q bits)
//   FB_LBTag, FB_Metric   one piggybacked feedback metric for the reverse direction
// Leaf tables:
//   Congestion-To-Leaf   at a source leaf, [destination leaf][uplink]: metrics fed back to it
//   Congestion-From-Leaf at a destination leaf, [source leaf][LBTag]: CE of arriving packets,
//                        with a changed bit; fed back round robin, changed entries first
// A new flowlet (flowlet_table, CONGA's 1-bit aging) takes the uplink that minimises
// max(local uplink DRE metric, Congestion-To-Leaf metric); among equals it keeps the uplink its
// flowlet entry still holds if that is one of them, else picks one at random.
//
// Aging: a Congestion-To-Leaf metric not refreshed for aging_ps reads 0, and a Congestion-From-Leaf
// entry not refreshed for aging_ps is no longer fed back (stale information is dropped rather than
// trusted). Model choices stated in docs/datasheets/conga.md.
#pragma once
#include <cstdint>
#include <vector>

#include "blocks/flowlet_table.h"
#include "common/rng.h"
#include "protocol/headers.h"   // conga_header

namespace netasic {

struct dre_config {
  uint64_t t_dre_ps = 16'000'000;   // T_dre, the decrement period: 16 us
  double alpha = 0.1;               // held as alpha_q16 = round(alpha * 2^16); tau = T_dre / alpha = 160 us
  double link_gbps = 40;            // C; CONGA's testbed fabric links are 40G
  unsigned q_bits = 3;              // Q
};

class dre {
 public:
  static constexpr unsigned frac_bits = 8;   // X is kept in 1/256 bytes, so small X still decays

  // Throws std::invalid_argument naming the field.
  explicit dre(const dre_config& cfg);

  // A packet of `bytes` leaves on the link at now_ps. Decrements fall at every multiple of T_dre
  // (k * T_dre, k >= 1) and come before a packet at the same instant. Times must not go backwards
  // (std::logic_error).
  void add(uint64_t now_ps, uint32_t bytes);
  // The quantised metric at now_ps: min(2^Q - 1, floor(X * 2^Q / (C * tau))).
  uint32_t metric(uint64_t now_ps);
  uint64_t raw(uint64_t now_ps);                 // X in 1/256 bytes at now_ps
  uint32_t quantize(uint64_t x_raw) const;       // the metric of a given X
  double bytes(uint64_t now_ps) { return double(raw(now_ps)) / (1u << frac_bits); }

  uint32_t alpha_q16() const { return alpha_q16_; }
  double tau_ps() const { return double(cfg_.t_dre_ps) * 65536.0 / alpha_q16_; }   // with alpha as held
  uint64_t full_scale_raw() const { return full_; }   // C * tau in 1/256 bytes: metric 2^Q
  uint64_t decrements() const { return decrements_; }  // periods elapsed (including no-op ones)
  const dre_config& config() const { return cfg_; }

 private:
  void advance(uint64_t now_ps);

  dre_config cfg_;
  uint32_t alpha_q16_;
  uint64_t full_;
  uint64_t x_ = 0;                 // 1/256 bytes
  uint64_t epoch_ = 0;             // decrements applied: X is as of just after epoch_ * T_dre
  uint64_t decrements_ = 0;
  uint64_t last_now_ = 0;
};


// Any switch on the path (spines; the source leaf does not, see the datasheet): CE = max(CE, the
// metric of the egress link's DRE).
inline void conga_hop(conga_header& h, uint32_t egress_metric) {
  if (egress_metric > h.ce) h.ce = uint8_t(egress_metric);
}

struct conga_config {
  uint32_t leaf_id = 0;
  uint32_t leaves = 2;                  // leaves in the fabric: rows of both tables
  uint32_t uplinks = 2;                 // this leaf's uplinks = LBTag values (<= 16: 4-bit LBTag)
  dre_config dre;                       // every uplink's DRE; link_gbps unless uplink_gbps says
  std::vector<double> uplink_gbps;      // C per uplink, or empty
  flowlet_config flowlet;               // CONGA's flowlet table: 64K entries, 1 age bit, T_fl 500 us
  uint64_t aging_ps = 10'000'000'000;   // 10 ms; 0 = metrics never age
  uint64_t seed = 1;                    // tie-breaking stream
};

struct conga_send {
  uint32_t uplink;
  bool new_flowlet;
  conga_header header;                  // LBTag, CE = 0, and the piggybacked feedback
};

struct conga_from_entry {
  uint32_t metric;
  bool changed;                         // not fed back since it was last written
  bool fresh;                           // written, and within aging_ps
};

struct conga_counters {
  uint64_t sent = 0, received = 0;
  uint64_t new_flowlets = 0;
  uint64_t kept_cached = 0;             // new flowlets that kept the uplink their entry held
  uint64_t random_choices = 0;          // new flowlets decided by a random pick among several
  uint64_t feedback_sent = 0;           // packets that carried a feedback metric
  uint64_t feedback_changed = 0;        // ... of which a changed one
  uint64_t feedback_received = 0;
};

class conga_leaf {
 public:
  static constexpr uint32_t all_uplinks = UINT32_MAX;

  // Throws std::invalid_argument naming the field.
  explicit conga_leaf(const conga_config& cfg);

  // Source leaf: a packet from a local host to dst_leaf. Picks the uplink (flowlet table; a new
  // flowlet by CONGA's rule among `allowed`, a bit mask of uplinks), counts the bytes into that
  // uplink's DRE, and writes LBTag, CE = 0 and one feedback metric for dst_leaf. `allowed` only
  // restricts new flowlets: a live flowlet stays where it is.
  conga_send send(uint64_t hash, uint32_t dst_leaf, uint32_t bytes, uint64_t now_ps,
                  uint32_t allowed = all_uplinks, uint64_t flow_id = flowlet_table::flow_is_hash);
  // Destination leaf: a packet from src_leaf arrives. CE goes into Congestion-From-Leaf
  // [src_leaf][LBTag] (marked changed); a carried feedback metric into Congestion-To-Leaf
  // [src_leaf][FB_LBTag].
  void receive(uint32_t src_leaf, const conga_header& h, uint64_t now_ps);

  // The decision for a new flowlet; `cached` is the uplink the flowlet entry holds (or
  // flowlet_table::no_port). Exposed for tests and for callers with their own flowlet tracking.
  uint32_t choose_uplink(uint32_t dst_leaf, uint64_t now_ps, uint32_t cached, uint32_t allowed = all_uplinks);

  uint32_t local_metric(uint32_t uplink, uint64_t now_ps) { return dre_.at(uplink).metric(now_ps); }
  uint32_t to_leaf(uint32_t dst_leaf, uint32_t uplink, uint64_t now_ps) const;   // 0 when aged or unset
  conga_from_entry from_leaf(uint32_t src_leaf, uint32_t lbtag, uint64_t now_ps) const;

  dre& uplink_dre(uint32_t uplink) { return dre_.at(uplink); }
  const flowlet_table& flowlets() const { return ft_; }
  const conga_counters& counters() const { return count_; }
  const conga_config& config() const { return cfg_; }
  uint32_t max_metric() const { return (1u << cfg_.dre.q_bits) - 1; }
  // Table bits: to-leaf leaves*uplinks*Q; from-leaf leaves*uplinks*(Q + changed + valid); not the
  // flowlet table (flowlets().memory_bits()) nor the DRE registers or aging state.
  uint64_t table_bits() const { return uint64_t(cfg_.leaves) * cfg_.uplinks * (2 * cfg_.dre.q_bits + 2); }

 private:
  struct to_entry { uint8_t metric = 0; bool valid = false; uint64_t at = 0; };
  struct from_entry { uint8_t metric = 0; bool valid = false, changed = false; uint64_t at = 0; };

  bool fresh(bool valid, uint64_t at, uint64_t now) const { return valid && (cfg_.aging_ps == 0 || now < at || now - at < cfg_.aging_ps); }
  void check_leaf(uint32_t leaf, const char* what) const;
  uint32_t check_allowed(uint32_t allowed) const;

  conga_config cfg_;
  std::vector<dre> dre_;
  std::vector<to_entry> to_;       // [leaf * uplinks + uplink]
  std::vector<from_entry> from_;   // [leaf * uplinks + lbtag]
  std::vector<uint32_t> rr_;       // feedback round robin pointer per destination leaf
  flowlet_table ft_;
  rng rng_;
  uint64_t last_now_ = 0;
  conga_counters count_;
};

}  // namespace netasic
