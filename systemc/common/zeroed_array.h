// A fixed-size array whose elements start as all-zero bytes from calloc, so a large table costs
// neither time nor memory until its entries are touched: the OS maps zero pages lazily. For
// tables sized for the worst case and mostly empty in a run (a flowlet table of 65,536 entries
// of which the demo uses under a hundred). T's zero bytes must be its default value.
#pragma once
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

namespace netasic {

template <class T>
class zeroed_array {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "zeroed_array holds plain records");

 public:
  zeroed_array() = default;
  explicit zeroed_array(std::size_t n) : p_(static_cast<T*>(std::calloc(n ? n : 1, sizeof(T)))), n_(n) {
    if (!p_) throw std::bad_alloc();
  }
  T& operator[](std::size_t i) { return p_.get()[i]; }
  const T& operator[](std::size_t i) const { return p_.get()[i]; }
  std::size_t size() const { return n_; }

 private:
  struct release {
    void operator()(T* p) const { std::free(p); }
  };
  std::unique_ptr<T, release> p_;
  std::size_t n_ = 0;
};

}  // namespace netasic
