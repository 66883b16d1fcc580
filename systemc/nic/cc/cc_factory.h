// Congestion control of a NIC's queue pairs: which algorithm, its parameters, and the factory
// that makes one module per QP. The reciprocal table of HPCC is built once and shared by every
// QP of every NIC, as one ROM per NIC would hold the same values.
#pragma once
#include <memory>

#include "nic/cc/congestion_control.h"
#include "nic/cc/dcqcn.h"
#include "nic/cc/dctcp.h"
#include "nic/cc/hpcc.h"
#include "blocks/reciprocal_table.h"
#include "nic/cc/timely.h"

namespace netasic {

enum class cc_algorithm { none, hpcc, dcqcn, dctcp, timely };

struct cc_config {
  cc_algorithm algorithm = cc_algorithm::none;   // none: the fixed window (nic.window) alone
  uint64_t base_rtt_ps = 0;                      // T of every algorithm (0: the fabric sets it)
  // DCQCN's and TIMELY's steps are given at a reference rate and scale with the line rate, as
  // HPCC's evaluation scripts scale them.
  static constexpr uint64_t dcqcn_step_reference_bps = 25'000'000'000ull;
  static constexpr uint64_t timely_step_reference_bps = 10'000'000'000ull;
  hpcc_config hpcc;
  dcqcn_config dcqcn;
  dctcp_config dctcp;
  timely_config timely;
  uint64_t cnp_interval_ps = 0;                  // DCQCN notification point
  std::shared_ptr<const reciprocal_table> table; // HPCC with divider::table
};

// One module for a QP on a port of `line_rate_bps`; null for cc_algorithm::none.
std::unique_ptr<congestion_control> make_cc(const cc_config& cfg, uint64_t line_rate_bps);

}  // namespace netasic
