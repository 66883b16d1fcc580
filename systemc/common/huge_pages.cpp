#include "common/huge_pages.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace netasic {

void huge_page_free::operator()(void* p) const { std::free(p); }

huge_page_ptr huge_page_alloc(std::size_t bytes) {
  const std::size_t n = (bytes + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
  void* p = std::aligned_alloc(huge_page_bytes, n ? n : huge_page_bytes);
  if (!p) throw std::bad_alloc();
  madvise(p, n, MADV_HUGEPAGE);   // advice only: refused, the pages stay small
  return huge_page_ptr(p);
}

}  // namespace netasic
