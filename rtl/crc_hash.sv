// CRC hash unit: the hash that switch ASICs compute over a packet's 5-tuple for ECMP and table
// indexing (C++ core: systemc/blocks/crc_hash.h, crc_engine). One key per cycle, the hash one cycle
// later. The CRC is linear over GF(2), so each hash bit is the parity of the key and seed bits
// its row of the CRC's matrix selects, XOR that bit of XOROUT: one XOR tree per bit, as a
// parallel CRC is built in silicon. The rows are computed at elaboration from the polynomial
// division as it is defined (MSB first; reflected CRCs feed each byte LSB first and reflect the
// result), so they follow POLY, REFLECT and KEY_BYTES. (A bit-serial loop over the key is the same
// logic, but Verilator evaluates it bit by bit at run time: 1.4 M keys/s at 37 bytes.) Each tree is
// written as the seed's and the key's 32-bit words, masked by the row and XORed into one word,
// then that word's parity: the same XOR of the same bits, which Verilator evaluates as word
// operations, the parities only at an edge that takes a key. Yosys keeps that grouping (bits of
// one position in their words first), which costs it more generic cells at 37 bytes than a tree
// over the key's bits in order (docs/cosim.md, Sizes).
//
// The key is KEY_BYTES bytes, byte 0 first on the wire, in the top bits of in_key (the switch's
// 13-byte key: source IP, destination IP, protocol, source port, destination port). in_seed is the
// CRC's initial value, a register per switch so that switches do not polarize.
module crc_hash #(
    parameter int          WIDTH     = 32,            // 16 or 32
    parameter logic [31:0] POLY      = 32'h04C11DB7,  // normal (MSB-first) form
    parameter bit          REFLECT   = 1'b1,
    parameter logic [31:0] XOROUT    = 32'hFFFFFFFF,
    parameter int          KEY_BYTES = 13
) (
    input  logic                   clk,
    input  logic                   rst,
    input  logic                   in_valid,
    input  logic [KEY_BYTES*8-1:0] in_key,
    input  logic [WIDTH-1:0]       in_seed,
    output logic                   out_valid,
    output logic [WIDTH-1:0]       out_hash
);
  localparam int KEY_BITS  = KEY_BYTES * 8;
  localparam int KEY_WORDS = (KEY_BITS + 31) / 32;   // the key in 32-bit words, the top one padded

  // The register steps as an LFSR, r' = (r << 1) ^ (in ^ r[msb]) * POLY, linear in r and in.
  // So the register at the end is the XOR of one column per key bit that is 1 (the register after
  // a 1 is fed into it empty, POLY, then one step for every bit fed after it) and of the seed's
  // columns (the seed stepped once per key bit).
  // Row j of the key's matrix: bit i is hash bit j's column entry for key bit i.
  function automatic logic [KEY_WORDS*32-1:0] key_row(input int j);
    logic [WIDTH-1:0] c;
    logic [KEY_WORDS*32-1:0] row;
    row = '0;
    c = POLY[WIDTH-1:0];   // the column of the last bit fed
    for (int n = KEY_BITS - 1; n >= 0; n--) begin
      // The n-th bit fed: byte n / 8 (byte 0 is the top byte of in_key), LSB first if reflected.
      row[(KEY_BYTES - 1 - n / 8) * 8 + (REFLECT ? n % 8 : 7 - n % 8)] = REFLECT ? c[WIDTH-1-j] : c[j];
      c = c[WIDTH-1] ? (c << 1) ^ POLY[WIDTH-1:0] : c << 1;
    end
    key_row = row;   // Yosys 0.23 has no `return`
  endfunction

  // The seed's rows, one after another: bit j * WIDTH + b is hash bit j's entry for seed bit b.
  function automatic logic [WIDTH*WIDTH-1:0] seed_rows();
    logic [WIDTH-1:0] c;
    logic [WIDTH*WIDTH-1:0] rows;
    rows = '0;
    for (int b = 0; b < WIDTH; b++) begin
      c = '0;
      c[b] = 1'b1;
      for (int n = 0; n < KEY_BITS; n++) c = c[WIDTH-1] ? (c << 1) ^ POLY[WIDTH-1:0] : c << 1;
      for (int j = 0; j < WIDTH; j++) rows[j*WIDTH + b] = REFLECT ? c[WIDTH-1-j] : c[j];
    end
    seed_rows = rows;
  endfunction

  localparam logic [WIDTH*WIDTH-1:0] SEED_ROWS = seed_rows();

  logic [KEY_WORDS*32-1:0] key_words;
  assign key_words = (KEY_WORDS * 32)'(in_key);

  logic [WIDTH-1:0] parity;
  for (genvar j = 0; j < WIDTH; j++) begin : g_bit
    localparam logic [KEY_WORDS*32-1:0] KEY_ROW = key_row(j);
    logic [31:0] fold;   // the bits of row j, XORed word by word
    always_comb begin
      fold = 32'(in_seed & SEED_ROWS[j*WIDTH +: WIDTH]);
      for (int w = 0; w < KEY_WORDS; w++) fold = fold ^ (key_words[w*32 +: 32] & KEY_ROW[w*32 +: 32]);
    end
    assign parity[j] = ^fold;
  end

  logic [WIDTH-1:0] hash;
  always_comb begin
    hash = parity ^ XOROUT[WIDTH-1:0];
`ifdef NETASIC_FAULT
    // Planted fault (cosim self-test): one output bit inverted for keys with bits 0 and 5 set.
    if (in_key[0] && in_key[5]) hash[3] = ~hash[3];
`endif
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      out_valid <= 1'b0;
      out_hash  <= '0;
    end else begin
      out_valid <= in_valid;
      if (in_valid) out_hash <= hash;
    end
  end
endmodule
