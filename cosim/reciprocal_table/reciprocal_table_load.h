// Loads HPCC's reciprocal table into rtl/reciprocal_table.sv through its table write port, as the
// control plane would: entry k and key k in one cycle, then each octave's base and count. Shared
// by the cosim bench and the RTL-in-the-loop adapter. `tick` clocks the model once.
#pragma once
#include <cstdint>
#include <vector>

#include "blocks/reciprocal_table.h"

namespace netasic {

inline unsigned recip_octave(uint64_t n) {
  unsigned e = 0;
  while (n >>= 1) ++e;
  return e;   // floor(log2 n), n >= 1
}

template <class Model, class Tick>
void load_recip_tables(Model& m, const reciprocal_table& t, Tick tick) {
  const unsigned input_bits = t.config().input_bits;
  const auto& keys = t.keys();
  std::vector<uint32_t> base(input_bits + 2, 0), count(input_bits + 1, 0);
  for (uint64_t key : keys) ++count[recip_octave(key)];
  for (unsigned e = 0; e <= input_bits; ++e) base[e + 1] = base[e] + count[e];
  for (size_t k = 0; k < keys.size(); ++k) {
    const reciprocal_table::value v = t.lookup(keys[k]);
    const unsigned e = recip_octave(keys[k]);
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
