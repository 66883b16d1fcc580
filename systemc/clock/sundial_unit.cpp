#include "clock/sundial_unit.h"

#include <stdexcept>
#include <string>

namespace netasic {

namespace {

__extension__ typedef __int128 i128;

[[noreturn]] void sundial_fail(const std::string& what) { throw std::invalid_argument("sundial_unit: " + what); }

}  // namespace

int64_t measure_link_delay(int64_t t1a, int64_t t1b, int64_t t2b, int64_t t2a) {
  const i128 rtt = (i128(t2a) - t1a) - (i128(t2b) - t1b);
  i128 d = rtt / 2;
  if (rtt < 0 && rtt % 2 != 0) --d;   // floor, also for a (broken) negative round trip
  return int64_t(d);
}

int64_t sundial_epsilon_ps(uint64_t eps_base_ps, int64_t local_ps, int64_t last_sync_local_ps, uint64_t max_drift_ppb) {
  const i128 since = i128(local_ps) - last_sync_local_ps;
  const i128 drift = since <= 0 ? 0 : (since * max_drift_ppb + 999'999'999) / 1'000'000'000;   // round up
  const i128 eps = i128(eps_base_ps) + drift;
  return eps > i128(sundial_unit_if::unbounded) ? sundial_unit_if::unbounded : int64_t(eps);
}

void sundial_check_config(const sundial_unit_config& cfg, uint64_t start_ps) {
  if (cfg.ports < 1) sundial_fail("ports must be at least 1");
  if (!cfg.root && cfg.parent_port >= cfg.ports)
    sundial_fail("parent_port " + std::to_string(cfg.parent_port) + " >= ports " + std::to_string(cfg.ports));
  if (cfg.sync_interval_ps < 1) sundial_fail("sync_interval_ps must be at least 1");
  sundial_check_first_timeout(cfg.first_timeout_ps);
  if (cfg.max_drift_ppb >= 1'000'000'000) sundial_fail("max_drift_ppb must be below 1e9");
  if (start_ps > oscillator::max_time_ps) sundial_fail("start_ps past oscillator::max_time_ps");
  sundial_check_tx_ports(cfg.tx_ports, cfg.ports);
}

void sundial_check_port(uint32_t port, uint32_t ports, const char* what) {
  if (port >= ports) sundial_fail(std::string(what) + " " + std::to_string(port) + " >= ports " + std::to_string(ports));
}

void sundial_check_tx_ports(const std::vector<uint32_t>& tx, uint32_t ports) {
  for (uint32_t p : tx) sundial_check_port(p, ports, "tx_ports entry");
}

sundial_unit_factory& sundial_unit_rtl_factory() {
  static sundial_unit_factory f;
  return f;
}

std::unique_ptr<sundial_unit_if> sundial_unit_unit(const sundial_unit_config& cfg, oscillator& clock, uint64_t start_ps) {
  if (const sundial_unit_factory& f = sundial_unit_rtl_factory()) return f(cfg, clock, start_ps);
  return std::make_unique<sundial_unit>(cfg, clock, start_ps);
}

sundial_unit::sundial_unit(const sundial_unit_config& cfg, oscillator& clock, uint64_t start_ps)
    : cfg_(cfg), clk_(&clock), mode_(cfg.root ? mode::root : mode::member), parent_(cfg.parent_port) {
  sundial_check_config(cfg, start_ps);
  tx_ = cfg.tx_ports;
  delay_.assign(cfg.ports, 0);
  interval_cycles_ = cycles_for(cfg.sync_interval_ps);
  timeout_ = sundial_timeout(cycles_for(cfg.first_timeout_ps), clk_->cycles(start_ps));
  eps_base_ = uint64_t(cfg.depth) * cfg.eps_per_hop_ps;
  last_now_ = start_ps;
  if (cfg.root) {
    mode_ = mode::member;   // become_root does the rest
    become_root(start_ps);
  }
}

uint64_t sundial_unit::edge(uint64_t n) const {
  // Edges are recomputed after the oscillator's rate changes (version) only.
  for (const edge_cache& c : cache_)
    if (c.valid && c.n == n && c.version == clk_->version()) return c.t;
  const uint64_t t = clk_->cycle_edge(n);
  cache_[cache_next_] = {true, n, clk_->version(), t};
  cache_next_ = (cache_next_ + 1) % cache_.size();
  return t;
}

uint64_t sundial_unit::first_timeout_deadline_ps() const {
  const uint64_t e = timeout_.first_edge();
  return mode_ != mode::member || e == sundial_timeout::none ? never : edge(e);
}

uint64_t sundial_unit::second_timeout_deadline_ps() const {
  const uint64_t e = timeout_.second_edge();
  return mode_ != mode::member || e == sundial_timeout::none ? never : edge(e);
}

uint64_t sundial_unit::next_event_ps() const {
  if (mode_ == mode::root) return send_now_ ? send_now_at_ : edge(next_send_cycle_);
  const uint64_t a = first_timeout_deadline_ps(), b = second_timeout_deadline_ps();
  return a < b ? a : b;
}

void sundial_unit::check_time(uint64_t now_ps, const char* what) {
  if (now_ps < last_now_)
    throw std::logic_error(std::string("sundial_unit: ") + what + ": time went backwards");
  last_now_ = now_ps;
}

std::vector<sundial_event> sundial_unit::advance(uint64_t now_ps) {
  check_time(now_ps, "advance");
  std::vector<sundial_event> out;
  for (;;) {
    if (mode_ == mode::root) {
      const uint64_t t = send_now_ ? send_now_at_ : edge(next_send_cycle_);
      if (t > now_ps) break;
      if (send_now_) send_now_ = false;
      else next_send_cycle_ += interval_cycles_;
      ++count_.sent;
      out.push_back({sundial_event::kind::send, t});
      continue;
    }
    const uint64_t a = first_timeout_deadline_ps(), b = second_timeout_deadline_ps();
    if (a <= b && a <= now_ps) {
      timeout_.raise_first();
      ++count_.timeouts;
      out.push_back({sundial_event::kind::first_timeout, a});
    } else if (b < a && b <= now_ps) {
      timeout_.raise_second();
      ++count_.second_timeouts;
      out.push_back({sundial_event::kind::second_timeout, b});
    } else {
      break;
    }
  }
  return out;
}

int64_t sundial_unit::epsilon_ps(uint64_t now_ps) const {
  if (mode_ == mode::root) return 0;
  if (mode_ == mode::evicted || !synced_) return unbounded;
  return sundial_epsilon_ps(eps_base_, clk_->local_ps(now_ps), t_last_sync_, cfg_.max_drift_ppb);
}

uint64_t sundial_unit::timeout_counter(uint64_t now_ps) const {
  if (mode_ != mode::member) return 0;
  return timeout_.counter(clk_->cycles(now_ps));
}

sundial_rx sundial_unit::on_sync(uint64_t now_ps, uint32_t port, int64_t tx_local_ps) {
  check_time(now_ps, "on_sync");
  if (next_event_ps() <= now_ps) throw std::logic_error("sundial_unit: on_sync before advance(now): an event is due");
  ++count_.received;
  sundial_rx rx{sundial_verdict::ignored, 0, 0, {}};
  if (mode_ != mode::member || port != parent_) {
    ++count_.ignored;
    return rx;
  }
  const int64_t local = clk_->local_ps(now_ps);
  const i128 adjusted = i128(tx_local_ps) + delay_[port];
  const i128 offset = adjusted - local;
  const int64_t eps = epsilon_ps(now_ps);
  rx.epsilon_ps = eps;
  const bool fits = adjusted >= INT64_MIN && adjusted <= INT64_MAX && offset >= INT64_MIN && offset <= INT64_MAX;
  rx.offset_ps = fits ? int64_t(offset) : (offset < 0 ? INT64_MIN : INT64_MAX);
  const i128 mag = offset < 0 ? -offset : offset;
  if (!fits || mag > eps) {
    rx.verdict = sundial_verdict::invalid;
    ++count_.invalid;
    return rx;
  }
  clk_->adjust(int64_t(offset));
  t_last_sync_ = int64_t(adjusted);   // = the local clock right after the step
  synced_ = true;
  timeout_.clear(clk_->cycles(now_ps));   // a message also cancels the backup root's election
  rx.verdict = sundial_verdict::valid;
  rx.forward = tx_;
  ++count_.valid;
  ++count_.forwarded;
  return rx;
}

void sundial_unit::set_parent_port(uint32_t port) {
  sundial_check_port(port, cfg_.ports, "parent_port");
  parent_ = port;
}

void sundial_unit::set_tx_ports(const std::vector<uint32_t>& ports) {
  sundial_check_tx_ports(ports, cfg_.ports);
  tx_ = ports;
}

void sundial_check_link_delay(uint32_t port, int64_t delay_ps, uint32_t ports) {
  sundial_check_port(port, ports, "link delay port");
  if (delay_ps < 0) sundial_fail("link delay must not be negative, got " + std::to_string(delay_ps));
}

void sundial_unit::set_link_delay(uint32_t port, int64_t delay_ps) {
  sundial_check_link_delay(port, delay_ps, cfg_.ports);
  delay_[port] = delay_ps;
}

int64_t sundial_unit::link_delay_ps(uint32_t port) const {
  if (port >= cfg_.ports) throw std::out_of_range("sundial_unit: port " + std::to_string(port) + " >= ports");
  return delay_[port];
}

void sundial_check_first_timeout(uint64_t ps) {
  if (ps < 1) sundial_fail("first_timeout_ps must be at least 1");
}

void sundial_unit::set_first_timeout(uint64_t ps) {
  sundial_check_first_timeout(ps);
  timeout_.set_first(cycles_for(ps));
}

void sundial_unit::arm_second_timeout(uint64_t ps) {
  timeout_.arm_second(cycles_for(ps));
}

void sundial_unit::become_root(uint64_t now_ps) {
  // now_ps is the interrupt's time, which may precede the last advance(): no time check.
  mode_ = mode::root;
  synced_ = true;
  send_now_ = true;
  send_now_at_ = now_ps;
  next_send_cycle_ = clk_->cycles(now_ps) + interval_cycles_;
  timeout_.rearm();
}

void sundial_unit::evict(uint64_t now_ps) {
  check_time(now_ps, "evict");
  mode_ = mode::evicted;
  synced_ = false;
  send_now_ = false;
}

}  // namespace netasic
