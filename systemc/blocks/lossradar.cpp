#include "blocks/lossradar.h"

#include "blocks/rtl_loop.h"

#include <array>
#include <stdexcept>
#include <vector>

namespace netasic {
namespace {

// One of the k hash functions: a 64-bit finaliser (MurmurHash3's fmix64) over the signature,
// keyed by the meter's seed and the hash's number, standing in for the switch's CRC units.
uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xFF51AFD7ED558CCDull;
  x ^= x >> 33;
  x *= 0xC4CEB9FE1A85EC53ull;
  return x ^ (x >> 33);
}

}  // namespace

lossradar_sig lossradar_signature(const packet& p, lossradar_sig_kind kind, unsigned decrements_ahead) {
  lossradar_sig s;
  s.a = uint64_t(p.ip.src) << 32 | p.ip.dst;
  s.b = uint64_t(p.l4_src_port()) << 48 | uint64_t(p.l4_dst_port()) << 32 | uint64_t(p.ip.protocol) << 16 |
        p.ip.identification;
  if (kind == lossradar_sig_kind::extended) {
    const bool syn = p.is_tcp() && (p.tcp.flags & tcp_header::flag_syn);
    const bool ttl_nonzero = p.ip.ttl > decrements_ahead;
    s.ext = uint16_t((syn ? 1u : 0u) << 15 | (ttl_nonzero ? 1u : 0u) << 14 | (p.lr_stamp_us & 0x3FFFu));
  }
  return s;
}

lossradar_digest::lossradar_digest(unsigned cells, unsigned hashes, uint64_t seed)
    : cells_(cells), k_(hashes), part_(hashes ? cells / hashes : 0), seed_(seed) {
  if (hashes == 0 || cells == 0 || cells % hashes != 0)
    throw std::invalid_argument("lossradar_digest: cells must be a non-zero multiple of hashes");
}

unsigned lossradar_digest::index(const lossradar_sig& s, unsigned i) const {
  const uint64_t key = seed_ + 0x9E3779B97F4A7C15ull * (i + 1);
  const uint64_t h = mix(mix(mix(s.a ^ key) ^ s.b) ^ s.ext);
  return i * part_ + unsigned(h % part_);
}

void lossradar_digest::insert(const lossradar_sig& s) {
  for (unsigned i = 0; i < k_; ++i) {
    lossradar_cell& c = cells_[index(s, i)];
    c.xor_sum.flip(s);
    ++c.count;
  }
}

void lossradar_digest::subtract(const lossradar_digest& o) {
  for (size_t i = 0; i < cells_.size(); ++i) {
    cells_[i].xor_sum.flip(o.cells_[i].xor_sum);
    cells_[i].count -= o.cells_[i].count;
  }
}

void lossradar_digest::add(const lossradar_digest& o) {
  for (size_t i = 0; i < cells_.size(); ++i) {
    cells_[i].xor_sum.flip(o.cells_[i].xor_sum);
    cells_[i].count += o.cells_[i].count;
  }
}

uint64_t lossradar_digest::packets() const {
  uint64_t sum = 0;
  for (const lossradar_cell& c : cells_) sum += c.count;
  return k_ ? sum / k_ : 0;
}

bool lossradar_digest::empty() const {
  for (const lossradar_cell& c : cells_)
    if (c.count || !c.xor_sum.zero()) return false;
  return true;
}

void lossradar_digest::clear() {
  for (lossradar_cell& c : cells_) c = lossradar_cell{};
}

bool lossradar_digest::operator==(const lossradar_digest& o) const {
  if (cells_.size() != o.cells_.size()) return false;
  for (size_t i = 0; i < cells_.size(); ++i)
    if (cells_[i].count != o.cells_[i].count || cells_[i].xor_sum != o.cells_[i].xor_sum) return false;
  return true;
}

