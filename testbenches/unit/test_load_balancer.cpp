// The load balancer (systemc/switch/load_balancer.*) against a golden model per mode, matchlib
// style: random streams of thousands of packets through a small switch's route table, and for
// every packet the golden model's next hop (and CONGA header, BalanceSketch clear, Flowcut hold)
// equals the balancer's. Each golden model is written from the mode's description in
// docs/datasheets/load_balancer.md; where a mode keeps state in a block that has its own tests
// (BalanceSketch, CONGA's leaf, the Flowcut table), the golden model drives its own instance of
// that core and checks how the balancer uses it. Every mode has a control: the same stream
// through a golden model with one rule changed must disagree, so the stream exercises the rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "blocks/balance_sketch.h"
#include "blocks/conga.h"
#include "blocks/crc_hash.h"
#include "blocks/flowcut_table.h"
#include "common/rng.h"
#include "protocol/packet.h"
#include "switch/load_balancer.h"
#include "switch/route_table.h"

using namespace netasic;

namespace {

constexpr unsigned ports = 12, hosts = 32;

// A route table whose destinations map to groups given as member port lists (hosts with the same
// list share one group, as the route controller shares them).
struct routes_fixture {
  route_table routes{0, ports, hosts, 256};
  std::vector<std::vector<unsigned>> group_of;   // per host: its members, in member-table order

