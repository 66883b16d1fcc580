// Match-action resource allocator (core, no SystemC): places the match tables and register
// arrays of a switch program into the stages of an RMT/Tofino-like pipeline and reports what
// each stage uses and whether the program fits.
//
// Each feature (routing, ECMP, load balancing, INT, sketches) declares its tables and register
// arrays. Ingress and egress share the physical stages, so their use adds up per stage. An item
// goes in a stage strictly after the last stage of every item named in its `after` (it needs
// that result). Items are placed one at a time, in topological order (ties: declaration order,
// tables before registers), each at the earliest stage where it fits:
//   - a register array lives in ONE stage (its stateful ALU owns the RAM);
//   - a match table goes whole into the earliest eligible stage that can hold it; when no stage
//     can, it is split: the earliest eligible stage is filled as far as its free resources
//     allow, then the next stages. Items after a split table go after its LAST stage.
// An item that does not fit is reported and not placed (nor anything after it); the rest is
// still placed, so one run reports every problem.
//
// Cost of `entries` entries of one item in one stage (b = stage_budget):
//   exact     entry_bits = key_bits + action_bits + 4 (valid + version bits)
//             entry_bits <= sram_word_bits: words = ceil(entries / (sram_word_bits / entry_bits))
//             otherwise:                    words = entries * ceil(entry_bits / sram_word_bits)
//             SRAM blocks = ceil(words / sram_block_words)
//             hash bits = ceil(log2(max(2, words)))   (selects the word; per part, per stage)
//   index     directly addressed, the key is not stored: as exact with entry_bits = action_bits
//             and no hash bits (action_bits = 0: no SRAM at all)
//   ternary,  TCAM words per entry = ceil(key_bits / tcam_word_bits)
//   lpm       TCAM blocks = ceil(entries / tcam_block_words) * TCAM words per entry
//             SRAM blocks (action data) = ceil(entries * action_bits / (sram_word_bits * sram_block_words))
//             no hash bits
//   register  bits = entries * width_bits * (dual ? 2 : 1)
//             SRAM blocks = ceil(bits / (sram_word_bits * sram_block_words)) + 1
//               (+1: the spare block the read-modify-write pipeline of a register RAM needs,
//                as on Tofino; this is the model's assumption)
//             1 stateful ALU; hash bits = ceil(log2(max(2, entries))) when hashed_index
//   every item (every part of a split table) takes 1 action slot (logical table) in its stage.
// Pipeline-wide, besides the stages: the PHV bits every block adds (summed against phv_bits)
// and the recirculation bandwidth blocks ask for (summed against recirc_gbps). Buffer bytes
// (Flowcut's held packets) are reported, not placed: they share the traffic manager's buffer.
//
// When something does not fit, allocation::shortfalls says, per item, the binding resource, the
// stage, what it needs against what the stage has, the most entries that would fit, and what to
// shrink (the item's knob: the configuration key that sizes it).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace netasic {

// Per-stage resources, plus the stage count. Defaults are Tofino-1-like.
struct stage_budget {
  unsigned stages = 12;
  unsigned sram_blocks = 80;         // per stage
  unsigned sram_block_words = 1024;  // words per SRAM block
  unsigned sram_word_bits = 128;
  unsigned tcam_blocks = 24;         // per stage
  unsigned tcam_block_words = 512;
  unsigned tcam_word_bits = 44;
  unsigned stateful_alus = 4;        // per stage
  unsigned hash_bits = 416;          // hash-distribution output bits per stage
  unsigned action_slots = 16;        // logical tables per stage
  unsigned phv_bits = 4096;          // packet header vector, the whole pipeline
  unsigned recirc_gbps = 100;        // recirculation bandwidth, per pipe
};

enum class match_kind { exact, ternary, lpm, index };  // index: directly addressed (no key compare)
enum class gress { ingress, egress };

struct table_decl {
  std::string feature, name;
  match_kind kind;
  uint64_t entries;
  unsigned key_bits, action_bits;
  gress where = gress::ingress;
  std::vector<std::string> after;    // names of tables/registers whose result this one needs
  std::string knob;                  // the configuration key that sets `entries` ("" = none)
};

struct register_decl {
  std::string feature, name;
  uint64_t entries;
  unsigned width_bits;               // 8, 16 or 32 per word
  bool dual = false;                 // two words per entry (lo/hi)
  bool hashed_index = true;          // index comes from a hash of packet fields
  gress where = gress::ingress;
  std::vector<std::string> after;
  std::string knob;                  // as table_decl::knob
};

// Metadata a block carries in the packet header vector (parsed headers, its results).
struct phv_decl {
  std::string feature, name;
  unsigned bits;
};

// Bandwidth a block sends through the recirculation port (worst case), with how it was derived.
struct recirc_decl {
  std::string feature, name;
  double gbps;
  std::string basis;
  std::string knob;
};

