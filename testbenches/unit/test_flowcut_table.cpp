// Flowcut table against a reference written here from the paper (Flowcut switching, §II, §III-A)
// and the documented choices where its text is silent (full table, fixed point): random streams
// of data packets, ACKs (in any order, with random hop counts and wrapped stamps), bogus ACKs and
// cancelled drains on tiny tables, checking every answer, entry and counter. Then the property
// the design exists for: a source, an ingress table and two FIFO paths whose delays change at
// random; however often flows drain and switch paths, no packet ever overtakes an earlier one of
// its flow (and the same harness does see reordering when paths change without draining).
// Directed tests: the paper's Figure 3 walk, RTT arithmetic, both triggers, the full-table
// policies, the full-switch variant, configs, and the memory model against Fig. 4's numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <queue>
#include <stdexcept>
#include <string>
#include <vector>

#include "blocks/flowcut_table.h"
#include "common/rng.h"

using namespace netasic;

namespace {

constexpr uint64_t ns = 1000, us = 1'000'000;

// ---- reference -------------------------------------------------------------------------------------

int64_t floor_div(int64_t a, int64_t b) {   // b > 0
  int64_t q = a / b;
  if (a % b != 0 && a < 0) --q;
  return q;
}

struct ref_entry {
  uint16_t out = 0, in = 0;
  uint64_t inflight = 0;
  int64_t avg = 0, last = 0, davg = 0;   // Q8.8; avg 0 = no sample
  bool draining = false, ingress = true;
  uint64_t start = 0;
};

struct ref_table {
  flowcut_config k;
  std::map<uint64_t, ref_entry> T;
  uint64_t minrtt[16] = {};
  flowcut_counters c;
  uint64_t wrap, inflight_max;
  int64_t t_ratio, t_diff;

  explicit ref_table(const flowcut_config& cfg)
      : k(cfg), wrap(uint64_t(1) << cfg.stamp_bits), inflight_max((uint64_t(1) << cfg.inflight_bits) - 1),
        t_ratio(std::lround(cfg.rtt_ratio_threshold * 256)), t_diff(std::lround(cfg.rtt_diff_threshold * 256)) {}

  uint32_t stamp(uint64_t now) const { return uint32_t((now / k.stamp_unit_ps) % wrap); }

  flowcut_data_result data(uint64_t key, uint32_t bytes, uint64_t now, uint16_t in, uint16_t cand, bool ingress) {
    flowcut_data_result r;
    ++c.data_packets;
    c.data_bytes += bytes;
    auto held = [&] {
      r.action = flowcut_action::hold;
      ++c.packets_held;
      c.bytes_held += bytes;
      return r;
    };
    auto it = T.find(key);
    if (it == T.end()) {
      if (T.size() == k.capacity) {   // no room: the documented policy
        ++c.table_full;
        r.table_full = true;
        if (k.when_full == flowcut_full_policy::hold) return held();
        ++c.bypassed;
        r.action = flowcut_action::bypass;
        return r;
      }
      ref_entry e;
      e.out = cand;
      e.in = k.variant == flowcut_variant::full_switch ? in : 0;
      e.ingress = k.variant == flowcut_variant::full_switch ? ingress : true;
      it = T.emplace(key, e).first;
      ++c.flowcuts;
      r.new_flowcut = true;
      if (T.size() > c.peak_entries) c.peak_entries = T.size();
    } else if (it->second.draining) {
      return held();
    } else if (it->second.inflight + bytes > inflight_max) {
      ++c.inflight_limit;
      return held();
    }
    it->second.inflight += bytes;
    r.out_port = it->second.out;
    if (it->second.ingress) {
      r.stamped = true;
      r.stamp = stamp(now);
    }
    ++c.forwarded;
    return r;
  }

  flowcut_ack_result ack(uint64_t key, uint32_t bytes, uint32_t st, unsigned hops, uint64_t now) {
    flowcut_ack_result r;
    ++c.acks;
    auto it = T.find(key);
    if (it == T.end()) {
      ++c.acks_unmatched;
      return r;
    }
    ref_entry& e = it->second;
    r.matched = true;
    r.reverse_port = k.variant == flowcut_variant::full_switch ? int32_t(e.in) : -1;
    if (e.ingress) {
      const unsigned h = hops % 16;
      const uint64_t raw = ((now / k.stamp_unit_ps) % wrap + wrap - st % wrap) % wrap;
      const uint64_t tx_ps = uint64_t(bytes) * 8 * h * 1000 / k.link_rate_gbps;   // bits / (Gb/s) in ns
      const uint64_t tx = tx_ps / k.stamp_unit_ps;
      const uint64_t rtt = raw > tx ? raw - tx : 1;
      if (minrtt[h] == 0 || rtt < minrtt[h]) minrtt[h] = rtt;
      uint64_t n = rtt * 256 / minrtt[h];
      if (n > 65535) n = 65535;
      r.measured = true;
      r.rtt = uint32_t(rtt);
      r.normalized_q8 = uint32_t(n);
      ++c.rtt_samples;
    }
    if (bytes > e.inflight) ++c.ack_underflows;
    e.inflight = bytes > e.inflight ? 0 : e.inflight - bytes;
    if (e.inflight == 0) {
      r.freed = true;
      ++c.freed;
      if (e.draining) {
        r.resume = true;
        r.drain_ps = now - e.start;
        ++c.drains_completed;
        c.drain_time_ps += r.drain_ps;
      }
      T.erase(it);
      return r;
    }
    if (r.measured) {
      const int64_t n = r.normalized_q8, d = int64_t(1) << k.ewma_shift;
      if (e.avg == 0) {
        e.avg = e.last = n;
        e.davg = 0;
      } else {
        // avg + floor((n - avg) / 2^k) == floor((avg * (2^k - 1) + n) / 2^k)
        e.avg = floor_div(e.avg * (d - 1) + n, d);
        int64_t nd = floor_div(e.davg * (d - 1) + (n - e.last), d);
        e.davg = nd > 32767 ? 32767 : nd < -32768 ? -32768 : nd;
        e.last = n;
      }
      if (!e.draining) {
        r.ratio_trigger = e.avg > t_ratio;
        r.diff_trigger = t_diff > 0 && e.davg > t_diff;
        if (r.ratio_trigger || r.diff_trigger) {
          e.draining = true;
          e.start = now;
          r.pause = true;
          ++c.drains;
          c.ratio_triggers += r.ratio_trigger;
          c.diff_triggers += r.diff_trigger;
        }
      }
    }
    return r;
  }

