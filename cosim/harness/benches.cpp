// The cosimulation benches, one per block marked `bench` in rtl/blocks.txt
// (cosim/<block>/bench.cpp), and the second parameter set of those in rtl/bench_sets.txt, through
// the tables CMake generates from them.
#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>

#include "cosim/harness/cosim_bench.h"
#include "rtl_bench_sets.h"   // generated from rtl/bench_sets.txt
#include "rtl_blocks.h"       // generated from rtl/blocks.txt

namespace netasic::cosim {

#define NETASIC_DECLARE_BENCH(b) std::unique_ptr<bench> make_##b##_bench();
NETASIC_RTL_BENCHES(NETASIC_DECLARE_BENCH)
#undef NETASIC_DECLARE_BENCH
#define NETASIC_DECLARE_SET2(b, params) std::unique_ptr<bench> make_##b##_set2_bench();
NETASIC_RTL_BENCH_SETS(NETASIC_DECLARE_SET2)
#undef NETASIC_DECLARE_SET2

namespace {
using factory = std::function<std::unique_ptr<bench>()>;
// By block, then by parameter set ("" = the defaults).
const std::map<std::string, std::map<std::string, factory>>& registry() {
  static const std::map<std::string, std::map<std::string, factory>> r = [] {
    std::map<std::string, std::map<std::string, factory>> m;
#define NETASIC_BENCH_ENTRY(b) m[#b][""] = make_##b##_bench;
    NETASIC_RTL_BENCHES(NETASIC_BENCH_ENTRY)
#undef NETASIC_BENCH_ENTRY
#define NETASIC_SET2_ENTRY(b, params) m[#b][params] = make_##b##_set2_bench;
    NETASIC_RTL_BENCH_SETS(NETASIC_SET2_ENTRY)
#undef NETASIC_SET2_ENTRY
    return m;
  }();
  return r;
}

std::string set_name(const std::string& set) { return set.empty() ? "its defaults" : set; }
}  // namespace

std::unique_ptr<bench> make_bench(const std::string& block, const std::vector<std::string>& params) {
  const auto it = registry().find(block);
  if (it == registry().end()) {
    std::string known;
    for (const auto& [name, sets] : registry()) known += (known.empty() ? "" : ", ") + name;
    throw std::invalid_argument("no cosim bench for block '" + block + "' (benches: " + known + ")");
  }
  std::vector<std::string> sorted = params;
  std::sort(sorted.begin(), sorted.end());
  std::string key;
  for (const auto& p : sorted) key += (key.empty() ? "" : " ") + p;
  const auto set = it->second.find(key);
  if (set == it->second.end()) {
    std::string known;
    for (const auto& [name, f] : it->second) known += (known.empty() ? "" : " and at ") + set_name(name);
    throw std::invalid_argument("cosim " + block + ": no bench built at " + key + "; the bench is built at " + known +
                                " only (Verilated parameters are fixed at build time: rtl/bench_sets.txt)");
  }
  return set->second();
}

std::vector<std::string> bench_names() {
  std::vector<std::string> v;
  for (const auto& [name, sets] : registry()) v.push_back(name);
  return v;
}

std::vector<std::string> bench_sets(const std::string& block) {
  std::vector<std::string> v;
  const auto it = registry().find(block);
  if (it != registry().end())
    for (const auto& [name, f] : it->second) v.push_back(name);
  return v;
}

}  // namespace netasic::cosim
