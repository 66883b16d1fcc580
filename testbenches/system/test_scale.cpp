// The invariants of the small system tests, held at benchmark scale (a few seconds each).
#include <gtest/gtest.h>

#include "common/params.h"
#include "run/run.h"
#include "scenario/scenario.h"

using namespace netasic;

namespace {
void expect_invariants(const run_result& r) {
  const auto& p = r.summary["packets"];
  EXPECT_TRUE(r.accounting_ok);
  EXPECT_EQ(p["sent"].get<uint64_t>(),
            p["delivered"].get<uint64_t>() + p["dropped"].get<uint64_t>() + p["in_flight"].get<uint64_t>());
  for (const auto& f : r.flows)
    if (f.fct_s >= 0) {
      EXPECT_GE(f.slowdown(), 1.0 - 1e-9) << "flow " << f.id << " beat its ideal FCT";
    }
}
}  // namespace

TEST(Scale, LS128FullBenchmarkRun) {
  const config c = load_scenario(NETASIC_SOURCE_DIR "/bench/ls128.toml", {});
  const run_result r = run_scenario(c, progress_mode::none);
  expect_invariants(r);
  EXPECT_DOUBLE_EQ(r.summary["sim_time_s"].get<double>(), 5e-3);
  EXPECT_GT(r.summary["packet_hops"].get<uint64_t>(), 10'000'000u);
  EXPECT_EQ(r.summary["packets"]["dropped"].get<uint64_t>(), 0u);   // 16 MiB buffers at 50% load
  EXPECT_GT(r.summary["flows"]["completed"].get<uint64_t>(), 1000u);
}

TEST(Scale, FatTreeK8WebSearchWithFailedLinksCompletes) {
  const config c = load_scenario(NETASIC_SOURCE_DIR "/scenarios/fat_tree_k8.toml", {});
  const run_result r = run_scenario(c, progress_mode::none);
  expect_invariants(r);
  EXPECT_EQ(r.summary["flows"]["completed"], r.summary["flows"]["total"]);
  EXPECT_EQ(r.summary["drops"]["no_route"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["drops"]["link_down"].get<uint64_t>(), 0u);
}
