// One clock algorithm's run over the clock_world (internal to the clock layer): a small
// discrete-event simulator of its own (the layer runs without SystemC), the failure bookkeeping
// (affected, cut off, recovery, outage, peak epsilon, blast radius) and the bound checks, and the
// algorithm's summary. An algorithm (sundial_sim, ptp_sim) fills in the hooks.
#pragma once
#include <cstdint>
#include <memory>
#include <queue>
#include <vector>

#include <nlohmann/json.hpp>

#include "clock/clock_result.h"
#include "clock/clock_world.h"
#include "clock/oscillator.h"
#include "clock/sync_transport.h"

namespace netasic {

class sync_sim {
 public:
  static constexpr uint32_t none = clock_world::none;
  static constexpr uint64_t never = UINT64_MAX;
  static constexpr int64_t no_bound = clock_result::no_bound;

  // transport: the fabric that carries the messages (null: each takes its link's latency).
  // fault_root: shared by the algorithms, the device a root fault takes down (the first
  // algorithm's root at that time).
  sync_sim(const clock_world& w, clock_algorithm alg, uint8_t index, sync_transport* transport,
           std::vector<uint32_t>& fault_root);
  virtual ~sync_sim() = default;

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
  uint32_t lowest_live_switch(uint64_t t) const;

  // |offset| <= epsilon, for a device with a bound whose reference clock is sound.
  void check(uint32_t u, uint64_t t);
  void judge(uint32_t u, uint64_t t, int64_t eps, int64_t off);
  // A valid sync-message reached u (or u became the root).
  void synced(uint32_t u, uint64_t t, int64_t eps_before, uint32_t epoch, uint64_t root_sent);
  // u no longer survives (down or evicted): it leaves the failures it was waiting on.
  void gone(uint32_t u);

  const clock_world& w_;
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
  void impact(tracked& f, uint32_t u, uint64_t t);
  void apply_fault(uint32_t idx);
  std::vector<char> reachable_from(uint32_t r) const;
  void find_affected(tracked& tr, uint32_t idx);
  void note_peak(uint32_t u, int64_t eps);
  void peak(clock_failure_result& r, uint32_t u, int64_t eps);
  void send(const ev& e);
  void close_failures(uint64_t end_ps);
  void summarise(uint64_t end_ps);

  std::priority_queue<ev, std::vector<ev>, std::greater<ev>> q_;
  uint64_t seq_ = 0;
  std::vector<tracked> fails_;
  std::vector<std::vector<uint32_t>> pending_;   // node -> failures it has not recovered from
  std::vector<double> eps_ns_;
  std::vector<int64_t> local_;
  std::vector<int64_t> by_depth_;   // largest epsilon at each primary depth
  int64_t eps_max_ = 0;
};

}  // namespace netasic
