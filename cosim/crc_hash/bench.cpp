// crc_hash (rtl/crc_hash.sv) against crc_engine::compute with the switch's 13-byte 5-tuple key
// and a per-switch seed. Directed corners first (zero and all-ones keys and seeds, a walking one
// through every key bit), then random keys, seeds and idle cycles. The RTL registers its output,
// so the core's result of cycle c is compared with the RTL's after cycle c's edge.
#include <array>

#include "blocks/crc_hash.h"
#include "cosim/harness/cosim_bench.h"
#include "cosim/harness/stimulus_rng.h"
#include "Vcrc_hash.h"
#include "Vcrc_hash___024root.h"
#include "Vcrc_hash_set2.h"
#include "Vcrc_hash_set2___024root.h"
#include "rtl_bench_sets.h"

namespace netasic::cosim {
namespace {

// V: the Verilated model; key_bytes: its KEY_BYTES (13, the 5-tuple, or the second set's).
template <class V, unsigned key_bytes>
class crc_hash_bench : public bench {
  static constexpr unsigned words = (key_bytes * 8 + 31) / 32;
  static_assert(words > 2, "crc_hash bench: KEY_BYTES above 8 (in_key is a wide port)");

 public:
  void reset(uint64_t seed) override {
    rtl_ = std::make_unique<dut<V>>();
    rng_ = std::make_unique<stimulus_rng>(seed);
    cycle_ = 0;
    valid_ = false;
    hash_ = 0;
    (*rtl_)->in_valid = 0;
    rtl_->reset();
  }

  void step(side s, std::vector<mismatch>& out) override {
    // Stimulus of this cycle.
    std::array<uint8_t, key_bytes> key{};
    uint32_t seed = 0;
    bool valid = true;
    const unsigned walk = key_bytes * 8;
    if (cycle_ < 4) {                      // zero / all-ones keys and seeds
      key.fill(cycle_ & 1 ? 0xFF : 0x00);
      seed = cycle_ & 2 ? 0xFFFFFFFFu : 0;
    } else if (cycle_ < 4 + walk) {        // a walking one through the key, seed 0
      const unsigned bit = unsigned(cycle_ - 4);
      key[bit / 8] = uint8_t(0x80u >> (bit % 8));
    } else {
      for (unsigned i = 0; i < key_bytes; i += 8) {   // 8 key bytes from each 64-bit draw
        const uint64_t r = rng_->next();
        for (unsigned j = 0; j < 8 && i + j < key_bytes; ++j) key[i + j] = uint8_t(r >> (8 * j));
      }
      seed = uint32_t(rng_->next());
      valid = rng_->below(8) != 0;         // idle cycles: the output must hold
    }
    ++cycle_;

    if (s != side::rtl) {
      if (valid) hash_ = crc_.compute(key.data(), key.size(), seed);
      valid_ = valid;
    }
    if (s != side::core) {
      auto& m = *rtl_;
      m->in_valid = valid;
      m->in_seed = seed;
      // Byte 0 is the top byte of in_key; Verilator packs 32-bit words from the LSB. Each word is
      // built in a register and stored once (the loops unroll: their bounds are constants).
      for (unsigned w = 0; w < words; ++w) {
        uint32_t word = 0;
        for (unsigned b = 0; b < 4; ++b) {
          const unsigned from_lsb = 4 * w + b;   // the key's byte key_bytes - 1 - from_lsb
          if (from_lsb < key_bytes) word |= uint32_t(key[key_bytes - 1 - from_lsb]) << (8 * b);
        }
        m->in_key[w] = word;
      }
      rtl_->tick();
    }
    if (s == side::both) {
      auto& m = *rtl_;
      if (bool(m->out_valid) != valid_) out.push_back({"out_valid", valid_, m->out_valid});
      if (m->out_hash != hash_) out.push_back({"out_hash", hash_, m->out_hash});
    }
  }

  std::string parameters() const override {
    return "WIDTH=32 POLY=0x04C11DB7 REFLECT=1 XOROUT=0xFFFFFFFF KEY_BYTES=" + std::to_string(key_bytes);
  }
  void trace(VerilatedVcdC* vcd) override { rtl_->trace(vcd); }

 private:
  const crc_engine crc_ = crc_engine::crc32();
  std::unique_ptr<dut<V>> rtl_;
  std::unique_ptr<stimulus_rng> rng_;
  uint64_t cycle_ = 0;
  bool valid_ = false;     // the core's registered outputs
  uint32_t hash_ = 0;
};

}  // namespace

std::unique_ptr<bench> make_crc_hash_bench() { return std::make_unique<crc_hash_bench<Vcrc_hash, 13>>(); }
std::unique_ptr<bench> make_crc_hash_set2_bench() {
  static_assert(set2::crc_hash::count == 1, "crc_hash bench: reads KEY_BYTES of its second set only");
  return std::make_unique<crc_hash_bench<Vcrc_hash_set2, unsigned(set2::crc_hash::KEY_BYTES)>>();
}

}  // namespace netasic::cosim
