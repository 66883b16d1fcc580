// flowlet_table (rtl/flowlet_table.sv) against the flowlet_table core as the load balancer drives
// it: lookup(hash, now_ps, new_port) for each lane of a cycle in lane order at now_ps = c * P,
// then advance((c + 1) * P), which runs the checker through cycle c. After edge c the RTL's res_*
// are cycle c's results (a path change is a lookup that raised the core's path_changes) and its
// counters and sweep state include cycle c's checker step, so both are compared with the core's
// in the same step (res_* of an idle lane hold, as in the RTL). res_* are the combinational
// lk_port, lk_new_flowlet, lk_index and lk_path_change registered at the edge; those are compared
// too, before the edge, for every valid lane of every cycle.
//
// The RTL runs inside cosim/flowlet_table/flowlet_table_tb.sv, which registers the lanes in front
// of the table: the step of cycle c gives cycle c + 1's lanes (next_lk_*) with the eval that
// takes edge c, so that eval's one pass over the lanes' logic, after the edge, is cycle c + 1's,
// and cycle c + 1's lk_* are there to read without an eval of their own. The lanes are therefore
// drawn a cycle ahead. The init sweep (ROWS cycles after reset) runs in reset(), with cycle 0's
// lanes already in the registers (the table ignores them until `ready`); the core's cycle 0 is
// the first cycle with `ready`.
//
// Delta is 9000.5 cycles (boundaries alternate 9001 and 9000 cycles apart); a sweep of the 64K
// table takes 8192 cycles when it never waits, so light traffic leaves the checker idle between
// sweeps and heavy traffic (many cycles with both lanes, each a sweep conflict) makes it overrun.
//
// Directed corners (cycles 0..10), before the first sweep: a new flowlet and a hit on it in the
// same cycle (both lanes, same hash), two hashes with the same index in one cycle (a collision),
// two entries of one row in one cycle, lane 1 alone, the first and last entries (hash wrap
// 0xFFFFFFFF), ports 0 and 255. Then random traffic in phases of 10000 cycles (light, light,
// heavy, light, light, starving: 2%, 35%, 85% of the cycles with both lanes). Hashes are
// concentrated on 64 hot hashes in the first and last rows (many sharing an index), a band of
// 1024 entries, the entries right at the checker's position (the row it visits this cycle: lookup
// and sweep in one cycle on one row, lookups to entries it invalidates that cycle), and any hash;
// both lanes on one entry, one index or one row; new ports 0..3 mostly (a new flowlet on the port
// it had: no path change). Seed 1 gives, in 100,000 cycles, 9 sweeps, 7 overruns, ~16500
// conflicts, ~25700 evictions, ~4300 path changes, ~8300 lookups on the row the running checker
// is at (8,071 when the lanes were drawn in their own cycle).
//
// The checker's position that steers cycle c's stimulus is the one after cycle c - 2 (the lanes
// are drawn a cycle ahead), read from the core or (RTL alone) from the RTL's output: they are
// equal, so the stimulus is the same on every side.
// Counters are 64-bit on both sides: no wrap in any run; the Delta timer is a remainder
// (s * Delta - c * P), which stays in (-P, Delta] and so never wraps.
#include <array>
#include <optional>

#include "blocks/flowlet_table.h"
#include "cosim/harness/cosim_bench.h"
#include "cosim/harness/stimulus_rng.h"
#include "cosim/flowlet_table/flowlet_table_rtl.h"
#include "Vflowlet_table_tb.h"
#include "Vflowlet_table_tb___024root.h"
#include "Vflowlet_table_set2.h"
#include "Vflowlet_table_set2___024root.h"
#include "rtl_bench_sets.h"

