// Path selection (core, no SystemC): how a switch picks one next hop of a multipath group.
//   ecmp                hash % members: per flow, equal shares
//   wcmp                weights per next hop, realised as hardware does: a member table in which
//                       each next hop is replicated in proportion to its weight, indexed by
//                       hash % table size. A table smaller than the weights need quantises them;
//                       the error is reported (WCMP, Zhou et al., EuroSys'14, states it as the
//                       worst oversubscription of a member)
//   spray_random        per packet, a uniformly random table entry (from the project PRNG)
//   spray_round_robin   per packet, the table entries in turn
// All four read the same member table. Without weights it is the members once each, in order; with
// weights the replicas are interleaved (smooth weighted round robin), so round robin spreads a
// member's turns instead of sending it runs of packets. Hash modes do not care about the order.
#pragma once
#include <cstdint>
#include <vector>

#include "common/rng.h"

namespace netasic {

enum class path_mode : uint8_t { ecmp, wcmp, spray_random, spray_round_robin };

struct path_select_config {
  path_mode mode = path_mode::ecmp;
  std::vector<uint32_t> members;        // next hops (egress ports), at least one
  std::vector<uint32_t> weights;        // one per member, or empty for equal weights; not for ecmp
  uint32_t table_size = 256;            // member table entries available to a weighted group
  uint64_t seed = 1;                    // spray_random's stream (from the run's seed)
};

// How the weights were realised. share = replicas / table entries; target = weight / sum.
struct wcmp_quantization {
  std::vector<uint32_t> replicas;       // per member
  uint32_t table_entries;               // replicas summed: what hash % uses
  double max_share_error;               // max over members |share - target|
  double max_oversubscription;          // max over members share / target (1 = exact); WCMP's metric
};

struct path_select_counters {
  uint64_t selections = 0;
  std::vector<uint64_t> per_member;     // selections per member index
};

class path_select {
 public:
  // Throws std::invalid_argument naming the field.
  explicit path_select(const path_select_config& cfg);

  // The next hop for one packet. The hash is ignored by the spraying modes.
  uint32_t select(uint64_t hash) { return cfg_.members[select_member(hash)]; }
  // The same, as an index into members.
  uint32_t select_member(uint64_t hash);

  const std::vector<uint32_t>& table() const { return table_; }   // member indices
  const wcmp_quantization& quantization() const { return quant_; }
  const path_select_counters& counters() const { return count_; }
  const path_select_config& config() const { return cfg_; }

  // Replicas per member for `weights` in at most `table_size` entries: exact (weights divided by
  // their greatest common divisor) when that fits, else largest remainder with at least one entry
  // per member of nonzero weight. Ties go to the lower member index.
  static std::vector<uint32_t> replicate(const std::vector<uint32_t>& weights, uint32_t table_size);

 private:
  path_select_config cfg_;
  std::vector<uint32_t> table_;
  wcmp_quantization quant_;
  rng rng_;
  uint32_t rr_ = 0;                     // round robin pointer into table_
  path_select_counters count_;
};

}  // namespace netasic
