// Shared by the system tests: a configuration from defaults plus overrides, and the run-wide
// packet accounting every run must satisfy.
#pragma once
#include <gtest/gtest.h>

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

}  // namespace netasic
