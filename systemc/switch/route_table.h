// Ingress forwarding table (core, no SystemC): exact match on the destination host, giving an
// ECMP group (base, size) in a member table of egress ports. Written over the register bus.
//
// Register map (32-bit registers, byte offsets):
//   0x0000_0000  SWITCH_ID   RO  switch number (the 12-bit ID used by INT)
//   0x0000_0004  NUM_PORTS   RO
//   0x1000_0000 + 4*host     ROUTE   [31:16] group base, [15:0] group size (0 = no route)
//   0x2000_0000 + 4*i        MEMBER  [15:0] egress port
#pragma once
#include <cstdint>
#include <vector>

namespace netasic {

class route_table {
 public:
  static constexpr uint32_t reg_switch_id = 0x0, reg_num_ports = 0x4;
  static constexpr uint32_t reg_route = 0x1000'0000, reg_member = 0x2000'0000;

  route_table(unsigned switch_id, unsigned ports, unsigned hosts, unsigned members)
      : id_(switch_id), ports_(ports), route_(hosts, 0), member_(members, 0) {}

  // Egress port for `dst_host` given the packet's hash, or -1 when there is no route.
  int lookup(uint32_t dst_host, uint32_t hash) const {
    if (dst_host >= route_.size()) return -1;
    const uint32_t e = route_[dst_host], size = e & 0xFFFF, base = e >> 16;
    if (size == 0) return -1;
    return member_[base + hash % size];
  }

  // The multipath group of `dst_host`: members base .. base + size - 1; false when no route.
  bool group(uint32_t dst_host, uint32_t& base, uint32_t& size) const {
    if (dst_host >= route_.size()) return false;
    base = route_[dst_host] >> 16;
    size = route_[dst_host] & 0xFFFF;
    return size != 0;
  }
  uint32_t member(uint32_t i) const { return member_[i]; }

  // Register access; false = no register at that offset (or read-only / bad value).
  bool write(uint32_t offset, uint32_t value) {
    if (offset >= reg_route && offset < reg_route + 4 * route_.size()) {
      if ((value >> 16) + (value & 0xFFFF) > member_.size()) return false;
      route_[(offset - reg_route) / 4] = value;
      return true;
    }
    if (offset >= reg_member && offset < reg_member + 4 * member_.size()) {
      if (value >= ports_) return false;
      member_[(offset - reg_member) / 4] = uint16_t(value);
      return true;
    }
    return false;
  }
  bool read(uint32_t offset, uint32_t& value) const {
    if (offset == reg_switch_id) value = id_;
    else if (offset == reg_num_ports) value = ports_;
    else if (offset >= reg_route && offset < reg_route + 4 * route_.size()) value = route_[(offset - reg_route) / 4];
    else if (offset >= reg_member && offset < reg_member + 4 * member_.size()) value = member_[(offset - reg_member) / 4];
    else return false;
    return true;
  }
  unsigned member_capacity() const { return unsigned(member_.size()); }

 private:
  unsigned id_, ports_;
  std::vector<uint32_t> route_;
  std::vector<uint16_t> member_;
};

}  // namespace netasic