namespace netasic::cosim {
namespace {

constexpr unsigned lanes = 2;

// The parameters the RTL was Verilated with, and a Delta of 9000.5 cycles (the ceiling matters).
flowlet_config bench_config(uint32_t entries) {
  flowlet_config c = flowlet_table_rtl::rtl_parameters();
  c.entries = entries;
  if (c.ports != lanes) throw std::logic_error("flowlet_table bench: built for 2 lanes");
  c.delta_ps = 9'000'500;
  return c;
}

// A cycle's lanes packed as the RTL's ports take them: lane j's valid in bit j of `valid`, its
// hash in bits 32j.. of `hashes`, its new port (below 256) in bits 8j.. of `new_ports`. Held in
// registers, written to the ports as they are, unpacked for the core by a shift.
struct lanes_in {
  uint32_t valid = 0;
  uint32_t new_ports = 0;
  uint64_t hashes = 0;
  bool valid_at(unsigned j) const { return valid >> j & 1; }
  uint32_t hash(unsigned j) const { return uint32_t(hashes >> (32 * j)); }
  uint32_t new_port(unsigned j) const { return (new_ports >> (8 * j)) & 0xFF; }
};

// Appends a mismatch; the name is built only then (lane < 0: not a per-lane output). Out of line
// and cold, so that a compare that holds costs a compare and a branch, not a call.
[[gnu::cold, gnu::noinline]] void mismatch_at(std::vector<mismatch>& out, const char* name, int lane, uint64_t core, uint64_t rtl) {
  out.push_back({lane < 0 ? std::string(name) : std::string(name) + "[" + std::to_string(lane) + "]", core, rtl});
}
inline void cmp(std::vector<mismatch>& out, const char* name, int lane, uint64_t core, uint64_t rtl) {
  if (core != rtl) mismatch_at(out, name, lane, core, rtl);
}

// V: the Verilated model; entries: its ENTRIES (the defaults, or the second set's).
template <class V, uint32_t entries>
class flowlet_table_bench : public bench {
  static_assert(entries >= 64 && (entries & (entries - 1)) == 0, "flowlet_table bench: ENTRIES must be a power of two >= 64");

 public:
  void reset(uint64_t seed) override {
    core_.emplace(cfg_);
    rtl_ = std::make_unique<dut<V>>();
    root_ = (*rtl_)->rootp;
    rng_.emplace(seed);
    cycle_ = 0;
    pos_ = 0;
    phase_ = 0;
    phase_end_ = phase_cycles;
    res_ = {};
    moved_ = {};
    for (unsigned k = 0; k < hot_.size(); ++k) {
      // 16 indices in the first two rows and the last row; the high bits differ, so several
      // hashes share an entry (collisions).
      const uint32_t index = k % 16 < 10 ? k % 16 : entries - 16 + k % 16;
      hot_[k] = uint32_t(rng_->next() << 16) | index;
    }
    auto& m = *rtl_;
    m->cfg_delta_ps = cfg_.delta_ps;
    next_ = stimulus(0);
    drive(next_);
    rtl_->reset();
    for (unsigned n = 0; !m->ready && n < 2 * cfg_.entries; ++n) rtl_->tick();
  }

  void step(side s, std::vector<mismatch>& out) override {
    const uint64_t c = cycle_++;
    const lanes_in in = next_;
    next_ = stimulus(c + 1);   // before this cycle moves pos_

    if (s != side::rtl) {
      // Calls qualified with the class: direct, where GCC would go through the vtable.
      flowlet_table& core = *core_;
      const uint64_t now_ps = c * cfg_.clock_period_ps;
      for (unsigned j = 0; j < lanes; ++j) {
        if (!in.valid_at(j)) continue;
        const uint64_t before = core.flowlet_table::counters().path_changes;
        res_[j] = core.flowlet_table::lookup(in.hash(j), now_ps, in.new_port(j));
        moved_[j] = core.flowlet_table::counters().path_changes != before;
      }
      core.flowlet_table::advance(now_ps + cfg_.clock_period_ps);
      pos_ = core_->sweep_position();
    }
    if (s != side::core) {
      const auto& r = *root_;
      // This cycle's combinational results, before the edge: the last eval settled them (see the
      // top). An idle lane's are don't-care.
      if (s == side::both && in.valid) {
        for (unsigned j = 0; j < lanes; ++j) {
          if (!in.valid_at(j)) continue;
          cmp(out, "lk_port", j, res_[j].port, (r.lk_port >> (8 * j)) & 0xFF);
          cmp(out, "lk_new_flowlet", j, res_[j].new_flowlet, (r.lk_new_flowlet >> j) & 1);
          cmp(out, "lk_index", j, res_[j].index, uint32_t(r.lk_index >> (32 * j)));
          cmp(out, "lk_path_change", j, moved_[j], (r.lk_path_change >> j) & 1);
        }
      }
      drive(next_);
      rtl_->tick();
      if (s == side::rtl) pos_ = r.sweep_position;
    }
    if (s == side::both) compare(in.valid, out);
  }

