// RTL in the loop for the stateful ALU (see the header). Built into netasic_cosim, which
// Verilates rtl/ (CMakeLists.txt): the loop's 32-bit words are Vstateful_alu, the bench's model,
// and its 8- and 16-bit ones Vstateful_alu_loop8/16.
#include "cosim/stateful_alu/stateful_alu_rtl.h"

#include <verilated.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "Vstateful_alu.h"
#include "Vstateful_alu___024root.h"
#include "Vstateful_alu_loop16.h"
#include "Vstateful_alu_loop16___024root.h"
#include "Vstateful_alu_loop8.h"
#include "Vstateful_alu_loop8___024root.h"
#include "cosim/harness/dut.h"

namespace netasic {

uint64_t stateful_alu_encode(const stateful_alu_predicate& p, unsigned w) {
  const uint64_t mask = (uint64_t(1) << w) - 1;
  return uint64_t(p.used) << (w + 10) | uint64_t(p.x) << (w + 7) | uint64_t(p.y) << (w + 4) |
         uint64_t(p.relop) << (w + 1) | uint64_t(p.is_signed) << w | (p.constant & mask);
}

uint64_t stateful_alu_encode(const stateful_alu_update& u, unsigned w) {
  const uint64_t mask = (uint64_t(1) << w) - 1;
  return uint64_t(u.used) << (w + 15) | uint64_t(u.when) << (w + 11) | uint64_t(u.op) << (w + 7) |
         uint64_t(u.x) << (w + 4) | uint64_t(u.y) << (w + 1) | uint64_t(u.is_signed) << w | (u.constant & mask);
}

// One cycle's inputs; everything else idle.
struct stateful_alu_rtl::in {
  bool valid = false;
  uint32_t index = 0, a = 0, b = 0;
  bool cp_valid = false;
  unsigned cp_op = 0;   // 0 read, 1 write, 2 clear
  uint32_t cp_index = 0, cp_lo = 0, cp_hi = 0;
};

// The outputs after an edge, whatever the width's model.
struct stateful_alu_rtl::model {
  bool ready = false, out_valid = false, p_lo = false, p_hi = false, rvalid = false;
  uint32_t value = 0, rlo = 0, rhi = 0;

  virtual ~model() = default;
  // cfg_* ports (the array's rows on cfg_rows), then reset; each cycle from then on is added to *cycles if given.
  virtual void load(const stateful_alu_program& prog, unsigned width, uint32_t rows, uint64_t* cycles) = 0;
  virtual void tick(const in& x) = 0;
  virtual stateful_alu_counters counters() const = 0;   // the counter outputs, read when asked for
  // A running sweep's rows from its current one up to (not including) `last_row`, zeroed in one
  // step as its cycles would zero them, the sweep left on `last_row`: how many rows were stepped.
  virtual uint32_t step_sweep(uint32_t last_row) = 0;
};

namespace {
// One context for every ALU of the run: a run may hold thousands of them (LossRadar's meters).
VerilatedContext& alu_context() {
  static VerilatedContext ctx;
  return ctx;
}
}  // namespace

template <class V>
struct stateful_alu_rtl::model_of : stateful_alu_rtl::model {
  cosim::dut<V> d{alu_context()};

  void load(const stateful_alu_program& prog, unsigned w, uint32_t rows, uint64_t* cycles) override {
    d.count_cycles(cycles);
    V& m = *d;
    m.cfg_cond_lo = stateful_alu_encode(prog.cond_lo, w);
    m.cfg_cond_hi = stateful_alu_encode(prog.cond_hi, w);
    m.cfg_update_lo_1 = stateful_alu_encode(prog.update_lo_1, w);
    m.cfg_update_lo_2 = stateful_alu_encode(prog.update_lo_2, w);
    m.cfg_update_hi_1 = stateful_alu_encode(prog.update_hi_1, w);
    m.cfg_update_hi_2 = stateful_alu_encode(prog.update_hi_2, w);
    m.cfg_output = unsigned(prog.output);
    m.cfg_output_when = prog.output_when;
    m.cfg_rows = rows;
    m.in_valid = 0;
    m.cp_valid = 0;
    d.reset();
  }

  void tick(const in& x) override {
    V& m = *d;
    m.in_valid = x.valid;
    m.in_index = x.index;
    m.in_phv_a = x.a;
    m.in_phv_b = x.b;
    m.cp_valid = x.cp_valid;
    m.cp_op = x.cp_op;
    m.cp_index = x.cp_index;
    m.cp_lo = x.cp_lo;
    m.cp_hi = x.cp_hi;
    d.tick();
    ready = m.ready;
    out_valid = m.out_valid;
    value = m.out_value;
    p_lo = m.out_p_lo;
    p_hi = m.out_p_hi;
    rvalid = m.cp_rvalid;
    rlo = m.cp_rdata_lo;
    rhi = m.cp_rdata_hi;
  }

