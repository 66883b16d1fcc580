// Sundial register block of a switch or a host NIC (core, no SystemC): what the controller's RPC
// (§3.4.3 Implementation of Sundial, Li et al., OSDI 2020) programs, written over the control-plane register bus (tlm/regbus.h). Both have the
// same block; a NIC is a leaf, so the controller gives it PARENT 0, no backup parent, no second
// timeout, EPS_BASE = its switch's + one hop, ROOT 0 (and the NIC ignores ROOT).
//
// Register map (32-bit registers, byte offsets in the device's CSR space):
//   0x3000_0000  PARENT         port of the primary parent (ignored on the root)
//   0x3000_0004  BACKUP_PARENT  port of the backup parent, 0xFFFF_FFFF = none
//   0x3000_0008  FIRST_TIMEOUT  oscillator cycles (185 us = 185 000 cycles at 1 ns)
//   0x3000_000C  SECOND_TIMEOUT oscillator cycles, non-zero only on the backup root
//   0x3000_0010  EPS_BASE       ps, eps_per_hop x depth_primary
//   0x3000_0014  EPS_BASE_BACKUP ps, eps_per_hop x depth_backup
//   0x3000_0018  ROOT           1 = primary root
//   0x3000_001C  VALID          1 = the device is in the plan (written last)
//   0x3000_0020  STATE          read-only, the firmware's state: 0 primary, 1 backup, 2 waiting for
//                               the second timeout, 3 root, 4 evicted (the controller reads it
//                               before replanning: it learns of elections and self-evictions)
#pragma once
#include <array>
#include <cstdint>

namespace netasic {

struct sundial_regs {
  static constexpr uint32_t base = 0x3000'0000;
  enum field : uint32_t { parent, backup_parent, first_timeout, second_timeout, eps_base, eps_base_backup, root, valid, fields };
  // STATE follows the writable fields; the device answers it (sundial_firmware's firmware_state).
  static constexpr uint32_t state_offset = base + 4 * fields;
  enum state : uint32_t { state_primary, state_backup, state_waiting_second, state_root, state_evicted };
  static constexpr uint32_t none = 0xFFFF'FFFF;

  std::array<uint32_t, fields> value{0, none, 0, 0, 0, 0, 0, 0};

  static constexpr uint32_t offset(field f) { return base + 4 * uint32_t(f); }
  static bool in_range(uint32_t off) { return off >= base && off < base + 4 * fields; }
  uint32_t& operator[](field f) { return value[f]; }
  uint32_t operator[](field f) const { return value[f]; }

  // Register access; false = no register at that offset (or a bad value).
  bool write(uint32_t off, uint32_t v) {
    if (!in_range(off) || (off & 3)) return false;
    const uint32_t f = (off - base) / 4;
    if ((f == root || f == valid) && v > 1) return false;
    value[f] = v;
    return true;
  }
  bool read(uint32_t off, uint32_t& v) const {
    if (!in_range(off) || (off & 3)) return false;
    v = value[(off - base) / 4];
    return true;
  }
  bool operator==(const sundial_regs& o) const { return value == o.value; }
  bool operator!=(const sundial_regs& o) const { return value != o.value; }
};

// One accepted register write, as the fabric records it for the clock layer.
struct sundial_reg_write {
  uint64_t at_ps = 0;
  uint32_t node = 0;      // topology node index of the device (switch or host NIC)
  uint32_t offset = 0;
  uint32_t value = 0;
};

}  // namespace netasic
