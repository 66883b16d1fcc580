// Monotone priority queue (a radix heap): pushed keys are never below the last popped key,
// which holds for simulation time. An item sits in the bucket named by the highest bit in which
// its key differs from the last popped key, so a push is O(1) and an item moves down at most
// once per bit. Items with equal keys always share a bucket and keep their order, so they pop
// first-in first-out. Plain C++, no SystemC.
#pragma once
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

namespace netasic {

template <class T>
class radix_heap {
 public:
  radix_heap() { min_.fill(none); }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  // Bytes the heap's arrays hold (their capacity): they grow with the most items ever pending.
  size_t capacity_bytes() const {
    size_t n = 0;
    for (const auto& b : buckets_) n += b.capacity();
    return n * sizeof(item);
  }

  // key >= the last popped key.
  void push(uint64_t key, const T& value) {
    place({key, value});
    ++size_;
  }

  // Smallest key; the heap must not be empty.
  uint64_t top_key() const { return head_ < buckets_[0].size() ? last_ : min_[lowest_used()]; }

  // The item the next pop returns if it is due at the last popped key (already in bucket 0,
  // so asking moves nothing), else null: a caller can start loading what it points to.
  const T* next_due() const { return head_ < buckets_[0].size() ? &buckets_[0][head_].value : nullptr; }

  // Removes and returns the item with the smallest key (the oldest among equals).
  T pop() {
    if (head_ == buckets_[0].size()) refill();
    --size_;
    return buckets_[0][head_++].value;
  }

 private:
  struct item {
    uint64_t key;
    T value;
  };
  static constexpr uint64_t none = std::numeric_limits<uint64_t>::max();

  // Bucket 0 holds keys equal to last_; bucket b (1..64) keys whose highest bit differing from
  // last_ is bit b-1. used_ has bit b-1 set when bucket b is non-empty.
  void place(const item& it) {
    if (it.key == last_) {
      buckets_[0].push_back(it);
      return;
    }
    const unsigned b = 64 - unsigned(__builtin_clzll(it.key ^ last_));
    buckets_[b].push_back(it);
    if (it.key < min_[b]) min_[b] = it.key;
    used_ |= uint64_t(1) << (b - 1);
  }
  unsigned lowest_used() const { return unsigned(__builtin_ctzll(used_)) + 1; }

  // Bucket 0 is spent: the lowest non-empty bucket's smallest key becomes the reference, and its
  // items move to lower buckets, the smallest ones to bucket 0. Each lands lower because it
  // shares with the new reference every bit down to the one that put it in `from`, so the loop
  // never writes into the bucket it reads. (Moving the items through a spare vector swapped with
  // the bucket would pass buffers from bucket to bucket, and over a long run every bucket would
  // come to hold the largest buffer ever needed: memory growing with run time, not with load.)
  void refill() {
    buckets_[0].clear();
    head_ = 0;
    const unsigned from = lowest_used();
    used_ &= ~(uint64_t(1) << (from - 1));
    last_ = min_[from];
    min_[from] = none;
    for (const item& it : buckets_[from]) place(it);
    buckets_[from].clear();
  }

  std::array<std::vector<item>, 65> buckets_;
  std::array<uint64_t, 65> min_{};
  uint64_t used_ = 0, last_ = 0;
  size_t head_ = 0, size_ = 0;
};

}  // namespace netasic
