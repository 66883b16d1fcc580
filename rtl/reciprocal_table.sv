// HPCC's reciprocal divider (C++ core: systemc/blocks/reciprocal_table.h): x / n computed as
// x * (1/n), with 1/n read from a table that keeps only reciprocals at least epsilon apart
// (Li et al., SIGCOMM'19 §5.3). Every n in a range [a, b] = [n_k, n_{k+1} - 1] reads the one
// entry of key n_k: 1/n ~ mantissa * 2^-shift. The quotient is (x * mantissa) >> shift,
// truncated, as the core's divide() computes it.
//
// Pipeline (the core's lookup_cycles = 3, plus the multiply; one division per cycle):
//   1 leading-one detect on n picks the octave e, [2^e, 2^(e+1)); that octave's keys are read
//     from the key RAM (a row per octave, a column per key slot: one address, e) with its header
//   2 n compared with every key of the octave in parallel (keys ascending: a thermometer code);
//     the last key <= n is priority-encoded. Entry k = base(e) + n_le - 1, where base(e)
//     counts the keys below 2^e: when n lies below its octave's first key, its range began in
//     the octave below (k = base - 1)
//   3 entry k read from the entry RAM: {mantissa, shift}
//   4 quotient = (x * mantissa) >> shift
//
// Tables: loaded by the control plane through the tbl_* write port after reset, before any
// division (the RAMs are not reset). Octave e's header holds base(e) and the number of keys in
// the octave; key slot j of octave e holds its j-th key, unused slots are masked by the count.
// The three RAMs have separate write enables and may be written in the same cycle.
//
// n outside [1, 2^INPUT_BITS] is refused (out_refused, no quotient), as the core throws
// std::out_of_range; the HPCC caller clamps n into range before dividing.
module reciprocal_table #(
    parameter int INPUT_BITS    = 22,    // reciprocal_table_config::input_bits
    parameter int MANTISSA_BITS = 24,    // reciprocal_table_config::mantissa_bits
    parameter int ENTRIES       = 1400,  // reciprocal_table::entries() for epsilon = 1/128
    parameter int SHIFT_BITS    = 6,     // reciprocal_table::shift_bits()
    parameter int OCTAVE_KEYS   = 89,    // most keys in one octave (about ln 2 / epsilon)
    parameter int X_BITS        = 64     // the dividend (divide() takes a uint64_t)
) (
    input  logic                                 clk,
    input  logic                                 rst,
    // table write port (control plane)
    input  logic                                 tbl_we_entry,
    input  logic [$clog2(ENTRIES)-1:0]           tbl_index,
    input  logic [MANTISSA_BITS-1:0]             tbl_mantissa,
    input  logic [SHIFT_BITS-1:0]                tbl_shift,
    input  logic                                 tbl_we_key,
    input  logic                                 tbl_we_octave,
    input  logic [$clog2(INPUT_BITS+1)-1:0]      tbl_octave,
    input  logic [$clog2(OCTAVE_KEYS)-1:0]       tbl_slot,
    input  logic [INPUT_BITS:0]                  tbl_key,
    input  logic [$clog2(ENTRIES+1)-1:0]         tbl_base,
    input  logic [$clog2(OCTAVE_KEYS+1)-1:0]     tbl_count,
    // divisions
    input  logic                                 in_valid,
    input  logic [X_BITS-1:0]                    in_x,
    input  logic [INPUT_BITS:0]                  in_n,
    // result of the division issued 4 cycles earlier (all zero unless out_valid)
    output logic                                 out_valid,
    output logic                                 out_refused,
    output logic [X_BITS-1:0]                    out_quotient,
    output logic [MANTISSA_BITS-1:0]             out_mantissa,
    output logic [SHIFT_BITS-1:0]                out_shift
);
  localparam int KB = INPUT_BITS + 1;                 // n and the keys run to 2^INPUT_BITS
  localparam int OCTAVES = INPUT_BITS + 1;
  localparam int EB = $clog2(OCTAVES);
  localparam int IB = $clog2(ENTRIES);
  localparam int BB = $clog2(ENTRIES + 1);            // base(e) reaches ENTRIES
  localparam int CB = $clog2(OCTAVE_KEYS + 1);
  localparam int SB = BB + 1;
  localparam int VB = MANTISSA_BITS + SHIFT_BITS;
  localparam int PB = X_BITS + MANTISSA_BITS;
  localparam logic [KB-1:0] TOP = {1'b1, {INPUT_BITS{1'b0}}};

  // Index of the leading one: n in [2^e, 2^(e+1)).
  function automatic logic [EB-1:0] octave_of(input logic [KB-1:0] n);
    octave_of = '0;
    for (int i = 0; i < KB; i++) begin
      if (n[i]) octave_of = EB'(i);
    end
  endfunction

  // ---- stage 1: leading-one detect, octave read -------------------------------------------------

  logic [EB-1:0] e;
  logic in_range;
  assign e = octave_of(in_n);
  assign in_range = in_n != '0 && in_n <= TOP;

  logic s1_valid, s1_refused;
  logic [X_BITS-1:0] s1_x;
  logic [KB-1:0] s1_n;

  // Octave headers {base(e), keys in octave e}.
  logic [BB+CB-1:0] oct_mem[OCTAVES];
  logic [BB+CB-1:0] oct_q;
  logic [BB-1:0] s1_base;
  logic [CB-1:0] s1_count;
  // The RAMs are read only for a division (their read enables), and stage 2's comparators and
  // stage 4's multiplier work only on a valid stage: idle cycles (most of them, in a fabric run)
  // move no operands, as a low-power design isolates them.
  always_ff @(posedge clk) begin
    if (tbl_we_octave) oct_mem[tbl_octave] <= {tbl_base, tbl_count};
    if (in_valid) oct_q <= oct_mem[e];
  end
  assign {s1_base, s1_count} = oct_q;

  // The key RAM: a row per octave, a column per key slot, so one address (e) reads the whole
  // octave, and each slot feeds its own comparator. A slot past the last column writes nothing.
  logic [KB-1:0] key_mem[OCTAVES][OCTAVE_KEYS];
  logic [KB-1:0] key_q[OCTAVE_KEYS];
  always_ff @(posedge clk) begin
    if (tbl_we_key && 32'(tbl_slot) < OCTAVE_KEYS) key_mem[tbl_octave][tbl_slot] <= tbl_key;
  end
  for (genvar j = 0; j < OCTAVE_KEYS; j++) begin : g_slot
    always_ff @(posedge clk) begin
      if (in_valid) key_q[j] <= key_mem[e][j];
    end
  end

  // ---- stage 2: compare, priority encode, entry index -------------------------------------------

  // n is compared with the key of every slot that holds one, all in parallel; the keys of an
  // octave ascend, so the comparators' outputs are a thermometer code, and the priority encoder
  // gives one past the last slot whose key is <= n: n_le, the number of keys <= n.
  logic [CB-1:0] n_le;
  logic [IB-1:0] k;
  always_comb begin
    n_le = '0;
    if (s1_valid) begin
      for (int j = 0; j < OCTAVE_KEYS; j++) begin
`ifdef NETASIC_FAULT
        // Planted fault (cosim self-test): slot 5 misses an exact match (n equal to its key),
        // so such an n reads the entry of the key before.
        if (CB'(j) < s1_count && (j == 5 ? key_q[j] < s1_n : key_q[j] <= s1_n)) n_le = CB'(j + 1);
`else
        if (CB'(j) < s1_count && key_q[j] <= s1_n) n_le = CB'(j + 1);
`endif
      end
    end
    // base + n_le >= 1 for every n in range (key 1 is in octave 0 and <= every n).
    k = IB'(SB'(s1_base) + SB'(n_le) - SB'(1));
  end

  logic s2_valid, s2_refused;
  logic [X_BITS-1:0] s2_x;
  logic [IB-1:0] s2_k;

  // ---- stage 3: entry read ----------------------------------------------------------------------

  logic [VB-1:0] ent_mem[ENTRIES];
  logic [VB-1:0] ent_q;
  always_ff @(posedge clk) begin
    if (tbl_we_entry) ent_mem[tbl_index] <= {tbl_mantissa, tbl_shift};
    if (s2_valid) ent_q <= ent_mem[s2_k];
  end

  logic s3_valid, s3_refused;
  logic [X_BITS-1:0] s3_x;

  // ---- stage 4: multiply and shift --------------------------------------------------------------

  logic [MANTISSA_BITS-1:0] mantissa;
  logic [SHIFT_BITS-1:0] shift;
  logic [PB-1:0] product;
  assign {mantissa, shift} = ent_q;
  always_comb begin
    product = '0;
    if (s3_valid) product = PB'(s3_x) * PB'(mantissa);
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      s1_valid <= 1'b0;
      s1_refused <= 1'b0;
      s2_valid <= 1'b0;
      s2_refused <= 1'b0;
      s3_valid <= 1'b0;
      s3_refused <= 1'b0;
      out_valid <= 1'b0;
      out_refused <= 1'b0;
      out_quotient <= '0;
      out_mantissa <= '0;
      out_shift <= '0;
    end else begin
      s1_valid <= in_valid & in_range;
      s1_refused <= in_valid & ~in_range;
      s1_x <= in_x;
      s1_n <= in_n;
      s2_valid <= s1_valid;
      s2_refused <= s1_refused;
      s2_x <= s1_x;
      s2_k <= k;
      s3_valid <= s2_valid;
      s3_refused <= s2_refused;
      s3_x <= s2_x;
      out_valid <= s3_valid;
      out_refused <= s3_refused;
      out_quotient <= s3_valid ? X_BITS'(product >> shift) : '0;   // truncated, as divide()
      out_mantissa <= s3_valid ? mantissa : '0;
      out_shift <= s3_valid ? shift : '0;
    end
  end
endmodule
