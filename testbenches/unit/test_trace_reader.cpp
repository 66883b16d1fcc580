// Trace input (workload/trace_reader.h): pcap captures written here with libpcap, packet and
// flow lists, the address mapping, and every class of bad input named by file and packet/line.
#include <gtest/gtest.h>

#include <pcap/pcap.h>

#include <fstream>
#include <string>
#include <vector>

#include "common/params.h"
#include "protocol/wire.h"
#include "workload/trace_reader.h"

#include "output_samples.h"

using namespace netasic;
using namespace netasic::output_test;

namespace {

struct frame {
  uint64_t ns;                 // absolute time stamp
  std::vector<uint8_t> bytes;
};

frame ipv4_frame(uint64_t ns, uint32_t src, uint32_t dst, uint8_t proto, uint16_t sport, uint16_t dport, uint32_t payload,
                 uint16_t id = 0, uint8_t ecn = 0) {
  packet p;
  p.ip = {4, 5, 0, ecn, 0, id, 2, 0, 64, proto, 0, src, dst};
  if (proto == ipv4_header::proto_tcp) p.tcp = {sport, dport, 0, 0, 5, tcp_header::flag_ack, 65535, 0, 0};
  else p.udp = {sport, dport, 0, 0};
  p.payload_bytes = payload;
  frame f{ns, {}};
  serialise(p, f.bytes);
  return f;
}

// Writes a pcap of `frames` at the given precision and link type.
void write_pcap(const fs::path& path, const std::vector<frame>& frames, bool nano = true, int dlt = DLT_EN10MB) {
  pcap_t* dead = pcap_open_dead_with_tstamp_precision(dlt, 65535, nano ? PCAP_TSTAMP_PRECISION_NANO : PCAP_TSTAMP_PRECISION_MICRO);
  pcap_dumper_t* d = pcap_dump_open(dead, path.c_str());
  ASSERT_NE(d, nullptr);
  for (const frame& f : frames) {
    pcap_pkthdr h{};
    h.ts.tv_sec = time_t(f.ns / 1'000'000'000);
    h.ts.tv_usec = suseconds_t(nano ? f.ns % 1'000'000'000 : f.ns % 1'000'000'000 / 1000);
    h.caplen = h.len = bpf_u_int32(f.bytes.size());
    pcap_dump(reinterpret_cast<u_char*>(d), &h, f.bytes.data());
  }
  pcap_dump_close(d);
  pcap_close(dead);
}

trace_source source(const fs::path& p, trace_format f, uint32_t hosts = 8) {
  trace_source s;
  s.path = p.string();
  s.format = f;
  s.hosts = hosts;
  return s;
}

// The config_error a read throws (empty if none).
template <class F>
std::string error_of(F&& read) {
  try {
    read();
  } catch (const config_error& e) {
    return e.what();
  }
  return "";
}

const uint64_t t0 = 1'700'000'000'000'000'123ull;   // a 2023 wall-clock stamp, in ns

}  // namespace

TEST(TraceReader, PcapPacketsMappedAndTimedFromTheFirst) {
  temp_dir dir("trace-pcap");
  std::vector<frame> fs_ = {ipv4_frame(t0, host_ip(1), host_ip(2), 17, 50000, 4791, 1000, 7, 1),
                            ipv4_frame(t0 + 1500, 0xC0A80105, host_ip(3), 6, 40000, 80, 1460, 9, 3),
                            {t0 + 1600, std::vector<uint8_t>(60, 0)},   // ARP-like: EtherType 0
                            ipv4_frame(t0 + 2'000'000'007ull, host_ip(3), 0xC0A80105, 6, 80, 40000, 0, 11, 0)};
  fs_[2].bytes[12] = 0x08;
  fs_[2].bytes[13] = 0x06;   // ARP
  write_pcap(dir.path / "t.pcap", fs_);
  trace_source s = source(dir.path / "t.pcap", trace_format::pcap);
  s.host_of[0xC0A80105] = 5;   // 192.168.1.5 -> host 5
  uint64_t skipped = 0;
  std::vector<uint32_t> payload;
  const packet_trace t = read_packet_trace(s, skipped, &payload);
  EXPECT_EQ(skipped, 1u);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].time_ps, 0u);
  EXPECT_EQ(t[1].time_ps, 1'500'000u);
  EXPECT_EQ(t[2].time_ps, 2'000'000'007'000ull);
  EXPECT_EQ(t[0].src, 1u);
  EXPECT_EQ(t[0].dst, 2u);
  EXPECT_EQ(t[1].src, 5u);
  EXPECT_EQ(t[2].dst, 5u);
  // Frame bytes with FCS: RoCEv2 14+20+8+12+1000+4+4, TCP 14+20+20+1460+4, a bare TCP ACK padded to 64.
  EXPECT_EQ(t[0].frame_bytes, 1062u);
  EXPECT_EQ(t[1].frame_bytes, 1518u);
  EXPECT_EQ(t[2].frame_bytes, 64u);
  EXPECT_EQ(t[0].protocol, 17);
  EXPECT_EQ(t[1].protocol, 6);
  EXPECT_EQ(t[1].src_port, 40000);
  EXPECT_EQ(t[1].dst_port, 80);
  EXPECT_EQ(t[0].ip_id, 7);
  EXPECT_EQ(t[1].ip_id, 9);
  EXPECT_EQ(t[0].ecn, 1);
  EXPECT_EQ(t[1].ecn, 3);
  // UDP to 4791 is RoCEv2: its BTH (12) and ICRC (4) are no payload.
  EXPECT_EQ(payload, (std::vector<uint32_t>{1000, 1460, 0}));
}

TEST(TraceReader, MicrosecondPcapReadInNanoseconds) {
  temp_dir dir("trace-usec");
  write_pcap(dir.path / "u.pcap", {ipv4_frame(t0, host_ip(0), host_ip(1), 6, 1, 2, 100),
                                   ipv4_frame(t0 + 3'000, host_ip(0), host_ip(1), 6, 1, 2, 100)}, false);
  uint64_t skipped = 0;
  const packet_trace t = read_packet_trace(source(dir.path / "u.pcap", trace_format::pcap), skipped);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[1].time_ps - t[0].time_ps, 3'000'000u);   // 3 us
}

TEST(TraceReader, PcapGroupedIntoFlowsByFiveTuple) {
  temp_dir dir("trace-group");
  write_pcap(dir.path / "g.pcap", {ipv4_frame(t0 + 10, host_ip(0), host_ip(1), 6, 1000, 80, 1460),
                                   ipv4_frame(t0 + 20, host_ip(2), host_ip(1), 6, 1001, 80, 500),
                                   ipv4_frame(t0 + 30, host_ip(1), host_ip(0), 6, 80, 1000, 0),   // ACKs: no flow
                                   ipv4_frame(t0 + 40, host_ip(0), host_ip(1), 6, 1000, 80, 40),
                                   ipv4_frame(t0 + 50, host_ip(0), host_ip(1), 6, 1002, 80, 7)});
  uint64_t skipped = 0;
  const std::vector<flow_spec> f = read_trace_flows(source(dir.path / "g.pcap", trace_format::pcap), skipped);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].src, 0u);
  EXPECT_EQ(f[0].dst, 1u);
  EXPECT_EQ(f[0].size_bytes, 1500u);
  EXPECT_EQ(f[0].start_ps, 0u);
  EXPECT_EQ(f[0].src_port, 1000);
  EXPECT_EQ(f[1].src, 2u);
  EXPECT_EQ(f[1].size_bytes, 500u);
  EXPECT_EQ(f[1].start_ps, 10'000u);
  EXPECT_EQ(f[2].size_bytes, 7u);
  EXPECT_EQ(f[2].start_ps, 40'000u);
}

TEST(TraceReader, PacketAndFlowLists) {
  temp_dir dir("trace-lists");
  std::ofstream(dir.path / "p.csv") << "time_us,src,dst,frame_bytes,protocol,src_port,dst_port,ip_id,ecn\n"
                                       "# a comment\n"
                                       "0.5,0,3,1062,17,50000,4791,1,1\n"
                                       "\n"
                                       "1.000001, 10.0.0.3, 10.0.0.0, 64\n"
                                       "2,1,2,1518,6,40000,80\n";
  uint64_t skipped = 0;
  std::vector<uint32_t> payload;
  const packet_trace t = read_packet_trace(source(dir.path / "p.csv", trace_format::packets), skipped, &payload);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].time_ps, 500'000u);
  EXPECT_EQ(t[1].time_ps, 1'000'001u);
  EXPECT_EQ(t[1].src, 3u);
  EXPECT_EQ(t[1].dst, 0u);
  EXPECT_EQ(t[0].ip_id, 1);
  EXPECT_EQ(t[0].ecn, 1);
  EXPECT_EQ(t[2].protocol, 6);
  EXPECT_EQ(payload, (std::vector<uint32_t>{1000, 0, 1460}));

  std::ofstream(dir.path / "f.csv") << "time_us,src,dst,size_bytes,src_port\n0,0,1,100000\n12.25,10.0.0.7,2,5000,51234\n";
  const std::vector<flow_spec> f = read_trace_flows(source(dir.path / "f.csv", trace_format::flows), skipped);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].size_bytes, 100000u);
  EXPECT_EQ(f[0].src_port, 0);
  EXPECT_EQ(f[1].start_ps, 12'250'000u);
  EXPECT_EQ(f[1].src, 7u);
  EXPECT_EQ(f[1].src_port, 51234);
}