  std::string parameters() const override {
    return "ENTRIES=" + std::to_string(cfg_.entries) + " AGE_BITS=" + std::to_string(cfg_.age_bits) +
           " PORTS=" + std::to_string(cfg_.ports) + " SWEEP_WIDTH=" + std::to_string(cfg_.sweep_width) +
           " PORT_BITS=" + std::to_string(cfg_.port_bits) + " CLOCK_PERIOD_PS=" + std::to_string(cfg_.clock_period_ps) +
           "; cfg_delta_ps=" + std::to_string(cfg_.delta_ps);
  }
  void trace(VerilatedVcdC* vcd) override { rtl_->trace(vcd); }

 private:
  // Every output after the edge, in order: f(name, lane (-1: not a lane's), the core's value,
  // the RTL's). One list for the check every cycle and for the report.
  template <class F>
  [[gnu::always_inline]] void outputs(uint32_t valid, F&& f) const {
    const auto& r = *root_;
    f("ready", -1, 1, r.ready);
    for (unsigned j = 0; j < lanes; ++j) {
      f("res_valid", j, (valid >> j) & 1, (r.res_valid >> j) & 1);
      f("res_port", j, res_[j].port, (r.res_port >> (8 * j)) & 0xFF);
      f("res_new_flowlet", j, res_[j].new_flowlet, (r.res_new_flowlet >> j) & 1);
      f("res_index", j, res_[j].index, uint32_t(r.res_index >> (32 * j)));
      f("res_path_change", j, moved_[j], (r.res_path_change >> j) & 1);
    }
    const flowlet_counters& k = core_->flowlet_table::counters();
    f("new_flowlets", -1, k.new_flowlets, r.new_flowlets);
    f("path_changes", -1, k.path_changes, r.path_changes);
    f("occupancy", -1, k.occupancy, r.occupancy);
    f("evictions", -1, k.evictions, r.evictions);
    f("sweeps", -1, k.sweeps, r.sweeps);
    f("sweep_conflicts", -1, k.sweep_conflicts, r.sweep_conflicts);
    f("sweep_overruns", -1, k.sweep_overruns, r.sweep_overruns);
    f("sweep_active", -1, core_->sweep_active(), r.sweep_active);
    f("sweep_position", -1, core_->sweep_position(), r.sweep_position);
  }
  // Each output's difference OR-ed into one word and tested once: one branch a cycle in place of
  // one a compare; the per-output report runs only when a compare fails, out of line.
  void compare(uint32_t valid, std::vector<mismatch>& out) const {
    uint64_t diff = 0;
    outputs(valid, [&](const char*, int, uint64_t core, uint64_t rtl) { diff |= core ^ rtl; });
    if (diff) report(valid, out);
  }
  [[gnu::cold, gnu::noinline]] void report(uint32_t valid, std::vector<mismatch>& out) const {
    outputs(valid, [&](const char* name, int lane, uint64_t core, uint64_t rtl) { cmp(out, name, lane, core, rtl); });
  }

