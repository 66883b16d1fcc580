// Stateful ALU: the register action of a match-action stage, in the style of Tofino's
// RegisterAction (C++ core: systemc/blocks/stateful_alu.h). A register array in SRAM, and per
// packet one read-modify-write of one entry computed by a small program; the program is runtime
// configuration (cfg_*), as a stage's action configuration registers are.
//
// Pipeline (latency 4 = stateful_alu_config::latency_cycles, one execution per cycle):
//   1 SRAM read of the entry (synchronous read port)
//   2 predicates and updates. Both sit in one cycle because they form the RMW loop: the next
//     packet on the same entry needs this result in its own cycle 2. The word it works on is
//     forwarded from the two executions ahead of it (one in stage 3, not yet written; one
//     written at the same edge as this one's read), so back-to-back executions on one entry
//     give exactly what the core gives executing in order.
//   3 output select, write-back into SRAM (write port)
//   4 result register
//
// Program encoding (field = C++ stateful_alu_program field, enums with their C++ values):
//   cfg_cond_lo/hi      {used, x[2:0], y[2:0], relop[2:0], is_signed, constant[WIDTH-1:0]}
//   cfg_update_*        {used, when[3:0], op[3:0], x[2:0], y[2:0], is_signed, constant[WIDTH-1:0]}
//   cfg_output          stateful_alu_output (none, lo_old, hi_old, lo_new, hi_new, predicate)
//   cfg_output_when     4-bit truth table over {p_hi, p_lo}
// On a single-word array (DUAL = 0) mem_hi reads 0 and the hi updates do not exist, as in the
// core (which refuses programs that use them).
//
// Control plane (the core's read/write/clear): shares the execution slot, so it is ordered with
// the packets exactly as the core's calls are. It takes the slot only when in_valid is low (the
// stage's scheduler gives it idle cycles). A read returns the word with every earlier
// execution applied (cp_rvalid 4 cycles later, like a result); a write is a `set` of both words.
// clear (and reset) zeroes the array's rows in use with a sweep of one row per cycle; `ready` is
// low meanwhile and packets or control-plane ops offered then are dropped. Executions still in
// flight when a clear arrives produce their results but do not write back (the clear comes
// after them). An index >= cfg_rows (or >= ENTRIES) is refused (no execution, no count, no
// result), as the core refuses an index >= its entries with std::out_of_range.
//
// cfg_rows is the array's size as the program configures it (stateful_alu_config::entries), 1
// to ENTRIES: the SRAM is built for ENTRIES rows, and an array configured smaller sweeps only
// its own rows, as a stage's SRAM blocks are sized to the table placed in them. A value outside
// 1..ENTRIES sweeps all ENTRIES rows (and 0 refuses every index).
//
// The core's pass_id rule (no second execute in the same pass) has no port here: one RMW port
// taking at most one packet per cycle is that rule in hardware.
module stateful_alu #(
    parameter int ENTRIES = 1024,  // a register array of one stage (stateful_alu_config::entries is 1)
    parameter int WIDTH   = 32,    // stateful_alu_config::width_bits: 8, 16 or 32
    parameter bit DUAL    = 1'b1   // stateful_alu_config::dual; C++ default false, 1 here so that the
                                   // cosim can run flowradar_cell / fingerprint_vote (need hi)
) (
    input  logic                  clk,
    input  logic                  rst,
    // program, held constant after reset
    input  logic [WIDTH+10:0]     cfg_cond_lo,
    input  logic [WIDTH+10:0]     cfg_cond_hi,
    input  logic [WIDTH+15:0]     cfg_update_lo_1,
    input  logic [WIDTH+15:0]     cfg_update_lo_2,
    input  logic [WIDTH+15:0]     cfg_update_hi_1,
    input  logic [WIDTH+15:0]     cfg_update_hi_2,
    input  logic [2:0]            cfg_output,
    input  logic [3:0]            cfg_output_when,
    input  logic [31:0]           cfg_rows,
    // packet: execute(index, phv_a, phv_b); the PHV fields are WIDTH-bit containers
    input  logic                  in_valid,
    input  logic [31:0]           in_index,
    input  logic [WIDTH-1:0]      in_phv_a,
    input  logic [WIDTH-1:0]      in_phv_b,
    // control plane: cp_op 0 read, 1 write, 2 clear
    input  logic                  cp_valid,
    input  logic [1:0]            cp_op,
    input  logic [31:0]           cp_index,
    input  logic [WIDTH-1:0]      cp_lo,
    input  logic [WIDTH-1:0]      cp_hi,
    output logic                  ready,
    // result of the execution issued 4 cycles earlier (all zero when out_valid is low)
    output logic                  out_valid,
    output logic [WIDTH-1:0]      out_value,
    output logic                  out_p_lo,
    output logic                  out_p_hi,
    output logic                  out_sat_lo,      // the written lo came from a clamped sadd/ssub
    output logic                  out_sat_hi,
    output logic                  cp_rvalid,
    output logic [WIDTH-1:0]      cp_rdata_lo,
    output logic [WIDTH-1:0]      cp_rdata_hi,
    // stateful_alu_counters, counted with the result
    output logic [63:0]           cnt_executions,
    output logic [63:0]           cnt_updates_lo,
    output logic [63:0]           cnt_updates_hi,
    output logic [63:0]           cnt_saturations
);
  localparam int AW = ENTRIES > 1 ? $clog2(ENTRIES) : 1;
  localparam int WORD = DUAL ? 2 * WIDTH : WIDTH;
  localparam logic [31:0] NUM_ENTRIES = ENTRIES;
  localparam logic [AW-1:0] LAST_ROW = AW'(ENTRIES - 1);
  localparam logic [WIDTH-1:0] UMAX = '1;
  localparam logic [WIDTH-1:0] SMAX = {1'b0, {(WIDTH - 1) {1'b1}}};
  localparam logic [WIDTH-1:0] SMIN = {1'b1, {(WIDTH - 1) {1'b0}}};
  localparam logic [1:0] CP_READ = 2'd0, CP_WRITE = 2'd1, CP_CLEAR = 2'd2;

  // ---- expression units ---------------------------------------------------------------------

  // stateful_alu_operand: zero, constant, mem_lo, mem_hi, phv_a, phv_b
  function automatic logic [WIDTH-1:0] operand(input logic [2:0] sel, input logic [WIDTH-1:0] k, lo, hi, a, b);
    case (sel)
      3'd1: operand = k;
      3'd2: operand = lo;
      3'd3: operand = hi;
      3'd4: operand = a;
      3'd5: operand = b;
      default: operand = '0;
    endcase
  endfunction

  // x < y; two's complement when sgn (flipping both sign bits makes it an unsigned compare).
  function automatic logic less(input logic [WIDTH-1:0] x, y, input logic sgn);
    less = {x[WIDTH-1] ^ sgn, x[WIDTH-2:0]} < {y[WIDTH-1] ^ sgn, y[WIDTH-2:0]};
  endfunction

  // A predicate {used, x, y, relop, is_signed, constant}; false when unused.
  function automatic logic predicate(input logic [WIDTH+10:0] p, input logic [WIDTH-1:0] lo, hi, a, b);
    logic [WIDTH-1:0] x, y;
    logic r;
    x = operand(p[WIDTH+9:WIDTH+7], p[WIDTH-1:0], lo, hi, a, b);
    y = operand(p[WIDTH+6:WIDTH+4], p[WIDTH-1:0], lo, hi, a, b);
    case (p[WIDTH+3:WIDTH+1])   // stateful_alu_relop: eq, ne, lt, le, gt, ge
      3'd0: r = x == y;
      3'd1: r = x != y;
      3'd2: r = less(x, y, p[WIDTH]);
      3'd3: r = !less(y, x, p[WIDTH]);
      3'd4: r = less(y, x, p[WIDTH]);
      3'd5: r = !less(x, y, p[WIDTH]);
      default: r = 1'b0;
    endcase
    predicate = p[WIDTH+10] & r;
  endfunction

  // One update's value {saturated, result}; wraps at 2^WIDTH except sadd/ssub, which clamp.
  function automatic logic [WIDTH:0] update(input logic [WIDTH+10:0] u, input logic [WIDTH-1:0] lo, hi, a, b);
    logic [WIDTH-1:0] x, y, r;
    logic [WIDTH:0] sum, dif;   // with carry / borrow
    logic sgn, sat;
    x = operand(u[WIDTH+6:WIDTH+4], u[WIDTH-1:0], lo, hi, a, b);
    y = operand(u[WIDTH+3:WIDTH+1], u[WIDTH-1:0], lo, hi, a, b);
    sgn = u[WIDTH];
    sum = {1'b0, x} + {1'b0, y};
    dif = {1'b0, x} - {1'b0, y};
    sat = 1'b0;
    case (u[WIDTH+10:WIDTH+7])   // stateful_alu_op
      4'd0: r = sum[WIDTH-1:0];                                   // add
      4'd1: r = dif[WIDTH-1:0];                                   // sub
      4'd2: begin                                                 // sadd
        r = sum[WIDTH-1:0];
        if (!sgn && sum[WIDTH]) begin
          sat = 1'b1;
          r = UMAX;
        end else if (sgn && x[WIDTH-1] == y[WIDTH-1] && sum[WIDTH-1] != x[WIDTH-1]) begin
          sat = 1'b1;   // same signs, result sign flipped: clamp toward the operands' sign
          r = x[WIDTH-1] ? SMIN : SMAX;
        end
      end
      4'd3: begin                                                 // ssub
        r = dif[WIDTH-1:0];
        if (!sgn && dif[WIDTH]) begin
          sat = 1'b1;   // borrow: x < y
          r = '0;
        end else if (sgn && x[WIDTH-1] != y[WIDTH-1] && dif[WIDTH-1] != x[WIDTH-1]) begin
          sat = 1'b1;
          r = x[WIDTH-1] ? SMIN : SMAX;
        end
      end
      4'd4: r = less(y, x, sgn) ? y : x;                          // min (x on a tie)
      4'd5: r = less(x, y, sgn) ? y : x;                          // max (x on a tie)
      4'd6: r = x & y;
      4'd7: r = x | y;
      4'd8: r = x ^ y;
      4'd9: r = x;                                                // set
      default: r = '0;
    endcase
    update = {sat, r};
  endfunction

  // An update fires when bit {p_hi, p_lo} of its `when` table is set: the table of a used update,
  // else none (decoded as the program loads).
  function automatic logic [3:0] when_table(input logic [WIDTH+15:0] u);
    when_table = u[WIDTH+15] ? u[WIDTH+14:WIDTH+11] : 4'b0;
  endfunction

  // ---- the action configuration registers --------------------------------------------------

  // The program is loaded from cfg_* in a reset cycle, as a stage's configuration is written
  // before traffic: the bench and the loop set cfg_* with the reset and hold them after it.
  logic [WIDTH+10:0] cond_lo, cond_hi;
  logic [WIDTH+10:0] update_lo_1, update_lo_2, update_hi_1, update_hi_2;   // {op, x, y, is_signed, constant}
  logic [3:0] when_lo_1, when_lo_2, when_hi_1, when_hi_2;
  logic [2:0] output_sel;
  logic [3:0] output_when;
  logic [AW-1:0] last_row;    // the sweep's last row, and the last index taken
  logic no_rows;              // cfg_rows = 0: every index refused
  always_ff @(posedge clk) begin
    if (rst) begin
      last_row <= cfg_rows == 0 || cfg_rows > NUM_ENTRIES ? LAST_ROW : cfg_rows[AW-1:0] - AW'(1);
      no_rows <= cfg_rows == 0;
      cond_lo <= cfg_cond_lo;
      cond_hi <= cfg_cond_hi;
      update_lo_1 <= cfg_update_lo_1[WIDTH+10:0];
      when_lo_1 <= when_table(cfg_update_lo_1);
      update_lo_2 <= cfg_update_lo_2[WIDTH+10:0];
      when_lo_2 <= when_table(cfg_update_lo_2);
      update_hi_1 <= cfg_update_hi_1[WIDTH+10:0];
      when_hi_1 <= when_table(cfg_update_hi_1);
      update_hi_2 <= cfg_update_hi_2[WIDTH+10:0];
      when_hi_2 <= when_table(cfg_update_hi_2);
      output_sel <= cfg_output;
      output_when <= cfg_output_when;
    end
  end

  // ---- issue: one slot per cycle, a packet or a control-plane op ------------------------------

  logic sweeping;
  logic [AW-1:0] sweep_row;   // the row the sweep zeroes this cycle
  assign ready = ~sweeping;

  logic take_pkt, take_cp, idx_ok, do_exec, do_read, do_write, do_clear;
  logic [AW-1:0] rd_addr;
  assign take_pkt = ~sweeping & in_valid;
  assign take_cp = ~sweeping & ~in_valid & cp_valid;
  // An index is taken if it is below ENTRIES (a compare with a constant) and then, on its low
  // AW bits, not past the last row: an AW-bit compare with the register, not a 32-bit one.
  function automatic logic in_rows(input logic [31:0] idx);
    in_rows = idx < NUM_ENTRIES && idx[AW-1:0] <= last_row && !no_rows;
  endfunction
  assign idx_ok = in_rows(in_valid ? in_index : cp_index);   // the slot's index: a packet's, else the op's
  assign do_exec = take_pkt & idx_ok;
  assign do_read = take_cp & cp_op == CP_READ & idx_ok;
  assign do_write = take_cp & cp_op == CP_WRITE & idx_ok;
  assign do_clear = take_cp & cp_op == CP_CLEAR;
  assign rd_addr = in_valid ? in_index[AW-1:0] : cp_index[AW-1:0];

  // ---- SRAM: one read port (stage 1), one write port (stage 3, or the clear sweep) ------------

  // The RTL-in-the-loop adapter steps a sweep over its rows, writing them and sweep_row
  // (cosim/stateful_alu/stateful_alu_rtl.vlt makes them public).
  logic [WORD-1:0] mem[ENTRIES];
  logic [WORD-1:0] rd_word, wr_word;
  logic wr_en;
  logic [AW-1:0] wr_addr;

  // stage 1 registers
  logic s1_exec, s1_read, s1_write;
  logic [AW-1:0] s1_idx;
  logic [WIDTH-1:0] s1_a, s1_b;   // phv_a/phv_b, or the control-plane write's lo/hi

  // stage 2 registers: the execution's words and flags
  logic s2_exec, s2_read, s2_wb;
  logic [AW-1:0] s2_idx;
  logic [WIDTH-1:0] s2_old_lo, s2_old_hi, s2_new_lo, s2_new_hi;
  logic s2_p_lo, s2_p_hi, s2_upd_lo, s2_upd_hi, s2_sat_lo, s2_sat_hi;

  // stage 3 registers: result, and the word written at the edge that ended stage 3 (forwarded)
  logic s3_exec, s3_read, s3_wb;
  logic [AW-1:0] s3_idx;
  logic [WIDTH-1:0] s3_value, s3_lo, s3_hi;
  logic s3_p_lo, s3_p_hi, s3_upd_lo, s3_upd_hi, s3_sat_lo, s3_sat_hi;

  assign wr_en = sweeping | (s2_wb & ~do_clear);   // a clear supersedes the write-back in flight
  assign wr_addr = sweeping ? sweep_row : s2_idx;
  assign wr_word = sweeping ? '0 : (DUAL ? WORD'({s2_new_hi, s2_new_lo}) : WORD'(s2_new_lo));

  always_ff @(posedge clk) begin
    if (wr_en) mem[wr_addr] <= wr_word;
    rd_word <= mem[rd_addr];   // read-before-write: a same-edge write is forwarded from stage 3
  end

  // ---- stage 2: forward, test, update --------------------------------------------------------

  logic [WIDTH-1:0] rd_lo, rd_hi, cur_lo, cur_hi, new_lo, new_hi;
  logic p_lo, p_hi, fire_lo_1, fire_lo_2, fire_hi_1, fire_hi_2;
  logic sat_lo, sat_hi;

  assign rd_lo = rd_word[WIDTH-1:0];
  if (DUAL) begin : g_hi
    assign rd_hi = rd_word[WORD-1:WORD-WIDTH];
  end else begin : g_no_hi
    assign rd_hi = '0;
  end

  // Operand isolation: stage 2 works only in a cycle that carries an execution, a read or a write
  // (its words), the predicates only for an execution, and an update only when it fires; otherwise
  // they hold at zero, as a low-power design keeps them, and nothing reads them (each register they
  // feed is read under its own valid: s2_exec, s2_wb, s3_wb, s3_read). Verilator skips them too: in
  // the loop, three of an execution's four cycles and every cycle of a clear sweep are idle here,
  // and an execution computes the one or two updates that fire of its four (a fifth less of the
  // RTL's time in a FlowRadar run, docs/cosim.md).
  always_comb begin
    {cur_lo, cur_hi, p_lo, p_hi, fire_lo_1, fire_lo_2, fire_hi_1, fire_hi_2} = '0;
    {new_lo, new_hi, sat_lo, sat_hi} = '0;
    if (s1_exec | s1_read | s1_write) begin
      // The word as read, with the two executions ahead of this one applied.
      if (s2_wb && s2_idx == s1_idx) begin
        cur_lo = s2_new_lo;
        cur_hi = s2_new_hi;
      end else if (s3_wb && s3_idx == s1_idx) begin
        cur_lo = s3_lo;
        cur_hi = s3_hi;
