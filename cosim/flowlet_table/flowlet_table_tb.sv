// The flowlet table's lockstep bench top (cosim/flowlet_table/bench.cpp): rtl/flowlet_table.sv
// with its lookup lanes registered in front of it. Bench only: not part of the design, not read
// by `netasic synth`, not used by the RTL-in-the-loop adapter.
//
// Why: Verilator evaluates the lanes' read-modify-write when the lanes change (before the edge)
// and again after the edge (the memory and registers changed). The bench gives new lanes every
// cycle, so the evaluation after the edge was thrown away: about a quarter of the bench's
// instructions a cycle. Here the bench gives cycle c+1's lanes (next_lk_*) with the eval that
// takes edge c; these registers hand them to the table at that edge, so the one evaluation after
// it is cycle c+1's, and the table's lk_* results of cycle c+1 can be read without an eval of
// their own. The table sees the same lanes in the same cycles as without this top.
//
// The parameters have no defaults: CMake passes the table's own, read from rtl/flowlet_table.sv,
// or the bench's second set (rtl/bench_sets.txt).
module flowlet_table_tb #(
    parameter int ENTRIES,
    parameter int AGE_BITS,
    parameter int PORTS,
    parameter int SWEEP_WIDTH,
    parameter int PORT_BITS,
    parameter int CLOCK_PERIOD_PS
) (
    input  logic                       clk,
    input  logic                       rst,
    input  logic [63:0]                cfg_delta_ps,
    output logic                       ready,
    input  logic [PORTS-1:0]           next_lk_valid,     // the lanes of the cycle after this edge
    input  logic [PORTS*32-1:0]        next_lk_hash,
    input  logic [PORTS*PORT_BITS-1:0] next_lk_new_port,
    output logic [PORTS-1:0]           res_valid,
    output logic [PORTS*PORT_BITS-1:0] res_port,
    output logic [PORTS-1:0]           res_new_flowlet,
    output logic [PORTS*32-1:0]        res_index,
    output logic [PORTS-1:0]           res_path_change,
    output logic [PORTS*PORT_BITS-1:0] lk_port,
    output logic [PORTS-1:0]           lk_new_flowlet,
    output logic [PORTS*32-1:0]        lk_index,
    output logic [PORTS-1:0]           lk_path_change,
    output logic [63:0]                new_flowlets,
    output logic [63:0]                path_changes,
    output logic [63:0]                occupancy,
    output logic [63:0]                evictions,
    output logic [63:0]                sweeps,
    output logic [63:0]                sweep_conflicts,
    output logic [63:0]                sweep_overruns,
    output logic                       sweep_active,
    output logic [31:0]                sweep_position
);
  logic [PORTS-1:0] lk_valid;
  logic [PORTS*32-1:0] lk_hash;
  logic [PORTS*PORT_BITS-1:0] lk_new_port;
  always_ff @(posedge clk) begin
    lk_valid <= next_lk_valid;
    lk_hash <= next_lk_hash;
    lk_new_port <= next_lk_new_port;
  end

  flowlet_table #(
      .ENTRIES(ENTRIES),
      .AGE_BITS(AGE_BITS),
      .PORTS(PORTS),
      .SWEEP_WIDTH(SWEEP_WIDTH),
      .PORT_BITS(PORT_BITS),
      .CLOCK_PERIOD_PS(CLOCK_PERIOD_PS)
  ) flowlet_table (
      .*
  );
endmodule
