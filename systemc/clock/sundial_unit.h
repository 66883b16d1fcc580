// Sundial hardware unit of one device (core, no SystemC): Sundial (Li et al., OSDI 2020), §3.4.1
// Sundial Hardware Design (numbered as chapter 3 of Li's thesis).
//
// Root: a counter of oscillator cycles sends a sync-message every sync_interval (§3.4.1.1
// Frequent synchronous messaging); the first one goes out when the device becomes root (so an
// elected backup root recovers in first + second timeout, as in §3.6.1.3).
// Non-root, synchronous messaging (§3.4.1.1): a message from the configured parent port is
// checked (§3.4.1.2 Fast failure detection): the sender's egress timestamp plus the measured
// link delay must lie within the local epsilon of the local clock at receipt. Valid: the clock
// steps by the offset, T_last_sync is set, the timeout counter clears, and the message is
// forwarded on tx_ports (primary and backup children, §3.4.3). Invalid: nothing changes (the
// timeout counter keeps counting, so a broken parent ends in a timeout). Messages from other
// ports are ignored.
// Timeout (§3.4.1.2): the sundial_timeout unit, its counter and its two interrupts.
// Epsilon, Eq. 3.1 (§3.3.1; §3.4.1.3 Time-uncertainty bound calculation): eps = eps_base +
// (now - T_last_sync) * max_drift_rate, in local ps, the drift term rounded up so the bound is
// never below the truth.
//
// Event-driven: nothing runs per cycle. next_event_ps() gives the true time of the next
// hardware action (a send or an interrupt), computed from the oscillator's edges; the fabric
// schedules one event there and calls advance(). Edge times follow the oscillator, not the
// local clock, so a correction never moves them.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "clock/oscillator.h"
#include "clock/sundial_timeout.h"

namespace netasic {

struct sundial_unit_config {
  bool root = false;                     // starts as the primary root
  uint32_t ports = 1;                    // ports 0 .. ports-1
  uint32_t parent_port = 0;              // primary parent (non-root)
  std::vector<uint32_t> tx_ports;        // where sends and forwards go (primary + backup children)
  uint64_t sync_interval_ps = 90'000'000;     // 90 us, the testbed (§3.6.1.1)
  uint64_t first_timeout_ps = 185'000'000;    // 185 us (> 2 x interval, §3.6.1.1)
  uint32_t depth = 1;                    // primary depth: eps_base = depth * eps_per_hop_ps
  uint64_t eps_per_hop_ps = 5'000;       // 5 ns per hop (§3.4.1.3)
  uint64_t max_drift_ppb = 200'000;      // 200 ppm (§3.4.1.3)
};

struct sundial_event {
  enum class kind { send, first_timeout, second_timeout };
  kind what;
  uint64_t at_ps;                        // true time of the edge (or of becoming root)
};

enum class sundial_verdict { valid, invalid, ignored };

struct sundial_rx {
  sundial_verdict verdict;
  int64_t offset_ps = 0;                 // (tx + delay) - local at receipt (valid and invalid)
  int64_t epsilon_ps = 0;                // the bound it was checked against
  std::vector<uint32_t> forward;         // valid: the ports to send on (the fabric stamps egress)
};

struct sundial_counters {
  uint64_t sent = 0;                     // root sends (each goes out on every tx port)
  uint64_t received = 0;                 // every message offered to on_sync
  uint64_t valid = 0;
  uint64_t invalid = 0;
  uint64_t ignored = 0;                  // wrong port, root, evicted
  uint64_t forwarded = 0;                // valid messages forwarded
  uint64_t timeouts = 0;                 // first-timeout interrupts
  uint64_t second_timeouts = 0;
};

// Fig. 3.1 (§3.3.1): A sends at T1A (A's clock), B receives at T1B; B sends at T2B, A receives
// at T2A. d = ((T2A - T1A) - (T2B - T1B)) / 2, floored to whole ps.
int64_t measure_link_delay(int64_t t1a, int64_t t1b, int64_t t2b, int64_t t2a);

// Eq. 3.1's bound for a synced member: eps_base + ceil(max(local - T_last_sync, 0) * drift / 1e9),
// saturated at sundial_unit_if::unbounded. One formula for the core and the RTL's adapter.
int64_t sundial_epsilon_ps(uint64_t eps_base_ps, int64_t local_ps, int64_t last_sync_local_ps, uint64_t max_drift_ppb);
// The checks of sundial_unit's constructor and setters, shared with the RTL's adapter: each
// throws std::invalid_argument naming the field.
void sundial_check_config(const sundial_unit_config& cfg, uint64_t start_ps);
void sundial_check_port(uint32_t port, uint32_t ports, const char* what);
void sundial_check_tx_ports(const std::vector<uint32_t>& tx, uint32_t ports);
void sundial_check_link_delay(uint32_t port, int64_t delay_ps, uint32_t ports);
void sundial_check_first_timeout(uint64_t ps);

// The calls the clock layer (sundial_sim, sundial_firmware) makes on a device's Sundial unit:
// the core below answers them, or with `--rtl sundial_unit` the Verilated rtl/sundial_unit.sv.
class sundial_unit_if {
 public:
  enum class mode { root, member, evicted };
  static constexpr uint64_t never = UINT64_MAX;
  static constexpr int64_t unbounded = INT64_MAX;   // epsilon of a clock that was never synced

