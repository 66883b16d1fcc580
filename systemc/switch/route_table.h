// Ingress forwarding table (core, no SystemC): a longest-prefix match on the destination host,
// as an IP router holds a /24 per rack and a /32 per attached host. The prefix table is keyed by
// the destination's prefix (the switch its host hangs off, from the fabric's address plan) and
// the ingress port's class; the host table is an exact match on the destination host and wins
// over the prefix (the longer match): it holds the last hop to each attached host and, where a
// host's link is down, a null route. Either gives an ECMP group (base, size) in a member table of
// egress ports. Written over the register bus. With one class (the default) the prefix table is
// a plain destination table; up-down routing (Zhao et al., NSDI'23) uses a class per (arrived
// up/down, port layer), the legal-turn check on port layers, so a packet never turns from down
// to up. Without an address plan every host is its own prefix (a /32 per host).
//
// The path table serves the k-shortest-path baseline (topology.routing = "ksp"): an exact match
// on (source prefix, destination prefix, path id) giving one egress port, so a frame follows one
// of its ToR pair's k paths from end to end (per-port classes would let it leave on another
// path's suffix where two paths cross). The path id is the packet's path tag (packet.h): the
// source ToR, which holds the pair's path count, sets it to the flow hash modulo that count; every
// switch on the path matches it, and the destination ToR's host route pops it. Once any path
// entry is written the table is in path mode and consults the path table before the prefix table;
// an untagged frame with no path count here (a mirror copy or FlowRadar export made mid-fabric)
// still uses the prefix table.
//
// Register map (32-bit registers, byte offsets):
//   0x0000_0000  SWITCH_ID   RO  switch number (the 12-bit ID used by INT)
//   0x0000_0004  NUM_PORTS   RO
//   0x0000_0010  HOST_CLEAR  WO  write 1: empty the host table
//   0x0000_0014  PATH_CLEAR  WO  write 1: empty the path and path-count tables
//   0x0000_0018  PATH_SRC    RW  [31:0] the source prefix (< prefixes, else refused) the PATH and PATH_COUNT windows address
//   0x1000_0000 + 4*(prefix*classes + class)  ROUTE  [31:16] group base, [15:0] group size (0 = no route)
//   0x2000_0000 + 4*i        MEMBER      [15:0] egress port
//   0x4000_0000 + 4*port     PORT_CLASS  [7:0] the ingress class of frames that arrive on port (< classes)
//   0x5000_0000 + 4*host     HOST_ROUTE  as ROUTE, every class (size 0 = drop); a write adds the
//                                        entry, a read of a host not in the table fails
//   0x6000_0000 + 4*(dst_prefix*256 + path_id)  PATH  [15:0] egress port (< NUM_PORTS) of
//                                        (PATH_SRC, dst_prefix, path_id); a write adds the entry,
//                                        a read of one not in the table fails
//   0x7000_0000 + 4*dst_prefix  PATH_COUNT  [8:0] paths of (PATH_SRC, dst_prefix), 1..256: the tag
//                                        range the source ToR hashes over; 0 removes the entry
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace netasic {

// How the route controller fills the table: ECMP over shortest paths (one class), or the
// edge-disjoint virtual up-down paths of a layered topology with the legal-turn classes, or the
// EDST and k-shortest-path baselines (classes by ingress tree or ingress port; route_planner.h).
enum class route_kind { shortest_path, updown, edst, ksp };
// Its name as topology.routing spells it.
inline const char* route_kind_name(route_kind k) {
  switch (k) {
    case route_kind::updown: return "updown";
    case route_kind::edst: return "edst";
    case route_kind::ksp: return "ksp";
    default: return "shortest_path";
  }
}

// The network part of every host's address: the prefix its switch announces (one per switch
// with hosts). Shared by every switch of a fabric, as the address bits are.
struct address_plan {
  std::vector<uint32_t> prefix_of_host;
  uint32_t prefixes = 0;
};

class route_table {
 public:
  static constexpr uint32_t reg_switch_id = 0x0, reg_num_ports = 0x4, reg_host_clear = 0x10;
  static constexpr uint32_t reg_route = 0x1000'0000, reg_member = 0x2000'0000, reg_port_class = 0x4000'0000;
  static constexpr uint32_t reg_host_route = 0x5000'0000, host_bits = 24;   // the address's host field
  static constexpr uint32_t reg_path_clear = 0x14, reg_path_src = 0x18;
  static constexpr uint32_t reg_path = 0x6000'0000, reg_path_count = 0x7000'0000;
  static constexpr unsigned path_id_bits = 8, max_paths = 1u << path_id_bits;   // the packet's path tag

  // Every host its own prefix: ROUTE is indexed by destination host.
  route_table(unsigned switch_id, unsigned ports, unsigned hosts, unsigned members, unsigned classes = 1)
      : id_(switch_id), ports_(ports), classes_(classes), prefixes_(hosts), members_(members),
        route_(size_t(hosts) * classes, 0), port_class_(ports, 0) {}
  // ROUTE indexed by the destination's prefix in `plan`.
  route_table(unsigned switch_id, unsigned ports, std::shared_ptr<const address_plan> plan, unsigned members,
              unsigned classes = 1)
      : id_(switch_id), ports_(ports), classes_(classes), prefixes_(plan->prefixes), members_(members),
        plan_(std::move(plan)), route_(size_t(prefixes_) * classes, 0), port_class_(ports, 0) {}

  // Egress port for `dst_host` given the packet's hash, or -1 when there is no route. Frames
  // the switch makes itself (mirror copies) look up class 0, a host's.
  int lookup(uint32_t dst_host, uint32_t hash) const {
    uint32_t base, size;
    if (!group(dst_host, ports_, base, size)) return -1;
    return member_[base + hash % size];
  }

  // The multipath group of `dst_host` for a frame from `in_port`: members base .. base + size - 1;
  // false when no route. A port past the front panel (recirculation, CPU) is class 0.
  bool group(uint32_t dst_host, uint32_t in_port, uint32_t& base, uint32_t& size) const {
    uint32_t e;
    if (!find_host(dst_host, e)) {
      const uint32_t pfx = prefix_of(dst_host);
      if (pfx >= prefixes_) return false;
      e = route_[size_t(pfx) * classes_ + (in_port < ports_ ? port_class_[in_port] : 0)];
    }
    base = e >> 16;
    size = e & 0xFFFF;
    return size != 0;
  }
  bool group(uint32_t dst_host, uint32_t& base, uint32_t& size) const { return group(dst_host, ports_, base, size); }

  // Path mode: any path entry written.
  bool path_mode() const { return !path_.empty(); }
  // The path table's decision for a frame from src_host to dst_host carrying path tag
  // (tagged, id): the egress port; path_none when the prefix table decides (not in path mode,
  // the destination hangs off this switch, or an untagged frame this switch holds no path count
  // for); path_miss when a tagged frame's path has no entry here (a drop: no route). The host
  // route pops the tag; an untagged frame with a path count is tagged hash % count.
  static constexpr int path_none = -1, path_miss = -2;
  int path_port(uint32_t src_host, uint32_t dst_host, uint32_t hash, bool& tagged, uint8_t& id) const {
    uint32_t e;
    if (find_host(dst_host, e)) {
      tagged = false;
      return path_none;
    }
    const uint32_t s = prefix_of(src_host), d = prefix_of(dst_host);
    if (s >= prefixes_ || d >= prefixes_) return tagged ? path_miss : path_none;
    if (!tagged) {
      const auto c = path_count_.find(pair_key(s, d));
      if (c == path_count_.end()) return path_none;
      id = uint8_t(hash % c->second);
      tagged = true;
    }
    const auto it = path_.find(path_key(s, d, id));
    return it == path_.end() ? path_miss : int(it->second);
  }
  size_t path_entries() const { return path_.size(); }
  size_t path_count_entries() const { return path_count_.size(); }
  uint32_t member(uint32_t i) const { return member_[i]; }

  // Register access; false = no register at that offset (or read-only / bad value).
  bool write(uint32_t offset, uint32_t value) {
    if (offset == reg_host_clear) {
      if (value != 1) return false;
      host_.clear();
      host_window_.clear();
      host_window_ok_ = true;
      return true;
    }
    if (offset == reg_path_clear) {
      if (value != 1) return false;
      path_.clear();
      path_count_.clear();
      return true;
    }
    if (offset == reg_path_src) {
      if (value >= prefixes_) return false;
      path_src_ = value;
      return true;
    }
    if (offset >= reg_path && offset < reg_path + 4 * uint64_t(prefixes_) * max_paths) {
      if (value >= ports_) return false;
      const uint32_t i = (offset - reg_path) / 4;
      path_[path_key(path_src_, i / max_paths, i % max_paths)] = uint16_t(value);
      return true;
    }
    if (offset >= reg_path_count && offset < reg_path_count + 4 * prefixes_) {
      if (value > max_paths) return false;
      const uint64_t k = pair_key(path_src_, (offset - reg_path_count) / 4);
      if (value == 0) path_count_.erase(k);
      else path_count_[k] = uint16_t(value);
      return true;
    }
    if (offset >= reg_host_route && offset < reg_host_route + (4u << host_bits)) {
      if (!hold_group(value)) return false;
      const uint32_t host = (offset - reg_host_route) / 4;
      host_[host] = value;
      window_host(host, value);
      return true;
    }
    if (offset >= reg_route && offset < reg_route + 4 * route_.size()) {
      if (!hold_group(value)) return false;
      route_[(offset - reg_route) / 4] = value;
      return true;
    }
    if (offset >= reg_member && offset < reg_member + 4 * members_) {
      if (value >= ports_) return false;
      const uint32_t i = (offset - reg_member) / 4;
      hold_members(i + 1);
      member_[i] = uint16_t(value);
      return true;
    }
    if (offset >= reg_port_class && offset < reg_port_class + 4 * port_class_.size()) {
      if (value >= classes_) return false;
      port_class_[(offset - reg_port_class) / 4] = uint8_t(value);
      return true;
    }
    return false;
  }
  bool read(uint32_t offset, uint32_t& value) const {
    if (offset == reg_switch_id) value = id_;
    else if (offset == reg_num_ports) value = ports_;
    else if (offset >= reg_route && offset < reg_route + 4 * route_.size()) value = route_[(offset - reg_route) / 4];
    else if (offset >= reg_member && offset < reg_member + 4 * members_) value = member_at((offset - reg_member) / 4);
    else if (offset >= reg_port_class && offset < reg_port_class + 4 * port_class_.size()) value = port_class_[(offset - reg_port_class) / 4];
    else if (offset >= reg_host_route && offset < reg_host_route + (4u << host_bits)) return find_host((offset - reg_host_route) / 4, value);
    else if (offset == reg_path_src) value = path_src_;
    else if (offset >= reg_path && offset < reg_path + 4 * uint64_t(prefixes_) * max_paths) {
      const uint32_t i = (offset - reg_path) / 4;
      const auto it = path_.find(path_key(path_src_, i / max_paths, i % max_paths));
      if (it == path_.end()) return false;
      value = it->second;
    } else if (offset >= reg_path_count && offset < reg_path_count + 4 * prefixes_) {
      const auto it = path_count_.find(pair_key(path_src_, (offset - reg_path_count) / 4));
      if (it == path_count_.end()) return false;
      value = it->second;
    }
    else return false;
    return true;
  }
  unsigned member_capacity() const { return members_; }
  size_t host_entries() const { return host_.size(); }

 private:
  // The member table has `members_` entries, all 0 until written. Its storage holds those up to
  // the last a write or a group has reached, so every lookup stays inside it: a fabric's groups
  // use few of the entries, and 4,096 zeros in each of a k = 32 fat tree's 1,280 switches were
  // 10 MiB.
  void hold_members(uint32_t n) {
    if (n > member_.size()) member_.resize(n, 0);
  }
  bool hold_group(uint32_t route) {   // a ROUTE or HOST_ROUTE value: group base and size
    const uint32_t end = (route >> 16) + (route & 0xFFFF);
    if (end > members_) return false;
    hold_members(end);
    return true;
  }
  uint32_t member_at(uint32_t i) const { return i < member_.size() ? member_[i] : 0; }
  uint32_t prefix_of(uint32_t host) const {
    if (!plan_) return host;
    return host < plan_->prefix_of_host.size() ? plan_->prefix_of_host[host] : prefixes_;
  }
  // The host routes again as a flat window over the hosts they cover, for the lookup every
  // packet makes: a switch's attached hosts are usually numbered together, and a hash map's
  // lookup (a division and a bucket load) was a fifth of ingress. Routes spread wider than the
  // window allows leave the lookup to the map.
  void window_host(uint32_t host, uint32_t value) {
    if (!host_window_ok_) return;
    const uint64_t entry = uint64_t(1) << 32 | value;   // bit 32: present
    if (host_window_.empty()) {
      host_lo_ = host;
      host_window_.assign(1, entry);
      return;
    }
    const uint64_t lo = std::min(host, host_lo_), hi = std::max<uint64_t>(host, host_lo_ + host_window_.size() - 1);
    if (hi - lo + 1 > std::max<uint64_t>(max_host_window, 4 * host_.size())) {
      host_window_ok_ = false;
      host_window_.clear();
      host_window_.shrink_to_fit();
      return;
    }
    if (host < host_lo_) host_window_.insert(host_window_.begin(), host_lo_ - host, 0);
    host_lo_ = uint32_t(lo);
    if (hi - lo + 1 > host_window_.size()) host_window_.resize(hi - lo + 1, 0);
    host_window_[host - host_lo_] = entry;
  }
  static constexpr uint64_t max_host_window = 1024;
  static uint64_t pair_key(uint64_t src, uint64_t dst) { return src << 32 | dst; }
  static uint64_t path_key(uint64_t src, uint64_t dst, uint64_t id) { return pair_key(src, dst) << path_id_bits | id; }
  bool find_host(uint32_t host, uint32_t& e) const {
    if (host_.empty()) return false;
    if (host_window_ok_) {
      const uint32_t i = host - host_lo_;
      if (i >= host_window_.size() || !(host_window_[i] >> 32)) return false;
      e = uint32_t(host_window_[i]);
      return true;
    }
    const auto it = host_.find(host);
    if (it == host_.end()) return false;
    e = it->second;
    return true;
  }

  unsigned id_, ports_, classes_, prefixes_, members_;
  std::shared_ptr<const address_plan> plan_;   // null: prefix = host
  std::unordered_map<uint32_t, uint32_t> host_;   // destination host -> route (the /32s)
  std::vector<uint64_t> host_window_;   // host_lo_ + i -> bit 32 present, [31:0] route (see window_host)
  uint32_t host_lo_ = 0;
  bool host_window_ok_ = true;
  std::vector<uint32_t> route_;
  std::vector<uint16_t> member_;   // the entries up to the last one used (see hold_members)
  std::vector<uint8_t> port_class_;
  uint32_t path_src_ = 0;                                // PATH_SRC
  std::unordered_map<uint64_t, uint16_t> path_;          // (src prefix, dst prefix, path id) -> egress port
  std::unordered_map<uint64_t, uint16_t> path_count_;    // (src prefix, dst prefix) -> paths
};

}  // namespace netasic
