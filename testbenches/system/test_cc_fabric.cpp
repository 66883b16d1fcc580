// Congestion control in a leaf-spine fabric (scenarios/hpcc/fabric_share.toml: four long flows
// into one receiver's 100G port, three from the other leaf across either spine, one from the
// receiver's leaf). Each scheme's promise is checked on the steady window (300 us to the first
// flow's end) beside a control without congestion control that must fail it:
//  - HPCC (thesis Sec. 2.4): the bottleneck near eta, a queue of a few packets, equal shares.
//  - DCTCP (Alizadeh et al., SIGCOMM'10, Sec. 3.3): the queue oscillates just below
//    Q_max = K + N packets with amplitude A = sqrt(2 N (C RTT + K)) / 2 packets, the marked
//    fraction is near alpha = sqrt(2 / W*) with W* = (C RTT + K) / N, and the link stays full.
//  - TIMELY (Mittal et al., SIGCOMM'15, Algorithm 1): the RTT settles between T_low and T_high
//    and the senders' total converges near the link rate.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "run_cli.h"

namespace {

constexpr double frame_bytes = 1104;                     // 1000 B payload + headers + 42 B INT
constexpr double line_bytes_per_us = 100e9 / 8 / 1e6;    // the bottleneck: leaf1 port 0 at 100G
constexpr double steady_from_us = 300;
constexpr const char* bottleneck = "leaf1.port0";
const std::vector<std::string> senders = {"host0", "host1", "host2", "host5"};

struct fabric_figures {
  std::vector<double> queue;        // bottleneck queue samples (bytes), sorted
  double utilization = 0;           // bottleneck, mean over the window
  std::vector<double> rate_gbps;    // each sender's mean rate over the window
  double marked_fraction = 0;       // ECN marks at the bottleneck / frames it sent
  double base_rtt_us = 0;           // cc.base_rtt as the run resolved it
  double pct(double p) const { return queue[size_t(p / 100 * double(queue.size() - 1))]; }
  double jain() const {   // Jain's fairness index of the senders' rates
    double s = 0, s2 = 0;
    for (double x : rate_gbps) { s += x; s2 += x * x; }
    return s2 > 0 ? s * s / (double(rate_gbps.size()) * s2) : 0;
  }
};

size_t column(const std::vector<std::string>& head, const std::string& name) {
  const size_t c = size_t(std::find(head.begin(), head.end(), name) - head.begin());
  EXPECT_LT(c, head.size()) << "no column " << name;
  return c;
}

double first_flow_end_us(const std::filesystem::path& out) {
  std::ifstream flows(out / "flows.csv");
  std::string line;
  std::getline(flows, line);
  double end = 1e18;
  while (std::getline(flows, line)) {
    const auto f = cells(line);   // id,src,dst,size_bytes,start_us,fct_us,...
    end = std::min(end, std::stod(f[4]) + std::stod(f[5]));
  }
  return end;
}

fabric_figures run_fabric(const std::string& name, const std::string& sets) {
  const std::filesystem::path out = scratch("CcFabric", name) / "out";
  const outcome o = netasic_cli("run " NETASIC_SOURCE_DIR "/scenarios/hpcc/fabric_share.toml --quiet --out " +
                            out.string() + " " + sets);
  EXPECT_EQ(o.code, 0) << o.output;
  const double end_us = first_flow_end_us(out);
  std::ifstream probes(out / "probes.csv");
  std::string line;
  std::getline(probes, line);
  const auto head = cells(line);
  const std::string port = bottleneck;
  const size_t qc = column(head, port + ".qdepth_bytes"), uc = column(head, port + ".utilization_%"),
               mc = column(head, port + ".ecn_marks_packets");
  std::vector<size_t> rc;
  for (const auto& h : senders) rc.push_back(column(head, h + ".tx_rate_Mbps"));
  if (::testing::Test::HasFailure()) return {};
  fabric_figures f;
  f.rate_gbps.assign(senders.size(), 0);
  double marks0 = -1, marks1 = 0, t0 = 0, t1 = 0;
  while (std::getline(probes, line)) {
    const auto r = cells(line);
    const double t = std::stod(r[0]);
    if (t < steady_from_us || t > end_us) continue;
    if (marks0 < 0) { marks0 = std::stod(r[mc]); t0 = t; }
    marks1 = std::stod(r[mc]);
    t1 = t;
    f.queue.push_back(std::stod(r[qc]));
    f.utilization += std::stod(r[uc]) / 100;
    for (size_t i = 0; i < rc.size(); ++i) f.rate_gbps[i] += std::stod(r[rc[i]]) / 1000;
  }
  EXPECT_GT(f.queue.size(), 200u) << name << ": the steady window is too short to judge";
  if (f.queue.empty()) return f;
  const double n = double(f.queue.size());
  f.utilization /= n;
  for (double& x : f.rate_gbps) x /= n;
  std::sort(f.queue.begin(), f.queue.end());
  const double frames_sent = f.utilization * line_bytes_per_us * (t1 - t0) / frame_bytes;
  f.marked_fraction = frames_sent > 0 ? (marks1 - marks0) / frames_sent : 0;
  const std::string summary = slurp(out / "summary.json");
  const size_t k = summary.find("\"base_rtt_s\":");
  EXPECT_NE(k, std::string::npos);
  if (k != std::string::npos) f.base_rtt_us = std::stod(summary.substr(k + 13)) * 1e6;
  return f;
}

std::string describe(const fabric_figures& f) {
  std::ostringstream s;
  s << "p50/p95/p99 queue " << f.pct(50) << "/" << f.pct(95) << "/" << f.pct(99) << " B, utilisation "
    << f.utilization << ", Jain " << f.jain() << ", marked " << f.marked_fraction << ", rates (Gb/s)";
  for (double x : f.rate_gbps) s << " " << x;
  return s.str();
}

// ---- HPCC

constexpr double eta = 0.95;
bool hpcc_short_queue(const fabric_figures& f) { return f.pct(95) <= 5 * frame_bytes && f.pct(99) <= 10 * frame_bytes; }
bool hpcc_near_eta(const fabric_figures& f) { return f.utilization >= eta - 0.03 && f.utilization <= eta + 0.02; }
bool fair(const fabric_figures& f) { return f.jain() >= 0.9; }

}  // namespace