  bool cancel(uint64_t key) {
    auto it = T.find(key);
    if (it == T.end() || !it->second.draining) return false;
    it->second.draining = false;
    ++c.drains_cancelled;
    return true;
  }
};

void expect_same_counters(const flowcut_counters& a, const flowcut_counters& b, const std::string& at) {
  EXPECT_EQ(a.data_packets, b.data_packets) << at;
  EXPECT_EQ(a.data_bytes, b.data_bytes) << at;
  EXPECT_EQ(a.forwarded, b.forwarded) << at;
  EXPECT_EQ(a.flowcuts, b.flowcuts) << at;
  EXPECT_EQ(a.freed, b.freed) << at;
  EXPECT_EQ(a.table_full, b.table_full) << at;
  EXPECT_EQ(a.bypassed, b.bypassed) << at;
  EXPECT_EQ(a.packets_held, b.packets_held) << at;
  EXPECT_EQ(a.bytes_held, b.bytes_held) << at;
  EXPECT_EQ(a.inflight_limit, b.inflight_limit) << at;
  EXPECT_EQ(a.acks, b.acks) << at;
  EXPECT_EQ(a.acks_unmatched, b.acks_unmatched) << at;
  EXPECT_EQ(a.ack_underflows, b.ack_underflows) << at;
  EXPECT_EQ(a.rtt_samples, b.rtt_samples) << at;
  EXPECT_EQ(a.drains, b.drains) << at;
  EXPECT_EQ(a.ratio_triggers, b.ratio_triggers) << at;
  EXPECT_EQ(a.diff_triggers, b.diff_triggers) << at;
  EXPECT_EQ(a.drains_completed, b.drains_completed) << at;
  EXPECT_EQ(a.drains_cancelled, b.drains_cancelled) << at;
  EXPECT_EQ(a.drain_time_ps, b.drain_time_ps) << at;
  EXPECT_EQ(a.peak_entries, b.peak_entries) << at;
}

struct sent { uint64_t key; uint32_t bytes, stamp; };

}  // namespace

// ---- random streams against the reference ------------------------------------------------------------

