// FlowRadar's collector decoders (cores, no SystemC): Li's thesis §4.4.
//
//   SingleDecode (Alg. 7)  peel one switch's table: a cell with FlowCount = 1 whose FlowXOR hashes
//                          back to it and passes the filter holds exactly one flow; read the flow
//                          and its PacketCount, remove both from its k_c cells, repeat.
//   FlowDecode (Alg. 8)    across neighbours: a flow decoded at A_i, not yet known at A_j and in
//                          A_j's flow filter, is XORed out of A_j's cells (FlowCount - 1), and
//                          A_j is peeled again, until nothing changes. With routing information
//                          only the flow's previous and next hop are checked, else every neighbour.
//   CounterDecode (Alg. 9) the packet counts of a switch whose flows are all known: solve M x = b
//                          (M[l][t] = 1 when flow t hashes to cell l, b = the cells' PacketCount)
//                          by sparse least squares (Eigen's LeastSquaresConjugateGradient, CGLS,
//                          the same Krylov family as MATLAB's lsqr) with the paper's two speed-ups:
//                          neighbours' counters as the initial guess, and stopping as soon as
//                          every value rounds to a solution (M round(x) = b exactly, i.e. every
//                          value is within +-0.5 of the integer counts).
// Every decoder reports failure rather than a flow it cannot prove: a peeled flow must hash to
// the cell it came from and pass the filter.
#pragma once
#include <cstdint>
#include <map>
#include <vector>

#include "blocks/flowradar.h"

namespace netasic {

struct flowradar_single_result {
  std::vector<flowradar_flow> flows;   // decoded, in peeling order
  std::vector<uint32_t> packets;       // each flow's PacketCount (mod 2^packet_count_bits)
  bool complete = false;               // every cell peeled to zero: every flow of the table decoded
  bool counters_consistent = false;    // and every PacketCount to zero as well
};

flowradar_single_result flowradar_single_decode(const flowradar_table& t);

struct flowradar_counter_options {
  bool use_guess = true;               // speed-up 1: start from the given counters
  bool integer_stop = true;            // speed-up 2: stop once round(x) solves M x = b
  unsigned max_iterations = 0;         // 0: 4 x flows + 100
};

struct flowradar_counter_result {
  std::vector<uint64_t> packets;       // per flow, in the order given
  bool solved = false;                 // M round(x) = b holds exactly, and M has full column rank (one solution)
  unsigned iterations = 0;
};

// CounterDecode for one table and its complete flow list; guess (same order, may be empty)
// seeds the solver. More flows than cells, or a rank-deficient M: not solved (the system has many
// solutions; a sparse QR gives the rank).
flowradar_counter_result flowradar_counter_decode(const flowradar_table& t, const std::vector<flowradar_flow>& flows,
                                                  const std::vector<double>& guess, const flowradar_counter_options& o = {});

// NetDecode over one epoch's tables (FlowDecode, then CounterDecode where needed).
struct flowradar_net_input {
  std::vector<const flowradar_table*> tables;          // one per switch (null: no table)
  std::vector<std::vector<unsigned>> neighbours;       // switch -> its neighbours (indices into tables)
  const std::map<flowradar_flow, std::vector<unsigned>>* routes = nullptr;   // flow -> its switches in order
};

struct flowradar_net_switch {
  std::vector<flowradar_flow> flows;
  std::vector<uint64_t> packets;                       // per flow
  std::vector<uint8_t> counted;                        // per flow: packets[i] is its count (peeled, or solved)
  bool single_complete = false;                        // SingleDecode alone decoded every flow
  bool flows_complete = false;                         // after FlowDecode
  bool counters_ok = false;                            // every flow counted: SingleDecode, or CounterDecode solved
  unsigned solver_iterations = 0;
};

struct flowradar_net_result {
  std::vector<flowradar_net_switch> sw;
  double flow_decode_s = 0, counter_decode_s = 0;     // wall time of the two phases
};

flowradar_net_result flowradar_net_decode(const flowradar_net_input& in, const flowradar_counter_options& o = {});

}  // namespace netasic
