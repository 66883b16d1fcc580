// RTL in the loop for a device's Sundial unit (see the header). Built into netasic_cosim, which
// Verilates rtl/ (CMakeLists.txt).
#include "cosim/sundial_unit/sundial_unit_rtl.h"

#include <verilated.h>

#include <deque>
#include <stdexcept>
#include <string>

#include "Vsundial_unit.h"
#include "Vsundial_unit___024root.h"
#include "cosim/harness/dut.h"
#include "cosim/sundial_unit/sundial_unit_drive.h"

// The PORTS Vsundial_unit was Verilated with: the RTL's default unless the build passes -G to
// Verilator and the same value here (Verilator keeps no parameter in the model).
#ifndef SUNDIAL_RTL_PORTS
#define SUNDIAL_RTL_PORTS 64
#endif

namespace netasic {

using namespace cosim::sundial_drive;

namespace {

[[noreturn]] void refuse(const std::string& what) { throw std::invalid_argument("--rtl sundial_unit: " + what); }
// A timeout in oscillator cycles, as its 32-bit register holds it.
uint32_t register_cycles(uint64_t ps, uint64_t period_ps, const char* reg) {
  const uint64_t c = (ps + period_ps - 1) / period_ps;
  if (c > UINT32_MAX)
    refuse(std::string("a timeout of ") + std::to_string(c) + " oscillator cycles does not fit the 32-bit " + reg + " register");
  return uint32_t(c);
}

[[noreturn]] void race(const std::string& what) {
  throw std::logic_error("--rtl sundial_unit: " + what + "; the RTL's answer could differ from the core's, so the run stops");
}

}  // namespace

struct sundial_unit_rtl::impl {
  // A send or interrupt the RTL raised at an edge already clocked, not yet handed over.
  struct raised {
    sundial_event::kind what;
    uint64_t edge;
    uint64_t at_ps;   // the true time to report: the edge's, or the time the unit became root
  };

  cosim::dut<Vsundial_unit> m;
  oscillator* clk;
  uint64_t period_ps;
  rtl_loop_count* loop_count;
  uint64_t n;          // the oscillator edge the RTL was last clocked through
  int64_t adjust0;     // the clock's adjustment when the unit was built: the RTL's register counts from 0
  uint64_t last_now;
  uint32_t first_cycles;   // the FIRST_TIMEOUT register, as last written
  std::deque<raised> ahead;
  // Messages the RTL's registers say it ignores (wrong port, or not a member): they change
  // nothing but its counter, so they wait for an edge whose message port is free instead of
  // taking the cycle a message of the same instant from the parent needs.
  std::deque<std::pair<uint32_t, int64_t>> held;
  mutable sundial_counters count;
  mutable uint64_t next_edge = 0, next_version = 0, next_at = 0;   // next_event_ps's last inverse lookup

  uint64_t edge_time(uint64_t e) const { return clk->cycle_edge(e); }
  uint64_t cycles_for(uint64_t ps) const { return (ps + period_ps - 1) / period_ps; }

  void check_time(uint64_t now_ps, const char* what) {
    if (now_ps < last_now) throw std::logic_error(std::string("sundial_unit: ") + what + ": time went backwards");
    last_now = now_ps;
  }

  // One edge with the ports as set; what it raised is kept. `root_at`: the cycle carried
  // op_root, whose send is reported at that time (o_sends counts it with the periodic one).
  // A held message goes in when the cycle carries no other.
  void clock_edge(bool root, uint64_t root_at) {
    const bool with_held = !m->rx_valid && !held.empty();
    if (with_held) message(*m, held.front().first, held.front().second, 0);
    m.tick();
    ++n;
    if (loop_count) ++loop_count->calls;
    idle(*m);
    if (with_held) {
      if (verdict_of(m->o_verdict) != sundial_verdict::ignored)
        race("a message it had ignored on arrival was taken by the time a cycle was free for it");
      held.pop_front();
    }
    const edge_events e = events_of(*m);
    if (!e.any()) {
      if (root) throw std::logic_error("--rtl sundial_unit: the RTL did not send on becoming root");
      return;
    }
    unsigned sends = e.sends;
    const uint64_t at = edge_time(n);
    if (root) {
      if (sends == 0) throw std::logic_error("--rtl sundial_unit: the RTL did not send on becoming root");
      ahead.push_back({sundial_event::kind::send, n, root_at});
      --sends;
    }
    for (; sends > 0; --sends) ahead.push_back({sundial_event::kind::send, n, at});
    if (e.first) ahead.push_back({sundial_event::kind::first_timeout, n, at});
    if (e.second) ahead.push_back({sundial_event::kind::second_timeout, n, at});
  }

