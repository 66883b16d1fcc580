// Sundial failure handler in device firmware (core, no SystemC): Sundial (Li et al., OSDI 2020),
// §3.4.2.2 Failure handler in the device software and §3.4.3 Implementation (sections and figures
// as in chapter 3 of Li's thesis). The controller's RPC sets the backup parent, the first timeout
// and the second timeout (non-zero only on the backup root). The handler reacts to the unit's
// interrupts:
//
//   first timeout: accept sync-messages from the backup parent, eps_base := eps_base_backup;
//                  a backup root then waits for the second timeout            (§3.4.3)
//   second timeout (no valid message since the first): become the root       (§3.4.2.2)
//   invalid message (broken clock, §3.4.2.2, Fig. 3.14), in two steps:
//     from the primary parent: suspect the parent's clock, switch to the backup parent;
//     then from the backup parent as well: invalid from both, so the own clock is broken:
//     evict self (no longer synchronises, epsilon unbounded).
//
// States: primary -> backup -> (backup root) waiting_second -> root; any -> evicted.
// A valid message in waiting_second goes back to backup (the unit has cleared its counter).
// Actions take effect at the interrupt's time (no firmware latency is modelled).
#pragma once
#include <cstdint>

#include "clock/sundial_unit.h"

namespace netasic {

struct sundial_firmware_config {
  static constexpr uint32_t no_port = UINT32_MAX;
  bool root = false;                     // this device is the primary root
  uint32_t primary_parent = 0;           // port (non-root)
  uint32_t backup_parent = no_port;      // port, or no_port when the plan gives none
  uint64_t eps_base_ps = 5'000;          // 5 ns x depth_primary
  uint64_t eps_base_backup_ps = 5'000;   // 5 ns x depth_backup (the plan's DP)
  uint64_t first_timeout_ps = 185'000'000;   // programmed into the unit's register (§3.4.3)
  uint64_t second_timeout_ps = 0;        // non-zero only on the backup root (180 us in §3.6.1.1)
};

enum class firmware_state { primary, backup, waiting_second, root, evicted };
const char* firmware_state_name(firmware_state s);

struct sundial_firmware_counters {
  uint64_t switches_to_backup = 0;
  uint64_t by_timeout = 0;               // of those, after a first timeout
  uint64_t by_invalid = 0;               // of those, after an invalid message
  uint64_t elections = 0;                // became root at a second timeout
  uint64_t evictions = 0;
  uint64_t stranded = 0;                 // first timeouts with no backup left to try
  uint64_t cancelled_elections = 0;      // a valid message arrived while waiting
};

class sundial_firmware {
 public:
  // Programs `unit` (which must outlive the firmware). Throws std::invalid_argument naming the
  // field.
  sundial_firmware(const sundial_firmware_config& cfg, sundial_unit_if& unit);

  // Controller RPC (backup parent, first and second timeout, §3.4.3) plus the plan's parents and
  // eps_base values. Resets the state machine and the broken-clock evidence and reprograms the
  // unit's parent port, eps_base and first timeout. The root role is the unit's: a change throws
  // std::logic_error; an evicted unit stays evicted.
  void configure(const sundial_firmware_config& cfg);

  // Interrupts from sundial_unit::advance (send events are ignored).
  void on_event(const sundial_event& ev);
  // Every on_sync result (invalid messages raise the broken-clock interrupt).
  void on_rx(uint64_t now_ps, uint32_t port, const sundial_rx& rx);

  firmware_state state() const { return state_; }
  bool invalid_from_primary() const { return bad_primary_; }
  bool invalid_from_backup() const { return bad_backup_; }
  const sundial_firmware_counters& counters() const { return count_; }
  const sundial_firmware_config& config() const { return cfg_; }

 private:
  void validate(const sundial_firmware_config& cfg) const;
  void to_backup();
  void arm_election();

  sundial_firmware_config cfg_;
  sundial_unit_if* unit_;
  firmware_state state_ = firmware_state::primary;
  bool bad_primary_ = false, bad_backup_ = false;   // invalid messages seen since configure
  sundial_firmware_counters count_;
};

}  // namespace netasic