TEST(TraceReader, BadPcapsNamedByFileAndPacket) {
  temp_dir dir("trace-bad");
  uint64_t skipped = 0;
  const auto read = [&](const fs::path& p, uint32_t hosts = 8) {
    return error_of([&] { read_packet_trace(source(p, trace_format::pcap, hosts), skipped); });
  };
  std::ofstream(dir.path / "text.pcap") << "time_us,src,dst\n0,1,2\n";
  std::string e = read(dir.path / "text.pcap");
  EXPECT_NE(e.find((dir.path / "text.pcap").string() + ": not a readable pcap file"), std::string::npos) << e;

  const std::vector<frame> good = {ipv4_frame(t0, host_ip(0), host_ip(1), 6, 1, 2, 1000),
                                   ipv4_frame(t0 + 5, host_ip(0), host_ip(1), 6, 1, 2, 1000)};
  write_pcap(dir.path / "cut.pcap", good);
  fs::resize_file(dir.path / "cut.pcap", fs::file_size(dir.path / "cut.pcap") - 100);   // the second packet cut
  e = read(dir.path / "cut.pcap");
  EXPECT_NE(e.find("cut.pcap: packet 2: "), std::string::npos) << e;
  EXPECT_NE(e.find("truncated"), std::string::npos) << e;

  write_pcap(dir.path / "foreign.pcap", {good[0], ipv4_frame(t0 + 9, 0xC0A80001, host_ip(1), 17, 1, 2, 10)});
  e = read(dir.path / "foreign.pcap");
  EXPECT_NE(e.find("foreign.pcap: packet 2: address 192.168.0.1 maps to no host"), std::string::npos) << e;

  write_pcap(dir.path / "big.pcap", {ipv4_frame(t0, host_ip(0), host_ip(99), 6, 1, 2, 10)});
  e = read(dir.path / "big.pcap");
  EXPECT_NE(e.find("big.pcap: packet 1: address 10.0.0.99 is host 99, but the topology has hosts 0..7"), std::string::npos) << e;

  write_pcap(dir.path / "back.pcap", {good[0], good[1], ipv4_frame(t0 + 2, host_ip(0), host_ip(1), 6, 1, 2, 10)});
  e = read(dir.path / "back.pcap");
  EXPECT_NE(e.find("back.pcap: packet 3: its time stamp goes 3 ns backwards"), std::string::npos) << e;

  write_pcap(dir.path / "raw.pcap", good, true, DLT_RAW);
  e = read(dir.path / "raw.pcap");
  EXPECT_NE(e.find("raw.pcap: link type RAW is not Ethernet"), std::string::npos) << e;

  frame shortf = good[0];
  shortf.bytes.resize(30);   // captured (and sent) cut inside the IPv4 header
  write_pcap(dir.path / "short.pcap", {shortf});
  e = read(dir.path / "short.pcap");
  EXPECT_NE(e.find("short.pcap: packet 1: IPv4 header cut short"), std::string::npos) << e;
}

