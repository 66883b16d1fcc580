// `netasic synth BLOCK [-p NAME=VALUE ...]`: runs Yosys on a block's RTL and reports its size:
// logic cells, flip-flops and memory bits. Memories stay memories (Yosys' memory_map is not run),
// so a table counts as the SRAM it would be, not as flip-flops.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace netasic {

struct synth_result {
  std::string block;
  std::vector<std::pair<std::string, std::string>> params;   // as overridden
  uint64_t cells = 0;          // gate-level cells, flip-flops included, memories excluded
  uint64_t flip_flops = 0;     // one-bit storage cells ($_DFF*, $_SDFF*, $_DLATCH*, ...)
  uint64_t memories = 0;       // inferred memories ($mem_v2)
  uint64_t memory_bits = 0;    // their SIZE x WIDTH
  std::map<std::string, uint64_t> cell_types;   // count per cell type
};

// The blocks that have RTL (rtl/blocks.txt).
std::vector<std::string> rtl_block_names();

// Throws std::invalid_argument for an unknown block or a malformed -p, std::runtime_error with
// Yosys' own message when Yosys fails (for example an unknown parameter).
synth_result synthesize(const std::string& rtl_dir, const std::string& block, const std::vector<std::string>& params);

std::string describe(const synth_result& r);

}  // namespace netasic
