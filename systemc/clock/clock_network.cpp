#include "clock/clock_network.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <queue>
#include <stdexcept>

#include <fmt/format.h>

#include "clock/backup_plan.h"
#include "clock/oscillator.h"
#include "clock/sundial_firmware.h"
#include "clock/sundial_regs.h"
#include "clock/sundial_unit.h"
#include "common/params.h"
#include "common/rng.h"

namespace netasic {

namespace {

constexpr uint32_t none = UINT32_MAX;
constexpr uint64_t never = UINT64_MAX;
constexpr uint32_t no_port = sundial_firmware_config::no_port;
constexpr int64_t no_bound = clock_result::no_bound;
__extension__ typedef __int128 i128;

std::vector<std::string> split_ws(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

double ns(int64_t ps) { return double(ps) / 1e3; }
double us(uint64_t ps) { return double(ps) / 1e6; }

}  // namespace

// ---- names and parsing -----------------------------------------------------------------------

const char* clock_algorithm_name(clock_algorithm a) {
  switch (a) {
    case clock_algorithm::sundial: return "sundial";
    case clock_algorithm::ptp: return "ptp";
    case clock_algorithm::ptp_fast: return "ptp_fast";
  }
  return "?";
}

clock_algorithm parse_clock_algorithm(const std::string& name) {
  for (clock_algorithm a : {clock_algorithm::sundial, clock_algorithm::ptp, clock_algorithm::ptp_fast})
    if (name == clock_algorithm_name(a)) return a;
  throw config_error(fmt::format("unknown clock algorithm '{}' (sundial, ptp, ptp_fast)", name));
}

const char* clock_fault_kind_name(clock_fault::kind k) {
  switch (k) {
    case clock_fault::kind::link: return "link";
    case clock_fault::kind::device: return "device";
    case clock_fault::kind::root: return "root";
    case clock_fault::kind::domain: return "domain";
    case clock_fault::kind::broken_clock: return "broken_clock";
  }
  return "?";
}

clock_fault parse_clock_fault(const std::string& item) {
  auto bad = [&](const std::string& why) {
    return config_error(fmt::format("fault \"{}\": {} (write KIND TARGET @ TIME_US, e.g. \"link agg0-core0 @ 1000\", "
                                    "\"device agg3 @ 1500\", \"root @ 2000\", \"domain pod2 @ 2500\", "
                                    "\"broken_clock edge4 @ 3000\")", item, why));
  };
  const size_t at = item.find('@');
  if (at == std::string::npos) throw bad("no '@ TIME_US'");
  if (item.find('@', at + 1) != std::string::npos) throw bad("more than one '@'");
  const std::vector<std::string> words = split_ws(item.substr(0, at));
  const std::vector<std::string> when = split_ws(item.substr(at + 1));
  if (when.size() != 1) throw bad(when.empty() ? "no time after '@'" : "one time in us after '@', nothing else");
  double t_us = 0;
  size_t used = 0;
  try {
    t_us = std::stod(when[0], &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != when[0].size() || !std::isfinite(t_us)) throw bad("time '" + when[0] + "' is not a number of us");
  if (t_us < 0 || t_us > 1e12) throw bad("time " + when[0] + " us is outside 0 to 1e12 us");
  if (words.empty()) throw bad("no fault kind before '@'");
  clock_fault f;
  f.text = item;
  f.at_ps = uint64_t(std::llround(t_us * 1e6));
  const std::string& k = words[0];
  if (k == "link") f.what = clock_fault::kind::link;
  else if (k == "device") f.what = clock_fault::kind::device;
  else if (k == "root") f.what = clock_fault::kind::root;
  else if (k == "domain") f.what = clock_fault::kind::domain;
  else if (k == "broken_clock") f.what = clock_fault::kind::broken_clock;
  else throw bad("unknown kind '" + k + "' (link, device, root, domain, broken_clock)");
  if (f.what == clock_fault::kind::root) {
    if (words.size() != 1) throw bad("root takes no target: it is whichever device is the root at that time");
    return f;
  }
  if (words.size() != 2) throw bad(k + (words.size() == 1 ? " needs a target" : " takes exactly one target"));
  f.target = words[1];
  if (f.what == clock_fault::kind::link && (f.target.find('-') == std::string::npos || f.target.front() == '-' ||
                                            f.target.back() == '-'))
    throw bad("link target '" + f.target + "' must name its two devices as A-B (or A-B#i for the i-th parallel link)");
  return f;
}

clock_domains make_clock_domains(const topology& topo) {
  clock_domains d;
  const uint32_t n = uint32_t(topo.nodes.size());
  d.of_node.assign(n, none);
  unsigned top = 0, pods = 0, racks = 0;
  for (const topo_node& nd : topo.nodes) top = std::max(top, nd.tier);
  auto other = [&](unsigned li, unsigned u) { return topo.links[li].a == u ? topo.links[li].b : topo.links[li].a; };
  for (uint32_t u = 0; u < n; ++u) {
    const topo_node& nd = topo.nodes[u];
    if (nd.kind != node_kind::sw || d.of_node[u] != none) continue;
    const uint32_t id = uint32_t(d.names.size());
    d.of_node[u] = id;
    if (nd.tier == top || top < 2) {   // a top-tier switch is a domain of its own
      d.names.push_back(nd.name);
    } else if (top >= 3) {             // fat tree: a pod, the edge and aggregation switches joined below the cores
      d.names.push_back(fmt::format("pod{}", pods++));
      std::vector<uint32_t> q{u};
      for (size_t h = 0; h < q.size(); ++h)
        for (unsigned li : topo.nodes[q[h]].port_link) {
          const uint32_t m = other(li, q[h]);
          if (topo.nodes[m].kind == node_kind::sw && topo.nodes[m].tier < top && d.of_node[m] == none) {
            d.of_node[m] = id;
            q.push_back(m);
          }
        }
    } else if (nd.tier == 1) {         // leaf-spine: a rack is a leaf and its hosts
      d.names.push_back(fmt::format("rack{}", racks++));
    } else {
      d.names.push_back(nd.name);
    }
  }
  for (uint32_t u = 0; u < n; ++u)   // hosts share their switch's domain
    if (topo.nodes[u].kind == node_kind::host) d.of_node[u] = d.of_node[other(topo.nodes[u].port_link.at(0), u)];
  return d;
}

namespace {

// ---- what every algorithm shares: devices, oscillators, link delays, faults, samples -----------

struct resolved_fault {
  clock_fault f;
  std::vector<unsigned> links;   // link faults
  std::vector<uint32_t> nodes;   // device, domain, broken_clock (root: resolved when it happens)
};

struct world {
  const topology& topo;
  const clock_network_config& cfg;
  uint32_t n = 0;
  uint32_t root = none;                  // node
  std::vector<uint32_t> sw_of;           // node -> switch index (none for hosts)
  std::vector<uint32_t> tor;             // host node -> its switch
  clock_domains dom;
  std::vector<oscillator_config> osc;
  std::vector<uint64_t> latency;         // [link] egress timestamp to receipt: propagation + serialisation
  std::vector<std::vector<int64_t>> measured;   // [node][port] Fig. 3.1 delay
  std::vector<uint32_t> edge_of_link;    // link -> sync_graph edge (switch-to-switch links)
  sync_graph graph0;                     // switches; topology.failed_links down
  backup_plan plan0;
  std::vector<resolved_fault> faults;    // in time order
  std::vector<uint64_t> samples;

  world(const topology& t, const clock_network_config& c) : topo(t), cfg(c) {}

  uint32_t other(unsigned li, uint32_t u) const { return topo.links[li].a == u ? topo.links[li].b : topo.links[li].a; }
  uint32_t port_on(unsigned li, uint32_t u) const { return topo.links[li].a == u ? topo.links[li].a_port : topo.links[li].b_port; }
  bool is_switch(uint32_t u) const { return sw_of[u] != none; }
  uint32_t node_of_switch(uint32_t s) const { return topo.switches[s]; }
  // The link two devices use: the lowest-index one that is up (parallel links).
  unsigned link_between(uint32_t u, uint32_t v, const std::vector<char>& down) const {
    unsigned best = none;
    for (unsigned li : topo.nodes[u].port_link)
      if (!down[li] && other(li, u) == v) best = std::min(best, li);
    return best;
  }
  uint32_t find_node(const std::string& name) const {
    for (uint32_t u = 0; u < n; ++u)
      if (topo.nodes[u].name == name) return u;
    return none;
  }
};

void build_world(world& w, bool with_samples) {
  const topology& topo = w.topo;
  const clock_network_config& cfg = w.cfg;
  w.n = uint32_t(topo.nodes.size());
  if (topo.switches.empty()) throw std::invalid_argument("clock network: the topology has no switch");
  w.sw_of.assign(w.n, none);
  for (uint32_t s = 0; s < topo.switches.size(); ++s) w.sw_of[topo.switches[s]] = s;
  w.tor.assign(w.n, none);
  for (uint32_t u = 0; u < w.n; ++u)
    if (!w.is_switch(u)) {
      if (topo.nodes[u].port_link.size() != 1)
        throw std::invalid_argument("clock network: host " + topo.nodes[u].name + " must have exactly one link");
      w.tor[u] = w.other(topo.nodes[u].port_link[0], u);
    }
  w.dom = make_clock_domains(topo);

  // The root: named, or the first switch of the top tier.
  if (cfg.root.empty()) {
    unsigned top = 0;
    for (unsigned s : topo.switches) top = std::max(top, topo.nodes[s].tier);
    for (unsigned s : topo.switches)
      if (topo.nodes[s].tier == top) {
        w.root = s;
        break;
      }
  } else {
    w.root = w.find_node(cfg.root);
    if (w.root == none) throw config_error(fmt::format("root '{}' is not a device of the topology (e.g. '{}')", cfg.root,
                                                       topo.nodes[topo.switches.back()].name));
    if (!w.is_switch(w.root)) throw config_error(fmt::format("root '{}' is a host; the root must be a switch", cfg.root));
  }

  // Oscillators: one draw per device in node order, so the algorithms share them exactly.
  rng r(cfg.seed);
  auto uniform = [&](int64_t bound) { return bound <= 0 ? 0 : int64_t(r.below(2 * uint64_t(bound) + 1)) - bound; };
  for (uint32_t u = 0; u < w.n; ++u) {
    oscillator_config oc;
    oc.bound_ppb = cfg.oscillator_bound_ppb;
    oc.ppb = uniform(cfg.oscillator_bound_ppb);
    oc.drift_ppb_per_s = uniform(cfg.drift_ppb_per_s);
    oc.initial_offset_ps = uniform(cfg.initial_offset_ps);
    oc.period_ps = cfg.oscillator_period_ps;
    w.osc.push_back(oc);
  }
  // Links: one-way delay of a sync-message, and each end's Fig. 3.1 measurement of it [L1124]
  // (A sends at 1 us, B answers 1 us after receipt), taken on the free-running clocks.
  for (const topo_link& l : topo.links) {
    if (!l.rate_bps) throw std::invalid_argument("clock network: link " + l.name + " has no rate");
    // The frame and its preamble and SFD (8 bytes), as tlm/link.h puts them on the wire.
    w.latency.push_back(l.delay_ps + (uint64_t(cfg.frame_bytes + 8) * 8 * 1'000'000'000'000 + l.rate_bps - 1) / l.rate_bps);
  }
  std::vector<oscillator> clk;
  for (const oscillator_config& oc : w.osc) clk.emplace_back(oc);
  w.measured.assign(w.n, {});
  for (uint32_t u = 0; u < w.n; ++u)
    for (unsigned li : topo.nodes[u].port_link) {
      const oscillator &a = clk[w.other(li, u)], &b = clk[u];
      const uint64_t d = w.latency[li], t1 = 1'000'000, turn = 1'000'000;
      w.measured[u].push_back(
          measure_link_delay(a.local_ps(t1), b.local_ps(t1 + d), b.local_ps(t1 + d + turn), a.local_ps(t1 + 2 * d + turn)));
    }

  // The controller's graph: switches with their domains, switch-to-switch links.
  for (unsigned s : topo.switches) w.graph0.add_node(w.dom.of_node[s]);
  w.edge_of_link.assign(topo.links.size(), none);
  for (unsigned li = 0; li < topo.links.size(); ++li) {
    const topo_link& l = topo.links[li];
    if (!w.is_switch(l.a) || !w.is_switch(l.b)) continue;
    w.edge_of_link[li] = w.graph0.add_edge(w.sw_of[l.a], w.sw_of[l.b]);
    w.graph0.edges[w.edge_of_link[li]].failed = l.failed;
  }
  w.plan0 = compute_backup_plan(w.graph0, w.sw_of[w.root]);
  if (w.plan0.status == plan_status::bad_root) throw config_error("the clock root cannot be planned: " + w.plan0.reason);

  // Faults: targets resolved against the topology.
  for (const clock_fault& f : cfg.faults) {
    auto bad = [&](const std::string& why) { return config_error(fmt::format("fault \"{}\": {}", f.text, why)); };
    if (f.at_ps > cfg.duration_ps)
      throw bad(fmt::format("at {} us is after the end of the run ({} us)", us(f.at_ps), us(cfg.duration_ps)));
    resolved_fault rf{f, {}, {}};
    auto node = [&](const std::string& name) {
      const uint32_t u = w.find_node(name);
      if (u == none) throw bad(fmt::format("no device named '{}' (devices are named like '{}' and '{}')", name,
                                           topo.nodes[topo.switches.back()].name, topo.nodes.back().name));
      return u;
    };
    switch (f.what) {
      case clock_fault::kind::link: {
        const size_t dash = f.target.find('-');
        std::string a = f.target.substr(0, dash), b = f.target.substr(dash + 1);
        long index = -1;
        if (const size_t hash = b.find('#'); hash != std::string::npos) {
          const std::string idx = b.substr(hash + 1);
          b = b.substr(0, hash);
          if (idx.empty() || idx.find_first_not_of("0123456789") != std::string::npos || idx.size() > 6)
            throw bad("'#" + idx + "' must be the index of a parallel link, e.g. #0");
          index = std::stol(idx);
        }
        const uint32_t ua = node(a), ub = node(b);
        std::vector<unsigned> between;
        for (unsigned li : topo.nodes[ua].port_link)
          if (w.other(li, ua) == ub) between.push_back(li);
        std::sort(between.begin(), between.end());
        if (between.empty()) throw bad(fmt::format("no link joins {} and {}", a, b));
        if (index >= long(between.size()))
          throw bad(fmt::format("{} and {} have {} parallel link{}; #{} does not exist", a, b, between.size(),
                                between.size() == 1 ? "" : "s", index));
        if (index >= 0) rf.links = {between[size_t(index)]};
        else rf.links = between;
        break;
      }
      case clock_fault::kind::device:
      case clock_fault::kind::broken_clock:
        rf.nodes = {node(f.target)};
        break;
      case clock_fault::kind::domain: {
        uint32_t d = none;
        for (uint32_t i = 0; i < w.dom.names.size(); ++i)
          if (w.dom.names[i] == f.target) d = i;
        if (d == none) {
          const uint32_t u = w.find_node(f.target);
          if (u == none)
            throw bad(fmt::format("no domain or device named '{}' (domains: {}{})", f.target, w.dom.names.front(),
                                  w.dom.names.size() > 1 ? ", " + w.dom.names[1] + ", ..." : ""));
          d = w.dom.of_node[u];
        }
        for (uint32_t u = 0; u < w.n; ++u)
          if (w.dom.of_node[u] == d) rf.nodes.push_back(u);
        break;
      }
      case clock_fault::kind::root: break;
    }
    w.faults.push_back(rf);
  }
  std::stable_sort(w.faults.begin(), w.faults.end(),
                   [](const resolved_fault& a, const resolved_fault& b) { return a.f.at_ps < b.f.at_ps; });
  for (size_t i = 0; i < w.faults.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (w.faults[i].f.what == clock_fault::kind::broken_clock && w.faults[j].f.what == clock_fault::kind::broken_clock &&
          w.faults[i].nodes == w.faults[j].nodes)
        throw config_error(fmt::format("fault \"{}\": the clock of {} is already broken by \"{}\"", w.faults[i].f.text,
                                       w.faults[i].f.target, w.faults[j].f.text));

  // Sample times.
  if (!with_samples) return;
  if (!cfg.sample_times_ps.empty()) {
    w.samples = cfg.sample_times_ps;
    for (size_t i = 0; i < w.samples.size(); ++i)
      if ((i && w.samples[i] < w.samples[i - 1]) || w.samples[i] > cfg.duration_ps)
        throw std::invalid_argument("clock network: sample times must be non-decreasing and within the duration");
  } else if (cfg.sample_interval_ps) {   // 0: the owner calls clock_layer::sample
    for (uint64_t t = 0; t < cfg.duration_ps; t += cfg.sample_interval_ps) w.samples.push_back(t);
  }
  const double values = double(w.samples.size()) * w.n * double(cfg.algorithms.size()) * 3;
  if (values > double(cfg.max_values))
    throw std::invalid_argument(fmt::format("clock network: {} samples of {} devices x {} algorithms x 3 series are "
                                            "{:.3g} values, more than the {:.3g} kept in memory; sample less often",
                                            w.samples.size(), w.n, cfg.algorithms.size(), values, double(cfg.max_values)));
}

// ---- one algorithm's run ------------------------------------------------------------------------

class sim {
 public:
  // transport: the fabric that carries the messages (null: each takes its link's latency).
  // fault_root: shared by the algorithms, the device a root fault takes down (the first
  // algorithm's root at that time).
  sim(const world& w, clock_algorithm alg, uint8_t index, sync_transport* transport, std::vector<uint32_t>& fault_root)
      : w_(w), cfg_(w.cfg), alg_(alg), index_(index), transport_(transport), fault_root_(fault_root) {
    for (const oscillator_config& oc : w.osc) osc_.push_back(std::make_unique<oscillator>(oc));
    dead_.assign(w.n, 0);
    link_down_.assign(w.topo.links.size(), 0);
    for (unsigned li = 0; li < w.topo.links.size(); ++li) link_down_[li] = w.topo.links[li].failed;
    epoch_.assign(w.n, w.root);
    last_sync_.assign(w.n, never);
    pending_.assign(w.n, {});
    cur_root_ = w.root;
    res_.algorithm = alg;
    for (auto* series : {&res_.epsilon_ps, &res_.offset_ps, &res_.offset_ideal_ps}) {
      series->assign(w.n, {});
      for (auto& v : *series) v.reserve(w.samples.size());
    }
    local_.assign(w.n, 0);
  }
  virtual ~sim() = default;

  // Stepping: begin, then advance / arrive / sample in time order, then end.
  void begin();
  uint64_t next_time() const { return q_.empty() || q_.top().t > cfg_.duration_ps ? never : q_.top().t; }
  void advance(uint64_t t);
  void arrive(uint32_t v, uint32_t port, const sync_header& m, uint64_t now);
  int64_t stamp(uint32_t u, uint64_t t) const { return osc_[u]->local_ps(t); }
  void sample(uint64_t t);
  clock_algorithm_result end(uint64_t end_ps);
  // The controller has reprogrammed the devices after fault i (live registers).
  void controller_now(uint32_t i, uint64_t now) {
    now_ = now;
    on_controller(w_.faults[i], fails_.at(i).nodes);
  }
  uint32_t current_root() const { return cur_root_; }

 protected:
  enum class kind : uint8_t { timer, egress, arrival, fault, controller, sample };
  struct ev {
    uint64_t t = 0, seq = 0;
    kind what = kind::timer;
    uint32_t node = 0, port = 0;   // egress: sender; arrival: receiver; fault, controller: fault index; sample: index
    int64_t ts = 0;                // the sender's egress timestamp
    uint32_t epoch = 0;            // the root the carried time comes from (instrumentation)
    uint64_t root_sent = 0;        // when that root sent it (instrumentation)
    bool operator>(const ev& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };

  void push(ev e) {
    e.seq = seq_++;
    q_.push(e);
  }
  void transmit(uint32_t u, uint64_t t, const std::vector<uint32_t>& ports, uint32_t epoch, uint64_t root_sent) {
    for (uint32_t p : ports) push({std::max(t, now_), 0, kind::egress, u, p, 0, epoch, root_sent});
  }

  // Algorithm hooks.
  virtual void start() = 0;
  virtual void on_timer(uint32_t u, uint64_t t) = 0;
  virtual void on_arrival(uint32_t v, uint32_t port, int64_t ts, uint32_t epoch, uint64_t root_sent) = 0;
  virtual void on_controller(const resolved_fault& f, const std::vector<uint32_t>& nodes) = 0;
  virtual void on_clock_broken(uint32_t u) = 0;
  virtual bool can_send(uint32_t u) const = 0;
  virtual int64_t epsilon(uint32_t u, uint64_t t) const = 0;   // no_bound when none
  virtual bool is_root(uint32_t u) const = 0;
  virtual unsigned parent_link(uint32_t u) const = 0;         // the link to the current parent, none if none
  virtual bool evicted(uint32_t) const { return false; }
  virtual uint64_t eps_base(uint32_t u) const = 0;
  virtual uint32_t depth(uint32_t u) const = 0;               // hops from the root in the configured tree, none if outside
  virtual bool notified(clock_fault::kind k) const = 0;       // does the controller learn of this fault
  virtual bool self_scheduled_controller() const { return true; }   // false: controller_now
  virtual uint32_t successor_root() const = 0;                // the root once the current failures are handled
  virtual void finish(nlohmann::json& s) = 0;

  bool broken(uint32_t u, uint64_t t) const { return osc_[u]->broken_at(t); }
  bool healthy(uint32_t u, uint64_t t) const { return !dead_[u] && !broken(u, t) && !evicted(u); }
  int64_t offset(uint32_t u, uint64_t t) const { return osc_[u]->local_ps(t) - osc_[epoch_[u]]->local_ps(t); }
  uint32_t lowest_live_switch(uint64_t t) const {
    for (unsigned s : w_.topo.switches)
      if (healthy(s, t)) return s;
    return none;
  }

  // |offset| <= epsilon, for a device with a bound whose reference clock is sound.
  void check(uint32_t u, uint64_t t) {
    if (dead_[u] || evicted(u) || is_root(u)) return;
    const int64_t eps = epsilon(u, t);
    if (eps != no_bound) judge(u, t, eps, offset(u, t));
  }
  void judge(uint32_t u, uint64_t t, int64_t eps, int64_t off) {
    if (dead_[u] || evicted(u) || is_root(u) || eps == no_bound) return;
    const int64_t mag = off < 0 ? -off : off;
    if (broken(u, t)) {   // its own promise is void until it is evicted [L1462]
      if (mag > eps) ++res_.broken_clock_violations;
      return;
    }
    if (broken(epoch_[u], t)) return;
    ++res_.bound_checks;
    if (mag > eps) ++res_.bound_violations;
    if (eps > 0) res_.worst_offset_over_epsilon = std::max(res_.worst_offset_over_epsilon, double(mag) / double(eps));
    max_abs_offset_ = std::max(max_abs_offset_, mag);
  }

  // A valid sync-message reached u (or u became the root).
  void synced(uint32_t u, uint64_t t, int64_t eps_before, uint32_t epoch, uint64_t root_sent) {
    if (eps_before != no_bound && healthy(u, t)) note_peak(u, eps_before);   // the sawtooth's top
    epoch_[u] = epoch;
    std::vector<uint32_t>& p = pending_[u];
    for (size_t i = 0; i < p.size();) {
      tracked& f = fails_[p[i]];
      if (eps_before != no_bound) peak(f.r, u, eps_before);
      if (root_sent < f.r.at_ps || epoch == f.failed_root) {   // sent before the failure: the outage starts later
        f.last_before[u] = t;
        ++i;
        continue;
      }
      ++f.r.recovered;
      f.r.impacted_ps += t - (f.last_before[u] != never ? f.last_before[u] : f.r.at_ps);
      if (f.last_before[u] != never) {
        f.r.max_outage_ps = std::max(f.r.max_outage_ps, t - f.last_before[u]);
        f.r.outage_known = true;
      }
      if (t - f.r.at_ps >= f.r.recovery_ps) {
        f.r.recovery_ps = t - f.r.at_ps;
        f.r.slowest = w_.topo.nodes[u].name;
      }
      p[i] = p.back();
      p.pop_back();
    }
    last_sync_[u] = t;
  }
  // The largest epsilon of healthy devices, overall and by depth, at samples and at arrivals.
  void note_peak(uint32_t u, int64_t eps) {
    eps_max_ = std::max(eps_max_, eps);
    const uint32_t d = depth(u);
    if (d == none) return;
    if (d >= by_depth_.size()) by_depth_.resize(d + 1, 0);
    by_depth_[d] = std::max(by_depth_[d], eps);
  }
  void peak(clock_failure_result& r, uint32_t u, int64_t eps) {
    if (eps <= r.peak_epsilon_ps && !r.peak_device.empty()) return;
    r.peak_epsilon_ps = eps;
    r.peak_device = w_.topo.nodes[u].name;
    r.peak_epsilon_base_ps = int64_t(eps_base(u));
  }
  // u no longer survives (down or evicted): it leaves the failures it was waiting on.
  void gone(uint32_t u) {
    for (uint32_t fi : pending_[u]) --fails_[fi].r.affected;
    pending_[u].clear();
  }

  const world& w_;
  const clock_network_config& cfg_;
  clock_algorithm alg_;
  uint8_t index_;
  sync_transport* transport_;
  std::vector<uint32_t>& fault_root_;
  std::vector<std::unique_ptr<oscillator>> osc_;
  std::vector<char> dead_, link_down_;
  std::vector<uint32_t> epoch_;       // the root whose time each device holds
  std::vector<uint64_t> last_sync_;   // true time of the last valid sync-message
  uint32_t cur_root_;
  uint64_t now_ = 0;
  int64_t max_abs_offset_ = 0;
  clock_algorithm_result res_;

 private:
  struct tracked {
    clock_failure_result r;
    std::vector<uint32_t> nodes;      // what failed (root faults: the root at that time)
    uint32_t failed_root = none;      // messages carrying this root's time do not end the failure
    std::vector<uint64_t> last_before;
  };
  void apply_fault(uint32_t idx);

  std::priority_queue<ev, std::vector<ev>, std::greater<ev>> q_;
  uint64_t seq_ = 0;
  std::vector<tracked> fails_;
  std::vector<std::vector<uint32_t>> pending_;   // node -> failures it has not recovered from
  std::vector<double> eps_ns_;
  std::vector<int64_t> local_;
  std::vector<int64_t> by_depth_;   // largest epsilon at each primary depth
  int64_t eps_max_ = 0;
};

void sim::apply_fault(uint32_t idx) {
  const resolved_fault& rf = w_.faults[idx];
  tracked tr;
  tr.r.at_ps = now_;
  tr.r.kind = clock_fault_kind_name(rf.f.what);
  tr.r.text = rf.f.text;
  tr.r.target = rf.f.target;
  tr.nodes = rf.nodes;
  if (rf.f.what == clock_fault::kind::root) {
    if (fault_root_[idx] == none) fault_root_[idx] = cur_root_;
    tr.nodes = {fault_root_[idx]};
    tr.r.target = w_.topo.nodes[fault_root_[idx]].name;
  }
  switch (rf.f.what) {
    case clock_fault::kind::link:
      for (unsigned li : rf.links) link_down_[li] = 1;
      break;
    case clock_fault::kind::device:
    case clock_fault::kind::domain:
    case clock_fault::kind::root:
      for (uint32_t u : tr.nodes) {
        if (!dead_[u]) gone(u);
        dead_[u] = 1;
      }
      break;
    case clock_fault::kind::broken_clock: {
      const uint32_t u = tr.nodes[0];
      const int64_t rate = cfg_.broken_rate_ppb;
      osc_[u]->break_clock(now_, rate, 0, std::max<int64_t>(rate < 0 ? -rate : rate, 1));
      gone(u);
      on_clock_broken(u);
      break;
    }
  }
  if ((rf.f.what == clock_fault::kind::root || rf.f.what == clock_fault::kind::broken_clock) && is_root(tr.nodes[0]))
    tr.failed_root = tr.nodes[0];

  // Survivors the failure disconnected from the successor root are cut off.
  const uint32_t r = successor_root();
  std::vector<char> reach(w_.n, 0);
  if (r != none) {
    std::vector<uint32_t> q{r};
    reach[r] = 1;
    for (size_t h = 0; h < q.size(); ++h) {
      if (!w_.is_switch(q[h]) && q[h] != r) continue;   // hosts do not forward
      for (unsigned li : w_.topo.nodes[q[h]].port_link) {
        const uint32_t m = w_.other(li, q[h]);
        if (!link_down_[li] && healthy(m, now_) && !reach[m]) {   // a broken clock forwards no usable time
          reach[m] = 1;
          q.push_back(m);
        }
      }
    }
  }
  // Affected: a survivor whose current path to its root crosses something that is down or broken.
  tr.last_before.assign(w_.n, never);
  for (uint32_t u = 0; u < w_.n; ++u) {
    if (!healthy(u, now_) || is_root(u)) continue;
    if (!reach[u]) {
      ++tr.r.cut_off;
      continue;
    }
    bool hit = false;
    uint32_t v = u;
    for (uint32_t steps = 0; !is_root(v); ++steps) {
      const unsigned li = parent_link(v);
      if (li == none || steps > w_.n) break;   // not in a tree
      const uint32_t p = w_.other(li, v);
      if (link_down_[li] || !healthy(p, now_)) {
        hit = true;
        break;
      }
      v = p;
    }
    if (is_root(v) && !healthy(v, now_)) hit = true;
    if (!hit) continue;
    ++tr.r.affected;
    tr.last_before[u] = last_sync_[u];
    pending_[u].push_back(idx);
  }
  fails_.push_back(std::move(tr));
  if (notified(rf.f.what) && self_scheduled_controller())
    push({now_ + cfg_.controller_delay_ps, 0, kind::controller, idx, 0, 0, 0, 0});
}

void sim::sample(uint64_t t) {
  for (uint32_t u = 0; u < w_.n; ++u) local_[u] = osc_[u]->local_ps(t);
  for (uint32_t u = 0; u < w_.n; ++u) {
    const int64_t eps = epsilon(u, t), off = local_[u] - local_[epoch_[u]];
    res_.epsilon_ps[u].push_back(eps);
    res_.offset_ps[u].push_back(off);
    res_.offset_ideal_ps[u].push_back(local_[u] - int64_t(t));
    judge(u, t, eps, off);
    if (eps != no_bound && !is_root(u) && healthy(u, t)) {
      eps_ns_.push_back(ns(eps));
      note_peak(u, eps);
    }
  }
}

void sim::begin() {
  start();
  for (uint32_t i = 0; i < w_.faults.size(); ++i) push({w_.faults[i].f.at_ps, 0, kind::fault, i, 0, 0, 0, 0});
  if (!w_.samples.empty()) push({w_.samples[0], 0, kind::sample, 0, 0, 0, 0, 0});
}

void sim::arrive(uint32_t v, uint32_t port, const sync_header& m, uint64_t now) {
  now_ = now;
  const unsigned li = w_.topo.nodes[v].port_link[port];
  if (dead_[v] || link_down_[li]) return;   // lost with the link or the device
  ++res_.delivered;
  on_arrival(v, port, m.timestamp_ps, m.epoch, m.root_sent_ps);
}

void sim::advance(uint64_t t) {
  while (!q_.empty() && q_.top().t <= t && q_.top().t <= cfg_.duration_ps) {
    const ev e = q_.top();
    q_.pop();
    now_ = e.t;
    switch (e.what) {
      case kind::sample:
        sample(w_.samples[e.node]);
        if (e.node + 1 < w_.samples.size()) push({w_.samples[e.node + 1], 0, kind::sample, e.node + 1, 0, 0, 0, 0});
        break;
      case kind::fault:
        apply_fault(e.node);
        break;
      case kind::controller:
        on_controller(w_.faults[e.node], fails_[e.node].nodes);
        break;
      case kind::timer:
        if (!dead_[e.node]) on_timer(e.node, e.t);
        break;
      case kind::egress: {
        const uint32_t u = e.node;
        if (dead_[u] || !can_send(u)) break;
        const unsigned li = w_.topo.nodes[u].port_link[e.port];
        if (link_down_[li]) break;
        ++res_.messages;
        sync_header m;
        m.algorithm = index_;
        m.sender = u;
        m.epoch = e.epoch;
        m.root_sent_ps = e.root_sent;
        if (transport_) {
          transport_->send_sync(u, e.port, m);
          break;
        }
        const uint32_t v = w_.other(li, u);
        push({e.t + w_.latency[li], 0, kind::arrival, v, w_.port_on(li, v), stamp(u, e.t), e.epoch, e.root_sent});
        break;
      }
      case kind::arrival: {
        sync_header m;
        m.timestamp_ps = e.ts;
        m.epoch = e.epoch;
        m.root_sent_ps = e.root_sent;
        arrive(e.node, e.port, m, e.t);
        break;
      }
    }
  }
}

clock_algorithm_result sim::end(uint64_t end_ps) {
  now_ = end_ps;

  // Failures: devices still waiting at the end did not recover; their epsilon counts as it stands.
  for (uint32_t u = 0; u < w_.n; ++u)
    for (uint32_t fi : pending_[u]) {
      tracked& f = fails_[fi];
      const int64_t eps = epsilon(u, now_);
      if (eps != no_bound) peak(f.r, u, eps);
      if (f.r.all_recovered) f.r.slowest = w_.topo.nodes[u].name;   // the first one left waiting
      f.r.all_recovered = false;
      f.r.impacted_ps += end_ps - (f.last_before[u] != never ? f.last_before[u] : f.r.at_ps);
    }
  // Percentiles by selection: the samples can be millions.
  auto pick = [&](double p) {
    if (eps_ns_.empty()) return 0.0;
    const size_t rank = size_t(std::ceil(p / 100.0 * double(eps_ns_.size())));
    auto it = eps_ns_.begin() + long(rank == 0 ? 0 : rank - 1);
    std::nth_element(eps_ns_.begin(), it, eps_ns_.end());
    return *it;
  };
  const double seconds = double(end_ps) * 1e-12;
  res_.messages_per_s = seconds > 0 ? double(res_.messages) / seconds : 0.0;
  nlohmann::json& s = res_.summary;
  s["epsilon_p50_ns"] = pick(50);
  s["epsilon_p99_ns"] = pick(99);
  s["epsilon_max_ns"] = ns(eps_max_);   // exact: also at every arrival, the sawtooth's tops
  s["epsilon_samples"] = eps_ns_.size();
  std::vector<double> by_depth;   // Fig. 3.22: index = depth in the configured primary tree (0 = root)
  for (int64_t e : by_depth_) by_depth.push_back(ns(e));
  s["epsilon_max_by_depth_ns"] = by_depth;
  s["max_abs_offset_ns"] = ns(max_abs_offset_);
  s["bound_checks"] = res_.bound_checks;
  s["bound_violations"] = res_.bound_violations;
  s["worst_offset_over_epsilon"] = res_.worst_offset_over_epsilon;
  s["broken_clock_violations"] = res_.broken_clock_violations;
  s["messages"] = res_.messages;
  s["messages_delivered"] = res_.delivered;
  s["messages_per_s"] = res_.messages_per_s;
  nlohmann::json fl = nlohmann::json::array();
  uint64_t impacted = 0, impacted_devices = 0;
  for (tracked& f : fails_) {
    impacted += f.r.impacted_ps;
    impacted_devices += f.r.affected;
    if (!f.r.all_recovered) f.r.recovery_ps = never;
    res_.failures.push_back(f.r);
    const clock_failure_result& r = f.r;
    fl.push_back({{"time_us", us(r.at_ps)},
                  {"fault", r.text},
                  {"kind", r.kind},
                  {"target", r.target},
                  {"affected_devices", r.affected},
                  {"cut_off_devices", r.cut_off},
                  {"recovered_devices", r.recovered},
                  {"recovered", r.all_recovered},
                  {"recovery_time_us", r.all_recovered ? nlohmann::json(us(r.recovery_ps)) : nlohmann::json(nullptr)},
                  {"max_outage_us", r.outage_known ? nlohmann::json(us(r.max_outage_ps)) : nlohmann::json(nullptr)},
                  {"peak_epsilon_ns", ns(r.peak_epsilon_ps)},
                  {"peak_device", r.peak_device},
                  {"peak_epsilon_base_ns", ns(r.peak_epsilon_base_ps)},
                  {"slowest_device", r.slowest},
                  {"impacted_device_time_us", us(r.impacted_ps)}});
  }
  s["failures"] = fl;
  s["impacted_device_time_ms"] = double(impacted) / 1e9;   // Fig. 3.20's blast radius, over every failure
  s["impacted_devices"] = impacted_devices;
  finish(s);
  return std::move(res_);
}

// ---- Sundial: the controller's plan as each device's configuration --------------------------------

// The plan's configuration of device u (switch or host); member = it is in the plan. down: the
// links the controller knows are down (parallel links: the lowest-index one that is up).
sundial_firmware_config plan_config(const world& w, const backup_plan& plan, const std::vector<char>& down, uint32_t u,
                                    bool& member) {
  const clock_network_config& cfg_ = w.cfg;
  const backup_plan& plan_ = plan;
  const world& w_ = w;
  auto port_to = [&](uint32_t a, uint32_t b) {
    const unsigned li = w.link_between(a, b, down);
    return li == none ? no_port : w.port_on(li, a);
  };
  sundial_firmware_config f;
  f.first_timeout_ps = cfg_.first_timeout_ps;
  member = false;
  if (w_.is_switch(u)) {
    const uint32_t s = w_.sw_of[u];
    if (s == plan_.root) {
      f.root = member = true;
      return f;
    }
    if (!plan_.member(s)) return f;
    member = true;
    f.primary_parent = port_to(u, w_.node_of_switch(plan_.parent[s]));
    if (plan_.backup_parent[s] != backup_plan::none)
      f.backup_parent = port_to(u, w_.node_of_switch(plan_.backup_parent[s]));
    f.eps_base_ps = plan_.depth_primary[s] * cfg_.eps_per_hop_ps;
    f.eps_base_backup_ps = plan_.depth_backup[s] != backup_plan::none ? plan_.depth_backup[s] * cfg_.eps_per_hop_ps : f.eps_base_ps;
    if (s == plan_.backup_root && f.backup_parent != no_port) f.second_timeout_ps = cfg_.second_timeout_ps;
  } else {
    // A host hangs off its switch with no backup parent (a single link cannot have one): after
    // a first timeout it stays put and waits for the messages or the controller.
    const uint32_t s = w_.sw_of[w_.tor[u]];
    f.primary_parent = 0;
    if (!plan_.member(s)) return f;
    member = true;
    f.eps_base_ps = f.eps_base_backup_ps = (plan_.depth_primary[s] + 1) * cfg_.eps_per_hop_ps;
  }
  return f;
}

// A device's register block from its plan configuration, and back (timeouts in oscillator cycles,
// rounded up, as the unit counts them).
sundial_regs plan_regs(const sundial_firmware_config& f, bool member, uint64_t period_ps) {
  sundial_regs r;
  auto cycles = [&](uint64_t ps) { return uint32_t((ps + period_ps - 1) / period_ps); };
  r[sundial_regs::parent] = f.root ? 0 : f.primary_parent;
  r[sundial_regs::backup_parent] = f.root ? sundial_regs::none : f.backup_parent;
  r[sundial_regs::first_timeout] = cycles(f.first_timeout_ps);
  r[sundial_regs::second_timeout] = f.root ? 0 : cycles(f.second_timeout_ps);
  r[sundial_regs::eps_base] = f.root ? 0 : uint32_t(f.eps_base_ps);
  r[sundial_regs::eps_base_backup] = f.root ? 0 : uint32_t(f.eps_base_backup_ps);
  r[sundial_regs::root] = f.root;
  r[sundial_regs::valid] = member;
  return r;
}
// A host NIC (sw = false) is a leaf: it never takes ROOT (it cannot be one), the rest as written.
sundial_firmware_config regs_config(const sundial_regs& r, bool sw, const clock_network_config& cfg, bool& member) {
  sundial_firmware_config f;
  f.first_timeout_ps = cfg.first_timeout_ps;
  member = r[sundial_regs::valid] != 0;
  if (!member) return f;
  f.first_timeout_ps = uint64_t(r[sundial_regs::first_timeout]) * cfg.oscillator_period_ps;
  if (sw && r[sundial_regs::root]) {
    f.root = true;
    return f;
  }
  f.primary_parent = r[sundial_regs::parent];
  f.backup_parent = r[sundial_regs::backup_parent];
  f.second_timeout_ps = uint64_t(r[sundial_regs::second_timeout]) * cfg.oscillator_period_ps;
  f.eps_base_ps = r[sundial_regs::eps_base];
  f.eps_base_backup_ps = r[sundial_regs::eps_base_backup];
  return f;
}

// ---- Sundial: the cores of systemc/clock, programmed by a controller ----------------------------

class sundial_sim : public sim {
 public:
  sundial_sim(const world& w, uint8_t index, sync_transport* transport, std::vector<uint32_t>& fault_root)
      : sim(w, clock_algorithm::sundial, index, transport, fault_root),
        live_(w.cfg.sundial_live_registers),
        from_regs_(live_ || !w.cfg.sundial_writes.empty()),
        regs_(w.n) {}

  // A register write as device x.node takes it (live registers): the device acts on its block
  // when the controller has finished (controller_now), as after the first programming.
  void register_write(const sundial_reg_write& x) { take(x); }
  // The STATE register of device u (switch or host NIC).
  uint32_t state(uint32_t u) const {
    if (u >= w_.n) return sundial_regs::state_evicted;
    if (unit_.empty() || dead_[u]) return sundial_regs::state_evicted;
    if (unit_[u]->current_mode() == sundial_unit::mode::evicted) return sundial_regs::state_evicted;
    if (unit_[u]->current_mode() == sundial_unit::mode::root) return sundial_regs::state_root;
    return uint32_t(fw_[u]->state());
  }

 private:
  bool self_scheduled_controller() const override { return !live_; }
  void start() override {
    g_ = w_.graph0;
    plan_ = w_.plan0;
    max_depth_backup_ = plan_.ok() ? plan_.max_depth_backup : 0;
    ctrl_down_ = link_down_;
    ctrl_dead_.assign(w_.n, 0);
    unit_.resize(w_.n);
    fw_.resize(w_.n);
    timer_.assign(w_.n, never);
    was_evicted_.assign(w_.n, 0);
    if (!plan_.ok()) sanitize();
    load_registers();
    for (uint32_t u = 0; u < w_.n; ++u) build_unit(u, 0);
    for (uint32_t u = 0; u < w_.n; ++u) arm(u);
  }

  // Replayed registers: the writes the fabric's sundial_controller made up to now.
  void load_registers() {
    const auto& log = cfg_.sundial_writes;
    for (; next_write_ < log.size() && log[next_write_].at_ps <= now_; ++next_write_)
      take(log[next_write_]);
  }
  void take(const sundial_reg_write& x) {
    if (x.node >= regs_.size() || !regs_[x.node].write(x.offset, x.value))
      throw std::invalid_argument(fmt::format("clock network: bad Sundial register write 0x{:08x} to node {}", x.offset, x.node));
  }

  // Without a complete plan the backup parents are not safe to use: run without them.
  void sanitize() {
    std::fill(plan_.backup_parent.begin(), plan_.backup_parent.end(), backup_plan::none);
    plan_.backup_root = backup_plan::none;
  }

  // The configuration of device u (switch or host); member = it is in the plan. From its own
  // register block when the fabric's controller wrote them, else from this layer's own plan.
  sundial_firmware_config fw_config(uint32_t u, bool& member) const {
    if (!from_regs_) return plan_config(w_, plan_, ctrl_down_, u, member);
    return regs_config(regs_[u], w_.is_switch(u), cfg_, member);
  }
  std::vector<uint32_t> tx_ports(uint32_t u) const {
    std::vector<uint32_t> out;
    if (!w_.is_switch(u)) return out;
    const uint32_t s = w_.sw_of[u];
    const auto& nd = w_.topo.nodes[u];
    for (uint32_t p = 0; p < nd.port_link.size(); ++p) {
      const unsigned li = nd.port_link[p];
      const uint32_t v = w_.other(li, u);
      if (ctrl_down_[li] || ctrl_dead_[v]) continue;
      if (w_.is_switch(v) && from_regs_) {   // children: the switches whose (backup) parent port faces u
        const sundial_regs& r = regs_[v];
        if (r[sundial_regs::root] || !r[sundial_regs::valid] || w_.link_between(u, v, ctrl_down_) != li) continue;
        const uint32_t vp = w_.port_on(li, v);
        if (r[sundial_regs::parent] == vp || r[sundial_regs::backup_parent] == vp) out.push_back(p);
      } else if (w_.is_switch(v)) {   // primary and backup children [L1444], on the link they listen to
        const uint32_t c = w_.sw_of[v];
        if (c == plan_.root || !plan_.member(c) || w_.link_between(u, v, ctrl_down_) != li) continue;
        if (plan_.parent[c] == s || plan_.backup_parent[c] == s) out.push_back(p);
      } else {
        out.push_back(p);
      }
    }
    return out;
  }
  void build_unit(uint32_t u, uint64_t t) {
    bool member = false;
    sundial_firmware_config f = fw_config(u, member);
    if (f.primary_parent == no_port) f.primary_parent = 0;
    sundial_unit_config c;
    c.root = f.root;
    c.ports = uint32_t(w_.topo.nodes[u].port_link.size());
    c.parent_port = f.root ? 0 : f.primary_parent;
    c.tx_ports = tx_ports(u);
    c.sync_interval_ps = cfg_.sync_interval_ps;
    c.first_timeout_ps = cfg_.first_timeout_ps;
    c.eps_per_hop_ps = cfg_.eps_per_hop_ps;
    c.max_drift_ppb = cfg_.max_drift_ppb;
    fw_[u].reset();
    unit_[u] = std::make_unique<sundial_unit>(c, *osc_[u], t);
    for (uint32_t p = 0; p < c.ports; ++p) unit_[u]->set_link_delay(p, std::max<int64_t>(w_.measured[u][p], 0));
    fw_[u] = std::make_unique<sundial_firmware>(f, *unit_[u]);
    timer_[u] = never;
  }

  void arm(uint32_t u) {
    if (dead_[u]) return;
    const uint64_t t = unit_[u]->next_event_ps();
    if (t == never) {
      timer_[u] = never;
      return;
    }
    const uint64_t at = std::max(t, now_);
    if (at != timer_[u]) push({at, 0, kind::timer, u, 0, 0, 0, 0});
    timer_[u] = at;
  }
  // The unit's sends and interrupts due by t, handed to the firmware.
  void poll(uint32_t u, uint64_t t) {
    for (;;) {
      const std::vector<sundial_event> evs = unit_[u]->advance(t);
      if (evs.empty()) return;
      for (const sundial_event& e : evs) {
        const int64_t eps = e.what == sundial_event::kind::second_timeout ? epsilon(u, e.at_ps) : no_bound;
        fw_[u]->on_event(e);
        if (e.what == sundial_event::kind::send) transmit(u, e.at_ps, unit_[u]->tx_ports(), u, std::max(e.at_ps, now_));
        if (e.what == sundial_event::kind::second_timeout && fw_[u]->state() == firmware_state::root) {
          cur_root_ = u;   // elected [L1431]: its clock is the reference from now on
          synced(u, now_, eps, u, now_);
        }
      }
    }
  }
  void on_timer(uint32_t u, uint64_t t) override {
    if (timer_[u] != t) return;   // superseded
    timer_[u] = never;
    poll(u, t);
    arm(u);
  }
  void on_arrival(uint32_t v, uint32_t port, int64_t ts, uint32_t epoch, uint64_t root_sent) override {
    sundial_unit& un = *unit_[v];
    poll(v, now_);
    if (un.current_mode() == sundial_unit::mode::member && port == un.parent_port()) check(v, now_);
    const sundial_rx rx = un.on_sync(now_, port, ts);
    fw_[v]->on_rx(now_, port, rx);
    if (rx.verdict == sundial_verdict::valid) {
      synced(v, now_, rx.epsilon_ps == sundial_unit::unbounded ? no_bound : rx.epsilon_ps, epoch, root_sent);
      transmit(v, now_ + cfg_.forward_delay_ps, rx.forward, epoch, root_sent);
    } else if (rx.verdict == sundial_verdict::invalid) {
      ++invalid_;
    }
    if (un.current_mode() == sundial_unit::mode::evicted && !was_evicted_[v]) {
      was_evicted_[v] = 1;
      gone(v);
    }
    arm(v);
  }
  void on_clock_broken(uint32_t u) override { arm(u); }   // its edges moved

  // The controller: after its delay it replans over what it knows is down and reprograms the
  // devices whose configuration changed [L1444]. A broken clock is taken out of the plan.
  void on_controller(const resolved_fault& f, const std::vector<uint32_t>& nodes) override {
    for (unsigned li : f.links) {   // parallel links stay one adjacency while one is up
      ctrl_down_[li] = 1;
      if (w_.edge_of_link[li] != none) g_.edges[w_.edge_of_link[li]].failed = true;
    }
    for (uint32_t u : nodes) {
      ctrl_dead_[u] = 1;
      if (w_.is_switch(u)) g_.failed[w_.sw_of[u]] = 1;
      if (f.f.what == clock_fault::kind::broken_clock && unit_[u]->current_mode() != sundial_unit::mode::evicted) {
        unit_[u]->evict(now_);
        was_evicted_[u] = 1;
      }
    }
    for (uint32_t u = 0; u < w_.n; ++u)   // devices that evicted themselves are out too
      if (w_.is_switch(u) && unit_[u]->current_mode() == sundial_unit::mode::evicted) g_.failed[w_.sw_of[u]] = 1;
    // The root stays unless it is out; then the device that elected itself, the old backup root,
    // or the first live switch.
    uint32_t r = plan_.root;
    if (!g_.live(r)) {
      r = none;
      for (uint32_t s = 0; s < g_.nodes() && r == none; ++s)
        if (g_.live(s) && !dead_[w_.node_of_switch(s)] && unit_[w_.node_of_switch(s)]->current_mode() == sundial_unit::mode::root) r = s;
      if (r == none && plan_.backup_root != backup_plan::none && g_.live(plan_.backup_root)) r = plan_.backup_root;
      for (uint32_t s = 0; s < g_.nodes() && r == none; ++s)
        if (g_.live(s)) r = s;
      if (r == none) return;
    }
    plan_ = compute_backup_plan(g_, r);
    ++replans_;
    if (!plan_.ok()) sanitize();
    else max_depth_backup_ = std::max(max_depth_backup_, plan_.max_depth_backup);
    plan_statuses_.push_back(plan_status_name(plan_.status));
    load_registers();
    for (uint32_t u = 0; u < w_.n; ++u) {
      if (dead_[u] || ctrl_dead_[u] || unit_[u]->current_mode() == sundial_unit::mode::evicted) continue;
      bool member = false;
      const sundial_firmware_config c = fw_config(u, member);
      const bool unit_root = unit_[u]->current_mode() == sundial_unit::mode::root;
      if (c.root && !unit_root) {   // made root by the controller
        const int64_t eps = epsilon(u, now_);
        poll(u, now_);
        unit_[u]->become_root(now_);
        fw_[u]->configure(c);
        cur_root_ = u;
        synced(u, now_, eps, u, now_);
        ++reconfigured_;
      } else if (!c.root && unit_root) {   // a second root (split by several failures): demoted
        build_unit(u, now_);
        ++reconfigured_;
      } else if (member) {
        // A device still on its backup parent is put back on the plan's primary too: otherwise
        // it would stay on a path the new plan no longer backs up, and the next failure of
        // that path would strand it until the controller's next reaction.
        const sundial_firmware_config& o = fw_[u]->config();
        if (o.root != c.root || o.primary_parent != c.primary_parent || o.backup_parent != c.backup_parent ||
            o.eps_base_ps != c.eps_base_ps || o.eps_base_backup_ps != c.eps_base_backup_ps ||
            o.first_timeout_ps != c.first_timeout_ps || o.second_timeout_ps != c.second_timeout_ps ||
            fw_[u]->state() != firmware_state::primary) {
          poll(u, now_);
          fw_[u]->configure(c);
          ++reconfigured_;
        }
      }
      const std::vector<uint32_t> tx = tx_ports(u);
      if (tx != unit_[u]->tx_ports()) unit_[u]->set_tx_ports(tx);
    }
    cur_root_ = w_.node_of_switch(plan_.root);
    if (from_regs_)
      for (uint32_t u : w_.topo.switches)
        if (regs_[u][sundial_regs::root] && !dead_[u]) cur_root_ = u;
    for (uint32_t u = 0; u < w_.n; ++u) arm(u);
  }
  bool can_send(uint32_t u) const override { return unit_[u]->current_mode() != sundial_unit::mode::evicted; }
  int64_t epsilon(uint32_t u, uint64_t t) const override {
    if (dead_[u]) return no_bound;
    const int64_t e = unit_[u]->epsilon_ps(t);
    return e == sundial_unit::unbounded ? no_bound : e;
  }
  uint64_t eps_base(uint32_t u) const override { return unit_[u]->eps_base_ps(); }
  uint32_t depth(uint32_t u) const override {
    const uint32_t s = w_.is_switch(u) ? w_.sw_of[u] : w_.sw_of[w_.tor[u]];
    if (!plan_.member(s)) return none;
    return plan_.depth_primary[s] + (w_.is_switch(u) ? 0 : 1);
  }
  bool is_root(uint32_t u) const override { return unit_[u]->current_mode() == sundial_unit::mode::root; }
  bool evicted(uint32_t u) const override { return unit_[u]->current_mode() == sundial_unit::mode::evicted; }
  unsigned parent_link(uint32_t u) const override {
    if (unit_[u]->current_mode() != sundial_unit::mode::member) return none;
    return w_.topo.nodes[u].port_link[unit_[u]->parent_port()];
  }
  bool notified(clock_fault::kind) const override { return true; }
  uint32_t successor_root() const override {
    if (healthy(cur_root_, now_)) return cur_root_;
    if (plan_.backup_root != backup_plan::none) {
      const uint32_t b = w_.node_of_switch(plan_.backup_root);
      if (healthy(b, now_)) return b;
    }
    return lowest_live_switch(now_);
  }
  void finish(nlohmann::json& s) override {
    sundial_counters uc;
    sundial_firmware_counters fc;
    for (uint32_t u = 0; u < w_.n; ++u) {
      uc.timeouts += unit_[u]->counters().timeouts;
      uc.invalid += unit_[u]->counters().invalid;
      const sundial_firmware_counters& c = fw_[u]->counters();
      fc.switches_to_backup += c.switches_to_backup;
      fc.elections += c.elections;
      fc.evictions += c.evictions;
      fc.stranded += c.stranded;
    }
    uint32_t deepest = 0;
    for (uint32_t d : w_.plan0.depth_primary)
      if (d != backup_plan::none) deepest = std::max(deepest, d);
    s["plan_status"] = plan_status_name(w_.plan0.status);
    if (!w_.plan0.ok()) s["plan_reason"] = w_.plan0.reason;
    s["backup_root"] = w_.plan0.backup_root == backup_plan::none ? std::string()
                                                                  : w_.topo.nodes[w_.node_of_switch(w_.plan0.backup_root)].name;
    s["max_switch_depth"] = deepest;   // hosts are one deeper
    s["max_depth_backup"] = max_depth_backup_;
    s["replans"] = replans_;
    s["replan_statuses"] = plan_statuses_;
    s["reconfigured_devices"] = reconfigured_;
    s["first_timeouts"] = uc.timeouts;
    s["switches_to_backup"] = fc.switches_to_backup;
    s["elections"] = fc.elections;
    s["evictions"] = fc.evictions;
    s["stranded_timeouts"] = fc.stranded;
    s["invalid_messages"] = invalid_;
  }

  sync_graph g_;
  backup_plan plan_;
  std::vector<char> ctrl_down_, ctrl_dead_;
  std::vector<std::unique_ptr<sundial_unit>> unit_;
  std::vector<std::unique_ptr<sundial_firmware>> fw_;
  std::vector<uint64_t> timer_;
  std::vector<char> was_evicted_;
  uint32_t max_depth_backup_ = 0, replans_ = 0, reconfigured_ = 0;
  uint64_t invalid_ = 0;
  std::vector<std::string> plan_statuses_;
  bool live_;                         // registers written while the layer runs
  bool from_regs_;                    // configured by the devices' Sundial registers
  std::vector<sundial_regs> regs_;    // by topology node (switches and host NICs)
  size_t next_write_ = 0;
};

// ---- PTP+eps baselines [L1524, L1526] -----------------------------------------------------------
// The root sends every interval; a device steps its clock on a message from its parent and
// forwards it to its children (as Sundial's synchronous messaging, which favours the baseline:
// real boundary clocks resend on their own schedule). eps = eps_base + (now - T_last_msg)
// x max_drift, plus T_recovery for every device that is not a child of the root: it cannot
// know how long its upstream has been cut off (Fig. 3.3, L1168). No validity check and no
// local recovery: after a failure the controller rebuilds the tree after its delay, and a
// device resynchronises at the root's next message. The runs start in steady state, at a
// random phase of the interval (a 2 s interval is longer than most runs).

class ptp_sim : public sim {
 public:
  ptp_sim(const world& w, clock_algorithm alg, uint8_t index, sync_transport* transport, std::vector<uint32_t>& fault_root)
      : sim(w, alg, index, transport, fault_root),
        interval_(alg == clock_algorithm::ptp ? w.cfg.ptp_interval_ps : w.cfg.ptp_fast_interval_ps),
        recovery_(alg == clock_algorithm::ptp ? w.cfg.ptp_recovery_ps : w.cfg.ptp_fast_recovery_ps) {}

 private:
  struct dev {
    unsigned plink = none;            // link to the parent
    uint32_t pport = none;            // this device's port on it
    uint32_t depth = 0;
    bool root_child = false, in_tree = false, synced = false;
    int64_t t_last = 0;               // local time of the last message
    uint64_t arrive = 0;              // a root message's delay to here
    std::vector<uint32_t> tx;         // ports to the children
  };

  void build_tree(uint32_t r) {
    st_.assign(w_.n, dev{});
    for (dev& d : st_) d.synced = false;
    std::vector<char> seen(w_.n, 0);
    std::vector<uint32_t> q{r};
    seen[r] = 1;
    st_[r].in_tree = true;
    for (size_t h = 0; h < q.size(); ++h) {
      const uint32_t u = q[h];
      if (!w_.is_switch(u)) continue;
      for (unsigned li : w_.topo.nodes[u].port_link) {
        const uint32_t v = w_.other(li, u);
        if (seen[v] || ctrl_dead_[v] || ctrl_down_[li] || w_.link_between(u, v, ctrl_down_) != li) continue;
        seen[v] = 1;
        dev& d = st_[v];
        d.in_tree = true;
        d.plink = li;
        d.pport = w_.port_on(li, v);
        d.depth = st_[u].depth + 1;
        d.root_child = u == r;
        d.arrive = st_[u].arrive + (u == r ? 0 : cfg_.forward_delay_ps) + w_.latency[li];
        st_[u].tx.push_back(w_.port_on(li, u));
        q.push_back(v);
      }
    }
    for (dev& d : st_) std::sort(d.tx.begin(), d.tx.end());
  }
  void start() override {
    ctrl_down_ = link_down_;
    ctrl_dead_.assign(w_.n, 0);
    root_ = w_.root;
    build_tree(root_);
    // Steady state at t = 0: the root sent its last message phi ago; every device took it (or,
    // if it is still on its way, the one before) `back` ago, and its clock is off the root's by
    // what their rates made of `back`.
    rng r(cfg_.seed * 0x9E3779B97F4A7C15ull + uint64_t(alg_));
    phase_ = r.below(interval_);
    const int64_t root_local = osc_[root_]->local_ps(0);
    const int64_t root_ppb = osc_[root_]->ppb_at(0);
    for (uint32_t u = 0; u < w_.n; ++u) {
      if (u == root_ || !st_[u].in_tree) continue;
      int64_t back = int64_t(phase_) - int64_t(st_[u].arrive);
      while (back < 0) back += int64_t(interval_);
      const i128 drift = i128(osc_[u]->ppb_at(0) - root_ppb) * i128(back) / 1'000'000'000;
      osc_[u]->adjust(root_local + int64_t(drift) - osc_[u]->local_ps(0));
      st_[u].synced = true;
      st_[u].t_last = osc_[u]->local_ps(0) - back;   // last_sync_ stays unknown: it was before the run
    }
    next_send_osc_ = osc_[root_]->osc_ps(0) + (interval_ - phase_);
    arm_root();
  }
  void arm_root() {
    if (dead_[root_]) return;
    const uint64_t t = osc_[root_]->true_at_osc(next_send_osc_);
    if (t == oscillator::never) return;
    timer_ = std::max(t, now_);
    push({timer_, 0, kind::timer, root_, 0, 0, 0, 0});
  }
  void on_timer(uint32_t u, uint64_t t) override {
    if (u != root_ || t != timer_) return;
    transmit(u, t, st_[u].tx, u, t);
    next_send_osc_ += interval_;
    arm_root();
  }
  void on_arrival(uint32_t v, uint32_t port, int64_t ts, uint32_t epoch, uint64_t root_sent) override {
    dev& d = st_[v];
    if (v == root_ || port != d.pport) return;
    const int64_t local = osc_[v]->local_ps(now_);
    const int64_t eps = eps_at(v, local);
    judge(v, now_, eps, local - osc_[epoch_[v]]->local_ps(now_));
    const int64_t adjusted = ts + w_.measured[v][port];
    osc_[v]->adjust(adjusted - local);
    d.t_last = adjusted;
    d.synced = true;
    synced(v, now_, eps, epoch, root_sent);
    transmit(v, now_ + cfg_.forward_delay_ps, d.tx, epoch, root_sent);
  }
  void on_clock_broken(uint32_t u) override {
    if (u == root_) arm_root();
  }
  // The controller rebuilds the tree (a new root if the old one is down). It is never told of a
  // broken clock: the baseline has no way to detect one.
  void on_controller(const resolved_fault& f, const std::vector<uint32_t>& nodes) override {
    for (unsigned li : f.links) ctrl_down_[li] = 1;
    for (uint32_t u : nodes) ctrl_dead_[u] = 1;
    const uint32_t old = root_;
    if (ctrl_dead_[root_]) root_ = successor_root();
    if (root_ == none) {
      root_ = old;
      return;
    }
    std::vector<dev> prev = std::move(st_);
    build_tree(root_);
    for (uint32_t u = 0; u < w_.n; ++u) {
      st_[u].synced = prev[u].synced;
      st_[u].t_last = prev[u].t_last;
    }
    ++reconfigurations_;
    if (root_ != old) {
      const int64_t eps = epsilon(root_, now_);
      cur_root_ = root_;
      synced(root_, now_, eps, root_, now_);
      next_send_osc_ = osc_[root_]->osc_ps(now_);   // the new grandmaster sends at once
      arm_root();
    }
  }
  bool can_send(uint32_t) const override { return true; }
  int64_t epsilon(uint32_t u, uint64_t t) const override {
    if (dead_[u]) return no_bound;
    return eps_at(u, u == root_ || !st_[u].synced ? 0 : osc_[u]->local_ps(t));
  }
  // eps for a local clock reading (eps_base + drift since the last message, plus T_recovery).
  int64_t eps_at(uint32_t u, int64_t local) const {
    if (u == root_) return 0;
    const dev& d = st_[u];
    if (!d.synced) return no_bound;
    i128 since = i128(local) - d.t_last + (d.root_child ? 0 : i128(recovery_));
    if (since < 0) since = 0;
    const i128 drift = (since * cfg_.max_drift_ppb + 999'999'999) / 1'000'000'000;
    const i128 depth = d.in_tree ? d.depth : 1;
    return int64_t(depth * cfg_.eps_per_hop_ps + drift);
  }
  uint64_t eps_base(uint32_t u) const override { return uint64_t(st_[u].in_tree ? st_[u].depth : 1) * cfg_.eps_per_hop_ps; }
  uint32_t depth(uint32_t u) const override { return st_[u].in_tree ? st_[u].depth : none; }
  bool is_root(uint32_t u) const override { return u == root_; }
  unsigned parent_link(uint32_t u) const override { return st_[u].in_tree ? st_[u].plink : none; }
  bool notified(clock_fault::kind k) const override { return k != clock_fault::kind::broken_clock; }
  // A designated backup grandmaster: the Sundial plan's backup root, else the first live switch.
  uint32_t successor_root() const override {
    if (!dead_[root_] && !ctrl_dead_[root_]) return root_;
    if (w_.plan0.backup_root != backup_plan::none) {
      const uint32_t b = w_.node_of_switch(w_.plan0.backup_root);
      if (!dead_[b] && !ctrl_dead_[b]) return b;
    }
    for (unsigned s : w_.topo.switches)
      if (!dead_[s] && !ctrl_dead_[s]) return s;
    return none;
  }
  void finish(nlohmann::json& s) override {
    s["interval_us"] = us(interval_);
    s["recovery_term_us"] = us(recovery_);
    s["start_phase_us"] = us(phase_);
    s["reconfigurations"] = reconfigurations_;
  }

  uint64_t interval_, recovery_, phase_ = 0;
  std::vector<dev> st_;
  std::vector<char> ctrl_down_, ctrl_dead_;
  uint32_t root_ = none;
  int64_t next_send_osc_ = 0;
  uint64_t timer_ = never;
  uint32_t reconfigurations_ = 0;
};

}  // namespace

void check_clock_network(const topology& topo, const clock_network_config& cfg) {
  world w(topo, cfg);
  build_world(w, false);
}

struct sundial_planner::impl {
  world w;
  sync_graph g;
  backup_plan plan;
  std::vector<char> down, dead;
  std::vector<sundial_regs> regs, host_regs;
  impl(const topology& t, const clock_network_config& c) : w(t, c) {}
  void program() {
    if (!plan.ok()) {   // without a complete plan the backup parents are not safe to use
      std::fill(plan.backup_parent.begin(), plan.backup_parent.end(), backup_plan::none);
      plan.backup_root = backup_plan::none;
    }
    for (uint32_t s = 0; s < regs.size(); ++s) {
      bool member = false;
      const sundial_firmware_config f = plan_config(w, plan, down, w.node_of_switch(s), member);
      regs[s] = plan_regs(f, member, w.cfg.oscillator_period_ps);
    }
    for (uint32_t h = 0; h < host_regs.size(); ++h) {   // a leaf under its switch (plan_config)
      bool member = false;
      const sundial_firmware_config f = plan_config(w, plan, down, w.topo.hosts[h], member);
      host_regs[h] = plan_regs(f, member, w.cfg.oscillator_period_ps);
    }
  }
};

sundial_planner::sundial_planner(const topology& topo, const clock_network_config& cfg)
    : p_(std::make_unique<impl>(topo, cfg)) {
  build_world(p_->w, false);
  p_->g = p_->w.graph0;
  p_->plan = p_->w.plan0;
  p_->down.assign(topo.links.size(), 0);
  for (unsigned li = 0; li < topo.links.size(); ++li) p_->down[li] = topo.links[li].failed;
  p_->dead.assign(p_->w.n, 0);
  p_->regs.assign(topo.switches.size(), sundial_regs{});
  p_->host_regs.assign(topo.hosts.size(), sundial_regs{});
  p_->program();
}
sundial_planner::~sundial_planner() = default;
const std::vector<sundial_regs>& sundial_planner::registers() const { return p_->regs; }
const std::vector<sundial_regs>& sundial_planner::host_registers() const { return p_->host_regs; }
size_t sundial_planner::faults() const { return p_->w.faults.size(); }
uint64_t sundial_planner::fault_at_ps(size_t i) const { return p_->w.faults.at(i).f.at_ps; }

sundial_planner::observed sundial_planner::learn(size_t i, const std::vector<uint32_t>& state) {
  impl& m = *p_;
  observed seen;
  const resolved_fault& f = m.w.faults.at(i);
  for (unsigned li : f.links) {
    m.down[li] = 1;
    if (m.w.edge_of_link[li] != none) m.g.edges[m.w.edge_of_link[li]].failed = true;
  }
  std::vector<uint32_t> nodes = f.nodes;
  if (f.f.what == clock_fault::kind::root && m.plan.root != backup_plan::none) nodes = {m.w.node_of_switch(m.plan.root)};
  for (uint32_t u : nodes) {
    m.dead[u] = 1;
    if (m.w.is_switch(u)) m.g.failed[m.w.sw_of[u]] = 1;
  }
  for (uint32_t s = 0; s < state.size() && s < m.g.nodes(); ++s)   // evicted themselves
    if (state[s] == sundial_regs::state_evicted && m.g.live(s)) {
      m.g.failed[s] = 1;
      ++seen.evictions;
    }
  uint32_t r = m.plan.root;
  if (r == backup_plan::none || !m.g.live(r)) {
    r = none;
    for (uint32_t s = 0; s < state.size() && s < m.g.nodes() && r == none; ++s)
      if (state[s] == sundial_regs::state_root && m.g.live(s)) {
        r = s;
        seen.election = true;
      }
    if (r == none && m.plan.backup_root != backup_plan::none && m.g.live(m.plan.backup_root)) r = m.plan.backup_root;
    for (uint32_t s = 0; s < m.g.nodes() && r == none; ++s)
      if (m.g.live(s)) r = s;
    if (r == none) return seen;
  }
  m.plan = compute_backup_plan(m.g, r);
  m.program();
  return seen;
}

struct clock_layer::impl {
  world w;
  std::vector<uint32_t> fault_root;   // per fault: the device a root fault took down
  std::vector<std::unique_ptr<sim>> sims;
  sundial_sim* sundial = nullptr;
  bool started = false;   // the sims begin at the first advance: after the first register writes
  clock_result out;
  impl(const topology& t, const clock_network_config& c) : w(t, c) {}
};

clock_layer::clock_layer(const topology& topo, const clock_network_config& cfg, sync_transport* transport)
    : p_(std::make_unique<impl>(topo, cfg)) {
  if (cfg.algorithms.empty()) throw std::invalid_argument("clock network: no algorithm to run");
  for (size_t i = 0; i < cfg.algorithms.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (cfg.algorithms[i] == cfg.algorithms[j])
        throw std::invalid_argument(std::string("clock network: algorithm ") + clock_algorithm_name(cfg.algorithms[i]) + " listed twice");
  if (cfg.sync_interval_ps < 1 || cfg.first_timeout_ps < 1 || cfg.ptp_interval_ps < 1 || cfg.ptp_fast_interval_ps < 1)
    throw std::invalid_argument("clock network: intervals and timeouts must be at least 1 ps");
  impl& m = *p_;
  build_world(m.w, true);
  m.fault_root.assign(m.w.faults.size(), none);
  for (size_t i = 0; i < cfg.algorithms.size(); ++i) {
    const clock_algorithm a = cfg.algorithms[i];
    if (a == clock_algorithm::sundial) {
      auto s = std::make_unique<sundial_sim>(m.w, uint8_t(i), transport, m.fault_root);
      m.sundial = s.get();
      m.sims.push_back(std::move(s));
    } else {
      m.sims.push_back(std::make_unique<ptp_sim>(m.w, a, uint8_t(i), transport, m.fault_root));
    }
  }
}

clock_layer::~clock_layer() = default;

uint64_t clock_layer::next_event_ps() const {
  if (!p_->started) return 0;
  uint64_t t = never;
  for (const auto& s : p_->sims) t = std::min(t, s->next_time());
  return t;
}

void clock_layer::advance(uint64_t now_ps) {
  if (!p_->started) {
    p_->started = true;
    for (auto& s : p_->sims) s->begin();
  }
  for (auto& s : p_->sims) s->advance(now_ps);
}

int64_t clock_layer::stamp(const sync_header& m, uint64_t egress_ps) const {
  return p_->sims.at(m.algorithm)->stamp(m.sender, egress_ps);
}

void clock_layer::arrive(uint32_t node, uint32_t port, const sync_header& m, uint64_t now_ps) {
  advance(now_ps);
  p_->sims.at(m.algorithm)->arrive(node, port, m, now_ps);
}

void clock_layer::sample(uint64_t now_ps) {
  advance(now_ps);
  for (auto& s : p_->sims) s->sample(now_ps);
  p_->out.t_ps.push_back(now_ps);
}

void clock_layer::register_write(const sundial_reg_write& w) {
  if (p_->sundial) p_->sundial->register_write(w);
}

uint32_t clock_layer::sundial_state(uint32_t node) const {
  return p_->sundial ? p_->sundial->state(node) : uint32_t(sundial_regs::state_evicted);
}

void clock_layer::sundial_programmed(size_t fault, uint64_t now_ps) {
  advance(now_ps);
  if (p_->sundial) p_->sundial->controller_now(uint32_t(fault), now_ps);
}

uint32_t clock_layer::root_node() const { return p_->sims.front()->current_root(); }
size_t clock_layer::faults() const { return p_->w.faults.size(); }
uint64_t clock_layer::fault_at_ps(size_t i) const { return p_->w.faults.at(i).f.at_ps; }

std::vector<unsigned> clock_layer::fault_links(size_t i) const {
  const resolved_fault& f = p_->w.faults.at(i);
  if (f.f.what == clock_fault::kind::broken_clock) return {};
  if (f.f.what == clock_fault::kind::link) return f.links;
  std::vector<uint32_t> nodes = f.nodes;
  if (f.f.what == clock_fault::kind::root) nodes = {p_->fault_root[i] != none ? p_->fault_root[i] : root_node()};
  std::vector<unsigned> out;
  for (uint32_t u : nodes) out.insert(out.end(), p_->w.topo.nodes[u].port_link.begin(), p_->w.topo.nodes[u].port_link.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

clock_result clock_layer::finish(uint64_t end_ps) {
  impl& m = *p_;
  const topology& topo = m.w.topo;
  const clock_network_config& cfg = m.w.cfg;
  end_ps = std::min(end_ps, cfg.duration_ps);
  advance(end_ps);
  clock_result& out = m.out;
  if (!m.w.samples.empty()) out.t_ps = m.w.samples;
  for (const topo_node& nd : topo.nodes) out.devices.push_back(nd.name);
  nlohmann::json& s = out.summary;
  std::vector<std::string> names;
  for (clock_algorithm a : cfg.algorithms) names.push_back(clock_algorithm_name(a));
  s["algorithms"] = names;
  s["root"] = topo.nodes[m.w.root].name;
  s["devices"] = m.w.n;
  s["duration_s"] = double(end_ps) * 1e-12;
  s["sync_interval_us"] = us(cfg.sync_interval_ps);
  s["controller_delay_us"] = us(cfg.controller_delay_ps);
  std::vector<std::string> faults;
  for (const resolved_fault& f : m.w.faults) faults.push_back(f.f.text);
  s["faults"] = faults;
  for (size_t i = 0; i < m.sims.size(); ++i) {
    out.algorithms.push_back(m.sims[i]->end(end_ps));
    s[clock_algorithm_name(cfg.algorithms[i])] = out.algorithms.back().summary;
  }
  return std::move(out);
}

clock_result run_clock_network(const topology& topo, const clock_network_config& cfg) {
  return clock_layer(topo, cfg, nullptr).finish(cfg.duration_ps);
}

}  // namespace netasic
