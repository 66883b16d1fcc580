#include "blocks/deter_sampler.h"

#include <algorithm>
#include <stdexcept>

namespace netasic {
namespace {

__extension__ typedef __int128 i128;   // k * rate and d * 2^16 need more than 64 bits

// floor(a / b) and ceil(a / b) for b > 0.
int64_t floor_div(i128 a, i128 b) { return int64_t(a >= 0 ? a / b : -((-a + b - 1) / b)); }
int64_t ceil_div(i128 a, i128 b) { return int64_t(a >= 0 ? (a + b - 1) / b : -(-a / b)); }

uint64_t infer(const deter_sample& s, uint64_t index) {
  const i128 k = i128(index - s.index);
  return s.time_ps + uint64_t((k * i128(s.rate)) >> deter_sampler::rate_frac_bits);
}

}  // namespace

void deter_sampler::add(uint64_t index, uint64_t time_ps) {
  ++packets_;
  if (open_ && (index <= s_.index || time_ps < s_.time_ps))
    throw std::invalid_argument("deter_sampler: packets must come in index order with times not decreasing");
  if (open_) {
    // Algorithm 12, lines 2-4: the rates that put p within +-th, intersected with rec_range.
    const i128 k = i128(index - s_.index);
    const i128 d = i128(time_ps) - i128(s_.time_ps);
    const i128 one = i128(1) << rate_frac_bits;   // d - th may be negative: scale by multiplying (a left shift of it is undefined)
    const int64_t p_lo = std::max<int64_t>(0, ceil_div((d - th_) * one, k));
    const int64_t p_hi = floor_div((d + th_) * one, k);
    const int64_t lo = std::max(lo_, p_lo), hi = std::min(hi_, p_hi);
    if (lo <= hi) {
      lo_ = lo;
      hi_ = hi;
      return;
    }
    close();   // lines 5-7: record s and start a new sample at p
  }
  open_ = true;
  s_ = {index, time_ps, 0};
  lo_ = 0;
  hi_ = INT64_MAX;
}

void deter_sampler::close() {
  // A sample that covers no later packet keeps rate 0: only its own time is inferred from it.
  s_.rate = hi_ == INT64_MAX ? 0 : uint64_t(lo_ + (hi_ - lo_) / 2);
  samples_.push_back(s_);
}

void deter_sampler::finish() {
  if (open_) close();
  open_ = false;
}

uint64_t deter_sampler::time_of(const std::vector<deter_sample>& s, uint64_t index) {
  auto it = std::upper_bound(s.begin(), s.end(), index, [](uint64_t i, const deter_sample& x) { return i < x.index; });
  if (it == s.begin()) throw std::out_of_range("deter_sampler: index before the first sample");
  return infer(*std::prev(it), index);
}

std::vector<uint64_t> deter_sampler::times(const std::vector<deter_sample>& s, uint64_t first, uint64_t count) {
  std::vector<uint64_t> out(count);
  size_t at = 0;
  for (uint64_t i = 0; i < count; ++i) {
    while (at + 1 < s.size() && s[at + 1].index <= first + i) ++at;
    if (s.empty() || s[at].index > first + i) throw std::out_of_range("deter_sampler: index before the first sample");
    out[i] = infer(s[at], first + i);
  }
  return out;
}

}  // namespace netasic
