// FlowRadar's loss map and black-hole detection (blocks/flowradar_loss_map.*, thesis §4.6)
// against a golden model that follows packets instead of subtracting counters: random flows on
// the switch graph of a k = 4 fat tree, each packet counted hop by hop (crossing an epoch
// boundary between hops at random), some lost after a random hop, some flows black-holed at a
// hop; some counters left undecoded and some places where the flow "may be" undecoded. The
// golden loss of a segment is the number of packets whose last count was at its upstream switch.
// 3,000 random networks: the core must give exactly the golden segments, statuses and counts,
// and exactly the golden one-slot black-hole stops.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "blocks/flowradar_loss_map.h"
#include "common/rng.h"

using namespace netasic;

namespace {

using status = flowradar_loss_status;

// The k = 4 fat tree's switches: edge p*2+i, aggregation 8+p*2+j, core 16+j*2+m.
std::vector<std::vector<unsigned>> fat_tree_k4() {
  std::vector<std::vector<unsigned>> adj(20);
  auto link = [&](unsigned a, unsigned b) { adj[a].push_back(b), adj[b].push_back(a); };
  for (unsigned p = 0; p < 4; ++p)
    for (unsigned j = 0; j < 2; ++j) {
      for (unsigned i = 0; i < 2; ++i) link(p * 2 + i, 8 + p * 2 + j);
      for (unsigned m = 0; m < 2; ++m) link(8 + p * 2 + j, 16 + j * 2 + m);
    }
  return adj;
}

std::vector<unsigned> random_path(rng& r, unsigned es, unsigned ed) {
  if (es == ed) return {es};
  const unsigned ps = es / 2, pd = ed / 2, j = unsigned(r.below(2));
  if (ps == pd) return {es, 8 + ps * 2 + j, ed};
  return {es, 8 + ps * 2 + j, 16 + j * 2 + unsigned(r.below(2)), 8 + pd * 2 + j, ed};
}

using row = std::tuple<unsigned, uint64_t, uint64_t, int, int, status, uint64_t>;

struct network {
  unsigned epochs = 0;
  bool drained = true;
  std::vector<std::vector<unsigned>> adj = fat_tree_k4();
  std::vector<std::vector<unsigned>> path;                    // per flow
  std::vector<std::vector<std::vector<unsigned>>> hop_epoch;   // per flow, packet: epoch of each counted hop
  std::vector<std::map<std::pair<uint64_t, unsigned>, uint64_t>> count;
  std::set<std::pair<uint64_t, unsigned>> uncounted_at;        // (epoch, switch): counters not decoded
  std::set<std::tuple<unsigned, unsigned, uint64_t>> maybe;    // (flow, switch, epoch)

