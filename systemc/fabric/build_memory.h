// What building the fabric's models took from the heap, summed by kind, for summary.json's
// memory (docs/performance.md): the allocator's bytes in use (glibc's mallinfo2, small blocks
// plus mmap'd ones) read before and after each constructor, so each figure is the object and
// everything it allocated, measured rather than estimated. The SystemC kernel elaborates once per
// process, so one fabric is built per process and the totals are the process's.
#pragma once
#include <cstdint>

namespace netasic {

struct build_memory {
  uint64_t switch_bytes = 0, host_bytes = 0, link_bytes = 0;   // a link: both directions and their bindings
};

// Bytes the allocator has handed out and not taken back.
uint64_t heap_in_use_bytes();
// The totals the fabric adds to as it builds its switches, NICs and links.
build_memory& fabric_build_memory();

}  // namespace netasic
