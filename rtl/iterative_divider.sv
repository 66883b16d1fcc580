// Radix-2 restoring divider: the exact division that HPCC's reciprocal table replaces (Li et al.,
// SIGCOMM'19 §5.3; rtl/reciprocal_table.sv). HPCC's window update divides Wc * eta (below
// 2^32 * 2^24, X_BITS = 56) by U (N_BITS = 23) for a window of Q_BITS = 32 bits
// (hpcc::window_bits); a quotient that needs more bits is flagged and saturated, since the
// window clamps it anyway.
//
// One quotient bit per cycle, plus one to set up: a division issued in cycle c (in_valid while
// in_ready) answers after edge c + Q_BITS (reciprocal_table::iterative_divider_cycles). Set-up
// loads the remainder with the dividend's top X_BITS - Q_BITS bits; they overflow the quotient
// iff they are >= n. Each step shifts the next dividend bit into the remainder, subtracts n
// when it fits (the quotient bit is 1) and keeps it otherwise (restoring).
//
// out_* hold until the next result; out_valid is high for one cycle. n = 0 is refused
// (out_refused, quotient and remainder 0), as the table refuses it.
module iterative_divider #(
    parameter int X_BITS = 56,   // dividend
    parameter int N_BITS = 23,   // divisor
    parameter int Q_BITS = 32    // quotient: one cycle each
) (
    input  logic              clk,
    input  logic              rst,
    input  logic              in_valid,
    input  logic [X_BITS-1:0] in_x,
    input  logic [N_BITS-1:0] in_n,
    output logic              in_ready,
    output logic              out_valid,
    output logic              out_refused,
    output logic              out_overflow,   // x / n >= 2^Q_BITS: out_quotient = 2^Q_BITS - 1
    output logic [Q_BITS-1:0] out_quotient,
    output logic [N_BITS-1:0] out_remainder
);
  localparam int HB = X_BITS > Q_BITS ? X_BITS - Q_BITS : 1;   // the dividend's bits above the quotient's
  localparam int RB = N_BITS + 1;                               // remainder before the subtraction
  localparam int CB = $clog2(Q_BITS + 1);
  localparam int WB = (HB > N_BITS ? HB : N_BITS) + 1;          // both sides of the set-up compare

  logic              busy, refused, overflow;
  logic [CB-1:0]     left;              // quotient bits still to compute
  logic [N_BITS-1:0] n, rem;
  logic [Q_BITS-1:0] q;                 // low dividend bits still to shift in, then quotient bits

  // Set-up: the top bits of x against n.
  logic [HB-1:0] x_high;
  logic          high_overflows;
  generate
    if (X_BITS > Q_BITS) begin : g_high
      assign x_high = in_x[X_BITS-1:Q_BITS];
      assign high_overflows = {{(WB - HB){1'b0}}, x_high} >= {{(WB - N_BITS){1'b0}}, in_n};
    end else begin : g_no_high
      assign x_high = '0;
      assign high_overflows = 1'b0;
    end
  endgenerate

  // One step: shift the next bit in, subtract n when it fits.
  logic [RB-1:0] shifted, trial;
  logic          fits;
  assign shifted = {rem, q[Q_BITS-1]};
  assign trial = shifted - {1'b0, n};
`ifdef NETASIC_FAULT
  // Planted fault: a remainder exactly equal to n is taken as not fitting.
  assign fits = !trial[RB-1] && trial != '0;
`else
  assign fits = !trial[RB-1];
`endif

  always_ff @(posedge clk) begin
    if (rst) begin
      busy <= 1'b0;
      left <= '0;
      {n, rem, q, refused, overflow} <= '0;
      {out_valid, out_refused, out_overflow, out_quotient, out_remainder} <= '0;
    end else begin
      out_valid <= 1'b0;
      if (!busy && in_valid) begin
        busy <= 1'b1;
        left <= CB'(Q_BITS);
        n <= in_n;
        refused <= in_n == '0;
        overflow <= in_n != '0 && high_overflows;
        rem <= N_BITS'(x_high);          // < n unless it overflows (then unused)
        q <= in_x[Q_BITS-1:0];
      end else if (busy) begin
        rem <= fits ? trial[N_BITS-1:0] : shifted[N_BITS-1:0];
        q <= {q[Q_BITS-2:0], fits};
        left <= left - 1'b1;
        if (left == CB'(1)) begin
          busy <= 1'b0;
          out_valid <= 1'b1;
          out_refused <= refused;
          out_overflow <= overflow;
          out_quotient <= refused ? '0 : overflow ? '1 : {q[Q_BITS-2:0], fits};
          out_remainder <= refused || overflow ? '0 : fits ? trial[N_BITS-1:0] : shifted[N_BITS-1:0];
        end
      end
    end
  end
  assign in_ready = !busy;
endmodule
