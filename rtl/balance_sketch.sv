// BalanceSketch, the sketch inside BurstBalancer (C++ core: systemc/blocks/balance_sketch.h,
// software form; datasheet docs/datasheets/balance_sketch.md). Algorithm 1 (§3.3–3.4) with the
// multi-cell bucket of §3.6 (CELLS cells) and compact cyclic timestamps (§3.6, Fig. 4), one packet per
// cycle. The software form is the paper's algorithm, and its per-packet work is exactly one
// read-modify-write of one bucket word, which pipelines into one 1R1W memory with a one-deep
// bypass. The Tofino form (selector + scheduler) would need a recirculation path for its mirrored
// clears and is not what this block is.
//
// Pipeline (latency 2: a packet at the inputs in cycle c has its decision and counters on the
// outputs after the edge of cycle c+1):
//   stage 0  bucket = hash % BUCKETS, fingerprint cut to FINGERPRINT_BITS (0 -> 1, 0 is the empty
//            key), compact timestamp of in_now_ps; synchronous read of the bucket word.
//   stage 1  match over the CELLS fingerprints, Case 1/2/3, vote, timestamp, next hop; the new
//            word is written back at the end of the cycle; decision and counters registered.
// Read-after-write: the packet in stage 1 writes its bucket at the same edge as stage 0 reads,
// so the read sees the old word; when the buckets are equal the new word is forwarded through
// a register (byp_*) instead. A packet two cycles later reads the memory after the write.
//
// Compact timestamp. The core computes floor(now / slice) mod 2^s with a divide; here a slice
// counter (mod 2^s) follows in_now_ps with one compare per cycle against the next slice boundary,
// as a switch's timer prescaler would. It is exact while in_now_ps never decreases and advances by
// at most cfg_slice_ps per cycle (idle cycles included), starting below cfg_slice_ps at reset.
//
// Cell layout in a bucket word, cell i at [i*CELL_BITS +: CELL_BITS]:
//   {fingerprint, vote, timestamp, next_hop}; next_hop all-ones = Null (ECMP), fingerprint 0 = empty.
// After reset an init sweep clears one bucket per cycle (BUCKETS cycles); `ready` rises when done
// and packets are taken only then.
module balance_sketch #(
    parameter int BUCKETS          = 250,   // l
    parameter int CELLS            = 1,     // d cells per bucket
    parameter int FINGERPRINT_BITS = 16,
    parameter int VOTE_BITS        = 16,    // vote saturates at 2^VOTE_BITS - 1
    parameter int TIMESTAMP_BITS   = 8,     // s
    parameter int NEXT_HOPS        = 4096,  // the switch's member table: a hop names one of its entries
    parameter int COUNTER_BITS     = 64,    // hardware counter width (the core's are 64-bit)
    // Derived (do not override).
    parameter int NH_W     = $clog2(NEXT_HOPS + 1),              // next hop with Null
    parameter int BUCKET_W = BUCKETS > 1 ? $clog2(BUCKETS) : 1,
    parameter int CELL_W   = CELLS > 1 ? $clog2(CELLS) : 1
) (
    input  logic                      clk,
    input  logic                      rst,
    // Control registers, held constant after reset (the core's config, in slices as it uses them).
    input  logic [63:0]               cfg_slice_ps,       // slice length (slice_ps, or delta_ps when 0)
    input  logic [TIMESTAMP_BITS-1:0] cfg_delta_slices,   // δ / slice
    input  logic [TIMESTAMP_BITS-1:0] cfg_Delta_slices,   // Δ / slice, at most 2^s - 2
    input  logic [31:0]               cfg_F,              // burst needs vote > F
    output logic                      ready,              // init sweep done
    // Time (every cycle) and one packet per cycle.
    input  logic [63:0]               in_now_ps,
    input  logic                      in_valid,
    input  logic [31:0]               in_hash,
    input  logic [FINGERPRINT_BITS-1:0] in_fingerprint, // the core's 32-bit value cut to FINGERPRINT_BITS
    input  logic [31:0]               in_bytes,
    input  logic [NH_W-1:0]           in_hop,             // candidate hop, < NEXT_HOPS
    // Decision (bs_decision); held while out_valid is low.
    output logic                      out_valid,
    output logic                      out_steer,
    output logic [NH_W-1:0]           out_next_hop,       // all-ones = Null
    output logic                      out_path_change,
    output logic                      out_flowlet_start,
    output logic [2:0]                out_event,          // bs_event: hit insert expire restart replace decrement blocked
    output logic                      out_vote_decremented,
    output logic [BUCKET_W-1:0]       out_bucket,
    output logic [CELL_W-1:0]         out_cell,
    // Counters (bs_counters, software form), modulo 2^COUNTER_BITS.
    output logic [COUNTER_BITS-1:0]   cnt_packets,
    output logic [COUNTER_BITS-1:0]   cnt_bytes,
    output logic [COUNTER_BITS-1:0]   cnt_hits,
    output logic [COUNTER_BITS-1:0]   cnt_inserts,
    output logic [COUNTER_BITS-1:0]   cnt_expirations,
    output logic [COUNTER_BITS-1:0]   cnt_restarts,
    output logic [COUNTER_BITS-1:0]   cnt_replacements,
    output logic [COUNTER_BITS-1:0]   cnt_collisions,
    output logic [COUNTER_BITS-1:0]   cnt_vote_decrements,
    output logic [COUNTER_BITS-1:0]   cnt_blocked,
    output logic [COUNTER_BITS-1:0]   cnt_flowlet_starts,
    output logic [COUNTER_BITS-1:0]   cnt_path_changes,
    output logic [COUNTER_BITS-1:0]   cnt_steered_packets,
    output logic [COUNTER_BITS-1:0]   cnt_steered_bytes
);
  localparam int FP = FINGERPRINT_BITS, VB = VOTE_BITS, TS = TIMESTAMP_BITS;
  localparam int CELL_BITS = FP + VB + TS + NH_W;
  localparam int WORD_BITS = CELLS * CELL_BITS;
  localparam int TS_OFF = NH_W, VOTE_OFF = NH_W + TS, FP_OFF = NH_W + TS + VB;   // field offsets in a cell
  localparam logic [NH_W-1:0] NH_NULL = '1;
  localparam logic [CELL_BITS-1:0] CLEAR_CELL = CELL_BITS'(NH_NULL);   // empty: fingerprint 0, next hop Null
  localparam logic [WORD_BITS-1:0] CLEAR_WORD = {CELLS{CLEAR_CELL}};
  localparam logic [VB-1:0] VOTE_MAX = '1;

  localparam logic [2:0] EV_HIT = 3'd0, EV_INSERT = 3'd1, EV_EXPIRE = 3'd2, EV_RESTART = 3'd3,
                         EV_REPLACE = 3'd4, EV_DECREMENT = 3'd5, EV_BLOCKED = 3'd6;

  // ---- init sweep: one bucket cleared per cycle -------------------------------------------------
  logic [BUCKET_W-1:0] init_idx;
  always_ff @(posedge clk) begin
    if (rst) begin
      init_idx <= '0;
      ready    <= 1'b0;
    end else if (!ready) begin
      init_idx <= init_idx + 1'b1;
      if (init_idx == BUCKET_W'(BUCKETS - 1)) ready <= 1'b1;
    end
  end

  // ---- stage 0: slice counter, bucket, fingerprint ---------------------------------------------
  logic [63:0] next_boundary;   // first ps of the slice after the current one
  logic [TS-1:0] slice_num;     // current slice mod 2^s
  logic slice_cross;
  logic [TS-1:0] ts_now;
  assign slice_cross  = in_now_ps >= next_boundary;
  assign ts_now = slice_num + TS'(slice_cross);
  always_ff @(posedge clk) begin
    if (rst) begin
      slice_num     <= '0;
      next_boundary <= cfg_slice_ps;
    end else if (slice_cross) begin
      slice_num     <= slice_num + 1'b1;
      next_boundary <= next_boundary + cfg_slice_ps;
    end
  end

  logic [BUCKET_W-1:0] bucket0;
  logic [FP-1:0] fp0;
  assign bucket0 = BUCKET_W'(in_hash % BUCKETS);
  assign fp0 = in_fingerprint == '0 ? FP'(1) : in_fingerprint;   // 0 is the empty key

  // Stage-1 registers.
  logic s1_valid;
  logic [BUCKET_W-1:0] s1_bucket;
  logic [FP-1:0] s1_fp;
  logic [TS-1:0] s1_ts;
  logic [NH_W-1:0] s1_hop;
  logic [31:0] s1_bytes;
  always_ff @(posedge clk) begin
    if (rst) s1_valid <= 1'b0;
    else s1_valid <= in_valid && ready;
    s1_bucket <= bucket0;
    s1_fp     <= fp0;
    s1_ts     <= ts_now;
    s1_hop    <= in_hop;
    s1_bytes  <= in_bytes;
  end

  // ---- bucket memory (1R1W) and the read-after-write bypass -------------------------------------
  logic [WORD_BITS-1:0] mem[BUCKETS];
  logic [WORD_BITS-1:0] rd_word, nxt;
  logic we;
  logic [BUCKET_W-1:0] waddr;
  logic [WORD_BITS-1:0] wdata;
  assign we    = !ready || s1_valid;
  assign waddr = ready ? s1_bucket : init_idx;
  assign wdata = ready ? nxt : CLEAR_WORD;
  always_ff @(posedge clk) begin
    if (we) mem[waddr] <= wdata;
    rd_word <= mem[bucket0];
  end

  logic byp;
  logic [WORD_BITS-1:0] byp_word;
  always_ff @(posedge clk) begin
    byp      <= s1_valid && s1_bucket == bucket0;
    byp_word <= nxt;
  end

  logic [WORD_BITS-1:0] cur;
  always_comb begin
    cur = byp ? byp_word : rd_word;
`ifdef NETASIC_FAULT
    // Planted fault (cosim self-test): a forwarded cell 0 that holds a next hop has its low hop
    // bit inverted, i.e. a broken bypass for back-to-back packets to a steered bucket.
    if (byp && cur[NH_W-1:0] != NH_NULL) cur[0] = ~cur[0];
`endif
  end

  // ---- stage 1: Algorithm 1 on the bucket -------------------------------------------------------
  logic                 hit_found, free_found, resident, take;
  logic [CELL_W-1:0]    hit_at, free_at, min_at, tgt;
  logic [CELL_BITS-1:0] c_cell, new_cell;
  logic [FP-1:0]        c_fp;
  logic [VB-1:0]        c_vote, min_vote;
  logic [TS-1:0]        c_ts, gap;
  logic [NH_W-1:0]      c_nh;
  logic [31:0]          vote32;
  logic                 d_steer, d_path, d_flowlet, d_vdec;
  logic [NH_W-1:0]      d_nh;
  logic [2:0]           d_event;

  always_comb begin
    // Case 2 / restart: the first cell holding the fingerprint (there is at most one).
    hit_found = 1'b0;
    hit_at = '0;
    for (int i = CELLS - 1; i >= 0; i--) begin
      if (cur[i*CELL_BITS+FP_OFF +: FP] == s1_fp) begin
        hit_found = 1'b1;
        hit_at = CELL_W'(i);
      end
    end
    // Case 1: the first empty cell or cell idle > Δ (flow ended).
    free_found = 1'b0;
    free_at = '0;
    for (int i = CELLS - 1; i >= 0; i--) begin
      if (cur[i*CELL_BITS+FP_OFF +: FP] == '0 ||
          TS'(s1_ts - cur[i*CELL_BITS+TS_OFF +: TS]) > cfg_Delta_slices) begin
        free_found = 1'b1;
        free_at = CELL_W'(i);
      end
    end
    // Case 3: the cell with the fewest votes, lowest index on ties.
    min_vote = cur[VOTE_OFF +: VB];
    min_at = '0;
    for (int i = 1; i < CELLS; i++) begin
      if (cur[i*CELL_BITS+VOTE_OFF +: VB] < min_vote) begin
        min_vote = cur[i*CELL_BITS+VOTE_OFF +: VB];
        min_at = CELL_W'(i);
      end
    end

    tgt = hit_found ? hit_at : free_found ? free_at : min_at;
    c_cell = cur[CELL_BITS-1:0];
    for (int i = 1; i < CELLS; i++) begin
      if (tgt == CELL_W'(i)) c_cell = cur[i*CELL_BITS +: CELL_BITS];
    end
    c_fp   = c_cell[FP_OFF +: FP];
    c_vote = c_cell[VOTE_OFF +: VB];
    c_ts   = c_cell[TS_OFF +: TS];
    c_nh   = c_cell[NH_W-1:0];
    gap    = s1_ts - c_ts;   // mod 2^s
    vote32 = '0;
    vote32[VB-1:0] = c_vote;

    take = 1'b0;
    resident = 1'b1;
    d_path = 1'b0;
    d_flowlet = 1'b0;
    d_vdec = 1'b0;
    d_event = EV_HIT;
    new_cell = c_cell;
    if (hit_found) begin
      if (gap > cfg_Delta_slices) begin
        take = 1'b1;              // the flow ended; it starts again
        d_event = EV_RESTART;
      end else begin
        if (gap > cfg_delta_slices) begin
          d_flowlet = 1'b1;
          if (vote32 > cfg_F) begin   // a FlowBurst ended: its BurstFollower moves
            new_cell[NH_W-1:0] = s1_hop;
            d_path = 1'b1;
          end
        end
        if (c_vote != VOTE_MAX) new_cell[VOTE_OFF +: VB] = c_vote + 1'b1;
        new_cell[TS_OFF +: TS] = s1_ts;
      end
    end else if (free_found) begin
      take = 1'b1;
      d_event = c_fp == '0 ? EV_INSERT : EV_EXPIRE;
    end else begin
      if (c_vote != '0) begin
        new_cell[VOTE_OFF +: VB] = c_vote - 1'b1;
        d_vdec = 1'b1;
      end
      // A manipulated flow (next hop set) is not voted out (§3.4 Case 3).
      if (new_cell[VOTE_OFF +: VB] == '0 && c_nh == NH_NULL) begin
        take = 1'b1;
        d_event = EV_REPLACE;
      end else begin
        resident = 1'b0;
        d_event = d_vdec ? EV_DECREMENT : EV_BLOCKED;
      end
    end
    if (take) new_cell = {s1_fp, VB'(1), s1_ts, NH_NULL};

    d_steer = resident && new_cell[NH_W-1:0] != NH_NULL;
    d_nh = d_steer ? new_cell[NH_W-1:0] : NH_NULL;

    nxt = cur;
    for (int i = 0; i < CELLS; i++) begin
      if (tgt == CELL_W'(i)) nxt[i*CELL_BITS +: CELL_BITS] = new_cell;
    end
  end

  // ---- decision and counters --------------------------------------------------------------------
  always_ff @(posedge clk) begin
    if (rst) begin
      out_valid            <= 1'b0;
      out_steer            <= 1'b0;
      out_next_hop         <= NH_NULL;
      out_path_change      <= 1'b0;
      out_flowlet_start    <= 1'b0;
      out_event            <= EV_HIT;
      out_vote_decremented <= 1'b0;
      out_bucket           <= '0;
      out_cell             <= '0;
      cnt_packets          <= '0;
      cnt_bytes            <= '0;
      cnt_hits             <= '0;
      cnt_inserts          <= '0;
      cnt_expirations      <= '0;
      cnt_restarts         <= '0;
      cnt_replacements     <= '0;
      cnt_collisions       <= '0;
      cnt_vote_decrements  <= '0;
      cnt_blocked          <= '0;
      cnt_flowlet_starts   <= '0;
      cnt_path_changes     <= '0;
      cnt_steered_packets  <= '0;
      cnt_steered_bytes    <= '0;
    end else begin
      out_valid <= s1_valid;
      if (s1_valid) begin
        out_steer            <= d_steer;
        out_next_hop         <= d_nh;
        out_path_change      <= d_path;
        out_flowlet_start    <= d_flowlet;
        out_event            <= d_event;
        out_vote_decremented <= d_vdec;
        out_bucket           <= s1_bucket;
        out_cell             <= tgt;
        cnt_packets          <= cnt_packets + 1'b1;
        cnt_bytes            <= cnt_bytes + COUNTER_BITS'(s1_bytes);
        if (d_event == EV_HIT) cnt_hits <= cnt_hits + 1'b1;
        if (d_event == EV_INSERT) cnt_inserts <= cnt_inserts + 1'b1;
        if (d_event == EV_EXPIRE) cnt_expirations <= cnt_expirations + 1'b1;
        if (d_event == EV_RESTART) cnt_restarts <= cnt_restarts + 1'b1;
        if (d_event == EV_REPLACE) cnt_replacements <= cnt_replacements + 1'b1;
        if (d_event == EV_BLOCKED) cnt_blocked <= cnt_blocked + 1'b1;
        // Case 3 packets: the flow was absent and found no free cell.
        if (d_event == EV_REPLACE || d_event == EV_DECREMENT || d_event == EV_BLOCKED)
          cnt_collisions <= cnt_collisions + 1'b1;
        if (d_vdec) cnt_vote_decrements <= cnt_vote_decrements + 1'b1;
        if (d_flowlet) cnt_flowlet_starts <= cnt_flowlet_starts + 1'b1;
        if (d_path) cnt_path_changes <= cnt_path_changes + 1'b1;
        if (d_steer) begin
          cnt_steered_packets <= cnt_steered_packets + 1'b1;
          cnt_steered_bytes   <= cnt_steered_bytes + COUNTER_BITS'(s1_bytes);
        end
      end
    end
  end
endmodule
