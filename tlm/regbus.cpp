#include "tlm/regbus.h"

#include <fmt/format.h>
#include <stdexcept>

namespace netasic {

regbus::regbus(sc_core::sc_module_name name) : sc_core::sc_module(name), in("in"), out_("out") {
  in.register_b_transport(this, &regbus::b_transport);
}

unsigned regbus::attach(tlm::tlm_base_target_socket<>& device_csr) {
  out_.bind(device_csr);
  return devices_++;
}

void regbus::b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const uint64_t dev = gp.get_address() >> 32;
  if (dev >= devices_) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  gp.set_address(gp.get_address() & 0xFFFFFFFFull);
  out_[int(dev)]->b_transport(gp, delay);
  gp.set_address(gp.get_address() | (dev << 32));
}

void reg_driver::access(tlm::tlm_command cmd, uint64_t addr, uint32_t& value) {
  tlm::tlm_generic_payload gp;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  gp.set_command(cmd);
  gp.set_address(addr);
  gp.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
  gp.set_data_length(4);
  gp.set_streaming_width(4);
  gp.set_byte_enable_ptr(nullptr);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  s_->b_transport(gp, delay);
  if (gp.is_response_error())
    throw std::runtime_error(fmt::format("register {} at {:#x} failed: {}",
                                         cmd == tlm::TLM_WRITE_COMMAND ? "write" : "read", addr,
                                         gp.get_response_string()));
}

void reg_driver::write32(uint64_t addr, uint32_t value) { access(tlm::TLM_WRITE_COMMAND, addr, value); }

uint32_t reg_driver::read32(uint64_t addr) {
  uint32_t v = 0;
  access(tlm::TLM_READ_COMMAND, addr, v);
  return v;
}

bool reg_access_ok(tlm::tlm_generic_payload& gp) {
  if (gp.get_data_length() != 4 || (gp.get_address() & 3) != 0 || gp.get_byte_enable_ptr() != nullptr) {
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return false;
  }
  return true;
}

}  // namespace netasic
