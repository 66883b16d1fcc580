// The RTL-in-the-loop adapters of the blocks whose RTL answers a call at once (crc_hash,
// reciprocal_table: one input, a fixed latency, no state between calls), and the registration of
// every block's adapter.
#include "cosim/harness/rtl_loop_register.h"

#include <verilated.h>

#include <stdexcept>
#include <vector>

#include "Vcrc_hash.h"
#include "Vreciprocal_table.h"
#include "blocks/rtl_loop.h"
#include "cosim/balance_sketch/balance_sketch_rtl.h"
#include "cosim/flowlet_table/flowlet_table_rtl.h"
#include "cosim/reciprocal_table/reciprocal_table_load.h"

namespace netasic {

namespace {

// Clocks a Verilated model with one rising edge per call.
template <class V>
struct clocked {
  VerilatedContext ctx;
  V m{&ctx};
  void tick() {
    m.clk = 0;
    m.eval();
    m.clk = 1;
    m.eval();
  }
  void reset() {
    m.rst = 1;
    tick();
    tick();
    m.rst = 0;
  }
};

// rtl/crc_hash.sv: the key in, the hash one edge later.
class crc_hash_loop : public hash_rtl {
 public:
  crc_hash_loop() { r_.reset(); }
  uint32_t hash(const uint8_t* key, uint32_t seed) override {
    ++rtl_blocks().calls["crc_hash"];
    for (unsigned w = 0; w < 4; ++w) r_.m.in_key[w] = 0;
    for (unsigned i = 0; i < 13; ++i) {   // byte 0 is the top byte of in_key
      const unsigned bit = (12 - i) * 8;
      r_.m.in_key[bit / 32] |= uint32_t(key[i]) << (bit % 32);
    }
    r_.m.in_seed = seed;
    r_.m.in_valid = 1;
    r_.tick();
    return r_.m.out_hash;
  }

 private:
  clocked<Vcrc_hash> r_;
};

// rtl/reciprocal_table.sv: loaded from the run's table, then one division through its 4 stages.
class reciprocal_table_loop : public divider_rtl {
 public:
  explicit reciprocal_table_loop(const reciprocal_table& t) {
    const reciprocal_table_config& c = t.config();
    const reciprocal_table defaults{reciprocal_table_config{}};
    if (c.input_bits != defaults.config().input_bits || c.mantissa_bits != defaults.config().mantissa_bits ||
        t.entries() != defaults.entries())
      throw std::invalid_argument("--rtl reciprocal_table: the RTL is built for the default table (epsilon 1/128, 22 input "
                                  "bits, 24 mantissa bits, 1400 entries); the run's table differs");
    r_.reset();
    load_recip_tables(r_.m, t, [this] { r_.tick(); });
  }
  uint64_t divide(uint64_t x, uint64_t n) override {
    ++rtl_blocks().calls["reciprocal_table"];
    r_.m.in_x = x;
    r_.m.in_n = uint32_t(n);
    r_.m.in_valid = 1;
    r_.tick();
    r_.m.in_valid = 0;
    for (int i = 0; i < 3 && !r_.m.out_valid; ++i) r_.tick();
    if (!r_.m.out_valid) throw std::logic_error("reciprocal_table RTL refused n = " + std::to_string(n));
    return r_.m.out_quotient;
  }

