// Every parameter of netasic, declared once: key, unit, default, range, meaning.
// `netasic params` prints this table; docs/config-reference.md is generated from it.
#include <limits>

#include "common/params.h"

namespace netasic {
namespace {

constexpr int64_t big = std::numeric_limits<int32_t>::max();

void declare_sim(param_registry& r) {
  r.string("scenario.name", "unnamed", "Name shown in the report and summary.json");
  r.integer("sim.seed", "", 1, 0, std::numeric_limits<int64_t>::max(), "Random seed; same seed and configuration give the same results, bit for bit");
  r.real("sim.duration", "us", 1000, 0.001, 1e9, "Window in which flows start (Poisson arrivals are generated over it)");
  r.real("sim.drain", "us", 10000, 0, 1e9, "Extra time after the arrival window for flows to finish; the run stops earlier once all flows are done (not with clock.faults set: such a run lasts to the end)");
  r.real("sim.probe_interval", "us", 1, 0.001, 1e6, "Sampling interval of the probe time series (queue depths, buffer occupancy) and of waves.vcd");
}

void declare_topology(param_registry& r) {
  r.choice("topology.kind", "leaf_spine", {"leaf_spine", "fat_tree"}, "Topology builder");
  r.integer("topology.leaves", "switches", 2, 1, 1024, "Leaf (ToR) switches (leaf_spine)");
  r.integer("topology.spines", "switches", 2, 1, 1024, "Spine switches (leaf_spine)");
  r.integer("topology.hosts_per_leaf", "hosts", 4, 1, 1024, "Hosts under each leaf (leaf_spine)");
  r.integer("topology.parallel_links", "links", 1, 1, 64, "Parallel links between each leaf and each spine (leaf_spine)");
  r.integer("topology.k", "ports", 4, 2, 64, "Switch radix k of the k-ary fat tree: k pods, k^3/4 hosts (fat_tree; even)");
  r.real("topology.host_rate", "Gbps", 100, 0.001, 1e5, "Rate of every host link");
  r.real("topology.uplink_rate", "Gbps", 400, 0.001, 1e5, "Rate of every switch-to-switch link");
  r.real("topology.link_delay", "ns", 1000, 0, 1e9, "Propagation delay of every link");
  r.string_list("topology.failed_links", "", {}, "Links that are down, e.g. [\"leaf0-spine1\"] (all parallel links) or [\"leaf0-spine1#0\"]");
  r.string_list("topology.degraded_links", "Gbps", {}, "Links running below their rate, e.g. [\"leaf0-spine1#0=10\"]");
}

void declare_switch(param_registry& r) {
  r.real("switch.clock", "MHz", 1000, 1, 1e5, "Pipeline clock; the period must be a whole number of picoseconds");
  r.integer("switch.parser_cycles", "cycles", 32, 0, 100000, "Parser latency");
  r.integer("switch.stages", "stages", 12, 1, 64, "Match-action stages; ingress and egress each pass all of them, and each has the resource budget of switch.stage.*");
  r.integer("switch.stage_cycles", "cycles", 12, 0, 100000, "Latency of one match-action stage");
  r.integer("switch.tm_cycles", "cycles", 48, 0, 100000, "Traffic manager latency, enqueue to earliest dequeue");
  r.integer("switch.deparser_cycles", "cycles", 32, 0, 100000, "Deparser latency");
  r.integer("switch.pipes", "pipes", 1, 1, 64, "Pipelines per switch; ports are split evenly over them and each takes one frame per cycle at its parser and at its egress");
  r.integer("switch.pipe_fifo", "frames", 128, 1, 1 << 20, "Frames that can wait for a pipe's parser; more are dropped (pipe_overrun)");
  r.choice("switch.forwarding", "store_and_forward", {"store_and_forward", "cut_through"}, "When a frame may enter the pipeline: after its last bit, or after switch.cut_through_bytes");
  r.integer("switch.cut_through_bytes", "bytes", 128, 64, 9216, "Bytes of a frame that must be in before a cut-through switch starts on it (cut_through)");
  r.integer("switch.recirculations", "passes", 0, 0, 15, "Extra pipeline passes every data frame takes through its pipe's recirculation port");
  r.real("switch.recirc_rate", "Gbps", 100, 0.001, 1e5, "Rate of each pipe's recirculation port");
  r.integer("switch.buffer", "KiB", 16384, 1, big, "Shared packet buffer (including the PFC headroom)");
  r.integer("switch.queue_limit", "KiB", 0, 0, big, "Static limit per egress queue of a lossy priority; 0 = none");
  r.choice("switch.hash", "crc32", {"crc32", "crc16"}, "ECMP hash of the 5-tuple");
  r.integer("switch.hash_seed", "", 0, 0, 0xFFFFFFFF, "Hash initial value; each switch XORs its ID times 0x9E3779B1 into it so switches do not polarize");
  r.integer("switch.ecmp_members", "entries", 4096, 1, 65535, "ECMP member table size per switch");
  // The per-stage budget that `netasic resources` checks (Tofino-like defaults).
  r.integer("switch.stage.sram_blocks", "blocks", 80, 1, 100000, "SRAM blocks per stage");
  r.integer("switch.stage.sram_block_words", "words", 1024, 1, 1 << 24, "Words per SRAM block");
  r.integer("switch.stage.sram_word_bits", "bits", 128, 8, 4096, "Bits per SRAM word");
  r.integer("switch.stage.tcam_blocks", "blocks", 24, 1, 100000, "TCAM blocks per stage");
  r.integer("switch.stage.tcam_block_words", "words", 512, 1, 1 << 24, "Words per TCAM block");
  r.integer("switch.stage.tcam_word_bits", "bits", 44, 8, 4096, "Bits per TCAM word");
  r.integer("switch.stage.stateful_alus", "ALUs", 4, 1, 1000, "Stateful ALUs (register arrays) per stage");
  r.integer("switch.stage.hash_bits", "bits", 416, 1, 100000, "Hash-distribution output bits per stage");
  r.integer("switch.stage.action_slots", "tables", 16, 1, 1000, "Logical tables per stage");
}

void declare_tm(param_registry& r) {
  r.real_list("tm.alpha", "", {1, 1, 1, 1, 1, 1, 1, 1}, 0, 1024, 8, "Dynamic-threshold alpha per priority 0-7 (lossy priorities): a queue may hold alpha x free shared buffer; 0 = no dynamic threshold");
  r.integer_list("tm.strict", "priorities", {7}, 0, 7, 0, "Priorities served by strict priority (highest first); the rest share by DWRR");
  r.integer_list("tm.quantum", "bytes", {2048, 2048, 2048, 2048, 2048, 2048, 2048, 2048}, 1, 1 << 24, 8, "DWRR quantum per priority 0-7");
  r.integer_list("ecn.priorities", "priorities", {}, 0, 7, 0, "Priorities whose ECN-capable frames are marked (RED/WRED at dequeue); empty = no marking");
  r.real_list("ecn.kmin", "KiB", {400, 400, 400, 400, 400, 400, 400, 400}, 0, 1e7, 8, "RED: no marking at or below this queue depth, per priority 0-7");
  r.real_list("ecn.kmax", "KiB", {1600, 1600, 1600, 1600, 1600, 1600, 1600, 1600}, 0, 1e7, 8, "RED: marking probability reaches ecn.pmax here and 1 above it; equal to kmin = DCTCP step, per priority 0-7");
  r.real_list("ecn.pmax", "probability", {0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2}, 0, 1, 8, "RED: marking probability at kmax, per priority 0-7");
  r.integer_list("pfc.priorities", "priorities", {3}, 0, 7, 0, "Lossless priorities (PFC); empty = no PFC");
  r.real("pfc.xoff", "KiB", 0, 0, 1e7, "Static XOFF threshold per ingress port and priority; 0 = dynamic (pfc.xoff_fraction of the free shared buffer)");
  r.real("pfc.xoff_fraction", "fraction", 0.11, 0.0001, 1, "Dynamic XOFF threshold: fraction of the free shared buffer (HPCC's setup: 11%)");
  r.real("pfc.xon_offset", "KiB", 2, 0, 1e7, "Resume (XON) when the ingress count is this far below the XOFF threshold and the headroom is empty");
  r.real("pfc.headroom", "KiB", 0, 0, 1e7, "Headroom per ingress port and lossless priority; 0 = enough for each port's link (see the switch datasheet)");
  r.integer("pfc.quanta", "quanta", 65535, 1, 65535, "Pause time in PAUSE frames (512 bit times each); refreshed while XOFF lasts");
  r.integer("pfc.response_cycles", "cycles", 64, 0, 1000000, "PAUSE received to its priorities stopping, in the receiver's clock cycles");
}

void declare_mirror(param_registry& r) {
  r.choice("mirror.to", "off", {"off", "cpu", "collector"}, "Ingress mirror session of every switch: off, to the switch's CPU port, or encapsulated (ERSPAN II, 54 bytes) to the host mirror.collector");
  r.integer("mirror.sample", "frames", 1, 1, 0xFFFFFFFF, "Mirror one in this many data frames entering each switch");
  r.integer("mirror.truncate", "bytes", 0, 0, 9216, "Bytes of each frame copied; 0 = the whole frame, else at least 64");
  r.integer("mirror.collector", "host", 0, 0, 16383, "Host that receives the copies (mirror.to = \"collector\")");
  r.integer("mirror.priority", "priority", 0, 0, 7, "Traffic-manager priority of the copies; must not be lossless");
  r.real("mirror.cpu_rate", "Gbps", 25, 0.001, 1e5, "Rate of each switch's CPU port (mirror.to = \"cpu\")");
}

void declare_lb(param_registry& r) {
  r.choice("lb.mode", "ecmp", {"ecmp", "wcmp", "spray_random", "spray_round_robin", "letflow", "balance_sketch", "conga"}, "How a switch picks among the next hops of a data packet's multipath group (ACKs follow ECMP)");
  r.integer("lb.wcmp_table_size", "entries", 64, 2, 65535, "WCMP: member entries a weighted group may take (each next hop replicated by its link rate)");
  r.integer("lb.flowlet.entries", "entries", 65536, 1, 1 << 26, "LetFlow: flowlet table entries (indexed by flow hash modulo entries)");
  r.real("lb.flowlet.timeout", "us", 500, 0.001, 1e7, "LetFlow: Delta, the checker's sweep period; an idle flowlet ends after Delta to 2 Delta with one age bit");
  r.integer("lb.flowlet.age_bits", "bits", 1, 1, 16, "LetFlow: age bits per entry");
  r.integer("lb.flowlet.ports", "ports", 2, 1, 16, "LetFlow: table memory accesses per cycle, shared by lookups and the checker");
  r.integer("lb.flowlet.sweep_width", "entries", 1, 1, 1 << 16, "LetFlow: entries the checker visits per cycle (entries per SRAM row)");
  r.real("lb.conga.dre_period", "us", 16, 0.001, 1e6, "CONGA: T_dre, the DRE's decrement period (tau = T_dre / alpha)");
  r.real("lb.conga.dre_alpha", "fraction", 0.1, 0.0001, 1, "CONGA: alpha, the fraction of the DRE register removed every T_dre");
  r.integer("lb.conga.q_bits", "bits", 3, 1, 8, "CONGA: bits of a congestion metric");
  r.real("lb.conga.aging", "us", 10000, 0, 1e9, "CONGA: a fed-back metric not refreshed for this long reads 0; 0 = never ages");
  r.choice("lb.sketch.form", "software", {"software", "tofino"}, "BurstBalancer: Algorithm 1 as written, or the paper's Tofino design (selector and scheduler registers; outdated buckets cleared by a recirculated packet)");
  r.integer("lb.sketch.buckets", "buckets", 250, 1, 1 << 24, "BalanceSketch: buckets l (BurstBalancer's leaf-spine runs: 250)");
  r.integer("lb.sketch.cells", "cells", 1, 1, 64, "BalanceSketch: cells d per bucket (the Tofino form takes 1)");
  r.integer("lb.sketch.fingerprint_bits", "bits", 16, 1, 32, "BalanceSketch: flow fingerprint width");
  r.integer("lb.sketch.timestamp_bits", "bits", 8, 2, 64, "BalanceSketch: compact cyclic timestamp width (in units of the flowlet timeout)");
  r.real("lb.sketch.flowlet_timeout", "us", 200, 0.001, 1e7, "BalanceSketch: delta, the gap that starts a new flowlet (burst)");
  r.real("lb.sketch.flow_timeout", "us", 50000, 0.001, 1e9, "BalanceSketch: Delta, the idle time after which a flow's cell may be taken");
  r.integer("lb.sketch.vote_threshold", "votes", 0, 0, 1 << 30, "BalanceSketch: F, a flowlet is a burst when its flow's vote exceeds this");
}

void declare_nic(param_registry& r) {
  r.real("nic.clock", "MHz", 1000, 1, 1e5, "NIC clock; received frames are handled on its edges (period: whole picoseconds)");
  r.integer("nic.mtu", "bytes", 1000, 1, 9000, "Payload bytes per data packet");
  r.integer("nic.window", "packets", 128, 1, big, "Fixed window per flow (packets sent and not acknowledged)");
  r.real("nic.rto", "us", 1000, 0.001, 1e9, "Retransmission timeout (go-back-N from the oldest unacknowledged packet)");
  r.boolean("nic.int_padding", false, "Frames carry HPCC's 42-byte INT padding; switches write an INT record per hop");
  r.integer("nic.data_priority", "priority", 3, 0, 7, "Traffic class of data frames (DSCP class selector)");
  r.integer("nic.ack_priority", "priority", 7, 0, 7, "Traffic class of ACK/NAK/CNP frames");
  r.integer("nic.rx_pipe_cycles", "cycles", 16, 0, 1000000, "RX pipe: frame in to handled (ACK built, CC module fed)");
  r.integer("nic.tx_pipe_cycles", "cycles", 16, 0, 1000000, "TX pipe: packet scheduled to on the MAC");
  r.integer("nic.scheduler.engines", "engines", 6, 1, 4096, "Flow-scheduler engines; QP n belongs to engine n mod engines (HPCC's FPGA: 6)");
  r.choice("flowcut.form", "off", {"off", "nic", "ingress", "switch"}, "Flowcut: where the tables are: in each source NIC (its NIC-only form: the path is the ECMP entropy), in each switch with hosts (ingress only), or in every switch (full switch: ACKs retrace the data's path)");
  r.integer("flowcut.capacity", "entries", 4096, 1, 1 << 24, "Flowcut: table entries (flows with bytes in flight) per NIC or switch");
  r.real("flowcut.rtt_ratio", "ratio", 4, 1, 255, "Flowcut: drain a flow when the EWMA of its RTT over the minimum RTT for its hop count passes this");
  r.integer("flowcut.ewma_shift", "", 3, 0, 15, "Flowcut: the EWMA weight of a new RTT sample is 2^-shift");
  r.integer("nic.scheduler.visit_cycles", "cycles", 1, 1, 1000000, "Cycles an engine spends on one QP of its round-robin; a QP sends at most one packet per visit");
}

void declare_cc(param_registry& r) {
  r.choice("cc.algorithm", "none", {"none", "hpcc", "dcqcn", "dctcp", "timely"}, "Congestion control of every QP; none = the fixed window nic.window alone");
  r.boolean("cc.window", false, "DCQCN and TIMELY with HPCC's sending window (\"+win\"): bytes in flight <= rate x cc.base_rtt");
  r.real("cc.base_rtt", "us", 0, 0, 1e6, "T: HPCC's base RTT (W_init = line rate x T) and the +win window; 0 = the unloaded RTT of one MTU packet between the farthest hosts, rounded up to a microsecond");
  r.real("hpcc.eta", "fraction", 0.95, 0.01, 1, "Target utilisation eta");
  r.integer("hpcc.max_stage", "stages", 0, 0, 1000, "Additive-increase stages before a multiplicative update (0 in HPCC's simulations, 5 on its hardware)");
  r.integer("hpcc.w_ai", "bytes", 80, 1, 1 << 24, "Additive increase W_AI per update");
  r.choice("hpcc.divider", "table", {"table", "exact"}, "Window division: the reciprocal lookup table and a multiply, or an exact (iterative) divider");
  r.real("hpcc.epsilon", "fraction", 0.0078125, 1e-6, 0.49, "Reciprocal table: kept values are at least this far apart in relative terms; also its worst relative error");
  r.integer("hpcc.table_input_bits", "bits", 22, 1, 32, "Reciprocal table covers 1/n for 1 <= n <= 2^bits (HPCC: 22)");
  r.integer("hpcc.mantissa_bits", "bits", 24, 8, 53, "Reciprocal table: bits of each stored mantissa");
  r.integer("hpcc.u_frac_bits", "bits", 16, 1, 24, "Fraction bits of the fixed-point utilisation U (and of eta)");
  r.integer("hpcc.lookup_cycles", "cycles", 3, 1, 1000, "Reciprocal table: cycles to find and read an entry");
  r.integer("hpcc.base_cycles", "cycles", 8, 0, 100000, "CC module cycles per ACK besides the division");
  r.choice("dcqcn.variant", "mlx", {"mlx", "paper"}, "DCQCN reaction point as HPCC's ns-3 (Mellanox) implements it, or as the DCQCN paper specifies it");
  r.real("dcqcn.g", "", 0.00390625, 1e-6, 1, "Alpha EWMA gain g");
  r.real("dcqcn.alpha_interval", "us", 1, 0.001, 1e6, "K: alpha update period");
  r.real("dcqcn.decrease_interval", "us", 4, 0.001, 1e6, "T_d: at most one rate cut per this period");
  r.real("dcqcn.increase_timer", "us", 300, 0.001, 1e7, "T_i: rate-increase timer (the vendor default; 55 in the DCQCN paper, 900 in Alibaba's setting)");
  r.integer("dcqcn.byte_counter", "bytes", 0, 0, 1LL << 40, "B: rate-increase byte counter; 0 = none (as HPCC's ns-3)");
  r.integer("dcqcn.fast_recovery", "steps", 1, 0, 1000, "F: fast-recovery steps before additive increase");
  r.real("dcqcn.rate_ai", "Mbps", 5, 0.001, 1e6, "Additive increase per step at 25 Gbps, scaled with the line rate (HPCC's evaluation)");
  r.real("dcqcn.rate_hai", "Mbps", 50, 0.001, 1e6, "Hyper increase per step at 25 Gbps, scaled with the line rate");
  r.real("dcqcn.min_rate", "Mbps", 1000, 0.001, 1e6, "Lowest rate a cut may reach");
  r.real("dcqcn.cnp_interval", "us", 0, 0, 1e6, "Notification point: at most one CNP per QP per this interval; 0 = one per CE-marked packet (HPCC's ns-3; the DCQCN paper used 50)");
  r.real("dctcp.g", "", 0.0625, 1e-6, 1, "DCTCP alpha EWMA gain g");
  r.real("timely.alpha", "", 0.875, 0, 1, "EWMA weight of the new RTT difference");
  r.real("timely.beta", "", 0.8, 0, 1, "Multiplicative decrease factor");
  r.real("timely.t_low", "us", 50, 0, 1e6, "Below this RTT: additive increase");
  r.real("timely.t_high", "us", 500, 0, 1e6, "Above this RTT: multiplicative decrease");
  r.real("timely.min_rtt", "us", 20, 0.001, 1e6, "Normaliser of the RTT gradient");
  r.real("timely.delta", "Mbps", 10, 0.001, 1e6, "Additive step at 10 Gbps, scaled with the line rate (HPCC's evaluation)");
  r.integer("timely.hai_n", "steps", 5, 1, 1000, "Hyperactive increase: N steps after timely.hai_n non-positive gradients");
}

void declare_traffic(param_registry& r) {
  r.choice("traffic.pattern", "poisson", {"poisson", "incast", "permutation", "all_to_all", "list"}, "Flow arrival pattern (list: only traffic.flows)");
  r.string_list("traffic.flows", "", {}, "Flows added to any pattern: \"SRC->DST BYTES@START_US\", or \"SRC->DST BYTES@START_US+EVERY_USxCOUNT\" for COUNT flows EVERY_US apart");
  r.string("traffic.cdf", "websearch", "Flow-size CDF: websearch, fb_hadoop, datamining, enterprise, or a file path (SIZE_BYTES PERCENT per line)");
  r.boolean("traffic.remote_only", false, "Poisson: destinations only under another top-of-rack (leaf or edge) switch, as in LetFlow's testbed; traffic.load stays per host link");
  r.real("traffic.load", "fraction", 0.5, 0.0001, 1, "Average offered load per host link, payload bytes over link rate (poisson)");
  r.integer("traffic.flow_size", "bytes", 0, 0, std::numeric_limits<int64_t>::max(), "Fixed flow size for incast/permutation/all_to_all; 0 = draw from traffic.cdf");
  r.real("traffic.start", "us", 0, 0, 1e9, "Start time of incast/permutation/all_to_all flows");
  r.integer("traffic.incast.senders", "hosts", 16, 1, big, "Senders of the incast");
  r.integer("traffic.incast.receiver", "host", 0, 0, big, "Receiving host of the incast");
}

// Clock synchronisation (docs/datasheets/sundial.md): Sundial and its PTP+eps baselines, run
// over the fabric's topology for the whole run. Defaults are the paper's testbed [L1514-1526].
void declare_clock(param_registry& r) {
  r.choice("clock.algorithm", "off", {"off", "sundial", "ptp", "ptp_fast"}, "Clock synchronisation of every switch and NIC: off, Sundial, or a PTP+eps baseline alone");
  r.string_list("clock.baselines", "", {}, "Baselines run beside clock.algorithm on the same oscillators and faults: \"ptp\" (PTP+eps) and \"ptp_fast\" (PTP+DTP+eps)");
  r.string("clock.root", "", "Root (grandmaster) switch, e.g. \"core0\"; empty = the first switch of the top tier");
  r.real("clock.sync_interval", "us", 90, 0.001, 1e9, "Sundial: interval of the root's sync-messages");
  r.real("clock.first_timeout", "us", 185, 0.001, 1e9, "Sundial: silence after the last valid message at which a device turns to its backup parent");
  r.real("clock.second_timeout", "us", 180, 0.001, 1e9, "Sundial: further silence at which the backup root makes itself the root");
  r.real("clock.eps_per_hop", "ns", 5, 0, 1e6, "eps_base per hop of tree depth (timestamping and link-asymmetry noise), every algorithm");
  r.real("clock.max_drift", "ppm", 200, 0.001, 1e5, "max_drift_rate of epsilon (Eq. 3.1), every algorithm");
  r.real("clock.oscillator_bound", "ppm", 100, 0, 1e4, "Oscillator frequency offsets are drawn uniformly within +-this");
  r.real("clock.drift", "ppm/s", 0, 0, 1e6, "Each oscillator's offset changes at a rate drawn uniformly within +-this, saturating at clock.oscillator_bound");
  r.real("clock.broken_rate", "ppm", 1000, -1e5, 1e5, "Frequency offset a clock jumps to when it breaks (clock.faults broken_clock)");
  r.real("clock.controller_delay", "us", 100000, 0, 1e9, "Failure to the controller's new plan (Sundial) or new tree (baselines)");
  r.real("clock.ptp_interval", "us", 2e6, 0.001, 1e12, "ptp: sync interval");
  r.real("clock.ptp_recovery", "us", 2e6, 0, 1e12, "ptp: T_recovery, added to the age of the last message of every device that is not a child of the root");
  r.real("clock.ptp_fast_interval", "us", 5, 0.001, 1e12, "ptp_fast: sync interval");
  r.real("clock.ptp_fast_recovery", "us", 1e5, 0, 1e12, "ptp_fast: T_recovery, as clock.ptp_recovery");
  r.integer("clock.priority", "priority", 7, 0, 7, "Traffic-manager priority of sync-messages in the switches; must be strict (tm.strict)");
  r.string_list("clock.faults", "", {}, "Faults at chosen times in us: \"link agg0-core0 @ 1000\", \"device agg3 @ 1500\", \"root @ 2000\", \"domain pod2 @ 2500\", \"broken_clock edge4 @ 3000\"");
}

}  // namespace

const param_registry& all_params() {
  static const param_registry reg = [] {
    param_registry r;
    declare_sim(r);
    declare_topology(r);
    declare_switch(r);
    declare_tm(r);
    declare_mirror(r);
    declare_lb(r);
    declare_nic(r);
    declare_cc(r);
    declare_traffic(r);
    declare_clock(r);
    return r;
  }();
  return reg;
}

}  // namespace netasic
