// RTL in the loop for the flowlet table (see the header). Built into netasic_cosim, which Verilates
// rtl/ (CMakeLists.txt).
#include "cosim/flowlet_table/flowlet_table_rtl.h"

#include <verilated.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "Vflowlet_table.h"
#include "Vflowlet_table___024root.h"
#include "cosim/harness/dut.h"

// The parameters Vflowlet_table was Verilated with: the RTL's defaults unless the build passes
// -G to Verilator and the same values here (Verilator keeps no parameter in the model without
// public scopes). The init sweep's length is checked against them at construction.
#ifndef FLOWLET_RTL_ENTRIES
#define FLOWLET_RTL_ENTRIES 65536
#endif
#ifndef FLOWLET_RTL_AGE_BITS
#define FLOWLET_RTL_AGE_BITS 1
#endif
#ifndef FLOWLET_RTL_PORTS
#define FLOWLET_RTL_PORTS 2
#endif
#ifndef FLOWLET_RTL_SWEEP_WIDTH
#define FLOWLET_RTL_SWEEP_WIDTH 8
#endif
#ifndef FLOWLET_RTL_PORT_BITS
#define FLOWLET_RTL_PORT_BITS 8
#endif
#ifndef FLOWLET_RTL_CLOCK_PERIOD_PS
#define FLOWLET_RTL_CLOCK_PERIOD_PS 1000
#endif

namespace netasic {

namespace {

constexpr unsigned lanes = FLOWLET_RTL_PORTS;
constexpr unsigned port_bits = FLOWLET_RTL_PORT_BITS;
// The lane buses are packed vectors; up to 64 bits Verilator makes them plain integers.
static_assert(lanes * 32 <= 64 && lanes * port_bits <= 64, "lane buses wider than 64 bits need VlWide access");
constexpr uint64_t port_mask = port_bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << port_bits) - 1;

void check(bool ok, const std::string& field, uint64_t got, uint64_t rtl, const char* param) {
  if (!ok)
    throw std::invalid_argument("flowlet_table_rtl: " + field + " is " + std::to_string(got) +
                                " but the RTL was Verilated with " + param + "=" + std::to_string(rtl));
}

}  // namespace

struct flowlet_table_rtl::impl {
  cosim::dut<Vflowlet_table> m;
  uint64_t open = 0;             // the cycle whose lookups are on the lanes, edge not yet taken
  unsigned used = 0;             // lanes taken in it
  uint64_t open_new = 0, open_moved = 0;   // its new flowlets and path changes
  uint64_t hashes = 0, ports = 0;          // the lane buses
  uint64_t last_now = 0;
  uint64_t lookups = 0;
  flowlet_counters count;


