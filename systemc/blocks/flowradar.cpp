#include "blocks/flowradar.h"

#include "blocks/rtl_loop.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace netasic {
namespace {

uint64_t mix64(uint64_t x) {   // splitmix64's finaliser: every input bit reaches every output bit
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Hash i of domain d (0 filter, 1 cells) under the switch's seed: a 64-bit value.
uint64_t flow_hash(uint64_t seed, unsigned domain, unsigned i, const flowradar_flow& f) {
  uint64_t a = 0, b = 0;
  for (unsigned k = 0; k < 8; ++k) a |= uint64_t(f[k]) << (8 * k);
  for (unsigned k = 8; k < flowradar_flow_bytes; ++k) b |= uint64_t(f[k]) << (8 * (k - 8));
  const uint64_t s = mix64(seed ^ mix64(0x9E3779B97F4A7C15ull * (uint64_t(domain) * 64 + i + 1)));
  return mix64(mix64(a ^ s) ^ b ^ (s << 1));
}

uint32_t reduce(uint64_t h, uint32_t n) { return uint32_t(((h >> 32) * uint64_t(n)) >> 32); }   // [0, n)

bool width_ok(unsigned w) { return w == 8 || w == 16 || w == 32; }
unsigned word_for(unsigned bytes) { return bytes <= 1 ? 8 : bytes <= 2 ? 16 : 32; }

constexpr uint64_t frame_payload = 1472, frame_overhead = 46;   // 1500-byte MTU: IPv4 20 + UDP 8; Ethernet 14 + FCS 4
}  // namespace

void flowradar_check(const flowradar_params& p) {
  auto fail = [](const std::string& m) { throw std::invalid_argument("flowradar: " + m); };
  if (p.cell_hashes < 1) fail("cell_hashes (k_c) must be at least 1");
  if (p.filter_hashes < 1) fail("filter_hashes (k_f) must be at least 1");
  if (p.cells < p.cell_hashes) fail("cells (m_c) must be at least cell_hashes: each hash owns a slice");
  if (p.filter_bits < p.filter_hashes) fail("filter_bits (m_f) must be at least filter_hashes: each hash owns a slice");
  if (!width_ok(p.flow_count_bits)) fail("flow_count_bits must be 8, 16 or 32");
  if (!width_ok(p.packet_count_bits)) fail("packet_count_bits must be 8, 16 or 32");
}

uint32_t flowradar_slice_size(uint32_t n, unsigned k, unsigned i) { return n / k + (i < n % k ? 1 : 0); }
uint32_t flowradar_slice_offset(uint32_t n, unsigned k, unsigned i) { return i * (n / k) + (i < n % k ? i : n % k); }

uint32_t flowradar_cell_index(const flowradar_params& p, const flowradar_flow& f, unsigned i) {
  return flowradar_slice_offset(p.cells, p.cell_hashes, i) +
         reduce(flow_hash(p.seed, 1, i, f), flowradar_slice_size(p.cells, p.cell_hashes, i));
}

uint32_t flowradar_filter_index(const flowradar_params& p, const flowradar_flow& f, unsigned i) {
  return flowradar_slice_offset(p.filter_bits, p.filter_hashes, i) +
         reduce(flow_hash(p.seed, 0, i, f), flowradar_slice_size(p.filter_bits, p.filter_hashes, i));
}

bool flowradar_table::filter_has(const flowradar_flow& f) const {
  for (unsigned i = 0; i < params.filter_hashes; ++i) {
    const uint32_t b = flowradar_filter_index(params, f, i);
    if (!((filter[b / 64] >> (b % 64)) & 1)) return false;
  }
  return true;
}

uint64_t flowradar_table::export_bytes() const {
  uint64_t bytes = 0;
  for (uint32_t f : export_frames()) bytes += f;
  return bytes;
}

std::vector<uint32_t> flowradar_table::export_frames() const {
  const uint64_t info_bits = 8 * flowradar_flow_bytes + params.flow_count_bits + params.packet_count_bits;
  uint64_t payload = (uint64_t(params.filter_bits) + 7) / 8 + (uint64_t(params.cells) * info_bits + 7) / 8;
  std::vector<uint32_t> frames;
  for (; payload > 0; payload -= std::min(payload, frame_payload))
    frames.push_back(uint32_t(std::min(payload, frame_payload) + frame_overhead));
  return frames;
}

unsigned flowradar_cell_bits(const flowradar_params& p) {
  unsigned rest = flowradar_flow_bytes - p.flow_count_bits / 8, bits = 2 * p.flow_count_bits + p.packet_count_bits;
  while (rest > 0) {
    const unsigned b = rest < 4 ? rest : 4;
    bits += word_for(b);
    rest -= b;
  }
  return bits;
}

flowradar_flowset::flowradar_flowset(const flowradar_params& p) : p_(p) {
  flowradar_check(p);
  for (unsigned i = 0; i < p.filter_hashes; ++i) {
    const uint32_t words = (flowradar_slice_size(p.filter_bits, p.filter_hashes, i) + 31) / 32;
    filter_.push_back(stateful_alu_unit({words, 32, false, 4}, stateful_alu_program::flowradar_filter()));
  }
  for (unsigned byte = p.flow_count_bits / 8; byte < flowradar_flow_bytes;) {
    const unsigned b = flowradar_flow_bytes - byte < 4 ? flowradar_flow_bytes - byte : 4;
    lanes_.push_back({byte, b});
    byte += b;
  }
  for (unsigned i = 0; i < p.cell_hashes; ++i) {
    const uint32_t n = flowradar_slice_size(p.cells, p.cell_hashes, i);
    cell_.push_back(stateful_alu_unit({n, p.flow_count_bits, true, 4}, stateful_alu_program::flowradar_cell()));
    count_.push_back(stateful_alu_unit({n, p.packet_count_bits, false, 4}, stateful_alu_program::flowradar_packet_count()));
    lane_alu_.emplace_back();
    for (const lane& l : lanes_)
      lane_alu_.back().push_back(stateful_alu_unit({n, word_for(l.bytes), false, 4}, stateful_alu_program::flowradar_xor()));
  }
}

uint32_t flowradar_flowset::slice(const flowradar_flow& f, const lane& l) {
  uint32_t v = 0;
  for (unsigned k = 0; k < l.bytes; ++k) v |= uint32_t(f[l.byte + k]) << (8 * k);
  return v;
}

bool flowradar_flowset::update(const flowradar_flow& f) {
  ++pass_;
  bool is_new = false;   // the filter's test-and-set, one bit per hash slice: new if any was clear
  for (unsigned i = 0; i < p_.filter_hashes; ++i) {
    const uint32_t b = flowradar_filter_index(p_, f, i) - flowradar_slice_offset(p_.filter_bits, p_.filter_hashes, i);
    const uint32_t mask = 1u << (b % 32);
    if (!(filter_[i]->execute(pass_, b / 32, mask, 0).output & mask)) is_new = true;
  }
  const lane head{0, p_.flow_count_bits / 8};
  for (unsigned i = 0; i < p_.cell_hashes; ++i) {
    const uint32_t idx = flowradar_cell_index(p_, f, i) - flowradar_slice_offset(p_.cells, p_.cell_hashes, i);
    cell_[i]->post(pass_, idx, slice(f, head), is_new);
    for (size_t j = 0; j < lanes_.size(); ++j) lane_alu_[i][j]->post(pass_, idx, slice(f, lanes_[j]), is_new);
    count_[i]->post(pass_, idx, 0, 0);
  }
  return is_new;
}

flowradar_table flowradar_flowset::read() const {
  flowradar_table t;
  t.params = p_;
  t.filter.assign((uint64_t(p_.filter_bits) + 63) / 64, 0);
  std::vector<stateful_alu_entry> words;   // one array at a time, each read as a whole
  auto read_array = [&](const stateful_alu_if& a, uint32_t n) {
    words.resize(n);
    a.read_range(0, n, words.data());
  };
  for (unsigned i = 0; i < p_.filter_hashes; ++i) {
    const uint32_t off = flowradar_slice_offset(p_.filter_bits, p_.filter_hashes, i);
    const uint32_t size = flowradar_slice_size(p_.filter_bits, p_.filter_hashes, i);
    read_array(*filter_[i], (size + 31) / 32);
    for (uint32_t w = 0; w * 32 < size; ++w) {
      const uint32_t v = words[w].lo;
      for (uint32_t j = 0; j < 32 && w * 32 + j < size; ++j)
        if (v >> j & 1) {
          const uint64_t bit = off + w * 32 + j;
          t.filter[bit / 64] |= uint64_t(1) << (bit % 64);
        }
    }
  }
  t.cells.resize(p_.cells);
  const unsigned head = p_.flow_count_bits / 8;
  for (unsigned i = 0; i < p_.cell_hashes; ++i) {
    const uint32_t off = flowradar_slice_offset(p_.cells, p_.cell_hashes, i);
    const uint32_t size = flowradar_slice_size(p_.cells, p_.cell_hashes, i);
    read_array(*cell_[i], size);
    for (uint32_t idx = 0; idx < size; ++idx) {
      flowradar_cell& c = t.cells[off + idx];
      for (unsigned k = 0; k < head; ++k) c.flow_xor[k] = uint8_t(words[idx].lo >> (8 * k));
      c.flow_count = words[idx].hi;
    }
    for (size_t j = 0; j < lanes_.size(); ++j) {
      read_array(*lane_alu_[i][j], size);
      for (uint32_t idx = 0; idx < size; ++idx)
        for (unsigned k = 0; k < lanes_[j].bytes; ++k)
          t.cells[off + idx].flow_xor[lanes_[j].byte + k] = uint8_t(words[idx].lo >> (8 * k));
    }
    read_array(*count_[i], size);
    for (uint32_t idx = 0; idx < size; ++idx) t.cells[off + idx].packet_count = words[idx].lo;
  }
  return t;
}

void flowradar_flowset::clear() {
  for (auto& a : filter_) a->clear();
  for (auto& a : cell_) a->clear();
  for (auto& a : count_) a->clear();
  for (auto& v : lane_alu_)
    for (auto& a : v) a->clear();
}

uint64_t flowradar_flowset::memory_bits() const {
  uint64_t bits = 0;
  for (const auto& a : filter_) bits += a->memory_bits();
  for (size_t i = 0; i < cell_.size(); ++i) {
    bits += cell_[i]->memory_bits() + count_[i]->memory_bits();
    for (const auto& a : lane_alu_[i]) bits += a->memory_bits();
  }
  return bits;
}

flowradar_table flowradar::swap() {
  flowradar_table t = bank_[live_].read();
  bank_[live_].clear();   // the control plane clears it while the other bank is live
  live_ ^= 1;
  return t;
}

}  // namespace netasic
