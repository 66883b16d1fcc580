#include "clock/sundial_controller.h"

namespace netasic {

sundial_controller::sundial_controller(sc_core::sc_module_name name, const topology& topo, const clock_network_config& cfg,
                                       std::vector<unsigned> device_of_switch, std::vector<unsigned> device_of_host,
                                       clock_driver* clock)
    : sc_core::sc_module(name),
      bus("bus"),
      cfg_(cfg),
      device_(std::move(device_of_switch)),
      host_device_(std::move(device_of_host)),
      clock_(clock) {
  cfg_.sundial_writes.clear();
  planner_ = std::make_unique<sundial_planner>(topo, cfg_);
  SC_THREAD(react);
}

sundial_controller::~sundial_controller() = default;

// Every switch's block, then every NIC's.
void sundial_controller::program() {
  program(planner_->registers(), device_);
  program(planner_->host_registers(), host_device_);
}

void sundial_controller::program(const std::vector<sundial_regs>& regs, const std::vector<unsigned>& device) {
  reg_driver drv(bus);
  for (unsigned s = 0; s < regs.size(); ++s)
    for (uint32_t f = 0; f < sundial_regs::fields; ++f, ++writes_) {
      const auto field = sundial_regs::field(f);
      drv.write32(regbus::address(device[s], sundial_regs::offset(field)), regs[s][field]);
    }
  // Read back: every device must hold its plan.
  for (unsigned s = 0; s < regs.size(); ++s)
    for (uint32_t f = 0; f < sundial_regs::fields; ++f, ++reads_) {
      const auto field = sundial_regs::field(f);
      if (drv.read32(regbus::address(device[s], sundial_regs::offset(field))) != regs[s][field]) ++mismatches_;
    }
}

void sundial_controller::start_of_simulation() { program(); }

void sundial_controller::react() {
  using sc_core::sc_time;
  for (size_t i = 0; i < planner_->faults(); ++i) {
    const uint64_t at = planner_->fault_at_ps(i) + cfg_.controller_delay_ps;
    const uint64_t now = now_ps();
    if (at > now) wait(sc_time(double(at - now), sc_core::SC_PS));
    reg_driver drv(bus);
    std::vector<uint32_t> state;
    for (unsigned s = 0; s < device_.size(); ++s, ++state_reads_)
      state.push_back(drv.read32(regbus::address(device_[s], sundial_regs::state_offset)));
    const sundial_planner::observed seen = planner_->learn(i, state);
    evictions_seen_ += seen.evictions;
    elections_seen_ += seen.election ? 1 : 0;
    ++replans_;
    program();
    if (clock_) clock_->sundial_programmed(i, now_ps());
  }
}

}  // namespace netasic
