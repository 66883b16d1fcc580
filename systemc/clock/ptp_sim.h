// The PTP+eps baselines of the Sundial paper's evaluation (§3.6.1.1 Methodology) in the clock
// layer (internal): PTP+eps (clock_algorithm::ptp) and PTP+DTP+eps (ptp_fast).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "clock/sync_sim.h"

namespace netasic {

std::unique_ptr<sync_sim> make_ptp_sim(const clock_world& w, clock_algorithm alg, uint8_t index, sync_transport* transport,
                                       std::vector<uint32_t>& fault_root);

}  // namespace netasic
