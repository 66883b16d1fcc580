#include "run/lossradar_collector.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "fabric/fabric.h"
#include "output/csv.h"
#include "output/format.h"

namespace netasic {
namespace {

constexpr uint64_t ps_per_us = 1'000'000;

// The drop log's reasons as the analyzer's classes: what each should be classified as.
loss_class truth_class(const std::string& reason) {
  if (reason == "link_fault") return loss_class::random;
  if (reason == "black_hole") return loss_class::black_hole;
  if (reason == "ttl_expired") return loss_class::loop;
  if (reason == "buffer_full" || reason == "queue_limit" || reason == "dynamic_threshold" || reason == "headroom")
    return loss_class::congestion;
  return loss_class::unknown;
}

using packet_key = std::tuple<uint32_t, uint32_t, uint16_t, uint16_t, uint8_t, uint16_t>;
packet_key key_of(const lossradar_sig& s) { return {s.src(), s.dst(), s.sport(), s.dport(), s.proto(), s.ip_id()}; }
packet_key key_of(const drop_record& r) { return {r.src, r.dst, r.sport, r.dport, r.proto, r.ip_id}; }

}  // namespace

// A host NIC's meter on one of its link's directions.
struct lossradar_collector::host_hook : link_meter {
  lossradar_collector* c = nullptr;
  unsigned seg = 0;
  bool up = false;   // the NIC sends on this direction: its upstream meter
  void sent(packet& p, uint64_t now) override {
    if (up && !is_internal(p)) c->upstream(seg, p, now);
  }
  void arrived(packet& p, uint64_t now) override {
    if (!up && !is_internal(p)) c->downstream(seg, p, now);
  }
};

lossradar_collector::lossradar_collector(fabric& fab) : fab_(fab), cfg_(fab.config().lossradar) {
  const topology& t = fab.config().topo;
  for (unsigned li = 0; li < t.links.size(); ++li)
    for (uint8_t dir : {0, 1}) {
      const topo_link& l = t.links[li];
      const unsigned from = dir ? l.b : l.a, to = dir ? l.a : l.b;
      segment s;
      s.name = fmt::format("{}:p{}>{}:p{}", t.nodes[from].name, l.port_on(from), t.nodes[to].name, l.port_on(to));
      // Both ends of a segment hash alike; each segment its own seed (per-switch hash seeds).
      s.seed = fab.config().seed * 0x2545F4914F6CDD1Dull + li * 2 + dir;
      s.to_switch = t.nodes[to].kind == node_kind::sw;
      s.up = new_meter(s.seed);
      s.down = new_meter(s.seed);
      seg_.push_back(std::move(s));
    }
  // Blackbox regions: connected switches without meters.
  region_.assign(t.nodes.size(), -1);
  if (!cfg_.blackbox.empty()) {
    std::vector<int> sw_of(t.nodes.size(), -1);
    for (unsigned sw = 0; sw < t.switches.size(); ++sw) sw_of[t.switches[sw]] = int(sw);
    int regions = 0;
    for (unsigned sw = 0; sw < t.switches.size(); ++sw) {
      if (!cfg_.blackbox[sw] || region_[t.switches[sw]] >= 0) continue;
      std::vector<unsigned> todo{t.switches[sw]};
      region_[t.switches[sw]] = regions;
      while (!todo.empty()) {
        const unsigned n = todo.back();
        todo.pop_back();
        for (unsigned li : t.nodes[n].port_link) {
          const unsigned m = t.links[li].a == n ? t.links[li].b : t.links[li].a;
          if (sw_of[m] >= 0 && cfg_.blackbox[unsigned(sw_of[m])] && region_[m] < 0) {
            region_[m] = regions;
            todo.push_back(m);
          }
        }
      }
      ++regions;
    }
  }
  out_seg_.resize(t.switches.size());
  in_seg_.resize(t.switches.size());
  for (unsigned sw = 0; sw < t.switches.size(); ++sw) {
    const unsigned node = t.switches[sw];
    for (unsigned li : t.nodes[node].port_link) {
      const unsigned away = t.links[li].a == node ? 0 : 1;
      out_seg_[sw].push_back(li * 2 + away);
      in_seg_[sw].push_back(li * 2 + (1 - away));
    }
    fab.switches()[sw]->lossradar = this;
  }
  for (unsigned h = 0; h < t.hosts.size(); ++h) {
    const unsigned node = t.hosts[h];
    const unsigned li = t.nodes[node].port_link[0];
    const unsigned away = t.links[li].a == node ? 0 : 1;
    packet_link& pl = fab.links()[li];
    for (unsigned dir : {0u, 1u}) {
      auto hook = std::make_unique<host_hook>();
      hook->c = this;
      hook->seg = li * 2 + dir;
      hook->up = dir == away;
      link_meter*& chain = (dir ? pl.b_to_a : pl.a_to_b).meter;
      hook->next = chain;
      chain = hook.get();
      host_hooks_.push_back(std::move(hook));
    }
  }
  fab.stats.log = &log_;
}

lossradar_collector::meter lossradar_collector::new_meter(uint64_t seed) const {
  meter m;
  for (int parity = 0; parity < 2; ++parity) m.d.emplace_back(cfg_.cells, cfg_.hashes, seed, cfg_.sig);
  return m;
}

lossradar_collector::~lossradar_collector() {
  if (fab_.stats.log == &log_) fab_.stats.log = nullptr;
}

void lossradar_collector::ingress_end(unsigned sw, unsigned in_port, unsigned out_port, packet& p, uint64_t now) {
  // The downstream meter files the packet under the batch the last upstream meter gave it; the
  // upstream meter then stages its own (§5.6: written to the header after the downstream update).
  // A switch in the blackbox has no meters: the packet keeps what the last meter wrote.
  if (!cfg_.blackbox.empty() && cfg_.blackbox[sw]) return;
  downstream(in_seg_[sw][in_port], p, now);
  upstream(out_seg_[sw][out_port], p, now);
}

void lossradar_collector::upstream(unsigned seg, packet& p, uint64_t now) {
  const uint64_t batch = now / cfg_.batch_ps;
  p.lr_batch = uint8_t(batch);
  p.lr_stamp_us = uint16_t(now / ps_per_us & 0x3FFF);
  p.lr_meter = seg;
  seg_[seg].up.d[batch & 1].insert(lossradar_signature(p, cfg_.sig, seg_[seg].to_switch ? 1 : 0));
  highest_batch_ = std::max(highest_batch_, batch);
  if (!pending_) {   // the collection of this batch, T + timeout after it ends
    pending_ = true;
    pending_batch_ = batch;
    fab_.events().schedule((batch + 1) * cfg_.batch_ps + cfg_.timeout_ps, *this);
  }
}

void lossradar_collector::downstream(unsigned seg, packet& p, uint64_t now) {
  // The batch the packet carries, as the latest batch at or before now with those 8 bits.
  const uint64_t cur = now / cfg_.batch_ps;
  const uint64_t batch = cur - uint8_t(uint8_t(cur) - p.lr_batch);
  if (any_collected_ && batch <= collected_through_) {
    ++late_;   // its batch was already read out: past T + timeout (raise telemetry.lossradar_timeout)
    return;
  }
  const lossradar_sig sig = lossradar_signature(p, cfg_.sig, 0);
  const unsigned um = p.lr_meter;
  if (cfg_.blackbox.empty() || um == seg) {   // full deployment: the segment's own upstream meter
    seg_[seg].down.d[batch & 1].insert(sig);
    return;
  }
  if (um >= seg_.size()) return;   // never passed an upstream meter (not traffic the hosts meter)
  auto it = seg_[seg].through.find(um);
  if (it == seg_[seg].through.end()) {   // hashed as the upstream meter's digest, to subtract from it
    it = seg_[seg].through.emplace(um, new_meter(seg_[um].seed)).first;
    seg_[um].fed.push_back(seg);
  }
  it->second.d[batch & 1].insert(sig);
}

void lossradar_collector::wake(uint64_t) {
  collect(pending_batch_);
  pending_ = false;
  if (highest_batch_ > pending_batch_) {
    pending_ = true;
    ++pending_batch_;
    fab_.events().schedule((pending_batch_ + 1) * cfg_.batch_ps + cfg_.timeout_ps, *this);
  }
}

void lossradar_collector::collect(uint64_t batch) {
  ++batches_;
  const unsigned parity = unsigned(batch & 1);
  for (unsigned s = 0; s < seg_.size(); ++s) {
    // The control plane reads both meters' digests of the batch out, then zeroes them.
    lossradar_meter_digest& up = seg_[s].up.d[parity];
    lossradar_meter_digest& down = seg_[s].down.d[parity];
    const lossradar_digest u = up.read();
    lossradar_digest d = down.read();
    up.clear();
    down.clear();
    // Blackbox mode: what left the switches without meters, by every downstream meter past them.
    for (unsigned dm : seg_[s].fed) {
      lossradar_meter_digest& part = seg_[dm].through.at(s).d[parity];
      d.add(part.read());
      part.clear();
    }
    if (!(u == d)) {
      exported e{batch, s, u};
      e.diff.subtract(d);
      exports_.push_back(std::move(e));
    }
  }
  any_collected_ = true;
  collected_through_ = batch;
}

void lossradar_collector::finish() {
  // The batches still live when the run stopped: what is in flight then is listed too (and
  // matches no drop).
  if (pending_)
    for (uint64_t b = pending_batch_; b <= highest_batch_; ++b) collect(b);
  pending_ = false;
  decode();
  score();
}

void lossradar_collector::decode() {
  for (const exported& e : exports_) {
    const lossradar_peel r = e.diff.peel();
    if (!r.complete) {
      ++failed_digests_;
      undecoded_ += r.undecoded;
    }
    const uint64_t base_us = e.batch * cfg_.batch_ps / ps_per_us;
    for (const lossradar_sig& s : r.losses) {
      lossradar_listing l;
      l.segment = e.seg;
      l.loss.sig = s;
      l.loss.batch = e.batch;
      // The 14-bit stamp back to a time: the batch is shorter than its 16384 us wrap.
      if (cfg_.sig == lossradar_sig_kind::extended)
        l.loss.t_ps = (base_us + uint16_t(s.stamp_us() - base_us) % 16384u) * ps_per_us;
      else
        l.loss.t_ps = e.batch * cfg_.batch_ps;
      listed_.push_back(l);
    }
  }
  if (cfg_.sig != lossradar_sig_kind::extended) return;   // the analyzer needs the timestamps and flags
  std::map<unsigned, std::vector<size_t>> by_seg;
  for (size_t i = 0; i < listed_.size(); ++i) by_seg[listed_[i].segment].push_back(i);
  for (auto& [s, idx] : by_seg) {
    // In time order, which lossradar_analyze's stable sort keeps: v[j] stays listed_[idx[j]].
    std::stable_sort(idx.begin(), idx.end(), [&](size_t x, size_t y) { return listed_[x].loss.t_ps < listed_[y].loss.t_ps; });
    std::vector<analyzed_loss> v;
    for (size_t i : idx) v.push_back(listed_[i].loss);
    lossradar_analyze(v, cfg_.analyzer);
    for (size_t j = 0; j < idx.size(); ++j) listed_[idx[j]].loss = v[j];
  }
}

int lossradar_collector::truth_segment(const drop_record& r) const {
  // Blackbox mode: a loss is listed at the upstream meter the packet last passed.
  if (!cfg_.blackbox.empty()) return r.last_meter < seg_.size() ? int(r.last_meter) : -1;
  if (r.on_link) return int(r.index * 2 + r.dir);
  if (r.out_port >= 0) return int(out_seg_[r.index][unsigned(r.out_port)]);
  return int(in_seg_[r.index][unsigned(r.in_port)]);
}

bool lossradar_collector::covers(unsigned u, unsigned s) const {
  if (u == s) return true;
  if (cfg_.blackbox.empty()) return false;
  // Segment g runs from its link's end a to b when g is even, b to a when odd.
  const topology& t = fab_.config().topo;
  const topo_link &lu = t.links[u / 2], &ls = t.links[s / 2];
  const unsigned u_to = u % 2 ? lu.a : lu.b, s_from = s % 2 ? ls.b : ls.a;
  return region_[u_to] >= 0 && region_[u_to] == region_[s_from];
}

void lossradar_collector::score() {
  // Each listing against the drop log: the same packet (5-tuple and IP_ID) dropped in the same
  // segment, each record used once.
  std::map<std::pair<unsigned, packet_key>, std::vector<int>> open;
  for (size_t i = 0; i < log_.records.size(); ++i)
    open[{unsigned(truth_segment(log_.records[i])), key_of(log_.records[i])}].push_back(int(i));
  listed_by_record_.assign(log_.records.size(), -1);
  for (size_t i = 0; i < listed_.size(); ++i) {
    auto it = open.find({listed_[i].segment, key_of(listed_[i].loss.sig)});
    if (it == open.end() || it->second.empty()) continue;
    listed_[i].truth = it->second.front();
    it->second.erase(it->second.begin());
    listed_by_record_[size_t(listed_[i].truth)] = int(i);
  }
}

nlohmann::json lossradar_collector::fault_scores() const {
  const fabric_config& fc = fab_.config();
  const topology& t = fc.topo;
  nlohmann::json out = nlohmann::json::array();
  // One fault: the records it caused, and the listings classified as it at its place.
  auto score = [&](const std::string& what, auto caused, auto claimed) {
    uint64_t dropped = 0, listed = 0, classified = 0, correct = 0;
    for (size_t i = 0; i < log_.records.size(); ++i)
      if (caused(log_.records[i])) {
        ++dropped;
        if (listed_by_record_[i] >= 0) ++listed;
      }
    for (const lossradar_listing& l : listed_)
      if (claimed(l)) {
        ++classified;
        if (l.truth >= 0 && caused(log_.records[size_t(l.truth)])) ++correct;
      }
    out.push_back({{"fault", what}, {"dropped_packets", dropped}, {"listed_packets", listed},
                   {"classified_packets", classified}, {"precision_pct", pct(correct, classified)},
                   {"recall_pct", pct(correct, dropped)}});
  };
  for (const fault_config::link_drop& f : fc.faults.link_drops) {
    const unsigned seg = f.link * 2 + f.dir;
    score(fmt::format("link_drop {} {}", seg_[seg].name, f.rate),
          [&](const drop_record& r) { return r.reason == "link_fault" && r.on_link && r.index * 2 + r.dir == seg; },
          [&](const lossradar_listing& l) { return covers(l.segment, seg) && l.loss.cls == loss_class::random; });
  }
  for (const fault_config::black_hole& b : fc.faults.black_holes) {
    const std::vector<unsigned>& into = in_seg_[b.sw];
    score(fmt::format("black_hole {} {} from {} us", t.nodes[t.switches[b.sw]].name, t.nodes[t.hosts[b.host]].name,
                      double(b.from_ps) / double(ps_per_us)),
          [&](const drop_record& r) { return r.reason == "black_hole" && !r.on_link && r.index == b.sw && host_of_ip(r.dst) == b.host; },
          [&](const lossradar_listing& l) {
            return l.loss.cls == loss_class::black_hole && host_of_ip(l.loss.sig.dst()) == b.host &&
                   std::any_of(into.begin(), into.end(), [&](unsigned s) { return covers(l.segment, s); });
          });
  }
  for (const fault_config::misroute& f : fc.faults.misroutes) {
    const switch_config::misroute& m = f.entry;
    const unsigned node = t.switches[f.sw];
    score(fmt::format("misroute {} {} -> {} from {} us", t.nodes[node].name, t.nodes[t.hosts[m.host]].name,
                      t.nodes[t.links[t.nodes[node].port_link[m.port]].other(node)].name, double(m.from_ps) / double(ps_per_us)),
          [&](const drop_record& r) { return r.reason == "ttl_expired" && host_of_ip(r.dst) == m.host; },
          [&](const lossradar_listing& l) { return l.loss.cls == loss_class::loop && host_of_ip(l.loss.sig.dst()) == m.host; });
  }
  return out;
}

nlohmann::json lossradar_collector::summary() const {
  uint64_t matched = 0;
  for (const lossradar_listing& l : listed_) matched += l.truth >= 0;
  const unsigned sig_bits = cfg_.sig == lossradar_sig_kind::extended ? 136 : 120;
  nlohmann::json s = {
      {"cells", cfg_.cells}, {"hashes", cfg_.hashes}, {"batch_us", double(cfg_.batch_ps) / double(ps_per_us)},
      {"digest_bytes", uint64_t(cfg_.cells) * (sig_bits + 32) / 8}, {"segments", seg_.size()},
      {"batches", batches_}, {"exported_digests", exports_.size()}, {"failed_digests", failed_digests_},
      {"dropped_packets", log_.records.size()}, {"listed_packets", listed_.size()}, {"matched_packets", matched},
      {"unmatched_packets", listed_.size() - matched}, {"undecoded_packets", undecoded_}, {"late_packets", late_},
      {"detected_pct", pct(matched, log_.records.size())}};
  // The meters' memory per switch (§5.7's per-switch figures): 2 batches of every digest its
  // ports' meters keep, the per-upstream-meter ones of blackbox mode as the run created them.
  const topology& t = fab_.config().topo;
  const uint64_t digest_bytes = uint64_t(cfg_.cells) * (sig_bits + 32) / 8;
  uint64_t metered = 0, total = 0, most = 0, through = 0;
  for (unsigned sw = 0; sw < t.switches.size(); ++sw) {
    if (!cfg_.blackbox.empty() && cfg_.blackbox[sw]) continue;
    // Per port: its UM; its DM's own digest when the far end has a UM (a host, or a switch
    // outside the blackbox), else the DM's digests per UM past the blackbox.
    uint64_t digests = 0;
    for (unsigned port = 0; port < out_seg_[sw].size(); ++port) {
      const unsigned in = in_seg_[sw][port];
      const topo_link& l = t.links[in / 2];
      const unsigned far = in % 2 ? l.b : l.a;   // the segment's sending end
      digests += 1 + (region_[far] < 0 ? 1 : 0) + seg_[in].through.size();
    }
    const uint64_t bytes = 2 * digests * digest_bytes;
    ++metered;
    total += bytes;
    most = std::max(most, bytes);
  }
  for (const segment& g : seg_) through += g.through.size();
  s["blackbox_switches"] = t.switches.size() - metered;
  s["through_digests"] = through;
  s["switch_meter_bytes_max"] = most;
  s["switch_meter_bytes_mean"] = metered ? double(total) / double(metered) : 0.0;
  if (cfg_.sig == lossradar_sig_kind::extended) {
    for (loss_class c : {loss_class::congestion, loss_class::random, loss_class::black_hole, loss_class::loop}) {
      uint64_t truth = 0, classified = 0, correct = 0;
      for (const drop_record& r : log_.records) truth += truth_class(r.reason) == c;
      for (const lossradar_listing& l : listed_)
        if (l.loss.cls == c) {
          ++classified;
          if (l.truth >= 0 && truth_class(log_.records[size_t(l.truth)].reason) == c) ++correct;
        }
      s["classes"][loss_class_name(c)] = {{"true_packets", truth}, {"classified_packets", classified},
                                          {"precision_pct", pct(correct, classified)}, {"recall_pct", pct(correct, truth)}};
    }
    s["faults"] = fault_scores();
  }
  return s;
}

std::string lossradar_collector::losses_csv() const {
  std::string out = "batch,segment,t_us,src_host,dst_host,sport,dport,proto,ip_id,syn,class,truth_reason\n";
  for (const lossradar_listing& l : listed_) {
    const lossradar_sig& s = l.loss.sig;
    out += fmt::format("{},{},{:.3f},{},{},{},{},{},{},{},{},{}\n", l.loss.batch, csv_escape(seg_[l.segment].name),
                       double(l.loss.t_ps) / double(ps_per_us), host_of_ip(s.src()), host_of_ip(s.dst()), s.sport(),
                       s.dport(), s.proto(), s.ip_id(), int(s.syn()), loss_class_name(l.loss.cls),
                       l.truth >= 0 ? log_.records[size_t(l.truth)].reason : "none");
  }
  return out;
}

void lossradar_collector::report(telemetry_result& t) const {
  t.lossradar = true;
  t.batch_ms = double(cfg_.batch_ps) / 1e9;
  const auto at = [&t](uint64_t batch) -> lossradar_batch_losses& {
    for (uint64_t b = t.batches.size(); b <= batch; ++b) t.batches.push_back({b, {}, {}});
    return t.batches[batch];
  };
  for (const lossradar_listing& l : listed_) ++at(l.loss.batch).listed[size_t(l.loss.cls)];
  for (const drop_record& r : log_.records) ++at(r.t_ps / cfg_.batch_ps).dropped[size_t(truth_class(r.reason))];
}

std::string lossradar_collector::drops_csv() const {
  const topology& t = fab_.config().topo;
  std::string out = "t_us,reason,at,segment,src_host,dst_host,sport,dport,proto,ip_id,listed\n";
  for (size_t i = 0; i < log_.records.size(); ++i) {
    const drop_record& r = log_.records[i];
    // at: where it was dropped; segment: where LossRadar should list it ("-": nowhere it can).
    const std::string at = r.on_link ? seg_[r.index * 2 + r.dir].name : t.nodes[t.switches[r.index]].name;
    const int seg = truth_segment(r);
    out += fmt::format("{:.6f},{},{},{},{},{},{},{},{},{},{}\n", double(r.t_ps) / double(ps_per_us), r.reason, csv_escape(at),
                       seg < 0 ? "-" : csv_escape(seg_[unsigned(seg)].name), host_of_ip(r.src), host_of_ip(r.dst), r.sport,
                       r.dport, r.proto, r.ip_id, int(listed_by_record_.empty() ? 0 : listed_by_record_[i] >= 0));
  }
  return out;
}

}  // namespace netasic