TEST(CcFabric, HpccHoldsEtaWithAFewPacketsAndEqualShares) {
  const fabric_figures h = run_fabric("hpcc", "");
  EXPECT_TRUE(hpcc_short_queue(h)) << describe(h);
  EXPECT_TRUE(hpcc_near_eta(h)) << describe(h);
  EXPECT_TRUE(fair(h)) << describe(h);
  // Control 1: a fixed window of 16 packets (below the path's BDP share). Window-limited flows
  // share by RTT, not equally: the one-hop sender takes about twice the others' rate.
  const fabric_figures w = run_fabric("window16", "--set cc.algorithm=none --set nic.window=16");
  EXPECT_FALSE(fair(w)) << describe(w);
  EXPECT_FALSE(hpcc_short_queue(w) && hpcc_near_eta(w) && fair(w)) << describe(w);
  // Control 2: no window to speak of: the senders run at line rate into a queue of megabytes.
  const fabric_figures l = run_fabric("line_rate", "--set cc.algorithm=none --set nic.window=10000");
  EXPECT_FALSE(hpcc_short_queue(l)) << describe(l);
  EXPECT_FALSE(hpcc_near_eta(l) && hpcc_short_queue(l) && fair(l)) << describe(l);
}

// ---- DCTCP: step marking at K on the bottleneck (K_min = K_max = K, P_max = 1)