  // Every edge up to `edge`, idle; with `stop`, only up to the first that raises something.
  void clock_to(uint64_t edge, bool stop) {
    idle(*m);
    while (n < edge) {
      const uint64_t k = edges_to_clock(edge - n);
      if (k > 1) {   // all but the last in one step; the last clocked, which refreshes the outputs
        auto& r = *m->rootp;
        r.sundial_unit__DOT__count += k - 1;
        r.sundial_unit__DOT__send_left -= k - 1;
        n += k - 1;
        if (loop_count) loop_count->quiet_cycles_skipped += k - 1;
      }
      clock_edge(false, 0);
      if (stop && !ahead.empty()) return;
    }
  }
  // The next `most` edges up to and including the first that may do something: the next send or
  // interrupt the RTL itself names (o_next_event, 0 for none). 1 unless the edges before it are
  // quiet: no message, command or register access in them, and the last edge's outputs at rest
  // (no verdict, send, interrupt, error or read). At a quiet edge only the timeout counter (+1)
  // and the send timer (-1) change (rtl/sundial_unit.sv), so j of them are the two moved by j.
  uint64_t edges_to_clock(uint64_t most) const {
    if (!held.empty() || m->o_verdict || m->o_offset || m->o_forward || m->o_cmd_err || m->o_sends ||
        m->o_first_timeout || m->o_second_timeout || m->o_csr_ok || m->o_csr_rdata)
      return 1;
    const uint64_t d = m->o_next_event;
    return d == 0 || d > most ? most : d;
  }

  // Clocks up to the edge before the cycle of true time t and says whether that cycle is
  // already behind the RTL (an earlier call of the same instant took it).
  bool place(uint64_t t) {
    const uint64_t c = cycle_of(*clk, t);
    clock_to(c - 1, false);
    return n >= c;
  }

  // A command at true time t in the next cycle the RTL has. `timers`: it can change when a send
  // or interrupt is raised, so an edge clocked since t that raised one is a race.
  void command(uint8_t opcode, uint32_t port, uint64_t data, uint64_t t, bool timers, const char* what) {
    const uint64_t c = cycle_of(*clk, t);
    if (place(t)) {
      if (opcode == op_root) race(std::string(what) + " came " + std::to_string(n + 1 - c) + " edges late (the send period would shift)");
      if (timers)
        for (const raised& r : ahead)
          if (r.edge >= c) race(std::string(what) + " came after the RTL had already raised an event it could change");
    }
    idle(*m);
    cosim::sundial_drive::command(*m, opcode, port, data);
    clock_edge(opcode == op_root, t);
    if (m->o_cmd_err) throw std::logic_error(std::string("--rtl sundial_unit: the RTL refused ") + what);
  }

