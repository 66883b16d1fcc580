// FlowRadar's encoded flowset and decoders (blocks/flowradar*, Li's thesis ch. 4).
// The flowset, run on its stateful ALUs, against a reference written from Alg. 6 alone (a set of
// seen flows for the filter, int64 cells reduced modulo 2^w) on random streams over small tables
// (collisions), many flows (full tables) and 8-bit counters (wrap). The decoders against the
// ground truth of the stream: SingleDecode finds every flow and count when m_c >= 1.5 n with
// k_c = 3 and never a wrong one when the table is too small; CounterDecode gives the exact
// counts; FlowDecode across two switches decodes what neither decodes alone.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include "blocks/flowradar.h"
#include "blocks/flowradar_decode.h"
#include "common/rng.h"

using namespace netasic;

namespace {

flowradar_flow random_flow(rng& r) {
  flowradar_flow f;
  for (auto& b : f) b = uint8_t(r.below(256));
  return f;
}

std::vector<flowradar_flow> random_flows(rng& r, size_t n) {
  std::set<flowradar_flow> s;
  while (s.size() < n) s.insert(random_flow(r));
  return {s.begin(), s.end()};
}

// Alg. 6 written out: the filter as the set of flows seen (with its Bloom false positives taken
// from the flowset's own verdict, which the test checks separately), cells as int64.
struct reference {
  flowradar_params p;
  std::vector<flowradar_flow> xr;
  std::vector<int64_t> fc, pc;
  explicit reference(const flowradar_params& q) : p(q), xr(q.cells), fc(q.cells, 0), pc(q.cells, 0) {}
  void update(const flowradar_flow& f, bool is_new) {
    for (unsigned i = 0; i < p.cell_hashes; ++i) {
      const uint32_t c = flowradar_cell_index(p, f, i);
      if (is_new) {
        for (unsigned k = 0; k < flowradar_flow_bytes; ++k) xr[c][k] ^= f[k];
        fc[c] = (fc[c] + 1) % (int64_t(1) << p.flow_count_bits);
      }
      pc[c] = (pc[c] + 1) % (int64_t(1) << p.packet_count_bits);
    }
  }
};

struct stream {
  std::vector<flowradar_flow> flows;
  std::map<flowradar_flow, uint64_t> packets;
};

// n flows, each 1 + a geometric-ish number of packets, interleaved at random.
stream fill(flowradar_flowset& fs, rng& r, size_t n, unsigned max_pkts, std::set<flowradar_flow>* false_positive = nullptr) {
  stream s;
  s.flows = random_flows(r, n);
  std::vector<flowradar_flow> order;
  for (const auto& f : s.flows)
    for (uint64_t k = 1 + r.below(max_pkts); k > 0; --k) order.push_back(f);
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[r.below(i)]);
  std::set<flowradar_flow> seen;
  for (const auto& f : order) {
    const bool first = seen.insert(f).second;
    if (fs.update(f) != first && false_positive) false_positive->insert(f);
    ++s.packets[f];
  }
  return s;
}

}  // namespace

TEST(FlowRadar, FlowsetOnAlusMatchesAlgorithm6) {
  rng r(11);
  const flowradar_params shapes[] = {
      {64, 2, 12, 3, 8, 8, 1},        // collisions everywhere, both counters wrap
      {4096, 4, 97, 3, 16, 16, 2},    // uneven slices
      {1 << 14, 3, 300, 4, 32, 32, 3},
      {256, 1, 40, 1, 8, 16, 4}};
  for (const flowradar_params& p : shapes) {
    flowradar_flowset fs(p);
    reference ref(p);
    std::set<flowradar_flow> seen;
    std::set<uint32_t> bits;
    const std::vector<flowradar_flow> pool = random_flows(r, 3 * p.cells);
    for (int op = 0; op < 6000; ++op) {
      const flowradar_flow& f = pool[r.below(pool.size())];
      bool bits_set = true;   // the reference filter: the set of bit positions the seen flows set
      for (unsigned i = 0; i < p.filter_hashes; ++i) bits_set = bits_set && bits.count(flowradar_filter_index(p, f, i));
      for (unsigned i = 0; i < p.filter_hashes; ++i) bits.insert(flowradar_filter_index(p, f, i));
      const bool is_new = !bits_set;
      ASSERT_EQ(fs.update(f), is_new) << "op " << op;
      seen.insert(f);
      ref.update(f, is_new);
      if (op % 500 == 499 || op < 20) {
        const flowradar_table t = fs.read();
        for (uint32_t c = 0; c < p.cells; ++c) {
          ASSERT_EQ(t.cells[c].flow_xor, ref.xr[c]) << "cell " << c;
          ASSERT_EQ(t.cells[c].flow_count, uint32_t(ref.fc[c]));
          ASSERT_EQ(t.cells[c].packet_count, uint32_t(ref.pc[c]));
        }
        for (const auto& g : seen) ASSERT_TRUE(t.filter_has(g));
      }
    }
  }
}

