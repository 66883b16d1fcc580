#include "fabric/build_memory.h"

#include <malloc.h>

namespace netasic {

uint64_t heap_in_use_bytes() {
  const struct mallinfo2 m = mallinfo2();
  return uint64_t(m.uordblks) + uint64_t(m.hblkhd);
}

build_memory& fabric_build_memory() {
  static build_memory totals;
  return totals;
}

}  // namespace netasic