  // After a timeout's command: the RTL raises it at the first edge whose count passes `due`, so
  // a timeout written below what the counter already read is raised at the edge of the write,
  // where the core raises it at the edge the counter passed it, already behind.
  void timeout_written(sundial_event::kind kind, uint64_t due, const char* what) {
    for (const raised& r : ahead) {
      if (r.what != kind || r.edge != n) continue;
      const uint64_t count = m->o_timeout_counter;   // the counter at this edge
      if (count > due + 1) {
        const uint64_t back = count - due - 1;
        race(std::string(what) + " was written below what the counter already read (" + std::to_string(due) +
             " cycles against " + std::to_string(count - 1) + "): the core raises it " + std::to_string(back) +
             (back == 1 ? " edge" : " edges") + " back");
      }
    }
  }
};

uint32_t sundial_unit_rtl::rtl_ports() { return SUNDIAL_RTL_PORTS; }

sundial_unit_rtl::sundial_unit_rtl(const sundial_unit_config& cfg, oscillator& clock, uint64_t start_ps, rtl_loop_count* count)
    : cfg_(cfg), tx_(cfg.tx_ports), eps_base_(uint64_t(cfg.depth) * cfg.eps_per_hop_ps) {
  sundial_check_config(cfg, start_ps);
  if (cfg.ports > rtl_ports())
    refuse("a device has " + std::to_string(cfg.ports) + " ports, but the RTL was Verilated for PORTS = " +
           std::to_string(rtl_ports()) + " (rebuild it with that parameter, or run the core)");
  const uint64_t period = clock.config().period_ps;
  const uint32_t first = register_cycles(cfg.first_timeout_ps, period, "FIRST_TIMEOUT");
  p_ = std::make_unique<impl>();
  impl& s = *p_;
  s.clk = &clock;
  s.period_ps = period;
  s.loop_count = count;
  if (count) s.m.count_cycles(&count->cycles);
  s.n = clock.cycles(start_ps);   // reset leaves the RTL as if it had just taken this edge
  s.adjust0 = clock.adjustment();
  s.last_now = start_ps;
  s.first_cycles = first;
  configure(*s.m, s.cycles_for(cfg.sync_interval_ps), first, uint32_t(cfg.max_drift_ppb));
  s.m.reset();
  // The core's constructor as commands; becoming root first, so that its send period is exact.
  if (cfg.root) s.command(op_root, 0, 0, start_ps, true, "becoming root");
  if (cfg.parent_port != 0) s.command(op_parent, cfg.parent_port, 0, start_ps, false, "the parent port");
  if (!tx_.empty()) s.command(op_tx_mask, 0, mask_of(tx_), start_ps, false, "the tx ports");
  if (eps_base_ != 0) s.command(op_eps_base, 0, eps_base_, start_ps, false, "eps_base");
}

sundial_unit_rtl::~sundial_unit_rtl() = default;

uint64_t sundial_unit_rtl::next_event_ps() const {
  const impl& s = *p_;
  if (!s.ahead.empty()) return s.ahead.front().at_ps;
  const uint64_t d = s.m->o_next_event;
  if (d == 0) return never;
  const uint64_t e = s.n + d;
  if (e != s.next_edge || s.clk->version() != s.next_version || s.next_at == 0) {
    s.next_edge = e;
    s.next_version = s.clk->version();
    s.next_at = s.edge_time(e);
  }
  return s.next_at;
}

std::vector<sundial_event> sundial_unit_rtl::advance(uint64_t now_ps) {
  impl& s = *p_;
  s.check_time(now_ps, "advance");
  // One edge's events at a time: the firmware's answer to them goes into the next cycle.
  if (s.ahead.empty()) s.clock_to(s.clk->cycles(now_ps), true);
  std::vector<sundial_event> out;
  while (!s.ahead.empty() && s.ahead.front().at_ps <= now_ps) {
    out.push_back({s.ahead.front().what, s.ahead.front().at_ps});
    s.ahead.pop_front();
  }
  return out;
}

sundial_rx sundial_unit_rtl::on_sync(uint64_t now_ps, uint32_t port, int64_t tx_local_ps) {
  impl& s = *p_;
  s.check_time(now_ps, "on_sync");
  if (next_event_ps() <= now_ps) throw std::logic_error("sundial_unit: on_sync before advance(now): an event is due");
  sundial_rx rx{sundial_verdict::ignored, 0, 0, {}};
  if (current_mode() != mode::member || port != parent_port()) {
    s.held.emplace_back(port, tx_local_ps);
    return rx;
  }
  rx.epsilon_ps = epsilon_ps(now_ps);   // before the message moves T_last_sync
  // A second message from the parent in one cycle is checked an edge late, which changes
  // nothing unless it is valid and clears the timeout counter.
  const uint64_t late = s.place(now_ps) ? s.n + 1 - cycle_of(*s.clk, now_ps) : 0;
  idle(*s.m);
  message(*s.m, port, tx_local_ps, uint64_t(int64_t(s.clk->osc_ps(now_ps)) + s.adjust0));
  s.clock_edge(false, 0);
  rx.verdict = verdict_of(s.m->o_verdict);
  if (late > 0 && rx.verdict == sundial_verdict::valid)
    race("a valid sync-message came " + std::to_string(late) + " edges after its cycle (the timeout counter would clear late)");
  if (rx.verdict == sundial_verdict::ignored) throw std::logic_error("--rtl sundial_unit: the RTL ignored a message from its parent");
  rx.offset_ps = int64_t(s.m->o_offset);
  if (rx.verdict == sundial_verdict::valid) {
    s.clk->adjust(rx.offset_ps);   // the device's clock steps with the RTL's adjustment register
    if (s.clk->adjustment() != s.adjust0 + int64_t(s.m->o_adjust))
      throw std::logic_error("--rtl sundial_unit: the device's clock was adjusted outside its Sundial unit");
    rx.forward = ports_of(s.m->o_forward);
  }
  return rx;
}

int64_t sundial_unit_rtl::epsilon_ps(uint64_t now_ps) const {
  const impl& s = *p_;
  const mode md = current_mode();
  if (md == mode::root) return 0;
  if (md == mode::evicted || !s.m->o_synced) return unbounded;
  return sundial_epsilon_ps(eps_base_, s.clk->local_ps(now_ps), int64_t(s.m->o_last_sync), cfg_.max_drift_ppb);
}

void sundial_unit_rtl::set_parent_port(uint32_t port) {
  sundial_check_port(port, cfg_.ports, "parent_port");
  p_->command(op_parent, port, 0, p_->last_now, false, "the parent port");
}

void sundial_unit_rtl::set_tx_ports(const std::vector<uint32_t>& ports) {
  sundial_check_tx_ports(ports, cfg_.ports);
  tx_ = ports;
  p_->command(op_tx_mask, 0, mask_of(ports), p_->last_now, false, "the tx ports");
}

void sundial_unit_rtl::set_eps_base(uint64_t ps) {
  eps_base_ = ps;
  p_->command(op_eps_base, 0, ps, p_->last_now, false, "eps_base");
}

void sundial_unit_rtl::set_link_delay(uint32_t port, int64_t delay_ps) {
  sundial_check_link_delay(port, delay_ps, cfg_.ports);
  p_->command(op_link_delay, port, uint64_t(delay_ps), p_->last_now, false, "a link delay");
}

void sundial_unit_rtl::set_first_timeout(uint64_t ps) {
  sundial_check_first_timeout(ps);
  impl& s = *p_;
  s.first_cycles = register_cycles(ps, s.period_ps, "FIRST_TIMEOUT");
  s.command(op_first, 0, s.first_cycles, s.last_now, true, "the first timeout");
  s.timeout_written(sundial_event::kind::first_timeout, s.first_cycles, "the first timeout");
}

void sundial_unit_rtl::arm_second_timeout(uint64_t ps) {
  impl& s = *p_;
  const uint32_t second = register_cycles(ps, s.period_ps, "SECOND_TIMEOUT");
  s.command(op_second, 0, second, s.last_now, true, "the second timeout");
  s.timeout_written(sundial_event::kind::second_timeout, uint64_t(s.first_cycles) + second, "the second timeout");
}

void sundial_unit_rtl::become_root(uint64_t now_ps) {
  // now_ps is the interrupt's time, which may precede the last call, as in the core.
  p_->command(op_root, 0, 0, now_ps, true, "becoming root");
}

void sundial_unit_rtl::evict(uint64_t now_ps) {
  impl& s = *p_;
  s.check_time(now_ps, "evict");
  // The core drops what was due and not yet handed over; the RTL has counted it.
  if (!s.ahead.empty()) race("eviction with a send or interrupt raised and not yet handed over");
  s.command(op_evict, 0, 0, now_ps, true, "the eviction");
}

sundial_unit_if::mode sundial_unit_rtl::current_mode() const { return mode(p_->m->o_mode); }
uint32_t sundial_unit_rtl::parent_port() const { return p_->m->o_parent; }

const sundial_counters& sundial_unit_rtl::counters() const {
  const impl& s = *p_;
  sundial_counters& c = s.count;
  c.valid = s.m->o_valid;
  c.invalid = s.m->o_invalid;
  c.ignored = s.m->o_ignored + s.held.size();
  c.received = c.valid + c.invalid + c.ignored;
  c.forwarded = c.valid;
  // The RTL's counters include what its edges ahead of the caller raised.
  c.sent = s.m->o_sent;
  c.timeouts = s.m->o_timeouts;
  c.second_timeouts = s.m->o_second_timeouts;
  for (const impl::raised& r : s.ahead) {
    if (r.what == sundial_event::kind::send) --c.sent;
    else if (r.what == sundial_event::kind::first_timeout) --c.timeouts;
    else --c.second_timeouts;
  }
  return c;
}

rtl_loop_block sundial_unit_rtl_loop() {
  rtl_loop_block b;   // no scenario key fixes PORTS: each device's port count is checked when the fabric is built
  b.unused = [](const config& c) {
    return c.string("clock.algorithm") == "sundial" ? "" : "it needs clock.algorithm = \"sundial\"";
  };
  b.use = [](rtl_loop&, rtl_loop_count* count) {
    // The clock layer's injection point (systemc/clock/sundial_unit.h), not rtl_loop's.
    sundial_unit_rtl_factory() = [count](const sundial_unit_config& c, oscillator& clock, uint64_t start_ps) {
      return std::make_unique<sundial_unit_rtl>(c, clock, start_ps, count);
    };
  };
  return b;
}

}  // namespace netasic