  explicit routes_fixture(const std::vector<std::vector<unsigned>>& by_host) : group_of(by_host) {
    std::map<std::vector<unsigned>, uint32_t> base_of;
    uint32_t next = 0;
    for (unsigned h = 0; h < by_host.size(); ++h) {
      const auto& g = by_host[h];
      if (g.empty()) continue;
      auto [it, fresh] = base_of.emplace(g, next);
      if (fresh) {
        for (unsigned i = 0; i < g.size(); ++i) EXPECT_TRUE(routes.write(route_table::reg_member + 4 * (next + i), g[i]));
        next += uint32_t(g.size());
      }
      EXPECT_TRUE(routes.write(route_table::reg_route + 4 * h, it->second << 16 | uint32_t(g.size())));
    }
  }
  void group(unsigned dst, uint32_t& base, uint32_t& size) const { ASSERT_TRUE(routes.group(dst, base, size)); }
};

packet make_packet(pkt_kind kind, unsigned src, unsigned dst, unsigned in_port, uint32_t payload, uint32_t flow) {
  packet p;
  p.kind = kind;
  p.ip.src = host_ip(src);
  p.ip.dst = host_ip(dst);
  p.in_port = uint16_t(in_port);
  p.payload_bytes = payload;
  p.flow = flow;
  return p;
}

struct flow_desc {
  unsigned src, dst;
  uint32_t hash;
};

std::vector<flow_desc> make_flows(rng& r, unsigned n, unsigned src_lo, unsigned src_hi, unsigned dst_lo, unsigned dst_hi) {
  std::vector<flow_desc> f(n);
  for (auto& x : f) {
    x.src = src_lo + unsigned(r.below(src_hi - src_lo));
    do x.dst = dst_lo + unsigned(r.below(dst_hi - dst_lo));
    while (x.dst == x.src);
    x.hash = uint32_t(r.next());
  }
  return f;
}

// Groups for the stateless modes: four shapes, among them a weighted one (next hop 1 three
// times, 2 once, 3 twice, as the route controller replicates by link rate) and a single member.
routes_fixture mixed_groups() {
  std::vector<std::vector<unsigned>> g(hosts);
  for (unsigned h = 0; h < hosts; ++h) {
    switch (h % 4) {
      case 0: g[h] = {0, 1, 2, 3}; break;
      case 1: g[h] = {4, 5, 6}; break;
      case 2: g[h] = {1, 1, 1, 2, 3, 3}; break;
      default: g[h] = {7}; break;
    }
  }
  return routes_fixture(g);
}

// One stream through a balancer and golden models: `golden[i](p, hash, dst)` gives model i's port
// for packet p. Returns the packets on which each model disagreed with the balancer; model 0 is
// the golden model (the caller expects 0), the rest are controls.
using golden_fn = std::function<unsigned(const packet&, uint32_t hash, unsigned dst)>;
std::vector<unsigned> run_stateless(lb_mode mode, uint64_t seed, std::vector<golden_fn> golden) {
  routes_fixture rf = mixed_groups();
  lb_config c;
  c.mode = mode;
  c.seed = seed;
  load_balancer lb(c, rf.routes, std::vector<uint64_t>(ports, 100'000'000'000ull));
  rng r(seed * 7 + 1);
  const auto flows = make_flows(r, 300, 0, hosts, 0, hosts);
  std::vector<unsigned> wrong(golden.size(), 0);
  for (int n = 0; n < 20000; ++n) {
    const flow_desc& f = flows[r.below(flows.size())];
    const pkt_kind kind = r.below(4) ? pkt_kind::data : r.below(2) ? pkt_kind::ack : pkt_kind::cnp;
    packet p = make_packet(kind, f.src, f.dst, 0, 1000, 0);
    uint32_t base = 0, size = 0;
    rf.group(f.dst, base, size);
    const lb_route got = lb.route(p, f.hash, base, size, uint64_t(n) * 1000);
    EXPECT_FALSE(got.held);
    EXPECT_FALSE(got.clear);
    for (size_t i = 0; i < golden.size(); ++i) wrong[i] += golden[i](p, f.hash, f.dst) != got.port;
  }
  return wrong;
}

// Next hops and weights of a group, from its member list (the weights a WCMP group encodes).
std::vector<std::pair<unsigned, unsigned>> weights(const std::vector<unsigned>& members) {
  std::vector<std::pair<unsigned, unsigned>> w;
  for (unsigned m : members) {
    if (!w.empty() && w.back().first == m) ++w.back().second;
    else w.push_back({m, 1});
  }
  return w;
}

}  // namespace

TEST(LoadBalancer, EcmpAndWcmpHashOverTheWeightedGroup) {
  const routes_fixture rf = mixed_groups();
  // WCMP: hash mod (sum of weights) falls into one next hop's share of the weights; ECMP is the
  // same with every weight 1 (its groups hold each next hop once).
  const golden_fn weighted = [&](const packet&, uint32_t hash, unsigned dst) {
    const auto w = weights(rf.group_of[dst]);
    unsigned total = 0;
    for (const auto& [port, n] : w) total += n;
    unsigned k = hash % total;
    for (const auto& [port, n] : w) {
      if (k < n) return port;
      k -= n;
    }
    return ~0u;
  };
  const golden_fn unweighted = [&](const packet&, uint32_t hash, unsigned dst) {   // control
    const auto w = weights(rf.group_of[dst]);
    return w[hash % w.size()].first;
  };
  for (lb_mode m : {lb_mode::ecmp, lb_mode::wcmp}) {
    const auto wrong = run_stateless(m, 3, {weighted, unweighted});
    EXPECT_EQ(wrong[0], 0u);
    EXPECT_GT(wrong[1], 1000u) << "the stream must reach the weighted group";
  }
}

TEST(LoadBalancer, SprayRandomDrawsOncePerDataPacket) {
  // Each data packet a uniform member; ACKs and CNPs take ECMP and draw nothing.
  const routes_fixture rf = mixed_groups();
  rng draws(11), control_draws(11);
  const golden_fn spray = [&](const packet& p, uint32_t hash, unsigned dst) {
    const auto& g = rf.group_of[dst];
    return p.kind == pkt_kind::data ? g[draws.below(g.size())] : g[hash % g.size()];
  };
  const golden_fn draws_for_acks = [&](const packet& p, uint32_t hash, unsigned dst) {   // control
    const auto& g = rf.group_of[dst];
    const unsigned k = unsigned(control_draws.below(g.size()));
    return p.kind == pkt_kind::data ? g[k] : g[hash % g.size()];
  };
  const auto wrong = run_stateless(lb_mode::spray_random, 11, {spray, draws_for_acks});
  EXPECT_EQ(wrong[0], 0u);
  EXPECT_GT(wrong[1], 5000u);
}

TEST(LoadBalancer, SprayRoundRobinKeepsOnePointerPerGroup) {
  const routes_fixture rf = mixed_groups();
  std::map<std::vector<unsigned>, size_t> next;   // per group
  size_t shared = 0;
  const golden_fn rr = [&](const packet& p, uint32_t hash, unsigned dst) {
    const auto& g = rf.group_of[dst];
    if (p.kind != pkt_kind::data) return g[hash % g.size()];
    size_t& i = next[g];
    return g[i++ % g.size()];
  };
  const golden_fn one_pointer = [&](const packet& p, uint32_t hash, unsigned dst) {   // control
    const auto& g = rf.group_of[dst];
    return p.kind == pkt_kind::data ? g[shared++ % g.size()] : g[hash % g.size()];
  };
  const auto wrong = run_stateless(lb_mode::spray_round_robin, 5, {rr, one_pointer});
  EXPECT_EQ(wrong[0], 0u);
  EXPECT_GT(wrong[1], 5000u);
}

TEST(LoadBalancer, LetFlowKeepsAFlowletAndMovesANewOne) {
  // Golden model from LetFlow's rule alone: an entry (hash mod entries) touched less than Delta ago
  // keeps its member; one idle for longer than 2 Delta plus a sweep starts a new flowlet on the
  // member drawn for the packet (one draw per data packet). The stream never lets an entry idle
  // in between, where the answer depends on where the checker is, and sends at most one packet
  // per cycle, so the checker never waits for a port.
  flowlet_config fc;
  fc.entries = 256;
  fc.delta_ps = 20'000'000;
  fc.sweep_width = 1;
  const uint64_t T = fc.clock_period_ps, sweep_ps = uint64_t(fc.entries) * T;
  const uint64_t alive_below = fc.delta_ps - T, dead_above = 2 * fc.delta_ps + 2 * sweep_ps;
  routes_fixture rf = mixed_groups();
  for (uint64_t seed : {1, 2, 3}) {
    lb_config c;
    c.mode = lb_mode::letflow;
    c.flowlet = fc;
    c.seed = seed;
    load_balancer lb(c, rf.routes, std::vector<uint64_t>(ports, 100'000'000'000ull));
    rng r(seed + 100), draws(seed);
    const auto flows = make_flows(r, 400, 0, hosts, 0, hosts);
    struct entry { bool used = false; uint64_t last = 0; uint32_t member = 0; };
    std::vector<entry> table(fc.entries), forever(fc.entries);
    unsigned checked = 0, new_flowlets = 0, kept = 0, wrong_forever = 0, wrong_per_packet = 0;
    uint64_t t = 0;
    for (int n = 0; n < 20000; ++n) {
      // Bursts of closely spaced packets, mostly of a few hot flows, between pauses of up to 5 Delta.
      t = (t / T + 1 + (r.below(50) ? r.below(200) : r.below(100'000))) * T + r.below(T);
      const flow_desc* f = nullptr;
      for (int tries = 0; tries < 20 && !f; ++tries) {   // a flow whose entry is not in between
        const flow_desc& x = flows[r.below(r.below(10) < 7 ? 16 : flows.size())];
        const entry& e = table[x.hash % fc.entries];
        if (!e.used || t - e.last < alive_below || t - e.last > dead_above) f = &x;
      }
      if (!f) continue;
      const bool data = r.below(8) != 0;
      packet p = make_packet(data ? pkt_kind::data : pkt_kind::ack, f->src, f->dst, 0, 1000, 0);
      uint32_t base = 0, size = 0;
      rf.group(f->dst, base, size);
      const auto& g = rf.group_of[f->dst];
      const unsigned got = lb.route(p, f->hash, base, size, t).port;
      if (!data) {
        ASSERT_EQ(got, g[f->hash % size]) << "packet " << n;
        continue;
      }
      const uint32_t fresh = uint32_t(draws.below(size));
      entry& e = table[f->hash % fc.entries];
      const bool alive = e.used && t - e.last < alive_below;
      if (!alive) e.member = fresh;
      e.used = true;
      e.last = t;
      ASSERT_EQ(got, g[e.member % size]) << "packet " << n << (alive ? " (flowlet kept)" : " (new flowlet)");
      ++checked;
      (alive ? kept : new_flowlets)++;
      // Controls: an entry that never ages, and a fresh member for every packet.
      entry& ef = forever[f->hash % fc.entries];
      if (!ef.used) ef = {true, t, fresh};
      wrong_forever += g[ef.member % size] != got;
      wrong_per_packet += g[fresh] != got;
    }
    EXPECT_GT(checked, 10000u);
    EXPECT_GT(kept, 2000u);
    EXPECT_GT(new_flowlets, 2000u);
    EXPECT_GT(wrong_forever, 500u);
    EXPECT_GT(wrong_per_packet, 500u);
  }
}

namespace {

// BalanceSketch's fingerprint unit, written from its definition: CRC-32C (Castagnoli) of the
// 13-byte 5-tuple key, bit by bit.
uint32_t crc32c_reference(const packet& p) {
  uint8_t key[flow_key_bytes];
  flow_key(p, key);
  return crc_bitwise(32, 0x1EDC6F41u, 0xFFFFFFFFu, true, 0xFFFFFFFFu, key, flow_key_bytes);
}

packet random_flow_packet(rng& r) {
  packet p;
  p.kind = pkt_kind::data;
  p.ip.src = uint32_t(r.next());
  p.ip.dst = uint32_t(r.next());
  p.ip.protocol = 17;
  p.udp.src_port = uint16_t(r.next());
  p.udp.dst_port = uint16_t(r.next());
  p.payload_bytes = 1000;
  return p;
}

struct collision_run {
  uint64_t probes = 0, collisions = 0, replacements = 0;
};

// Every bucket of a d-cell sketch is filled with d resident flows of distinct fingerprints, each
// made a BurstFollower (F = 0, a gap > delta, so its next hop is set): Case 3 then never votes one out
// (§3.4), and the buckets stay as they are. Each probe is one packet of a fresh random 5-tuple. The
// bucket comes from the switch's flow hash (CRC-32), the fingerprint from the balancer's own unit.
// Returns the collisions the balancer counted during the probes.
collision_run fingerprint_collisions(unsigned bits, uint32_t buckets, uint32_t cells, uint64_t probes) {
  routes_fixture rf = mixed_groups();
  lb_config c;
  c.mode = lb_mode::balance_sketch;
  c.sketch.buckets = buckets;
  c.sketch.cells = cells;
  c.sketch.fingerprint_bits = bits;
  c.sketch.F = 0;
  c.sketch.delta_ps = 1'000;
  c.sketch.Delta_ps = 1'000'000'000;
  c.sketch.timestamp_bits = 32;
  load_balancer lb(c, rf.routes, std::vector<uint64_t>(ports, 100'000'000'000ull));
  crc_hash flow_hash(crc_hash_config{32, 0x5EED});
  rng r(bits);
  const uint32_t mask = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
  std::vector<std::vector<uint32_t>> resident(buckets);
  std::vector<packet> residents;
  while (residents.size() < size_t(buckets) * cells) {
    packet p = random_flow_packet(r);
    const uint32_t b = flow_hash.hash(p) % buckets;
    uint32_t fp = load_balancer::sketch_fingerprint(p) & mask;
    if (fp == 0) fp = 1;
    auto& in = resident[b];
    if (in.size() == cells || std::find(in.begin(), in.end(), fp) != in.end()) continue;
    in.push_back(fp);
    residents.push_back(p);
    lb.route(p, flow_hash.hash(p), 0, 4, 0);
  }
  constexpr uint64_t later = 10'000;   // 10 slices of delta later: each resident's next flowlet is moved
  for (packet& p : residents) lb.route(p, flow_hash.hash(p), 0, 4, later);
  EXPECT_EQ(lb.sketch_counts()->path_changes, residents.size());
  EXPECT_EQ(lb.sketch_fingerprint_collisions(), 0u);   // distinct fingerprints: none yet
  const uint64_t taken = lb.sketch_counts()->replacements + lb.sketch_counts()->inserts;
  collision_run out;
  for (out.probes = 0; out.probes < probes; ++out.probes) {
    packet p = random_flow_packet(r);
    lb.route(p, flow_hash.hash(p), 0, 4, later);
  }
  out.collisions = lb.sketch_fingerprint_collisions();
  out.replacements = lb.sketch_counts()->replacements + lb.sketch_counts()->inserts - taken;
  return out;
}

}  // namespace

TEST(LoadBalancer, SketchFingerprintIsCrc32cOfTheFiveTuple) {
  rng r(3);
  for (int i = 0; i < 1000; ++i) {
    const packet p = random_flow_packet(r);
    ASSERT_EQ(load_balancer::sketch_fingerprint(p), crc32c_reference(p));
  }
}

TEST(LoadBalancer, SketchFingerprintCollisionsFollowThePapersFormula) {
  // BurstBalancer §3.6: a flow's fingerprint collides with one of the k others in its bucket with
  // Pr = 1 - (1 - 2^-n)^k. A probe into a full bucket of d cells meets k = d residents. (The
  // cells' fingerprints are distinct, since a matching one hits instead of inserting, so the exact
  // value is d 2^-n, plus 2^-2n per cell for fingerprint 0 turning into 1; at 8 bits and 4 cells
  // these are 0.6% and 0.8% above the formula, inside the bounds below.)
  // The probes are binomial: expect within 4 sigma. 500 000 probes tell the widths apart: at 24 bits
  // about 0.12 collisions are expected, where 16 bits of entropy would give 31.
  constexpr uint32_t buckets = 64, cells = 4;
  constexpr uint64_t probes = 500'000;
  for (unsigned bits : {8u, 16u, 24u}) {
    const collision_run got = fingerprint_collisions(bits, buckets, cells, probes);
    const double p = 1 - std::pow(1 - std::ldexp(1.0, -int(bits)), cells);
    const double mean = probes * p, sigma = std::sqrt(probes * p * (1 - p));
    EXPECT_EQ(got.replacements, 0u) << bits << " bits: a probe took a cell";
    EXPECT_GE(double(got.collisions), mean - 4 * sigma) << bits << " bits";
    EXPECT_LE(double(got.collisions), mean + 4 * sigma) << bits << " bits";
    // Control: the next narrower width's rate (8 bits fewer) is far outside these bounds.
    const double narrower = probes * (1 - std::pow(1 - std::ldexp(1.0, 8 - int(bits)), cells));
    EXPECT_GT(narrower, mean + 4 * sigma + 4 * std::sqrt(narrower)) << bits << " bits";
  }
}

TEST(LoadBalancer, BalanceSketchSteersBurstsAndClearsBuckets) {
  // Golden model: the fingerprint is the CRC-32C of the 5-tuple (bit-serial reference, another
  // polynomial than the flow hash's), one candidate member drawn per data packet, and the packet goes
  // on the sketch's next hop (mod the group size) when it steers, else by ECMP; the Tofino
  // form's clear request is passed on. The sketch itself is its own core, driven the same way.
  routes_fixture rf = mixed_groups();
  for (bs_form form : {bs_form::software, bs_form::pipeline}) {
    lb_config c;
    c.mode = lb_mode::balance_sketch;
    c.sketch.form = form;
    c.sketch.buckets = 16;
    c.sketch.delta_ps = 5'000'000;
    c.sketch.Delta_ps = 500'000'000;
    c.seed = 9;
    load_balancer lb(c, rf.routes, std::vector<uint64_t>(ports, 100'000'000'000ull));
    balance_sketch golden(c.sketch);
    rng r(77), draws(c.seed);
    const auto flows = make_flows(r, 60, 0, hosts, 0, hosts);
    unsigned steered = 0, clears = 0, wrong_ecmp = 0;
    uint64_t t = 0;
    for (int n = 0; n < 20000; ++n) {
      t += r.below(6) ? r.below(2'000'000) : r.below(40'000'000);
      const flow_desc& f = flows[r.below(r.below(4) ? 8 : flows.size())];   // a few heavy flows
      const bool data = r.below(10) != 0;
      packet p = make_packet(data ? pkt_kind::data : pkt_kind::ack, f.src, f.dst, 0, 200 + uint32_t(r.below(1200)), 0);
      p.udp.src_port = uint16_t(49152 + (&f - flows.data()));
      uint32_t base = 0, size = 0;
      rf.group(f.dst, base, size);
      const auto& g = rf.group_of[f.dst];
      const lb_route got = lb.route(p, f.hash, base, size, t);
      unsigned want = g[f.hash % size];
      bool clear = false;
      if (data) {
        const uint32_t hop = uint32_t(draws.below(size));
        const bs_decision d = golden.process(f.hash, crc32c_reference(p), p.frame_bytes(), t, hop);
        if (d.steer) want = g[d.next_hop % size], ++steered;
        clear = d.bucket_clear;
      }
      ASSERT_EQ(got.port, want) << "packet " << n;
      ASSERT_EQ(got.clear, clear) << "packet " << n;
      clears += clear;
      wrong_ecmp += got.port != g[f.hash % size];   // control: ECMP for every packet
    }
    EXPECT_GT(steered, 1000u);
    EXPECT_GT(wrong_ecmp, 300u);
    if (form == bs_form::pipeline) {
      EXPECT_GT(clears, 10u);
    }
  }
}

namespace {

// CONGA's leaf-spine: 4 leaves of 8 hosts, 4 uplinks; this switch is leaf 1, whose ports are its
// hosts 8..15 (ports 0..7) then uplinks 0..3 (ports 8..11). Remote destinations of leaf 3 have lost
// uplink 1 (a failed link is not in their group).
constexpr unsigned leaves = 4, per_leaf = 8, uplinks = 4, me = 1;
routes_fixture conga_groups() {
  std::vector<std::vector<unsigned>> g(hosts);
  for (unsigned h = 0; h < hosts; ++h) {
    if (h / per_leaf == me) g[h] = {h % per_leaf};
    else if (h / per_leaf == 3) g[h] = {8, 10, 11};
    else g[h] = {8, 9, 10, 11};
  }
  return routes_fixture(g);
}

lb_config conga_config_for(int leaf) {
  lb_config c;
  c.mode = lb_mode::conga;
  c.conga_leaf = leaf;
  c.leaves = leaves;
  c.hosts_per_leaf = per_leaf;
  c.uplinks = uplinks;
  c.flowlet.entries = 512;
  c.flowlet.delta_ps = 10'000'000;
  c.dre.link_gbps = 10;
  c.seed = 4;
  return c;
}

}  // namespace

TEST(LoadBalancer, CongaLeafPicksUplinksAndCarriesFeedback) {
  // Golden model: a packet arriving with the overlay header feeds the leaf's tables and loses the
  // header; a packet from a local host to another leaf takes the uplink CONGA's leaf picks among
  // the group's uplinks and carries the header it writes; every other packet hashes.
  routes_fixture rf = conga_groups();
  const lb_config c = conga_config_for(int(me));
  load_balancer lb(c, rf.routes, std::vector<uint64_t>(per_leaf + uplinks, 10'000'000'000ull));
  conga_config gc;
  gc.leaf_id = me;
  gc.leaves = leaves;
  gc.uplinks = uplinks;
  gc.dre = c.dre;
  gc.flowlet = c.flowlet;
  gc.aging_ps = c.conga_aging_ps;
  gc.seed = c.seed;
  conga_leaf golden(gc);
  rng r(12);
  const auto out_flows = make_flows(r, 200, me * per_leaf, (me + 1) * per_leaf, 0, hosts);
  const auto in_flows = make_flows(r, 100, 0, hosts, me * per_leaf, (me + 1) * per_leaf);
  unsigned picked = 0, wrong_ecmp = 0, feedback = 0;
  uint64_t t = 0;
  for (int n = 0; n < 20000; ++n) {
    t += r.below(3'000'000);
    const bool outbound = r.below(3) != 0;
    const flow_desc& f = outbound ? out_flows[r.below(out_flows.size())] : in_flows[r.below(in_flows.size())];
    const bool from_host = outbound || f.src / per_leaf == me;
    const unsigned in_port = from_host ? f.src % per_leaf : per_leaf + unsigned(r.below(uplinks));
    const pkt_kind kind = r.below(4) ? pkt_kind::data : r.below(2) ? pkt_kind::ack : pkt_kind::cnp;
    packet p = make_packet(kind, f.src, f.dst, in_port, 100 + uint32_t(r.below(1400)), 0);
    if (!from_host) {   // from another leaf: the header its leaf wrote, CE raised on the way
      p.conga_valid = true;
      p.conga.lbtag = uint8_t(r.below(uplinks));
      p.conga.ce = uint8_t(r.below(8));
      p.conga.fb_valid = r.below(2);
      p.conga.fb_lbtag = uint8_t(r.below(uplinks));
      p.conga.fb_metric = uint8_t(r.below(8));
    }
    const packet before = p;
    uint32_t base = 0, size = 0;
    rf.group(f.dst, base, size);
    const auto& g = rf.group_of[f.dst];
    const lb_route got = lb.route(p, f.hash, base, size, t);

    if (before.conga_valid) golden.receive(f.src / per_leaf, before.conga, t);
    const unsigned dst_leaf = f.dst / per_leaf;
    if (from_host && dst_leaf != me) {
      uint32_t allowed = 0;
      for (unsigned m : g) allowed |= 1u << (m - per_leaf);
      const conga_send s = golden.send(f.hash, dst_leaf, before.frame_bytes(), t, allowed);
      ASSERT_EQ(got.port, per_leaf + s.uplink) << "packet " << n;
      ASSERT_TRUE(p.conga_valid) << "packet " << n;
      ASSERT_EQ(p.conga.lbtag, s.header.lbtag);
      ASSERT_EQ(p.conga.ce, s.header.ce);
      ASSERT_EQ(p.conga.fb_valid, s.header.fb_valid) << "packet " << n;
      if (s.header.fb_valid) {
        ASSERT_EQ(p.conga.fb_lbtag, s.header.fb_lbtag);
        ASSERT_EQ(p.conga.fb_metric, s.header.fb_metric);
        ++feedback;
      }
      ++picked;
    } else {
      ASSERT_EQ(got.port, g[f.hash % size]) << "packet " << n;
      ASSERT_FALSE(p.conga_valid) << "packet " << n;
    }
    wrong_ecmp += got.port != g[f.hash % size];   // control
  }
  EXPECT_GT(picked, 8000u);
  EXPECT_GT(feedback, 1000u);
  EXPECT_GT(wrong_ecmp, 3000u);
  EXPECT_EQ(lb.conga()->counters().sent, picked);
}

TEST(LoadBalancer, CongaSpineRaisesCeByEachPortsDre) {
  // At a spine every packet hashes, and each port's DRE counts every frame leaving it and raises
  // a carried header's CE to its metric. Golden model: a DRE per port at the port's rate.
  routes_fixture rf = conga_groups();
  const lb_config c = conga_config_for(-1);
  std::vector<uint64_t> rates(ports);
  for (unsigned q = 0; q < ports; ++q) rates[q] = (1 + q % 3) * 1'000'000'000ull;
  load_balancer lb(c, rf.routes, rates);
  EXPECT_EQ(lb.conga(), nullptr);
  std::vector<dre> golden;
  for (uint64_t rate : rates) {
    dre_config d = c.dre;
    d.link_gbps = double(rate) / 1e9;
    golden.emplace_back(d);
  }
  rng r(8);
  const auto flows = make_flows(r, 100, 0, hosts, 0, hosts);
  unsigned raised = 0;
  uint64_t t = 0;
  for (int n = 0; n < 20000; ++n) {
    t += r.below(r.below(10) ? 200'000 : 20'000'000);
    const flow_desc& f = flows[r.below(flows.size())];
    packet p = make_packet(r.below(4) ? pkt_kind::data : pkt_kind::ack, f.src, f.dst, 0, 100 + uint32_t(r.below(1400)), 0);
    p.conga_valid = r.below(3) != 0;
    p.conga.ce = uint8_t(r.below(3));
    uint32_t base = 0, size = 0;
    rf.group(f.dst, base, size);
    const unsigned out = lb.route(p, f.hash, base, size, t).port;
    ASSERT_EQ(out, rf.group_of[f.dst][f.hash % size]);
    const unsigned port = unsigned(r.below(ports));   // any port: the DREs do not depend on routing
    const uint8_t ce_in = p.conga.ce;
    lb.transmit(port, p, t);
    golden[port].add(t, p.frame_bytes());
    const uint8_t want = p.conga_valid ? uint8_t(std::max<uint32_t>(ce_in, golden[port].metric(t))) : ce_in;
    ASSERT_EQ(p.conga.ce, want) << "packet " << n;
    raised += want != ce_in;   // control: a spine that leaves CE alone
  }
  EXPECT_GT(raised, 1000u);
}

namespace {

// Flowcut's golden model: the caller contract of docs/datasheets/flowcut.md written out. A tracked
// data packet of a flow with held packets waits behind them; otherwise the table answers, with the
// least-loaded member (ties by the flow hash, in hash order) as the candidate of a new Flowcut.
// An ACK leaving on its ECMP port is counted (ingress-only tables: only towards a host) and may
// turn back the data's way; a resume re-submits its flow's held packets, a freed entry those of
// every flow that waited for one, oldest first.
struct flowcut_golden {
  flowcut_table table;
  const routes_fixture& rf;
  const std::vector<bool>& host_port;
  const std::vector<uint64_t>& load;
  std::map<uint64_t, std::deque<packet*>> held;
  std::vector<uint64_t> full;
  std::vector<std::pair<packet*, int>>& log;   // every decision: the packet and its port, -1 held

  bool host_facing(unsigned q) const { return q < host_port.size() && host_port[q]; }
  void submit(packet& p, uint32_t hash, uint64_t now) {
    const unsigned dst = host_of_ip(p.ip.dst);
    const auto& g = rf.group_of[dst];
    const unsigned ecmp = g[hash % g.size()];
    if (p.kind != pkt_kind::data) return ack(p, ecmp, now);
    const bool ingress = host_facing(p.in_port);
    if (!ingress && table.config().variant == flowcut_variant::ingress_only) return log.push_back({&p, int(ecmp)});
    if (held.count(p.flow)) return hold(p);
    unsigned best = ecmp;
    for (size_t i = 1; i < g.size(); ++i) {
      const unsigned m = g[(hash + i) % g.size()];
      if (load[m] < load[best]) best = m;
    }
    const flowcut_data_result r = table.on_data(p.flow, p.fc_bytes, now, p.in_port, uint16_t(best), ingress);
    if (r.action == flowcut_action::hold) {
      if (r.table_full) full.push_back(p.flow);
      return hold(p);
    }
    if (r.stamped) p.fc_valid = true, p.fc_stamp = uint16_t(r.stamp);
    log.push_back({&p, int(r.action == flowcut_action::bypass ? ecmp : r.out_port)});
  }
  void hold(packet& p) {
    held[p.flow].push_back(&p);
    log.push_back({&p, -1});
  }
  void ack(packet& p, unsigned out, uint64_t now) {
    if (!p.fc_valid || (table.config().variant == flowcut_variant::ingress_only && !host_facing(out)))
      return log.push_back({&p, int(out)});
    const flowcut_ack_result r = table.on_ack(p.flow, p.fc_bytes, p.fc_stamp, p.hops, now);
    if (r.reverse_port >= 0) out = unsigned(r.reverse_port);
    if (r.resume) release(p.flow, now);
    if (r.freed && !full.empty()) {
      std::vector<uint64_t> waiting;
      waiting.swap(full);
      for (uint64_t f : waiting) release(f, now);
    }
    log.push_back({&p, int(out)});
  }
  void release(uint64_t flow, uint64_t now);
  std::function<uint32_t(const packet&)> hash_of;
};

void flowcut_golden::release(uint64_t flow, uint64_t now) {
  const auto it = held.find(flow);
  if (it == held.end()) return;
  std::deque<packet*> q;
  q.swap(it->second);
  held.erase(it);
  for (packet* p : q) submit(*p, hash_of(*p), now);
}

}  // namespace

TEST(LoadBalancer, FlowcutHoldsDrainingFlowsAndPicksTheLeastLoadedHop) {
  // Hosts 0..3 sit on ports 0..3; every other destination is reached over the uplinks 4..11.
  std::vector<std::vector<unsigned>> groups(hosts);
  for (unsigned h = 0; h < hosts; ++h) groups[h] = h < 4 ? std::vector<unsigned>{h} : std::vector<unsigned>{4, 5, 6, 7, 8, 9, 10, 11};
  const routes_fixture rf(groups);
  std::vector<bool> host_port(ports, false);
  for (unsigned q = 0; q < 4; ++q) host_port[q] = true;
  for (flowcut_variant v : {flowcut_variant::ingress_only, flowcut_variant::full_switch}) {
    flowcut_config fc;
    fc.variant = v;
    fc.capacity = 24;
    fc.rtt_ratio_threshold = 1.5;
    std::vector<uint64_t> load(ports, 0);
    lb_config c;   // Flowcut runs over ECMP
    load_balancer lb(c, rf.routes, std::vector<uint64_t>(ports, 100'000'000'000ull));
    std::vector<std::pair<packet*, int>> got_log, want_log;
    std::map<const packet*, uint32_t> hash_of;
    auto route_one = [&](packet& p, uint64_t now) {
      uint32_t base = 0, size = 0;
      rf.group(host_of_ip(p.ip.dst), base, size);
      const lb_route r = lb.route(p, hash_of.at(&p), base, size, now);
      got_log.push_back({&p, r.held ? -1 : int(r.port)});
    };
    lb.use_flowcut(fc, host_port, [&](unsigned q) { return load[q]; }, route_one);
    flowcut_golden golden{flowcut_table(fc), rf, host_port, load, {}, {}, want_log, {}};
    golden.hash_of = [&](const packet& p) { return hash_of.at(&p); };

    rng r(21 + unsigned(v));
    std::deque<packet> pool;                  // every packet of the run, kept for the logs
    std::vector<packet*> in_flight;           // forwarded data not yet acknowledged
    std::vector<uint32_t> flow_hash(80);
    for (auto& h : flow_hash) h = uint32_t(r.next());
    uint64_t t = 0;
    unsigned holds = 0, moved = 0;
    for (int n = 0; n < 15000; ++n) {
      t += 200'000 + r.below(2'000'000);
      for (auto& l : load) l = r.below(4) ? l : r.below(100'000);
      packet* p;
      if (in_flight.empty() || r.below(2)) {   // a data packet: from a host, or (full switch) in transit
        const uint32_t flow = uint32_t(r.below(flow_hash.size()));
        const unsigned src = flow % 4, dst = 4 + flow % (hosts - 4);
        const bool transit = v == flowcut_variant::full_switch && flow % 5 == 0;
        pool.push_back(make_packet(pkt_kind::data, transit ? 4 + src : src, dst, transit ? 4 + flow % 8 : src, 1000, flow));
        p = &pool.back();
        p->fc_bytes = uint16_t(p->frame_bytes());
      } else {                                  // the ACK of a forwarded data packet, echoing its header
        const size_t k = r.below(in_flight.size());
        const packet& d = *in_flight[k];
        in_flight.erase(in_flight.begin() + long(k));
        pool.push_back(make_packet(pkt_kind::ack, host_of_ip(d.ip.dst), host_of_ip(d.ip.src), 4 + unsigned(r.below(8)), 0, d.flow));
        p = &pool.back();
        p->fc_valid = d.fc_valid;
        p->fc_stamp = d.fc_stamp;
        p->fc_bytes = d.fc_bytes;
        p->hops = uint8_t(1 + r.below(3));
      }
      hash_of[p] = flow_hash[p->flow];
      const size_t from = got_log.size();
      route_one(*p, t);
      golden.submit(*p, hash_of[p], t);
      ASSERT_EQ(got_log.size(), want_log.size()) << "packet " << n;
      for (size_t i = from; i < got_log.size(); ++i) {
        ASSERT_EQ(got_log[i].first, want_log[i].first) << "packet " << n << ", decision " << i;
        ASSERT_EQ(got_log[i].second, want_log[i].second) << "packet " << n << ", decision " << i;
        packet& q = *got_log[i].first;
        if (q.kind != pkt_kind::data) continue;
        if (got_log[i].second < 0) ++holds;
        else in_flight.push_back(&q), moved += unsigned(got_log[i].second) != rf.group_of[host_of_ip(q.ip.dst)][hash_of[&q] % 8];
      }
    }
    EXPECT_GT(holds, 200u) << "the stream must drain flows and fill the table";
    EXPECT_GT(moved, 1000u) << "control: ECMP alone would agree on every forwarded packet";
    EXPECT_EQ(lb.flowcut()->packets_held(), holds);
  }
}
