// Memory for the model's largest hot arrays in 2 MiB pieces the kernel may back with
// transparent huge pages. A large fabric's hop touches frames, ports and queues spread over
// hundreds of MiB; with 4 KiB pages nearly every such touch also misses the TLB. Linux backs a
// 2 MiB-aligned range advised MADV_HUGEPAGE with one huge page where it can (the machine's
// setting "madvise" or "always"); elsewhere the advice is a no-op and the pages stay small.
#pragma once
#include <cstddef>
#include <memory>

namespace netasic {

constexpr std::size_t huge_page_bytes = std::size_t(2) << 20;

struct huge_page_free {
  void operator()(void* p) const;
};
using huge_page_ptr = std::unique_ptr<void, huge_page_free>;

// `bytes` rounded up to whole huge pages, aligned to one, advised as huge; std::bad_alloc if the
// memory cannot be had. Not zeroed.
huge_page_ptr huge_page_alloc(std::size_t bytes);

// A container's allocator for one large array that is written whole (a fabric's links): from
// 1 MiB up on huge pages, below that from the ordinary heap, so that a small fabric does not
// take a whole huge page for it.
template <class T>
struct huge_page_allocator {
  using value_type = T;
  static constexpr std::size_t from_bytes = std::size_t(1) << 20;
  huge_page_allocator() = default;
  template <class U>
  huge_page_allocator(const huge_page_allocator<U>&) {}
  T* allocate(std::size_t n) {
    if (n * sizeof(T) < from_bytes) return std::allocator<T>().allocate(n);
    return static_cast<T*>(huge_page_alloc(n * sizeof(T)).release());
  }
  void deallocate(T* p, std::size_t n) {
    if (n * sizeof(T) < from_bytes) return std::allocator<T>().deallocate(p, n);
    huge_page_free()(p);
  }
  template <class U>
  bool operator==(const huge_page_allocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const huge_page_allocator<U>&) const { return false; }
};

}  // namespace netasic