  stateful_alu_counters counters() const override {
    const V& m = *d;
    return {m.cnt_executions, m.cnt_updates_lo, m.cnt_updates_hi, m.cnt_saturations};
  }

  uint32_t step_sweep(uint32_t last_row) override {
    auto& r = *d->rootp;
    const uint32_t row = r.stateful_alu__DOT__sweep_row;
    if (ready || row >= last_row) return 0;
    for (uint32_t k = row; k < last_row; ++k) r.stateful_alu__DOT__mem[k] = 0;
    r.stateful_alu__DOT__sweep_row = last_row;
    return last_row - row;
  }
};

stateful_alu_rtl::stateful_alu_rtl(const stateful_alu_config& cfg, const stateful_alu_program& prog, rtl_loop_count* count)
    : cfg_(cfg), count_(count) {
  stateful_alu_check(cfg, prog);
  if (cfg.entries > loop_entries)
    throw std::invalid_argument("--rtl stateful_alu: a register array of " + std::to_string(cfg.entries) +
                                " entries; the RTL in the loop was Verilated with ENTRIES=" + std::to_string(loop_entries));
  if (cfg.latency_cycles != rtl_latency)
    throw std::invalid_argument("--rtl stateful_alu: latency_cycles is " + std::to_string(cfg.latency_cycles) +
                                "; the RTL's pipeline takes " + std::to_string(rtl_latency));
  mask_ = cfg.width_bits == 32 ? 0xFFFFFFFFu : (1u << cfg.width_bits) - 1;
  switch (cfg.width_bits) {   // stateful_alu_check allows these three only
    case 8: m_ = std::make_unique<model_of<Vstateful_alu_loop8>>(); break;
    case 16: m_ = std::make_unique<model_of<Vstateful_alu_loop16>>(); break;
    default: m_ = std::make_unique<model_of<Vstateful_alu>>(); break;
  }
  m_->load(prog, cfg.width_bits, cfg.entries, count ? &count->cycles : nullptr);
  // The sweep clears the array's rows, one a cycle: the RTL took cfg_rows.
  if (const uint32_t sweep = settle(); sweep != cfg.entries)
    throw std::logic_error("--rtl stateful_alu: the RTL's sweep took " + std::to_string(sweep) + " cycles for an array of " +
                           std::to_string(cfg.entries) + " rows");
}

stateful_alu_rtl::~stateful_alu_rtl() = default;

void stateful_alu_rtl::tick(const in& x) const {
  m_->tick(x);
  issued_ += x.valid;
  results_ += m_->out_valid;
  if (owed_) --owed_;
}

void stateful_alu_rtl::issue(const in& x) const {
  tick(x);
  for (uint32_t k = 1; k < rtl_latency; ++k) tick(in{});
  owed_ = 0;   // any posted execution went out ahead of this one
  if (!(x.valid ? m_->out_valid : m_->rvalid))
    throw std::logic_error("--rtl stateful_alu: no result " + std::to_string(rtl_latency) + " cycles after issue");
  if (count_) ++count_->calls;
}

void stateful_alu_rtl::drain() const {
  while (owed_) tick(in{});
  if (results_ != issued_)
    throw std::logic_error("--rtl stateful_alu: " + std::to_string(issued_) + " executions issued, " +
                           std::to_string(results_) + " results out of the pipeline");
  counters_ = m_->counters();
}

const stateful_alu_counters& stateful_alu_rtl::counters() const {
  drain();
  return counters_;
}

uint32_t stateful_alu_rtl::settle() const {
  // The sweep zeroes one row per cycle; a little over the array's rows is a stuck RTL.
  uint32_t k = 0;
  while (!m_->ready) {
    if (k > cfg_.entries + 8) throw std::logic_error("--rtl stateful_alu: the RTL stayed not ready after its sweep");
    if (k == rtl_latency && step_sweeps_) {
      // The executions a clear found in the pipeline are out, so until the last row the sweep's
      // cycles are quiet: each zeroes its row and moves to the next, and nothing else changes (the
      // slot takes nothing while ready is low, and every stage register holds its idle value).
      // The row's zero and the row count are stepped; the last row's cycle, which ends the
      // sweep and raises ready, is clocked.
      const uint32_t n = m_->step_sweep(cfg_.entries - 1);
      k += n;
      if (count_) count_->quiet_cycles_skipped += n;
    }
    tick(in{});
    ++k;
  }
  return k;
}

stateful_alu_rtl::in stateful_alu_rtl::execution(uint64_t pass_id, uint32_t index, uint32_t phv_a, uint32_t phv_b) {
  stateful_alu_check_index(cfg_, index);
  pass_.take(pass_id);
  in x;
  x.valid = true;
  x.index = index;
  x.a = phv_a & mask_;
  x.b = phv_b & mask_;
  return x;
}

stateful_alu_result stateful_alu_rtl::execute(uint64_t pass_id, uint32_t index, uint32_t phv_a, uint32_t phv_b) {
  issue(execution(pass_id, index, phv_a, phv_b));
  return {m_->value, m_->p_lo, m_->p_hi, rtl_latency};
}

void stateful_alu_rtl::post(uint64_t pass_id, uint32_t index, uint32_t phv_a, uint32_t phv_b) {
  tick(execution(pass_id, index, phv_a, phv_b));
  owed_ = rtl_latency - 1;
  if (count_) ++count_->calls;
}

stateful_alu_entry stateful_alu_rtl::read(uint32_t index) const {
  stateful_alu_check_index(cfg_, index);
  in x;
  x.cp_valid = true;
  x.cp_op = 0;
  x.cp_index = index;
  issue(x);
  return {m_->rlo, cfg_.dual ? m_->rhi : 0};
}

void stateful_alu_rtl::read_range(uint32_t first, uint32_t n, stateful_alu_entry* out) const {
  stateful_alu_check_range(cfg_, first, n);
  if (n == 0) return;
  in x;
  x.cp_valid = true;
  x.cp_op = 0;
  uint32_t got = 0;
  auto take = [&] {   // a result comes out rtl_latency edges after its read went in, in order
    if (!m_->rvalid) return;
    if (got == n) throw std::logic_error("--rtl stateful_alu: more read results than reads");
    out[got++] = {m_->rlo, cfg_.dual ? m_->rhi : 0};
  };
  for (uint32_t k = 0; k < n; ++k) {
    x.cp_index = first + k;
    tick(x);
    take();
  }
  for (uint32_t k = 1; k < rtl_latency; ++k) {
    tick(in{});
    take();
  }
  if (got != n)
    throw std::logic_error("--rtl stateful_alu: " + std::to_string(n) + " reads issued back to back, " + std::to_string(got) +
                           " results");
  if (count_) count_->calls += n;
}

void stateful_alu_rtl::write(uint32_t index, uint32_t lo, uint32_t hi) {
  stateful_alu_check_index(cfg_, index);
  in x;
  x.cp_valid = true;
  x.cp_op = 1;
  x.cp_index = index;
  x.cp_lo = lo & mask_;
  x.cp_hi = cfg_.dual ? hi & mask_ : 0;   // a single-word array keeps hi at 0
  tick(x);
  if (count_) ++count_->calls;
}

void stateful_alu_rtl::clear() {
  in x;
  x.cp_valid = true;
  x.cp_op = 2;
  tick(x);
  settle();
  if (count_) ++count_->calls;
}

rtl_loop_block stateful_alu_rtl_loop() {
  rtl_loop_block b;
  b.unused = [](const config& c) {
    const bool telemetry = c.boolean("telemetry.flowradar") || c.boolean("telemetry.lossradar");
    const bool sketch = c.string("lb.mode") == "balance_sketch" && c.string("lb.sketch.form") == "stateful_alu";
    return telemetry || sketch ? ""
                               : "it needs telemetry.flowradar or telemetry.lossradar = true, or lb.mode = "
                                 "\"balance_sketch\" with lb.sketch.form = \"stateful_alu\"";
  };
  b.refuses = [](const config& c) -> std::pair<std::string, std::string> {
    // The largest array each sketch would put on one ALU, by the key that sizes it.
    const int64_t n = stateful_alu_rtl::loop_entries;
    auto per_hash = [&](const char* key, const char* hashes) {
      return (c.integer(key) + c.integer(hashes) - 1) / c.integer(hashes);
    };
    std::vector<std::pair<std::string, int64_t>> arrays;
    if (c.boolean("telemetry.flowradar")) {
      arrays.push_back({"telemetry.flowradar_filter_bits", (per_hash("telemetry.flowradar_filter_bits", "telemetry.flowradar_filter_hashes") + 31) / 32});
      arrays.push_back({"telemetry.flowradar_cells", per_hash("telemetry.flowradar_cells", "telemetry.flowradar_cell_hashes")});
    }
    if (c.boolean("telemetry.lossradar"))
      arrays.push_back({"telemetry.lossradar_cells", per_hash("telemetry.lossradar_cells", "telemetry.lossradar_hashes")});
    if (c.string("lb.mode") == "balance_sketch" && c.string("lb.sketch.form") == "stateful_alu")
      arrays.push_back({"lb.sketch.buckets", c.integer("lb.sketch.buckets")});
    for (const auto& [key, entries] : arrays)
      if (entries > n)
        return {key, "an array of " + std::to_string(entries) + " entries; the stateful ALU's RTL in the loop holds " +
                         std::to_string(n)};
    return {};
  };
  b.use = [](rtl_loop& loop, rtl_loop_count* count) {
    loop.stateful_alu = [count](const stateful_alu_config& c, const stateful_alu_program& p) {
      return std::make_unique<stateful_alu_rtl>(c, p, count);
    };
  };
  return b;
}

}  // namespace netasic