  bool unknown(unsigned f, unsigned s, uint64_t e) const { return maybe.count({f, s, e}) && !count[f].count({e, s}); }
};

network random_network(rng& r) {
  network n;
  n.epochs = 4 + unsigned(r.below(10));
  n.drained = r.below(3) != 0;
  const unsigned flows = 1 + unsigned(r.below(12));
  const double p_loss = r.below(3) == 0 ? 0.0 : 0.05 * double(r.below(6));
  for (unsigned f = 0; f < flows; ++f) {
    const std::vector<unsigned> path = random_path(r, unsigned(r.below(8)), unsigned(r.below(8)));
    n.path.push_back(path);
    n.hop_epoch.emplace_back();
    n.count.emplace_back();
    const int holed = r.below(6) == 0 ? int(r.below(path.size())) + 1 : -1;   // every packet stops after this hop
    const unsigned packets = 1 + unsigned(r.below(30));
    for (unsigned k = 0; k < packets; ++k) {
      unsigned reach = unsigned(path.size());                 // hops counted
      if (holed > 0) reach = std::min(reach, unsigned(holed));
      if (r.uniform() < p_loss) reach = std::min(reach, 1 + unsigned(r.below(path.size())));
      unsigned e = unsigned(r.below(n.epochs));
      std::vector<unsigned> ep;
      for (unsigned h = 0; h < reach; ++h) {
        if (h > 0 && e + 1 < n.epochs && r.below(5) == 0) ++e;   // in flight across a boundary
        ep.push_back(e);
        ++n.count[f][{e, path[h]}];
      }
      n.hop_epoch.back().push_back(ep);
    }
  }
  const unsigned holes = unsigned(r.below(4));
  for (unsigned i = 0; i < holes; ++i) n.uncounted_at.insert({r.below(n.epochs), unsigned(r.below(20))});
  const unsigned maybes = unsigned(r.below(4));
  for (unsigned i = 0; i < maybes; ++i) n.maybe.insert({unsigned(r.below(flows)), unsigned(r.below(20)), r.below(n.epochs)});
  return n;
}

std::vector<flowradar_loss_flow> core_flows(const network& n) {
  std::vector<flowradar_loss_flow> flows;
  for (unsigned f = 0; f < n.path.size(); ++f) {
    flowradar_loss_flow x;
    x.first_hop = n.path[f].front();
    x.last_hop = n.path[f].back();
    for (const auto& [key, c] : n.count[f]) x.decoded[key] = n.uncounted_at.count(key) ? flowradar_loss_flow::no_count : c;
    flows.push_back(x);
  }
  return flows;
}

flowradar_loss_net core_net(const network& n) {
  flowradar_loss_net net;
  net.neighbours = n.adj;
  net.epochs = n.epochs;
  net.drained = n.drained;
  net.maybe_there = [&n](unsigned f, unsigned s, uint64_t e) {
    EXPECT_FALSE(n.count[f].count({e, s})) << "asked where the flow was decoded";
    return n.maybe.count({f, s, e}) != 0;
  };
  return net;
}

std::vector<row> run_core(const network& n) {
  std::vector<row> out;
  for (const flowradar_loss_segment& s : flowradar_loss_map(core_flows(n), core_net(n)))
    out.emplace_back(s.flow, s.first_epoch, s.last_epoch, s.up, s.down, s.status,
                     s.status == status::lost || s.status == status::lossless ? s.lost : 0);
  return out;
}

// The golden model: flowlets from an array of active epochs; losses by following packets.
void golden_flow(const network& n, unsigned f, std::vector<row>& out) {
  std::set<unsigned> seen;
  for (const auto& [key, c] : n.count[f]) seen.insert(key.second);
  std::vector<bool> active(n.epochs, false), counted(n.epochs, false);
  for (const auto& [key, c] : n.count[f]) active[key.first] = counted[key.first] = true;
  for (unsigned e = 0; e < n.epochs; ++e)
    for (unsigned s : seen)
      if (n.unknown(f, s, e)) active[e] = true;
  const std::vector<unsigned>& path = n.path[f];
  for (unsigned a = 0; a < n.epochs;) {
    if (!active[a]) { ++a; continue; }
    unsigned b = a;
    while (b + 1 < n.epochs && active[b + 1]) ++b;
    bool any = false, uncertain = false;
    for (unsigned e = a; e <= b; ++e) {
      any = any || counted[e];
      for (unsigned s : seen) uncertain = uncertain || n.unknown(f, s, e);
    }
    const bool closed = b + 1 < n.epochs || n.drained;
    if (any && (!closed || uncertain)) out.emplace_back(f, a, b, -1, -1, closed ? status::undecoded : status::open, 0);
    if (any && closed && !uncertain) {
      // Packets of this flowlet: their first count is in it. reach[h]: packets whose last count was hop h.
      std::vector<uint64_t> last_at(path.size(), 0);
      unsigned far = 0;
      for (const auto& ep : n.hop_epoch[f])
        if (ep.front() >= a && ep.front() <= b) ++last_at[ep.size() - 1], far = std::max(far, unsigned(ep.size()) - 1);
      auto uncounted = [&](unsigned s) {
        for (unsigned e = a; e <= b; ++e)
          if (n.uncounted_at.count({e, s}) && n.count[f].count({e, s})) return true;
        return false;
      };
      for (unsigned h = 0; h < far; ++h) {
        const bool u = uncounted(path[h]) || uncounted(path[h + 1]);
        out.emplace_back(f, a, b, int(path[h]), int(path[h + 1]), u ? status::undecoded : last_at[h] ? status::lost : status::lossless,
                         u ? 0 : last_at[h]);
      }
      if (path[far] != path.back()) {
        bool u = uncounted(path[far]);
        for (unsigned nb : n.adj[path[far]])
          for (unsigned e = a; e <= b; ++e)
            if ((far == 0 || nb != path[far - 1]) && n.unknown(f, nb, e)) u = true;
        const uint64_t reached = last_at[far];   // nothing went past it
        out.emplace_back(f, a, b, int(path[far]), -1, u ? status::undecoded : reached ? status::lost : status::lossless,
                         u ? 0 : reached);
      }
    }
    a = b + 1;
  }
}

// The golden one-slot stops: the hops some packet was counted at in epochs e and e + 1 must be
// the path's first hops 0..far (else the path cannot be walked), and path[far] not the end.
using stop_row = std::tuple<unsigned, uint64_t, unsigned, uint64_t>;
void golden_stops(const network& n, unsigned f, std::vector<stop_row>& out) {
  std::set<unsigned> seen;
  for (const auto& [key, c] : n.count[f]) seen.insert(key.second);
  const std::vector<unsigned>& path = n.path[f];
  for (unsigned e = 0; e < n.epochs; ++e) {
    if (e + 1 >= n.epochs && !n.drained) continue;
    std::set<unsigned> hops;
    for (const auto& ep : n.hop_epoch[f])
      for (unsigned h = 0; h < ep.size(); ++h)
        if (ep[h] == e || ep[h] == e + 1) hops.insert(h);
    if (hops.empty() || *hops.begin() != 0 || *hops.rbegin() + 1 != hops.size()) continue;
    const unsigned far = *hops.rbegin(), x = path[far];
    if (x == path.back() || !n.count[f].count({e, x})) continue;
    std::set<unsigned> at, check(seen);
    for (unsigned h : hops) at.insert(path[h]);
    for (unsigned nb : n.adj[x]) check.insert(nb);
    bool sure = true;
    for (unsigned s : check)
      if (!at.count(s) && (n.unknown(f, s, e) || (e + 1 < n.epochs && n.unknown(f, s, e + 1)))) sure = false;
    if (sure)
      out.emplace_back(f, e, x, n.uncounted_at.count({e, x}) ? flowradar_loss_flow::no_count : n.count[f].at({e, x}));
  }
}

TEST(FlowRadarLossMap, MatchesGoldenPacketFollowerOnRandomNetworks) {
  rng r(20161203);
  uint64_t lost_segments = 0, stopped = 0, undecoded = 0, open = 0, stops = 0;
  for (int c = 0; c < 3000; ++c) {
    const network n = random_network(r);
    std::vector<row> want;
    for (unsigned f = 0; f < n.path.size(); ++f) golden_flow(n, f, want);
    std::vector<row> got = run_core(n);
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got, want) << "case " << c;
    std::vector<stop_row> want_stops, got_stops;
    for (unsigned f = 0; f < n.path.size(); ++f) golden_stops(n, f, want_stops);
    for (const flowradar_stop& x : flowradar_stops(core_flows(n), core_net(n))) got_stops.emplace_back(x.flow, x.epoch, x.sw, x.packets);
    std::sort(want_stops.begin(), want_stops.end());
    std::sort(got_stops.begin(), got_stops.end());
    ASSERT_EQ(got_stops, want_stops) << "case " << c;
    stops += want_stops.size();
    for (const row& x : want) {
      lost_segments += std::get<5>(x) == status::lost;
      stopped += std::get<5>(x) == status::lost && std::get<4>(x) < 0;
      undecoded += std::get<5>(x) == status::undecoded;
      open += std::get<5>(x) == status::open;
    }
  }
  // The random cases exercise every outcome.
  EXPECT_GT(lost_segments, 1000u);
  EXPECT_GT(stopped, 100u);
  EXPECT_GT(undecoded, 100u);
  EXPECT_GT(open, 100u);
  EXPECT_GT(stops, 100u);
}

