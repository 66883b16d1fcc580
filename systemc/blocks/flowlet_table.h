// Flowlet table (core, no SystemC): LetFlow's flowlet detector (Vanini et al., NSDI'17, §3), also
// CONGA's. Each entry holds a valid bit, a port (the next hop) and an age counter; a packet's
// flow hash picks the entry (hash % entries). A packet on a valid entry follows its port and
// clears the age; on an invalid entry it starts a new flowlet: a port is chosen, stored, the entry
// is made valid with age 0.
//
// Aging is LetFlow's checker: at every Delta boundary a sweep starts that visits the entries in
// index order, sweep_width of them (one SRAM row) per clock cycle. On its visit a valid entry
// whose age is at its maximum (2^age_bits - 1) is invalidated, otherwise its age goes up by one.
// With one age bit that is LetFlow's "set the age bit, or clear the valid bit if already set", and
// an idle entry survives between Delta and 2*Delta; with k bits between (2^k - 1)*Delta and
// 2^k*Delta (see the datasheet for the exact cycle bounds).
//
// Ports: the table has `ports` read-modify-write slots per cycle, shared by lookups and the
// checker. Lookups always win (packets are never stalled): in a cycle whose lookups take every
// slot the checker waits (a sweep conflict) and retries the next cycle, falling behind. Inside a
// cycle the lookups come before the checker's visit. A Delta boundary that finds the previous sweep
// still running is a sweep overrun: one pending bit remembers it and the next sweep starts the
// cycle after the current one ends (several overruns during one sweep still give one sweep).
//
// Nothing runs per cycle or per entry while idle: the checker's position is computed from time
// stamps, each entry keeps the checker visit count at its last touch (its age is the visits
// since), and an entry's death (its 2^k-th visit after the touch) is kept in a bucket per sweep
// number, so invalidations are applied, and counted, exactly when the checker passes them.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "common/wave_trace.h"
#include "common/zeroed_array.h"

namespace netasic {

struct flowlet_config {
  uint32_t entries = 65536;             // LetFlow's hardware size (64K)
  unsigned age_bits = 1;                // 1..16; LetFlow and CONGA use 1
  uint64_t delta_ps = 500'000'000;      // Delta, the checker period: 500 us (LetFlow, TCP)
  unsigned ports = 2;                   // memory read-modify-write slots per cycle (lookups + checker)
  uint32_t sweep_width = 1;             // entries the checker visits per cycle (entries per SRAM row)
  uint64_t clock_period_ps = 1000;      // 1 GHz, the switch pipeline clock default
  unsigned port_bits = 8;               // width of the stored next hop; memory_bits() only
};

struct flowlet_result {
  uint32_t port;                        // where the packet goes
  bool new_flowlet;                     // the entry was invalid: the port was just chosen
  uint32_t index;                       // hash % entries
};

// An entry as the control plane would read it, with the checker where it is now.
struct flowlet_entry {
  bool valid;
  bool written;                         // ever written: `port` holds a real (maybe stale) next hop
  uint32_t port;
  uint32_t age;                         // checker visits since the last packet (valid entries)
};

struct flowlet_counters {
  uint64_t lookups = 0;
  uint64_t new_flowlets = 0;            // lookups that found the entry invalid
  uint64_t path_changes = 0;            // new flowlets given a port other than the one the entry held
  uint64_t occupancy = 0;               // valid entries now (after the last lookup or advance)
  uint64_t collisions = 0;              // entry lives in which a second flow arrived (model only)
  uint64_t collision_hits = 0;          // lookups that followed an entry another flow created
  uint64_t evictions = 0;               // valid entries invalidated by the checker
  uint64_t sweeps = 0;                  // sweeps started
  uint64_t sweep_conflicts = 0;         // cycles the checker waited for a port
  uint64_t sweep_overruns = 0;          // Delta boundaries met while a sweep was still running
  uint64_t port_overflows = 0;          // lookups beyond `ports` in one cycle (served anyway)
};

// What the load balancer calls on a flowlet table: the core below, or with `netasic run --rtl
// flowlet_table` its Verilated RTL (cosim/flowlet_table/flowlet_table_rtl.h).
class flowlet_table_if {
 public:
  static constexpr uint64_t flow_is_hash = UINT64_MAX;  // flow_id default: the hash identifies the flow

