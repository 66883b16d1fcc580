#include "run/memory_sampler.h"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>

#include <fmt/format.h>

#include "fabric/build_memory.h"
#include "tlm/sim_time.h"

namespace netasic {

uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");   // size resident shared text lib data dt, in pages
  uint64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * uint64_t(sysconf(_SC_PAGESIZE));
}

memory_sampler::memory_sampler(sc_core::sc_module_name name, uint64_t interval_ps, std::function<working_set()> model)
    : sc_core::sc_module(name), interval_ps_(interval_ps), model_(std::move(model)) {
  SC_METHOD(sample);   // initialised: the first sample is at 0
  sensitive << tick_;
}

void memory_sampler::take(uint64_t now) {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  rows_.push_back({now, resident_bytes(), uint64_t(u.ru_maxrss) * 1024, heap_in_use_bytes(), model_()});
}

void memory_sampler::sample() {
  take(now_ps());
  tick_.notify(ps(interval_ps_));
}

std::string memory_sampler::finish(uint64_t end_ps) {
  if (rows_.empty() || rows_.back().t_ps != end_ps) take(end_ps);
  std::string csv =
      "time_us,rss_bytes,peak_rss_bytes,heap_bytes,flows_active,packets_in_flight,packet_pool_bytes,events_pending,"
      "event_queue_bytes,output_bytes,other_heap_bytes\n";
  for (const row& r : rows_) {
    const working_set& m = r.model;
    const uint64_t held = m.packet_pool_bytes + m.event_queue_bytes + m.output_bytes;
    csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", double(r.t_ps) * 1e-6, r.rss, r.peak_rss, r.heap, m.flows_active,
                       m.packets_in_flight, m.packet_pool_bytes, m.events_pending, m.event_queue_bytes, m.output_bytes,
                       int64_t(r.heap) - int64_t(held));
  }
  return csv;
}

}  // namespace netasic
