// flows.csv, probes.csv and links.csv (output/csv.h).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "output/csv.h"

#include "output_samples.h"

using namespace netasic;
using namespace netasic::output_test;

TEST(Csv, FlowsRoundTrip) {
  temp_dir dir("flows");
  std::vector<flow_record> flows = {flow(1, 1500, 1.000000000001e-3, 12.345678901e-6, 3.3e-6, 2),
                                    flow(2, 9000000000ull, 0, -1, 1e-3, 0),
                                    flow(4294967295u, 64, 2.5e-12, 1e-12, 1e-12, 4294967295u)};
  flows[0].path = "leaf0>spine1>leaf1";
  flows[0].path_bytes = {{"leaf0>spine0>leaf1", 1000}, {"leaf0>spine1>leaf1", 500}};
  flows[2].path = "edge0";
  flows[2].path_bytes = {{"edge0", 64}};
  write_flows_csv((dir.path / "flows.csv").string(), flows);
  auto lines = split(slurp(dir.path / "flows.csv"), '\n');
  ASSERT_EQ(lines.size(), flows.size() + 2);   // header, rows, final newline
  EXPECT_EQ(lines[0], "id,src,dst,size_bytes,start_us,fct_us,ideal_fct_us,slowdown,retransmitted_packets,path_changes,"
                      "out_of_order_packets,max_reorder_packets,path,path_bytes");
  EXPECT_EQ(lines.back(), "");
  EXPECT_EQ(split(lines[1], ',')[13], "leaf0>spine0>leaf1:1000;leaf0>spine1>leaf1:500");   // written out
  EXPECT_EQ(split(lines[2], ',')[13], "");   // no data arrived: empty
  for (size_t i = 0; i < flows.size(); ++i) {
    const auto& f = flows[i];
    auto c = split(lines[i + 1], ',');
    ASSERT_EQ(c.size(), 14u) << lines[i + 1];
    EXPECT_EQ(std::stoul(c[0]), f.id);
    EXPECT_EQ(std::stoul(c[1]), f.src);
    EXPECT_EQ(std::stoul(c[2]), f.dst);
    EXPECT_EQ(std::stoull(c[3]), f.size_bytes);
    EXPECT_NEAR(std::stod(c[4]) * 1e-6, f.start_s, 0.51e-12);   // exact to the picosecond
    EXPECT_NEAR(std::stod(c[6]) * 1e-6, f.ideal_fct_s, 0.51e-12);
    EXPECT_EQ(std::stoul(c[8]), f.retransmitted_packets);
    EXPECT_EQ(std::stoul(c[9]), f.path_changes);
    EXPECT_EQ(std::stoul(c[10]), f.out_of_order_packets);
    EXPECT_EQ(std::stoul(c[11]), f.max_reorder_packets);
    EXPECT_EQ(c[12], f.path);
    // path_bytes: PATH:BYTES joined by ';', in order of first use.
    std::string want;
    for (const auto& [p, b] : f.path_bytes) want += (want.empty() ? "" : ";") + p + ":" + std::to_string(b);
    EXPECT_EQ(c[13], want);
    if (f.fct_s < 0) {
      EXPECT_EQ(c[5], "");
      EXPECT_EQ(c[7], "");
    } else {
      EXPECT_NEAR(std::stod(c[5]) * 1e-6, f.fct_s, 0.51e-12);
      EXPECT_NEAR(std::stod(c[7]), f.slowdown(), 1e-6);
    }
  }
}

TEST(Csv, ProbesWideFormat) {
  temp_dir dir("probes");
  probe_set p = sample_probes();
  write_probes_csv((dir.path / "probes.csv").string(), p);
  auto lines = split(slurp(dir.path / "probes.csv"), '\n');
  ASSERT_EQ(lines.size(), p.t_s.size() + 2);
  EXPECT_EQ(lines[0], "time_us,leaf0.port0.qdepth_bytes,leaf0.port1.qdepth_bytes,spine0.credits,leaf0.buffer.used_bytes");
  for (size_t i = 0; i < p.t_s.size(); ++i) {
    auto c = split(lines[i + 1], ',');
    ASSERT_EQ(c.size(), p.series.size() + 1);
    EXPECT_NEAR(std::stod(c[0]) * 1e-6, p.t_s[i], 0.51e-12);
    for (size_t s = 0; s < p.series.size(); ++s) EXPECT_EQ(std::stoll(c[s + 1]), p.series[s].samples[i]);
  }
}

TEST(Csv, EscapesOnlyWhenNeeded) {
  EXPECT_EQ(csv_escape("leaf0.port3"), "leaf0.port3");
  EXPECT_EQ(csv_escape("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_escape("say \"hi\""), "\"say \"\"hi\"\"\"");
}
