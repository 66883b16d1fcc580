// Control-plane register bus: TLM-2.0 generic payload over b_transport, the way a driver talks
// to a device. Address bits [47:32] select the device, bits [31:0] are the device's register
// offset (see each block's datasheet for its register map).
#pragma once
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_target_socket.h>

namespace netasic {

class regbus : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<regbus> in;   // from the controllers (route, Sundial)

  explicit regbus(sc_core::sc_module_name name);
  // Adds a device; returns its number, the address bits [47:32] that select it.
  unsigned attach(tlm::tlm_base_target_socket<>& device_csr);

  static uint64_t address(unsigned device, uint32_t offset) { return (uint64_t(device) << 32) | offset; }

 private:
  void b_transport(int initiator, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  tlm_utils::multi_passthrough_initiator_socket<regbus> out_;
  unsigned devices_ = 0;
};

// A driver-side helper: 32-bit register reads and writes over an initiator socket.
class reg_driver {
 public:
  explicit reg_driver(tlm_utils::simple_initiator_socket<reg_driver>& s) : s_(s) {}
  void write32(uint64_t addr, uint32_t value);
  uint32_t read32(uint64_t addr);

 private:
  void access(tlm::tlm_command cmd, uint64_t addr, uint32_t& value);
  tlm_utils::simple_initiator_socket<reg_driver>& s_;
};

// Device side: decode a 32-bit single-register access or set the proper error response.
// Returns false (and sets the response) when the payload is not a 4-byte aligned access.
bool reg_access_ok(tlm::tlm_generic_payload& gp);

}  // namespace netasic