namespace {

constexpr double K_bytes = 40 * 1024;
const std::string ecn_step =
    "--set ecn.priorities=[3] --set ecn.kmin=[40,40,40,40,40,40,40,40] --set ecn.kmax=[40,40,40,40,40,40,40,40] "
    "--set ecn.pmax=[1,1,1,1,1,1,1,1]";

struct dctcp_prediction { double q_max, amplitude, alpha; };

// DCTCP Sec. 3.3, in frames: W* = (C RTT + K) / N, Q_max = K + N, A = sqrt(2 N (C RTT + K)) / 2,
// alpha = sqrt(2 / W*).
dctcp_prediction dctcp_theory(double rtt_us) {
  const double N = double(senders.size()), bdp = line_bytes_per_us * rtt_us / frame_bytes, K = K_bytes / frame_bytes;
  return {(K + N) * frame_bytes, std::sqrt(2 * N * (bdp + K)) / 2 * frame_bytes, std::sqrt(2 / ((bdp + K) / N))};
}

bool dctcp_queue_near_k(const fabric_figures& f, const dctcp_prediction& d) {
  return f.pct(50) >= d.q_max - d.amplitude && f.pct(50) <= d.q_max && f.pct(5) >= d.q_max - 1.5 * d.amplitude &&
         f.pct(99) <= d.q_max + 3 * frame_bytes;
}
bool dctcp_marks_like_alpha(const fabric_figures& f, const dctcp_prediction& d) {
  return f.marked_fraction >= d.alpha / 2 && f.marked_fraction <= 2 * d.alpha;
}

}  // namespace

TEST(CcFabric, DctcpHoldsTheQueueNearKAndMarksLikeAlpha) {
  const fabric_figures d = run_fabric("dctcp", "--set cc.algorithm=dctcp " + ecn_step);
  const dctcp_prediction p = dctcp_theory(d.base_rtt_us);
  ASSERT_GT(d.base_rtt_us, 5.0);
  EXPECT_TRUE(dctcp_queue_near_k(d, p)) << describe(d) << "; Q_max " << p.q_max << " B, A " << p.amplitude << " B";
  EXPECT_TRUE(dctcp_marks_like_alpha(d, p)) << describe(d) << "; alpha " << p.alpha;
  EXPECT_GE(d.utilization, 0.95) << describe(d);   // K > C RTT / 7: the link stays full (Sec. 3.3)
  // Control: the same marking without congestion control: the queue runs far past K and
  // nearly every frame is marked.
  const fabric_figures n = run_fabric("dctcp_control", "--set cc.algorithm=none --set nic.window=10000 " + ecn_step);
  EXPECT_FALSE(dctcp_queue_near_k(n, p)) << describe(n);
  EXPECT_FALSE(dctcp_marks_like_alpha(n, p)) << describe(n);
}

// ---- TIMELY: thresholds scaled to this fabric's 11 us base RTT (the paper's 50 / 500 us suit
// its 10G testbed): T_low = 15 us, T_high = 60 us, delta = 100 Mb/s per 10G (1 Gb/s here).

namespace {

constexpr double t_low_us = 15, t_high_us = 60;
const std::string timely_sets = "--set timely.t_low=15 --set timely.t_high=60 --set timely.delta=100";

// The RTT a frame sees at the bottleneck: the unloaded RTT plus the queue ahead of it.
double rtt_us(const fabric_figures& f, double p) { return f.base_rtt_us + f.pct(p) / line_bytes_per_us; }
bool timely_rtt_between_thresholds(const fabric_figures& f) {
  return rtt_us(f, 50) >= t_low_us && rtt_us(f, 50) <= t_high_us && rtt_us(f, 99) <= t_high_us;
}

}  // namespace

TEST(CcFabric, TimelyHoldsTheRttBetweenTLowAndTHigh) {
  const fabric_figures t = run_fabric("timely", "--set cc.algorithm=timely " + timely_sets);
  ASSERT_GT(t.base_rtt_us, 5.0);
  EXPECT_TRUE(timely_rtt_between_thresholds(t))
      << describe(t) << "; RTT p50 " << rtt_us(t, 50) << " us, p99 " << rtt_us(t, 99) << " us";
  EXPECT_GE(t.utilization, 0.9) << describe(t);   // the senders' total converges near the link rate
  // Control: no congestion control: the queue, and so the RTT, runs far past T_high.
  const fabric_figures n = run_fabric("timely_control", "--set cc.algorithm=none --set nic.window=10000");
  EXPECT_FALSE(timely_rtt_between_thresholds(n)) << describe(n) << "; RTT p50 " << rtt_us(n, 50) << " us";
}
