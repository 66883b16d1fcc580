// sundial_unit (rtl/sundial_unit.sv) against the core sundial_unit (with its sundial_timeout) on
// an oscillator, and the register block against sundial_regs. Cycle m of an episode is the
// oscillator's edge m: the core is advanced to that edge's true time, the RTL clocked once.
// A message or command of cycle m happens at a true time t in [edge m-1, edge m): at the
// previous edge itself, inside, or 1 ps before this edge; the RTL gets the oscillator's reading
// at t. One message or one command per cycle; a register access may come with either.
//
// Episodes: each begins with a fresh oscillator (random ppb), a fresh core and a reset RTL, with
// random sync interval, first timeout and max drift, because becoming root or evicted is final.
// Directed episodes first:
//   timeout races: a valid message in the cycle whose edge the first timeout is due at (1 ps and
//     half a cycle before it: the message wins), a valid message exactly at the edge the timeout
//     fired at, an invalid message racing it (the timeout wins), the second timeout raced
//     likewise; a first timeout shrunk below the counter and a second armed in the past
//   back-to-back messages: valid on every cycle, exactly at +-epsilon and 1 ps outside, from the
//     wrong port and from a port past PORTS; becoming root with interval 1 (two sends in one
//     cycle) and with interval 2 and 3, messages to the root, eviction
//   wrap and widths: FIRST_TIMEOUT = 2^32 - 1 with SECOND = 2 (their sum needs 33 bits), stamps
//     at INT64_MAX and INT64_MIN (tx + delay and the offset overflow 64 bits: saturated,
//     invalid), an offset of exactly -2^63 (above every epsilon), the first sync stepping the
//     clock to near -2^63, EPS_BASE = 2^64 - 1, epsilon's drift term at max_drift 1e9 - 1
// Then random: messages aimed at +-epsilon +-1 ps or at a random offset, commands of every
// kind (a few refused: a port past PORTS, a negative delay, FIRST = 0), rare root and eviction.
// Compared after every edge: sends, both interrupts, the verdict, offset and forward mask of
// the cycle's message, a refused command, the register access, the mode, synced, the clock's
// adjustment, T_last_sync, the timeout counter, the parent port, the six counters and the
// edges to the next send or interrupt (what the fabric schedules on, in the loop).
// The ports are driven as the adapter in the loop drives them (sundial_unit_drive.h).
#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "clock/oscillator.h"
#include "clock/sundial_regs.h"
#include "clock/sundial_unit.h"
#include "cosim/harness/cosim_bench.h"
#include "cosim/harness/stimulus_rng.h"
#include "cosim/sundial_unit/sundial_unit_drive.h"
#include "Vsundial_unit.h"
#include "Vsundial_unit___024root.h"
#include "Vsundial_unit_set2.h"
#include "Vsundial_unit_set2___024root.h"
#include "rtl_bench_sets.h"

namespace netasic::cosim {
namespace {

__extension__ typedef __int128 i128;
using namespace sundial_drive;

constexpr uint64_t period_ps = 1000;

struct episode_cfg {
  uint64_t interval = 100;        // edges
  uint32_t first = 5;             // edges
  uint32_t max_drift_ppb = 200'000;
  int64_t ppb = 0;
  uint32_t cycles = 0;            // random episodes: length
};

// One cycle's stimulus. `when`: 0 = at the previous edge, 1 = inside the cycle, 2 = 1 ps before
// this edge.
struct action {
  enum kind { idle, msg, cmd, episode } what = idle;
  int when = 1;
  // message: the port (parent_port = the current parent), and its stamp: tx itself, or an
  // offset, or +-(epsilon + delta)
  enum rule { offset, eps_edge, raw } tx_rule = offset;
  bool to_parent = true;
  uint32_t port = 0;
  int64_t value = 0;              // offset, delta (eps_edge, sign in `neg`) or raw tx
  bool neg = false;
  // A raw stamp or an epsilon edge aimed at a device that is not a synced member could step its
  // clock next to +-2^63 (the core's int64 local clock would overflow): outside the directed
  // corners that want it, such a message carries offset `value` instead.
  bool any_state = false;
  // command
  uint8_t opcode = op_none;
  uint32_t cmd_port = 0;
  uint64_t data = 0;
  episode_cfg ep;
};

struct reg_access {
  bool valid = false, write = false;
  uint32_t addr = 0, data = 0;
};

struct expected {
  uint64_t sends = 0, first = 0, second = 0;
  uint64_t verdict = 0, offset = 0, forward = 0, cmd_err = 0, csr_ok = 0, csr_rdata = 0;
};

template <class V, uint32_t ports>   // the RTL's PORTS
class sundial_unit_bench : public bench {
  static_assert(ports >= 1 && ports <= 64, "sundial_unit bench: PORTS must be in [1, 64] (tx_mask is one 64-bit word)");
  static constexpr uint64_t port_mask = ports == 64 ? UINT64_MAX : (uint64_t(1) << (ports % 64)) - 1;

