// The fabric's event queue running ahead of the kernel (sim.run_ahead, tlm/event_queue.h) serves
// the same wake-ups in the same order as one kernel notification per distinct time: every output
// of a run is the same, byte for byte, but the count of kernel notifications. The control is
// that count itself: without running ahead it must be far larger, or nothing ran ahead.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "run_cli.h"

namespace {

void expect_same_run(const std::string& name, const std::string& scenario, const std::string& sets) {
  const auto dir = scratch("RunAhead", name);
  for (const char* mode : {"true", "false"}) {
    const outcome o = netasic_cli("run " + std::string(NETASIC_SOURCE_DIR) + "/" + scenario + " --quiet " + sets +
                                  " --set sim.run_ahead=" + mode + " --out " + (dir / mode).string());
    ASSERT_EQ(o.code, 0) << o.output;
  }
  for (const char* file : {"flows.csv", "links.csv", "probes.csv"})
    EXPECT_EQ(slurp(dir / "true" / file), slurp(dir / "false" / file)) << file;
  nlohmann::json ahead = nlohmann::json::parse(slurp(dir / "true" / "summary.json"));
  nlohmann::json stepped = nlohmann::json::parse(slurp(dir / "false" / "summary.json"));
  const auto notified_ahead = ahead["events"]["kernel_notifications"].get<uint64_t>();
  const auto notified_stepped = stepped["events"]["kernel_notifications"].get<uint64_t>();
  EXPECT_LT(notified_ahead * 100, notified_stepped);
  // The rest of the summary, but what measures the machine.
  for (nlohmann::json* s : {&ahead, &stepped}) {
    (*s)["events"].erase("kernel_notifications");
    for (const char* k : {"wall_time_s", "packet_hops_per_s", "peak_memory_bytes", "memory"}) s->erase(k);
  }
  EXPECT_EQ(ahead.dump(1), stepped.dump(1));
}

}  // namespace

// Ends at the run's end, with frames in flight: nothing at or past it may be served.
TEST(RunAhead, LeafSpineToAFixedEndGivesTheSameRun) {
  // Probes every 7 us: no sample falls on the end, so only the end bounds the last stretch (the
  // kernel's own end of sc_start, and the queue's cap at the same time).
  expect_same_run("ls128", "bench/ls128.toml", "--set sim.duration=300 --set sim.probe_interval=7");
}

// Ends when the last flow completes (inside a stretch the queue serves ahead): the run must
// stop at that time, not at the end of the stretch.
TEST(RunAhead, FatTreeThatStopsAtItsLastFlowGivesTheSameRun) {
  expect_same_run("fat_tree", "scenarios/fat_tree_k8.toml", "--set sim.duration=200");
}
