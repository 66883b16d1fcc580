// sim.memory_interval: the process's memory over simulated time, for memory.csv. At each
// interval it reads the resident set (/proc/self/statm), the kernel's peak of it (getrusage's
// ru_maxrss) and the allocator's bytes in use (fabric/build_memory.h). These are measurements of
// the process, not of the model: they differ between runs of one configuration, so memory.csv
// stays out of every bit-for-bit comparison (docs/outputs.md).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

namespace netasic {

class memory_sampler : public sc_core::sc_module {
  SC_HAS_PROCESS(memory_sampler);

 public:
  memory_sampler(sc_core::sc_module_name name, uint64_t interval_ps);
  // Adds the sample at the end of the run (if it is not on the interval's grid) and returns
  // memory.csv: time_us, rss_bytes, peak_rss_bytes, heap_bytes.
  std::string finish(uint64_t end_ps);

 private:
  void sample();
  void take(uint64_t now_ps);
  struct row { uint64_t t_ps, rss, peak_rss, heap; };
  std::vector<row> rows_;
  uint64_t interval_ps_;
  sc_core::sc_event tick_;
};

// The process's resident set now, in bytes (0 where /proc is not there).
uint64_t resident_bytes();

}  // namespace netasic