  // The next cycle's lanes into the bench top's registers, which take them at the next edge.
  // The root's ports, not the model's references to them: one load fewer a port.
  void drive(const lanes_in& in) {
    auto& r = *root_;
    r.next_lk_valid = in.valid;
    r.next_lk_hash = in.hashes;
    r.next_lk_new_port = in.new_ports;
  }

  // The lanes of cycle c, called for c = 0, 1, 2, ... in turn. Draws from rng_ only, steered by
  // pos_ (the checker's position after cycle c - 2, equal on every side).
  lanes_in stimulus(uint64_t c) {
    lanes_in in;
    if (c < directed_.size()) {
      for (unsigned j = 0; j < lanes; ++j) {
        const d_lane& d = directed_[c][j];
        in.valid |= uint32_t(d.valid) << j;
        in.hashes |= uint64_t(d.hash) << (32 * j);
        in.new_ports |= uint32_t(d.new_port) << (8 * j);
      }
      return in;
    }
    bit_pool r{*rng_};
    // Percent of cycles with both lanes, per phase of phase_cycles: light, light, heavy, light,
    // light, starving. A light phase lets sweeps end before the next boundary (the checker idles),
    // a heavy one makes them overrun, a starving one stalls the sweep for thousands of cycles.
    // The phase, (c / phase_cycles) % 6, is kept, not divided out each cycle: every cycle from
    // the first random one on comes here, so c meets each phase_end_.
    static constexpr uint64_t both_pct[6] = {2, 2, 35, 2, 2, 85};
    if (c == phase_end_) {
      phase_end_ += phase_cycles;
      phase_ = phase_ == 5 ? 0 : phase_ + 1;
    }
    const uint64_t roll = r.below(100);
    unsigned pattern;                                     // bit j: lane j valid
    if (roll < both_pct[phase_]) pattern = 3;
    else pattern = r.below(3) == 0 ? 0 : r.below(4) == 0 ? 2 : 1;
    uint32_t hash[lanes] = {}, new_port[lanes] = {};     // registers once the loop is unrolled
#pragma GCC unroll 2
    for (unsigned j = 0; j < lanes; ++j) {
      if (!(pattern >> j & 1)) continue;
      switch (r.below(10)) {
        case 0: case 1: case 2: case 3:   // hot hashes: the first and last rows
          hash[j] = hot_[r.below(hot_.size())];
          break;
        case 4: case 5: case 6: {         // at the checker: its row this cycle and the next ones
          // (pos_ is two cycles old: the 24 entries hold the checker's row whether it has moved
          // on a row since or waited)
          const uint32_t i = uint32_t((pos_ + entries - 4 + r.below(24)) % entries);
          hash[j] = uint32_t(r.below(65536) << 16) | i;
          break;
        }
        case 7: case 8:                   // a band of 1024 entries
          hash[j] = uint32_t(r.below(65536) << 16) | uint32_t(r.below(1024));
          break;
        default:
          hash[j] = uint32_t(r.next());
      }
      new_port[j] = uint32_t(r.below(8) == 0 ? r.below(256) : r.below(4));   // below 256: fits 8 bits
    }
    if (pattern == 3) {
      switch (r.below(8)) {
        case 0: hash[1] = hash[0]; break;                                         // one entry
        case 1: hash[1] = (hash[1] & ~0xFFFFu) | (hash[0] & 0xFFFFu); break;      // one index
        case 2: hash[1] = (hash[0] & ~7u) | (hash[1] & 7u); break;                // one row
        default: break;
      }
    }
    in.valid = pattern;
    for (unsigned j = 0; j < lanes; ++j) {
      in.hashes |= uint64_t(hash[j]) << (32 * j);
      in.new_ports |= new_port[j] << (8 * j);
    }
    return in;
  }

