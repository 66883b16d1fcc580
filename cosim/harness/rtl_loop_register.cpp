// The blocks that can run in the loop: rtl/blocks.txt's `loop` blocks, through the table CMake
// generates from it.
#include "cosim/harness/rtl_loop_register.h"

#include <map>
#include <stdexcept>

#include "rtl_blocks.h"   // generated from rtl/blocks.txt

namespace netasic {

#define NETASIC_DECLARE_LOOP(b) rtl_loop_block b##_rtl_loop();
NETASIC_RTL_LOOPS(NETASIC_DECLARE_LOOP)
#undef NETASIC_DECLARE_LOOP

namespace {
const std::map<std::string, rtl_loop_block>& registry() {
#define NETASIC_LOOP_ENTRY(b) {#b, b##_rtl_loop()},
  static const std::map<std::string, rtl_loop_block> r = {NETASIC_RTL_LOOPS(NETASIC_LOOP_ENTRY)};
#undef NETASIC_LOOP_ENTRY
  return r;
}
}  // namespace

std::vector<std::string> rtl_loop_block_names() {
  std::vector<std::string> v;
  for (const auto& [name, b] : registry()) v.push_back(name);
  return v;
}

const rtl_loop_block& rtl_loop_block_of(const std::string& block) {
  const auto it = registry().find(block);
  if (it == registry().end()) {
    std::string known;
    for (const auto& [name, b] : registry()) known += (known.empty() ? "" : ", ") + name;
    throw std::invalid_argument("--rtl " + block + ": no RTL-in-the-loop adapter (blocks: " + known + ")");
  }
  return it->second;
}

}  // namespace netasic