// Packet buffer a block holds (worst case), with how it was derived. Reported, not placed.
struct buffer_decl {
  std::string feature, name;
  uint64_t bytes;
  std::string basis;
};

struct program {
  std::vector<table_decl> tables;
  std::vector<register_decl> registers;
  std::vector<phv_decl> phv;
  std::vector<recirc_decl> recirc;
  std::vector<buffer_decl> buffer;
  // Every feature the program holds, even one with no item of a kind (a check can ask).
  std::vector<std::string> features() const;
};

// What one item (or one part of a split table) takes in one stage. 64-bit: a request can be
// far larger than a stage before the allocator says it does not fit.
struct item_cost {
  uint64_t sram_blocks = 0, tcam_blocks = 0, stateful_alus = 0, hash_bits = 0, action_slots = 0;
};

// Cost formulas above. table_cost: `entries` entries of `t` in one stage (0 entries: nothing).
item_cost table_cost(const table_decl& t, uint64_t entries, const stage_budget& b);
item_cost register_cost(const register_decl& r, const stage_budget& b);

struct stage_use {
  unsigned sram_blocks = 0, tcam_blocks = 0, stateful_alus = 0, hash_bits = 0, action_slots = 0;
  std::vector<std::string> items;    // names of the items with a part here
};

// The entries of an item held by one stage, and what they take there.
struct stage_part {
  unsigned stage = 0;
  uint64_t entries = 0;
  item_cost use;
};

struct placement {
  std::string name, feature;
  unsigned first_stage = 0, last_stage = 0;
  // Beyond the bare stage range, so a report (or a check) can rebuild the per-stage use.
  bool is_register = false;
  match_kind kind = match_kind::exact;  // tables only
  gress where = gress::ingress;
  uint64_t entries = 0;
  std::vector<stage_part> parts;        // ascending stages; one part for a register array
};

// Why one item (or the PHV, or the recirculation port) does not fit.
struct shortfall {
  std::string item, feature, knob;
  std::string resource;                  // "SRAM blocks", "TCAM blocks", "stateful ALUs", "hash bits",
                                         // "action slots", "stages", "PHV bits", "recirculation Gb/s"
  int stage = -1;                        // where it binds; -1 = the whole pipeline
  uint64_t need = 0, used = 0, budget = 0;   // of `resource` there (Gb/s rounded up)
  uint64_t entries = 0, max_entries = 0;     // asked; the most that would fit (0 = none)
  std::string advice;                    // what to shrink, e.g. "shrink lb.flowlet.entries to <= 2^16 (65536)"
};

struct allocation {
  bool fits = false;
  std::vector<stage_use> stage;          // size = budget.stages
  std::vector<placement> placed;         // in allocation (topological) order
  std::vector<std::string> problems;     // empty when it fits
  std::vector<shortfall> shortfalls;     // one per item that does not fit (not for its dependents)
  unsigned phv_used = 0;
  double recirc_gbps = 0;
};

// Throws std::invalid_argument for a malformed budget (a zero field) or program (duplicate or
// empty name, unknown name in `after`, dependency cycle, zero entries, key_bits 0 for an
// exact/ternary/lpm table, register width not 8/16/32, an ingress item needing an egress one).
// Not fitting is not an error: see allocation::problems.
allocation allocate(const program& prog, const stage_budget& budget);

// Text report: per stage used/available of each resource, one line per placed item with its
// stages (and entries per stage when split), then "fits" or the problems.
std::string format_allocation(const allocation& a, const stage_budget& b);

const char* to_string(match_kind k);
const char* to_string(gress g);

// The forwarding program the netasic switch runs today: the longest-prefix match of
// switch/route_table.h as two exact-match tables looked up together, 'route' on the destination's
// prefix (one prefix length across the fabric, so a hash match; key ceil(log2 prefixes) bits,
// action 32 bits: group base+size) and, with host_routes > 0, 'host_route' on the destination
// host (key 24 bits, action 32 bits; a hit wins); the ECMP member table (index, entries = member
// capacity, action 16 bits: port) after both; plus INT at egress when
// enabled: a per-port egress register 'int_tx_bytes' (entries = ports, 32-bit) and an index
// table 'int_switch_id' (1 entry, action 12 bits); plus, with mirroring, the sampler register
// 'mirror_sampler' (1 entry, 32-bit) and the session table 'mirror_session' (1 entry, action
// 32 bits: port, truncation, priority) at ingress.
program forwarding_program(uint64_t prefixes, uint64_t ecmp_members, unsigned ports, bool int_enabled,
                           bool mirror = false, uint64_t host_routes = 0);

// "2^N (V)" for the largest power of two N with 2^N <= v, or "V" below 1.
std::string power_of_two_at_most(uint64_t v);

}  // namespace netasic