TEST(FlowcutTable, MatchesReferenceOnRandomStreams) {
  rng r(1357);
  flowcut_counters total;
  uint64_t ops = 0, wrapped = 0;
  for (int run = 0; run < 400; ++run) {
    flowcut_config k;
    k.variant = flowcut_variant(r.below(3));
    k.when_full = flowcut_full_policy(r.below(2));
    k.capacity = 1 + uint32_t(r.below(8));
    const double ratios[] = {1.0, 1.2, 2.0, 4.0};
    k.rtt_ratio_threshold = ratios[r.below(4)];
    const double diffs[] = {0.0, 0.0, 0.25, 1.5};
    k.rtt_diff_threshold = diffs[r.below(4)];
    k.ewma_shift = unsigned(r.below(5));
    k.stamp_bits = r.below(2) ? 16 : 10;
    k.stamp_unit_ps = r.below(2) ? 1000 : 250;
    const uint32_t rates[] = {100, 200, 400};
    k.link_rate_gbps = rates[r.below(3)];
    const unsigned infl[] = {12, 16, 21};
    k.inflight_bits = infl[r.below(3)];
    flowcut_table t(k);
    ref_table ref(k);
    const uint64_t keys = 1 + r.below(3 * k.capacity + 2);
    std::vector<sent> out;   // forwarded, not yet acknowledged
    uint64_t now = r.below(us);
    const uint64_t wrap_ps = (uint64_t(1) << k.stamp_bits) * k.stamp_unit_ps;
    for (int n = 0; n < 500; ++n) {
      const std::string at = "run " + std::to_string(run) + " op " + std::to_string(n);
      const uint64_t step = r.below(50) == 0 ? r.below(3 * wrap_ps) : r.below(3 * us);
      if (step >= wrap_ps) ++wrapped;
      now += step;
      const uint64_t op = r.below(20);
      if (op < 9) {
        const uint64_t key = r.below(keys);
        const uint32_t bytes = 1 + uint32_t(r.below(uint64_t(1) << (k.inflight_bits - 2)));
        const uint16_t in = uint16_t(r.below(256)), cand = uint16_t(r.below(256));
        const bool ingress = r.below(4) != 0;
        const flowcut_data_result a = t.on_data(key, bytes, now, in, cand, ingress);
        const flowcut_data_result b = ref.data(key, bytes, now, in, cand, ingress);
        ASSERT_EQ(a.action, b.action) << at;
        ASSERT_EQ(a.new_flowcut, b.new_flowcut) << at;
        ASSERT_EQ(a.table_full, b.table_full) << at;
        ASSERT_EQ(a.stamped, b.stamped) << at;
        if (a.action == flowcut_action::forward) {
          ASSERT_EQ(a.out_port, b.out_port) << at;
          ASSERT_EQ(a.stamp, b.stamp) << at;
          out.push_back({key, bytes, a.stamp});
        }
      } else if (op < 18 && !out.empty()) {
        // ACKs in any order: pick any packet still out.
        const size_t i = size_t(r.below(out.size()));
        const sent s = out[i];
        out[i] = out.back();
        out.pop_back();
        const unsigned hops = unsigned(r.below(20));   // > 15 checks the 4-bit mask
        const flowcut_ack_result a = t.on_ack(s.key, s.bytes, s.stamp, hops, now);
        const flowcut_ack_result b = ref.ack(s.key, s.bytes, s.stamp, hops, now);
        ASSERT_EQ(a.matched, b.matched) << at;
        ASSERT_EQ(a.reverse_port, b.reverse_port) << at;
        ASSERT_EQ(a.measured, b.measured) << at;
        ASSERT_EQ(a.rtt, b.rtt) << at;
        ASSERT_EQ(a.normalized_q8, b.normalized_q8) << at;
        ASSERT_EQ(a.pause, b.pause) << at;
        ASSERT_EQ(a.ratio_trigger, b.ratio_trigger) << at;
        ASSERT_EQ(a.diff_trigger, b.diff_trigger) << at;
        ASSERT_EQ(a.freed, b.freed) << at;
        ASSERT_EQ(a.resume, b.resume) << at;
        ASSERT_EQ(a.drain_ps, b.drain_ps) << at;
      } else if (op == 18) {
        // A bogus ACK: an unknown key, or more bytes than are in flight.
        const uint64_t key = r.below(2) ? keys + r.below(5) : r.below(keys);
        const uint32_t bytes = 1 + uint32_t(r.below(uint64_t(1) << k.inflight_bits));
        const uint32_t st = uint32_t(r.below(uint64_t(1) << k.stamp_bits));
        const flowcut_ack_result a = t.on_ack(key, bytes, st, 2, now);
        const flowcut_ack_result b = ref.ack(key, bytes, st, 2, now);
        ASSERT_EQ(a.matched, b.matched) << at;
        ASSERT_EQ(a.freed, b.freed) << at;
        ASSERT_EQ(a.pause, b.pause) << at;
        ASSERT_EQ(a.normalized_q8, b.normalized_q8) << at;
        // Its bytes are gone from the count; forget packets of a key that was freed.
        if (a.freed) {
          std::vector<sent> keep;
          for (const sent& s : out)
            if (s.key != key) keep.push_back(s);
          out.swap(keep);
        }
      } else {
        const uint64_t key = r.below(keys);
        ASSERT_EQ(t.cancel_drain(key), ref.cancel(key)) << at;
      }
      ASSERT_EQ(t.entries(), ref.T.size()) << at;
      for (uint64_t key = 0; key < keys; ++key) {
        const auto e = t.entry(key);
        const auto it = ref.T.find(key);
        ASSERT_EQ(e.has_value(), it != ref.T.end()) << at << " key " << key;
        if (!e) continue;
        const ref_entry& x = it->second;
        ASSERT_EQ(e->out_port, x.out) << at;
        ASSERT_EQ(e->in_port, x.in) << at;
        ASSERT_EQ(e->inflight, x.inflight) << at;
        ASSERT_EQ(e->avg_q8, x.avg) << at;
        ASSERT_EQ(e->last_q8, x.last) << at;
        ASSERT_EQ(e->diff_avg_q8, x.davg) << at;
        ASSERT_EQ(e->draining, x.draining) << at;
        ASSERT_EQ(e->ingress, x.ingress) << at;
      }
      for (unsigned h = 0; h < 16; ++h) ASSERT_EQ(t.min_rtt(h), ref.minrtt[h]) << at;
      ++ops;
    }
    expect_same_counters(t.counters(), ref.c, "run " + std::to_string(run));
    if (HasFailure()) return;
    const flowcut_counters& c = t.counters();
    total.table_full += c.table_full;
    total.bypassed += c.bypassed;
    total.drains += c.drains;
    total.drains_completed += c.drains_completed;
    total.drains_cancelled += c.drains_cancelled;
    total.diff_triggers += c.diff_triggers;
    total.ratio_triggers += c.ratio_triggers;
    total.inflight_limit += c.inflight_limit;
    total.ack_underflows += c.ack_underflows;
    total.acks_unmatched += c.acks_unmatched;
    total.packets_held += c.packets_held;
    total.freed += c.freed;
  }
  EXPECT_EQ(ops, 200000u);
  EXPECT_GT(wrapped, 1000u);
  EXPECT_GT(total.table_full, 1000u);
  EXPECT_GT(total.bypassed, 500u);
  EXPECT_GT(total.drains, 1000u);
  EXPECT_GT(total.drains_completed, 500u);
  EXPECT_GT(total.drains_cancelled, 50u);
  EXPECT_GT(total.diff_triggers, 100u);
  EXPECT_GT(total.ratio_triggers, 500u);
  EXPECT_GT(total.inflight_limit, 100u);
  EXPECT_GT(total.ack_underflows, 100u);
  EXPECT_GT(total.acks_unmatched, 1000u);
  EXPECT_GT(total.packets_held, 5000u);
  EXPECT_GT(total.freed, 5000u);
}

