// `netasic run --rtl BLOCK`: puts BLOCK's Verilated RTL in the loop (systemc/blocks/rtl_loop.h).
// The blocks that can be are those of rtl/blocks.txt marked `loop`; each has its adapter in
// cosim/BLOCK/BLOCK_rtl.{h,cpp}, which defines `rtl_loop_block BLOCK_rtl_loop()`.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "blocks/rtl_loop.h"
#include "common/params.h"

namespace netasic {

// What the command line needs of a block it puts in the loop.
struct rtl_loop_block {
  // The scenario keys whose values the Verilated parameters fix, with those values, so that a
  // run can name the key that differs before it elaborates.
  std::vector<std::pair<std::string, int64_t>> fixed_keys;
  // What the scenario lacks to use the block, or "" when it uses it: a block the run does not
  // use would leave it unchanged without saying so.
  std::function<std::string(const config&)> unused;
  // A key whose value the RTL cannot take, with why, or {"", ""}: for limits that are not one
  // fixed value (an array no bigger than the Verilated one). May be empty.
  std::function<std::pair<std::string, std::string>(const config&)> refuses;
  // Injects the adapter's factory into `loop`; the adapters count their calls and cycles in `count`.
  std::function<void(rtl_loop& loop, rtl_loop_count* count)> use;
};

// The blocks that can run in the loop, by name.
std::vector<std::string> rtl_loop_block_names();
// std::invalid_argument naming the blocks there are for another name.
const rtl_loop_block& rtl_loop_block_of(const std::string& block);

}  // namespace netasic