  virtual ~flowlet_table_if() = default;
  // One packet at time now_ps: its entry's port, or new_port if it starts a new flowlet.
  virtual flowlet_result lookup(uint64_t hash, uint64_t now_ps, uint32_t new_port, uint64_t flow_id = flow_is_hash) = 0;
  // Runs the checker through every cycle before now_ps's cycle.
  virtual void advance(uint64_t now_ps) = 0;
  virtual const flowlet_counters& counters() const = 0;
};

class flowlet_table : public flowlet_table_if {
 public:
  static constexpr uint32_t no_port = UINT32_MAX;       // `cached` of a never-written entry
  // Called only when a new flowlet starts. `cached` is the port the invalid entry still holds
  // (CONGA prefers it among equally good uplinks), or no_port if the entry was never written.
  using choose_fn = std::function<uint32_t(uint32_t cached)>;

  // Throws std::invalid_argument naming the field.
  explicit flowlet_table(const flowlet_config& cfg);

  // One packet at time now_ps. Times must not go backwards (std::logic_error, no state change).
  // flow_id is used for the collision statistics only (hardware keeps no flow ID).
  flowlet_result lookup(uint64_t hash, uint64_t now_ps, uint32_t new_port, uint64_t flow_id = flow_is_hash) override;
  flowlet_result lookup_with(uint64_t hash, uint64_t now_ps, const choose_fn& choose, uint64_t flow_id = flow_is_hash);

  // Runs the checker through every cycle before now_ps's cycle (lookups may still arrive in that
  // cycle, and they go first). Call before reading occupancy or evictions at a given time.
  void advance(uint64_t now_ps) override;

  flowlet_entry entry(uint32_t index) const;
  // --vcd (null: not traced): occupancy after each invalidation, at the cycle the checker
  // passes the entry (lookups are traced by the load balancer at their own time).
  wave_trace* wave = nullptr;
  uint32_t wave_id = wave_trace::off;   // std::out_of_range past the table
  const flowlet_counters& counters() const override { return count_; }
  const flowlet_config& config() const { return cfg_; }
  // Checker state after the last lookup or advance.
  bool sweep_active() const { return active_; }
  uint32_t sweep_position() const { return pos_; }
  uint64_t next_cycle() const { return cycle_; }        // first cycle the checker has not run
  // Cycles one sweep needs without conflicts: ceil(entries / sweep_width).
  uint64_t sweep_cycles() const { return (uint64_t(cfg_.entries) + cfg_.sweep_width - 1) / cfg_.sweep_width; }
  // SRAM bits: entries * (valid + age_bits + port_bits).
  uint64_t memory_bits() const { return uint64_t(cfg_.entries) * (1 + cfg_.age_bits + cfg_.port_bits); }

 private:
  struct slot {
    uint64_t v_touch = 0;   // checker visits to this entry before its last packet
    uint64_t owner = 0;     // flow that started the current life (statistics only)
    uint32_t port = 0;
    bool valid = false, written = false, collided = false;
  };

  flowlet_result run(uint64_t hash, uint64_t now_ps, const choose_fn* choose, uint32_t new_port, uint64_t flow_id);
  uint64_t cycle_at(uint64_t now_ps);   // now_ps / clock period; throws if time went backwards
  void advance_cycles(uint64_t c);
  uint64_t trigger_cycle(uint64_t s) const { return (s * cfg_.delta_ps + cfg_.clock_period_ps - 1) / cfg_.clock_period_ps; }
  uint64_t visits(uint32_t i) const { return sweeps_ - (active_ && pos_ <= i ? 1 : 0); }
  void start_sweep();
  void visit_to(uint32_t p, uint64_t first_cycle);   // first_cycle: when the checker is at pos_
  void touch(uint32_t i, uint64_t v);

  flowlet_config cfg_;
  uint64_t life_;                        // 2^age_bits: visits from a touch to the invalidation
  uint64_t index_mask_ = 0;              // entries - 1 when a power of two (hash % entries without a division)
  zeroed_array<slot> t_;   // all zero bytes are an empty slot
  std::vector<std::vector<uint32_t>> death_;   // ring of life_ + 1 buckets, by death sweep number
  std::vector<uint32_t> dying_;          // this sweep's deaths, by index
  size_t dying_next_ = 0;
  uint64_t cycle_ = 0;
  uint64_t next_trigger_ = 1;            // number s of the next Delta boundary (s * Delta)
  bool active_ = false, pending_ = false;
  uint32_t pos_ = 0;                     // next entry the running sweep visits
  uint64_t sweeps_ = 0;
  uint64_t busy_cycle_ = UINT64_MAX;     // cycle of the latest lookups and how many
  unsigned busy_count_ = 0;
  uint64_t last_now_ = 0, last_cycle_ = 0;   // the latest time given, and its cycle
  flowlet_counters count_;
};

}  // namespace netasic
