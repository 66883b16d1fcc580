// The ingress forwarding table (switch/route_table.h) against a golden model of its register
// map: SWITCH_ID and NUM_PORTS read-only, ROUTE[prefix] = base << 16 | size (the group must fit
// the member table; size 0 = no route), MEMBER[i] = an egress port below the port count,
// HOST_ROUTE[host] as ROUTE (an entry once written, until HOST_CLEAR), and the longest match: a
// host's own entry before its prefix's. A lookup takes the group's member at hash mod size. The
// register bus passes only aligned 32-bit accesses (tlm/regbus.cpp), so offsets here are
// multiples of 4.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "common/rng.h"
#include "switch/route_table.h"

using namespace netasic;

namespace {

constexpr uint32_t route_base = 0x1000'0000, member_base = 0x2000'0000, host_base = 0x5000'0000, host_clear = 0x10;

// The register file as a map from offset to value; a lookup takes the host's entry when there is
// one (the longest match), else its prefix's, and expands the group into its ports. Without a
// prefix map every host is its own prefix.
class golden_routes {
 public:
  golden_routes(uint32_t id, uint32_t ports, uint32_t prefixes, uint32_t members, std::vector<uint32_t> prefix_of = {})
      : ports_(ports), prefixes_(prefixes), members_(members), prefix_of_(std::move(prefix_of)) {
    regs_[0x0] = id;
    regs_[0x4] = ports;
    for (uint32_t h = 0; h < prefixes; ++h) regs_[route_base + 4 * h] = 0;
    for (uint32_t i = 0; i < members; ++i) regs_[member_base + 4 * i] = 0;
  }
  bool write(uint32_t off, uint32_t v) {
    const bool fits = (v >> 16) + (v & 0xFFFF) <= members_;   // a group must fit the member table
    if (off == host_clear) {
      if (v != 1) return false;
      regs_.erase(regs_.lower_bound(host_base), regs_.end());
      return true;
    }
    if (off >= route_base && off < route_base + 4 * prefixes_) {
      if (!fits) return false;
    } else if (off >= host_base && off < host_base + 4 * (1u << 24)) {
      if (!fits) return false;
    } else if (off >= member_base && off < member_base + 4 * members_) {
      if (v >= ports_) return false;
    } else {
      return false;   // read-only or no register
    }
    regs_[off] = v;
    return true;
  }
  bool read(uint32_t off, uint32_t& v) const {
    const auto it = regs_.find(off);
    if (it == regs_.end()) return false;
    v = it->second;
    return true;
  }
  int lookup(uint32_t host, uint32_t hash) const {
    auto it = regs_.find(host_base + 4 * host);
    if (it == regs_.end()) {
      const uint32_t prefix = prefix_of_.empty() ? host : host < prefix_of_.size() ? prefix_of_[host] : prefixes_;
      it = regs_.find(route_base + 4 * prefix);
    }
    if (it == regs_.end() || (it->second & 0xFFFF) == 0) return -1;
    std::vector<int> group;
    for (uint32_t i = 0; i < (it->second & 0xFFFF); ++i)
      group.push_back(int(regs_.at(member_base + 4 * ((it->second >> 16) + i))));
    return group[hash % group.size()];
  }

 private:
  uint32_t ports_, prefixes_, members_;
  std::vector<uint32_t> prefix_of_;
  std::map<uint32_t, uint32_t> regs_;
};

// Random writes, reads and lookups on the core and the golden model, which must agree.
void random_accesses(uint64_t seed, bool with_plan) {
  rng r(seed);
  const uint32_t ports = 1 + uint32_t(r.below(64)), hosts = 1 + uint32_t(r.below(300));
  const uint32_t members = 1 + uint32_t(r.below(200)), id = uint32_t(r.below(4096));
  uint32_t prefixes = hosts;
  std::vector<uint32_t> prefix_of;
  auto plan = std::make_shared<address_plan>();
  if (with_plan) {   // hosts in random racks of random sizes
    prefixes = 1 + uint32_t(r.below(hosts));
    for (uint32_t h = 0; h < hosts; ++h) prefix_of.push_back(uint32_t(r.below(prefixes)));
    plan->prefix_of_host = prefix_of, plan->prefixes = prefixes;
  }
  route_table core = with_plan ? route_table(id, ports, plan, members) : route_table(id, ports, hosts, members);
  golden_routes gold(id, ports, prefixes, members, prefix_of);
  // An offset in one of the regions, sometimes just past its end, or anywhere.
  auto offset = [&]() -> uint32_t {
    switch (r.below(with_plan ? 7 : 5)) {
      case 0: return 4 * uint32_t(r.below(6));
      case 1: case 2: return route_base + 4 * uint32_t(r.below(prefixes + 2));
      case 3: return member_base + 4 * uint32_t(r.below(members + 2));
      case 5: return host_base + 4 * uint32_t(r.below(hosts + 2));
      case 6: return r.below(50) ? host_base + 4 * uint32_t(r.below(hosts + 2)) : host_clear;
      default: return uint32_t(r.next()) & ~3u;
    }
  };
  // Values mostly valid, sometimes out of range.
  auto value = [&](uint32_t off) -> uint32_t {
    if (off == host_clear) return uint32_t(r.below(3));
    if (off >= member_base && off < host_base) return uint32_t(r.below(ports + 2));
    const uint32_t size = uint32_t(r.below(r.below(4) == 0 ? 0x10000 : 9));
    const uint32_t base = uint32_t(r.below(r.below(4) == 0 ? 0x10000 : members + 1));
    return base << 16 | size;
  };
  for (int i = 0; i < 20000; ++i) {
    const uint32_t off = offset();
    switch (r.below(3)) {
      case 0: {
        const uint32_t v = value(off);
        ASSERT_EQ(core.write(off, v), gold.write(off, v)) << "seed " << seed << " write " << std::hex << off << " = " << v;
        break;
      }
      case 1: {
        uint32_t a = 0xDEAD, b = 0xDEAD;
        const bool ok = core.read(off, a);
        ASSERT_EQ(ok, gold.read(off, b)) << "seed " << seed << " read " << std::hex << off;
        if (ok) {
          ASSERT_EQ(a, b) << "seed " << seed << " read " << std::hex << off;
        }
        break;
      }
      default: {
        const uint32_t host = uint32_t(r.below(hosts + 2)), hash = uint32_t(r.next());
        ASSERT_EQ(core.lookup(host, hash), gold.lookup(host, hash)) << "seed " << seed << " host " << host;
      }
    }
  }
}

}  // namespace

