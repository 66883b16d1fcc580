#include "nic/endpoint.h"

#include "tlm/regbus.h"
#include "tlm/sim_time.h"

namespace netasic {

const nic_scheduler_stats nic_endpoint::no_scheduler_{};

nic_endpoint::nic_endpoint(sc_core::sc_module_name name, bool registers) : sc_core::sc_module(name) {
  if (!registers) return;
  csr_ = std::make_unique<tlm_utils::simple_target_socket<nic_endpoint>>("csr");
  csr_->register_b_transport(this, &nic_endpoint::b_transport);
}

void nic_endpoint::take_mac_side(packet& p, uint64_t now, uint64_t response_ps, uint64_t rate_bps, run_stats& stats,
                                 uint64_t& pause_effect) {
  if (p.kind == pkt_kind::pause) {
    ++pause_.frames_received;
    pause_effect = now + response_ps;
    pause_.apply(p.pfc, pause_effect, rate_bps);
    stats.release(p);
    return;
  }
  if (p.kind == pkt_kind::sync) {   // the clock unit beside the MAC takes it
    if (clock_driver* c = sundial_.clock()) c->receive(sundial_.node(), 0, p.sync, now);
    stats.release(p);
    return;
  }
  // A switch's frame for a collector: a FlowRadar bank export, or a mirrored copy. Counted, dropped.
  if (p.ip.protocol == 17 && p.udp.dst_port == flowradar_export_port) {
    ++export_received_;
    export_bytes_ += p.frame_bytes();
  } else {
    ++mirror_received_;
    mirror_bytes_ += p.frame_bytes();
  }
  stats.release(p);
}

// The NIC's only registers are its Sundial block, at the same offsets as a switch's.
void nic_endpoint::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
  if (!reg_access_ok(gp)) return;
  uint32_t* data = reinterpret_cast<uint32_t*>(gp.get_data_ptr());
  const uint32_t off = uint32_t(gp.get_address());
  const bool ok = sundial_csr::owns(off) && sundial_.access(gp.is_write(), off, *data, now_ps());
  gp.set_response_status(ok ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

}  // namespace netasic
