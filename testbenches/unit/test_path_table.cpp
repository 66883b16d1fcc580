// KSP's path table (switch/route_table.h): its registers against their documented map (PATH_SRC
// selects the source prefix, PATH[dst*256 + id] an egress port below NUM_PORTS, PATH_COUNT[dst]
// 1..256, PATH_CLEAR), and the tables plan_ksp_routes installs walked hop by hop on random
// Jellyfish and Flattened Clos fabrics: every path id of every ToR pair walks exactly that path
// of ksp_paths (the golden: Yen's list, not the tables). The control walks the former per-ingress-
// port tables (plan_path_routes with ksp_port_class) the same way and must find a walk that is
// none of its pair's k paths, the hybrid the path table exists to rule out.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <vector>

#include "fabric/route_planner.h"
#include "switch/route_table.h"
#include "topology/flattened_clos.h"
#include "topology/jellyfish.h"
#include "topology/ksp.h"

using namespace netasic;

namespace {

std::shared_ptr<const address_plan> plan_of_prefixes(unsigned hosts, unsigned per_prefix) {
  auto a = std::make_shared<address_plan>();
  for (unsigned h = 0; h < hosts; ++h) a->prefix_of_host.push_back(h / per_prefix);
  a->prefixes = (hosts + per_prefix - 1) / per_prefix;
  return a;
}

TEST(PathTable, RegistersReadBackAndRefuseBadValues) {
  // 8 hosts, 2 per prefix: prefixes 0..3; 6 ports.
  route_table t(3, 6, plan_of_prefixes(8, 2), 16);
  EXPECT_FALSE(t.path_mode());
  ASSERT_TRUE(t.write(route_table::reg_path_src, 1));
  uint32_t v = 0;
  ASSERT_TRUE(t.read(route_table::reg_path_src, v));
  EXPECT_EQ(v, 1u);
  const auto path = [](uint32_t dst, uint32_t id) { return route_table::reg_path + 4 * (dst * route_table::max_paths + id); };
  ASSERT_TRUE(t.write(path(2, 0), 5));
  ASSERT_TRUE(t.write(path(2, 255), 0));
  EXPECT_TRUE(t.path_mode());
  ASSERT_TRUE(t.read(path(2, 0), v));
  EXPECT_EQ(v, 5u);
  ASSERT_TRUE(t.read(path(2, 255), v));
  EXPECT_EQ(v, 0u);
  EXPECT_FALSE(t.read(path(2, 1), v));          // not written
  EXPECT_FALSE(t.write(path(2, 1), 6));         // a port past NUM_PORTS
  EXPECT_FALSE(t.read(path(2, 1), v));          // ... left nothing behind
  EXPECT_FALSE(t.write(path(4, 0), 1));         // a destination prefix past the plan's (the window ends)
  EXPECT_FALSE(t.write(route_table::reg_path_src, 4));   // a source prefix past the plan's
  ASSERT_TRUE(t.write(route_table::reg_path_count + 4 * 2, 256));   // the most an 8-bit tag tells apart
  ASSERT_TRUE(t.read(route_table::reg_path_count + 4 * 2, v));
  EXPECT_EQ(v, 256u);
  EXPECT_FALSE(t.write(route_table::reg_path_count + 4 * 2, 257));   // more paths than path ids
  ASSERT_TRUE(t.write(route_table::reg_path_count + 4 * 3, 3));
  ASSERT_TRUE(t.write(route_table::reg_path_count + 4 * 3, 0));     // 0 removes it
  EXPECT_FALSE(t.read(route_table::reg_path_count + 4 * 3, v));
  // PATH_SRC selects: source 0 has none of source 1's entries.
  ASSERT_TRUE(t.write(route_table::reg_path_src, 0));
  EXPECT_FALSE(t.read(path(2, 0), v));
  EXPECT_FALSE(t.write(route_table::reg_path_clear, 2));
  ASSERT_TRUE(t.write(route_table::reg_path_clear, 1));
  EXPECT_FALSE(t.path_mode());
  ASSERT_TRUE(t.write(route_table::reg_path_src, 1));
  EXPECT_FALSE(t.read(path(2, 0), v));
}

TEST(PathTable, SourceTagsAndHostRoutePops) {
  route_table t(0, 6, plan_of_prefixes(8, 2), 16);
  // Source prefix 0 (hosts 0, 1) to prefix 2 (hosts 4, 5): 3 paths leaving on ports 1, 2, 3.
  ASSERT_TRUE(t.write(route_table::reg_path_src, 0));
  for (uint32_t id = 0; id < 3; ++id) ASSERT_TRUE(t.write(route_table::reg_path + 4 * (2 * route_table::max_paths + id), 1 + id));
  ASSERT_TRUE(t.write(route_table::reg_path_count + 4 * 2, 3));
  ASSERT_TRUE(t.write(route_table::reg_member, 4));
  ASSERT_TRUE(t.write(route_table::reg_host_route + 4 * 1, 1));   // host 1 hangs off port 4 (member 0)
  for (uint32_t hash = 0; hash < 12; ++hash) {
    bool tagged = false;
    uint8_t id = 0;
    EXPECT_EQ(t.path_port(0, 5, hash, tagged, id), int(1 + hash % 3));
    EXPECT_TRUE(tagged);
    EXPECT_EQ(id, hash % 3);
  }
  bool tagged = true;
  uint8_t id = 7;
  EXPECT_EQ(t.path_port(0, 5, 0, tagged, id), route_table::path_miss);   // a tagged frame whose path has no entry here
  tagged = false;
  EXPECT_EQ(t.path_port(2, 0, 0, tagged, id), route_table::path_none);   // no count here for (2, 0): the prefix table
  EXPECT_FALSE(tagged);
  tagged = true;
  EXPECT_EQ(t.path_port(4, 1, 0, tagged, id), route_table::path_none);   // the destination hangs off this switch
  EXPECT_FALSE(tagged);                                                  // ... so the tag is popped
}

// The installed tables of a fabric: one route_table per switch, written register by register
// as route_controller::install writes them.
std::vector<route_table> install(const topology& t, const route_plan& plan) {
  std::vector<route_table> tables;
  for (unsigned s = 0; s < t.switches.size(); ++s) {
    const auto& r = plan.per_switch[s];
    route_table rt(s, unsigned(t.nodes[t.switches[s]].port_link.size()), plan.addresses, unsigned(r.members.size()), plan.classes);
    for (unsigned p = 0; p < r.port_class.size(); ++p) EXPECT_TRUE(rt.write(route_table::reg_port_class + 4 * p, r.port_class[p]));
    for (unsigned i = 0; i < r.members.size(); ++i) EXPECT_TRUE(rt.write(route_table::reg_member + 4 * i, r.members[i]));
    for (unsigned i = 0; i < r.route.size(); ++i) EXPECT_TRUE(rt.write(route_table::reg_route + 4 * i, r.route[i]));
    for (const auto& [h, e] : r.host_routes) EXPECT_TRUE(rt.write(route_table::reg_host_route + 4 * h, e));
    for (const auto& e : r.paths) {
      EXPECT_TRUE(rt.write(route_table::reg_path_src, e.src_prefix));
      EXPECT_TRUE(rt.write(route_table::reg_path + 4 * (e.dst_prefix * route_table::max_paths + e.path_id), e.port));
    }
    for (const auto& c : r.path_counts) {
      EXPECT_TRUE(rt.write(route_table::reg_path_src, c.src_prefix));
      EXPECT_TRUE(rt.write(route_table::reg_path_count + 4 * c.dst_prefix, c.paths));
    }
    tables.push_back(std::move(rt));
  }
  return tables;
}

struct fabric_under_test {
  topology t;
  std::vector<unsigned> sw_index, host_of_tor;   // by node: switch index, a host on that ToR
};

fabric_under_test index(topology t) {
  fabric_under_test f{std::move(t), {}, {}};
  f.sw_index.assign(f.t.nodes.size(), ~0u);
  f.host_of_tor.assign(f.t.nodes.size(), ~0u);
  for (unsigned i = 0; i < f.t.switches.size(); ++i) f.sw_index[f.t.switches[i]] = i;
  for (unsigned h = 0; h < f.t.hosts.size(); ++h) f.host_of_tor[f.t.host_switch(h)] = h;
  return f;
}

// Walks a frame from src ToR to dst ToR through the path tables, the tag set by the source ToR
// from `hash`; the links it crosses (empty: no route or a loop).
std::vector<unsigned> walk_path_table(const fabric_under_test& f, const std::vector<route_table>& tables, unsigned src, unsigned dst,
                                      uint32_t hash) {
  const uint32_t sh = f.host_of_tor[src], dh = f.host_of_tor[dst];
  bool tagged = false;
  uint8_t id = 0;
  std::vector<unsigned> links;
  for (unsigned node = src; links.size() <= f.t.switches.size();) {
    const int port = tables[f.sw_index[node]].path_port(sh, dh, hash, tagged, id);
    if (port == route_table::path_none && node == dst && !tagged) return links;   // the host route: delivered
    if (port < 0) return {};
    links.push_back(f.t.nodes[node].port_link[unsigned(port)]);
    node = f.t.links[links.back()].other(node);
  }
  return {};
}

// Every walk the per-ingress-port tables allow from src ToR to dst ToR (each member of each
// group), as link lists, up to `cap` of them.
void walk_port_tables(const fabric_under_test& f, const std::vector<route_table>& tables, unsigned src, unsigned dst, size_t cap,
                      std::vector<std::vector<unsigned>>& out) {
  const uint32_t dh = f.host_of_tor[dst];
  std::vector<unsigned> links;
  std::function<void(unsigned, unsigned)> step = [&](unsigned node, unsigned in_port) {
    if (out.size() >= cap || links.size() > f.t.switches.size()) return;
    if (node == dst) return out.push_back(links);
    uint32_t base, size;
    const route_table& rt = tables[f.sw_index[node]];
    if (!rt.group(dh, in_port, base, size)) return;
    for (uint32_t i = 0; i < size; ++i) {
      const unsigned link = f.t.nodes[node].port_link[rt.member(base + i)], next = f.t.links[link].other(node);
      links.push_back(link);
      step(next, f.t.links[link].port_on(next));
      links.pop_back();
    }
  };
  // From the source host: its port on the ToR (class 0).
  step(src, f.t.links[f.t.nodes[f.t.hosts[f.host_of_tor[src]]].port_link[0]].port_on(src));
}

std::vector<fabric_under_test> fabrics() {
  std::vector<fabric_under_test> out;
  for (uint64_t seed : {1, 2, 3}) {
    jellyfish_spec j;
    j.tors = 12, j.fabric_ports = 4, j.host_ports = 1, j.seed = seed;
    out.push_back(index(build_jellyfish(j)));
    flattened_clos_spec c;
    c.tors = 12, c.fabric_ports = 6, c.host_ports = 1, c.seed = seed;
    out.push_back(index(build_flattened_clos(c)));
  }
  return out;
}

TEST(PathTable, EveryPathIdWalksExactlyItsKspPath) {
  constexpr unsigned k = 8;
  size_t walks = 0;
  for (const fabric_under_test& f : fabrics()) {
    const std::vector<pair_paths> golden = ksp_paths(f.t, k);
    const route_plan plan = plan_ksp_routes(f.t, golden);
    ASSERT_TRUE(plan.path_mode);
    const std::vector<route_table> tables = install(f.t, plan);
    for (const pair_paths& pp : golden) {
      ASSERT_FALSE(pp.paths.empty());
      for (uint32_t id = 0; id < pp.paths.size(); ++id) {
        // hash = id and hash = id + count both tag id: the tag is the hash modulo the pair's count
        for (uint32_t hash : {id, id + uint32_t(pp.paths.size())}) {
          const std::vector<unsigned> walked = walk_path_table(f, tables, pp.src, pp.dst, hash);
          EXPECT_EQ(walked, pp.paths[id].links) << f.t.nodes[pp.src].name << " -> " << f.t.nodes[pp.dst].name << " path " << id;
          ++walks;
        }
      }
    }
  }
  EXPECT_GT(walks, 5000u);
}

TEST(PathTable, IngressPortTablesWalkHybridPaths) {   // the control: the former form fails the same check
  constexpr unsigned k = 8;
  size_t walks = 0, hybrids = 0;
  for (const fabric_under_test& f : fabrics()) {
    const std::vector<pair_paths> golden = ksp_paths(f.t, k);
    const route_plan plan = plan_path_routes(f.t, golden, ksp_classes(f.t), [&](unsigned n, unsigned p) { return ksp_port_class(f.t, n, p); });
    ASSERT_FALSE(plan.path_mode);
    const std::vector<route_table> tables = install(f.t, plan);
    for (const pair_paths& pp : golden) {
      std::set<std::vector<unsigned>> allowed;
      for (const route_path& p : pp.paths) allowed.insert(p.links);
      std::vector<std::vector<unsigned>> all;
      walk_port_tables(f, tables, pp.src, pp.dst, 4096, all);
      for (const auto& w : all) hybrids += !allowed.count(w);
      walks += all.size();
    }
  }
  EXPECT_GT(walks, 5000u);
  EXPECT_GT(hybrids, 0u) << "every walk of the per-ingress-port tables was one of its pair's k paths";
}

TEST(PathTable, CbdCheckReadsExactlyThePathsTurns) {
  // The dependency graph of the installed path entries equals the graph of the k paths.
  for (const fabric_under_test& f : fabrics()) {
    const std::vector<pair_paths> golden = ksp_paths(f.t, 8);
    const dependency_graph installed = plan_dependencies(f.t, plan_ksp_routes(f.t, golden));
    dependency_graph direct(f.t);
    for (const pair_paths& pp : golden)
      for (const route_path& p : pp.paths) direct.add_path(p);
    EXPECT_EQ(installed.arcs(), direct.arcs());
    EXPECT_EQ(installed.find_cycle().empty(), direct.find_cycle().empty());
  }
}

TEST(PathTable, MorePathsThanTheTagHoldsIsRefused) {
  jellyfish_spec j;
  j.tors = 4, j.fabric_ports = 2, j.host_ports = 1;
  const topology t = build_jellyfish(j);
  std::vector<pair_paths> pairs = ksp_paths(t, 1);
  ASSERT_FALSE(pairs.empty());
  pairs[0].paths.assign(route_table::max_paths + 1, pairs[0].paths[0]);
  try {
    plan_ksp_routes(t, pairs);
    FAIL() << "257 paths for one pair were planned";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("topology.ksp_paths"), std::string::npos) << e.what();
  }
}

}  // namespace
