// HPCC thesis Sec. 2.4: paced sources at high load keep a queue of a few packets. The scenario
// (scenarios/hpcc/paced_sources.toml) is the N*D/D/1 queue: 50 senders paced at 1.9 Gb/s with
// uniform random phases into one 100G port (95% load). Its mean queue over five seeds must sit
// near the exact N*D/D/1 value (Roberts & Virtamo 1991, the Benes formula, computed here).
// Control that must fail: the same senders unpaced (100G host links, bursts of a 4-packet window
// at line rate from the same phases): the queue is far above the formula.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "run_cli.h"

namespace {

constexpr double frame_bytes = 1062;   // 1000 B payload + headers, no INT padding
constexpr int N = 50;
constexpr double D = 100 / 1.9;        // a sender's period in frame times of the 100G port

// P(work in system > x frame times) for N periodic sources of period D slots with uniform random
// phases (Roberts & Virtamo 1991, Benes): sum_{n>x} C(N,n) p^n (1-p)^(N-n) (D-N+x)/(D-n+x), p = (n-x)/D.
double nd_d_1_tail(int x) {
  double sum = 0;
  for (int n = x + 1; n <= N; ++n) {
    const double p = (n - x) / D;
    const double log_binom = std::lgamma(N + 1.0) - std::lgamma(n + 1.0) - std::lgamma(N - n + 1.0);
    sum += std::exp(log_binom + n * std::log(p) + (N - n) * std::log1p(-p)) * (D - N + x) / (D - n + x);
  }
  return sum;
}

// The switch's qdepth counts frames waiting, not the one on the wire: E[waiting] = sum_{x>=1} P(Q > x).
double exact_mean_waiting() {
  double m = 0;
  for (int x = 1; x < N; ++x) m += nd_d_1_tail(x);
  return m;
}

// Mean of leaf0.port0's queue (frames) over the probe samples after every sender has started;
// the 29 ns sampling is incommensurate with the 4.47 us period, so this is a time average.
double mean_queue_frames(const std::string& name, const std::string& sets) {
  const std::filesystem::path dir = scratch("PacedSources", name);
  const outcome o = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/hpcc/paced_sources.toml --quiet --out " +
                            (dir / "out").string() + " --set sim.drain=25 --set sim.probe_interval=0.029 " + sets);
  EXPECT_EQ(o.code, 0) << o.output;
  std::ifstream probes(dir / "out" / "probes.csv");
  std::string line;
  std::getline(probes, line);
  std::stringstream hs(line);
  size_t qcol = 0, i = 0;
  for (std::string c; std::getline(hs, c, ','); ++i)
    if (c == "leaf0.port0.qdepth_bytes") qcol = i;
  EXPECT_GT(qcol, 0u);
  double sum = 0;
  size_t count = 0;
  while (std::getline(probes, line)) {
    std::stringstream s(line);
    std::vector<std::string> r;
    for (std::string c; std::getline(s, c, ',');) r.push_back(c);
    if (std::stod(r[0]) < 10) continue;
    sum += std::stod(r[qcol]) / frame_bytes;
    ++count;
  }
  EXPECT_GT(count, 500u);
  return count ? sum / double(count) : 0;
}

double mean_over_seeds(const std::string& name, const std::string& sets) {
  double m = 0;
  for (int seed = 1; seed <= 5; ++seed)
    m += mean_queue_frames(name + std::to_string(seed), "--seed " + std::to_string(seed) + " " + sets) / 5;
  return m;
}

TEST(PacedSources, QueueMatchesTheExactNdd1Mean) {
  const double exact = exact_mean_waiting();
  // The formula itself: P(busy) = load, and the thesis's "P(queue > 20 packets) ~ 1e-9".
  EXPECT_NEAR(nd_d_1_tail(0), 0.95, 1e-9);
  EXPECT_GT(nd_d_1_tail(20), 1e-10);
  EXPECT_LT(nd_d_1_tail(20), 1e-8);
  // Five phase draws: the per-draw mean spreads ~1 frame (s.d.), so the 5-seed mean ~0.45.
  const double tolerance = 1.0;   // frames
  const double paced = mean_over_seeds("paced", "");
  EXPECT_NEAR(paced, exact, tolerance) << "exact N*D/D/1 mean waiting " << exact << " frames";
  const double unpaced = mean_over_seeds("unpaced", "--set topology.degraded_links=[] --set nic.window=4");
  std::printf("mean queue: paced %.3f, unpaced %.3f, exact N*D/D/1 %.3f frames\n", paced, unpaced, exact);
  EXPECT_GT(std::abs(unpaced - exact), tolerance) << "control: unpaced senders, mean " << unpaced << " frames";
}

}  // namespace
