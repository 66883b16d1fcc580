#include "blocks/flowradar_loss_map.h"

#include <algorithm>
#include <set>

namespace netasic {
namespace {

using seg = flowradar_loss_segment;
using status = flowradar_loss_status;

// One flow's view: where it was decoded, and where it may be undecoded.
struct flow_view {
  const flowradar_loss_flow& f;
  unsigned id;
  const flowradar_loss_net& net;
  std::set<unsigned> seen_at;                           // every switch that decoded it, any epoch

  bool decoded(uint64_t e, unsigned s) const { return f.decoded.count({e, s}) != 0; }
  bool unknown(uint64_t e, unsigned s) const { return !decoded(e, s) && net.maybe_there && net.maybe_there(id, s, e); }
  // The flow was (or may have been) at one of its switches in epoch e.
  bool active(uint64_t e) const {
    for (unsigned s : seen_at)
      if (decoded(e, s) || unknown(e, s)) return true;
    return false;
  }
};

// The flowlet's switches walked from its first hop; empty when they do not form one
// path from it (the flow was seen off its path, or a switch of the path decoded nothing).
std::vector<unsigned> walk(const flow_view& v, const std::set<unsigned>& at) {
  std::vector<unsigned> path;
  if (!at.count(v.f.first_hop)) return path;
  std::set<unsigned> left = at;
  for (unsigned cur = v.f.first_hop;;) {
    path.push_back(cur);
    left.erase(cur);
    std::vector<unsigned> next;
    for (unsigned n : v.net.neighbours[cur])
      if (left.count(n)) next.push_back(n);
    if (next.size() > 1) return {};
    if (next.empty()) break;
    cur = next[0];
  }
  if (!left.empty()) return {};
  return path;
}

// Sum of the flowlet's counts at s; false when one of them is not counted.
bool sum_at(const flow_view& v, unsigned s, uint64_t a, uint64_t b, uint64_t& sum) {
  sum = 0;
  for (uint64_t e = a; e <= b; ++e) {
    auto it = v.f.decoded.find({e, s});
    if (it == v.f.decoded.end()) continue;
    if (it->second == flowradar_loss_flow::no_count) return false;
    sum += it->second;
  }
  return true;
}

// The segments of one closed flowlet [a, b] whose flow is at no undecoded place of its switches.
void flowlet_segments(const flow_view& v, uint64_t a, uint64_t b, std::vector<seg>& out) {
  std::set<unsigned> at;
  for (const auto& [key, n] : v.f.decoded)
    if (key.first >= a && key.first <= b) at.insert(key.second);
  const seg whole{v.id, a, b, -1, -1, status::undecoded, 0, 0, 0};
  uint64_t entered = 0, here = 0;
  if (sum_at(v, v.f.first_hop, a, b, entered))
    for (unsigned s : at)
      if (sum_at(v, s, a, b, here) && here > entered) {
        seg l = whole;
        l.status = status::looped;
        return out.push_back(l);
      }
  const std::vector<unsigned> path = walk(v, at);
  if (path.empty()) return out.push_back(whole);
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    seg s = whole;
    s.up = int(path[i]);
    s.down = int(path[i + 1]);
    if (sum_at(v, path[i], a, b, s.up_packets) && sum_at(v, path[i + 1], a, b, s.down_packets) &&
        s.down_packets <= s.up_packets) {
      s.lost = s.up_packets - s.down_packets;
      s.status = s.lost ? status::lost : status::lossless;
    }
    out.push_back(s);
  }
  const unsigned last = path.back();
  if (last == v.f.last_hop) return;   // no counter past it
  // Stopped (§4.6.1): proven only if no other neighbour may hold the flow undecoded.
  seg s = whole;
  s.up = int(last);
  bool sure = sum_at(v, last, a, b, s.up_packets);
  for (unsigned n : v.net.neighbours[last])
    for (uint64_t e = a; e <= b && sure; ++e)
      if (!at.count(n) && v.unknown(e, n)) sure = false;
  if (sure) {
    s.lost = s.up_packets;
    s.status = s.lost ? status::lost : status::lossless;
  }
  out.push_back(s);
}

void one_flow(const flow_view& v, std::vector<seg>& out) {
  std::vector<uint64_t> epochs;
  for (const auto& [key, n] : v.f.decoded) epochs.push_back(key.first);
  std::sort(epochs.begin(), epochs.end());
  epochs.erase(std::unique(epochs.begin(), epochs.end()), epochs.end());
  for (size_t i = 0; i < epochs.size();) {
    uint64_t a = epochs[i], b = epochs[i];
    while (a > 0 && v.active(a - 1)) --a;
    while (b + 1 < v.net.epochs && v.active(b + 1)) ++b;
    while (i < epochs.size() && epochs[i] <= b) ++i;
    bool uncertain = false;
    for (uint64_t e = a; e <= b && !uncertain; ++e)
      for (unsigned s : v.seen_at)
        if (v.unknown(e, s)) uncertain = true;
    const bool closed = b + 1 < v.net.epochs || v.net.drained;
    if (!closed || uncertain)
      out.push_back({v.id, a, b, -1, -1, closed ? status::undecoded : status::open, 0, 0, 0});
    else
      flowlet_segments(v, a, b, out);
  }
}

// The one-slot stops of a flow: windows [e, e + 1] from each epoch it was decoded in.
void stops_of(const flow_view& v, std::vector<flowradar_stop>& out) {
  std::set<uint64_t> epochs;
  for (const auto& [key, n] : v.f.decoded) epochs.insert(key.first);
  for (uint64_t e : epochs) {
    if (e + 1 >= v.net.epochs && !v.net.drained) continue;   // e + 1 not seen yet
    std::set<unsigned> at;
    for (const auto& [key, n] : v.f.decoded)
      if (key.first == e || key.first == e + 1) at.insert(key.second);
    const std::vector<unsigned> path = walk(v, at);
    if (path.empty() || path.back() == v.f.last_hop || !v.decoded(e, path.back())) continue;
    bool sure = true;
    std::set<unsigned> check(v.seen_at);
    for (unsigned n : v.net.neighbours[path.back()]) check.insert(n);
    for (unsigned s : check)
      if (!at.count(s) && (v.unknown(e, s) || (e + 1 < v.net.epochs && v.unknown(e + 1, s)))) sure = false;
    if (sure) out.push_back({v.id, e, path.back(), v.f.decoded.at({e, path.back()})});
  }
}

// The slots in which a flow was counted more often somewhere than it entered.
void loops_of(const flow_view& v, std::vector<flowradar_loop>& out) {
  std::set<uint64_t> epochs;
  for (const auto& [key, n] : v.f.decoded) epochs.insert(key.first);
  for (uint64_t e : epochs) {
    const auto here = v.f.decoded.find({e, v.f.first_hop});
    if (here == v.f.decoded.end() || here->second == flowradar_loss_flow::no_count) continue;
    uint64_t entered = here->second;
    if (e > 0) {
      const auto before = v.f.decoded.find({e - 1, v.f.first_hop});
      if (before != v.f.decoded.end()) {
        if (before->second == flowradar_loss_flow::no_count) continue;
        entered += before->second;
      } else if (v.unknown(e - 1, v.f.first_hop)) {
        continue;
      }
    }
    flowradar_loop l{v.id, e, entered, {}};
    for (auto it = v.f.decoded.lower_bound({e, 0}); it != v.f.decoded.end() && it->first.first == e; ++it)
      if (it->second != flowradar_loss_flow::no_count && it->second > entered) l.over.emplace_back(it->first.second, it->second);
    if (!l.over.empty()) out.push_back(std::move(l));
  }
}

}  // namespace