 public:
  void reset(uint64_t seed) override {
    rng_.emplace(seed);
    rtl_ = std::make_unique<dut<V>>();
    script_.clear();
    next_ = 0;
    make_directed();
    core_.reset();
    osc_.reset();
  }

  void step(side s, std::vector<mismatch>& out) override {
    // The directed script, then random cycles drawn one at a time; read in place, not copied.
    const action* a = next_ < script_.size() ? &script_[next_++] : &random_cycle();
    if (a->what == action::episode || !osc_) {
      start_episode(a->what == action::episode ? a->ep : random_episode(), s);
      if (a->what == action::episode) a = &idle_at_[1];
    }
    --left_;
    const uint64_t e_prev = edge_, e_cur = edge_of(++n_);
    edge_ = e_cur;
    const uint64_t t = a->when == 0 ? e_prev : a->when == 2 ? e_cur - 1 : e_prev + rng_->below(e_cur - e_prev);
    const reg_access r = random_access();
    // The message's stamp depends on the unit's state, read from whichever side runs; the
    // oscillator's reading at t is the stamp's base and the RTL's rx_osc.
    int64_t tx = 0;
    uint32_t port = 0;
    uint64_t osc_t = 0;
    if (a->what == action::msg) {
      port = a->to_parent ? parent_ : a->port;
      osc_t = osc_->osc_ps(t);
      tx = stamp(*a, s, osc_t, port);
    } else if (a->what == action::cmd) {
      track(*a);
    }

    expected x;
    if (s != side::rtl) x = run_core(*a, r, t, port, tx, e_cur);
    if (s != side::core) run_rtl(*a, r, port, tx, osc_t);
    if (s == side::both) compare(x, out);
  }

  std::string parameters() const override { return "PORTS=" + std::to_string(ports) + " (period 1000 ps)"; }
  void trace(VerilatedVcdC* vcd) override { rtl_->trace(vcd); }

 private:
  // ---- episodes ----