 private:
  clocked<Vreciprocal_table> r_;
};

// The time-driven adapters behind the interface the load balancer calls.
// The flowlet table's collision statistics are the model's, not the hardware's (it keeps no flow
// ID): they are kept here from the RTL's answers as the core keeps them, so the run's summary is
// the core run's.
struct flowlet_loop : flowlet_rtl {
  explicit flowlet_loop(const flowlet_config& c) : t(c), owner(c.entries), collided(c.entries) {}
  flowlet_result lookup(uint64_t hash, uint64_t now_ps, uint32_t new_port, uint64_t flow_id) override {
    ++rtl_blocks().calls["flowlet_table"];
    const flowlet_result r = t.lookup(hash, now_ps, new_port, flow_id);
    if (flow_id == flowlet_table::flow_is_hash) flow_id = hash;
    if (r.new_flowlet) {
      owner[r.index] = flow_id;
      collided[r.index] = false;
    } else if (owner[r.index] != flow_id) {
      ++collision_hits;
      if (!collided[r.index]) {
        collided[r.index] = true;
        ++collisions;
      }
    }
    return r;
  }
  void advance(uint64_t now_ps) override { t.advance(now_ps); }
  const flowlet_counters& counters() const override {
    c = t.counters();
    c.collisions = collisions;
    c.collision_hits = collision_hits;
    return c;
  }
  flowlet_table_rtl t;
  std::vector<uint64_t> owner;
  std::vector<bool> collided;
  uint64_t collisions = 0, collision_hits = 0;
  mutable flowlet_counters c;
};

struct sketch_loop : sketch_rtl {
  explicit sketch_loop(const balance_sketch_config& c) : s(c) {}
  bs_decision process(uint64_t hash, uint32_t fingerprint, uint32_t bytes, uint64_t now_ps, uint32_t hop) override {
    ++rtl_blocks().calls["balance_sketch"];
    return s.process(hash, fingerprint, bytes, now_ps, hop);
  }
  const bs_counters& counters() const override { return s.counters(); }
  uint64_t occupancy() const override { return s.occupancy(); }
  balance_sketch_rtl s;
};

}  // namespace

std::vector<std::pair<std::string, int64_t>> rtl_fixed_keys(const std::string& block) {
  if (block == "flowlet_table") {
    const flowlet_config r = flowlet_table_rtl::rtl_parameters();
    return {{"lb.flowlet.entries", r.entries}, {"lb.flowlet.age_bits", r.age_bits}, {"lb.flowlet.ports", r.ports},
            {"lb.flowlet.sweep_width", r.sweep_width}};
  }
  if (block == "balance_sketch") {
    const balance_sketch_config r = balance_sketch_rtl::rtl_parameters();
    return {{"lb.sketch.buckets", r.buckets}, {"lb.sketch.cells", r.cells}, {"lb.sketch.fingerprint_bits", r.fingerprint_bits},
            {"lb.sketch.timestamp_bits", r.timestamp_bits}};
  }
  if (block == "reciprocal_table") {
    const reciprocal_table_config r;
    return {{"hpcc.table_input_bits", r.input_bits}, {"hpcc.mantissa_bits", r.mantissa_bits}};
  }
  return {};
}

std::vector<std::string> rtl_loop_block_names() { return {"balance_sketch", "crc_hash", "flowlet_table", "reciprocal_table"}; }

void use_rtl_block(const std::string& block) {
  rtl_loop& r = rtl_blocks();
  r.calls[block] = 0;
  if (block == "flowlet_table") {
    r.flowlet_table = [](const flowlet_config& c) { return std::make_unique<flowlet_loop>(c); };
  } else if (block == "balance_sketch") {
    r.balance_sketch = [](const balance_sketch_config& c) { return std::make_unique<sketch_loop>(c); };
  } else if (block == "crc_hash") {
    auto shared = std::make_shared<std::shared_ptr<hash_rtl>>();
    r.crc_hash = [shared] {
      if (!*shared) *shared = std::make_shared<crc_hash_loop>();
      return *shared;
    };
  } else if (block == "reciprocal_table") {
    auto shared = std::make_shared<std::shared_ptr<divider_rtl>>();
    r.reciprocal_table = [shared](const reciprocal_table& t) {
      if (!*shared) *shared = std::make_shared<reciprocal_table_loop>(t);
      return *shared;
    };
  } else {
    throw std::invalid_argument("--rtl " + block + ": no RTL-in-the-loop adapter (blocks: balance_sketch, crc_hash, "
                                "flowlet_table, reciprocal_table)");
  }
}

}  // namespace netasic