  virtual ~sundial_unit_if() = default;

  // True time of the next send or interrupt, or never.
  virtual uint64_t next_event_ps() const = 0;
  // Performs the sends and interrupts due at or before now, in time order. Called until it
  // returns none: a unit may hand them over in several parts.
  virtual std::vector<sundial_event> advance(uint64_t now_ps) = 0;
  // A sync-message arriving at now on `port`, carrying the sender's egress timestamp. Call
  // advance(now) first: an event due at or before now throws std::logic_error. A device that
  // was never synchronised (epsilon unbounded) takes the first message from its parent.
  // Invalid results are the firmware's broken-clock interrupt (sundial_firmware::on_rx).
  virtual sundial_rx on_sync(uint64_t now_ps, uint32_t port, int64_t tx_local_ps) = 0;
  // Eq. 3.1 at true time now (0 for the root, unbounded if never synced or evicted).
  virtual int64_t epsilon_ps(uint64_t now_ps) const = 0;

  // Firmware and controller controls (see sundial_unit).
  virtual void set_parent_port(uint32_t port) = 0;
  virtual void set_tx_ports(const std::vector<uint32_t>& ports) = 0;
  virtual void set_eps_base(uint64_t ps) = 0;
  virtual void set_link_delay(uint32_t port, int64_t delay_ps) = 0;
  virtual void set_first_timeout(uint64_t ps) = 0;
  virtual void arm_second_timeout(uint64_t ps) = 0;
  virtual void become_root(uint64_t now_ps) = 0;
  virtual void evict(uint64_t now_ps) = 0;

  virtual mode current_mode() const = 0;
  virtual uint32_t parent_port() const = 0;
  virtual const std::vector<uint32_t>& tx_ports() const = 0;
  virtual uint64_t eps_base_ps() const = 0;
  virtual const sundial_counters& counters() const = 0;
  virtual const sundial_unit_config& config() const = 0;   // as constructed
};

class sundial_unit : public sundial_unit_if {
 public:
  // `clock` must outlive the unit. Throws std::invalid_argument naming the field.
  sundial_unit(const sundial_unit_config& cfg, oscillator& clock, uint64_t start_ps = 0);

  // True time of the next send or interrupt, or never.
  uint64_t next_event_ps() const override;
  // Performs every send and interrupt due at or before now, in time order.
  std::vector<sundial_event> advance(uint64_t now_ps) override;
  sundial_rx on_sync(uint64_t now_ps, uint32_t port, int64_t tx_local_ps) override;

