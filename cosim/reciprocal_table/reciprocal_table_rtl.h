// RTL in the loop for HPCC's reciprocal table: the divisions HPCC's window update asks of it
// (reciprocal_table_if, systemc/blocks/reciprocal_table.h), answered by the Verilated
// rtl/reciprocal_table.sv. Free of Verilator's headers (the model is behind a pointer to an
// implementation).
//
// At construction the RTL is loaded from the run's table through its table write port (load(),
// which the cosim bench uses too); then each division goes through its four stages, one call at a
// time.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "blocks/reciprocal_table.h"
#include "cosim/harness/rtl_loop_register.h"

namespace netasic {

class reciprocal_table_rtl : public reciprocal_table_if {
 public:
  // std::invalid_argument unless `table` has the Verilated sizes (the default table: epsilon
  // 1/128, 22 input bits, 24 mantissa bits, 1400 entries). `count`, if given, counts the
  // divisions answered and the cycles clocked (the table's load included).
  explicit reciprocal_table_rtl(const reciprocal_table& table, rtl_loop_count* count = nullptr);
  ~reciprocal_table_rtl() override;
  reciprocal_table_rtl(const reciprocal_table_rtl&) = delete;
  reciprocal_table_rtl& operator=(const reciprocal_table_rtl&) = delete;

  // std::logic_error if the RTL refuses n (the table's range is checked by the caller).
  uint64_t divide(uint64_t x, uint64_t n) const override;

  // Loads `t` into a Verilated reciprocal_table as the control plane would: entry k and key k in
  // one cycle, then each octave's base and count. `tick` clocks the model once.
  template <class Model, class Tick>
  static void load(Model& m, const reciprocal_table& t, Tick tick);

 private:
  static unsigned octave(uint64_t n) {
    unsigned e = 0;
    while (n >>= 1) ++e;
    return e;   // floor(log2 n), n >= 1
  }

  struct impl;
  std::unique_ptr<impl> p_;
  rtl_loop_count* count_;
};

// `netasic run --rtl reciprocal_table`.
rtl_loop_block reciprocal_table_rtl_loop();

template <class Model, class Tick>
void reciprocal_table_rtl::load(Model& m, const reciprocal_table& t, Tick tick) {
  const unsigned input_bits = t.config().input_bits;
  const auto& keys = t.keys();
  std::vector<uint32_t> base(input_bits + 2, 0), count(input_bits + 1, 0);
  for (uint64_t key : keys) ++count[octave(key)];
  for (unsigned e = 0; e <= input_bits; ++e) base[e + 1] = base[e] + count[e];
  for (size_t k = 0; k < keys.size(); ++k) {
    const reciprocal_table::value v = t.lookup(keys[k]);
    const unsigned e = octave(keys[k]);
    m.tbl_we_entry = 1;
    m.tbl_index = uint32_t(k);
    m.tbl_mantissa = uint32_t(v.mantissa);
    m.tbl_shift = v.shift;
    m.tbl_we_key = 1;
    m.tbl_octave = e;
    m.tbl_slot = uint32_t(k - base[e]);
    m.tbl_key = uint32_t(keys[k]);
    tick();
  }
  m.tbl_we_entry = m.tbl_we_key = 0;
  for (unsigned e = 0; e <= input_bits; ++e) {
    m.tbl_we_octave = 1;
    m.tbl_octave = e;
    m.tbl_base = base[e];
    m.tbl_count = count[e];
    tick();
  }
  m.tbl_we_octave = 0;
}

}  // namespace netasic
