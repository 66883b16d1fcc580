// Sundial in the clock layer (internal): every device (switch or host NIC) runs the cores of
// systemc/clock, a sundial_unit driven by its oscillator and a sundial_firmware on its
// interrupts, configured by the controller: from its register block when the fabric's
// sundial_controller writes them (live or replayed), else from this layer's own sundial_planner.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "clock/sundial_firmware.h"
#include "clock/sundial_planner.h"
#include "clock/sundial_regs.h"
#include "clock/sundial_unit.h"
#include "clock/sync_sim.h"

namespace netasic {

class sundial_sim : public sync_sim {
 public:
  sundial_sim(const clock_world& w, uint8_t index, sync_transport* transport, std::vector<uint32_t>& fault_root);

  // A register write as device x.node takes it (live registers): the device acts on its block
  // when the controller has finished (controller_now), as after the first programming.
  void register_write(const sundial_reg_write& x) { take(x); }
  // The STATE register of device u (switch or host NIC).
  uint32_t state(uint32_t u) const;

 private:
  bool self_scheduled_controller() const override { return !live_; }
  void start() override;
  void load_registers();
  void take(const sundial_reg_write& x);
  sundial_firmware_config fw_config(uint32_t u, bool& member) const;
  std::vector<uint32_t> tx_ports(uint32_t u) const;
  sundial_unit_config unit_config(uint32_t u) const;
  void build_unit(uint32_t u, uint64_t t);
  void arm(uint32_t u);
  void poll(uint32_t u, uint64_t t);
  void on_timer(uint32_t u, uint64_t t) override;
  void on_arrival(uint32_t v, uint32_t port, int64_t ts, uint32_t epoch, uint64_t root_sent) override;
  void on_clock_broken(uint32_t u) override { arm(u); }   // its edges moved
  void on_controller(const resolved_fault& f, const std::vector<uint32_t>& nodes) override;
  void reconfigure(uint32_t u);
  bool can_send(uint32_t u) const override { return unit_[u]->current_mode() != sundial_unit::mode::evicted; }
  int64_t epsilon(uint32_t u, uint64_t t) const override;
  uint64_t eps_base(uint32_t u) const override { return unit_[u]->eps_base_ps(); }
  uint32_t depth(uint32_t u) const override;
  bool is_root(uint32_t u) const override { return unit_[u]->current_mode() == sundial_unit::mode::root; }
  bool evicted(uint32_t u) const override { return unit_[u]->current_mode() == sundial_unit::mode::evicted; }
  unsigned parent_link(uint32_t u) const override;
  bool notified(clock_fault::kind) const override { return true; }
  uint32_t successor_root() const override;
  void finish(nlohmann::json& s) override;

  sundial_planner ctrl_;              // the controller's plan and what it knows is down
  std::vector<std::unique_ptr<sundial_unit_if>> unit_;   // the core, or its RTL (--rtl sundial_unit)
  std::vector<std::unique_ptr<sundial_firmware>> fw_;
  std::vector<uint64_t> timer_;
  std::vector<char> was_evicted_;
  uint32_t max_depth_backup_ = 0, replans_ = 0, reconfigured_ = 0;
  uint64_t invalid_ = 0;
  std::vector<std::string> plan_statuses_;
  bool live_;                         // registers written while the layer runs
  bool from_regs_;                    // configured by the devices' Sundial registers
  std::vector<sundial_regs> regs_;    // by topology node (switches and host NICs)
  size_t next_write_ = 0;
};

}  // namespace netasic