// A packet counted upstream at the end of one epoch and downstream in the next is no loss.
TEST(FlowRadarLossMap, PacketInFlightAcrossABoundaryIsNoLoss) {
  flowradar_loss_flow f;
  f.first_hop = 0;
  f.last_hop = 1;
  f.decoded = {{{0, 0}, 5}, {{0, 8}, 4}, {{1, 8}, 1}, {{1, 1}, 5}};   // edge0 -> agg8 -> edge1
  flowradar_loss_net net;
  net.neighbours = fat_tree_k4();
  net.epochs = 3;
  const auto segs = flowradar_loss_map({f}, net);
  ASSERT_EQ(segs.size(), 2u);
  for (const auto& s : segs) {
    EXPECT_EQ(s.status, status::lossless);
    EXPECT_EQ(s.first_epoch, 0u);
    EXPECT_EQ(s.last_epoch, 1u);
  }
  // Control: compared epoch by epoch, epoch 0 would show a loss of 1 between agg8 and edge1.
  EXPECT_NE(f.decoded.at({0, 8}), f.decoded.count({0, 1}) ? f.decoded.at({0, 1}) : 0u);
  // Still running at the end with packets in flight: open, not lossless.
  net.epochs = 2;
  net.drained = false;
  const auto open = flowradar_loss_map({f}, net);
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].status, status::open);
}