  void start_episode(const episode_cfg& ep, side s) {
    oscillator_config oc;
    oc.ppb = ep.ppb;
    oc.period_ps = period_ps;
    osc_.emplace(oc);
    sundial_unit_config uc;
    uc.ports = ports;
    uc.sync_interval_ps = ep.interval * period_ps;
    uc.first_timeout_ps = uint64_t(ep.first) * period_ps;
    uc.depth = 0;
    uc.max_drift_ppb = ep.max_drift_ppb;
    drift_ = ep.max_drift_ppb;
    if (s != side::rtl) {
      core_.emplace(uc, *osc_, 0);
      regs_ = sundial_regs{};
    }
    configure(**rtl_, ep.interval, ep.first, ep.max_drift_ppb);
    if (s != side::core) rtl_->reset();
    n_ = 0;
    edge_ = 0;
    edge_den_ = uint64_t(1'000'000'000 + ep.ppb);
    next_ps_ = sundial_unit::never;
    next_cycles_ = 0;
    left_ = int64_t(ep.cycles);
    parent_ = 0;
    eps_base_ = 0;
    delay_.assign(ports, 0);
  }

  // Edge n's true time. The episode's oscillator runs at one constant rate (no drift, no change):
  // osc(t) = floor(t (1e9 + ppb) / 1e9), so edge n, the first t at which osc reaches n period,
  // is ceil(n period 1e9 / (1e9 + ppb)): one division where cycle_edge() searches the
  // oscillator's segments in 128 bits. Past 2^64 / (period 1e9) edges, cycle_edge() itself; at
  // every power of two, both, so that a change to the oscillator's model stops the run here.
  uint64_t edge_of(uint64_t n) const {
    constexpr uint64_t num = period_ps * 1'000'000'000;
    if (n >= UINT64_MAX / num) return osc_->cycle_edge(n);
    const uint64_t e = (n * num + edge_den_ - 1) / edge_den_;
    if ((n & (n - 1)) == 0 && e != osc_->cycle_edge(n))
      throw std::logic_error("sundial_unit bench: edge " + std::to_string(n) + " is not at the oscillator's edge");
    return e;
  }

  episode_cfg random_episode() {
    episode_cfg e;
    const uint64_t iv[] = {1, 2, 3, 2 + rng_->below(50), 50 + rng_->below(2000)};
    e.interval = iv[rng_->below(5)];
    const uint32_t ft[] = {1, 2, uint32_t(2 + rng_->below(40)), uint32_t(40 + rng_->below(3000))};
    e.first = ft[rng_->below(4)];
    const uint32_t dr[] = {0, 200'000, uint32_t(rng_->below(1'000'000'000)), 999'999'999};
    e.max_drift_ppb = dr[rng_->below(4)];
    e.ppb = int64_t(rng_->below(200'001)) - 100'000;
    e.cycles = uint32_t(300 + rng_->below(5000));
    return e;
  }

  // ---- stimulus ----

  struct unit_state {
    int mode;
    bool synced;
    int64_t adjust, last;
  };
  unit_state state(side s) const {
    if (s != side::rtl)
      return {int(core_->current_mode()), core_->synced(), osc_->adjustment(), core_->last_sync_local_ps()};
    const auto& m = *rtl_;
    return {int(m->o_mode), bool(m->o_synced), int64_t(m->o_adjust), int64_t(m->o_last_sync)};
  }

  // The stamp a message carries under its rule, osc_t the oscillator's reading at its arrival;
  // i128 arithmetic, clamped to int64.
  int64_t stamp(const action& a, side s, uint64_t osc_t, uint32_t port) const {
    const unit_state u = state(s);
    const bool bounded = u.synced && u.mode == int(sundial_unit::mode::member);
    if (a.tx_rule == action::raw && (bounded || a.any_state)) return a.value;
    const i128 local = i128(osc_t) + u.adjust;
    const i128 delay = port < ports ? delay_[port] : 0;
    i128 off = a.value;
    if (a.tx_rule == action::raw) off = 0;
    if (a.tx_rule == action::eps_edge && bounded) {
      const i128 since = local - u.last;
      const i128 eps = i128(eps_base_) + (since <= 0 ? 0 : (since * drift_ + 999'999'999) / 1'000'000'000);
      off = (eps + a.value) * (a.neg ? -1 : 1);
    }
    const i128 tx = local + off - delay;
    return tx > INT64_MAX ? INT64_MAX : tx < INT64_MIN ? INT64_MIN : int64_t(tx);
  }

  // What the bench remembers of the registers it set, to aim its stamps.
  void track(const action& a) {
    if (a.opcode == op_parent && a.cmd_port < ports) parent_ = a.cmd_port;
    if (a.opcode == op_eps_base) eps_base_ = a.data;
    if (a.opcode == op_link_delay && a.cmd_port < ports && int64_t(a.data) >= 0) delay_[a.cmd_port] = int64_t(a.data);
  }

  reg_access random_access() {
    reg_access r;
    if (rng_->below(8) != 0) return r;
    r.valid = true;
    r.write = rng_->below(2) == 0;
    const uint32_t k = uint32_t(rng_->below(11));   // 8 fields, STATE, past the end, misaligned
    r.addr = sundial_regs::base + 4 * k + (rng_->below(8) == 0 ? 1 + uint32_t(rng_->below(3)) : 0);
    if (rng_->below(16) == 0) r.addr = uint32_t(rng_->next());
    const uint32_t vals[] = {0, 1, 2, uint32_t(rng_->next()), 0xFFFF'FFFF};
    r.data = vals[rng_->below(5)];
    return r;
  }

  // ---- the two sides ----

  expected run_core(const action& a, const reg_access& r, uint64_t t, uint32_t port, int64_t tx, uint64_t e_cur) {
    expected x;
    auto count = [&](const std::vector<sundial_event>& ev) {
      for (const auto& e : ev) {
        if (e.what == sundial_event::kind::send) ++x.sends;
        else if (e.what == sundial_event::kind::first_timeout) ++x.first;
        else ++x.second;
      }
    };
    // Events fall on edges, or at a command's become_root: in a cycle with neither message nor
    // command, advance(t) has nothing to do that advance(e_cur) does not do next.
    if (a.what != action::idle) count(core_->advance(t));
    if (a.what == action::msg) {
      const sundial_rx rx = core_->on_sync(t, port, tx);
      x.verdict = verdict_code(rx.verdict);
      x.offset = uint64_t(rx.offset_ps);
      x.forward = mask_of(rx.forward);
    } else if (a.what == action::cmd) {
      x.cmd_err = core_command(a, t) ? 0 : 1;
    }
    count(core_->advance(e_cur));
    if (r.valid) {
      uint32_t v = r.data;
      x.csr_ok = r.write ? regs_.write(r.addr, v) : regs_.read(r.addr, v);
      x.csr_rdata = x.csr_ok && !r.write ? v : 0;
    }
    return x;
  }

  // The command on the core; false when it refuses (std::invalid_argument).
  bool core_command(const action& a, uint64_t t) {
    try {
      switch (a.opcode) {
        case op_parent: core_->set_parent_port(a.cmd_port); break;
        case op_tx_mask: core_->set_tx_ports(ports_of(a.data)); break;
        case op_eps_base: core_->set_eps_base(a.data); break;
        case op_link_delay: core_->set_link_delay(a.cmd_port, int64_t(a.data)); break;
        case op_first: core_->set_first_timeout(a.data * period_ps); break;
        case op_second: core_->arm_second_timeout(a.data * period_ps); break;
        case op_root: core_->become_root(t); break;
        case op_evict: core_->evict(t); break;
        default: return false;
      }
    } catch (const std::invalid_argument&) {
      return false;
    }
    return true;
  }

  void run_rtl(const action& a, const reg_access& r, uint32_t port, int64_t tx, uint64_t osc_t) {
    auto& m = **rtl_;
    sundial_drive::idle(m);
    if (a.what == action::msg) message(m, port, tx, osc_t);
    else if (a.what == action::cmd) command(m, a.opcode, a.cmd_port, a.data);
    if (r.valid) register_access(m, r.write, r.addr, r.data);
    rtl_->tick();
  }

  void compare(const expected& x, std::vector<mismatch>& out) {
    const auto& m = *rtl_;
    const sundial_counters& c = core_->counters();
    const edge_events ev = events_of(*m);
    compare_output(out, "o_sends", x.sends, ev.sends);
    compare_output(out, "o_first_timeout", x.first, ev.first);
    compare_output(out, "o_second_timeout", x.second, ev.second);
    compare_output(out, "o_verdict", x.verdict, m->o_verdict);
    compare_output(out, "o_offset", x.offset, m->o_offset);
    compare_output(out, "o_forward", x.forward, m->o_forward);
    compare_output(out, "o_cmd_err", x.cmd_err, m->o_cmd_err);
    compare_output(out, "o_csr_ok", x.csr_ok, m->o_csr_ok);
    compare_output(out, "o_csr_rdata", x.csr_rdata, m->o_csr_rdata);
    compare_output(out, "o_mode", uint64_t(core_->current_mode()), m->o_mode);
    compare_output(out, "o_synced", core_->synced(), m->o_synced);
    compare_output(out, "o_adjust", uint64_t(osc_->adjustment()), m->o_adjust);
    compare_output(out, "o_last_sync", uint64_t(core_->last_sync_local_ps()), m->o_last_sync);
    compare_output(out, "o_timeout_counter", core_->timeout_counter(edge_), m->o_timeout_counter);
    compare_output(out, "o_parent", core_->parent_port(), m->o_parent);
    compare_output(out, "o_sent", c.sent, m->o_sent);
    compare_output(out, "o_valid", c.valid, m->o_valid);
    compare_output(out, "o_invalid", c.invalid, m->o_invalid);
    compare_output(out, "o_ignored", c.ignored, m->o_ignored);
    compare_output(out, "o_timeouts", c.timeouts, m->o_timeouts);
    compare_output(out, "o_second_timeouts", c.second_timeouts, m->o_second_timeouts);
    // An edge's true time, or never; it stays put for many cycles, so its edge number is kept.
    const uint64_t next = core_->next_event_ps();
    if (next != next_ps_ && next != sundial_unit::never) next_cycles_ = osc_->cycles(next);
    next_ps_ = next;
    compare_output(out, "o_next_event", next == sundial_unit::never ? 0 : next_cycles_ - n_, m->o_next_event);
  }

  // ---- directed and random scripts ----

  void idle(unsigned n, std::vector<action>& q) const {
    for (unsigned i = 0; i < n; ++i) q.push_back(action{});
  }
  static action idle_when(int when) {
    action a;
    a.when = when;
    return a;
  }
  static action msg(action::rule rule, int64_t value, int when = 1, bool neg = false) {
    action a;
    a.what = action::msg;
    a.tx_rule = rule;
    a.value = value;
    a.when = when;
    a.neg = neg;
    return a;
  }
  static action raw_any(int64_t tx, int when = 1) {
    action a = msg(action::raw, tx, when);
    a.any_state = true;
    return a;
  }
  static action msg_port(uint32_t port) {
    action a = msg(action::offset, 0);
    a.to_parent = false;
    a.port = port;
    return a;
  }
  static action cmd(uint8_t op, uint32_t port, uint64_t data, int when = 1) {
    action a;
    a.what = action::cmd;
    a.opcode = op;
    a.cmd_port = port;
    a.data = data;
    a.when = when;
    return a;
  }
  static action episode(uint64_t interval, uint32_t first, uint32_t drift, int64_t ppb) {
    action a;
    a.what = action::episode;
    a.ep = {interval, first, drift, ppb, 0};
    return a;
  }

  void make_directed() {
    auto& q = script_;
    // Timeout races (first = 5: a timeout is due 6 edges after the clear's edge).
    q.push_back(episode(100, 5, 200'000, 50'000));
    q.push_back(cmd(op_eps_base, 0, 5000));
    q.push_back(cmd(op_tx_mask, 0, 0xB));
    q.push_back(cmd(op_link_delay, 0, 1234));
    q.push_back(msg(action::offset, 100));           // cycle 5, first sync: cleared to edge 4
    idle(4, q);                                      // cycles 6..9; the timeout is due at edge 10
    q.push_back(msg(action::offset, 0, 2));          // cycle 10, 1 ps before: the message wins
    idle(4, q);
    q.push_back(msg(action::offset, -7, 1));         // cycle 15, inside: wins again
    idle(5, q);                                      // the timeout fires at edge 20
    q.push_back(msg(action::offset, 3, 0));          // exactly at that edge
    idle(4, q);
    q.push_back(msg(action::eps_edge, 1, 2));        // invalid, racing: the timeout fires
    q.push_back(cmd(op_second, 0, 3));
    idle(1, q);
    q.push_back(msg(action::eps_edge, 0, 2, true));  // -epsilon, valid, racing the second
    q.push_back(cmd(op_second, 0, 3));
    idle(12, q);                                     // both fire
    q.push_back(msg(action::offset, 1));
    q.push_back(cmd(op_first, 0, 100));
    idle(10, q);
    q.push_back(cmd(op_first, 0, 2));                // below the counter: fires at once
    idle(3, q);
    q.push_back(cmd(op_second, 0, 1));               // armed in the past: fires at once
    idle(3, q);
    q.push_back(cmd(op_first, 0, 0));                // refused
    q.push_back(cmd(op_parent, ports, 0));           // refused
    q.push_back(cmd(op_link_delay, 3, uint64_t(-5)));   // refused
    q.push_back(cmd(op_link_delay, ports, 5));       // refused
    idle(3, q);

    // Back-to-back messages, then the root with interval 1 (two sends in its first cycle).
    q.push_back(episode(1, 3, 200'000, -100'000));
    q.push_back(cmd(op_eps_base, 0, 1000));
    q.push_back(cmd(op_parent, 0, 7));
    q.push_back(cmd(op_tx_mask, 0, 0x8000'0000'0000'0001ull));
    for (int i = 0; i < 20; ++i) q.push_back(msg(action::offset, i * 37 - 300, i % 3));
    for (int i = 0; i < 8; ++i) q.push_back(msg(action::eps_edge, i % 2, i % 3, i & 2));
    q.push_back(msg_port(6));
    q.push_back(msg_port(ports));
    q.push_back(msg_port(0xFFFF'FFFF));
    for (int i = 0; i < 6; ++i) q.push_back(msg(action::offset, 0, 1));
    q.push_back(cmd(op_root, 0, 0, 1));
    idle(5, q);
    q.push_back(msg(action::offset, 0));             // to the root: ignored
    idle(2, q);
    q.push_back(cmd(op_evict, 0, 0));
    idle(3, q);
    for (uint64_t interval : {2, 3}) {
      for (int when : {0, 2}) {
        q.push_back(episode(interval, 4, 0, 0));
        idle(2, q);
        q.push_back(cmd(op_root, 0, 0, when));
        idle(7, q);
        q.push_back(cmd(op_root, 0, 0, 1));          // again while root
        idle(4, q);
      }
    }

    // Wrap and widths.
    q.push_back(episode(1000, 0xFFFF'FFFF, 999'999'999, 99'999));
    q.push_back(cmd(op_second, 0, 2));               // first + second = 2^32 + 1
    q.push_back(cmd(op_link_delay, 0, 1000));
    idle(40, q);
    q.push_back(raw_any(INT64_MAX));                 // tx + delay overflows
    q.push_back(raw_any(INT64_MIN));                 // the offset overflows
    q.push_back(raw_any(INT64_MIN + 5, 0));
    q.push_back(msg(action::offset, INT64_MIN));     // |offset| = 2^63, never synced: invalid
    q.push_back(msg(action::offset, INT64_MIN + 1)); // valid: the clock steps to near -2^63
    idle(5, q);
    q.push_back(cmd(op_eps_base, 0, UINT64_MAX));
    q.push_back(msg(action::offset, INT64_MAX));     // within the 2^64 - 1 epsilon
    idle(3, q);
    q.push_back(msg(action::offset, INT64_MIN));     // 2^63 exceeds even that
    q.push_back(cmd(op_eps_base, 0, 0));
    idle(300, q);
    for (int i = 0; i < 8; ++i) {                    // the drift term at 1e9 - 1 ppb
      q.push_back(msg(action::eps_edge, i % 2, 1, i & 2));
      idle(97, q);
    }
  }

  // The next random cycle's action: in rand_, or one of idle_at_.
  const action& random_cycle() {
    action& a = rand_;   // each branch below assigns the whole of it
    if (left_ <= 0 || !osc_) {
      a = action{};
      a.what = action::episode;
      a.ep = random_episode();
      return a;
    }
    const int whens[] = {0, 1, 1, 2};   // inside half the time
    const int when = whens[rng_->below(4)];
    const uint64_t r = rng_->below(1000);
    if (r < 60) {
      const uint64_t k = rng_->below(16);
      if (k < 7) {
        a = msg(action::eps_edge, int64_t(rng_->below(3)) - 1, when, rng_->below(2));
      } else if (k < 14) {
        const unsigned bits = unsigned(rng_->below(41));
        a = msg(action::offset, int64_t(rng_->next() >> (64 - bits) >> 1) * (rng_->below(2) ? 1 : -1), when);
      } else if (k < 15) {
        a = msg_port(uint32_t(rng_->below(ports + 2)));
      } else {
        const int64_t raw[] = {INT64_MAX, INT64_MIN, int64_t(rng_->next())};
        a = msg(action::raw, raw[rng_->below(3)], when);
      }
    } else if (r < 85) {
      const uint64_t k = rng_->below(6);
      const uint32_t port = uint32_t(rng_->below(8) == 0 ? rng_->below(ports + 4) : rng_->below(4));
      if (k == 0) a = cmd(op_parent, port, 0, when);
      else if (k == 1) a = cmd(op_tx_mask, 0, rng_->next() & (rng_->below(8) == 0 ? UINT64_MAX : port_mask), when);
      else if (k == 2) a = cmd(op_eps_base, 0, rng_->below(4) == 0 ? rng_->below(uint64_t(1) << 40) : rng_->below(20'000), when);
      else if (k == 3) a = cmd(op_link_delay, port, rng_->below(16) == 0 ? uint64_t(-int64_t(rng_->below(9) + 1)) : rng_->below(10'000'000), when);
      else if (k == 4) a = cmd(op_first, 0, rng_->below(32) == 0 ? 0 : 1 + rng_->below(40), when);
      else a = cmd(op_second, 0, rng_->below(20), when);
    } else if (r == 85 && rng_->below(4) == 0) {
      a = cmd(op_root, 0, 0, when);
    } else if (r == 86 && rng_->below(8) == 0) {
      a = cmd(op_evict, 0, 0, when);
    } else {
      return idle_at_[when];   // most cycles: nothing but the time drawn
    }
    return a;
  }

  // In place, not behind pointers: the hot path reads them every cycle.
  std::optional<stimulus_rng> rng_;
  std::unique_ptr<dut<V>> rtl_;
  std::optional<oscillator> osc_;
  std::optional<sundial_unit> core_;
  sundial_regs regs_;
  std::vector<action> script_;    // the directed cycles, made at reset
  size_t next_ = 0;               // the next of them
  action rand_;                   // the random cycle being run, unless idle
  const action idle_at_[3] = {idle_when(0), idle_when(1), idle_when(2)};   // by `when`
  uint64_t n_ = 0, edge_ = 0;     // the episode's last edge: number and true time
  uint64_t edge_den_ = 1;         // edge_of(): 1e9 + ppb
  uint64_t next_ps_ = sundial_unit::never, next_cycles_ = 0;   // compare(): next_event_ps() and its edge
  int64_t left_ = 0;              // cycles left in a random episode (directed: below 0)
  uint32_t parent_ = 0;
  uint64_t eps_base_ = 0;
  uint64_t drift_ = 0;
  std::vector<int64_t> delay_;
};

}  // namespace

std::unique_ptr<bench> make_sundial_unit_bench() { return std::make_unique<sundial_unit_bench<Vsundial_unit, 64>>(); }
std::unique_ptr<bench> make_sundial_unit_set2_bench() {
  static_assert(set2::sundial_unit::count == 1, "sundial_unit bench: reads PORTS of its second set only");
  return std::make_unique<sundial_unit_bench<Vsundial_unit_set2, uint32_t(set2::sundial_unit::PORTS)>>();
}

}  // namespace netasic::cosim