`ifdef NETASIC_FAULT
        // Planted fault (cosim self-test): the distance-2 forward loses bit 0 of lo when phv_a is odd.
        if (s1_a[0]) cur_lo[0] = ~cur_lo[0];
`endif
      end else begin
        cur_lo = rd_lo;
        cur_hi = rd_hi;
      end

      if (s1_exec) begin
        p_lo = predicate(cond_lo, cur_lo, cur_hi, s1_a, s1_b);
        p_hi = predicate(cond_hi, cur_lo, cur_hi, s1_a, s1_b);
        fire_lo_1 = when_lo_1[{p_hi, p_lo}];
        fire_lo_2 = when_lo_2[{p_hi, p_lo}];
        fire_hi_1 = DUAL & when_hi_1[{p_hi, p_lo}];
        fire_hi_2 = DUAL & when_hi_2[{p_hi, p_lo}];
      end

      // Every update sees the words as read; _1 wins over _2, neither keeps the word.
      new_lo = cur_lo;
      if (fire_lo_1) {sat_lo, new_lo} = update(update_lo_1, cur_lo, cur_hi, s1_a, s1_b);
      else if (fire_lo_2) {sat_lo, new_lo} = update(update_lo_2, cur_lo, cur_hi, s1_a, s1_b);
      else if (s1_write) new_lo = s1_a;
      new_hi = cur_hi;
      if (fire_hi_1) {sat_hi, new_hi} = update(update_hi_1, cur_lo, cur_hi, s1_a, s1_b);
      else if (fire_hi_2) {sat_hi, new_hi} = update(update_hi_2, cur_lo, cur_hi, s1_a, s1_b);
      else if (s1_write && DUAL) new_hi = s1_b;   // dropped on a single-word array
    end
  end

  // ---- stage 3: output select ----------------------------------------------------------------

  logic [WIDTH-1:0] value;
  always_comb begin
    value = '0;
    if (s2_exec && output_when[{s2_p_hi, s2_p_lo}]) begin
      case (output_sel)   // stateful_alu_output
        3'd1: value = s2_old_lo;
        3'd2: value = s2_old_hi;
        3'd3: value = s2_new_lo;
        3'd4: value = s2_new_hi;
        3'd5: value = {{(WIDTH - 2) {1'b0}}, s2_p_hi, s2_p_lo};
        default: value = '0;
      endcase
    end
  end

  // ---- registers -----------------------------------------------------------------------------

  always_ff @(posedge clk) begin
    if (rst) begin
      sweeping <= 1'b1;
      sweep_row <= '0;
      s1_exec <= 1'b0;
      s1_read <= 1'b0;
      s1_write <= 1'b0;
      s2_exec <= 1'b0;
      s2_read <= 1'b0;
      s2_wb <= 1'b0;
      {s2_p_lo, s2_p_hi, s2_upd_lo, s2_upd_hi, s2_sat_lo, s2_sat_hi} <= '0;
      s3_exec <= 1'b0;
      s3_read <= 1'b0;
      s3_wb <= 1'b0;
      s3_value <= '0;
      {s3_p_lo, s3_p_hi, s3_upd_lo, s3_upd_hi, s3_sat_lo, s3_sat_hi} <= '0;
      out_valid <= 1'b0;
      out_value <= '0;
      out_p_lo <= 1'b0;
      out_p_hi <= 1'b0;
      out_sat_lo <= 1'b0;
      out_sat_hi <= 1'b0;
      cp_rvalid <= 1'b0;
      cp_rdata_lo <= '0;
      cp_rdata_hi <= '0;
      cnt_executions <= '0;
      cnt_updates_lo <= '0;
      cnt_updates_hi <= '0;
      cnt_saturations <= '0;
    end else begin
      // clear sweep: one row per cycle
      if (do_clear) begin
        sweeping <= 1'b1;
        sweep_row <= '0;
      end else if (sweeping) begin
        sweep_row <= sweep_row + 1'b1;
        if (sweep_row == last_row) sweeping <= 1'b0;
      end

      // stage 1
      s1_exec <= do_exec;
      s1_read <= do_read;
      s1_write <= do_write;
      s1_idx <= rd_addr;
      s1_a <= in_valid ? in_phv_a : cp_lo;
      s1_b <= in_valid ? in_phv_b : cp_hi;

      // stage 2
      s2_exec <= s1_exec;
      s2_read <= s1_read;
      s2_wb <= (s1_exec | s1_write) & ~do_clear;
      s2_idx <= s1_idx;
      s2_old_lo <= cur_lo;
      s2_old_hi <= cur_hi;
      s2_new_lo <= new_lo;
      s2_new_hi <= new_hi;
      s2_p_lo <= s1_exec & p_lo;
      s2_p_hi <= s1_exec & p_hi;
      s2_upd_lo <= fire_lo_1 | fire_lo_2;
      s2_upd_hi <= fire_hi_1 | fire_hi_2;
      s2_sat_lo <= sat_lo;
      s2_sat_hi <= sat_hi;

      // stage 3
      s3_exec <= s2_exec;
      s3_read <= s2_read;
      s3_wb <= s2_wb & ~do_clear;
      s3_idx <= s2_idx;
      s3_value <= value;
      s3_lo <= s2_new_lo;
      s3_hi <= s2_new_hi;
      s3_p_lo <= s2_p_lo;
      s3_p_hi <= s2_p_hi;
      s3_upd_lo <= s2_upd_lo;
      s3_upd_hi <= s2_upd_hi;
      s3_sat_lo <= s2_sat_lo;
      s3_sat_hi <= s2_sat_hi;

      // stage 4: result and counters
      out_valid <= s3_exec;
      out_value <= s3_value;
      out_p_lo <= s3_p_lo;
      out_p_hi <= s3_p_hi;
      out_sat_lo <= s3_sat_lo;
      out_sat_hi <= s3_sat_hi;
      cp_rvalid <= s3_read;
      cp_rdata_lo <= s3_read ? s3_lo : '0;
      cp_rdata_hi <= s3_read ? s3_hi : '0;
      cnt_executions <= cnt_executions + {63'd0, s3_exec};
      cnt_updates_lo <= cnt_updates_lo + {63'd0, s3_upd_lo};
      cnt_updates_hi <= cnt_updates_hi + {63'd0, s3_upd_hi};
      cnt_saturations <= cnt_saturations + {63'd0, s3_sat_lo} + {63'd0, s3_sat_hi};
    end
  end
endmodule