  void tick() { m.tick(); }
  // Takes the edges of every cycle before c: the open one with its lanes, then idle ones.
  void go_to(uint64_t c) {
    if (c <= open) return;
    tick();
    ++open;
    if (used) {
      m->lk_valid = 0;
      used = 0;
      open_new = open_moved = 0;
    }
    while (open < c) {
      const uint64_t n = quiet_cycles(c - open);
      if (n) {
        auto& r = *m->rootp;
        r.flowlet_table__DOT__rem -= n * FLOWLET_RTL_CLOCK_PERIOD_PS;
        m->res_valid = 0;   // the first of them takes no lookup, so it shows none after its edge
        if (r.flowlet_table__DOT__active) {   // the sweep moved past n empty rows
          r.flowlet_table__DOT__chk_row += n;
          m->sweep_position = uint32_t(r.flowlet_table__DOT__chk_row) * FLOWLET_RTL_SWEEP_WIDTH;
        }
        open += n;
        if (quiet_cycles_skipped) *quiet_cycles_skipped += n;
      } else {
        tick();
        ++open;
      }
    }
  }
  // How many of the next `most` cycles are quiet. A cycle is quiet when no lookup is on the lanes,
  // the Delta timer is above zero (no boundary), and either no sweep runs or is pending, or the
  // sweep visits a row with no valid entry and not the last row. In such a cycle the RTL
  // (rtl/flowlet_table.sv) changes only the timer, by -P, res_valid, to zero (the results of
  // the cycle before stop being shown; res_* hold), and in a sweep its row, by +1, and its
  // position to the next row's first entry: nothing fires, starts or ends, no entry ages or is
  // invalidated (the row writes back what it read), no lane writes, and every counter adds 0.
  // The cycle the timer reaches zero, and the sweep's cycles on rows holding a valid entry and on
  // the last row, are clocked.
  uint64_t quiet_cycles(uint64_t most) {
    if (!skip_quiet) return 0;
    const auto& r = *m->rootp;
    if (!m->ready || m->lk_valid) return 0;
    const int64_t rem = int64_t(r.flowlet_table__DOT__rem);
    if (rem <= 0) return 0;
    uint64_t n = (uint64_t(rem) - 1) / FLOWLET_RTL_CLOCK_PERIOD_PS + 1;   // rem - (n - 1) * P > 0
    if (n > most) n = most;
    if (!r.flowlet_table__DOT__active) return r.flowlet_table__DOT__pending ? 0 : n;
    uint64_t k = 0, row = r.flowlet_table__DOT__chk_row;
    while (k < n && row + 1 < rows) {
      if (!written(row)) {   // empty: step to the next written row, the last row or n, whichever is first
        const uint64_t to = std::min({next_written(row), rows - 1, row + (n - k)});
        k += to - row;
        row = to;
        continue;
      }
      if (!row_empty(row)) break;
      written_[row / 64] &= ~(uint64_t(1) << (row % 64));   // found empty: no lookup has written it since
      ++k;
      ++row;
    }
    return k;
  }
  // Rows a lookup wrote since the scan above last found them empty, a bit each. Only a lookup sets
  // a valid bit (the init sweep clears every row, the checker only ages and clears), so every row
  // holding a valid entry is among them, and the scan reads the memory only there. A lookup's row
  // is marked before its edge, and the scan runs only with no lookup on the lanes: by then the
  // row's write has been clocked.
  void mark_written(uint32_t index) {
    const uint64_t row = index / FLOWLET_RTL_SWEEP_WIDTH;
    written_[row / 64] |= uint64_t(1) << (row % 64);
  }
  bool written(uint64_t row) const { return (written_[row / 64] >> (row % 64)) & 1; }
  uint64_t next_written(uint64_t row) const {   // the first written row at or after `row`, else `rows`
    size_t w = row / 64;
    uint64_t bits = written_[w] & (~uint64_t(0) << (row % 64));
    while (!bits) {
      if (++w == written_.size()) return rows;
      bits = written_[w];
    }
    return w * 64 + uint64_t(__builtin_ctzll(bits));
  }
  // No valid bit set in the memory row: each entry is {valid, age, port}, valid its top bit. A row
  // is a plain integer up to 64 bits wide, 32-bit words beyond; the valid bits are tested a word at
  // a time.
  bool row_empty(uint64_t row) const { return no_valid_bit(m->rootp->flowlet_table__DOT__mem[row]); }
  template <class Row>
  static bool no_valid_bit(const Row& w) {
    if constexpr (row_bits <= 64) {
      return (uint64_t(w) & valid_bits(0, 64)) == 0;
    } else {
      for (unsigned i = 0; i < (row_bits + 31) / 32; ++i)
        if (w[i] & uint32_t(valid_bits(32 * i, 32))) return false;
      return true;
    }
  }
  // The valid bits among the row's bits [from, from + width), shifted down by `from`.
  static constexpr uint64_t valid_bits(unsigned from, unsigned width) {
    uint64_t mask = 0;
    for (unsigned s = 0; s < FLOWLET_RTL_SWEEP_WIDTH; ++s) {
      const unsigned b = s * entry_bits + entry_bits - 1;
      if (b >= from && b < from + width) mask |= uint64_t(1) << (b - from);
    }
    return mask;
  }
  static constexpr unsigned entry_bits = 1 + FLOWLET_RTL_AGE_BITS + FLOWLET_RTL_PORT_BITS;
  static constexpr unsigned row_bits = FLOWLET_RTL_SWEEP_WIDTH * entry_bits;
  static constexpr uint64_t rows = (uint64_t(FLOWLET_RTL_ENTRIES) + FLOWLET_RTL_SWEEP_WIDTH - 1) / FLOWLET_RTL_SWEEP_WIDTH;
  std::vector<uint64_t> written_ = std::vector<uint64_t>((rows + 63) / 64, 0);
  bool skip_quiet = true;
  uint64_t* quiet_cycles_skipped = nullptr;
};

