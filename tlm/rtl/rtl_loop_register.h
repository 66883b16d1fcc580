// `netasic run --rtl BLOCK`: puts BLOCK's Verilated RTL in the loop (systemc/common/rtl_loop.h).
#pragma once
#include <string>
#include <vector>

namespace netasic {

// The blocks that can run in the loop.
std::vector<std::string> rtl_loop_block_names();

// Registers BLOCK's adapter for the run to come; std::invalid_argument for another name.
void use_rtl_block(const std::string& block);

}  // namespace netasic
