// pcap out (--pcap) and trace in (traffic.trace) from the command line: bad port names, flow
// lists and captures driving a run, bad traces refused before it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "run_cli.h"

TEST(Pcap, UnknownPortsAreRefusedBeforeRunning) {
  const std::filesystem::path dir = scratch("pcap", "bad");
  std::ofstream(dir / "s.toml") << "[topology]\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\n";
  outcome o = netasic_cli("run " + (dir / "s.toml").string() + " --quiet --out " + (dir / "out").string() + " --pcap sw3:2");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("--pcap: 'sw3:2' names no node of the topology (nodes: leaf0..leaf1, spine0..spine1, host0..host3)"),
            std::string::npos) << o.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
  o = netasic_cli("run " + (dir / "s.toml").string() + " --quiet --out " + (dir / "out").string() + " --pcap host1,leaf0:4");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("--pcap: 'leaf0:4': leaf0 has ports 0..3 (or * for all)"), std::string::npos) << o.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}

// A flow list drives the transport: the run's flows are the listed ones, at their times.
TEST(TraceIn, FlowListDrivesTheRun) {
  const std::filesystem::path dir = scratch("trace", "flows");
  std::filesystem::create_directories(dir / "traces");
  std::ofstream(dir / "traces" / "f.csv") << "time_us,src,dst,size_bytes,src_port\n0,0,3,30000\n2.5,10.0.0.2,1,5000,50001\n"
                                             "7,192.168.0.9,0,1000\n";
  std::ofstream(dir / "s.toml") << "[topology]\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\n"
                                   "[traffic]\npattern = \"list\"\ntrace = \"traces/f.csv\"\ntrace_format = \"flows\"\n"
                                   "trace_hosts = [\"192.168.0.9=3\"]\n[sim]\nduration = 20\n";
  const outcome o = netasic_cli("run " + (dir / "s.toml").string() + " --quiet --out " + (dir / "out").string());
  ASSERT_EQ(o.code, 0) << o.output;
  const std::string flows = slurp(dir / "out" / "flows.csv");
  // id,src,dst,size_bytes,start_us,...
  EXPECT_NE(flows.find("\n0,0,3,30000,0.000000,"), std::string::npos) << flows;
  EXPECT_NE(flows.find("\n1,2,1,5000,2.500000,"), std::string::npos) << flows;
  EXPECT_NE(flows.find("\n2,3,0,1000,7.000000,"), std::string::npos) << flows;
  const auto s = nlohmann::json::parse(slurp(dir / "out" / "summary.json"));
  EXPECT_EQ(s["flows"]["completed"].get<uint64_t>(), 3u);
  // The resolved configuration names the trace by its absolute path: it reruns from anywhere.
  EXPECT_NE(slurp(dir / "out" / "config.toml").find((dir / "traces" / "f.csv").string()), std::string::npos);
  // Control: the same scenario with a listed flow instead of the trace runs other flows.
  const outcome other = netasic_cli("run " + (dir / "s.toml").string() + " --quiet --out " + (dir / "out2").string() +
                                " --set traffic.trace= --set traffic.trace_format=auto --set 'traffic.trace_hosts=[]'"
                                " --set 'traffic.flows=[\"0->1 1000@0\"]'");
  ASSERT_EQ(other.code, 0) << other.output;
  EXPECT_EQ(slurp(dir / "out2" / "flows.csv").find("\n0,0,3,30000,0.000000,"), std::string::npos);
}

// A capture of one run, read back as the next run's traffic: its flows come back as they were.
TEST(TraceIn, PcapOfARunReplaysItsFlows) {
  const std::filesystem::path dir = scratch("trace", "pcap");
  std::ofstream(dir / "a.toml") << "[topology]\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\n"
                                   "[traffic]\npattern = \"list\"\nflows = [\"0->3 30000@0\", \"0->2 12345@4\", \"1->0 9000@1\"]\n"
                                   "[sim]\nduration = 20\n";
  outcome o = netasic_cli("run " + (dir / "a.toml").string() + " --quiet --out " + (dir / "a").string() + " --pcap host0:0");
  ASSERT_EQ(o.code, 0) << o.output;
  ASSERT_EQ(nlohmann::json::parse(slurp(dir / "a" / "summary.json"))["flows"]["retransmitted_packets"].get<uint64_t>(), 0u);
  std::ofstream(dir / "b.toml") << "[topology]\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\n"
                                   "[traffic]\npattern = \"list\"\ntrace = \"a/pcap/host0.p0.tx.pcap\"\n[sim]\nduration = 20\n";
  o = netasic_cli("run " + (dir / "b.toml").string() + " --quiet --out " + (dir / "b").string());
  ASSERT_EQ(o.code, 0) << o.output;
  // host0 sent two flows (its ACKs for 1->0 carry no payload: no flow); sizes exact, the first at 0.
  const std::string flows = slurp(dir / "b" / "flows.csv");
  EXPECT_NE(flows.find("\n0,0,3,30000,0.000000,"), std::string::npos) << flows;
  EXPECT_NE(flows.find("\n1,0,2,12345,"), std::string::npos) << flows;
  EXPECT_EQ(std::count(flows.begin(), flows.end(), '\n'), 3) << flows;
}

TEST(TraceIn, BadTraceRefusedBeforeRunning) {
  const std::filesystem::path dir = scratch("trace", "bad");
  std::ofstream(dir / "t.pcap") << "not a capture";
  std::ofstream(dir / "s.toml") << "[topology]\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\n"
                                   "[traffic]\npattern = \"list\"\ntrace = \"t.pcap\"\n";
  const outcome o = netasic_cli("run " + (dir / "s.toml").string() + " --quiet --out " + (dir / "out").string());
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("s.toml:7: key 'traffic.trace': " + (dir / "t.pcap").string() + ": not a readable pcap file"),
            std::string::npos) << o.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}
