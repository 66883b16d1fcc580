// Flow-arrival generators: offered load, Poisson arrivals, the shape of each pattern,
// reproducibility and input validation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "common/params.h"
#include "workload/traffic.h"

using netasic::config_error;
using netasic::flow_size_cdf;
using netasic::flow_spec;
using netasic::generate_flows;
using netasic::traffic_pattern;
using netasic::traffic_spec;

namespace {

constexpr double kRate = 100e9;   // 100 Gbit/s hosts

traffic_spec poisson_spec(const std::string& cdf, double load, uint32_t hosts, uint64_t duration_ps) {
  traffic_spec s;
  s.pattern = traffic_pattern::poisson;
  s.hosts = hosts;
  s.host_rate_bps = kRate;
  s.load = load;
  s.cdf = flow_size_cdf::load(cdf);
  s.duration_ps = duration_ps;
  s.start_ps = 1'000'000;   // 1 us: arrivals must honour a nonzero start
  return s;
}

traffic_spec fixed_spec(traffic_pattern p, uint32_t hosts) {
  traffic_spec s;
  s.pattern = p;
  s.hosts = hosts;
  s.host_rate_bps = kRate;
  s.flow_size_bytes = 64'000;
  s.start_ps = 5'000'000;
  return s;
}

std::vector<flow_spec> gen(const traffic_spec& s, uint64_t seed) {
  netasic::rng r(seed);
  return generate_flows(s, r);
}

std::string error_of(const traffic_spec& s) {
  try {
    gen(s, 1);
  } catch (const config_error& e) {
    return e.what();
  }
  return "(no error)";
}

// E[X^2] of the piecewise-linear CDF (point mass at the first size, uniform segments).
double second_moment(const flow_size_cdf& c) {
  const auto& pts = c.points();
  double m2 = pts[0].percent / 100 * pts[0].size_bytes * pts[0].size_bytes;
  for (size_t i = 1; i < pts.size(); ++i) {
    const double a = pts[i - 1].size_bytes, b = pts[i].size_bytes;
    m2 += (pts[i].percent - pts[i - 1].percent) / 100 * (a * a + a * b + b * b) / 3;
  }
  return m2;
}

void expect_sorted_with_sequential_ids(const std::vector<flow_spec>& f) {
  for (size_t i = 0; i < f.size(); ++i) {
    ASSERT_EQ(f[i].id, i);
    if (i) {
      ASSERT_LE(f[i - 1].start_ps, f[i].start_ps);
    }
  }
}

}  // namespace

// Achieved load = sum of sizes / (hosts * rate * duration). The total of a compound Poisson
// process has variance lambda*T*E[X^2], so its relative standard deviation is
// sqrt(E[X^2] / N) / mean for N expected flows. The run is made long enough that 2% is at
// least 5 of those standard deviations (websearch ~0.4M flows, fb_hadoop ~2M flows).
class PoissonLoad : public testing::TestWithParam<std::tuple<std::string, double>> {};

TEST_P(PoissonLoad, AchievedLoadWithinTwoPercent) {
  const auto& [name, load] = GetParam();
  constexpr uint32_t hosts = 16;
  const auto c = flow_size_cdf::load(name);
  const double rel_sd_per_flow = std::sqrt(second_moment(c)) / c.mean_bytes();
  const double n_flows = std::pow(5 * rel_sd_per_flow / 0.02, 2);
  const double flows_per_s = hosts * load * kRate / (8 * c.mean_bytes());
  const auto duration_ps = uint64_t(n_flows / flows_per_s * 1e12);
  const auto flows = gen(poisson_spec(name, load, hosts, duration_ps), 11);
  ASSERT_GT(double(flows.size()), 0.9 * n_flows);
  double bytes = 0;
  for (const auto& f : flows) bytes += double(f.size_bytes);
  const double achieved = bytes * 8 / (hosts * kRate * double(duration_ps) * 1e-12);
  EXPECT_NEAR(achieved / load, 1.0, 0.02) << name << " at load " << load << ": " << flows.size() << " flows";
}

INSTANTIATE_TEST_SUITE_P(Workloads, PoissonLoad,
                         testing::Combine(testing::Values("websearch", "fb_hadoop"),
                                          testing::Values(0.3, 0.5)));

