// A packet list played as packets (traffic.trace_mode = "packets"): each host puts its frames on
// its wire at their recorded times, open-loop, later only while the wire is busy. The send times
// are read back from the hosts' tx captures (--pcap, first bit in ns) and checked against a
// schedule worked out here from the list and the link rate alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_cli.h"

namespace {

struct listed { uint64_t time_ns; uint32_t src, dst, frame_bytes; };

// time_us,src,dst,frame_bytes. host0 sends a burst (its wire is busy: frames 2..4 wait), then an
// idle gap; host1 two frames back to back; hosts 2 and 3 one frame each.
// The file is in time order, as a packet list must be.
const std::vector<listed> packet_list = {
    {0, 0, 3, 1000},    {0, 0, 3, 1000},   {0, 0, 2, 500},   {500, 1, 3, 1000}, {500, 1, 3, 1000},
    {1500, 0, 3, 1500}, {2000, 2, 0, 700}, {3000, 3, 0, 800}, {10000, 0, 1, 64}};

std::string list_csv() {
  std::string s = "time_us,src,dst,frame_bytes\n";
  for (const listed& p : packet_list)
    s += std::to_string(p.time_ns / 1000) + "." + std::to_string(p.time_ns % 1000 + 1000).substr(1) + "," +
         std::to_string(p.src) + "," + std::to_string(p.dst) + "," + std::to_string(p.frame_bytes) + "\n";
  return s;
}

// At 8 Gb/s a byte takes 1 ns; a frame holds the wire for itself plus 8 bytes of preamble and
// SFD and 12 of inter-frame gap (IEEE 802.3). A frame starts at its time or when the wire frees.
std::vector<uint64_t> expected_starts_ns(uint32_t host) {
  std::vector<uint64_t> out;
  uint64_t free_ns = 0;
  for (const listed& p : packet_list) {   // the list is in time order per host
    if (p.src != host) continue;
    const uint64_t start = std::max(p.time_ns, free_ns);
    out.push_back(start);
    free_ns = start + p.frame_bytes + 20;
  }
  return out;
}

// A nanosecond pcap's frame stamps (little-endian, as the writer makes them).
std::vector<uint64_t> pcap_stamps_ns(const std::filesystem::path& file) {
  const std::string b = slurp(file);
  auto u32 = [&](size_t at) {
    return uint32_t(uint8_t(b[at])) | uint32_t(uint8_t(b[at + 1])) << 8 | uint32_t(uint8_t(b[at + 2])) << 16 |
           uint32_t(uint8_t(b[at + 3])) << 24;
  };
  std::vector<uint64_t> out;
  if (b.size() < 24 || u32(0) != 0xa1b23c4d) return out;
  for (size_t at = 24; at + 16 <= b.size(); at += 16 + u32(at + 8)) out.push_back(uint64_t(u32(at)) * 1'000'000'000 + u32(at + 4));
  return out;
}

// Every host's frames left at the worked-out times, no more and no fewer.
bool sent_as_listed(const std::filesystem::path& run, std::string& why) {
  for (uint32_t h = 0; h < 4; ++h) {
    const std::vector<uint64_t> got = pcap_stamps_ns(run / "pcap" / ("host" + std::to_string(h) + ".p0.tx.pcap"));
    const std::vector<uint64_t> want = expected_starts_ns(h);
    if (got != want) {
      why = "host" + std::to_string(h) + ": " + std::to_string(got.size()) + " frames, " + std::to_string(want.size()) + " expected";
      for (size_t i = 0; i < std::min(got.size(), want.size()); ++i)
        if (got[i] != want[i]) why += "; frame " + std::to_string(i) + " at " + std::to_string(got[i]) + " ns, expected " + std::to_string(want[i]);
      return false;
    }
  }
  return true;
}

const char* scenario = "[topology]\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\nhost_rate = 8\n"
                       "[traffic]\npattern = \"list\"\ntrace = \"p.csv\"\ntrace_format = \"packets\"\ntrace_mode = \"packets\"\n";

}  // namespace

TEST(PacketTrace, FramesLeaveAtTheirRecordedTimes) {
  const std::filesystem::path dir = scratch("packet_trace", "play");
  std::ofstream(dir / "p.csv") << list_csv();
  std::ofstream(dir / "s.toml") << scenario;
  const std::string pcap = " --pcap host0,host1,host2,host3";
  outcome o = netasic_cli("run " + (dir / "s.toml").string() + " --quiet --out " + (dir / "out").string() + pcap);
  ASSERT_EQ(o.code, 0) << o.output;
  std::string why;
  EXPECT_TRUE(sent_as_listed(dir / "out", why)) << why;
  const auto s = nlohmann::json::parse(slurp(dir / "out" / "summary.json"));
  EXPECT_EQ(s["packets"]["sent"].get<uint64_t>(), packet_list.size());
  EXPECT_EQ(s["packets"]["delivered"].get<uint64_t>(), packet_list.size());
  EXPECT_EQ(s["packets"]["dropped"].get<uint64_t>(), 0u);
  EXPECT_EQ(s["flows"]["total"].get<uint64_t>(), 0u);
  const std::string flows = slurp(dir / "out" / "flows.csv");
  EXPECT_EQ(std::count(flows.begin(), flows.end(), '\n'), 1) << flows;   // the header alone

  // Control: the same list as flows is sent by the transport, at its own times and sizes.
  o = netasic_cli("run " + (dir / "s.toml").string() + " --quiet --out " + (dir / "flows").string() + pcap +
                  " --set traffic.trace_mode=flows");
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_FALSE(sent_as_listed(dir / "flows", why));
  EXPECT_GT(nlohmann::json::parse(slurp(dir / "flows" / "summary.json"))["flows"]["total"].get<uint64_t>(), 0u);
}

TEST(PacketTrace, RefusedWithAFlowListOrDeter) {
  const std::filesystem::path dir = scratch("packet_trace", "bad");
  std::ofstream(dir / "f.csv") << "time_us,src,dst,size_bytes\n0,0,3,30000\n";
  std::ofstream(dir / "p.csv") << list_csv();
  std::ofstream(dir / "s.toml") << scenario;
  outcome o = netasic_cli("run " + (dir / "s.toml").string() + " --quiet --out " + (dir / "out").string() +
                          " --set traffic.trace=" + (dir / "f.csv").string() + " --set traffic.trace_format=flows");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("s.toml:10: key 'traffic.trace_mode': " + (dir / "f.csv").string() + " is a flow list"),
            std::string::npos) << o.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
  o = netasic_cli("run " + (dir / "s.toml").string() + " --quiet --out " + (dir / "out").string() + " --set deter.mode=record");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("key 'traffic.trace_mode': \"packets\" cannot be combined with deter.mode = \"record\""),
            std::string::npos) << o.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
  o = netasic_cli("run " + (dir / "s.toml").string() + " --quiet --out " + (dir / "out").string() +
                  " --set traffic.pattern=permutation");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("key 'traffic.trace_mode': \"packets\" plays the trace alone: traffic.pattern must be \"list\""),
            std::string::npos) << o.output;
}