TEST(FlowRadar, TwoBanksSwapEveryEpoch) {
  rng r(5);
  flowradar banks({4096, 4, 300, 3, 16, 32, 9});
  const auto flows = random_flows(r, 50);
  for (const auto& f : flows) banks.update(f);
  const flowradar_table first = banks.swap();
  EXPECT_EQ(flowradar_single_decode(first).flows.size(), 50u);
  const flowradar_table second = banks.swap();   // nothing arrived in between: empty
  for (const auto& c : second.cells) EXPECT_EQ(c, flowradar_cell{});
  banks.update(flows[0]);                        // the first bank again, cleared at its export
  const auto third = flowradar_single_decode(banks.swap());
  ASSERT_EQ(third.flows.size(), 1u);
  EXPECT_EQ(third.flows[0], flows[0]);
  EXPECT_EQ(third.packets[0], 1u);
}

TEST(FlowRadar, SingleDecodeRecoversEveryFlowAboveThreshold) {
  rng r(21);
  for (int trial = 0; trial < 20; ++trial) {
    const size_t n = 200 + r.below(800);
    flowradar_flowset fs({uint32_t(64 * n), 4, uint32_t(3 * n / 2), 3, 16, 32, uint64_t(trial)});
    std::set<flowradar_flow> fp;
    const stream s = fill(fs, r, n, 20, &fp);
    ASSERT_TRUE(fp.empty());   // filter big enough that Alg. 6 admits every flow
    const flowradar_single_result d = flowradar_single_decode(fs.read());
    ASSERT_TRUE(d.complete) << "trial " << trial << " n " << n;
    EXPECT_TRUE(d.counters_consistent);
    ASSERT_EQ(d.flows.size(), n);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(d.packets[i], s.packets.at(d.flows[i]));
  }
}

TEST(FlowRadar, SingleDecodeFailsCleanlyWhenTooSmall) {
  rng r(22);
  int failures = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const size_t n = 500;
    flowradar_flowset fs({uint32_t(64 * n), 4, uint32_t(n * 9 / 10), 3, 8, 8, uint64_t(trial)});   // below 1.23 n
    std::set<flowradar_flow> fp;
    const stream s = fill(fs, r, n, 40, &fp);   // 8-bit PacketCount: some cells wrap
    ASSERT_TRUE(fp.empty());
    const flowradar_single_result d = flowradar_single_decode(fs.read());
    failures += !d.complete;
    std::set<flowradar_flow> once;
    for (size_t i = 0; i < d.flows.size(); ++i) {
      ASSERT_TRUE(s.packets.count(d.flows[i])) << "a flow that was never sent";
      ASSERT_TRUE(once.insert(d.flows[i]).second) << "decoded twice";
      EXPECT_EQ(d.packets[i], s.packets.at(d.flows[i]) % 256);
    }
  }
  EXPECT_EQ(failures, 20);
}

TEST(FlowRadar, CounterDecodeGivesExactCounts) {
  rng r(31);
  for (int trial = 0; trial < 10; ++trial) {
    const size_t n = 300;
    flowradar_flowset fs({1 << 16, 4, 600, 3, 16, 32, uint64_t(100 + trial)});
    const stream s = fill(fs, r, n, 200);
    const flowradar_table t = fs.read();
    std::vector<double> guess;   // a neighbour's counters: off by a few lost packets
    for (const auto& f : s.flows) guess.push_back(double(s.packets.at(f)) - double(r.below(3)));
    const flowradar_counter_result plain = flowradar_counter_decode(t, s.flows, {}, {false, false, 0});
    const flowradar_counter_result fast = flowradar_counter_decode(t, s.flows, guess, {true, true, 0});
    ASSERT_TRUE(plain.solved);
    ASSERT_TRUE(fast.solved);
    for (size_t i = 0; i < n; ++i) {
      EXPECT_EQ(plain.packets[i], s.packets.at(s.flows[i]));
      EXPECT_EQ(fast.packets[i], s.packets.at(s.flows[i]));
    }
    EXPECT_LT(fast.iterations, plain.iterations);   // the two speed-ups of §4.4.2
  }
}

// Two switches on every flow's path, different seeds, k_c = 4 (the paper's NetDecode setting);
// B loses a packet of some flows (its counters differ from A's). Each table alone is below
// SingleDecode's threshold for k_c = 4 (c_4 = 1.30 n).
struct two_hops {
  flowradar_table ta, tb;
  std::vector<flowradar_flow> flows;
  std::map<flowradar_flow, uint64_t> pa, pb;
};

two_hops two_switches(rng& r, size_t n, uint32_t cells, uint64_t seed) {
  flowradar_flowset a({1 << 16, 4, cells, 4, 16, 32, seed}), b({1 << 16, 4, cells, 4, 16, 32, seed + 1});
  two_hops h;
  h.flows = random_flows(r, n);
  for (const auto& f : h.flows) {
    const uint64_t k = 2 + r.below(30), lost = r.below(4) == 0 ? 1 : 0;
    for (uint64_t i = 0; i < k; ++i) a.update(f);
    for (uint64_t i = 0; i < k - lost; ++i) b.update(f);
    h.pa[f] = k;
    h.pb[f] = k - lost;
  }
  h.ta = a.read();
  h.tb = b.read();
  return h;
}

