// The cosimulation benches, one per RTL block (cosim/<block>/bench.cpp).
#include <functional>
#include <map>
#include <stdexcept>

#include "cosim/harness/cosim_bench.h"

namespace netasic::cosim {

std::unique_ptr<bench> make_balance_sketch_bench();
std::unique_ptr<bench> make_crc_hash_bench();
std::unique_ptr<bench> make_flowlet_table_bench();
std::unique_ptr<bench> make_reciprocal_table_bench();
std::unique_ptr<bench> make_stateful_alu_bench();

namespace {
const std::map<std::string, std::function<std::unique_ptr<bench>()>>& registry() {
  static const std::map<std::string, std::function<std::unique_ptr<bench>()>> r = {
      {"balance_sketch", make_balance_sketch_bench},
      {"crc_hash", make_crc_hash_bench},
      {"flowlet_table", make_flowlet_table_bench},
      {"reciprocal_table", make_reciprocal_table_bench},
      {"stateful_alu", make_stateful_alu_bench},
  };
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
