// LossRadar's root cause analyzer (thesis §5.5.1): classifies the losses of one meter segment
// as congestion, black hole or random drop from their pattern, Algorithm 10 on each batch
// (bursts first) and Algorithm 11 on every long_term_interval (the rest). Plain C++.
#pragma once
#include <cstdint>
#include <vector>

#include "blocks/lossradar.h"

namespace netasic {

enum class loss_class : uint8_t { unknown, congestion, black_hole, random, loop };
const char* loss_class_name(loss_class c);

struct analyzed_loss {
  uint64_t t_ps = 0;          // at the upstream meter (from the extended signature)
  uint64_t batch = 0;
  lossradar_sig sig;
  loss_class cls = loss_class::unknown;
  uint64_t flow_key() const { return sig.a ^ (sig.b >> 16) * 0x9E3779B97F4A7C15ull; }   // the 5-tuple
};

// Algorithm 10 on the losses of one batch at one segment, in time order: marks bursts.
void lossradar_bursty_analysis(std::vector<analyzed_loss*>& batch, const lossradar_analyzer_params& p);

// Algorithm 11 on the losses of one segment in [start_ps, start_ps + long_term): marks the rest.
void lossradar_long_term_analysis(std::vector<analyzed_loss*>& interval, uint64_t start_ps,
                                  const lossradar_analyzer_params& p);

// Both, over every loss of one segment (any order; sorted here): Algorithm 10 per batch, then
// Algorithm 11 per interval. Losses with TTL 0 are set apart first as loops (§5.5.1.2).
void lossradar_analyze(std::vector<analyzed_loss>& losses, const lossradar_analyzer_params& p);

// Whether these IP_IDs, as a set, are consecutive (modulo 2^16): a flow's losses with no gap.
bool consecutive_ip_ids(std::vector<uint16_t> ids);

}  // namespace netasic
