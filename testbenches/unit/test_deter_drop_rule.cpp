// DETER replay's drop rule in the traffic manager (thesis ch. 6 §6.3.4) against a small golden
// model of the rule: random enqueues (tagged or not) and dequeues on a shared buffer with the
// dynamic threshold (alpha = 4, the chapter's). An untagged frame is never dropped; a tagged one
// is dropped exactly when its queue would pass its limit less 5 MTU. The control: the same
// operations without the rule drop untagged frames.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <vector>

#include "common/rng.h"
#include "switch/traffic_manager.h"

namespace netasic {
namespace {

constexpr unsigned ports = 3;
constexpr uint64_t buffer = 393 * 1024;   // the testbed switch's 393 KB
constexpr uint64_t mtu = 1518;

tm_config rule_config(bool rule) {
  tm_config c;
  c.buffer_bytes = buffer;
  c.alpha.fill(4);
  c.strict = 0;
  c.deter_drop_rule = rule;
  c.deter_margin_bytes = 5 * mtu;
  return c;
}

packet make(uint32_t payload, bool tag) {
  packet p;
  p.payload_bytes = payload;
  p.deter_tag = tag;
  return p;
}

// Runs the operations; returns the untagged frames the traffic manager dropped.
uint64_t run_ops(bool rule, uint64_t seed, bool check) {
  traffic_manager tm(rule_config(rule), ports);
  rng r(seed);
  std::deque<packet> store;                   // stable addresses
  std::vector<std::deque<uint32_t>> golden(ports);
  std::vector<uint64_t> q(ports, 0);
  uint64_t used = 0, untagged_drops = 0;
  for (int op = 0; op < 200000; ++op) {
    const unsigned port = unsigned(r.below(ports));
    if (r.below(100) < 55) {   // enqueue, a little faster than dequeue: the buffer fills
      store.push_back(make(uint32_t(r.below(1457)), r.below(4) == 0));
      packet& p = store.back();
      const uint32_t bytes = p.frame_bytes();
      const uint64_t free = buffer - std::min(buffer, used);
      const uint64_t limit = std::min<uint64_t>(q[port] + free, 4 * free);
      const bool golden_drop = p.deter_tag && q[port] + bytes + 5 * mtu > limit;
      const bool dropped = tm.enqueue(p, port) != tm_verdict::admitted;
      if (!p.deter_tag && dropped) ++untagged_drops;
      if (check) {
        EXPECT_FALSE(!p.deter_tag && dropped) << "op " << op << ": an untagged frame was dropped";
        EXPECT_EQ(dropped, golden_drop) << "op " << op << " tagged " << p.deter_tag << " queue " << q[port] << " used " << used;
      }
      if (!dropped) {
        golden[port].push_back(bytes);
        q[port] += bytes;
        used += bytes;
      }
    } else if (packet* p = tm.dequeue(port, 0)) {
      if (check) {
        EXPECT_EQ(p->frame_bytes(), golden[port].front());
      }
      q[port] -= golden[port].front();
      used -= golden[port].front();
      golden[port].pop_front();
    }
    if (check && tm.shared_used() != used) {
      ADD_FAILURE() << "op " << op << ": shared buffer " << tm.shared_used() << " bytes, golden " << used;
      return untagged_drops;
    }
  }
  return untagged_drops;
}

TEST(DeterDropRule, NeverDropsUntaggedAndMatchesGoldenModel) {
  for (uint64_t seed = 1; seed <= 3; ++seed) EXPECT_EQ(run_ops(true, seed, true), 0u);
}

TEST(DeterDropRule, WithoutTheRuleUntaggedFramesAreDropped) {
  EXPECT_GT(run_ops(false, 1, false), 0u);   // the control: plain admission drops them
}

}  // namespace
}  // namespace netasic
