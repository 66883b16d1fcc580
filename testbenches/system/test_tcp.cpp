// The TCP host end to end (scenarios/tcp/incast.toml: 8-to-1 incast of 1 MB flows on a lossy
// 10G leaf-spine, ECN step marking at K = 64 KiB), each behaviour beside a control that must fail:
//  - a lossy shared buffer drops, and NewReno finishes every flow with its retransmissions and
//    timeouts counted; control: the same run with a buffer too big to drop retransmits nothing;
//  - DCTCP holds the receiver's queue near K (p95 within 2 K) while still filling the port;
//    control: NewReno in the same incast fails the queue check;
//  - CUBIC keeps one long flow's bottleneck busy through its sawtooth (scenarios/tcp/long_flow.toml);
//    control: NewReno on the same path leaves it idle for part of each sawtooth;
//  - the same scenario and seed give the same flows.csv, and a RoCEv2 congestion control with
//    nic.transport = "tcp" is refused before simulating.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "run_cli.h"

namespace {

constexpr double K_bytes = 64 * 1024;
constexpr double flows = 8, flow_bytes = 1e6;
constexpr double line_bps = 10e9;

struct incast_figures {
  unsigned completed = 0;
  uint64_t retransmitted = 0, timeouts = 0, drops = 0;
  double p95_queue = 0, last_end_us = 0;
  std::string flows_csv;
};

incast_figures run_incast(const std::string& name, const std::string& sets) {
  const std::filesystem::path dir = scratch("Tcp", name);
  const outcome o = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/tcp/incast.toml --quiet --out " + (dir / "out").string() + " " + sets);
  EXPECT_EQ(o.code, 0) << o.output;
  incast_figures f;
  f.flows_csv = slurp(dir / "out" / "flows.csv");
  std::stringstream fl(f.flows_csv);
  std::string line;
  std::getline(fl, line);
  while (std::getline(fl, line)) {
    const auto c = cells(line);   // id,src,dst,size_bytes,start_us,fct_us,ideal_fct_us,slowdown,retransmitted_packets,...
    if (c[5].empty()) continue;
    ++f.completed;
    f.last_end_us = std::max(f.last_end_us, std::stod(c[4]) + std::stod(c[5]));
    f.retransmitted += std::stoull(c[8]);
  }
  const std::string summary = slurp(dir / "out" / "summary.json");
  auto number_after = [&](const std::string& key) {
    const size_t at = summary.find("\"" + key + "\"");
    EXPECT_NE(at, std::string::npos) << key;
    return at == std::string::npos ? 0ull : std::stoull(summary.substr(summary.find(':', at) + 1));
  };
  f.timeouts = number_after("timeouts");
  f.drops = number_after("dynamic_threshold") + number_after("buffer_full");
  EXPECT_EQ(number_after("sent"), number_after("delivered") + number_after("dropped") + number_after("in_flight"));
  std::ifstream probes(dir / "out" / "probes.csv");
  std::getline(probes, line);
  const auto head = cells(line);
  const size_t q = size_t(std::find(head.begin(), head.end(), "leaf0.port0.qdepth_bytes") - head.begin());
  EXPECT_LT(q, head.size());
  std::vector<double> depth;
  while (std::getline(probes, line)) {
    const auto r = cells(line);
    if (std::stod(r[0]) >= 100 && std::stod(r[0]) <= f.last_end_us) depth.push_back(std::stod(r[q]));   // past slow start
  }
  EXPECT_GT(depth.size(), 100u);
  std::sort(depth.begin(), depth.end());
  if (!depth.empty()) f.p95_queue = depth[size_t(0.95 * double(depth.size() - 1))];
  return f;
}

// The incast's bytes through the receiver's port at line rate (payload + 58 B of headers and
// 20 B of preamble and gap per 1000 B segment), with 15% to spare: the queue stays short
// without leaving the port idle.
bool fills_the_port(const incast_figures& f) { return f.last_end_us <= 1.15 * flows * flow_bytes * 1.078 * 8 / line_bps * 1e6; }
bool short_queue(const incast_figures& f) { return f.p95_queue <= 2 * K_bytes; }

// The long flow's bottleneck (leaf0's 5 Gbps uplink, port 1): mean utilization in % over the
// probes from 30 ms (past slow start's losses and their recovery) to 5 ms before the flow ends.
double steady_utilization(const std::string& cc) {
  const std::filesystem::path dir = scratch("Tcp", "long_flow_" + cc);
  const outcome o = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/tcp/long_flow.toml --quiet --out " + (dir / "out").string() +
                                " --set tcp.cc=" + cc);
  EXPECT_EQ(o.code, 0) << o.output;
  std::stringstream fl(slurp(dir / "out" / "flows.csv"));
  std::string line;
  std::getline(fl, line);
  std::getline(fl, line);
  const double end_us = std::stod(cells(line)[5]);
  std::stringstream probes(slurp(dir / "out" / "probes.csv"));
  std::getline(probes, line);
  const auto head = cells(line);
  const size_t u = size_t(std::find(head.begin(), head.end(), "leaf0.port1.utilization_%") - head.begin());
  EXPECT_LT(u, head.size());
  double sum = 0;
  unsigned n = 0;
  while (std::getline(probes, line)) {
    const auto r = cells(line);
    if (std::stod(r[0]) >= 30000 && std::stod(r[0]) < end_us - 5000) sum += std::stod(r[u]), ++n;
  }
  EXPECT_GT(n, 500u);
  return n ? sum / n : 0;
}

}  // namespace