// ---- in-order delivery over two paths --------------------------------------------------------------

namespace {

enum class path_mode { flowcut, naive };   // naive: every packet picks a path, nothing drains

struct harness_stats {
  uint64_t delivered = 0, reordered = 0, path_switches = 0, drains = 0, table_full = 0, held = 0;
  uint64_t leftover_entries = 0, leftover_held = 0, undelivered = 0;
};

// One ingress table (ingress-only variant), sources that never stop offering packets, two FIFO
// paths whose base delays are redrawn every few tens of µs (1-20 µs, plus 0-2 µs per packet),
// and ACKs sent back on delivery with their own random delay (ACKs may pass each other).
harness_stats run_two_paths(rng& r, path_mode mode, flowcut_full_policy policy) {
  flowcut_config k;
  k.variant = flowcut_variant::ingress_only;
  k.capacity = 1 + uint32_t(r.below(8));
  k.when_full = policy;
  k.rtt_ratio_threshold = 1.0 + 0.25 * double(r.below(5));   // low: drains all the time
  k.rtt_diff_threshold = r.below(2) ? 0.0 : 0.5;
  k.ewma_shift = unsigned(r.below(3));
  flowcut_table t(k);

  enum kind : uint8_t { send, arrive, ack };
  struct event { uint64_t t, order; kind what; uint32_t flow, seq, bytes, stamp; bool tracked; };
  struct later {
    bool operator()(const event& a, const event& b) const { return a.t != b.t ? a.t > b.t : a.order > b.order; }
  };
  std::priority_queue<event, std::vector<event>, later> q;
  uint64_t order = 0;
  auto push = [&](event e) { e.order = order++; q.push(e); };

  const uint32_t flows = 1 + uint32_t(r.below(8)), per_flow = 100 + uint32_t(r.below(300));
  uint64_t base[2], last_arrival[2] = {0, 0}, next_change = 0, now = 0;
  std::vector<uint32_t> next_seq(flows, 0), expected(flows, 0);
  std::vector<std::deque<event>> held(flows);
  std::vector<int> last_port(flows, -1);
  harness_stats s;

  // Offer a packet to the table; false if it must wait (the caller keeps it).
  auto submit = [&](event e) {
    unsigned port;
    bool tracked = true;
    uint32_t stamp = 0;
    if (mode == path_mode::naive) {
      port = unsigned(r.below(2));
    } else {
      // Mostly the other path than last time: the harshest choice for ordering.
      const int last = last_port[e.flow];
      const uint16_t cand = uint16_t(last >= 0 && r.below(4) ? 1 - last : int(r.below(2)));
      const flowcut_data_result d = t.on_data(e.flow, e.bytes, now, 0, cand);
      if (d.action == flowcut_action::hold) return false;
      if (d.action == flowcut_action::bypass) {
        port = e.flow % 2;   // ECMP, no Flowcut header, no ACK
        tracked = false;
        last_port[e.flow] = int(port);
      } else {
        port = d.out_port;
        stamp = d.stamp;
        if (d.new_flowcut) {
          if (last_port[e.flow] >= 0 && int(port) != last_port[e.flow]) ++s.path_switches;
          last_port[e.flow] = int(port);
        }
      }
    }
    uint64_t at = now + base[port] + r.below(2 * us);
    if (at < last_arrival[port]) at = last_arrival[port];   // a path is a FIFO
    last_arrival[port] = at;
    push({at, 0, arrive, e.flow, e.seq, e.bytes, stamp, tracked});
    return true;
  };
  auto release = [&] {
    for (uint32_t f = 0; f < flows; ++f)
      while (!held[f].empty() && submit(held[f].front())) held[f].pop_front();
  };

  for (uint32_t f = 0; f < flows; ++f) push({r.below(2 * us), 0, send, f, 0, 0, 0, true});
  while (!q.empty()) {
    const event e = q.top();
    q.pop();
    now = e.t;
    if (now >= next_change) {
      for (uint64_t& b : base) b = (1 + r.below(20)) * us;
      next_change = now + (10 + r.below(90)) * us;
    }
    switch (e.what) {
      case send: {
        event p = e;
        p.seq = next_seq[e.flow]++;
        p.bytes = 64 + uint32_t(r.below(4000));
        // Behind its own held packets, or offered now.
        if (!held[e.flow].empty() || !submit(p)) {
          held[e.flow].push_back(p);
          ++s.held;
        }
        if (next_seq[e.flow] < per_flow) push({now + 100 + r.below(1 * us), 0, send, e.flow, 0, 0, 0, true});
        break;
      }
      case arrive:
        if (e.seq != expected[e.flow]) ++s.reordered;
        if (e.seq + 1 > expected[e.flow]) expected[e.flow] = e.seq + 1;
        ++s.delivered;
        if (e.tracked) push({now + 200 + r.below(3 * us), 0, ack, e.flow, e.seq, e.bytes, e.stamp, true});
        break;
      case ack: {
        const flowcut_ack_result a = t.on_ack(e.flow, e.bytes, e.stamp, 2, now);
        if (a.freed) release();   // `resume` implies `freed`
        break;
      }
    }
  }
  for (uint32_t f = 0; f < flows; ++f) {
    s.leftover_held += held[f].size();
    s.undelivered += per_flow - std::min<uint64_t>(per_flow, expected[f]);
  }
  s.leftover_entries = t.entries();
  s.drains = t.counters().drains_completed;
  s.table_full = t.counters().table_full;
  return s;
}

}  // namespace

