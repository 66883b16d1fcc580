// pcap out (--pcap), in process: the captures are read back with libpcap and checked byte by
// byte against the frames the model put on each link, as a tap of the test's own saw them, with
// the IPv4 checksum recomputed here. The command-line side is in test_pcap_cli.cpp.
#include <gtest/gtest.h>

#include <pcap/pcap.h>

#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fabric/fabric.h"
#include "harness.h"

namespace {
std::filesystem::path scratch_dir(const std::string& name) {
  const std::filesystem::path d = std::filesystem::path(::testing::TempDir()) / ("netasic_pcap_" + name);
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}
}  // namespace

using namespace netasic;

namespace {

struct sent_frame {
  packet p;
  uint64_t start_ps;
};

// The test's own tap: what the link's transmitter put on the wire, and when.
struct recorder : frame_tap {
  std::vector<sent_frame> frames;
  void on_frame(const packet& p, uint64_t start_ps) override { frames.push_back({p, start_ps}); }
};

uint32_t be(const u_char* b, unsigned n) {
  uint32_t v = 0;
  for (unsigned i = 0; i < n; ++i) v = v << 8 | b[i];
  return v;
}

bool ipv4_checksum_ok(const u_char* ip) {
  uint32_t s = 0;
  for (int i = 0; i < 20; i += 2) s += be(ip + i, 2);
  while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
  return s == 0xFFFF;
}

// The header fields of one captured frame against the packet sent; "" when they agree.
std::string compare_frame(const u_char* b, const packet& p) {
  if (p.kind == pkt_kind::pause) {
    if (be(b + 12, 2) != 0x8808 || be(b + 14, 2) != 0x0101) return "not a PFC frame";
    if (be(b + 16, 2) != p.pfc.class_enable) return "class-enable vector";
    for (unsigned i = 0; i < 8; ++i)
      if (be(b + 18 + 2 * i, 2) != p.pfc.quanta[i]) return fmt::format("quanta[{}]", i);
    return "";
  }
  if (p.kind == pkt_kind::sync || p.kind == pkt_kind::mirror) return "";
  const u_char* ip = b + 14;
  if (be(b + 12, 2) != 0x0800 || ip[0] != 0x45) return "not IPv4";
  if (!ipv4_checksum_ok(ip)) return "IPv4 checksum";
  if (ip[1] != (p.ip.dscp << 2 | p.ip.ecn)) return "DSCP/ECN";
  if (be(ip + 2, 2) != p.ip.total_length) return fmt::format("IPv4 length {} != {}", be(ip + 2, 2), p.ip.total_length);
  if (ip[8] != p.ip.ttl || ip[9] != 17) return "TTL/protocol";
  if (be(ip + 12, 4) != p.ip.src || be(ip + 16, 4) != p.ip.dst) return "addresses";
  const u_char* udp = ip + 20;
  if (be(udp, 2) != p.udp.src_port || be(udp + 2, 2) != 4791) return "UDP ports";
  if (be(udp + 4, 2) != p.ip.total_length - 20u) return "UDP length";
  const u_char* bth = udp + 8;
  if (p.int_enabled) {
    if ((be(bth, 2) >> 12) != p.intx.n_hop || (be(bth, 2) & 0xFFF) != p.intx.path_id) return "INT nHop/pathID";
    bth += 42;
  }
  if (bth[0] != p.bth.opcode) return "BTH opcode";
  if (be(bth + 5, 3) != p.bth.dest_qp || be(bth + 9, 3) != p.bth.psn) return "BTH QP/PSN";
  if (p.kind == pkt_kind::data && p.bth.psn != (p.seq & 0xFFFFFF)) return "PSN is not the sequence number";
  return "";
}

// Reads `path` and compares it with `sent`: count, lengths, nanosecond stamps, headers. Returns
// the first disagreement, or "".
std::string check_capture(const std::string& path, const std::vector<sent_frame>& sent) {
  char err[PCAP_ERRBUF_SIZE];
  pcap_t* in = pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO, err);
  if (!in) return err;
  std::string bad;
  if (pcap_datalink(in) != DLT_EN10MB) bad = "link type";
  if (pcap_get_tstamp_precision(in) != PCAP_TSTAMP_PRECISION_NANO) bad = "not nanosecond stamps";
  pcap_pkthdr* h;
  const u_char* data;
  size_t n = 0;
  uint64_t last_ns = 0;
  for (; bad.empty() && pcap_next_ex(in, &h, &data) == 1; ++n) {
    if (n >= sent.size()) {
      bad = "more frames than sent";
      break;
    }
    const sent_frame& s = sent[n];
    const uint64_t ns = uint64_t(h->ts.tv_sec) * 1'000'000'000 + uint64_t(h->ts.tv_usec);
    if (ns != s.start_ps / 1000) bad = fmt::format("frame {}: stamp {} ns, sent at {} ps", n, ns, s.start_ps);
    else if (ns < last_ns) bad = fmt::format("frame {}: stamp goes backwards", n);
    else if (h->len != s.p.frame_bytes() - 4 || h->caplen != h->len)
      bad = fmt::format("frame {}: {} bytes, the link counts {} with FCS", n, h->len, s.p.frame_bytes());
    else if (const std::string d = compare_frame(data, s.p); !d.empty()) bad = fmt::format("frame {}: {}", n, d);
    last_ns = ns;
  }
  if (bad.empty() && n != sent.size()) bad = fmt::format("{} frames in the file, {} sent", n, sent.size());
  pcap_close(in);
  return bad;
}