TEST(RouteTable, RegisterMapByHand) {
  route_table t(7, 4, 3, 6);
  uint32_t v = 0;
  ASSERT_TRUE(t.read(0x0, v));
  EXPECT_EQ(v, 7u);
  ASSERT_TRUE(t.read(0x4, v));
  EXPECT_EQ(v, 4u);
  EXPECT_FALSE(t.write(0x0, 1));                       // SWITCH_ID is read-only
  EXPECT_FALSE(t.write(0x4, 1));                       // NUM_PORTS too
  EXPECT_FALSE(t.read(0x8, v));                        // nothing there
  EXPECT_FALSE(t.read(route_base + 4 * 3, v));         // one past the last host
  EXPECT_FALSE(t.read(member_base + 4 * 6, v));        // one past the last member
  EXPECT_FALSE(t.write(member_base + 4 * 0, 4));       // port 4 of a 4-port switch
  EXPECT_TRUE(t.write(member_base + 4 * 0, 3));
  EXPECT_FALSE(t.write(route_base + 4 * 1, 4u << 16 | 3));   // members 4..6: one too many
  EXPECT_TRUE(t.write(route_base + 4 * 1, 3u << 16 | 3));    // members 3..5 fit
  ASSERT_TRUE(t.read(route_base + 4 * 1, v));
  EXPECT_EQ(v, 3u << 16 | 3);
  EXPECT_EQ(t.member_capacity(), 6u);
}

