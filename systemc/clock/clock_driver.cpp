#include "clock/clock_driver.h"

namespace netasic {

clock_driver::clock_driver(const topology& topo, const clock_network_config& cfg, event_queue& events)
    : layer_(topo, cfg, this), events_(events) {}

void clock_driver::rearm() {
  const uint64_t t = layer_.next_event_ps();
  if (wake_.arm(t)) events_.schedule(t, *this);
}

void clock_driver::advance(uint64_t now_ps) {
  layer_.advance(now_ps);
  rearm();
}

void clock_driver::wake(uint64_t now_ps) {
  if (wake_.fire(now_ps)) advance(now_ps);   // else superseded by an earlier wake-up
}

void clock_driver::receive(uint32_t node, uint32_t port, const sync_header& m, uint64_t now_ps) {
  layer_.arrive(node, port, m, now_ps);
  rearm();
}

void clock_driver::sundial_programmed(size_t fault, uint64_t now_ps) {
  layer_.sundial_programmed(fault, now_ps);
  rearm();
}

void clock_driver::sample(uint64_t now_ps) {
  layer_.sample(now_ps);
  rearm();
}

}  // namespace netasic
