// The cosimulation benches, one per block marked `bench` in rtl/blocks.txt
// (cosim/<block>/bench.cpp), through the table CMake generates from it.
#include <functional>
#include <map>
#include <stdexcept>

#include "cosim/harness/cosim_bench.h"
#include "rtl_blocks.h"   // generated from rtl/blocks.txt

namespace netasic::cosim {

#define NETASIC_DECLARE_BENCH(b) std::unique_ptr<bench> make_##b##_bench();
NETASIC_RTL_BENCHES(NETASIC_DECLARE_BENCH)
#undef NETASIC_DECLARE_BENCH

namespace {
const std::map<std::string, std::function<std::unique_ptr<bench>()>>& registry() {
#define NETASIC_BENCH_ENTRY(b) {#b, make_##b##_bench},
  static const std::map<std::string, std::function<std::unique_ptr<bench>()>> r = {NETASIC_RTL_BENCHES(NETASIC_BENCH_ENTRY)};
#undef NETASIC_BENCH_ENTRY
  return r;
}
}  // namespace

std::unique_ptr<bench> make_bench(const std::string& block) {
  const auto it = registry().find(block);
  if (it == registry().end()) {
    std::string known;
    for (const auto& [name, f] : registry()) known += (known.empty() ? "" : ", ") + name;
    throw std::invalid_argument("no cosim bench for block '" + block + "' (benches: " + known + ")");
  }
  return it->second();
}

std::vector<std::string> bench_names() {
  std::vector<std::string> v;
  for (const auto& [name, f] : registry()) v.push_back(name);
  return v;
}

}  // namespace netasic::cosim