std::vector<flowradar_loop> flowradar_loops(const std::vector<flowradar_loss_flow>& flows, const flowradar_loss_net& net) {
  std::vector<flowradar_loop> out;
  for (unsigned i = 0; i < flows.size(); ++i) loops_of(flow_view{flows[i], i, net, {}}, out);
  return out;
}

std::vector<flowradar_stop> flowradar_stops(const std::vector<flowradar_loss_flow>& flows, const flowradar_loss_net& net) {
  std::vector<flowradar_stop> out;
  for (unsigned i = 0; i < flows.size(); ++i) {
    flow_view v{flows[i], i, net, {}};
    for (const auto& [key, n] : flows[i].decoded) v.seen_at.insert(key.second);
    stops_of(v, out);
  }
  return out;
}

const char* flowradar_loss_status_name(flowradar_loss_status s) {
  switch (s) {
    case status::lossless: return "lossless";
    case status::lost: return "lost";
    case status::undecoded: return "undecoded";
    case status::open: return "open";
    case status::looped: return "looped";
  }
  return "?";
}

std::vector<flowradar_loss_segment> flowradar_loss_map(const std::vector<flowradar_loss_flow>& flows,
                                                       const flowradar_loss_net& net) {
  std::vector<seg> out;
  for (unsigned i = 0; i < flows.size(); ++i) {
    flow_view v{flows[i], i, net, {}};
    for (const auto& [key, n] : flows[i].decoded) v.seen_at.insert(key.second);
    one_flow(v, out);
  }
  return out;
}

}  // namespace netasic