// Gaps between one source's arrivals (from the window start) are exponential with mean
// 1/lambda: the mean within 2% (100k gaps: standard error 0.3%), the coefficient of variation
// within 3% of 1 (standard error ~0.45%), the share of gaps above the mean within 0.01 of
// 1/e (standard error 0.0015). Constant or uniform gaps fail the last two.
TEST(Traffic, PoissonGapsAreExponential) {
  constexpr uint32_t hosts = 4;
  constexpr double load = 0.5;
  const auto c = flow_size_cdf::load("websearch");
  const double lambda = load * kRate / (8 * c.mean_bytes());
  const double mean_gap_ps = 1e12 / lambda;
  const auto spec = poisson_spec("websearch", load, hosts, uint64_t(mean_gap_ps * 100'000 / hosts));
  const auto flows = gen(spec, 3);
  std::vector<double> gaps;
  std::vector<double> last(hosts, double(spec.start_ps));
  for (const auto& f : flows) {
    gaps.push_back(double(f.start_ps) - last[f.src]);
    last[f.src] = double(f.start_ps);
  }
  ASSERT_GT(gaps.size(), 90'000u);
  double sum = 0, sum2 = 0, above = 0;
  for (double g : gaps) sum += g;
  const double mean = sum / gaps.size();
  for (double g : gaps) {
    sum2 += (g - mean) * (g - mean);
    above += g > mean_gap_ps;
  }
  const double cv = std::sqrt(sum2 / (gaps.size() - 1)) / mean;
  EXPECT_NEAR(mean / mean_gap_ps, 1.0, 0.02);
  EXPECT_NEAR(cv, 1.0, 0.03);
  EXPECT_NEAR(above / gaps.size(), std::exp(-1.0), 0.01);
}

TEST(Traffic, PoissonWindowOrderAndDestinations) {
  constexpr uint32_t hosts = 8;
  const auto spec = poisson_spec("fb_hadoop", 0.3, hosts, 50'000'000'000);   // 50 ms, ~12k flows
  const auto flows = gen(spec, 9);
  ASSERT_GT(flows.size(), 10'000u);
  expect_sorted_with_sequential_ids(flows);
  std::vector<std::vector<double>> count(hosts, std::vector<double>(hosts, 0));
  std::vector<double> per_src(hosts, 0);
  for (const auto& f : flows) {
    ASSERT_GE(f.start_ps, spec.start_ps);
    ASSERT_LT(f.start_ps, spec.start_ps + spec.duration_ps);
    ASSERT_LT(f.src, hosts);
    ASSERT_LT(f.dst, hosts);
    ASSERT_NE(f.src, f.dst);
    ASSERT_GE(f.size_bytes, 1u);
    ++count[f.src][f.dst];
    ++per_src[f.src];
  }
  // Destination uniform over the other hosts: each within 5 binomial standard errors.
  for (uint32_t s = 0; s < hosts; ++s)
    for (uint32_t d = 0; d < hosts; ++d) {
      if (s == d) continue;
      const double p = 1.0 / (hosts - 1), n = per_src[s];
      EXPECT_NEAR(count[s][d], n * p, 5 * std::sqrt(n * p * (1 - p))) << s << "->" << d;
    }
}

TEST(Traffic, PermutationIsADerangementAndABijection) {
  for (uint32_t hosts : {2u, 3u, 5u, 16u, 257u}) {
    for (uint64_t seed = 1; seed <= 40; ++seed) {
      const auto flows = gen(fixed_spec(traffic_pattern::permutation, hosts), seed);
      ASSERT_EQ(flows.size(), hosts);
      expect_sorted_with_sequential_ids(flows);
      std::set<uint32_t> srcs, dsts;
      for (const auto& f : flows) {
        EXPECT_NE(f.src, f.dst);
        EXPECT_LT(f.dst, hosts);
        EXPECT_EQ(f.size_bytes, 64'000u);
        EXPECT_EQ(f.start_ps, 5'000'000u);
        srcs.insert(f.src);
        dsts.insert(f.dst);
      }
      EXPECT_EQ(srcs.size(), hosts);
      EXPECT_EQ(dsts.size(), hosts);
    }
  }
}

TEST(Traffic, PermutationIsUniformOverDerangements) {
  // Three hosts have exactly two derangements, (1,2,0) and (2,0,1): each half the time.
  constexpr int trials = 10'000;
  netasic::rng r(17);
  int first = 0;
  const auto spec = fixed_spec(traffic_pattern::permutation, 3);
  for (int i = 0; i < trials; ++i) first += generate_flows(spec, r)[0].dst == 1;
  EXPECT_NEAR(first, trials / 2, 5 * std::sqrt(trials * 0.25));
}

TEST(Traffic, IncastHasNDistinctSendersToTheReceiver) {
  auto spec = fixed_spec(traffic_pattern::incast, 32);
  spec.incast_senders = 20;
  spec.incast_receiver = 7;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const auto flows = gen(spec, seed);
    ASSERT_EQ(flows.size(), 20u);
    expect_sorted_with_sequential_ids(flows);
    std::set<uint32_t> senders;
    for (const auto& f : flows) {
      EXPECT_EQ(f.dst, 7u);
      EXPECT_NE(f.src, 7u);
      EXPECT_LT(f.src, 32u);
      EXPECT_EQ(f.start_ps, spec.start_ps);
      EXPECT_EQ(f.size_bytes, spec.flow_size_bytes);
      senders.insert(f.src);
    }
    EXPECT_EQ(senders.size(), 20u);
  }
  // All hosts but the receiver: the only possible choice.
  spec.incast_senders = 31;
  EXPECT_EQ(gen(spec, 1).size(), 31u);
}

TEST(Traffic, IncastSendersAreChosenUniformly) {
  auto spec = fixed_spec(traffic_pattern::incast, 8);
  spec.incast_senders = 3;
  spec.incast_receiver = 2;
  constexpr int trials = 7'000;
  std::vector<double> chosen(8, 0);
  netasic::rng r(23);
  for (int i = 0; i < trials; ++i)
    for (const auto& f : generate_flows(spec, r)) ++chosen[f.src];
  EXPECT_EQ(chosen[2], 0);
  const double p = 3.0 / 7;
  for (uint32_t h = 0; h < 8; ++h) {
    if (h != 2) {
      EXPECT_NEAR(chosen[h], trials * p, 5 * std::sqrt(trials * p * (1 - p))) << "host " << h;
    }
  }
}

TEST(Traffic, AllToAllCoversEveryOrderedPairOnce) {
  const auto flows = gen(fixed_spec(traffic_pattern::all_to_all, 9), 4);
  ASSERT_EQ(flows.size(), 9u * 8u);
  expect_sorted_with_sequential_ids(flows);
  std::set<std::pair<uint32_t, uint32_t>> pairs;
  for (const auto& f : flows) {
    EXPECT_NE(f.src, f.dst);
    pairs.insert({f.src, f.dst});
  }
  EXPECT_EQ(pairs.size(), 72u);
}

TEST(Traffic, FixedPatternsDrawSizesFromTheCdfWhenGiven) {
  auto spec = fixed_spec(traffic_pattern::all_to_all, 16);
  spec.cdf = flow_size_cdf::load("websearch");
  std::set<uint64_t> sizes;
  for (const auto& f : gen(spec, 2)) sizes.insert(f.size_bytes);
  EXPECT_GT(sizes.size(), 200u);
}

TEST(Traffic, SameSeedSameFlowsDifferentSeedDifferent) {
  const auto spec = poisson_spec("websearch", 0.5, 8, 2'000'000'000);
  const auto key = [](const std::vector<flow_spec>& v) {
    std::vector<std::tuple<uint32_t, uint32_t, uint32_t, uint64_t, uint64_t>> k;
    for (const auto& f : v) k.emplace_back(f.id, f.src, f.dst, f.size_bytes, f.start_ps);
    return k;
  };
  const auto a = gen(spec, 99), b = gen(spec, 99), c = gen(spec, 100);
  ASSERT_GT(a.size(), 10u);
  EXPECT_EQ(key(a), key(b));
  EXPECT_NE(key(a), key(c));
  const auto p = fixed_spec(traffic_pattern::permutation, 64);
  EXPECT_EQ(key(gen(p, 5)), key(gen(p, 5)));
  EXPECT_NE(key(gen(p, 5)), key(gen(p, 6)));
}

TEST(Traffic, InvalidInputsNameTheParameter) {
  const auto starts_with = [](const std::string& s, const std::string& prefix) {
    return s.rfind(prefix, 0) == 0;
  };
  auto incast = fixed_spec(traffic_pattern::incast, 8);
  incast.incast_receiver = 0;
  incast.incast_senders = 8;
  EXPECT_TRUE(starts_with(error_of(incast), "traffic.incast.senders:")) << error_of(incast);
  incast.incast_senders = 0;
  EXPECT_TRUE(starts_with(error_of(incast), "traffic.incast.senders:")) << error_of(incast);
  incast.incast_senders = 3;
  incast.incast_receiver = 8;
  EXPECT_TRUE(starts_with(error_of(incast), "traffic.incast.receiver:")) << error_of(incast);

  for (uint32_t hosts : {0u, 1u}) {
    auto p = fixed_spec(traffic_pattern::permutation, hosts);
    EXPECT_TRUE(starts_with(error_of(p), "hosts:")) << error_of(p);
  }
  auto nosize = fixed_spec(traffic_pattern::all_to_all, 4);
  nosize.flow_size_bytes = 0;
  EXPECT_TRUE(starts_with(error_of(nosize), "traffic.flow_size:")) << error_of(nosize);

  auto p = poisson_spec("websearch", 0.3, 4, 1'000'000'000);
  for (double load : {0.0, -0.1, 1.5, std::nan("")}) {
    auto q = p;
    q.load = load;
    EXPECT_TRUE(starts_with(error_of(q), "traffic.load:")) << error_of(q);
  }
  auto q = p;
  q.cdf.reset();
  EXPECT_TRUE(starts_with(error_of(q), "traffic.cdf:")) << error_of(q);
  q = p;
  q.duration_ps = 0;
  EXPECT_TRUE(starts_with(error_of(q), "sim.duration:")) << error_of(q);
  q = p;
  q.duration_ps = 100'000'000'000'000'000;   // 1e5 s: ~900M flows, beyond the limit
  EXPECT_TRUE(starts_with(error_of(q), "sim.duration:")) << error_of(q);
  q = p;
  q.host_rate_bps = 0;
  EXPECT_TRUE(starts_with(error_of(q), "host link rate:")) << error_of(q);
  q = p;
  q.hosts = 0;
  EXPECT_TRUE(starts_with(error_of(q), "hosts:")) << error_of(q);
}

TEST(Traffic, PatternNamesRoundTrip) {
  for (auto p : {traffic_pattern::poisson, traffic_pattern::incast, traffic_pattern::permutation,
                 traffic_pattern::all_to_all, traffic_pattern::list})
    EXPECT_EQ(netasic::parse_traffic_pattern(netasic::to_string(p)), p);
  EXPECT_THROW(netasic::parse_traffic_pattern("uniform"), config_error);
}

TEST(Traffic, FlowListParsesAndRepeats) {
  const auto flows = netasic::parse_flow_list({"0->3 1000000@0", " 2 -> 3 1000@10.5+2.5x4 "}, 4);
  ASSERT_EQ(flows.size(), 5u);
  EXPECT_EQ(flows[0].src, 0u);
  EXPECT_EQ(flows[0].dst, 3u);
  EXPECT_EQ(flows[0].size_bytes, 1000000u);
  EXPECT_EQ(flows[0].start_ps, 0u);
  for (unsigned k = 0; k < 4; ++k) {
    EXPECT_EQ(flows[1 + k].src, 2u);
    EXPECT_EQ(flows[1 + k].size_bytes, 1000u);
    EXPECT_EQ(flows[1 + k].start_ps, 10'500'000u + k * 2'500'000u);   // 10.5 us + k x 2.5 us
  }
  // Added to a generated pattern, then sorted by start with ids in that order.
  traffic_spec s;
  s.pattern = traffic_pattern::list;
  s.hosts = 4;
  s.listed = flows;
  netasic::rng r(1);
  const auto all = netasic::generate_flows(s, r);
  ASSERT_EQ(all.size(), 5u);
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].id, i);
}

TEST(Traffic, FlowListErrorsNameTheItem) {
  for (const std::string bad : {"0->4 10@0", "1->1 10@0", "0->1 0@0", "0->1 10", "0->1 10@5+0x3", "0->1 10@5 extra", "x"}) {
    try {
      netasic::parse_flow_list({"0->1 10@0", bad}, 4);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const config_error& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind("traffic.flows: item 2 \"" + bad + "\"", 0), 0u) << msg;
    }
  }
  traffic_spec s;
  s.pattern = traffic_pattern::list;
  s.hosts = 4;
  netasic::rng r(1);
  EXPECT_THROW(netasic::generate_flows(s, r), config_error);   // the list pattern with no flows
}

TEST(Traffic, RemoteOnlyDestinationsLeaveTheRackUniformly) {
  // 4 racks of 6 hosts: every destination is outside the source's rack, and each of the 18
  // remote hosts is drawn equally often (binomial: within 6 standard deviations).
  constexpr uint32_t hosts = 24, rack = 6;
  auto spec = poisson_spec("fb_hadoop", 0.5, hosts, 200'000'000'000);
  spec.remote_only = true;
  for (uint32_t h = 0; h < hosts; ++h) {
    spec.tor_first.push_back(h / rack * rack);
    spec.tor_end.push_back(h / rack * rack + rack);
  }
  const auto flows = gen(spec, 5);
  std::vector<std::vector<double>> count(hosts, std::vector<double>(hosts, 0));
  std::vector<double> sent(hosts, 0);
  for (const auto& f : flows) {
    ASSERT_NE(f.src / rack, f.dst / rack) << "flow " << f.id << " stays in its rack";
    ++count[f.src][f.dst];
    ++sent[f.src];
  }
  for (uint32_t s = 0; s < hosts; ++s) {
    const double p = 1.0 / (hosts - rack), mean = sent[s] * p, sd = std::sqrt(sent[s] * p * (1 - p));
    ASSERT_GT(mean, 100);
    for (uint32_t d = 0; d < hosts; ++d) {
      if (d / rack == s / rack) continue;
      EXPECT_NEAR(count[s][d], mean, 6 * sd) << s << "->" << d;
    }
  }
  // A single rack has no remote host: a configuration error, not an endless draw.
  spec.tor_first.assign(hosts, 0);
  spec.tor_end.assign(hosts, hosts);
  EXPECT_NE(error_of(spec).find("traffic.remote_only"), std::string::npos) << error_of(spec);
}

TEST(Traffic, MatrixDestinationsFollowTheDemands) {
  // 4 racks of 6 hosts; rack r sends to rack (r + 1) % 4 with weight 1 and to (r + 2) % 4 with
  // weight 3 (cumulative weights 1 and 4). Every flow lands in one of its rack's ranges, a range
  // is picked in proportion to its weight and a host in it uniformly (binomial, 6 sd). Control:
  // without the matrix a host's flows reach every other rack.
  constexpr uint32_t hosts = 24, rack = 6;
  auto spec = poisson_spec("fb_hadoop", 0.5, hosts, 200'000'000'000);
  for (uint32_t h = 0; h < hosts; ++h) spec.tor_of.push_back(h / rack);
  for (uint32_t r = 0; r < 4; ++r) {
    const uint32_t a = (r + 1) % 4, b = (r + 2) % 4;
    spec.dsts.push_back({{a * rack, a * rack + rack, 1.0}, {b * rack, b * rack + rack, 4.0}});
  }
  const auto flows = gen(spec, 9);
  std::vector<std::vector<double>> count(hosts, std::vector<double>(hosts, 0));
  std::vector<double> sent(hosts, 0);
  for (const auto& f : flows) {
    const uint32_t r = f.src / rack, d = f.dst / rack;
    ASSERT_TRUE(d == (r + 1) % 4 || d == (r + 2) % 4) << f.src << "->" << f.dst;
    ++count[f.src][f.dst];
    ++sent[f.src];
  }
  for (uint32_t s = 0; s < hosts; ++s) {
    ASSERT_GT(sent[s], 400);
    for (uint32_t d = 0; d < hosts; ++d) {
      const uint32_t r = s / rack, dr = d / rack;
      const double p = dr == (r + 1) % 4 ? 0.25 / rack : dr == (r + 2) % 4 ? 0.75 / rack : 0.0;
      const double mean = sent[s] * p, sd = std::sqrt(sent[s] * p * (1 - p));
      if (p == 0) EXPECT_EQ(count[s][d], 0) << s << "->" << d;
      else EXPECT_NEAR(count[s][d], mean, 6 * sd) << s << "->" << d;
    }
  }
  auto plain = spec;
  plain.tor_of.clear();
  plain.dsts.clear();
  std::set<uint32_t> racks_reached;
  for (const auto& f : gen(plain, 9))
    if (f.src == 0) racks_reached.insert(f.dst / rack);
  EXPECT_EQ(racks_reached.size(), 4u);
}
