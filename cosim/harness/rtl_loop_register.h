// `netasic run --rtl BLOCK`: puts BLOCK's Verilated RTL in the loop (systemc/blocks/rtl_loop.h).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace netasic {

// The blocks that can run in the loop.
std::vector<std::string> rtl_loop_block_names();

// The scenario keys whose values BLOCK's Verilated RTL fixes, with those values, so that a run
// can name the key that differs before it elaborates.
std::vector<std::pair<std::string, int64_t>> rtl_fixed_keys(const std::string& block);

// Registers BLOCK's adapter for the run to come; std::invalid_argument for another name.
void use_rtl_block(const std::string& block);

}  // namespace netasic
