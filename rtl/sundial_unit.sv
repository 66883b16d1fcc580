// Sundial's hardware unit of one device (C++ core: systemc/clock/sundial_unit.h with its timeout
// unit systemc/clock/sundial_timeout.h; Li et al., OSDI'20, §3.4.1 Sundial Hardware Design, as
// chapter 3 of Li's thesis), clocked by the device's oscillator: one cycle per oscillator edge.
//
//   send timer (§3.4.1.1)   the root sends a sync-message when it becomes root and then every
//                           cfg_interval edges, counted from the edge before it became root
//   timeout (§3.4.1.2)      a counter of edges since the last valid message; the first-timeout
//                           interrupt when it passes FIRST_TIMEOUT, the second (armed by the
//                           firmware on the backup root) SECOND_TIMEOUT edges after that; each
//                           raised once per silence, only while the device is a member
//   validity (§3.4.1.2)     a message from the parent port is valid when |tx + delay - local|
//                           <= epsilon; valid: the clock steps by the offset, T_last_sync is
//                           set, the counter clears and the message is forwarded on tx_mask
//   epsilon (Eq. 3.1)       eps_base + ceil((local - T_last_sync) * max_drift_ppb / 1e9),
//                           compared without a divider: |offset| - eps_base = D > 0 fits iff
//                           (D - 1) * 1e9 < (local - T_last_sync) * max_drift_ppb
//
// A message or command presented in a cycle arrived between the previous edge and this one (the
// core's true time t with cycles(t) = previous edge): the counter clears to the previous edge,
// so it reads 1 after this edge, and a valid message beats a timeout due at this edge. In one
// cycle the message is checked first, then the command applies, then the edge's timers run.
// Widths are the core's: local clock, offsets, stamps and delays 64-bit two's complement (the
// offset is checked in 66 bits and saturated as the core does), the counters 64 bits, the
// timeout registers 32 bits as the controller's FIRST_TIMEOUT and SECOND_TIMEOUT registers.
//
// The register block the controller writes (clock/sundial_regs.h, 0x3000_0000..0x3000_001C) is
// held here too: csr_* reads and writes it with the core's accept rule.
module sundial_unit #(
    parameter int PORTS = 64   // sundial_unit_config::ports (at most 64: tx_mask is one word)
) (
    input  logic              clk,
    input  logic              rst,
    // configuration, loaded at reset (sundial_unit_config)
    input  logic [63:0]       cfg_interval,        // sync interval, edges (>= 1)
    input  logic [31:0]       cfg_first_timeout,   // first timeout, edges (>= 1)
    input  logic [29:0]       cfg_max_drift_ppb,   // < 1e9
    // a sync-message that arrived in this cycle
    input  logic              rx_valid,
    input  logic [31:0]       rx_port,
    input  logic [63:0]       rx_tx_local,         // signed: the sender's egress stamp, ps
    input  logic [63:0]       rx_osc,              // the oscillator's reading at receipt, ps
    // a firmware command in this cycle (cmd_op below)
    input  logic              cmd_valid,
    input  logic [3:0]        cmd_op,
    input  logic [31:0]       cmd_port,
    input  logic [63:0]       cmd_data,
    // the controller's register block
    input  logic              csr_valid,
    input  logic              csr_write,
    input  logic [31:0]       csr_addr,
    input  logic [31:0]       csr_wdata,
    // what this edge did (registered)
    output logic [1:0]        o_sends,             // sync-messages sent: on becoming root, periodic
    output logic              o_first_timeout,
    output logic              o_second_timeout,
    output logic [1:0]        o_verdict,           // 0 none, 1 valid, 2 invalid, 3 ignored
    output logic [63:0]       o_offset,            // signed, saturated; 0 when ignored
    output logic [63:0]       o_forward,           // valid: the tx ports
    output logic              o_cmd_err,           // the command was refused, nothing changed
    output logic              o_csr_ok,
    output logic [31:0]       o_csr_rdata,
    // state
    output logic [1:0]        o_mode,              // 0 root, 1 member, 2 evicted (the core's enum)
    output logic              o_synced,
    output logic [63:0]       o_adjust,            // local clock = oscillator + adjust
    output logic [63:0]       o_last_sync,         // T_last_sync, local ps
    output logic [63:0]       o_timeout_counter,   // edges since the last valid message (member)
    output logic [31:0]       o_parent,
    output logic [63:0]       o_next_event,        // edges from this one to the next send or interrupt; 0 none
    output logic [63:0]       o_sent,
    output logic [63:0]       o_valid,
    output logic [63:0]       o_invalid,
    output logic [63:0]       o_ignored,
    output logic [63:0]       o_timeouts,
    output logic [63:0]       o_second_timeouts
);
  // cmd_op: the firmware's and controller's calls on the core (sundial_unit's setters)
  localparam logic [3:0] OP_PARENT = 4'd1, OP_TX_MASK = 4'd2, OP_EPS_BASE = 4'd3, OP_LINK_DELAY = 4'd4,
                         OP_FIRST = 4'd5, OP_SECOND = 4'd6, OP_ROOT = 4'd7, OP_EVICT = 4'd8;
  localparam logic [1:0] ROOT = 2'd0, MEMBER = 2'd1, EVICTED = 2'd2;
  localparam logic [1:0] V_NONE = 2'd0, V_VALID = 2'd1, V_INVALID = 2'd2, V_IGNORED = 2'd3;
  localparam int PB = PORTS > 1 ? $clog2(PORTS) : 1;
  localparam logic [95:0] NS_PER_S = 96'd1_000_000_000;   // ppb denominator
  localparam logic [31:0] REG_BASE = 32'h3000_0000;

  // ---- state ------------------------------------------------------------------------------------

  logic [1:0]  mode;
  logic        synced;
  logic [63:0] adjust, last_sync, eps_base, interval, tx_mask;
  // The RTL-in-the-loop adapter writes the timeout counter and the send timer, to take a stretch
  // of quiet edges, in which they are all that changes, in one step
  // (cosim/sundial_unit/sundial_unit_rtl.vlt makes them public).
  logic [63:0] count, send_left;
  logic [31:0] parent, first, second;
  logic        first_raised, second_raised;
  logic [62:0] delay [2**PB];                 // link delay per port, ps (never negative)
  logic [29:0] max_drift;
  logic [31:0] regs [8];                      // sundial_regs: PARENT .. VALID
  logic [63:0] n_sent, n_valid, n_invalid, n_ignored, n_timeouts, n_second;

  // ---- the message: offset and validity (combinational, old state) --------------------------------

  logic [63:0] local_clk;
  logic [64:0] adjusted;                      // tx + delay, 65-bit signed
  logic [65:0] offset;                        // adjusted - local, 66-bit signed
  logic [65:0] mag;
  logic        fits, for_me, in_eps;
  logic [64:0] since;                         // local - T_last_sync, 65-bit signed
  logic [65:0] excess;                        // |offset| - eps_base, 66-bit signed
  logic [95:0] drift_budget, excess_scaled;
  assign for_me = rx_valid && mode == MEMBER && rx_port == parent;
  // Operand isolation: the message's arithmetic (two 96-bit products) holds at zero in a cycle
  // without a message for this unit, as a low-power design keeps it; nothing reads it then (every
  // use below is under for_me), and Verilator skips it: RTL in the loop clocks the unit through
  // every oscillator edge, nearly all of them without a message.
  always_comb begin
    {local_clk, adjusted, offset, mag, fits, in_eps, since, excess, drift_budget, excess_scaled} = '0;
    if (for_me) begin
      local_clk = rx_osc + adjust;
      adjusted = {rx_tx_local[63], rx_tx_local} + {2'b00, delay[rx_port[PB-1:0]]};
      offset = {adjusted[64], adjusted} - {{2{local_clk[63]}}, local_clk};
      fits = adjusted[64] == adjusted[63] && (offset[65:63] == 3'b000 || offset[65:63] == 3'b111);
      mag = offset[65] ? -offset : offset;
      since = {local_clk[63], local_clk} - {last_sync[63], last_sync};
      excess = mag - {2'b00, eps_base};
      drift_budget = since[64] ? '0 : {31'd0, since} * {66'd0, max_drift};
      excess_scaled = ({30'd0, excess} - 96'd1) * NS_PER_S;
      // |offset| = 2^63 exceeds every epsilon: the core's epsilon saturates at INT64_MAX.
      if (!synced) in_eps = !mag[63];
      else if (mag[63]) in_eps = 1'b0;
      else if (excess[65] || excess == '0) in_eps = 1'b1;
      else in_eps = excess_scaled < drift_budget;
    end
  end
  logic msg_ok;
  assign msg_ok = for_me && fits && in_eps;

  // ---- the command --------------------------------------------------------------------------------

  logic cmd_port_ok, cmd_err;
  assign cmd_port_ok = cmd_port < 32'(PORTS);
  always_comb begin
    cmd_err = 1'b0;
    if (cmd_valid) begin
      case (cmd_op)
        OP_PARENT:     cmd_err = !cmd_port_ok;
        OP_TX_MASK:    cmd_err = PORTS < 64 && (cmd_data >> PORTS) != 64'd0;
        OP_LINK_DELAY: cmd_err = !cmd_port_ok || cmd_data[63];
        OP_FIRST:      cmd_err = cmd_data[31:0] == 32'd0 || cmd_data[63:32] != 32'd0;
        OP_SECOND:     cmd_err = cmd_data[63:32] != 32'd0;
        OP_EPS_BASE, OP_ROOT, OP_EVICT: cmd_err = 1'b0;
        default:       cmd_err = 1'b1;
      endcase
    end
  end
  logic cmd_do;
  assign cmd_do = cmd_valid && !cmd_err;

  // ---- next state: message, then command, then the edge's timers ---------------------------------

  logic [1:0]  mode_n;
  logic [31:0] first_n, second_n;
  logic        first_raised_n, second_raised_n, to_root;
  logic [63:0] count_n, left, left_n;
  logic [1:0]  sends;
  logic        fire_first, fire_second, periodic;
  always_comb begin
    mode_n = mode;
    first_n = first;
    second_n = second;
    first_raised_n = first_raised;
    second_raised_n = second_raised;
    count_n = count + 64'd1;
    if (msg_ok) begin                         // the counter clears to the previous edge
      count_n = 64'd1;
      first_raised_n = 1'b0;
      second_raised_n = 1'b0;
      second_n = '0;
    end
    to_root = cmd_do && cmd_op == OP_ROOT;
    if (cmd_do) begin
      case (cmd_op)
        OP_FIRST: first_n = cmd_data[31:0];
        OP_SECOND: begin
          second_n = cmd_data[31:0];
          second_raised_n = 1'b0;
        end
        OP_ROOT: begin
          mode_n = ROOT;
          first_raised_n = 1'b0;
          second_raised_n = 1'b0;
          second_n = '0;
        end
        OP_EVICT: mode_n = EVICTED;
        default: ;
      endcase
    end
    // Send timer: left = edges to the next periodic send, counted before this edge.
    left = to_root ? interval : send_left;
    periodic = mode_n == ROOT && left == 64'd1;
    left_n = periodic ? interval : left - 64'd1;
    sends = {1'b0, to_root} + {1'b0, periodic};
    // Timeouts: raised at the edge the counter passes first (then first + second).
    fire_first = mode_n == MEMBER && !first_raised_n && count_n > {32'd0, first_n};
`ifdef NETASIC_FAULT
    // Planted fault: the timeout ignores a valid message of the same cycle (the race is lost).
    if (!first_raised && count + 64'd1 > {32'd0, first} && msg_ok) fire_first = 1'b1;
`endif
    fire_second = mode_n == MEMBER && second_n != '0 && !second_raised_n &&
                  count_n > {31'd0, {1'b0, first_n} + {1'b0, second_n}};
    if (fire_first) first_raised_n = 1'b1;
    if (fire_second) second_raised_n = 1'b1;
  end

  // ---- the controller's register block --------------------------------------------------------------

  logic [31:0] csr_off;
  logic        csr_in, csr_ok;
  logic [2:0]  csr_field;
  assign csr_off = csr_addr - REG_BASE;
  assign csr_in = csr_addr >= REG_BASE && csr_off < 32'd32 && csr_addr[1:0] == 2'b00;
  assign csr_field = csr_off[4:2];
  // ROOT and VALID take 0 or 1 only.
  assign csr_ok = csr_valid && csr_in && !(csr_write && csr_field >= 3'd6 && csr_wdata > 32'd1);

  // ---- registers ------------------------------------------------------------------------------------

  always_ff @(posedge clk) begin
    if (rst) begin
      mode <= MEMBER;
      synced <= 1'b0;
      adjust <= '0;
      last_sync <= '0;
      eps_base <= '0;
      interval <= cfg_interval;
      max_drift <= cfg_max_drift_ppb;
      count <= '0;
      send_left <= '0;
      tx_mask <= '0;
      parent <= '0;
      first <= cfg_first_timeout;
      second <= '0;
      first_raised <= 1'b0;
      second_raised <= 1'b0;
      for (int p = 0; p < 2**PB; p++) delay[p] <= '0;
      for (int f = 0; f < 8; f++) regs[f] <= 32'd0;
      regs[1] <= 32'hFFFF_FFFF;               // BACKUP_PARENT = none
      {n_sent, n_valid, n_invalid, n_ignored, n_timeouts, n_second} <= '0;
      {o_sends, o_first_timeout, o_second_timeout, o_verdict, o_offset, o_forward} <= '0;
      {o_cmd_err, o_csr_ok, o_csr_rdata} <= '0;
    end else begin
      // the message
      o_verdict <= !rx_valid ? V_NONE : !for_me ? V_IGNORED : msg_ok ? V_VALID : V_INVALID;
      o_offset <= !for_me ? 64'd0 : fits ? offset[63:0] : offset[65] ? 64'h8000_0000_0000_0000 : 64'h7FFF_FFFF_FFFF_FFFF;
      o_forward <= msg_ok ? tx_mask : 64'd0;
      if (rx_valid && !for_me) n_ignored <= n_ignored + 64'd1;
      if (for_me && !msg_ok) n_invalid <= n_invalid + 64'd1;
      if (msg_ok) begin
        n_valid <= n_valid + 64'd1;
        adjust <= adjust + offset[63:0];
        last_sync <= adjusted[63:0];
        synced <= 1'b1;
      end
      // the command
      o_cmd_err <= cmd_err;
      if (cmd_do) begin
        case (cmd_op)
          OP_PARENT: parent <= cmd_port;
          OP_TX_MASK: tx_mask <= cmd_data;
          OP_EPS_BASE: eps_base <= cmd_data;
          OP_LINK_DELAY: delay[cmd_port[PB-1:0]] <= cmd_data[62:0];
          OP_ROOT: synced <= 1'b1;
          OP_EVICT: synced <= 1'b0;
          default: ;
        endcase
      end
      // the edge
      mode <= mode_n;
      first <= first_n;
      second <= second_n;
      first_raised <= first_raised_n;
      second_raised <= second_raised_n;
      count <= count_n;
      send_left <= left_n;
      o_sends <= sends;
      o_first_timeout <= fire_first;
      o_second_timeout <= fire_second;
      n_sent <= n_sent + {62'd0, sends};
      if (fire_first) n_timeouts <= n_timeouts + 64'd1;
      if (fire_second) n_second <= n_second + 64'd1;
      // the register block
      o_csr_ok <= csr_ok;
      o_csr_rdata <= csr_ok && !csr_write ? regs[csr_field] : 32'd0;
      if (csr_ok && csr_write) regs[csr_field] <= csr_wdata;
    end
  end

  // ---- the next send or interrupt, from the state alone ----------------------------------------------
  // With no message or command before it, the unit's next action is this many edges away: the
  // event-driven fabric schedules its next call there (sundial_unit::next_event_ps).
  logic [33:0] first_at, second_at;            // counter values that raise each interrupt
  logic [63:0] to_first, to_second;
  logic        first_due, second_due;
  assign first_at = {2'b00, first} + 34'd1;
  assign second_at = {2'b00, first} + {2'b00, second} + 34'd1;
  assign to_first = {30'd0, first_at} > count ? {30'd0, first_at} - count : 64'd1;
  assign to_second = {30'd0, second_at} > count ? {30'd0, second_at} - count : 64'd1;
  assign first_due = !first_raised;
  assign second_due = second != '0 && !second_raised;
  always_comb begin
    if (mode == ROOT) o_next_event = send_left;
    else if (mode != MEMBER) o_next_event = '0;
    else if (first_due && (!second_due || to_first <= to_second)) o_next_event = to_first;
    else if (second_due) o_next_event = to_second;
    else o_next_event = '0;
  end

  assign o_mode = mode;
  assign o_synced = synced;
  assign o_adjust = adjust;
  assign o_last_sync = last_sync;
  assign o_timeout_counter = mode == MEMBER ? count : 64'd0;
  assign o_parent = parent;
  assign o_sent = n_sent;
  assign o_valid = n_valid;
  assign o_invalid = n_invalid;
  assign o_ignored = n_ignored;
  assign o_timeouts = n_timeouts;
  assign o_second_timeouts = n_second;
endmodule
