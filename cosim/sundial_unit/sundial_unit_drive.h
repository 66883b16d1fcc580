// How a caller drives rtl/sundial_unit.sv, shared by its lockstep bench (bench.cpp) and its
// adapter in the loop (sundial_unit_rtl.cpp): the command codes, what a cycle's ports carry,
// and what an edge did. Templated on the Verilated class (the bench has two parameter sets).
//
// Cycle m is the oscillator's edge m. A message or command of cycle m happens at a true time t
// in [edge m-1, edge m): cycle_of(t) = cycles(t) + 1. Within a cycle the RTL checks the message
// first, then applies the command, then runs the edge's timers, so a message that arrives
// before a timeout's edge wins the race, as in the core.
#pragma once
#include <cstdint>
#include <vector>

#include "clock/oscillator.h"
#include "clock/sundial_unit.h"

namespace netasic::cosim::sundial_drive {

// cmd_op: the core's setters, as the RTL's OP_* localparams number them.
enum op : uint8_t { op_none, op_parent, op_tx_mask, op_eps_base, op_link_delay, op_first, op_second, op_root, op_evict };

inline uint64_t cycle_of(const oscillator& clk, uint64_t t_ps) { return clk.cycles(t_ps) + 1; }

inline uint64_t mask_of(const std::vector<uint32_t>& ports) {
  uint64_t m = 0;
  for (uint32_t p : ports) m |= uint64_t(1) << p;
  return m;
}

inline std::vector<uint32_t> ports_of(uint64_t mask) {
  std::vector<uint32_t> v;
  for (uint32_t p = 0; p < 64; ++p)
    if (mask >> p & 1) v.push_back(p);
  return v;
}

// o_verdict's code: 0 no message, 1 valid, 2 invalid, 3 ignored.
inline uint64_t verdict_code(sundial_verdict v) {
  return v == sundial_verdict::valid ? 1 : v == sundial_verdict::invalid ? 2 : 3;
}
inline sundial_verdict verdict_of(uint64_t code) {
  return code == 1 ? sundial_verdict::valid : code == 2 ? sundial_verdict::invalid : sundial_verdict::ignored;
}

// Nothing arrives in this cycle.
template <class V>
void idle(V& m) {
  m.rx_valid = 0;
  m.cmd_valid = 0;
  m.csr_valid = 0;
}

// A sync-message on `port` with the sender's stamp; `osc_ps` is the RTL's oscillator reading at
// its arrival (its local clock is that plus its adjustment register).
template <class V>
void message(V& m, uint32_t port, int64_t tx_local_ps, uint64_t osc_ps) {
  m.rx_valid = 1;
  m.rx_port = port;
  m.rx_tx_local = uint64_t(tx_local_ps);
  m.rx_osc = osc_ps;
}

template <class V>
void command(V& m, uint8_t opcode, uint32_t port, uint64_t data) {
  m.cmd_valid = 1;
  m.cmd_op = opcode;
  m.cmd_port = port;
  m.cmd_data = data;
}

template <class V>
void register_access(V& m, bool write, uint32_t addr, uint32_t data) {
  m.csr_valid = 1;
  m.csr_write = write;
  m.csr_addr = addr;
  m.csr_wdata = data;
}

// The configuration the RTL loads at reset, in edges.
template <class V>
void configure(V& m, uint64_t interval_edges, uint32_t first_timeout_edges, uint32_t max_drift_ppb) {
  m.cfg_interval = interval_edges;
  m.cfg_first_timeout = first_timeout_edges;
  m.cfg_max_drift_ppb = max_drift_ppb;
  idle(m);
}

// What the edge just taken raised.
struct edge_events {
  unsigned sends = 0;             // on becoming root (if the cycle carried op_root) and periodic
  bool first = false, second = false;
  bool any() const { return sends || first || second; }
};
template <class V>
edge_events events_of(const V& m) {
  return {unsigned(m.o_sends), bool(m.o_first_timeout), bool(m.o_second_timeout)};
}

}  // namespace netasic::cosim::sundial_drive
