// sim.memory_interval: the process's memory over simulated time, for memory.csv. At each
// interval it reads the resident set (/proc/self/statm), the kernel's peak of it (getrusage's
// ru_maxrss) and the allocator's bytes in use (fabric/build_memory.h). These are measurements of
// the process, not of the model: they differ between runs of one configuration, so memory.csv
// stays out of every bit-for-bit comparison (docs/outputs.md).
// Beside them it records the model's working set, the memory that legitimately grows with the
// work in the fabric (packets in flight, pending events) or with the run (the probes and per-flow paths kept for the outputs), so that what
// is left, other_heap_bytes, is the heap a leak would grow.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <systemc>

namespace netasic {

// The model's working set at one instant, as the fabric counts it.
struct working_set {
  uint64_t flows_active = 0;        // started, not finished
  uint64_t packets_in_flight = 0;   // allocated from the packet pool, not yet delivered or dropped
  uint64_t packet_pool_bytes = 0;   // the pool's blocks (it keeps its high-water mark)
  uint64_t events_pending = 0;      // timed wake-ups in the event queue
  uint64_t event_queue_bytes = 0;   // the event queue's arrays (high-water mark)
  uint64_t output_bytes = 0;        // kept for the outputs: probe samples (probes.csv), flows' paths (flows.csv)
};

class memory_sampler : public sc_core::sc_module {
  SC_HAS_PROCESS(memory_sampler);

 public:
  memory_sampler(sc_core::sc_module_name name, uint64_t interval_ps, std::function<working_set()> model);
  // Adds the sample at the end of the simulation (if it is not on the interval's grid; call it
  // before the outputs are built) and returns memory.csv (columns in docs/outputs.md).
  std::string finish(uint64_t end_ps);

 private:
  void sample();
  void take(uint64_t now_ps);
  struct row {
    uint64_t t_ps, rss, peak_rss, heap;
    working_set model;
  };
  std::vector<row> rows_;
  uint64_t interval_ps_;
  std::function<working_set()> model_;
  sc_core::sc_event tick_;
};

// The process's resident set now, in bytes (0 where /proc is not there).
uint64_t resident_bytes();

}  // namespace netasic
