#include "clock/sundial_firmware.h"

#include <stdexcept>
#include <string>

namespace netasic {

const char* firmware_state_name(firmware_state s) {
  switch (s) {
    case firmware_state::primary: return "primary";
    case firmware_state::backup: return "backup";
    case firmware_state::waiting_second: return "waiting_second";
    case firmware_state::root: return "root";
    case firmware_state::evicted: return "evicted";
  }
  return "?";
}

sundial_firmware::sundial_firmware(const sundial_firmware_config& cfg, sundial_unit_if& unit) : unit_(&unit) {
  configure(cfg);
}

void sundial_firmware::validate(const sundial_firmware_config& cfg) const {
  auto fail = [](const std::string& what) { throw std::invalid_argument("sundial_firmware: " + what); };
  const uint32_t ports = unit_->config().ports;
  if (cfg.first_timeout_ps < 1) fail("first_timeout_ps must be at least 1");
  if (cfg.root) return;
  if (cfg.primary_parent >= ports)
    fail("primary_parent " + std::to_string(cfg.primary_parent) + " >= ports " + std::to_string(ports));
  if (cfg.backup_parent != sundial_firmware_config::no_port) {
    if (cfg.backup_parent >= ports)
      fail("backup_parent " + std::to_string(cfg.backup_parent) + " >= ports " + std::to_string(ports));
    if (cfg.backup_parent == cfg.primary_parent) fail("backup_parent must differ from primary_parent");
  }
  if (cfg.second_timeout_ps > 0 && cfg.backup_parent == sundial_firmware_config::no_port)
    fail("second_timeout_ps needs a backup_parent (the backup root sits on the backup loop)");
}

void sundial_firmware::configure(const sundial_firmware_config& cfg) {
  validate(cfg);
  const bool unit_root = unit_->current_mode() == sundial_unit::mode::root;
  if (cfg.root != unit_root)
    throw std::logic_error("sundial_firmware: configure cannot change the root role (the unit decides it)");
  cfg_ = cfg;
  bad_primary_ = bad_backup_ = false;
  if (unit_->current_mode() == sundial_unit::mode::evicted) {
    state_ = firmware_state::evicted;
    return;
  }
  if (cfg.root) {
    state_ = firmware_state::root;
    return;
  }
  unit_->set_parent_port(cfg.primary_parent);
  unit_->set_eps_base(cfg.eps_base_ps);
  unit_->set_first_timeout(cfg.first_timeout_ps);
  unit_->arm_second_timeout(0);
  state_ = firmware_state::primary;
}

void sundial_firmware::to_backup() {
  unit_->set_parent_port(cfg_.backup_parent);
  unit_->set_eps_base(cfg_.eps_base_backup_ps);
  ++count_.switches_to_backup;
  state_ = firmware_state::backup;
}

// After a first timeout on the backup parent: the backup root starts its election wait.
void sundial_firmware::arm_election() {
  if (cfg_.second_timeout_ps > 0) {
    unit_->arm_second_timeout(cfg_.second_timeout_ps);
    state_ = firmware_state::waiting_second;
  }
}

void sundial_firmware::on_event(const sundial_event& ev) {
  switch (ev.what) {
    case sundial_event::kind::send:
      return;
    case sundial_event::kind::first_timeout:
      if (state_ == firmware_state::primary) {
        if (cfg_.backup_parent == sundial_firmware_config::no_port) {
          ++count_.stranded;
          return;
        }
        to_backup();
        ++count_.by_timeout;
        arm_election();
      } else if (state_ == firmware_state::backup) {
        // The backup parent went silent too: only the backup root has something left to do.
        if (cfg_.second_timeout_ps > 0) arm_election();
        else ++count_.stranded;
      }
      return;
    case sundial_event::kind::second_timeout:
      if (state_ != firmware_state::waiting_second) return;
      unit_->become_root(ev.at_ps);
      state_ = firmware_state::root;
      ++count_.elections;
      return;
  }
}

void sundial_firmware::on_rx(uint64_t now_ps, uint32_t port, const sundial_rx& rx) {
  if (rx.verdict == sundial_verdict::valid) {
    if (state_ == firmware_state::waiting_second) {
      state_ = firmware_state::backup;   // the primary root is alive: stay on the backup parent
      ++count_.cancelled_elections;
    }
    return;
  }
  if (rx.verdict != sundial_verdict::invalid) return;
  if (state_ == firmware_state::primary && port == cfg_.primary_parent) {
    // Step 1: someone's clock is broken; assume the parent's and try the backup parent.
    bad_primary_ = true;
    if (cfg_.backup_parent == sundial_firmware_config::no_port) return;
    to_backup();
    ++count_.by_invalid;
  } else if ((state_ == firmware_state::backup || state_ == firmware_state::waiting_second) &&
             port == cfg_.backup_parent) {
    // Step 2: both parents disagree with this clock, so it is this clock that is broken.
    bad_backup_ = true;
    if (!bad_primary_) return;   // on backup after a timeout: no second opinion to compare
    unit_->evict(now_ps);
    state_ = firmware_state::evicted;
    ++count_.evictions;
  }
}

}  // namespace netasic
