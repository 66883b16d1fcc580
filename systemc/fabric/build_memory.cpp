#include "fabric/build_memory.h"

#include <malloc.h>
#if defined(__SANITIZE_ADDRESS__)
// From the ASan runtime (compiler-rt's sanitizer/allocator_interface.h, which GCC does not install).
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace netasic {

uint64_t heap_in_use_bytes() {
#if defined(__SANITIZE_ADDRESS__)
  return __sanitizer_get_current_allocated_bytes();   // ASan's allocator stands in for glibc's, whose mallinfo2 reads 0
#else
  const struct mallinfo2 m = mallinfo2();
  return uint64_t(m.uordblks) + uint64_t(m.hblkhd);
#endif
}

build_memory& fabric_build_memory() {
  static build_memory totals;
  return totals;
}

}  // namespace netasic
