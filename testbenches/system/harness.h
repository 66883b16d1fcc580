// Shared by the system tests: a configuration from defaults plus overrides, and the run-wide
// packet accounting every run must satisfy.
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "common/params.h"
#include "run/run.h"
#include "scenario/scenario.h"

namespace netasic {

inline config small_config(const std::vector<std::pair<std::string, std::string>>& sets) {
  config c = default_scenario();
  for (const auto& [k, v] : sets) c.set_from_text(k, v, "test");
  return c;
}

inline void expect_accounting(const run_result& r) {
  const auto& p = r.summary["packets"];
  EXPECT_TRUE(r.accounting_ok);
  EXPECT_EQ(p["sent"].get<uint64_t>(),
            p["delivered"].get<uint64_t>() + p["dropped"].get<uint64_t>() + p["in_flight"].get<uint64_t>());
}

// The same kind of scenario, given as --set pairs over the built-in defaults, run by the command
// line in a process of its own (the SystemC kernel runs once per process): the control beside an
// in-process run. Returns its run directory, <test temp dir>/netasic_<suite>_<name>/out.
inline std::filesystem::path run_with_sets(const std::string& suite, const std::string& name,
                                           const std::vector<std::pair<std::string, std::string>>& sets) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / ("netasic_" + suite + "_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "defaults.toml") << "";
  std::string cmd = std::string(NETASIC_BINARY) + " run " + (dir / "defaults.toml").string() + " --quiet --out " +
                    (dir / "out").string();
  for (const auto& [k, v] : sets) cmd += " --set '" + k + "=" + v + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return dir / "out";
}

}  // namespace netasic