TEST(Tcp, LossyIncastRecoversEveryFlowWithRetransmissions) {
  const incast_figures reno = run_incast("reno_lossy", "--set tcp.cc=newreno");
  EXPECT_EQ(reno.completed, unsigned(flows));
  EXPECT_GT(reno.drops, 0u);
  EXPECT_GT(reno.retransmitted, 0u);
  EXPECT_GE(reno.retransmitted, reno.drops) << "every dropped segment is sent again";
  // Control: a buffer no queue can fill drops nothing, and nothing is retransmitted.
  const incast_figures big = run_incast("reno_big_buffer", "--set tcp.cc=newreno --set switch.buffer=65536");
  EXPECT_EQ(big.completed, unsigned(flows));
  EXPECT_EQ(big.drops, 0u);
  EXPECT_FALSE(big.retransmitted > 0) << "retransmissions without a loss";
}

TEST(Tcp, DctcpHoldsTheQueueNearKWhereNewRenoFillsTheBuffer) {
  const incast_figures dctcp = run_incast("dctcp", "--set tcp.cc=dctcp");
  EXPECT_EQ(dctcp.completed, unsigned(flows));
  EXPECT_TRUE(short_queue(dctcp)) << "p95 queue " << dctcp.p95_queue << " B";
  EXPECT_TRUE(fills_the_port(dctcp)) << "last flow ends at " << dctcp.last_end_us << " us";
  EXPECT_EQ(dctcp.drops, 0u);
  // Control: NewReno ignores the marks.
  const incast_figures reno = run_incast("newreno", "--set tcp.cc=newreno");
  EXPECT_FALSE(short_queue(reno)) << "NewReno kept the queue short: p95 " << reno.p95_queue << " B";
  // Same scenario, same seed: the same flows, bit for bit.
  EXPECT_EQ(run_incast("dctcp_again", "--set tcp.cc=dctcp").flows_csv, dctcp.flows_csv);
}

// The sawtooth's arithmetic: about 125 segments in flight fill the path (5 Gbps x 200 us) and
// the buffer's dynamic threshold holds about 32 more, so a loss comes at W = 157 segments.
// NewReno restarts from W/2 = 78 and spends 60% of each sawtooth below 125 (about 89% busy);
// CUBIC restarts from 0.7 W = 110 and spends 32% of it below (about 98% busy).
TEST(Tcp, CubicKeepsTheBottleneckBusyWhereNewRenoDoesNot) {
  const double cubic = steady_utilization("cubic"), newreno = steady_utilization("newreno");
  EXPECT_GE(cubic, 94.0);
  EXPECT_LT(newreno, 94.0) << "control: NewReno's halving should leave the link idle part of the time";
  EXPECT_GT(cubic, newreno + 5);
}

TEST(Tcp, RoceCongestionControlWithTcpIsRefused) {
  const outcome o = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/tcp/incast.toml --quiet --out " +
                            (scratch("Tcp", "refused") / "out").string() + " --set cc.algorithm=dcqcn");
  EXPECT_NE(o.code, 0);
  EXPECT_NE(o.output.find("cc.algorithm"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("tcp.cc"), std::string::npos) << o.output;
}