  // The stimulus's small choices, 16 bits each from one 64-bit draw of the bench's stimulus_rng (a whole
  // draw a choice was about 30 % of the core-alone run's time). below(n) maps 16 bits onto
  // [0, n) by a multiply (a bias under n / 65536, which a stimulus does not mind); next() is a
  // whole draw.
  struct bit_pool {
    stimulus_rng& source;
    uint64_t bits = 0;
    unsigned left = 0;
    uint64_t below(uint64_t n) {
      if (left == 0) {
        bits = source.next();
        left = 4;
      }
      const uint64_t chunk = bits & 0xFFFF;
      bits >>= 16;
      --left;
      return (chunk * n) >> 16;
    }
    uint64_t next() { return source.next(); }
  };

  struct d_lane {
    bool valid;
    uint32_t hash;
    uint8_t new_port;   // 8 bits, as lanes_in packs it: a wider constant does not compile
  };
  using d_cycle = std::array<d_lane, lanes>;
  static constexpr d_lane idle{false, 0, 0};
  // A constant array: its size is known where step() asks.
  static constexpr std::array<d_cycle, 11> directed_ = {{
      {d_lane{true, 5, 1}, idle},                               // new flowlet
      {d_lane{true, 5, 2}, idle},                               // hit: keeps port 1
      {d_lane{true, 9, 3}, d_lane{true, 9, 4}},                 // new then hit in one cycle
      {d_lane{true, 0x10009, 7}, d_lane{true, 0x20009, 6}},     // same index, other hashes: hits
      {d_lane{true, 16, 255}, d_lane{true, 17, 0}},             // one row, two entries, ports 255 and 0
      {idle, d_lane{true, 18, 5}},                              // lane 1 alone
      {d_lane{true, 0xFFFFFFFF, 9}, d_lane{true, 0, 10}},       // last and first entries
      {d_lane{true, 0xFFFF, 11}, d_lane{true, 0x10000, 12}},    // the same two: hits
      {idle, idle},
      {d_lane{true, 23, 1}, d_lane{true, 16, 2}},               // a new entry and a hit in one row
      {d_lane{true, 0x7FFF0017, 3}, d_lane{true, 0x17, 4}},     // hits on 23 through other hashes
  }};

  const flowlet_config cfg_ = bench_config(entries);
  // The core and the rng in place, not behind pointers: one load fewer a use.
  std::optional<flowlet_table> core_;
  std::unique_ptr<dut<V>> rtl_;
  typename dut<V>::root* root_ = nullptr;   // the model's root: its ports, read and written directly
  std::optional<stimulus_rng> rng_;
  std::array<uint32_t, 64> hot_{};         // a constant size: below(64) is a shift
  uint64_t cycle_ = 0;
  static constexpr uint64_t phase_cycles = 10000;   // cycles of a traffic phase (stimulus())
  unsigned phase_ = 0;                     // the phase of the last cycle drawn: (c / phase_cycles) % 6
  uint64_t phase_end_ = phase_cycles;      // the first cycle of the next phase
  uint32_t pos_ = 0;                       // checker position after the last cycle stepped
  lanes_in next_;                          // the next cycle's lanes (drawn a cycle ahead)
  std::array<flowlet_result, lanes> res_{};   // the core's latest result per lane (held like res_*)
  std::array<bool, lanes> moved_{};           // and whether it was a path change
};

}  // namespace

std::unique_ptr<bench> make_flowlet_table_bench() {
  constexpr uint32_t rtl_default_entries = 65536;
  if (flowlet_table_rtl::rtl_parameters().entries != rtl_default_entries)
    throw std::logic_error("flowlet_table bench: the RTL's default ENTRIES differs from the bench's");
  return std::make_unique<flowlet_table_bench<Vflowlet_table_tb, rtl_default_entries>>();
}
std::unique_ptr<bench> make_flowlet_table_set2_bench() {
  static_assert(set2::flowlet_table::count == 1, "flowlet_table bench: reads ENTRIES of its second set only");
  return std::make_unique<flowlet_table_bench<Vflowlet_table_set2, uint32_t(set2::flowlet_table::ENTRIES)>>();
}

}  // namespace netasic::cosim
