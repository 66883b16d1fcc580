// DETER record and replay end to end, by the command line (a record run and its replays are
// separate processes, as the kernel runs once per process): the testbed scenario with a fixed
// window (no congestion control), so the shared buffer overflows and drops.
//  - th = 0 and no clock error: every packet finds the same queue at every hop in the replay as in
//    the run (qdiff 0 on every packet, same drops at the same switch). Controls: a 5 us clock
//    error, or a record sampled at th = 5 us, must break that.
//  - The receivers' IP_ID gaps find exactly the drops the switches made.
//  - The drop rule: no untagged frame dropped, and less drop error than plain admission.
//  - Bad input: a replay of another topology, and a truncated record, refused with the key / file.
#include <gtest/gtest.h>

#include <filesystem>
#include <cstring>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "run_cli.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string scenario = std::string(NETASIC_SOURCE_DIR) + "/scenarios/deter/testbed.toml";
// Shorter flows, no congestion control: the queue overflows within milliseconds.
const std::string lossy = " --set cc.algorithm=none --set nic.window=64 --set 'traffic.flows=[\"0->2 2000000@0\", "
                          "\"0->2 2000000@0\", \"1->2 2000000@0\", \"1->2 2000000@0\", \"0->2 10000@0+500x4\", \"1->2 10000@0+500x4\"]'"
                          " --set sim.duration=2000";

json run(const fs::path& out, const std::string& sets) {
  const outcome o = netasic_cli("run " + scenario + " --quiet --out " + out.string() + lossy + sets);
  EXPECT_EQ(o.code, 0) << o.output;
  return json::parse(slurp(out / "summary.json"));
}

json replay(const fs::path& out, const fs::path& record, const std::string& sets) {
  return run(out, " --set deter.mode=replay --set deter.record=" + (record / "deter.rec").string() + sets)["deter"];
}

bool exact(const json& d, const json& record) {
  return d["qdiff_max_mtu"].get<double>() == 0 && d["hops_run_only"] == 0 && d["hops_replay_only"] == 0 &&
         d["hops_matched"] == record["deter"]["queue_log_hops"] && d["drop_error"].get<double>() == 0;
}

TEST(Deter, ReplayOfAnExactRecordReproducesEveryQueue) {
  const fs::path d = scratch("Deter", "exact");
  const json rec = run(d / "record", " --set deter.th=0");
  ASSERT_GT(rec["packets"]["dropped"].get<uint64_t>(), 0u);   // the buffer overflowed
  // The receivers' IP_ID gaps found every drop the switches made, and no other.
  EXPECT_EQ(rec["deter"]["drops_detected"], rec["packets"]["dropped"]);
  EXPECT_TRUE(exact(replay(d / "replay", d / "record", ""), rec));
  // Controls: host clocks off by up to 5 us, or sending times sampled at th = 5 us.
  const json skewed = replay(d / "skewed", d / "record", " --set deter.clock_error=5");
  EXPECT_FALSE(exact(skewed, rec));
  EXPECT_GT(skewed["qdiff_avg_mtu"].get<double>(), 0);
  const json rec5 = run(d / "record5", " --set deter.th=5");
  EXPECT_LT(rec5["deter"]["samples"].get<uint64_t>(), rec["deter"]["samples"].get<uint64_t>());
  EXPECT_FALSE(exact(replay(d / "sampled", d / "record5", ""), rec5));
}

TEST(Deter, DropRuleDropsNoUntaggedFrameAndCutsDropError) {
  const fs::path d = scratch("Deter", "drop_rule");
  run(d / "record", " --set deter.th=5");
  const json with = replay(d / "with", d / "record", " --set deter.clock_error=5");
  const json without = replay(d / "without", d / "record", " --set deter.clock_error=5 --set deter.drop_rule=false");
  EXPECT_EQ(with["false_drops"], 0);   // a frame the run delivered is never dropped
  EXPECT_GT(without["false_drops"].get<uint64_t>(), 0u);
  EXPECT_LT(with["drop_error"].get<double>(), without["drop_error"].get<double>());
}