TEST(TraceReader, BadListsNamedByFileAndLine) {
  temp_dir dir("trace-badlist");
  uint64_t skipped = 0;
  const auto flows = [&](const std::string& text) {
    std::ofstream(dir.path / "f.csv") << text;
    return error_of([&] { read_trace_flows(source(dir.path / "f.csv", trace_format::flows), skipped); });
  };
  const std::string f = (dir.path / "f.csv").string();
  EXPECT_EQ(flows("0,0,1,10\n"), "");
  EXPECT_EQ(flows("5,0,1,10\n4.9,1,0,10\n"), f + ":2: time 4.9 us goes backwards (the line before is at 5.000000 us)");
  EXPECT_EQ(flows("0,0,8,10\n"), f + ":1: host 8 does not exist (hosts are 0..7)");
  EXPECT_EQ(flows("# c\n0,0,172.16.0.1,10\n"), f + ":2: address 172.16.0.1 maps to no host (not in traffic.trace_hosts, not in 10.0.0.0/8)");
  EXPECT_EQ(flows("0,0,1\n"), f + ":1: 3 fields, expected time_us,src,dst,size_bytes[,src_port]");
  EXPECT_EQ(flows("0.0000001,0,1,10\n"), f + ":1: time '0.0000001' is not microseconds with at most six decimals");
  EXPECT_EQ(flows("0,2,2,10\n"), f + ":1: source and destination are both host 2");
  EXPECT_EQ(flows("0,0,1,0\n"), f + ":1: a flow of 0 bytes");
  std::ofstream(dir.path / "p.csv") << "0,0,1,1062,1,5,6\n";
  EXPECT_EQ(error_of([&] { read_packet_trace(source(dir.path / "p.csv", trace_format::packets), skipped); }),
            (dir.path / "p.csv").string() + ":1: protocol 1 is neither TCP (6) nor UDP (17)");
  std::ofstream(dir.path / "p.csv") << "0,0,1,63\n";
  EXPECT_EQ(error_of([&] { read_packet_trace(source(dir.path / "p.csv", trace_format::packets), skipped); }),
            (dir.path / "p.csv").string() + ":1: a frame of 63 bytes is below the 64-byte minimum");
  EXPECT_NE(error_of([&] { read_trace_flows(source(dir.path / "none.csv", trace_format::flows), skipped); }).find("cannot open"),
            std::string::npos);
}

TEST(TraceReader, FormatFromTheFileName) {
  EXPECT_EQ(parse_trace_format("auto", "a/b.pcap"), trace_format::pcap);
  EXPECT_EQ(parse_trace_format("auto", "b.pcapng"), trace_format::pcap);
  EXPECT_EQ(parse_trace_format("flows", "b.pcap"), trace_format::flows);
  EXPECT_EQ(parse_trace_format("packets", "b.csv"), trace_format::packets);
  EXPECT_THROW(parse_trace_format("auto", "b.csv"), config_error);
}
