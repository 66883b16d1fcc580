#include "scenario/switch_keys.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "fabric/fabric.h"
#include "nic/host.h"
#include "scenario/key_binding.h"
#include "sizing/target.h"

namespace netasic {
namespace {

constexpr int64_t big = std::numeric_limits<int32_t>::max();

const names<unsigned> hash_names{{32, "crc32"}, {16, "crc16"}};   // switch_config::hash_bits
const names<pfc_deadlock_action> deadlock_action_names{{pfc_deadlock_action::stop, "stop"}, {pfc_deadlock_action::run_on, "continue"}};
const names<pfc_watchdog_action> watchdog_action_names{{pfc_watchdog_action::drop, "drop"}, {pfc_watchdog_action::forward, "forward"}};
const names<mirror_config::target> mirror_names{
    {mirror_config::target::off, "off"}, {mirror_config::target::cpu, "cpu"}, {mirror_config::target::collector, "collector"}};

template <class K>
void pipeline_keys(K& k) {
  using S = switch_config;
  auto tm = [](auto field) { return path(&S::tm, field); };
  k.real("switch.clock", mhz_as_period_ps, &S::clock_period_ps, 1, 1e5, "Pipeline clock; the period must be a whole number of picoseconds");
  k.integer("switch.parser_cycles", "cycles", &S::parser_cycles, 0, 100000, "Parser latency");
  k.integer("switch.stages", "stages", &S::stages, 1, 64, "Match-action stages; ingress and egress each pass all of them, and each has the resource budget of switch.stage.*");
  k.integer("switch.stage_cycles", "cycles", &S::stage_cycles, 0, 100000, "Latency of one match-action stage");
  k.integer("switch.tm_cycles", "cycles", &S::tm_cycles, 0, 100000, "Traffic manager latency, enqueue to earliest dequeue");
  k.integer("switch.deparser_cycles", "cycles", &S::deparser_cycles, 0, 100000, "Deparser latency");
  k.integer("switch.pipes", "pipes", &S::pipes, 1, 64, "Pipelines per switch; ports are split evenly over them and each takes one frame per cycle at its parser and at its egress");
  k.integer("switch.pipe_fifo", "frames", &S::pipe_fifo, 1, 1 << 20, "Frames that can wait for a pipe's parser; more are dropped (pipe_overrun)");
  // switch_config::cut_through_bytes is 0 for store and forward: read_switch sets it.
  k.unbound.choice("switch.forwarding", "store_and_forward", {"store_and_forward", "cut_through"}, "When a frame may enter the pipeline: after its last bit, or after switch.cut_through_bytes");
  k.unbound.integer("switch.cut_through_bytes", "bytes", 128, 64, 9216, "Bytes of a frame that must be in before a cut-through switch starts on it (cut_through)");
  k.integer("switch.recirculations", "passes", &S::recirculations, 0, 15, "Extra pipeline passes every data frame takes through its pipe's recirculation port");
  k.real("switch.recirc_rate", gbps_as_bps, &S::recirc_rate_bps, 0.001, 1e5, "Rate of each pipe's recirculation port");
  k.integer("switch.buffer", kib_as_bytes, tm(&tm_config::buffer_bytes), 1, big, "Shared packet buffer (including the PFC headroom)");
  k.integer("switch.queue_limit", kib_as_bytes, tm(&tm_config::queue_limit_bytes), 0, big, "Static limit per egress queue of a lossy priority; 0 = none");
  k.choice("switch.hash", hash_names, &S::hash_bits, "ECMP hash of the 5-tuple");
  k.integer("switch.hash_seed", "", &S::hash_seed, 0, 0xFFFFFFFF, "Hash initial value; each switch XORs its ID times 0x9E3779B1 into it (a CRC is linear in its seed, so this alone does not de-polarise: see switch.hash_tier_offset)");
  k.integer("switch.hash_tier_offset", "bits", &S::hash_tier_offset, 0, 31, "A switch of tier t (1 leaf/edge, 2 spine/agg, 3 core) uses its flow hash rotated right by (t-1) times this many bits, so tiers pick members from different hash bits and do not polarise; 0 = all tiers use the same bits (polarised)");
  k.integer("switch.ecmp_members", "entries", &S::member_capacity, 1, 65535, "ECMP member table size per switch");
}

// The budget `netasic resources` checks: the target's (switch.target), with any switch.stage.*
// key that is not 0 in its place.
struct stage_override {
  std::string target = "generic";
  unsigned sram_blocks = 0, sram_block_words = 0, sram_word_bits = 0, tcam_blocks = 0, tcam_block_words = 0,
           tcam_word_bits = 0, stateful_alus = 0, hash_bits = 0, action_slots = 0, phv_bits = 0, recirc_gbps = 0;
};

template <class K>
void stage_keys(K& k) {
  using B = stage_override;
  k.string("switch.target", &B::target, "Pipeline budget `netasic resources` places the program on: a target of targets/ (generic, tofino1, tofino2, rmt) or a target file");
  k.integer("switch.stage.sram_blocks", "blocks", &B::sram_blocks, 0, 100000, "SRAM blocks per stage; 0 = the target's");
  k.integer("switch.stage.sram_block_words", "words", &B::sram_block_words, 0, 1 << 24, "Words per SRAM block; 0 = the target's");
  k.integer("switch.stage.sram_word_bits", "bits", &B::sram_word_bits, 0, 4096, "Bits per SRAM word; 0 = the target's");
  k.integer("switch.stage.tcam_blocks", "blocks", &B::tcam_blocks, 0, 100000, "TCAM blocks per stage; 0 = the target's");
  k.integer("switch.stage.tcam_block_words", "words", &B::tcam_block_words, 0, 1 << 24, "Words per TCAM block; 0 = the target's");
  k.integer("switch.stage.tcam_word_bits", "bits", &B::tcam_word_bits, 0, 4096, "Bits per TCAM word; 0 = the target's");
  k.integer("switch.stage.stateful_alus", "ALUs", &B::stateful_alus, 0, 1000, "Stateful ALUs (register arrays) per stage; 0 = the target's");
  k.integer("switch.stage.hash_bits", "bits", &B::hash_bits, 0, 100000, "Hash-distribution output bits per stage; 0 = the target's");
  k.integer("switch.stage.action_slots", "tables", &B::action_slots, 0, 1000, "Logical tables per stage; 0 = the target's");
  k.integer("switch.stage.phv_bits", "bits", &B::phv_bits, 0, 1 << 20, "Packet header vector of the pipeline; 0 = the target's");
  k.integer("switch.stage.recirc_gbps", "Gbps", &B::recirc_gbps, 0, 1 << 20, "Recirculation bandwidth per pipe the program may use; 0 = the target's");
}

// The ECN profiles and the lossless priorities are per-priority settings of tm_config::ecn and
// tm_config::lossless: read_tm sets them. (tm_config's own defaults are no marking and no PFC.)
template <class K>
void tm_keys(K& k) {
  using S = switch_config;
  auto tm = [](auto field) { return path(&S::tm, field); };
  k.reals("tm.alpha", "", tm(&tm_config::alpha), 0, 1024, "Dynamic-threshold alpha per priority 0-7 (lossy priorities): a queue may hold alpha x free shared buffer; 0 = no dynamic threshold");
  k.priorities("tm.strict", tm(&tm_config::strict), "Priorities served by strict priority (highest first); the rest share by DWRR");
  k.integers("tm.quantum", "bytes", tm(&tm_config::quantum), 1, 1 << 24, "DWRR quantum per priority 0-7");
  k.unbound.integer_list("ecn.priorities", "priorities", {}, 0, 7, 0, "Priorities whose ECN-capable frames are marked (RED/WRED at dequeue); empty = no marking");
  k.unbound.real_list("ecn.kmin", "KiB", {400, 400, 400, 400, 400, 400, 400, 400}, 0, 1e7, 8, "RED: no marking at or below this queue depth, per priority 0-7");
  k.unbound.real_list("ecn.kmax", "KiB", {1600, 1600, 1600, 1600, 1600, 1600, 1600, 1600}, 0, 1e7, 8, "RED: marking probability reaches ecn.pmax here and 1 above it; equal to kmin = DCTCP step, per priority 0-7");
  k.unbound.real_list("ecn.pmax", "probability", {0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2}, 0, 1, 8, "RED: marking probability at kmax, per priority 0-7");
  k.unbound.integer_list("pfc.priorities", "priorities", {3}, 0, 7, 0, "Lossless priorities (PFC); empty = no PFC");
  k.real("pfc.xoff", kib_as_bytes, tm(&tm_config::xoff_bytes), 0, 1e7, "Static XOFF threshold per ingress port and priority; 0 = dynamic (pfc.xoff_fraction of the free shared buffer)");
  k.real("pfc.xoff_fraction", "fraction", tm(&tm_config::xoff_fraction), 0.0001, 1, "Dynamic XOFF threshold: fraction of the free shared buffer (HPCC's setup: 11%)");
  k.real("pfc.xon_offset", kib_as_bytes, tm(&tm_config::xon_offset_bytes), 0, 1e7, "Resume (XON) when the ingress count is this far below the XOFF threshold and the headroom is empty");
  k.real("pfc.headroom", kib_as_bytes, &S::pfc_headroom_bytes, 0, 1e7, "Headroom per ingress port and lossless priority; 0 = enough for each port's link (see the switch datasheet)");
  k.integer("pfc.quanta", "quanta", &S::pfc_quanta, 1, 65535, "Pause time in PAUSE frames (512 bit times each); refreshed while XOFF lasts");
  k.integer("pfc.response_cycles", "cycles", &S::pfc_response_cycles, 0, 1000000, "PAUSE received to its priorities stopping, in the receiver's clock cycles");
  k.real("pfc.deadlock_detect", us_as_ps, &S::pfc_deadlock_detect_ps, 0, 1e9, "PFC deadlock detector: a cycle of paused lossless queues, each waiting on the next, none dequeuing for this long, is a deadlock (checked every quarter of it); 0 = off");
  k.choice("pfc.on_deadlock", deadlock_action_names, &S::on_deadlock, "What the run does at a detected PFC deadlock: stop there (the summary reports it), or continue to the end");
  k.real("pfc.watchdog", us_as_ps, &S::pfc_watchdog_ps, 0, 1e9, "PFC watchdog: a lossless queue with frames waiting that stays paused this long is in a PFC storm and stops honouring PAUSE (pfc.watchdog_action) until it has been unpaused for pfc.watchdog_restore; 0 = off");
  k.real("pfc.watchdog_restore", us_as_ps, &S::pfc_watchdog_restore_ps, 0, 1e9, "PFC watchdog: restoration time; a storm ends once its queue has been unpaused this long (a PAUSE meanwhile keeps it going); 0 = when the pause ends");
  k.choice("pfc.watchdog_action", watchdog_action_names, &S::watchdog_action, "PFC watchdog in a storm: drop the queue's frames (and those that arrive) or forward them, ignoring the pause");
}

template <class K>
void mirror_keys(K& k) {
  using M = mirror_config;
  k.choice("mirror.to", mirror_names, &M::to, "Ingress mirror session of every switch: off, to the switch's CPU port, or encapsulated (ERSPAN II, 54 bytes) to the host mirror.collector");
  k.integer("mirror.sample", "frames", &M::sample, 1, 0xFFFFFFFF, "Mirror one in this many data frames entering each switch");
  k.integer("mirror.truncate", "bytes", &M::truncate_bytes, 0, 9216, "Bytes of each frame copied; 0 = the whole frame, else at least 64");
  k.unbound.integer("mirror.collector", "host", 0, 0, 16383, "Host that receives the copies (mirror.to = \"collector\")");   // as collector_ip
  k.integer("mirror.priority", "priority", &M::prio, 0, 7, "Traffic-manager priority of the copies; must not be lossless");
  k.real("mirror.cpu_rate", gbps_as_bps, &M::cpu_rate_bps, 0.001, 1e5, "Rate of each switch's CPU port (mirror.to = \"cpu\")");
}

// Traffic manager: per-priority lists, each element checked by the parameter system.
void read_tm(const config& c, switch_config& sw) {
  apply_keys<switch_config> k(c, sw);
  tm_keys(k);
  sw.tm.lossless = priority_mask(c, "pfc.priorities");
  const uint8_t marked = priority_mask(c, "ecn.priorities");
  for (unsigned q = 0; q < num_priorities; ++q) {
    ecn_profile& e = sw.tm.ecn[q];
    e.enabled = marked >> q & 1;
    e.kmin_bytes = uint64_t(std::llround(c.reals("ecn.kmin")[q] * 1024));
    e.kmax_bytes = uint64_t(std::llround(c.reals("ecn.kmax")[q] * 1024));
    e.pmax = c.reals("ecn.pmax")[q];
    if (e.enabled && e.kmin_bytes > e.kmax_bytes) {   // named by a key the user set
      const double kmin = c.reals("ecn.kmin")[q], kmax = c.reals("ecn.kmax")[q];
      if (c.origin("ecn.kmax") == "default")
        fail(c, "ecn.kmin", fmt::format("priority {}: kmin {} KiB is above ecn.kmax's default of {} KiB", q, kmin, kmax));
      fail(c, "ecn.kmax", fmt::format("priority {}: kmax {} KiB is below kmin {} KiB (ecn.kmin from {})", q, kmax, kmin, c.origin("ecn.kmin")));
    }
  }
  if (!marked) reject_unused(c, {"ecn.kmin", "ecn.kmax", "ecn.pmax"}, "when ecn.priorities is empty");
  if (sw.tm.lossless) {
    if (sw.tm.xoff_bytes) reject_unused(c, {"pfc.xoff_fraction"}, "when pfc.xoff sets a static threshold");
    if (!sw.pfc_deadlock_detect_ps) reject_unused(c, {"pfc.on_deadlock"}, "when pfc.deadlock_detect is 0 (off)");
    if (!sw.pfc_watchdog_ps) reject_unused(c, {"pfc.watchdog_action", "pfc.watchdog_restore"}, "when pfc.watchdog is 0 (off)");
  } else {
    reject_unused(c, {"pfc.xoff", "pfc.xoff_fraction", "pfc.xon_offset", "pfc.headroom", "pfc.quanta", "pfc.deadlock_detect",
                      "pfc.on_deadlock", "pfc.watchdog", "pfc.watchdog_action", "pfc.watchdog_restore"},
                  "when pfc.priorities is empty");
  }
}

}  // namespace

void declare_switch_keys(param_registry& r) {
  declare_keys<switch_config> sw(r);
  pipeline_keys(sw);
  declare_keys<stage_override> stage(r);
  stage_keys(stage);
  tm_keys(sw);
  declare_keys<mirror_config> mirror(r);
  mirror_keys(mirror);
}

void read_switch(const config& c, const topology& t, switch_config& sw) {
  apply_keys<switch_config> k(c, sw);
  pipeline_keys(k);
  for (unsigned s : t.switches)
    if (t.nodes[s].port_link.size() < sw.pipes)
      fail(c, "switch.pipes", fmt::format("{} has {} ports, fewer than {} pipes", t.nodes[s].name,
                                          t.nodes[s].port_link.size(), sw.pipes));
  if (c.string("switch.forwarding") == "cut_through") sw.cut_through_bytes = uint32_t(c.integer("switch.cut_through_bytes"));
  else reject_unused(c, {"switch.cut_through_bytes"}, "with switch.forwarding = \"store_and_forward\"");
  read_tm(c, sw);
}

void read_mirror(const config& c, const topology& t, switch_config& sw) {
  mirror_config& m = sw.mirror;
  apply_keys<mirror_config> k(c, m);
  mirror_keys(k);
  const std::string with_to = "with mirror.to = \"" + c.string("mirror.to") + "\"";
  if (m.to == mirror_config::target::off)
    reject_unused(c, {"mirror.sample", "mirror.truncate", "mirror.collector", "mirror.priority", "mirror.cpu_rate"}, with_to);
  if (m.to != mirror_config::target::collector) reject_unused(c, {"mirror.collector"}, with_to);
  if (m.to != mirror_config::target::cpu) reject_unused(c, {"mirror.cpu_rate"}, with_to);
  if (m.truncate_bytes && m.truncate_bytes < 64)
    fail(c, "mirror.truncate", fmt::format("{} bytes is below the 64-byte minimum frame; use 0 for whole frames", m.truncate_bytes));
  if (m.to != mirror_config::target::off && (sw.tm.lossless >> m.prio & 1))
    fail(c, "mirror.priority", fmt::format("priority {} is lossless (pfc.priorities): mirrored copies would pause the traffic they copy", m.prio));
  const int64_t collector = c.integer("mirror.collector");
  if (m.to == mirror_config::target::collector && size_t(collector) >= t.hosts.size())
    fail(c, "mirror.collector", fmt::format("host {} does not exist; the topology has hosts 0 to {}", collector, t.hosts.size() - 1));
  m.collector_ip = host_ip(unsigned(collector));
}

void check_switch_buffer(const config& c, const fabric_config& fc) {
  const topology& t = fc.topo;
  const switch_config& sw = fc.sw;
  const uint32_t largest_frame = fc.nic.max_frame_bytes(), mtu_payload = fc.nic.mtu_payload;
  // A buffer or queue that cannot hold one full data frame can never forward one.
  for (const auto& [key, bytes] : {std::pair{"switch.buffer", sw.tm.buffer_bytes}, {"switch.queue_limit", sw.tm.queue_limit_bytes}})
    if (bytes && bytes < largest_frame)
      fail(c, key, fmt::format("{} bytes cannot hold one {}-byte data frame (nic.mtu {} bytes plus headers)", bytes,
                               largest_frame, mtu_payload));
  // The PFC headroom is reserved out of the buffer; the shared pool must keep room for frames.
  if (!sw.tm.lossless) return;
  const unsigned classes = unsigned(__builtin_popcount(sw.tm.lossless));
  for (unsigned s : t.switches) {
    uint64_t reserved = 0;
    for (unsigned li : t.nodes[s].port_link)
      reserved += classes * port_headroom(fc, t.links[li]);
    if (reserved + 2 * largest_frame > sw.tm.buffer_bytes)
      fail(c, "switch.buffer", fmt::format("{} KiB leaves no shared buffer on {}: its PFC headroom ({} ports, {} lossless "
                                           "priorities) takes {:.1f} KiB", sw.tm.buffer_bytes / 1024, t.nodes[s].name,
                                           t.nodes[s].port_link.size(), classes, double(reserved) / 1024));
  }
}

stage_budget make_stage_budget(const config& c) {
  stage_override o;
  apply_keys<stage_override> k(c, o);
  stage_keys(k);
  pipeline_target t;
  try {
    t = load_target(o.target, c.base_dir("switch.target"));
  } catch (const config_error& e) {
    throw config_error(fmt::format("{}: switch.target: {}", c.origin("switch.target"), e.what()));
  }
  stage_budget b = t.budget;
  // The simulated pipeline's stage count, when the scenario sets it, is the placed one's too.
  if (c.origin("switch.stages") != "default") b.stages = unsigned(c.integer("switch.stages"));
  const std::pair<unsigned stage_override::*, unsigned stage_budget::*> fields[] = {
      {&stage_override::sram_blocks, &stage_budget::sram_blocks},
      {&stage_override::sram_block_words, &stage_budget::sram_block_words},
      {&stage_override::sram_word_bits, &stage_budget::sram_word_bits},
      {&stage_override::tcam_blocks, &stage_budget::tcam_blocks},
      {&stage_override::tcam_block_words, &stage_budget::tcam_block_words},
      {&stage_override::tcam_word_bits, &stage_budget::tcam_word_bits},
      {&stage_override::stateful_alus, &stage_budget::stateful_alus},
      {&stage_override::hash_bits, &stage_budget::hash_bits},
      {&stage_override::action_slots, &stage_budget::action_slots},
      {&stage_override::phv_bits, &stage_budget::phv_bits},
      {&stage_override::recirc_gbps, &stage_budget::recirc_gbps}};
  for (const auto& [key, field] : fields)
    if (o.*key != 0) b.*field = o.*key;
  return b;
}

}  // namespace netasic
