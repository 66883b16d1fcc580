#include "clock/sundial_timeout.h"

#include <stdexcept>

namespace netasic {

sundial_timeout::sundial_timeout(uint64_t first_cycles, uint64_t start_cycle) : cleared_(start_cycle) {
  set_first(first_cycles);
}

void sundial_timeout::clear(uint64_t cycle) {
  cleared_ = cycle;
  rearm();
}

void sundial_timeout::set_first(uint64_t cycles) {
  if (cycles < 1) throw std::invalid_argument("sundial_timeout: the first timeout must be at least 1 cycle");
  first_ = cycles;
}

void sundial_timeout::arm_second(uint64_t cycles) {
  second_ = cycles;
  second_raised_ = false;
}

void sundial_timeout::rearm() {
  first_raised_ = second_raised_ = false;
  second_ = 0;
}

}  // namespace netasic
