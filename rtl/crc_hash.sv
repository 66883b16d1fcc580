// CRC hash unit: the hash that switch ASICs compute over a packet's 5-tuple for ECMP and table
// indexing (C++ core: systemc/blocks/crc_hash.h, crc_engine). One key per cycle, the hash one cycle
// later. The CRC is unrolled into an XOR tree over the key's bits, as the polynomial division is
// defined (MSB first; reflected CRCs feed each byte LSB first and reflect the result).
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
  function automatic logic [WIDTH-1:0] crc(input logic [KEY_BYTES*8-1:0] key, input logic [WIDTH-1:0] seed);
    logic [WIDTH-1:0] c;
    logic [7:0] b;
    logic [WIDTH-1:0] r;
    c = seed;
    for (int i = 0; i < KEY_BYTES; i++) begin
      b = key[(KEY_BYTES-1-i)*8 +: 8];
      for (int k = 7; k >= 0; k--) begin
        // Reflected CRCs take each byte LSB first.
        if ((REFLECT ? b[7-k] : b[k]) != c[WIDTH-1]) c = (c << 1) ^ POLY[WIDTH-1:0];
        else c = c << 1;
      end
    end
    r = c;
    if (REFLECT) begin
      for (int k = 0; k < WIDTH; k++) r[k] = c[WIDTH-1-k];
    end
    crc = r ^ XOROUT[WIDTH-1:0];   // Yosys 0.23 has no `return`
  endfunction

  logic [WIDTH-1:0] hash;
  always_comb begin
    hash = crc(in_key, in_seed);
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
