// The INT record a switch writes for HPCC (thesis Sec. 2.3.1: B, TS, txBytes, qLen per hop)
// against what is known outside the switch. Three 100G senders push frames of random sizes into
// one 100G output, so its queue builds and drains; a sink on that output keeps every frame.
//  - txBytes: the bytes the sink received before the frame (the port's byte counter), /128.
//  - TS: the frame's first bit on the output wire, from its arrival at the sink, in ns.
//  - qLen: the frames behind it in the queue when it was dequeued, from the arrivals scheduled
//    here: those that reached the traffic manager before the dequeue and leave after the frame.
//    The dequeue is within one clock period before start - egress latency, and an enqueue within
//    the parser's FIFO of the link's delivery, so a frame near either edge may or may not count;
//    each record must lie between the two counts, and most have no such frame.
//  - B: 5 (100G); path ID: the switch ID; one hop.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <vector>

#include "common/rng.h"
#include "harness.h"
#include "switch/switch.h"
#include "tlm/link.h"
#include "tlm/regbus.h"

using namespace netasic;

namespace {

struct sink : sc_core::sc_module, pkt_receiver {
  pkt_tx_port tx;
  pkt_rx_port rx() { return {this, 0}; }
  struct got { uint64_t at_ps; uint32_t frame; int_stack intx; const packet* p; };
  std::vector<got> frames;
  explicit sink(sc_core::sc_module_name n) : sc_core::sc_module(n) {}
  void pkt_receive(unsigned, packet& p, uint64_t now) override { frames.push_back({now, p.frame_bytes(), p.intx, &p}); }
};

struct sent { const packet* p; uint64_t enq_lo, enq_hi; };

}  // namespace

TEST(Int, RecordsMatchTheSwitchsQueueAndByteCounter) {
  constexpr uint64_t g100 = 100'000'000'000ull, T = 1000, delay = 500'000;   // ps
  constexpr unsigned inputs = 3, out_port = 3, frames_per_input = 150, switch_id = 0x5A7;
  switch_config cfg;
  cfg.tm.buffer_bytes = 8 << 20;
  run_stats stats;
  event_queue events("events");
  switch_model sw("sw", switch_id, std::vector<uint64_t>(4, g100), 4, cfg, stats, events);
  std::deque<sink> ends;
  std::vector<std::unique_ptr<packet_link>> links;
  const link_timing to_switch{g100, delay, T, cfg.ingress_ps()}, to_host{g100, delay, 1};
  uint64_t hops = 0;
  for (unsigned p = 0; p < 4; ++p) {
    ends.emplace_back(sc_core::sc_module_name(("end" + std::to_string(p)).c_str()));
    links.push_back(std::make_unique<packet_link>(to_host, to_switch, events));
    connect(sw.tx(p), links[p]->a_to_b, ends[p].rx());
    connect(ends[p].tx, links[p]->b_to_a, sw.rx(p));
    links[p]->a_to_b.hop_counter = links[p]->b_to_a.hop_counter = &hops;
  }
  struct driver : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<reg_driver> out{"out"};
    explicit driver(sc_core::sc_module_name n) : sc_core::sc_module(n) {}
  } drv("drv");
  regbus bus("bus");
  drv.out.bind(bus.in);
  const unsigned dev = bus.attach(sw.csr);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  reg_driver regs(drv.out);
  regs.write32(regbus::address(dev, route_table::reg_member), out_port);
  regs.write32(regbus::address(dev, route_table::reg_route + 4 * out_port), (0u << 16) | 1);

  // Random sizes and gaps: together the inputs offer about 1.9x the output's rate.
  rng r(7);
  std::vector<packet> pkts(inputs * frames_per_input);
  std::vector<sent> log;
  for (unsigned i = 0; i < inputs; ++i) {
    uint64_t t = 0;
    for (unsigned k = 0; k < frames_per_input; ++k) {
      packet& p = pkts[i * frames_per_input + k];
      p.int_enabled = true;
      p.payload_bytes = uint32_t(64 + r.below(1437));
      p.ip.dst = out_port;
      p.flow = i;
      p.seq = k;
      if (r.below(8) == 0) t += r.below(10) * to_switch.occupancy_ps(1100);   // idle now and then
      const uint64_t lo = to_switch.delivery_ps(t, p.frame_bytes());
      log.push_back({&p, lo, lo + inputs * T});   // behind at most the other inputs at the parser
      t = ends[i].tx.send(p, t);
    }
  }
  sc_core::sc_start();

  const auto& got = ends[out_port].frames;
  ASSERT_EQ(got.size(), pkts.size());
  uint64_t tx_before = 0, exact = 0, max_qlen = 0;
  for (size_t k = 0; k < got.size(); ++k) {
    const int_stack& s = got[k].intx;
    ASSERT_EQ(s.n_hop, 1u);
    EXPECT_EQ(s.path_id, switch_id);
    EXPECT_EQ(s.hop[0].b, 5u);   // 100G
    const uint64_t start = got[k].at_ps - to_host.arrival_after_ps(got[k].frame);
    EXPECT_EQ(s.hop[0].ts, (start / 1000) % (1u << 24)) << "frame " << k;
    EXPECT_EQ(s.hop[0].tx_bytes, (tx_before / 128) % (1u << 20)) << "frame " << k;
    tx_before += got[k].frame;
    // The frames still queued behind frame k at its dequeue, in [start - egress - T, start - egress].
    const uint64_t deq_hi = start - cfg.egress_ps(), deq_lo = deq_hi - T;
    uint64_t lo = 0, hi = 0;
    for (size_t j = k + 1; j < got.size(); ++j) {
      const sent& e = *std::find_if(log.begin(), log.end(), [&](const sent& x) { return x.p == got[j].p; });
      if (e.enq_hi <= deq_lo) lo += got[j].frame;
      if (e.enq_lo <= deq_hi) hi += got[j].frame;
    }
    EXPECT_GE(s.hop[0].qlen, lo / 80) << "frame " << k << ": " << lo << ".." << hi << " B behind";
    EXPECT_LE(s.hop[0].qlen, hi / 80) << "frame " << k << ": " << lo << ".." << hi << " B behind";
    if (lo / 80 == hi / 80) ++exact;
    max_qlen = std::max<uint64_t>(max_qlen, s.hop[0].qlen);
  }
  EXPECT_EQ(tx_before, sw.tx_bytes(out_port));
  EXPECT_GT(max_qlen * 80, 50'000u);   // the queue did build: the check is not of an empty port
  EXPECT_GT(exact, got.size() * 3 / 4);   // most records are pinned to one value
  RecordProperty("exact_qlen_records", std::to_string(exact));
  RecordProperty("max_qlen_bytes", std::to_string(max_qlen * 80));
}
