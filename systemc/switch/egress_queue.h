// Output queue of one switch port and the shared buffer behind all of them (cores, no SystemC).
// Frames leave a queue in FIFO order, so a frame's transmission start is known the moment it is
// admitted: max(ready, when the wire frees up). Neither needs an event of its own; depths at
// any time are arithmetic.
#pragma once
#include <algorithm>
#include <cstdint>
#include <deque>

namespace netasic {

class egress_queue {
 public:
  // Forget frames whose last bit (plus gap) has left by t; returns the bytes they held.
  // Calls must not go back in time.
  uint64_t drain(uint64_t t) {
    uint64_t freed = 0;
    while (!q_.empty() && q_.front().end_ps <= t) {
      freed += q_.front().bytes;
      q_.pop_front();
    }
    bytes_ -= freed;
    return freed;
  }
  // Bytes queued or on the wire at t (not before the last drain), counting only frames that
  // had reached the queue by t.
  uint64_t depth_at(uint64_t t) const {
    uint64_t d = bytes_;
    for (auto it = q_.begin(); it != q_.end() && it->end_ps <= t; ++it) d -= it->bytes;
    for (auto it = q_.rbegin(); it != q_.rend() && it->ready_ps > t; ++it) d -= it->bytes;
    return d;
  }
  // Bytes held as of the last drain.
  uint64_t held_bytes() const { return bytes_; }
  uint64_t start_time(uint64_t ready) const { return std::max(ready, free_ps_); }
  void push(uint64_t ready, uint64_t end, uint32_t bytes) {
    q_.push_back({ready, end, bytes});
    bytes_ += bytes;
    free_ps_ = end;
    peak_ = std::max(peak_, depth_at(ready));   // not bytes_: frames that left by `ready` may not be drained yet
  }
  uint64_t peak_bytes() const { return peak_; }

 private:
  struct entry { uint64_t ready_ps, end_ps; uint32_t bytes; };
  std::deque<entry> q_;
  uint64_t bytes_ = 0, free_ps_ = 0, peak_ = 0;
};

// Shared packet buffer with tail drop. `used` counts the bytes of every frame admitted and not
// yet known to have left: an upper bound that is exact once every queue has been drained to
// the current time. Admission only pays for that full drain when the bound says "full".
class shared_buffer {
 public:
  explicit shared_buffer(uint64_t capacity_bytes) : cap_(capacity_bytes) {}
  // `leaving`: bytes the bound still counts that will have left by the admission time.
  bool fits(uint32_t bytes, uint64_t leaving = 0) const { return used_ - leaving + bytes <= cap_; }
  void add(uint32_t bytes) { used_ += bytes; }
  void release(uint64_t bytes) { used_ -= bytes; }
  uint64_t used_bound() const { return used_; }
  uint64_t capacity() const { return cap_; }

 private:
  uint64_t cap_, used_ = 0;
};

}  // namespace netasic