TEST(FlowRadar, FlowDecodeAcrossNeighboursDecodesWhatSingleCannot) {
  rng r(41);
  const size_t n = 400;   // CounterDecode's rank check (a sparse QR) grows fast with n
  for (int trial = 0; trial < 5; ++trial) {
    // m_c = 1.15 n: SingleDecode fails at both; FlowDecode finds every flow, and with m_c >= n
    // CounterDecode every count, the different ones at A and B.
    const two_hops h = two_switches(r, n, uint32_t(n * 115 / 100), uint64_t(7 + 2 * trial));
    ASSERT_FALSE(flowradar_single_decode(h.ta).complete);
    ASSERT_FALSE(flowradar_single_decode(h.tb).complete);
    for (bool routing : {false, true}) {
      std::map<flowradar_flow, std::vector<unsigned>> routes;
      for (const auto& f : h.flows) routes[f] = {0, 1};
      const flowradar_net_result res = flowradar_net_decode({{&h.ta, &h.tb}, {{1}, {0}}, routing ? &routes : nullptr});
      const std::map<flowradar_flow, uint64_t>* truth[] = {&h.pa, &h.pb};
      for (unsigned s = 0; s < 2; ++s) {
        const flowradar_net_switch& o = res.sw[s];
        ASSERT_TRUE(o.flows_complete) << "switch " << s << " routing " << routing;
        ASSERT_TRUE(o.counters_ok);
        ASSERT_EQ(o.flows.size(), n);
        for (size_t i = 0; i < n; ++i) EXPECT_EQ(o.packets[i], truth[s]->at(o.flows[i]));
      }
    }
  }
  // m_c = 0.95 n: FlowDecode still finds every flow, but CounterDecode refuses (fewer cells than
  // flows, §4.4.2) rather than give counts it cannot prove.
  const two_hops h = two_switches(r, n, uint32_t(n * 95 / 100), 99);
  const flowradar_net_result res = flowradar_net_decode({{&h.ta, &h.tb}, {{1}, {0}}, nullptr});
  for (unsigned s = 0; s < 2; ++s) {
    EXPECT_TRUE(res.sw[s].flows_complete);
    EXPECT_FALSE(res.sw[s].counters_ok);
    // The flows SingleDecode peeled keep their exact counts; the others have none.
    const std::map<flowradar_flow, uint64_t>& truth = s == 0 ? h.pa : h.pb;
    size_t counted = 0;
    for (size_t i = 0; i < res.sw[s].flows.size(); ++i)
      if (res.sw[s].counted[i]) {
        ++counted;
        EXPECT_EQ(res.sw[s].packets[i], truth.at(res.sw[s].flows[i]));
      }
    EXPECT_GT(counted, 0u);
    EXPECT_LT(counted, n);
  }
}

TEST(FlowRadar, RejectsZeroCellsHashesAndBadWidths) {
  auto message = [](const flowradar_params& p) -> std::string {
    try {
      flowradar_flowset fs(p);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(message({64, 2, 0, 3, 16, 32, 0}).find("cells"), std::string::npos);
  EXPECT_NE(message({64, 2, 10, 0, 16, 32, 0}).find("cell_hashes"), std::string::npos);
  EXPECT_NE(message({64, 0, 10, 3, 16, 32, 0}).find("filter_hashes"), std::string::npos);
  EXPECT_NE(message({1, 2, 10, 3, 16, 32, 0}).find("filter_bits"), std::string::npos);
  EXPECT_NE(message({64, 2, 10, 3, 12, 32, 0}).find("flow_count_bits"), std::string::npos);
  EXPECT_NE(message({64, 2, 10, 3, 16, 64, 0}).find("packet_count_bits"), std::string::npos);
  EXPECT_EQ(message({64, 2, 10, 3, 16, 32, 0}), "");
}

TEST(FlowRadar, MemoryAndExportBytes) {
  // 16-bit FlowCount: lo holds 2 tuple bytes, lanes 4 + 4 + 3 bytes (32-bit words), 32-bit PacketCount.
  const flowradar_params p{1000, 4, 300, 3, 16, 32, 0};
  EXPECT_EQ(flowradar_cell_bits(p), 2u * 16 + 3 * 32 + 32);
  flowradar_flowset fs(p);
  // The filter's 4 slices of 250 bits each take 8 words of 32 bits: 1,024 bits of SRAM.
  EXPECT_EQ(fs.memory_bits(), 4u * 8 * 32 + 300u * flowradar_cell_bits(p));
  EXPECT_EQ(fs.alus_per_hash(), 5u);
  // Payload: 125 filter bytes + 300 cells x (104 + 16 + 32) bits = 5700 bytes: 5825 bytes in 4 frames.
  EXPECT_EQ(fs.read().export_bytes(), 5825u + 4 * 46);
}