TEST(FlowcutTable, DrainingBeforeSwitchingKeepsEveryFlowInOrder) {
  rng r(8080);
  harness_stats total;
  for (int run = 0; run < 1000; ++run) {
    const harness_stats s = run_two_paths(r, path_mode::flowcut, flowcut_full_policy::hold);
    ASSERT_EQ(s.reordered, 0u) << "run " << run;
    ASSERT_EQ(s.undelivered, 0u) << "run " << run;
    ASSERT_EQ(s.leftover_held, 0u) << "run " << run;
    ASSERT_EQ(s.leftover_entries, 0u) << "run " << run;   // every byte acknowledged
    total.delivered += s.delivered;
    total.path_switches += s.path_switches;
    total.drains += s.drains;
    total.table_full += s.table_full;
    total.held += s.held;
  }
  // Not vacuous: flows really moved between paths of different delay, often.
  EXPECT_GT(total.delivered, 500000u);
  EXPECT_GT(total.path_switches, 5000u);
  EXPECT_GT(total.drains, 8000u);
  EXPECT_GT(total.table_full, 7000u);
  EXPECT_GT(total.held, 250000u);
}

TEST(FlowcutTable, TheHarnessSeesReorderingWithoutDraining) {
  // Control: the same paths with a path chosen per packet reorder; so would a flow bypassed on
  // a full table that later gets an entry on the other path (the bypass policy's caveat).
  rng r(8081);
  uint64_t naive = 0, bypass = 0;
  for (int run = 0; run < 100; ++run) {
    naive += run_two_paths(r, path_mode::naive, flowcut_full_policy::hold).reordered;
    const harness_stats b = run_two_paths(r, path_mode::flowcut, flowcut_full_policy::bypass);
    bypass += b.reordered;
    EXPECT_EQ(b.leftover_entries, 0u);
  }
  EXPECT_GT(naive, 40000u);
  EXPECT_GT(bypass, 20u);
}

// ---- directed --------------------------------------------------------------------------------------

TEST(FlowcutTable, Figure3Walk) {
  // Four packets while the first is in flight stay on the first Flowcut's port; the fourth ACK
  // empties it; the fifth packet starts Flowcut 2 on another port.
  flowcut_config k;
  k.variant = flowcut_variant::ingress_only;
  flowcut_table t(k);
  std::vector<uint32_t> stamps;
  for (int i = 0; i < 4; ++i) {
    const flowcut_data_result d = t.on_data(42, 1000, uint64_t(i) * 100 * ns, 0, i == 0 ? 1 : 7);
    EXPECT_EQ(d.action, flowcut_action::forward);
    EXPECT_EQ(d.out_port, 1u);   // the candidate only counts for a new Flowcut
    EXPECT_EQ(d.new_flowcut, i == 0);
    EXPECT_TRUE(d.stamped);
    stamps.push_back(d.stamp);
  }
  EXPECT_EQ(t.entry(42)->inflight, 4000u);
  for (int i = 0; i < 4; ++i) {
    const flowcut_ack_result a = t.on_ack(42, 1000, stamps[i], 2, 5 * us + uint64_t(i) * 100 * ns);
    EXPECT_TRUE(a.matched);
    EXPECT_EQ(a.freed, i == 3);
    EXPECT_FALSE(a.resume);
    EXPECT_EQ(a.reverse_port, -1);
  }
  EXPECT_EQ(t.entries(), 0u);
  const flowcut_data_result d = t.on_data(42, 1000, 6 * us, 0, 2);
  EXPECT_TRUE(d.new_flowcut);
  EXPECT_EQ(d.out_port, 2u);
  EXPECT_EQ(t.counters().flowcuts, 2u);
  EXPECT_EQ(t.counters().freed, 1u);
  EXPECT_EQ(t.counters().peak_entries, 1u);
}

