// Output queue of one switch port (core, no SystemC). Frames leave in FIFO order, so a frame's
// transmission start is known the moment it is admitted: max(ready, when the wire frees up).
// The queue therefore needs no event of its own; its depth at any time is arithmetic.
#pragma once
#include <algorithm>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

namespace netasic {

class egress_queue {
 public:
  // Forget frames whose last bit (plus gap) has left by t. Calls must not go back in time.
  void drain(uint64_t t) {
    while (!q_.empty() && q_.front().end_ps <= t) {
      bytes_ -= q_.front().bytes;
      q_.pop_front();
    }
  }
  // Bytes queued or on the wire at t, counting only frames that had reached the queue by t.
  uint64_t depth_at(uint64_t t) {
    drain(t);
    uint64_t d = bytes_;
    for (auto it = q_.rbegin(); it != q_.rend() && it->ready_ps > t; ++it) d -= it->bytes;
    return d;
  }
  // Depth seen by a frame that reaches the queue at `ready` (no later frame is queued yet).
  uint64_t depth_for_admission(uint64_t ready) {
    drain(ready);
    return bytes_;
  }
  uint64_t start_time(uint64_t ready) const { return std::max(ready, free_ps_); }
  void push(uint64_t ready, uint64_t end, uint32_t bytes) {
    drain(ready);
    q_.push_back({ready, end, bytes});
    bytes_ += bytes;
    free_ps_ = end;
    peak_ = std::max(peak_, bytes_);
  }
  uint64_t peak_bytes() const { return peak_; }

 private:
  struct entry { uint64_t ready_ps, end_ps; uint32_t bytes; };
  std::deque<entry> q_;
  uint64_t bytes_ = 0, free_ps_ = 0, peak_ = 0;
};

// Shared packet buffer with tail drop (core): a frame holds its bytes from admission until its
// transmission ends.
class shared_buffer {
 public:
  explicit shared_buffer(uint64_t capacity_bytes) : cap_(capacity_bytes) {}
  // Room for `bytes` at t? Calls must not go back in time.
  bool has_room(uint64_t t, uint32_t bytes) {
    while (!release_.empty() && release_.front().first <= t) {
      used_ -= release_.front().second;
      std::pop_heap(release_.begin(), release_.end(), later);
      release_.pop_back();
    }
    return used_ + bytes <= cap_;
  }
  void hold(uint32_t bytes, uint64_t release_ps) {
    used_ += bytes;
    release_.emplace_back(release_ps, bytes);
    std::push_heap(release_.begin(), release_.end(), later);
    peak_ = std::max(peak_, used_);
  }
  uint64_t used_at(uint64_t t) const {
    uint64_t u = used_;
    for (const auto& r : release_) if (r.first <= t) u -= r.second;
    return u;
  }
  uint64_t capacity() const { return cap_; }
  uint64_t peak_bytes() const { return peak_; }

 private:
  static bool later(const std::pair<uint64_t, uint32_t>& a, const std::pair<uint64_t, uint32_t>& b) {
    return a.first > b.first;
  }
  uint64_t cap_, used_ = 0, peak_ = 0;
  std::vector<std::pair<uint64_t, uint32_t>> release_;   // min-heap on release time
};

}  // namespace netasic