// Loops (§4.6.1) against packets followed hop by hop: on the k = 4 fat tree's switches, loop-free
// flows whose packets cross at most one epoch boundary on their way (a packet crosses the fabric
// in far less than an epoch), and looping flows whose packets, past a random hop, bounce between
// it and the hop before until their TTL runs out (the thesis's S1 -> S2 -> S1), within one epoch;
// never through the first hop, whose count is the reference (flowradar_loop says why).
// 2,000 random networks: no loop-free flow is ever reported, every looping flow is, and each
// report is exactly the slots and switches where a switch counted more than the first hop did
// over the slot and the one before. Control: comparing with the first hop's count in the same
// slot only reports loop-free flows whose packets crossed a boundary.
TEST(FlowRadarLossMap, LoopsAreSlotsWhereASwitchCountsMoreThanEntered) {
  rng r(20160315);
  uint64_t reported = 0, naive_false = 0, looping_flows = 0;
  for (int c = 0; c < 2000; ++c) {
    const unsigned epochs = 3 + unsigned(r.below(6));
    std::vector<flowradar_loss_flow> flows;
    std::vector<bool> loops;
    const unsigned n = 1 + unsigned(r.below(10));
    for (unsigned f = 0; f < n; ++f) {
      std::vector<unsigned> path = random_path(r, unsigned(r.below(8)), unsigned(r.below(8)));
      const bool loop = path.size() > 2 && r.below(2) == 0;   // not through the first hop (its count is the reference)
      flowradar_loss_flow x;
      x.first_hop = path.front();
      x.last_hop = path.back();
      const unsigned packets = 1 + unsigned(r.below(20));
      for (unsigned k = 0; k < packets; ++k) {
        uint64_t e = r.below(epochs);
        if (loop) {   // past hop j, back and forth between path[j] and path[j - 1], 62 hops in all
          const unsigned j = 2 + unsigned(r.below(path.size() - 2));
          for (unsigned h = 0; h <= j; ++h) ++x.decoded[{e, path[h]}];
          for (unsigned h = j + 1; h < 63; ++h) ++x.decoded[{e, path[(h - j) % 2 ? j - 1 : j]}];
          continue;
        }
        const unsigned cross = e + 1 < epochs && r.below(3) == 0 ? 1 + unsigned(r.below(path.size())) : ~0u;
        for (unsigned h = 0; h < path.size(); ++h) ++x.decoded[{h >= cross ? e + 1 : e, path[h]}];
      }
      flows.push_back(x);
      loops.push_back(loop);
      looping_flows += loop;
    }
    flowradar_loss_net net;
    net.neighbours = fat_tree_k4();
    net.epochs = epochs;
    const std::vector<flowradar_loop> got = flowradar_loops(flows, net);
    // Golden: the rule, slot by slot; and the physical truth, flow by flow.
    std::set<std::pair<unsigned, uint64_t>> want, got_slots;
    std::set<unsigned> flagged;
    for (unsigned f = 0; f < flows.size(); ++f)
      for (uint64_t e = 0; e < epochs; ++e) {
        auto at = [&](uint64_t ep, unsigned s) {
          auto it = flows[f].decoded.find({ep, s});
          return it == flows[f].decoded.end() ? uint64_t(0) : it->second;
        };
        if (!at(e, flows[f].first_hop)) continue;
        const uint64_t entered = at(e, flows[f].first_hop) + (e ? at(e - 1, flows[f].first_hop) : 0);
        bool over = false, naive = false;
        for (unsigned s = 0; s < 20; ++s) over |= at(e, s) > entered, naive |= at(e, s) > at(e, flows[f].first_hop);
        if (over) want.insert({f, e});
        if (naive && !loops[f]) ++naive_false;
      }
    for (const flowradar_loop& l : got) {
      got_slots.insert({l.flow, l.epoch});
      flagged.insert(l.flow);
      for (const auto& [s, cnt] : l.over) EXPECT_GT(cnt, l.entered) << "case " << c;
    }
    ASSERT_EQ(got_slots, want) << "case " << c;
    for (unsigned f = 0; f < flows.size(); ++f) ASSERT_EQ(flagged.count(f) != 0, bool(loops[f])) << "case " << c << " flow " << f;
    reported += got.size();
  }
  EXPECT_GT(looping_flows, 1000u);
  EXPECT_GT(reported, 1000u);
  EXPECT_GT(naive_false, 100u);   // the control: one slot alone is not enough
}

}  // namespace