  int64_t epsilon_ps(uint64_t now_ps) const override;
  // The sender's egress timestamp: the local clock.
  int64_t local_ps(uint64_t now_ps) const { return clk_->local_ps(now_ps); }
  // Timeout counter (oscillator cycles since the last valid message) at now.
  uint64_t timeout_counter(uint64_t now_ps) const;
  uint64_t first_timeout_deadline_ps() const;    // never when not pending
  uint64_t second_timeout_deadline_ps() const;   // never when not armed

  // Firmware and controller controls.
  void set_parent_port(uint32_t port) override;
  void set_tx_ports(const std::vector<uint32_t>& ports) override;
  void set_eps_base(uint64_t ps) override { eps_base_ = ps; }
  void set_link_delay(uint32_t port, int64_t delay_ps) override;
  void set_first_timeout(uint64_t ps) override;
  // Raise the second timeout `ps` (rounded up to cycles) after the first one, unless a valid
  // message clears the counter first. ps = 0 disarms.
  void arm_second_timeout(uint64_t ps) override;
  // Root from now_ps on (the second-timeout interrupt's time; it may precede the last
  // advance): a send is due at once, so query next_event_ps() again afterwards.
  void become_root(uint64_t now_ps) override;
  void evict(uint64_t now_ps) override;

  mode current_mode() const override { return mode_; }
  bool synced() const { return synced_; }
  int64_t last_sync_local_ps() const { return t_last_sync_; }
  uint32_t parent_port() const override { return parent_; }
  const std::vector<uint32_t>& tx_ports() const override { return tx_; }
  uint64_t eps_base_ps() const override { return eps_base_; }
  int64_t link_delay_ps(uint32_t port) const;
  uint64_t interval_cycles() const { return interval_cycles_; }
  uint64_t first_timeout_cycles() const { return timeout_.first_cycles(); }
  uint64_t second_timeout_cycles() const { return timeout_.second_cycles(); }
  const sundial_counters& counters() const override { return count_; }
  const sundial_unit_config& config() const override { return cfg_; }   // as constructed
  const oscillator& clock() const { return *clk_; }

 private:
  uint64_t cycles_for(uint64_t ps) const { return (ps + clk_->config().period_ps - 1) / clk_->config().period_ps; }
  uint64_t edge(uint64_t n) const;
  void check_time(uint64_t now_ps, const char* what);

  sundial_unit_config cfg_;
  oscillator* clk_;
  mode mode_;
  uint32_t parent_;
  std::vector<uint32_t> tx_;
  std::vector<int64_t> delay_;
  uint64_t interval_cycles_;
  sundial_timeout timeout_;          // the timeout counter and its two interrupts
  uint64_t eps_base_;
  bool synced_ = false;
  int64_t t_last_sync_ = 0;
  bool send_now_ = false;            // root: the send at becoming root is pending
  uint64_t send_now_at_ = 0;
  uint64_t next_send_cycle_ = 0;     // root: the edge of the next periodic send
  uint64_t last_now_ = 0;
  sundial_counters count_;
  // Edge times are inverse oscillator lookups; the few in use are remembered.
  struct edge_cache { bool valid; uint64_t n, version, t; };
  mutable std::array<edge_cache, 4> cache_{};
  mutable size_t cache_next_ = 0;
};

// RTL in the loop (`netasic run --rtl sundial_unit`, docs/cosim.md). The injection point is
// here, beside the core, and not in blocks/rtl_loop.h: that header sits on a lower layer and
// cannot name the clock layer's types. Empty unless the command line injected the adapter's
// factory, which throws std::invalid_argument when a device's configuration does not fit the
// Verilated parameters.
using sundial_unit_factory =
    std::function<std::unique_ptr<sundial_unit_if>(const sundial_unit_config&, oscillator&, uint64_t start_ps)>;
sundial_unit_factory& sundial_unit_rtl_factory();
// The unit a device holds: its RTL if a factory was injected, else the core.
std::unique_ptr<sundial_unit_if> sundial_unit_unit(const sundial_unit_config& cfg, oscillator& clock, uint64_t start_ps = 0);

}  // namespace netasic