lossradar_peel lossradar_digest::peel() const {
  std::vector<lossradar_cell> c = cells_;
  // A cell is pure when it holds one packet: count 1, and that packet's hash of this part
  // points back here (a check the count alone cannot give once a cell is overloaded).
  auto pure = [&](unsigned i) { return c[i].count == 1 && index(c[i].xor_sum, i / part_) == i; };
  std::vector<unsigned> todo;
  for (unsigned i = 0; i < c.size(); ++i)
    if (pure(i)) todo.push_back(i);
  lossradar_peel r;
  while (!todo.empty()) {
    const unsigned i = todo.back();
    todo.pop_back();
    if (!pure(i)) continue;
    const lossradar_sig s = c[i].xor_sum;
    r.losses.push_back(s);
    for (unsigned h = 0; h < k_; ++h) {
      const unsigned j = index(s, h);
      c[j].xor_sum.flip(s);
      --c[j].count;
      if (pure(j)) todo.push_back(j);
    }
  }
  uint64_t left = 0;
  bool clean = true;
  for (const lossradar_cell& x : c) {
    left += x.count;
    clean = clean && x.count == 0 && x.xor_sum.zero();
  }
  r.complete = clean;
  r.undecoded = k_ ? left / k_ : 0;
  return r;
}

// ---- a meter's digest on stateful ALUs -----------------------------------------------------------

namespace {
// The signature's words as the arrays hold them: cell lo, then the lanes in order.
std::array<uint32_t, 5> words(const lossradar_sig& s) {
  return {uint32_t(s.a), uint32_t(s.a >> 32), uint32_t(s.b), uint32_t(s.b >> 32), s.ext};
}
}  // namespace

lossradar_meter_digest::lossradar_meter_digest(unsigned cells, unsigned hashes, uint64_t seed, lossradar_sig_kind kind)
    : shape_(cells, hashes, seed), part_(cells / hashes) {   // shape_ checks cells and hashes
  const unsigned lanes = kind == lossradar_sig_kind::extended ? 4 : 3;   // basic: ext is always 0
  for (unsigned i = 0; i < hashes; ++i) {
    std::vector<std::unique_ptr<stateful_alu_if>> a;
    a.push_back(stateful_alu_unit({part_, 32, true, 4}, stateful_alu_program::lossradar_cell()));
    for (unsigned l = 0; l < lanes; ++l)
      a.push_back(stateful_alu_unit({part_, l == 3 ? 16u : 32u, false, 4}, stateful_alu_program::lossradar_xor()));
    alu_.push_back(std::move(a));
  }
}

void lossradar_meter_digest::insert(const lossradar_sig& s) {
  ++pass_;
  touched_ = true;
  const std::array<uint32_t, 5> w = words(s);
  for (unsigned i = 0; i < alu_.size(); ++i) {
    const uint32_t idx = shape_.index(s, i) - i * part_;
    for (size_t j = 0; j < alu_[i].size(); ++j) alu_[i][j]->post(pass_, idx, w[j], 0);
  }
}

lossradar_digest lossradar_meter_digest::read() const {
  lossradar_digest d = shape_;
  if (!touched_) return d;   // nothing inserted since the last clear: every cell is 0
  // Each array read as a whole: [j][idx], the cell array's entries then the lanes' (every hash's
  // part has the same arrays).
  std::vector<std::vector<stateful_alu_entry>> arrays(alu_[0].size(), std::vector<stateful_alu_entry>(part_));
  for (unsigned i = 0; i < alu_.size(); ++i) {
    for (size_t j = 0; j < alu_[i].size(); ++j) alu_[i][j]->read_range(0, part_, arrays[j].data());
    for (uint32_t idx = 0; idx < part_; ++idx) {
      std::array<uint32_t, 5> w{};
      const stateful_alu_entry cell = arrays[0][idx];
      w[0] = cell.lo;
      for (size_t j = 1; j < alu_[i].size(); ++j) w[j] = arrays[j][idx].lo;
      lossradar_cell c;
      c.xor_sum.a = uint64_t(w[1]) << 32 | w[0];
      c.xor_sum.b = uint64_t(w[3]) << 32 | w[2];
      c.xor_sum.ext = uint16_t(w[4]);
      c.count = cell.hi;
      d.set(i * part_ + idx, c);
    }
  }
  return d;
}

void lossradar_meter_digest::clear() {
  if (!touched_) return;
  touched_ = false;
  for (auto& v : alu_)
    for (auto& a : v) a->clear();
}

uint64_t lossradar_meter_digest::memory_bits() const {
  uint64_t bits = 0;
  for (const auto& v : alu_)
    for (const auto& a : v) bits += a->memory_bits();
  return bits;
}

}  // namespace netasic