TEST(RouteTable, LookupTakesHashModSizeWithinTheGroup) {
  route_table t(0, 8, 4, 8);
  const uint32_t ports[] = {5, 6, 7, 2, 1};
  for (uint32_t i = 0; i < 5; ++i) ASSERT_TRUE(t.write(member_base + 4 * (2 + i), ports[i]));
  ASSERT_TRUE(t.write(route_base + 4 * 3, 2u << 16 | 3));   // host 3: members 2..4 = ports 5, 6, 7
  ASSERT_TRUE(t.write(route_base + 4 * 1, 5u << 16 | 1));   // host 1: member 5 = port 2
  EXPECT_EQ(t.lookup(3, 0), 5);
  EXPECT_EQ(t.lookup(3, 1), 6);
  EXPECT_EQ(t.lookup(3, 2), 7);
  EXPECT_EQ(t.lookup(3, 3), 5);
  EXPECT_EQ(t.lookup(3, 1'000'000'001), 7);   // 1 000 000 001 mod 3 = 2
  EXPECT_EQ(t.lookup(1, 12345), 2);
  EXPECT_EQ(t.lookup(0, 0), -1);              // no route written
  EXPECT_EQ(t.lookup(4, 0), -1);              // no such host
  uint32_t base = 0, size = 0;
  ASSERT_TRUE(t.group(3, base, size));
  EXPECT_EQ(base, 2u);
  EXPECT_EQ(size, 3u);
  EXPECT_EQ(t.member(4), 7u);
  EXPECT_FALSE(t.group(0, base, size));
  EXPECT_FALSE(t.group(9, base, size));
  ASSERT_TRUE(t.write(route_base + 4 * 3, 2u << 16 | 0));   // size 0 withdraws the route
  EXPECT_EQ(t.lookup(3, 0), -1);
}

TEST(RouteTable, RandomAccessesMatchTheGoldenModel) {
  for (uint64_t seed = 1; seed <= 4; ++seed) random_accesses(seed, false);
}

// Keyed by prefix through a random address plan, with host routes (the /32s) and HOST_CLEAR.
TEST(RouteTable, PrefixAndHostRoutesMatchTheGoldenLongestMatch) {
  for (uint64_t seed = 11; seed <= 16; ++seed) random_accesses(seed, true);
}

// Ingress classes (the up-down routing's legal-turn check): the entry is dst * classes + the
// class written for the frame's ingress port; ports past the front panel are class 0.
TEST(RouteTable, IngressClassSelectsTheEntry) {
  route_table t(0, 4, 2, 8, 3);
  const uint32_t route_base = route_table::reg_route, member_base = route_table::reg_member,
                 class_base = route_table::reg_port_class;
  for (uint32_t i = 0; i < 4; ++i) ASSERT_TRUE(t.write(member_base + 4 * i, i));
  EXPECT_FALSE(t.write(class_base + 4 * 1, 3));   // class 3 of 3 classes
  ASSERT_TRUE(t.write(class_base + 4 * 1, 2));    // port 1 is class 2
  ASSERT_TRUE(t.write(class_base + 4 * 2, 1));    // port 2 is class 1
  ASSERT_TRUE(t.write(route_base + 4 * (1 * 3 + 0), 0u << 16 | 1));   // host 1, class 0: port 0
  ASSERT_TRUE(t.write(route_base + 4 * (1 * 3 + 1), 1u << 16 | 1));   // class 1: port 1
  ASSERT_TRUE(t.write(route_base + 4 * (1 * 3 + 2), 2u << 16 | 2));   // class 2: ports 2, 3
  uint32_t base = 0, size = 0, v = 0;
  ASSERT_TRUE(t.group(1, 0, base, size));
  EXPECT_EQ(base, 0u);
  ASSERT_TRUE(t.group(1, 2, base, size));
  EXPECT_EQ(base, 1u);
  ASSERT_TRUE(t.group(1, 1, base, size));
  EXPECT_EQ(base, 2u);
  EXPECT_EQ(size, 2u);
  ASSERT_TRUE(t.group(1, 9, base, size));   // the CPU port: class 0
  EXPECT_EQ(base, 0u);
  EXPECT_FALSE(t.group(0, 1, base, size));  // host 0 has no route in class 2
  ASSERT_TRUE(t.read(class_base + 4 * 1, v));
  EXPECT_EQ(v, 2u);
}

// Host routes are looked up in a flat window over the hosts they cover while that stays small,
// in the hash map beyond it: hosts numbered together, then one far away (the window gives way
// to the map), then HOST_CLEAR and the window again, with lookups of hosts in, beside and
// outside the routes' range checked against the golden model throughout.
TEST(RouteTable, HostRoutesNearAndFarMatchTheGoldenModel) {
  rng r(23);
  const uint32_t ports = 16, members = 64, prefixes = 4;
  auto plan = std::make_shared<address_plan>();
  for (uint32_t h = 0; h < 6000; ++h) plan->prefix_of_host.push_back(h % prefixes);
  plan->prefixes = prefixes;
  route_table core(1, ports, plan, members);
  golden_routes gold(1, ports, prefixes, members, plan->prefix_of_host);
  for (uint32_t i = 0; i < members; ++i) {
    ASSERT_TRUE(core.write(member_base + 4 * i, i % ports));
    ASSERT_TRUE(gold.write(member_base + 4 * i, i % ports));
  }
  for (uint32_t p = 0; p < prefixes; ++p) {
    ASSERT_TRUE(core.write(route_base + 4 * p, p << 16 | 3));
    ASSERT_TRUE(gold.write(route_base + 4 * p, p << 16 | 3));
  }
  auto check = [&](const char* phase) {
    for (int i = 0; i < 3000; ++i) {
      const uint32_t host = r.below(2) ? 1000 + uint32_t(r.below(40)) : uint32_t(r.below(6000)), hash = uint32_t(r.next());
      ASSERT_EQ(core.lookup(host, hash), gold.lookup(host, hash)) << phase << " host " << host;
    }
  };
  auto host_route = [&](uint32_t host) {
    const uint32_t v = uint32_t(r.below(members - 8)) << 16 | uint32_t(r.below(5));   // size 0: a null route
    ASSERT_TRUE(core.write(host_base + 4 * host, v));
    ASSERT_TRUE(gold.write(host_base + 4 * host, v));
  };
  for (uint32_t h = 1010; h < 1026; ++h) host_route(h);   // an edge switch's hosts
  host_route(1003);                                       // the window grows downwards
  check("window");
  host_route(5900);   // far beyond the window's reach: the map serves every lookup
  check("map");
  ASSERT_TRUE(core.write(host_clear, 1));
  ASSERT_TRUE(gold.write(host_clear, 1));
  check("cleared");
  for (uint32_t h = 1030; h > 1020; --h) host_route(h);
  check("window again");
}
