// A first-in first-out queue on a ring that allocates nothing until its first push and then
// doubles as needed. It replaces std::deque where a fabric holds one queue per link direction or
// pipe, most of them empty: libstdc++'s deque allocates its map and a 512-byte chunk as it is
// constructed, 2.3 KiB for a link's four queues before any frame travels.
#pragma once
#include <cstddef>
#include <memory>
#include <utility>

namespace netasic {

template <typename T>
class ring_fifo {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  size_t capacity() const { return mask_ + (slots_ ? 1 : 0); }
  T& front() { return slots_[head_]; }
  const T& front() const { return slots_[head_]; }
  // i-th entry from the front.
  const T& operator[](size_t i) const { return slots_[(head_ + i) & mask_]; }

  void push_back(const T& v) {
    if (size_ == capacity()) grow();
    slots_[(head_ + size_) & mask_] = v;
    ++size_;
  }
  void pop_front() {
    head_ = (head_ + 1) & mask_;
    --size_;
  }
  // Keeps the entries `keep` says yes to, in order (it sees every entry once, front first).
  template <typename Keep>
  void keep_if(Keep keep) {
    size_t kept = 0;
    for (size_t i = 0; i < size_; ++i) {
      const T v = (*this)[i];
      if (keep(v)) slots_[(head_ + kept++) & mask_] = v;
    }
    size_ = kept;
  }

 private:
  void grow() {
    const size_t cap = slots_ ? 2 * capacity() : 8;   // capacity stays a power of two
    std::unique_ptr<T[]> bigger(new T[cap]);
    for (size_t i = 0; i < size_; ++i) bigger[i] = (*this)[i];
    slots_ = std::move(bigger);
    head_ = 0;
    mask_ = cap - 1;
  }
  std::unique_ptr<T[]> slots_;
  size_t head_ = 0, size_ = 0, mask_ = 0;
};

}  // namespace netasic