flowlet_config flowlet_table_rtl::rtl_parameters() {
  flowlet_config c;
  c.entries = FLOWLET_RTL_ENTRIES;
  c.age_bits = FLOWLET_RTL_AGE_BITS;
  c.ports = FLOWLET_RTL_PORTS;
  c.sweep_width = FLOWLET_RTL_SWEEP_WIDTH;
  c.port_bits = FLOWLET_RTL_PORT_BITS;
  c.clock_period_ps = FLOWLET_RTL_CLOCK_PERIOD_PS;
  return c;
}

flowlet_table_rtl::flowlet_table_rtl(const flowlet_config& cfg, rtl_loop_count* count)
    : cfg_(cfg), count_(count), owner_(cfg.entries), collided_(cfg.entries) {
  const flowlet_config r = rtl_parameters();
  check(cfg.entries == r.entries, "entries", cfg.entries, r.entries, "ENTRIES");
  check(cfg.age_bits == r.age_bits, "age_bits", cfg.age_bits, r.age_bits, "AGE_BITS");
  check(cfg.ports == r.ports, "ports", cfg.ports, r.ports, "PORTS");
  check(cfg.sweep_width == r.sweep_width, "sweep_width", cfg.sweep_width, r.sweep_width, "SWEEP_WIDTH");
  check(cfg.port_bits == r.port_bits, "port_bits", cfg.port_bits, r.port_bits, "PORT_BITS");
  check(cfg.clock_period_ps == r.clock_period_ps, "clock_period_ps", cfg.clock_period_ps, r.clock_period_ps,
        "CLOCK_PERIOD_PS");
  if (cfg.delta_ps < cfg.clock_period_ps)
    throw std::invalid_argument("flowlet_table_rtl: delta_ps must be at least one clock period");
  if (cfg.delta_ps >> 63)
    throw std::invalid_argument("flowlet_table_rtl: delta_ps must be below 2^63 ps (the RTL's Delta timer)");

  p_ = std::make_unique<impl>();
  if (count) {
    p_->m.count_cycles(&count->cycles);
    p_->quiet_cycles_skipped = &count->quiet_cycles_skipped;
  }
  auto& m = *p_->m;
  m.cfg_delta_ps = cfg.delta_ps;
  m.lk_valid = 0;
  m.lk_hash = 0;
  m.lk_new_port = 0;
  m.rst = 1;
  p_->tick();
  p_->tick();
  m.rst = 0;
  // The init sweep clears one row per cycle: its length checks ENTRIES and SWEEP_WIDTH.
  uint64_t n = 0;
  while (!m.ready && n <= 2 * sweep_cycles() + 2) {
    p_->tick();
    ++n;
  }
  if (n != sweep_cycles())
    throw std::runtime_error("flowlet_table_rtl: the RTL's init sweep took " + std::to_string(n) +
                             " cycles, expected ceil(entries / sweep_width) = " + std::to_string(sweep_cycles()) +
                             ": the FLOWLET_RTL_* values do not match the Verilated parameters");
}

flowlet_table_rtl::~flowlet_table_rtl() = default;