std::vector<std::pair<std::string, std::string>> incast_sets() {
  return {{"topology.leaves", "2"}, {"topology.spines", "2"}, {"topology.hosts_per_leaf", "4"},
          {"traffic.pattern", "list"}, {"traffic.flows", R"(["0->7 200000@0", "1->7 200000@0", "2->7 200000@1", "4->7 100000@0"])"},
          {"cc.algorithm", "hpcc"}, {"nic.int_padding", "true"}, {"pfc.xoff", "20"}, {"sim.duration", "100"}};
}

}  // namespace

TEST(Pcap, CapturesMatchTheFramesOnTheWire) {
  const std::filesystem::path dir = scratch_dir("wire");
  config cfg = small_config(incast_sets());
  std::map<std::string, recorder> rec;   // by capture file
  std::map<std::string, const link_direction*> dirs;
  run_taps taps;
  taps.pcap_ports = "leaf1:*,host0";
  taps.run_dir = dir.string();
  taps.on_built = [&](fabric& fab) {
    const topology& t = fab.config().topo;
    for (const std::string node : {"leaf1", "host0"}) {
      const unsigned n = t.find_node(node);
      for (unsigned port = 0; port < t.nodes[n].port_link.size(); ++port) {
        packet_link& l = fab.links()[t.nodes[n].port_link[port]];
        const bool a = t.links[t.nodes[n].port_link[port]].a == n;
        for (const bool tx : {true, false}) {
          link_direction& d = (tx == a) ? l.a_to_b : l.b_to_a;
          const std::string file = fmt::format("pcap/{}.p{}.{}.pcap", node, port, tx ? "tx" : "rx");
          d.tap = &rec[file];
          dirs[file] = &d;
        }
      }
    }
  };
  const run_result r = run_scenario(cfg, progress_mode::none, taps);
  expect_accounting(r);
  ASSERT_EQ(r.summary["flows"]["completed"].get<uint64_t>(), 4u);
  // leaf1 has 4 host ports and 2 spine ports, host0 one: 7 ports, two files each.
  ASSERT_EQ(r.summary["pcap"].size(), 14u);
  uint64_t pauses = 0, int_hops = 0, frames = 0;
  for (const auto& f : r.summary["pcap"]) {
    const std::string file = f["file"];
    SCOPED_TRACE(file);
    ASSERT_EQ(rec.count(file), 1u);
    const std::vector<sent_frame>& sent = rec[file].frames;
    EXPECT_EQ(f["frames"].get<uint64_t>(), sent.size());
    EXPECT_EQ(sent.size(), dirs[file]->counters().frames);   // every frame the link counted
    uint64_t bytes = 0;
    for (const sent_frame& s : sent) {
      bytes += s.p.frame_bytes();
      pauses += s.p.kind == pkt_kind::pause;
      int_hops += s.p.kind == pkt_kind::data ? s.p.intx.n_hop : 0;
    }
    EXPECT_EQ(f["bytes"].get<uint64_t>(), bytes);
    EXPECT_EQ(bytes, dirs[file]->counters().bytes);
    EXPECT_EQ(check_capture((dir / file).string(), sent), "");
    frames += sent.size();
  }
  EXPECT_GT(frames, 400u);    // 600 KB of 1000-byte payloads came in through leaf1
  EXPECT_GT(pauses, 0u);      // the checks covered PFC frames
  EXPECT_GT(int_hops, 0u);    // and INT stacks with records in them
  // Control: the same check against another direction's frames fails.
  EXPECT_NE(check_capture((dir / "pcap/leaf1.p0.rx.pcap").string(), rec["pcap/leaf1.p0.tx.pcap"].frames), "");
}

