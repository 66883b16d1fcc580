// RTL in the loop for HPCC's reciprocal table (see the header). Built into netasic_cosim, which
// Verilates rtl/ (CMakeLists.txt).
#include "cosim/reciprocal_table/reciprocal_table_rtl.h"

#include <verilated.h>

#include <stdexcept>
#include <string>

#include "Vreciprocal_table.h"
#include "Vreciprocal_table___024root.h"
#include "cosim/harness/dut.h"

namespace netasic {

struct reciprocal_table_rtl::impl {
  cosim::dut<Vreciprocal_table> m;

  void tick() { m.tick(); }
};

reciprocal_table_rtl::reciprocal_table_rtl(const reciprocal_table& t, rtl_loop_count* count) : count_(count) {
  const reciprocal_table_config& c = t.config();
  const reciprocal_table defaults{reciprocal_table_config{}};
  if (c.input_bits != defaults.config().input_bits || c.mantissa_bits != defaults.config().mantissa_bits ||
      t.entries() != defaults.entries())
    throw std::invalid_argument("--rtl reciprocal_table: the RTL is built for the default table (epsilon 1/128, 22 input "
                                "bits, 24 mantissa bits, 1400 entries); the run's table differs");
  p_ = std::make_unique<impl>();
  if (count) p_->m.count_cycles(&count->cycles);
  p_->m->rst = 1;
  p_->tick();
  p_->tick();
  p_->m->rst = 0;
  load(*p_->m, t, [this] { p_->tick(); });
}

reciprocal_table_rtl::~reciprocal_table_rtl() = default;

uint64_t reciprocal_table_rtl::divide(uint64_t x, uint64_t n) const {
  auto& m = *p_->m;
  m.in_x = x;
  m.in_n = uint32_t(n);
  m.in_valid = 1;
  p_->tick();
  m.in_valid = 0;
  for (int i = 0; i < 3 && !m.out_valid; ++i) p_->tick();
  if (!m.out_valid) throw std::logic_error("reciprocal_table RTL refused n = " + std::to_string(n));
  if (count_) ++count_->calls;
  return m.out_quotient;
}

rtl_loop_block reciprocal_table_rtl_loop() {
  const reciprocal_table_config r;
  rtl_loop_block b;
  b.fixed_keys = {{"hpcc.table_input_bits", r.input_bits}, {"hpcc.mantissa_bits", r.mantissa_bits}};
  b.unused = [](const config& c) {
    return c.string("cc.algorithm") == "hpcc" && c.string("hpcc.divider") == "table"
               ? "" : "it needs cc.algorithm = \"hpcc\" with hpcc.divider = \"table\"";
  };
  b.use = [](rtl_loop& loop, rtl_loop_count* count) {
    // One RTL table per run's table: every NIC's HPCC divides through it.
    auto loaded = std::make_shared<std::pair<const reciprocal_table*, std::shared_ptr<const reciprocal_table_if>>>();
    loop.reciprocal_table = [count, loaded](const reciprocal_table& t) {
      if (loaded->first != &t) *loaded = {&t, std::make_shared<reciprocal_table_rtl>(t, count)};
      return loaded->second;
    };
  };
  return b;
}

}  // namespace netasic
