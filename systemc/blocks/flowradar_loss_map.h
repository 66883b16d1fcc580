// FlowRadar's per-flow loss map and black-hole detection (core, no SystemC): Li's thesis
// §4.6.2 (loss map) and §4.6.1 (blackholes), on what the collector decoded.
//
// Packets in flight across an epoch boundary (§4.6.2): a packet counted upstream at the end of
// epoch i is counted downstream in epoch i + 1, so a per-epoch difference is not a loss. As the
// thesis does, counters are compared per *flowlet*: a run of epochs in which the flow was seen
// somewhere, closed by an epoch in which it was seen nowhere. Over a closed flowlet every packet
// counted upstream has either been counted downstream or been lost (a packet takes far less
// than an epoch to cross a hop), so sum(U) - sum(D) is the segment's loss, exactly. A flowlet
// still running when the run ended is `open` (finished only if nothing was in flight then).
//
// "Switch" below is any place that keeps a flowset: a switch, or a host NIC when hosts count too
// (the thesis's "switches (or hosts)"). A flow's first hop is the first place that counts it (its
// source host, else the edge switch it hangs off), its last hop the last (its destination host,
// else that host's edge switch): nothing counts before the first or after the last.
//
// The flow's path is read from the decoded records, as §4.6.1 does: the switches that saw the
// flowlet, walked from its first hop over the topology's links. A path that ends before its
// last hop has *stopped*: every packet counted at its last switch was lost after it (a black
// hole candidate; its next hop is unknown, down = -1).
//
// Nothing is called lossless that was not proven so: a flowlet where the flow may be at a switch
// without being decoded there (an incomplete decode whose flow filter holds the flow), or whose
// path cannot be walked, is `undecoded`; a segment with a switch that decoded the flow but not
// its counter is `undecoded` too.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

namespace netasic {

// What the collector decoded of one flow over the run: (epoch, switch) -> its PacketCount, or
// no_count where the flow was decoded but its counter was not.
struct flowradar_loss_flow {
  static constexpr uint64_t no_count = ~uint64_t(0);
  unsigned first_hop = 0, last_hop = 0;                 // the first and last switch that count it
  std::map<std::pair<uint64_t, unsigned>, uint64_t> decoded;
};

struct flowradar_loss_net {
  std::vector<std::vector<unsigned>> neighbours;        // switch -> switches it links to
  uint64_t epochs = 0;                                  // epochs [0, epochs) were exported
  bool drained = true;                                  // nothing in flight at the end: the last flowlets closed
  // Whether `flow` may have been at `sw` in `epoch` without being decoded there (the decode
  // there was incomplete and the flow filter holds the flow). Never asked where it was decoded.
  std::function<bool(unsigned flow, unsigned sw, uint64_t epoch)> maybe_there;
};

// looped: some switch counted more of the flowlet than its first hop did, so packets
// were counted twice (a loop, see flowradar_loop) and differences of counts are not losses.
enum class flowradar_loss_status : uint8_t { lossless, lost, undecoded, open, looped };
const char* flowradar_loss_status_name(flowradar_loss_status s);

// One segment of one flowlet (up = down = -1: the whole flowlet, undecoded or open).
struct flowradar_loss_segment {
  unsigned flow = 0;
  uint64_t first_epoch = 0, last_epoch = 0;             // the flowlet; reported once last_epoch + 1 is exported
  int up = -1, down = -1;                               // down = -1 with up >= 0: the path stopped at up
  flowradar_loss_status status = flowradar_loss_status::undecoded;
  uint64_t up_packets = 0, down_packets = 0, lost = 0;  // lost = up - down (stopped: up)
};

// A black hole seen in one slot (§4.6.1): the flow's switches in epochs e and e + 1 (a packet
// counted at `sw` late in e reaches the next hop by e + 1) walk from its first hop to `sw`, not
// its last hop, and no neighbour of `sw` may hold it undecoded. Every packet
// counted at `sw` in e was lost after it. Reported once e + 1 is exported.
struct flowradar_stop {
  unsigned flow = 0;
  uint64_t epoch = 0;
  unsigned sw = 0;
  uint64_t packets = 0;                                 // counted at sw in epoch (no_count: not counted)
};
std::vector<flowradar_stop> flowradar_stops(const std::vector<flowradar_loss_flow>& flows, const flowradar_loss_net& net);

// A routing loop seen in one slot (§4.6.1): switches that counted more of a flow than entered the
// fabric. A packet counted anywhere in epoch e was counted at its first hop in e - 1 or e (it
// crosses the fabric, loops included, in far less than an epoch), so without a loop no switch
// counts more of a flow in e than its first hop did over e - 1 and e; one that does counted
// packets more than once. The thesis suspects a loop where the flow's switches form a cycle and
// confirms it with this comparison (a hop off the cycle against one on it). A loop between two
// switches, S1 -> S2 -> S1 as in the thesis's own test, forms no cycle among the switches, so
// the comparison alone is the test here. Reported once e is exported; needs the flow counted
// at its first hop in e and, in e - 1, counted there or surely absent. A loop through the first
// hop itself (an edge switch) inflates the reference too and may hide; a host's count cannot.
struct flowradar_loop {
  unsigned flow = 0;
  uint64_t epoch = 0;
  uint64_t entered = 0;                                 // counted at its first hop over e - 1 and e
  std::vector<std::pair<unsigned, uint64_t>> over;      // the switches that counted more, and their counts
};
std::vector<flowradar_loop> flowradar_loops(const std::vector<flowradar_loss_flow>& flows, const flowradar_loss_net& net);

// Every flowlet's segments, flow by flow, in epoch order.
std::vector<flowradar_loss_segment> flowradar_loss_map(const std::vector<flowradar_loss_flow>& flows,
                                                       const flowradar_loss_net& net);

}  // namespace netasic
