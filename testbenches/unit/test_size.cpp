// `netasic size`: the search core on synthetic metrics (no simulation), goals, decisions at a
// confidence, candidate lists and the closest metric name.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/netasic/size.h"
#include "common/text.h"

using namespace netasic;

// A monotone synthetic metric: reorder = 2^20 / entries, goal reorder <= 100. The exact
// threshold is the smallest power of two >= 2^20 / 100 = 10485.76, that is 16384 = 2^14.
TEST(SizeSearch, BisectionFindsTheExactThreshold) {
  const std::vector<double> values = pow2_range("1..1048576");
  ASSERT_EQ(values.size(), 21u);
  const size_goal g = parse_goal("flows.max_reorder_packets <= 100");
  std::set<size_t> seen;
  const search_result r = smallest_meeting(values.size(), [&](size_t i) {
    EXPECT_TRUE(seen.insert(i).second) << "index " << i << " evaluated twice";
    const double m = 1048576.0 / values[i];
    return decide(g, m, m, g.threshold(0));
  });
  ASSERT_TRUE(r.chosen.has_value());
  EXPECT_EQ(values[*r.chosen], 16384);
  EXPECT_EQ(r.steps.front().index, 20u) << "the largest candidate is tried first";
  EXPECT_LE(r.steps.size(), 1 + 5u) << "bisection of 21 candidates: at most 1 + ceil(log2 21) runs";
  // The value below the answer was evaluated and failed: the answer is the smallest, not a guess.
  EXPECT_TRUE(seen.count(*r.chosen - 1));
  // Every threshold position, on a list of arbitrary values: the first index at or above it.
  const std::vector<double> list = parse_values("3,1,7,20,50,9");
  EXPECT_EQ(list, (std::vector<double>{1, 3, 7, 9, 20, 50}));
  for (double t : {0.5, 1.0, 2.0, 3.0, 8.0, 9.0, 10.0, 50.0}) {
    const search_result s = smallest_meeting(list.size(), [&](size_t i) { return list[i] >= t ? verdict::met : verdict::not_met; });
    size_t expect = 0;
    while (list[expect] < t) ++expect;
    ASSERT_TRUE(s.chosen) << t;
    EXPECT_EQ(*s.chosen, expect) << t;
  }
}

TEST(SizeSearch, NeverMetStopsAfterTheLargestAndUndecidedCountsAsNotMet) {
  const search_result none = smallest_meeting(8, [](size_t) { return verdict::not_met; });
  EXPECT_FALSE(none.chosen);
  ASSERT_EQ(none.steps.size(), 1u);
  EXPECT_EQ(none.steps[0].index, 7u);
  // Met from index 5 on, undecided at 3 and 4: the answer is 5, the smallest shown to meet.
  const search_result r = smallest_meeting(8, [](size_t i) { return i >= 5 ? verdict::met : i >= 3 ? verdict::undecided : verdict::not_met; });
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(*r.chosen, 5u);
  EXPECT_FALSE(smallest_meeting(0, [](size_t) { return verdict::met; }).chosen);
}

// Decisions on an interval: met only when the pessimistic end meets the goal.
TEST(SizeSearch, DecideUsesThePessimisticEnd) {
  const size_goal le = parse_goal("fct_slowdown.p99 <= 1.05 * ref");
  EXPECT_TRUE(le.uses_ref);
  EXPECT_DOUBLE_EQ(le.threshold(2.0), 2.1);
  EXPECT_EQ(decide(le, 1.9, 2.1, 2.1), verdict::met);
  EXPECT_EQ(decide(le, 2.0, 2.2, 2.1), verdict::undecided);
  EXPECT_EQ(decide(le, 2.11, 2.2, 2.1), verdict::not_met);
  const size_goal lt = parse_goal("x < 3");
  EXPECT_EQ(decide(lt, 1, 3, 3), verdict::undecided);
  EXPECT_EQ(decide(lt, 3, 4, 3), verdict::not_met);
  const size_goal ge = parse_goal("x >= ref - 2");
  EXPECT_DOUBLE_EQ(ge.threshold(10), 8);
  EXPECT_EQ(decide(ge, 8, 9, 8), verdict::met);
  EXPECT_EQ(decide(ge, 7, 9, 8), verdict::undecided);
  EXPECT_EQ(decide(ge, 6, 7.9, 8), verdict::not_met);
  const size_goal gt = parse_goal("x>ref*0.5+1");
  EXPECT_DOUBLE_EQ(gt.threshold(10), 6);
  EXPECT_EQ(decide(gt, 6, 7, 6), verdict::undecided);
  EXPECT_EQ(parse_goal("flows.max_reorder_packets <= 0").offset, 0);
  EXPECT_DOUBLE_EQ(parse_goal("a.b <= 2e-3 * ref").factor, 2e-3);
  EXPECT_DOUBLE_EQ(parse_goal("a.b <= ref * 1e-3 + 4").threshold(1000), 5);
}

TEST(SizeSearch, BadGoalsAreNamed) {
  for (const std::string bad : {"x == 3", "x =< 3", "x != 3", "x 3", "x <=", "<= 3", "x <= three", "x <= 2 * reff",
                                "x <= ref ^ 2", "x y <= 3"}) {
    try {
      parse_goal(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("--goal '" + bad + "'"), std::string::npos) << e.what();
    }
  }
  EXPECT_NE(std::string([] { try { parse_goal("x == 3"); } catch (const std::invalid_argument& e) { return std::string(e.what()); } return std::string(); }())
                .find("unknown operator '=='"), std::string::npos);
  EXPECT_THROW(pow2_range("1000..4096"), std::invalid_argument);
  EXPECT_THROW(pow2_range("4096..1024"), std::invalid_argument);
  EXPECT_THROW(pow2_range("1024"), std::invalid_argument);
  EXPECT_THROW(parse_values("1,x"), std::invalid_argument);
  EXPECT_THROW(parse_values("1,2,1"), std::invalid_argument);
  EXPECT_EQ(pow2_range("1024..4096"), (std::vector<double>{1024, 2048, 4096}));
}

TEST(SizeSearch, ClosestMetricByEditDistance) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", "abc"), 0u);
  const std::set<std::string> names = {"flows.max_reorder_packets", "flows.out_of_order_packets", "fct_slowdown.p99"};
  EXPECT_EQ(closest_name("flows.max_reorder_packet", names), "flows.max_reorder_packets");
  EXPECT_EQ(closest_name("fct_slowdown.p90", names), "fct_slowdown.p99");
}

// A larger value whose interval lies wholly on the failing side of a smaller one's contradicts
// monotonicity; overlapping intervals do not.
TEST(SizeSearch, MonotonicityViolationsNeedDisjointIntervals) {
  const size_goal le = parse_goal("m <= 1");
  EXPECT_TRUE(monotonicity_violations(le, {{0, {5, 6}}, {3, {2, 3}}, {5, {2.5, 5.5}}}).empty());
  const auto v = monotonicity_violations(le, {{0, {5, 6}}, {3, {2, 3}}, {5, {3.5, 4}}});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0], (std::pair<size_t, size_t>{3, 5}));
  const size_goal ge = parse_goal("m >= 1");
  EXPECT_EQ(monotonicity_violations(ge, {{0, {5, 6}}, {1, {2, 3}}}).size(), 1u);
}