flowlet_result flowlet_table_rtl::lookup(uint64_t hash, uint64_t now_ps, uint32_t new_port, uint64_t flow_id) {
  impl& p = *p_;
  if (now_ps < p.last_now) throw std::logic_error("flowlet_table_rtl: time went backwards");
  // A power-of-two table indexes with the low bits, the same for any hash width.
  const bool pow2 = (cfg_.entries & (cfg_.entries - 1)) == 0;
  if (!pow2 && (hash >> 32))
    throw std::invalid_argument("flowlet_table_rtl: hash " + std::to_string(hash) + " wider than the RTL's 32 bits");
  if (new_port > port_mask)
    throw std::invalid_argument("flowlet_table_rtl: new_port " + std::to_string(new_port) + " does not fit in port_bits " +
                                std::to_string(port_bits));
  const uint64_t c = now_ps / cfg_.clock_period_ps;
  if (c == p.open && p.used == lanes)
    throw std::runtime_error("flowlet_table_rtl: lookup " + std::to_string(lanes + 1) + " in cycle " + std::to_string(c) +
                             ", but the RTL has " + std::to_string(lanes) +
                             " lanes (PORTS); the core would serve it and count a port overflow");
  p.last_now = now_ps;
  p.go_to(c);

  auto& m = *p.m;
  const unsigned k = p.used++;
  p.hashes = (p.hashes & ~(uint64_t(0xFFFFFFFF) << (32 * k))) | (uint64_t(uint32_t(hash)) << (32 * k));
  p.ports = (p.ports & ~(port_mask << (port_bits * k))) | (uint64_t(new_port) << (port_bits * k));
  m.lk_hash = p.hashes;
  m.lk_new_port = p.ports;
  m.lk_valid = m.lk_valid | (1u << k);
  p.m.settle();   // lane k's result, before the edge: lanes k+1.. may still come in this cycle
  const flowlet_result r{uint32_t((uint64_t(m.lk_port) >> (port_bits * k)) & port_mask),
                         bool((m.lk_new_flowlet >> k) & 1), uint32_t(uint64_t(m.lk_index) >> (32 * k))};
  p.open_new += r.new_flowlet;
  p.open_moved += (m.lk_path_change >> k) & 1;
  p.mark_written(r.index);
  ++p.lookups;
  if (count_) ++count_->calls;
  count_collision(r, flow_id == flow_is_hash ? hash : flow_id);
  return r;
}

void flowlet_table_rtl::count_collision(const flowlet_result& r, uint64_t flow) {
  // As the core counts: a life of an entry in which a second flow arrived, and each lookup that
  // followed an entry another flow created.
  if (r.new_flowlet) {
    owner_[r.index] = flow;
    collided_[r.index] = false;
  } else if (owner_[r.index] != flow) {
    ++collision_hits_;
    if (!collided_[r.index]) {
      collided_[r.index] = true;
      ++collisions_;
    }
  }
}

void flowlet_table_rtl::advance(uint64_t now_ps) {
  if (now_ps < p_->last_now) throw std::logic_error("flowlet_table_rtl: time went backwards");
  p_->last_now = now_ps;
  p_->go_to(now_ps / cfg_.clock_period_ps);
}

const flowlet_counters& flowlet_table_rtl::counters() const {
  impl& p = *p_;
  const auto& m = *p.m;
  flowlet_counters& k = p.count;
  k.lookups = p.lookups;
  k.new_flowlets = m.new_flowlets + p.open_new;
  k.path_changes = m.path_changes + p.open_moved;
  k.occupancy = m.occupancy + p.open_new;
  k.evictions = m.evictions;
  k.sweeps = m.sweeps;
  k.sweep_conflicts = m.sweep_conflicts;
  k.sweep_overruns = m.sweep_overruns;
  k.collisions = collisions_;
  k.collision_hits = collision_hits_;
  return k;
}

bool flowlet_table_rtl::sweep_active() const { return p_->m->sweep_active; }
uint32_t flowlet_table_rtl::sweep_position() const { return p_->m->sweep_position; }
uint64_t flowlet_table_rtl::rtl_cycles() const { return p_->open; }
void flowlet_table_rtl::skip_quiet_cycles(bool on) { p_->skip_quiet = on; }

rtl_loop_block flowlet_table_rtl_loop() {
  const flowlet_config r = flowlet_table_rtl::rtl_parameters();
  rtl_loop_block b;
  b.fixed_keys = {{"lb.flowlet.entries", r.entries}, {"lb.flowlet.age_bits", r.age_bits},
                  {"lb.flowlet.ports", r.ports}, {"lb.flowlet.sweep_width", r.sweep_width}};
  b.unused = [](const config& c) { return c.string("lb.mode") == "letflow" ? "" : "it needs lb.mode = \"letflow\""; };
  b.use = [](rtl_loop& loop, rtl_loop_count* count) {
    loop.flowlet_table = [count](const flowlet_config& c) { return std::make_unique<flowlet_table_rtl>(c, count); };
  };
  return b;
}

}  // namespace netasic
