#include "clock/ptp_sim.h"

#include <algorithm>

#include "common/rng.h"

namespace netasic {

namespace {

__extension__ typedef __int128 i128;

// The root sends every interval; a device steps its clock on a message from its parent and
// forwards it to its children (as Sundial's synchronous messaging, which favours the baseline:
// real boundary clocks resend on their own schedule). eps = eps_base + (now - T_last_msg)
// x max_drift, plus T_recovery for every device that is not a child of the root: it cannot
// know how long its upstream has been cut off (§3.3.2.2 Connectivity failures, Fig. 3.3). No validity check and no
// local recovery: after a failure the controller rebuilds the tree after its delay, and a
// device resynchronises at the root's next message. The runs start in steady state, at a
// random phase of the interval (a 2 s interval is longer than most runs).

class ptp_sim : public sync_sim {
 public:
  ptp_sim(const clock_world& w, clock_algorithm alg, uint8_t index, sync_transport* transport, std::vector<uint32_t>& fault_root)
      : sync_sim(w, alg, index, transport, fault_root),
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
    s["interval_us"] = ps_as_us(interval_);
    s["recovery_term_us"] = ps_as_us(recovery_);
    s["start_phase_us"] = ps_as_us(phase_);
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

std::unique_ptr<sync_sim> make_ptp_sim(const clock_world& w, clock_algorithm alg, uint8_t index, sync_transport* transport,
                                       std::vector<uint32_t>& fault_root) {
  return std::make_unique<ptp_sim>(w, alg, index, transport, fault_root);
}

}  // namespace netasic
