// A device's Sundial register block (clock/sundial_regs.h) as its control-plane target serves
// it, switch or NIC alike, and the device's link to the clock layer: a write reaches the layer
// as the device takes it, and STATE answers the layer's firmware state of this device.
#pragma once
#include <cstdint>

#include "clock/clock_driver.h"
#include "clock/sundial_regs.h"

namespace netasic {

class sundial_csr {
 public:
  void attach(clock_driver* clock, uint32_t node) {
    clock_ = clock;
    node_ = node;
  }
  clock_driver* clock() const { return clock_; }
  uint32_t node() const { return node_; }   // topology node
  const sundial_regs& regs() const { return regs_; }

  static bool owns(uint32_t off) { return off == sundial_regs::state_offset || sundial_regs::in_range(off); }
  // One 32-bit access at `off` (owns(off)); false: a write to STATE or a bad value.
  bool access(bool write, uint32_t off, uint32_t& data, uint64_t now_ps) {
    if (off == sundial_regs::state_offset) {
      if (write) return false;
      data = clock_ ? clock_->sundial_state(node_) : uint32_t(sundial_regs::state_primary);
      return true;
    }
    const bool ok = write ? regs_.write(off, data) : regs_.read(off, data);
    if (ok && write && clock_) clock_->register_write({now_ps, node_, off, data});
    return ok;
  }

 private:
  sundial_regs regs_;
  clock_driver* clock_ = nullptr;
  uint32_t node_ = 0;
};

}  // namespace netasic
