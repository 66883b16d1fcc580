// Flowlet table: LetFlow's flowlet detector (Vanini et al., NSDI'17, §3), also CONGA's (C++ core:
// systemc/blocks/flowlet_table.h, datasheet docs/datasheets/flowlet_table.md). Each entry holds a
// valid bit, an age counter and a port; a packet's hash picks the entry (hash % ENTRIES). A hit
// follows the stored port and clears the age; a miss starts a new flowlet on lk_new_port.
//
// Memory: ROWS rows of SWEEP_WIDTH entries (one SRAM row per checker visit), PORTS read-modify-
// write slots per cycle (PORTS read ports, PORTS write ports). Lookup lane j owns slot j when
// valid; the checker takes the lowest free slot, and waits (a sweep conflict) when all PORTS
// lanes are valid: packets are never stalled. Within a cycle the lanes go in order (lane 1 sees
// lane 0's update to the same row) and the checker comes last, all in the one read-modify-write:
// each slot reads its row combinationally, the rows are merged in that order and written at the
// edge, one write per row (a lane's write is dropped when a later slot rewrites its row).
//
// The checker: a sweep starts at each Delta boundary, cycle T_s = ceil(s * Delta / P), found with
// a remainder register rem = s * Delta - c * P (the boundary is this cycle when rem <= 0). On its
// visit a valid entry with age 2^AGE_BITS - 1 is invalidated, otherwise age + 1. A boundary that
// finds the sweep running is an overrun: the pending bit starts the next sweep the cycle after.
//
// "Ever written" (for path_changes) costs no bit: an invalidated entry keeps its age at the
// maximum, so an entry is written iff valid or age != 0; the init sweep after reset clears the
// table to all zeros (one row per cycle, ROWS cycles, then `ready`). Entry: {valid, age, port}.
//
// Cycle c: lk_valid, lk_hash and lk_new_port of cycle c go in before edge c; lk_port,
// lk_new_flowlet, lk_index and lk_path_change are their results combinationally in cycle c (for a
// stage that uses them in the lookup cycle, and for the RTL-in-the-loop adapter
// cosim/flowlet_table/flowlet_table_rtl.cpp, which must answer each lookup before it knows whether another
// comes in the same cycle). After edge c, res_* hold cycle c's results, lk_* registered (held
// while res_valid is low), and the counters and sweep state include cycle c's checker step: the
// core's counters() after advance((c + 1) * P).
module flowlet_table #(
    parameter int ENTRIES         = 65536,
    parameter int AGE_BITS        = 1,
    parameter int PORTS           = 2,
    parameter int SWEEP_WIDTH     = 8,
    parameter int PORT_BITS       = 8,
    parameter int CLOCK_PERIOD_PS = 1000
) (
    input  logic                       clk,
    input  logic                       rst,
    input  logic [63:0]                cfg_delta_ps,     // Delta in ps (< 2^63), constant after reset
    output logic                       ready,            // init sweep done: lookups and checker run
    input  logic [PORTS-1:0]           lk_valid,
    input  logic [PORTS*32-1:0]        lk_hash,
    input  logic [PORTS*PORT_BITS-1:0] lk_new_port,
    output logic [PORTS-1:0]           res_valid,
    output logic [PORTS*PORT_BITS-1:0] res_port,
    output logic [PORTS-1:0]           res_new_flowlet,
    output logic [PORTS*32-1:0]        res_index,
    output logic [PORTS-1:0]           res_path_change,
    output logic [PORTS*PORT_BITS-1:0] lk_port,          // this cycle's results, combinational
    output logic [PORTS-1:0]           lk_new_flowlet,
    output logic [PORTS*32-1:0]        lk_index,
    output logic [PORTS-1:0]           lk_path_change,   // a new flowlet moved the entry's port
    output logic [63:0]                new_flowlets,
    output logic [63:0]                path_changes,
    output logic [63:0]                occupancy,
    output logic [63:0]                evictions,
    output logic [63:0]                sweeps,
    output logic [63:0]                sweep_conflicts,
    output logic [63:0]                sweep_overruns,
    output logic                       sweep_active,
    output logic [31:0]                sweep_position     // next entry the sweep visits (ENTRIES when done)
);
  localparam int EB = 1 + AGE_BITS + PORT_BITS;                        // entry bits
  localparam int RW = SWEEP_WIDTH * EB;                                // row bits
  localparam int ROWS = (ENTRIES + SWEEP_WIDTH - 1) / SWEEP_WIDTH;
  localparam int IB = ENTRIES > 1 ? $clog2(ENTRIES) : 1;
  localparam int RB = ROWS > 1 ? $clog2(ROWS) : 1;
  localparam int SB = SWEEP_WIDTH > 1 ? $clog2(SWEEP_WIDTH) : 1;
  localparam int PB = PORTS > 1 ? $clog2(PORTS) : 1;
  localparam bit ENT_POW2 = (ENTRIES & (ENTRIES - 1)) == 0;
  localparam bit SW_POW2 = (SWEEP_WIDTH & (SWEEP_WIDTH - 1)) == 0;
  localparam logic [AGE_BITS-1:0] AGE_MAX = '1;
  localparam logic [RB-1:0] LAST_ROW = RB'(ROWS - 1);
  localparam logic [31:0] ENTRIES32 = 32'(ENTRIES);

  // hash % ENTRIES, a bit slice when ENTRIES is a power of two; an index's row and slot likewise.
  function automatic logic [IB-1:0] index_of(input logic [31:0] h);
    if (ENT_POW2) index_of = IB'(h & (ENTRIES32 - 32'd1));
    else index_of = IB'(h % ENTRIES32);
  endfunction
  function automatic logic [RB-1:0] row_of(input logic [IB-1:0] i);
    if (SW_POW2) row_of = RB'(32'(i) >> $clog2(SWEEP_WIDTH));
    else row_of = RB'(32'(i) / 32'(SWEEP_WIDTH));
  endfunction
  function automatic logic [SB-1:0] slot_of(input logic [IB-1:0] i);
    if (SW_POW2) slot_of = SB'(32'(i) & 32'(SWEEP_WIDTH - 1));
    else slot_of = SB'(32'(i) % 32'(SWEEP_WIDTH));
  endfunction

  logic [RW-1:0] mem[ROWS];   // no reset: cleared by the init sweep

  // ---- state ------------------------------------------------------------------------------------
  logic [RB-1:0] init_row;
  // The RTL-in-the-loop adapter reads the memory and the sweep state and writes rem, chk_row and
  // sweep_position, to take a stretch of quiet cycles, in which only the timer and the sweep's
  // position move, in one step (cosim/flowlet_table/flowlet_table_rtl.vlt makes them public).
  logic signed [63:0] rem;    // s * Delta - c * P, in (-P, Delta]: Delta < 2^63 ps
  logic active, pending;
  logic [RB-1:0] chk_row;     // next row the running sweep visits

  // ---- cycle decisions: boundary, sweep start, which slot the checker gets ----------------------
  logic fire, start, act, pend, chk_go, chk_end;
  logic [RB-1:0] crow;                   // row the checker visits this cycle (if chk_go)
  logic [PB-1:0] chk_slot;               // the RMW slot it uses: lowest free lane
  logic [PORTS*IB-1:0] idx;
  logic [PORTS*RB-1:0] lrow;
  logic [PORTS*SB-1:0] lslot;
  logic [PORTS*RB-1:0] raddr;
  logic [PORTS*RW-1:0] rdata;
  always_comb begin
    int n;
    n = 0;
    chk_slot = '0;
    for (int j = PORTS - 1; j >= 0; j--) begin
      if (lk_valid[j]) n = n + 1;
      else chk_slot = PB'(j);
    end
    fire = ready && rem <= 0;
    start = fire && !active;
    act = active || fire;
    pend = pending || (fire && active);
    crow = start ? '0 : chk_row;
    chk_go = act && n < PORTS;
    chk_end = chk_go && crow == LAST_ROW;
    for (int j = 0; j < PORTS; j++) raddr[j*RB +: RB] = lk_valid[j] ? lrow[j*RB +: RB] : crow;
  end
  // Where each lane's hash points, from the inputs alone: a block of its own, so that a simulator
  // does not work it out again when only the registers change at the edge.
  always_comb begin
    for (int j = 0; j < PORTS; j++) begin
      idx[j*IB +: IB] = index_of(lk_hash[j*32 +: 32]);
      lrow[j*RB +: RB] = row_of(idx[j*IB +: IB]);
      lslot[j*SB +: SB] = slot_of(idx[j*IB +: IB]);
      lk_index[j*32 +: 32] = 32'(idx[j*IB +: IB]);
    end
  end

  // The PORTS read ports (asynchronous: read, modify and write in one cycle, the core's RMW slot).
  for (genvar g = 0; g < PORTS; g++) begin : g_rd
    assign rdata[g*RW +: RW] = mem[raddr[g*RB +: RB]];
  end

  // ---- the read-modify-write: lanes in order, then the checker's row -----------------------------
  logic [PORTS*RW-1:0] lnew;                             // lane j's row after lanes 0..j
  logic [RW-1:0] cnew;                                   // the checker's row after its visit
  logic [PORTS-1:0] wen;
  logic [PORTS*RB-1:0] waddr;
  logic [PORTS*RW-1:0] wdata;
  logic [$clog2(SWEEP_WIDTH+1)-1:0] n_evict;
  logic [$clog2(PORTS+1)-1:0] n_new, n_pchg;
  // Each lane's and the checker's work is under its own valid, which costs little in gates and
  // lets Verilator skip it on idle cycles (RTL-in-the-loop ticks millions of them).
  always_comb begin
    logic [RW-1:0] base;
    logic [EB-1:0] e;
    logic hit;
    base = '0;
    e = '0;
    hit = 1'b0;
    lnew = '0;
    lk_port = lk_new_port;
    lk_new_flowlet = '0;
    lk_path_change = '0;
    n_new = '0;
    n_pchg = '0;
    for (int j = 0; j < PORTS; j++) begin
      if (lk_valid[j]) begin
        base = rdata[j*RW +: RW];
        for (int i = 0; i < j; i++) begin
          if (lk_valid[i] && lrow[i*RB +: RB] == lrow[j*RB +: RB]) base = lnew[i*RW +: RW];
        end
        for (int s = 0; s < SWEEP_WIDTH; s++) begin
          if (lslot[j*SB +: SB] == SB'(s)) e = base[s*EB +: EB];
        end
        hit = e[EB-1];
        lk_port[j*PORT_BITS +: PORT_BITS] = hit ? e[PORT_BITS-1:0] : lk_new_port[j*PORT_BITS +: PORT_BITS];
        lk_new_flowlet[j] = !hit;
        // Written before (valid, or invalidated with its age left at the maximum) and now moved.
        lk_path_change[j] = !hit && e[PORT_BITS +: AGE_BITS] != '0 && e[PORT_BITS-1:0] != lk_new_port[j*PORT_BITS +: PORT_BITS];
`ifdef NETASIC_FAULT
        // Planted fault (cosim self-test): lane 1's hit on an entry whose age bit is set reports
        // a new flowlet.
        if (j == 1 && hit && e[PORT_BITS +: AGE_BITS] != '0) lk_new_flowlet[j] = 1'b1;
`endif
        for (int s = 0; s < SWEEP_WIDTH; s++) begin
          if (lslot[j*SB +: SB] == SB'(s)) base[s*EB +: EB] = {1'b1, {AGE_BITS{1'b0}}, lk_port[j*PORT_BITS +: PORT_BITS]};
        end
        lnew[j*RW +: RW] = base;
        if (!hit) n_new = n_new + 1'b1;
        if (lk_path_change[j]) n_pchg = n_pchg + 1'b1;
      end
    end

    // The checker's row, with this cycle's lane updates (lookups go first).
    cnew = '0;
    n_evict = '0;
    if (chk_go) begin
      base = rdata[chk_slot*RW +: RW];
      for (int i = 0; i < PORTS; i++) begin
        if (lk_valid[i] && lrow[i*RB +: RB] == crow) base = lnew[i*RW +: RW];
      end
      for (int s = 0; s < SWEEP_WIDTH; s++) begin
        e = base[s*EB +: EB];
        if (e[EB-1]) begin
          if (e[PORT_BITS +: AGE_BITS] == AGE_MAX) begin
            e[EB-1] = 1'b0;   // invalidated; the age stays at the maximum: "written"
            n_evict = n_evict + 1'b1;
          end else begin
            e[PORT_BITS +: AGE_BITS] = e[PORT_BITS +: AGE_BITS] + 1'b1;
          end
        end
        base[s*EB +: EB] = e;
      end
      cnew = base;
    end

    // One write per row: a lane's row is dropped when a later lane or the checker rewrites it.
    for (int j = 0; j < PORTS; j++) begin
      waddr[j*RB +: RB] = raddr[j*RB +: RB];
      wdata[j*RW +: RW] = lnew[j*RW +: RW];
      wen[j] = ready && lk_valid[j] && !(chk_go && lrow[j*RB +: RB] == crow);
      for (int k = j + 1; k < PORTS; k++) begin
        if (lk_valid[k] && lrow[k*RB +: RB] == lrow[j*RB +: RB]) wen[j] = 1'b0;
      end
      if (!lk_valid[j] && chk_go && chk_slot == PB'(j)) begin
        wen[j] = 1'b1;
        wdata[j*RW +: RW] = cnew;
      end
    end
    if (!ready) begin   // init sweep: slot 0 clears a row per cycle
      wen = '0;
      wen[0] = 1'b1;
      waddr[0 +: RB] = init_row;
      wdata[0 +: RW] = '0;
    end
  end

  always_ff @(posedge clk) begin
    for (int j = 0; j < PORTS; j++) begin
      if (wen[j]) mem[waddr[j*RB +: RB]] <= wdata[j*RW +: RW];
    end
  end

  // ---- registers --------------------------------------------------------------------------------
  always_ff @(posedge clk) begin
    if (rst) begin
      ready <= 1'b0;
      init_row <= '0;
      rem <= cfg_delta_ps;
      active <= 1'b0;
      pending <= 1'b0;
      chk_row <= '0;
      res_valid <= '0;
      res_port <= '0;
      res_new_flowlet <= '0;
      res_index <= '0;
      res_path_change <= '0;
      new_flowlets <= '0;
      path_changes <= '0;
      occupancy <= '0;
      evictions <= '0;
      sweeps <= '0;
      sweep_conflicts <= '0;
      sweep_overruns <= '0;
      sweep_active <= 1'b0;
      sweep_position <= '0;
    end else if (!ready) begin
      init_row <= init_row + 1'b1;
      if (init_row == LAST_ROW) ready <= 1'b1;
      rem <= cfg_delta_ps;   // the first boundary is Delta after the first ready cycle
    end else begin
      rem <= rem - 64'(CLOCK_PERIOD_PS) + (fire ? cfg_delta_ps : 64'd0);
      res_valid <= lk_valid;
      for (int j = 0; j < PORTS; j++) begin
        if (lk_valid[j]) begin
          res_port[j*PORT_BITS +: PORT_BITS] <= lk_port[j*PORT_BITS +: PORT_BITS];
          res_new_flowlet[j] <= lk_new_flowlet[j];
          res_index[j*32 +: 32] <= lk_index[j*32 +: 32];
          res_path_change[j] <= lk_path_change[j];
        end
      end
      new_flowlets <= new_flowlets + 64'(n_new);
      path_changes <= path_changes + 64'(n_pchg);
      occupancy <= occupancy + 64'(n_new) - 64'(n_evict);
      evictions <= evictions + 64'(n_evict);
      if (fire && active) sweep_overruns <= sweep_overruns + 1'b1;
      if (act && !chk_go) sweep_conflicts <= sweep_conflicts + 1'b1;
      // A sweep starts at a boundary that finds the checker idle, or when one ends with a
      // boundary pending.
      if (start || (chk_end && pend)) sweeps <= sweeps + 1'b1;
      if (chk_end) begin
        active <= pend;
        pending <= 1'b0;
        chk_row <= '0;
        sweep_active <= pend;
        sweep_position <= pend ? 32'd0 : ENTRIES32;
      end else begin
        active <= act;
        pending <= pend;
        chk_row <= chk_go ? crow + 1'b1 : crow;
        sweep_active <= act;
        if (chk_go) sweep_position <= (32'(crow) + 32'd1) * 32'(SWEEP_WIDTH);
        else if (start) sweep_position <= 32'd0;
      end
    end
  end
endmodule
