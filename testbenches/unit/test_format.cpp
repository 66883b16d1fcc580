// Numbers and units for people (output/format.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "output/format.h"

#include "output_samples.h"

using namespace netasic;
using namespace netasic::output_test;

TEST(Format, ValuesWithUnits) {
  using nlohmann::json;
  EXPECT_EQ(format_value("fct_us.p99", json(1520.0)), "1.52 ms");
  EXPECT_EQ(format_value("sim_time_s", json(0.003)), "3 ms");
  EXPECT_EQ(format_value("wall_time_s", json(1.5)), "1.5 s");
  EXPECT_EQ(format_value("drops_bytes", json(1500000)), "1,500,000 bytes (1.5 MB)");
  EXPECT_EQ(format_value("queue.peak_bytes", json(512)), "512 bytes");
  EXPECT_EQ(format_value("events_per_s", json(3.2e6)), "3.2 Mevents/s");
  EXPECT_EQ(format_value("packet_hops_per_s", json(4.5e6)), "4.5 Mhops/s");
  EXPECT_EQ(format_value("samples_per_s", json(2e3)), "2 k/s");   // not a known noun: rate only
  EXPECT_EQ(format_value("fct_slowdown.p50", json(1.42)), "1.42×");
  EXPECT_EQ(format_value("flows.completed", json(2969)), "2,969 flows");
  EXPECT_EQ(format_value("utilization_pct", json(73.25)), "73.2 %");
  EXPECT_EQ(format_value("ok", json(true)), "yes");
  EXPECT_EQ(unit_of_key("fct_us.p50"), "us");
  EXPECT_EQ(unit_of_key("link_rate_gbps"), "Gb/s");
  EXPECT_EQ(unit_of_key("seed"), "");
}

// A percentage of nothing is no value, not 0 % (LossRadar's and FlowRadar's scores).
TEST(Format, PercentIsNullWhenThereIsNothingToCount) {
  EXPECT_TRUE(pct(5, 0).is_null());
  EXPECT_DOUBLE_EQ(pct(1, 4).get<double>(), 25.0);
  EXPECT_DOUBLE_EQ(pct(0, 7).get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(pct(3, 3).get<double>(), 100.0);
}

TEST(Format, FlattensJsonInKeyOrder) {
  nlohmann::json j = {{"b", {{"y", 2}, {"x", 1}}}, {"a", "s"}, {"l", {1, 2}}, {"o", {{{"k", 3}}}}};
  auto flat = flatten_json(j);
  std::vector<std::string> keys;
  for (const auto& kv : flat) keys.push_back(kv.first);
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "b.x", "b.y", "l", "o.0.k"}));
}