TEST(FlowcutTable, RttArithmetic) {
  flowcut_config k;
  k.variant = flowcut_variant::nic_only;
  flowcut_table t(k);
  // Stamp: ns modulo 2^16.
  EXPECT_EQ(t.stamp_of(70'000 * ns + 999), 70'000u - 65'536u);
  t.on_data(1, 4096, 0, 0, 0);
  t.on_data(1, 4096, 0, 0, 0);
  // 4096 B over 3 hops at 200 Gb/s: 4096 * 8 * 3 / 200 = 491.52 ns, 491 units. 1491 - 491 = 1000.
  flowcut_ack_result a = t.on_ack(1, 4096, t.stamp_of(0), 3, 1491 * ns);
  EXPECT_TRUE(a.measured);
  EXPECT_EQ(a.rtt, 1000u);
  EXPECT_EQ(a.normalized_q8, 256u);   // the first sample is the minimum: 1.0
  EXPECT_EQ(t.min_rtt(3), 1000u);
  EXPECT_EQ(t.min_rtt(2), 0u);        // per hop count
  // 70 µs is beyond the 16-bit ns stamp: it reads as 70000 - 65536 = 4464 ns, minus 491.
  t.on_data(2, 4096, 0, 0, 0);
  t.on_data(2, 4096, 0, 0, 0);
  a = t.on_ack(2, 4096, t.stamp_of(0), 3, 70'000 * ns);
  EXPECT_EQ(a.rtt, 4464u - 491u);
  EXPECT_EQ(a.normalized_q8, (4464u - 491u) * 256u / 1000u);
  // A sample below the tx time counts as 1 unit, and becomes the minimum.
  a = t.on_ack(2, 100, t.stamp_of(0), 15, 10 * ns);
  EXPECT_EQ(a.rtt, 1u);
  EXPECT_EQ(t.min_rtt(15), 1u);
}

TEST(FlowcutTable, RatioTriggerDrainsThenResumes) {
  flowcut_config k;
  k.variant = flowcut_variant::ingress_only;
  k.ewma_shift = 1;   // alpha = 1/2
  flowcut_table t(k);
  for (int i = 0; i < 6; ++i) t.on_data(7, 1000, 0, 0, 3);
  const uint32_t s0 = t.stamp_of(0);
  flowcut_ack_result a = t.on_ack(7, 1000, s0, 0, 1 * us);   // min 1000 ns: n = 1.0
  EXPECT_EQ(t.entry(7)->avg_q8, 256u);
  a = t.on_ack(7, 1000, s0, 0, 9 * us);                       // n = 9.0: avg (256 + 2304) / 2 = 1280 = 5.0 > 4
  EXPECT_EQ(a.normalized_q8, 9u * 256u);
  EXPECT_EQ(t.entry(7)->avg_q8, 1280u);
  EXPECT_EQ(t.entry(7)->last_q8, 2304u);
  EXPECT_EQ(t.entry(7)->diff_avg_q8, 1024);                   // (2304 - 256) / 2
  EXPECT_TRUE(a.pause);
  EXPECT_TRUE(a.ratio_trigger);
  EXPECT_FALSE(a.diff_trigger);                               // off by default
  EXPECT_TRUE(t.entry(7)->draining);
  // Draining: new packets wait.
  const flowcut_data_result h = t.on_data(7, 500, 10 * us, 0, 5);
  EXPECT_EQ(h.action, flowcut_action::hold);
  EXPECT_EQ(t.counters().packets_held, 1u);
  EXPECT_EQ(t.counters().bytes_held, 500u);
  // No second pause while draining; the last ACK resumes.
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(t.on_ack(7, 1000, s0, 0, 20 * us).pause);
  a = t.on_ack(7, 1000, s0, 0, 29 * us);
  EXPECT_TRUE(a.freed);
  EXPECT_TRUE(a.resume);
  EXPECT_EQ(a.drain_ps, 20 * us);
  EXPECT_EQ(t.counters().drains, 1u);
  EXPECT_EQ(t.counters().drains_completed, 1u);
  EXPECT_EQ(t.counters().drain_time_ps, 20 * us);
  // The held packet starts Flowcut 2 on the new port.
  const flowcut_data_result d = t.on_data(7, 500, 30 * us, 0, 5);
  EXPECT_TRUE(d.new_flowcut);
  EXPECT_EQ(d.out_port, 5u);
  EXPECT_EQ(t.entry(7)->avg_q8, 0u);   // a new Flowcut starts with no RTT history
}

TEST(FlowcutTable, RatioMustExceedThreshold) {
  flowcut_config k;
  k.variant = flowcut_variant::ingress_only;
  k.ewma_shift = 0;   // avg = last sample
  flowcut_table t(k);
  for (int i = 0; i < 4; ++i) t.on_data(1, 100, 0, 0, 0);
  t.on_ack(1, 100, 0, 0, 1 * us);
  EXPECT_FALSE(t.on_ack(1, 100, 0, 0, 4 * us).pause);   // exactly 4.0: not above
  EXPECT_TRUE(t.on_ack(1, 100, 0, 0, 4 * us + 4 * ns).pause);   // 4004 / 1000 -> 1025/256
}

TEST(FlowcutTable, DifferenceTrigger) {
  flowcut_config k;
  k.variant = flowcut_variant::ingress_only;
  k.rtt_ratio_threshold = 100;   // out of the way
  k.rtt_diff_threshold = 0.5;    // Q8.8: 128
  k.ewma_shift = 1;
  flowcut_table t(k);
  for (int i = 0; i < 8; ++i) t.on_data(1, 100, 0, 0, 0);
  t.on_ack(1, 100, 0, 0, 1000 * ns);                       // n 256, diff avg 0
  flowcut_ack_result a = t.on_ack(1, 100, 0, 0, 1200 * ns);   // n 307: diff avg (51 - 0) / 2 = 25
  EXPECT_EQ(t.entry(1)->diff_avg_q8, 25);
  EXPECT_FALSE(a.pause);
  a = t.on_ack(1, 100, 0, 0, 2000 * ns);                   // n 512: diff avg 25 + floor((205 - 25) / 2) = 115
  EXPECT_EQ(t.entry(1)->diff_avg_q8, 115);
  EXPECT_FALSE(a.pause);
  a = t.on_ack(1, 100, 0, 0, 3000 * ns);                   // n 768: 115 + floor((256 - 115) / 2) = 185 > 128
  EXPECT_EQ(t.entry(1)->diff_avg_q8, 185);
  EXPECT_TRUE(a.pause);
  EXPECT_TRUE(a.diff_trigger);
  EXPECT_FALSE(a.ratio_trigger);
  a = t.on_ack(1, 100, 0, 0, 1000 * ns);                   // falling RTT: the average goes negative
  EXPECT_EQ(t.entry(1)->diff_avg_q8, 185 + (-512 - 185 - 1) / 2);   // floor(-697 / 2) = -349
  EXPECT_EQ(t.counters().diff_triggers, 1u);
}

TEST(FlowcutTable, FullTablePolicies) {
  flowcut_config k;
  k.variant = flowcut_variant::ingress_only;
  k.capacity = 2;
  flowcut_table hold(k);
  EXPECT_TRUE(hold.on_data(1, 100, 0, 0, 0).new_flowcut);
  EXPECT_TRUE(hold.on_data(2, 100, 0, 0, 0).new_flowcut);
  flowcut_data_result d = hold.on_data(3, 100, 0, 0, 0);
  EXPECT_EQ(d.action, flowcut_action::hold);
  EXPECT_TRUE(d.table_full);
  EXPECT_EQ(hold.on_data(1, 100, 0, 0, 0).action, flowcut_action::forward);   // existing flows go on
  EXPECT_TRUE(hold.on_ack(2, 100, 0, 0, 1 * us).freed);
  d = hold.on_data(3, 100, 2 * us, 0, 1);
  EXPECT_TRUE(d.new_flowcut);
  EXPECT_EQ(hold.counters().table_full, 1u);
  EXPECT_EQ(hold.counters().packets_held, 1u);
  EXPECT_EQ(hold.entries(), 2u);

  k.when_full = flowcut_full_policy::bypass;
  flowcut_table by(k);
  by.on_data(1, 100, 0, 0, 0);
  by.on_data(2, 100, 0, 0, 0);
  d = by.on_data(3, 100, 0, 0, 0);
  EXPECT_EQ(d.action, flowcut_action::bypass);
  EXPECT_FALSE(d.stamped);   // no Flowcut header: no ACK will come
  EXPECT_EQ(by.counters().bypassed, 1u);
  EXPECT_EQ(by.counters().packets_held, 0u);
  EXPECT_EQ(by.entries(), 2u);
}

TEST(FlowcutTable, FullSwitchVariant) {
  flowcut_config k;   // full switch
  flowcut_table t(k);
  EXPECT_EQ(t.entry_bytes(), 11u);
  flowcut_data_result d = t.on_data(1, 100, 0, 17, 3, true);   // enters the network here
  EXPECT_TRUE(d.stamped);
  d = t.on_data(2, 100, 0, 9, 4, false);                        // transit: counts, no stamp
  EXPECT_FALSE(d.stamped);
  EXPECT_EQ(t.entry(1)->in_port, 17u);
  EXPECT_FALSE(t.entry(2)->ingress);
  t.on_data(2, 100, 0, 9, 4, false);
  flowcut_ack_result a = t.on_ack(2, 100, 0, 1, 50 * us);       // a huge RTT, but transit: ignored
  EXPECT_EQ(a.reverse_port, 9);                                 // the ACK goes back the data's way
  EXPECT_FALSE(a.measured);
  EXPECT_FALSE(a.pause);
  a = t.on_ack(2, 100, 0, 1, 51 * us);
  EXPECT_TRUE(a.freed);                                         // transit entries re-route at 0 too
  EXPECT_TRUE(t.on_data(2, 100, 52 * us, 9, 6, false).new_flowcut);
  a = t.on_ack(1, 100, d.stamp, 1, 1 * us);
  EXPECT_EQ(a.reverse_port, 17);
  EXPECT_EQ(t.counters().rtt_samples, 1u);
  // Ports must fit their 1-byte field.
  EXPECT_THROW(t.on_data(3, 100, 0, 256, 0), std::invalid_argument);
  k.port_bytes = 2;
  flowcut_table wide(k);
  EXPECT_EQ(wide.on_data(3, 100, 0, 300, 1000).out_port, 1000u);
  EXPECT_EQ(wide.entry_bytes(), 13u);
}

TEST(FlowcutTable, AckEdgesCancelAndInflightLimit) {
  flowcut_config k;
  k.variant = flowcut_variant::nic_only;
  k.inflight_bits = 12;   // 4095 bytes
  k.ewma_shift = 0;
  flowcut_table t(k);
  EXPECT_FALSE(t.on_ack(9, 100, 0, 0, 0).matched);
  EXPECT_EQ(t.counters().acks_unmatched, 1u);
  t.on_data(1, 3000, 0, 0, 0);
  EXPECT_EQ(t.on_data(1, 1096, 0, 0, 0).action, flowcut_action::hold);   // 4096 > 4095
  EXPECT_EQ(t.counters().inflight_limit, 1u);
  EXPECT_EQ(t.on_data(1, 1095, 0, 0, 0).action, flowcut_action::forward);
  EXPECT_EQ(t.entry(1)->inflight, 4095u);
  EXPECT_THROW(t.on_data(1, 4096, 0, 0, 0), std::invalid_argument);       // one packet cannot be counted
  EXPECT_THROW(t.on_data(1, 0, 0, 0, 0), std::invalid_argument);
  EXPECT_THROW(t.on_ack(1, 0, 0, 0, 0), std::invalid_argument);
  // Trigger, then the source times out (§IV-A): the flow goes on on its old path.
  t.on_ack(1, 10, 0, 0, 1 * us);
  EXPECT_TRUE(t.on_ack(1, 10, 0, 0, 8 * us).pause);
  EXPECT_FALSE(t.cancel_drain(5));
  EXPECT_TRUE(t.cancel_drain(1));
  EXPECT_FALSE(t.cancel_drain(1));
  EXPECT_EQ(t.on_data(1, 10, 9 * us, 0, 7).out_port, 0u);
  EXPECT_EQ(t.counters().drains_cancelled, 1u);
  // More acknowledged than in flight: clamp at 0 and count.
  const flowcut_ack_result a = t.on_ack(1, 4095, 0, 0, 10 * us);
  EXPECT_TRUE(a.freed);
  EXPECT_FALSE(a.resume);
  EXPECT_EQ(t.counters().ack_underflows, 1u);
}

TEST(FlowcutTable, RejectsBadConfig) {
  auto message = [](auto change) -> std::string {
    flowcut_config k;
    change(k);
    try {
      flowcut_table t(k);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(message([](flowcut_config&) {}), "");
  EXPECT_NE(message([](flowcut_config& k) { k.capacity = 0; }).find("capacity"), std::string::npos);
  EXPECT_NE(message([](flowcut_config& k) { k.variant = flowcut_variant(7); }).find("variant"), std::string::npos);
  EXPECT_NE(message([](flowcut_config& k) { k.when_full = flowcut_full_policy(7); }).find("when_full"), std::string::npos);
  EXPECT_NE(message([](flowcut_config& k) { k.port_bytes = 3; }).find("port_bytes"), std::string::npos);
  EXPECT_NE(message([](flowcut_config& k) { k.inflight_bits = 40; }).find("inflight_bits"), std::string::npos);
  EXPECT_NE(message([](flowcut_config& k) { k.rtt_ratio_threshold = 0.5; }).find("rtt_ratio_threshold"), std::string::npos);
  EXPECT_NE(message([](flowcut_config& k) { k.rtt_diff_threshold = -1; }).find("rtt_diff_threshold"), std::string::npos);
  EXPECT_NE(message([](flowcut_config& k) { k.ewma_shift = 16; }).find("ewma_shift"), std::string::npos);
  EXPECT_NE(message([](flowcut_config& k) { k.stamp_bits = 40; }).find("stamp_bits"), std::string::npos);
  EXPECT_NE(message([](flowcut_config& k) { k.stamp_unit_ps = 0; }).find("stamp_unit_ps"), std::string::npos);
  EXPECT_NE(message([](flowcut_config& k) { k.link_rate_gbps = 0; }).find("link_rate_gbps"), std::string::npos);
  EXPECT_NE(message([](flowcut_config& k) { k.key_bytes = 0; }).find("key_bytes"), std::string::npos);
}

TEST(FlowcutTable, MemoryArithmetic) {
  // Table III: 1 B ports, 3 B in flight, 2 B average, 4 B last + difference.
  EXPECT_EQ(flowcut_entry_bytes(flowcut_variant::full_switch), 11u);
  EXPECT_EQ(flowcut_entry_bytes(flowcut_variant::ingress_only), 10u);
  EXPECT_EQ(flowcut_entry_bytes(flowcut_variant::nic_only), 10u);
  EXPECT_EQ(flowcut_entry_bytes(flowcut_variant::full_switch, 2), 13u);
  flowcut_config k;
  const flowcut_table t(k);
  EXPECT_EQ(t.global_bytes(), 32u);                          // 16 hop counts x 2 B
  EXPECT_EQ(t.memory_bytes(), 4096u * (13 + 11) + 32);       // 98 336 B with the CAM keys
  k.variant = flowcut_variant::nic_only;
  k.capacity = 1000;
  EXPECT_EQ(flowcut_table(k).memory_bytes(), 1000u * 23 + 32);

  // Fig. 4(a): 1024 hosts, 200 Gb/s, L = 50 µs: 10^7 bits per host in flight, 611 packets of
  // 2048 B: 625 664 flows x 11 B = 6 882 304 B, "not beyond 7 MiB".
  flowcut_memory_model m;
  m.latency_ps = 50 * us;
  EXPECT_EQ(flowcut_active_flows_per_host(m), 611u);
  EXPECT_EQ(flowcut_active_flows(m, flowcut_variant::full_switch), 625'664u);
  EXPECT_EQ(flowcut_memory_bytes(m, flowcut_variant::full_switch), 6'882'304u);
  EXPECT_LT(flowcut_memory_bytes(m, flowcut_variant::full_switch), 7u << 20);
  EXPECT_EQ(flowcut_memory_bytes(m, flowcut_variant::ingress_only), 8u * 611 * 10);
  EXPECT_EQ(flowcut_memory_bytes(m, flowcut_variant::nic_only), 6110u);
  // Fewer flows per host than the BDP allows: F caps it (memory stops growing with F).
  m.flows_per_host = 100;
  EXPECT_EQ(flowcut_active_flows_per_host(m), 100u);
  // Fig. 4(c): 800 Gb/s, 5 µs: 245 flows per host; over 50 MiB only above 16 384 hosts.
  m = flowcut_memory_model{};
  m.bandwidth_gbps = 800;
  m.hosts = 16384;
  EXPECT_EQ(flowcut_active_flows_per_host(m), 245u);
  EXPECT_EQ(flowcut_memory_bytes(m, flowcut_variant::full_switch), 16384u * 245 * 11);   // 42.1 MiB
  EXPECT_LT(flowcut_memory_bytes(m, flowcut_variant::full_switch), 50u << 20);
  m.hosts = 32768;
  EXPECT_GT(flowcut_memory_bytes(m, flowcut_variant::full_switch), 50u << 20);            // 84.2 MiB
}