TEST(Deter, RefusesAnotherTopologyAndATruncatedRecord) {
  const fs::path d = scratch("Deter", "bad");
  run(d / "record", "");
  const std::string rec = (d / "record" / "deter.rec").string();
  outcome o = netasic_cli("run " + scenario + " --quiet --out " + (d / "x").string() + lossy +
                      " --set deter.mode=replay --set deter.record=" + rec + " --set switch.buffer=512");
  EXPECT_NE(o.code, 0);
  EXPECT_NE(o.output.find("switch.buffer"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find(rec), std::string::npos) << o.output;
  const std::string whole = slurp(rec);
  const fs::path cut = d / "cut.rec";
  std::ofstream(cut, std::ios::binary) << whole.substr(0, whole.size() / 2);
  o = netasic_cli("run " + scenario + " --quiet --out " + (d / "y").string() + lossy + " --set deter.mode=replay --set deter.record=" + cut.string());
  EXPECT_NE(o.code, 0);
  EXPECT_NE(o.output.find(cut.string() + ": truncated"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("deter.record"), std::string::npos) << o.output;
  // A queue log of an older netasic (NETASIC-DETERQ1, before the time field) beside the record.
  const fs::path old = d / "old";
  fs::create_directories(old);
  fs::copy_file(rec, old / "deter.rec");
  std::string log = slurp(d / "record" / "deter_queues.bin");
  log.replace(0, 16, "NETASIC-DETERQ1\n");
  std::ofstream(old / "deter_queues.bin", std::ios::binary) << log;
  o = netasic_cli("run " + scenario + " --quiet --out " + (d / "z").string() + lossy +
                  " --set deter.mode=replay --set deter.record=" + (old / "deter.rec").string());
  EXPECT_NE(o.code, 0);
  EXPECT_NE(o.output.find((old / "deter_queues.bin").string() + ": a DETER queue log of an older netasic"),
            std::string::npos) << o.output;
  EXPECT_NE(o.output.find("deter.record"), std::string::npos) << o.output;
  EXPECT_FALSE(fs::exists(d / "z")) << "refused only after the replay ran";
}

// Flowcut's NIC form gives a flow a new source port at each flowcut, so one connection would
// show as several 5-tuples, each numbered from a later IP_ID: refused before recording, where
// the recorder stopped the run at the first flowcut.
TEST(Deter, RecordRefusesFlowcutsNicForm) {
  const fs::path d = scratch("Deter", "flowcut");
  const outcome o = netasic_cli("run " + scenario + " --quiet --out " + (d / "x").string() + lossy + " --set flowcut.form=nic");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("key 'flowcut.form': is \"nic\""), std::string::npos) << o.output;
  EXPECT_FALSE(fs::exists(d / "x"));
}

// Two flows whose frames would share a 5-tuple (ports a trace gives; the model's own never do):
// 0 -> 2 and 2 -> 0 on one UDP port, where a RoCE ACK of one carries the other's 5-tuple. Refused
// before recording, where the recorder stopped the run; distinct ports (the control) record.
TEST(Deter, RecordRefusesTwoFlowsOnOneFiveTuple) {
  const fs::path d = scratch("Deter", "tuple");
  auto record_with = [&](const std::string& name, const std::string& rows) {
    std::ofstream(d / (name + ".flows")) << "# time_us,src,dst,size_bytes,src_port\n" << rows;
    return netasic_cli("run " + scenario + " --quiet --out " + (d / name).string() + " --set 'traffic.flows=[]' --set traffic.trace=" +
                       (d / (name + ".flows")).string() + " --set traffic.trace_format=flows --set sim.duration=100");
  };
  outcome o = record_with("same", "0,0,2,100000,50000\n0,2,0,100000,50000\n");
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("key 'deter.mode': is \"record\", but flows 0 (0 -> 2) and 1 (2 -> 0) both have source port 50000"),
            std::string::npos) << o.output;
  EXPECT_FALSE(fs::exists(d / "same"));
  o = record_with("distinct", "0,0,2,100000,50000\n0,2,0,100000,50001\n");
  EXPECT_EQ(o.code, 0) << o.output;
}

// Each entry of the queue log carries the time the packet met the queue: the switch sees packets
// in time order, so the times never go back, and they end within the run.
TEST(Deter, TheQueueLogIsStampedInTimeOrder) {
  const fs::path d = scratch("Deter", "times");
  const json rec = run(d / "record", "");
  const std::string log = slurp(d / "record" / "deter_queues.bin");
  ASSERT_EQ(log.compare(0, 16, "NETASIC-DETERQ2\n"), 0);
  uint64_t n = 0;
  std::memcpy(&n, log.data() + 16, 8);
  ASSERT_EQ(log.size(), 24 + 24 * n);
  ASSERT_GT(n, 1000u);
  uint32_t last = 0;
  for (uint64_t i = 0; i < n; ++i) {
    uint32_t t = 0;
    std::memcpy(&t, log.data() + 24 + 24 * i + 20, 4);
    ASSERT_GE(t, last) << "entry " << i;
    last = t;
  }
  EXPECT_GT(last, 100u);   // the flows run for milliseconds
  EXPECT_LE(double(last), rec["sim_time_s"].get<double>() * 1e6);
}

}  // namespace
