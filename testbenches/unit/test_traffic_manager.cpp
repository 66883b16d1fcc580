// The traffic manager core against small golden models, matchlib style: admission by the
// dynamic threshold (Choudhury & Hahne), RED/DCTCP ECN marking at dequeue, strict priority and
// deficit-weighted round robin, and PFC ingress accounting (shared / headroom, XOFF / XON).
// Every expected value is computed here from the documented formulas, never read back from the
// traffic manager itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/rng.h"
#include "switch/traffic_manager.h"

using namespace netasic;

namespace {

// Bytes a data frame carries besides its payload (Ethernet + IPv4 + UDP + BTH + ICRC + FCS).
constexpr uint32_t frame_overhead = eth_header::bytes + ipv4_header::bytes + udp_header::bytes +
                                    rocev2_bth::bytes + rocev2_bth::icrc_bytes + eth_header::fcs_bytes;
constexpr uint32_t min_frame = eth_header::min_frame_bytes;
constexpr uint32_t max_frame = 1500;

// Packets owned by the test. A deque keeps their addresses stable; recycled ones are reused.
class frame_store {
 public:
  // A data frame of exactly `frame` bytes on the wire (frame >= 64).
  packet& make(uint32_t frame, unsigned prio, unsigned in_port = 0, unsigned ecn = 0) {
    packet* p;
    if (!free_.empty()) {
      p = free_.back();
      free_.pop_back();
      *p = packet{};
    } else {
      store_.emplace_back();
      p = &store_.back();
    }
    p->payload_bytes = frame - frame_overhead;
    p->prio = uint8_t(prio);
    p->in_port = uint16_t(in_port);
    p->ip.ecn = uint8_t(ecn & 3);
    EXPECT_EQ(p->frame_bytes(), frame);
    return *p;
  }
  void recycle(packet* p) { free_.push_back(p); }

 private:
  std::deque<packet> store_;
  std::vector<packet*> free_;
};

uint8_t only(unsigned prio) { return uint8_t(~(1u << prio)); }   // paused mask: all but `prio`

uint32_t random_frame(rng& r) { return min_frame + uint32_t(r.below(max_frame - min_frame + 1)); }

const char* name(tm_verdict v) {
  switch (v) {
    case tm_verdict::admitted: return "admitted";
    case tm_verdict::buffer_full: return "buffer_full";
    case tm_verdict::dynamic_threshold: return "dynamic_threshold";
    case tm_verdict::queue_limit: return "queue_limit";
    case tm_verdict::headroom: return "headroom";
  }
  return "?";
}

}  // namespace

// ------------------------------------------------------------------------------------------
// 1. Dynamic-threshold admission (lossy priorities).
// ------------------------------------------------------------------------------------------

namespace {

// Golden model of the lossy buffer: per (port, priority) FIFO of frames, shared bytes in use.
struct lossy_model {
  uint64_t pool = 0, limit = 0, used = 0;
  std::array<double, num_priorities> alpha{};
  std::vector<std::array<std::deque<packet*>, num_priorities>> fifo;
  std::vector<std::array<uint64_t, num_priorities>> qbytes;
  std::vector<uint64_t> total, peak;

  lossy_model(uint64_t pool_, uint64_t limit_, const std::array<double, num_priorities>& a, unsigned ports)
      : pool(pool_), limit(limit_), alpha(a), fifo(ports), qbytes(ports), total(ports, 0), peak(ports, 0) {
    for (auto& q : qbytes) q.fill(0);
  }

  tm_verdict verdict(unsigned out, unsigned prio, uint64_t bytes) const {
    const uint64_t q = qbytes[out][prio];
    const bool static_ok = limit == 0 || q + bytes <= limit;
    const bool pool_ok = used + bytes <= pool;
    if (!static_ok) return tm_verdict::queue_limit;
    if (!pool_ok) return tm_verdict::buffer_full;
    const bool dyn_ok = alpha[prio] == 0 || double(q + bytes) <= alpha[prio] * double(pool - used);
    if (!dyn_ok) return tm_verdict::dynamic_threshold;
    return tm_verdict::admitted;
  }
  void push(unsigned out, packet* p) {
    const uint64_t b = p->frame_bytes();
    fifo[out][p->prio].push_back(p);
    qbytes[out][p->prio] += b;
    used += b;
    total[out] += b;
    peak[out] = std::max(peak[out], total[out]);
  }
  packet* pop(unsigned out, unsigned prio) {
    auto& f = fifo[out][prio];
    if (f.empty()) return nullptr;
    packet* p = f.front();
    f.pop_front();
    const uint64_t b = p->frame_bytes();
    qbytes[out][prio] -= b;
    used -= b;
    total[out] -= b;
    return p;
  }
  uint8_t backlogged(unsigned out) const {
    uint8_t m = 0;
    for (unsigned p = 0; p < num_priorities; ++p)
      if (!fifo[out][p].empty()) m |= uint8_t(1u << p);
    return m;
  }
};

}  // namespace

TEST(TrafficManager, DynamicThresholdAdmissionMatchesFormula) {
  struct trial_cfg {
    uint64_t buffer, limit;
    unsigned ports;
    std::array<double, num_priorities> alpha;
  };
  const std::vector<trial_cfg> trials = {
      {300'000, 0, 4, {0.5, 1, 4, 8, 0, 2, 0.25, 1}},
      {300'000, 40'000, 4, {0.5, 1, 4, 8, 0, 2, 0.25, 1}},
      {60'000, 0, 3, {8, 8, 0.5, 0.5, 1, 4, 0, 16}},
      {120'000, 9'000, 2, {0, 0, 1, 4, 8, 0.5, 0.125, 2}},
      {1'000'000, 0, 6, {1, 1, 1, 1, 1, 1, 1, 1}},
      {500'000, 0, 5, {8, 4, 2, 1, 0.5, 0.25, 8, 0}},
  };
  rng r(11);
  uint64_t seen[5] = {};
  for (size_t t = 0; t < trials.size(); ++t) {
    const trial_cfg& tc = trials[t];
    tm_config cfg;
    cfg.buffer_bytes = tc.buffer;
    cfg.queue_limit_bytes = tc.limit;
    cfg.alpha = tc.alpha;
    cfg.lossless = 0;
    cfg.headroom_bytes.assign(tc.ports, 10'000);   // no lossless priority: reserves nothing
    cfg.strict = 0xff;                             // dequeue(out, only(prio)) pops that queue
    cfg.quantum.fill(1500);
    traffic_manager tm(cfg, tc.ports);
    ASSERT_EQ(tm.shared_pool(), tc.buffer);
    lossy_model m(tc.buffer, tc.limit, tc.alpha, tc.ports);
    frame_store fs;
    double enqueue_share = 0.8;
    for (int op = 0; op < 12000; ++op) {
      if (op % 600 == 0) enqueue_share = 0.25 + 0.7 * r.uniform();   // fill and drain phases
      const unsigned out = unsigned(r.below(tc.ports));
      const unsigned prio = unsigned(r.below(num_priorities));
      if (r.uniform() < enqueue_share) {
        packet& p = fs.make(random_frame(r), prio, unsigned(r.below(tc.ports)));
        const tm_verdict want = m.verdict(out, prio, p.frame_bytes());
        const tm_verdict got = tm.enqueue(p, out);
        ASSERT_EQ(name(got), name(want)) << "trial " << t << " op " << op << " out " << out << " prio "
                                         << prio << " bytes " << p.frame_bytes() << " q "
                                         << m.qbytes[out][prio] << " used " << m.used;
        ++seen[unsigned(want)];
        if (got == tm_verdict::admitted) m.push(out, &p);
        else fs.recycle(&p);
      } else if (r.below(4) == 0) {
        // The whole scheduler (all strict): the highest backlogged priority of `out`.
        const uint8_t b = m.backlogged(out);
        packet* want = nullptr;
        if (b) want = m.pop(out, 31u - unsigned(__builtin_clz(b)));
        packet* got = tm.dequeue(out, 0);
        ASSERT_EQ(got, want) << "trial " << t << " op " << op;
        if (got) fs.recycle(got);
      } else {
        packet* want = m.pop(out, prio);
        packet* got = tm.dequeue(out, only(prio));
        ASSERT_EQ(got, want) << "trial " << t << " op " << op;
        if (got) fs.recycle(got);
      }
      ASSERT_EQ(tm.shared_used(), m.used) << "trial " << t << " op " << op;
      ASSERT_EQ(tm.headroom_used(), 0u);
      ASSERT_EQ(tm.used(), m.used);
      for (unsigned o = 0; o < tc.ports; ++o) {
        ASSERT_EQ(tm.port_bytes(o), m.total[o]) << "trial " << t << " op " << op;
        ASSERT_EQ(tm.peak_bytes(o), m.peak[o]) << "trial " << t << " op " << op;
        ASSERT_EQ(tm.backlogged(o), m.backlogged(o)) << "trial " << t << " op " << op;
        for (unsigned p = 0; p < num_priorities; ++p)
          ASSERT_EQ(tm.queue_bytes(o, p), m.qbytes[o][p]) << "trial " << t << " op " << op;
      }
    }
  }
  // Every verdict a lossy frame can get was exercised, many times.
  for (tm_verdict v : {tm_verdict::admitted, tm_verdict::buffer_full, tm_verdict::dynamic_threshold,
                       tm_verdict::queue_limit})
    EXPECT_GT(seen[unsigned(v)], 200u) << name(v);
}

TEST(TrafficManager, DynamicThresholdSteadyStateIsChoudhuryHahne) {
  // N queues with the same alpha, equally loaded and all kept full, settle where each queue is
  // alpha times the free pool: q = alpha * (B - N q), i.e. q = alpha B / (1 + N alpha).
  constexpr uint64_t B = 1'000'000;
  constexpr uint32_t F = 1000;
  constexpr unsigned ports = 4;
  for (double alpha : {0.25, 0.5, 1.0, 2.0, 4.0, 8.0}) {
    for (unsigned n : {1u, 2u, 3u, 4u, 8u, 16u}) {
      tm_config cfg;
      cfg.buffer_bytes = B;
      cfg.alpha.fill(alpha);
      cfg.strict = 0xff;
      traffic_manager tm(cfg, ports);
      frame_store fs;
      struct qid { unsigned out, prio; };
      std::vector<qid> qs;
      for (unsigned i = 0; i < n; ++i) qs.push_back({i % ports, i / ports});
      const double T = alpha * double(B) / (1.0 + double(n) * alpha);
      // Offer one frame to each queue in turn until a whole round admits nothing.
      auto fill = [&] {
        for (bool any = true; any;) {
          any = false;
          for (const qid& q : qs) {
            packet& p = fs.make(F, q.prio, 0);
            if (tm.enqueue(p, q.out) == tm_verdict::admitted) any = true;
            else fs.recycle(&p);
          }
        }
      };
      auto check = [&](int round) {
        uint64_t sum = 0;
        for (const qid& q : qs) {
          const double qb = double(tm.queue_bytes(q.out, q.prio));
          EXPECT_LE(std::fabs(qb - T), double(F))
              << "alpha " << alpha << " N " << n << " round " << round << " queue " << q.out << "/" << q.prio;
          sum += tm.queue_bytes(q.out, q.prio);
        }
        EXPECT_EQ(tm.shared_used(), sum);
      };
      fill();
      check(-1);
      // Equal service: every queue sends one frame, then the senders refill them all.
      for (int round = 0; round < 200; ++round) {
        for (const qid& q : qs) {
          packet* p = tm.dequeue(q.out, only(q.prio));
          ASSERT_NE(p, nullptr);
          fs.recycle(p);
        }
        fill();
        check(round);
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

// ------------------------------------------------------------------------------------------
// 2. ECN marking at dequeue (RED / DCTCP).
// ------------------------------------------------------------------------------------------

namespace {

// RED marking probability at queue depth q, written out from the header's description.
double red_probability(uint64_t q, uint64_t kmin, uint64_t kmax, double pmax) {
  if (q <= kmin) return 0.0;
  if (kmin == kmax || q > kmax) return 1.0;
  return pmax * double(q - kmin) / double(kmax - kmin);
}

struct mark_run {
  uint64_t marks = 0, dequeues = 0;
};

// Queue `depth` bytes of F-byte ECT frames on port 0, priority `prio`, then n times: dequeue one
// (it sees exactly `depth`, itself included) and enqueue one. Counts the CE marks.
mark_run hold_depth(const tm_config& cfg, unsigned prio, uint64_t depth, uint32_t F, int n) {
  traffic_manager tm(cfg, 2);
  frame_store fs;
  mark_run run;
  for (uint64_t d = 0; d < depth; d += F) {
    EXPECT_EQ(tm.enqueue(fs.make(F, prio, 1, 1), 0), tm_verdict::admitted);
  }
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(tm.queue_bytes(0, prio), depth);
    packet* p = tm.dequeue(0, 0);
    if (!p) {
      ADD_FAILURE() << "empty queue";
      return run;
    }
    ++run.dequeues;
    if (p->ip.ecn == 3) ++run.marks;
    else EXPECT_EQ(p->ip.ecn, 1u);
    p->ip.ecn = 1;
    EXPECT_EQ(tm.enqueue(*p, 0), tm_verdict::admitted);
  }
  EXPECT_EQ(tm.ecn_marked(), run.marks);
  EXPECT_EQ(tm.ecn_marked(0), run.marks);
  EXPECT_EQ(tm.ecn_marked(1), 0u);
  return run;
}

void expect_binomial(uint64_t marks, uint64_t n, double p, const std::string& what) {
  if (p <= 0.0) {
    EXPECT_EQ(marks, 0u) << what;
  } else if (p >= 1.0) {
    EXPECT_EQ(marks, n) << what;
  } else {
    const double mean = double(n) * p, sd = std::sqrt(double(n) * p * (1 - p));
    EXPECT_LE(std::fabs(double(marks) - mean), 4.5 * sd)
        << what << ": " << marks << " marks of " << n << ", expected " << mean << " +- " << sd;
  }
}

}  // namespace

TEST(TrafficManager, EcnMarkingFrequencyFollowsRed) {
  constexpr unsigned prio = 3;
  constexpr uint32_t F = 1000;
  constexpr uint64_t kmin = 20'000, kmax = 80'000;
  constexpr int n = 20000;
  uint64_t seed = 100;
  for (double pmax : {0.2, 0.7, 1.0}) {
    for (uint64_t D : {1'000ull, 10'000ull, 19'000ull, 20'000ull, 21'000ull, 30'000ull, 50'000ull,
                       65'000ull, 79'000ull, 80'000ull, 81'000ull, 100'000ull, 300'000ull}) {
      tm_config cfg;
      cfg.buffer_bytes = 4 << 20;
      cfg.strict = 0xff;
      cfg.alpha.fill(0);
      cfg.ecn[prio] = {true, kmin, kmax, pmax};
      cfg.seed = ++seed;
      const mark_run run = hold_depth(cfg, prio, D, F, n);
      ASSERT_EQ(run.dequeues, uint64_t(n));
      expect_binomial(run.marks, run.dequeues, red_probability(D, kmin, kmax, pmax),
                      "pmax " + std::to_string(pmax) + " depth " + std::to_string(D));
    }
  }
}

TEST(TrafficManager, EcnDctcpStepMarksAboveK) {
  constexpr unsigned prio = 5;
  constexpr uint32_t F = 1000;
  constexpr uint64_t K = 30'000;
  uint64_t seed = 200;
  for (double pmax : {0.1, 1.0}) {   // the step ignores pmax
    for (uint64_t D : {1'000ull, 29'000ull, 30'000ull, 31'000ull, 60'000ull}) {
      tm_config cfg;
      cfg.buffer_bytes = 4 << 20;
      cfg.strict = 0xff;
      cfg.alpha.fill(0);
      cfg.ecn[prio] = {true, K, K, pmax};
      cfg.seed = ++seed;
      const mark_run run = hold_depth(cfg, prio, D, F, 20000);
      expect_binomial(run.marks, run.dequeues, D > K ? 1.0 : 0.0,
                      "DCTCP K " + std::to_string(K) + " depth " + std::to_string(D));
    }
  }
}

TEST(TrafficManager, EcnRandomDepthsAndNonEct) {
  // Random frame sizes and a random walk of the depth on two ports and three priorities: one
  // RED, one DCTCP step, one without ECN. Where the probability is 0 or 1 each frame is checked;
  // in between, the number of marks against the sum of the probabilities. Non-ECT frames (0)
  // are never marked, CE frames (3) stay CE and are not counted again.
  tm_config cfg;
  cfg.buffer_bytes = 8 << 20;
  cfg.strict = 0xff;
  cfg.alpha.fill(0);
  cfg.ecn[2] = {true, 30'000, 90'000, 0.4};
  cfg.ecn[4] = {true, 45'000, 45'000, 0.3};
  cfg.ecn[6] = {false, 1'000, 2'000, 1.0};
  cfg.seed = 7;
  constexpr unsigned ports = 2;
  traffic_manager tm(cfg, ports);
  frame_store fs;
  rng r(13);
  const std::array<unsigned, 3> prios = {2, 4, 6};
  std::array<std::array<std::deque<packet*>, num_priorities>, ports> fifo;
  std::array<std::array<uint64_t, num_priorities>, ports> qb{};
  std::array<uint64_t, ports> marked{};
  double mid_sum = 0, mid_var = 0;
  uint64_t mid_frames = 0, mid_marks = 0, sure = 0, never = 0, non_ect = 0;
  // Each queue drifts toward a target depth that moves every few thousand operations.
  std::array<std::array<uint64_t, num_priorities>, ports> target{};
  for (int op = 0; op < 300000; ++op) {
    if (op % 3000 == 0)
      for (auto& t : target)
        for (auto& d : t) d = r.below(130'000);
    const unsigned out = unsigned(r.below(ports));
    const unsigned prio = prios[r.below(3)];
    if (r.uniform() < (qb[out][prio] < target[out][prio] ? 0.7 : 0.3)) {
      const unsigned ecn = unsigned(r.below(4));   // not-ECT, ECT(1), ECT(0), CE
      packet& p = fs.make(random_frame(r), prio, 0, ecn);
      p.flow = ecn;                                // the test's note of the original code point
      ASSERT_EQ(tm.enqueue(p, out), tm_verdict::admitted);
      fifo[out][prio].push_back(&p);
      qb[out][prio] += p.frame_bytes();
    } else {
      packet* p = tm.dequeue(out, only(prio));
      if (fifo[out][prio].empty()) {
        ASSERT_EQ(p, nullptr);
        continue;
      }
      ASSERT_EQ(p, fifo[out][prio].front());
      fifo[out][prio].pop_front();
      const uint64_t depth = qb[out][prio];   // before removal, itself included
      qb[out][prio] -= p->frame_bytes();
      const unsigned orig = p->flow;
      const ecn_profile& e = cfg.ecn[prio];
      const double prob = e.enabled ? red_probability(depth, e.kmin_bytes, e.kmax_bytes, e.pmax) : 0.0;
      if (orig == 0 || orig == 3) {
        ASSERT_EQ(unsigned(p->ip.ecn), orig) << "non-ECT or CE frame changed, op " << op;
        if (orig == 0 && prob > 0) ++non_ect;
      } else {
        const bool ce = p->ip.ecn == 3;
        if (!ce) {
          ASSERT_EQ(unsigned(p->ip.ecn), orig);
        }
        if (ce) ++marked[out];
        if (prob <= 0.0) {
          ASSERT_FALSE(ce) << "prio " << prio << " depth " << depth << " op " << op;
          ++never;
        } else if (prob >= 1.0) {
          ASSERT_TRUE(ce) << "prio " << prio << " depth " << depth << " op " << op;
          ++sure;
        } else {
          ++mid_frames;
          mid_sum += prob;
          mid_var += prob * (1 - prob);
          mid_marks += ce;
        }
      }
      fs.recycle(p);
    }
    for (unsigned o = 0; o < ports; ++o) ASSERT_EQ(tm.ecn_marked(o), marked[o]) << "op " << op;
    ASSERT_EQ(tm.ecn_marked(), marked[0] + marked[1]);
  }
  // The walk visited all three regions often.
  EXPECT_GT(never, 5000u);
  EXPECT_GT(sure, 5000u);
  EXPECT_GT(mid_frames, 5000u);
  EXPECT_GT(non_ect, 5000u);
  EXPECT_LE(std::fabs(double(mid_marks) - mid_sum), 4.5 * std::sqrt(mid_var))
      << mid_marks << " marks, expected " << mid_sum << " +- " << std::sqrt(mid_var);
}

// ------------------------------------------------------------------------------------------
// 3. Scheduler: strict priority, then deficit-weighted round robin.
// ------------------------------------------------------------------------------------------

TEST(TrafficManager, StrictPrioritiesServedHighestFirst) {
  tm_config cfg;
  cfg.strict = 0xe0;   // 5, 6, 7 strict
  cfg.alpha.fill(0);
  cfg.quantum.fill(1500);
  rng r(21);
  for (int trial = 0; trial < 50; ++trial) {
    traffic_manager tm(cfg, 2);
    frame_store fs;
    std::array<std::deque<packet*>, num_priorities> sent;
    // Arrivals in random priority order, on port 1.
    for (int i = 0; i < 200; ++i) {
      const unsigned prio = unsigned(r.below(num_priorities));
      packet& p = fs.make(random_frame(r), prio);
      ASSERT_EQ(tm.enqueue(p, 1), tm_verdict::admitted);
      sent[prio].push_back(&p);
    }
    EXPECT_EQ(tm.dequeue(0, 0), nullptr);   // the other port has nothing
    // Pausing 7 and 5 leaves 6 first, then the non-strict ones; 7 and 5 wait.
    for (unsigned prio : {6u}) {
      while (!sent[prio].empty()) {
        packet* p = tm.dequeue(1, 0xa0);
        ASSERT_EQ(p, sent[prio].front());
        sent[prio].pop_front();
      }
    }
    packet* p = tm.dequeue(1, 0xa0);
    if (p) {
      ASSERT_LT(p->prio, 5u);   // DWRR, never a paused strict priority
      ASSERT_EQ(p, sent[p->prio].front());
      sent[p->prio].pop_front();
    }
    // Unpaused: 7 then 5 drain completely before any non-strict frame.
    for (unsigned prio : {7u, 5u}) {
      while (!sent[prio].empty()) {
        packet* q = tm.dequeue(1, 0);
        ASSERT_EQ(q, sent[prio].front()) << "trial " << trial;
        sent[prio].pop_front();
      }
    }
    // Everything paused: nothing.
    EXPECT_EQ(tm.dequeue(1, 0xff), nullptr);
    // The rest are non-strict, FIFO within each priority.
    for (;;) {
      packet* q = tm.dequeue(1, 0);
      if (!q) break;
      ASSERT_LT(q->prio, 5u);
      ASSERT_EQ(q, sent[q->prio].front());
      sent[q->prio].pop_front();
    }
    for (auto& s : sent) EXPECT_TRUE(s.empty());
    EXPECT_EQ(tm.backlogged(1), 0u);
  }
}

// The scheduler's properties under random arrivals and pauses, checked on every dequeue
// without a model of its internals: work conservation (a frame comes out whenever an unpaused
// priority has one), never a paused priority, the highest eligible strict priority first, FIFO
// within a priority.
TEST(TrafficManager, SchedulerIsWorkConservingAndNeverServesAPausedPriority) {
  rng r(22);
  uint64_t served = 0, refused = 0;
  for (int trial = 0; trial < 40; ++trial) {
    tm_config cfg;
    cfg.strict = uint8_t(trial % 4 == 0 ? 0 : r.below(256) & 0xf0);
    cfg.alpha.fill(0);
    for (auto& q : cfg.quantum) q = uint32_t(r.below(4) == 0 ? 64 + r.below(400) : 500 + r.below(4000));
    constexpr unsigned ports = 3;
    traffic_manager tm(cfg, ports);
    std::vector<std::array<std::deque<packet*>, num_priorities>> q(ports);   // what went in, per queue
    frame_store fs;
    double enqueue_share = 0.5;
    uint8_t paused = 0;
    for (int op = 0; op < 20000; ++op) {
      if (op % 500 == 0) enqueue_share = 0.3 + 0.4 * r.uniform();
      if (r.below(50) == 0) paused = r.below(2) ? 0 : uint8_t(r.below(256));
      const unsigned out = unsigned(r.below(ports));
      if (r.uniform() < enqueue_share) {
        const unsigned prio = unsigned(r.below(num_priorities));
        packet& p = fs.make(random_frame(r), prio);
        ASSERT_EQ(tm.enqueue(p, out), tm_verdict::admitted);
        q[out][prio].push_back(&p);
        continue;
      }
      uint8_t eligible = 0;
      for (unsigned c = 0; c < num_priorities; ++c)
        if (!q[out][c].empty() && !(paused >> c & 1)) eligible |= uint8_t(1u << c);
      packet* got = tm.dequeue(out, paused);
      const std::string where = "trial " + std::to_string(trial) + " op " + std::to_string(op);
      if (!eligible) {
        ASSERT_EQ(got, nullptr) << where;
        ++refused;
        continue;
      }
      ASSERT_NE(got, nullptr) << where << ": work conservation";
      const unsigned c = got->prio;
      ASSERT_FALSE(paused >> c & 1) << where << ": served paused priority " << c;
      const uint8_t strict = eligible & cfg.strict;
      if (strict) {
        ASSERT_EQ(c, 31u - unsigned(__builtin_clz(strict))) << where << ": highest strict first";
      } else {
        ASSERT_FALSE(cfg.strict >> c & 1) << where;
      }
      ASSERT_EQ(got, q[out][c].front()) << where << ": FIFO within priority " << c;
      q[out][c].pop_front();
      fs.recycle(got);
      ++served;
    }
  }
  EXPECT_GT(served, 200000u);   // both branches ran many times
  EXPECT_GT(refused, 1000u);
}

namespace {

// Largest |S_i/Q_i - S_j/Q_j| over every prefix of a run of `picks` (served priority, bytes), for
// priorities continuously backlogged and unpaused from the start.
double worst_normalized_gap(const std::vector<std::pair<unsigned, uint32_t>>& picks, const std::vector<unsigned>& prios,
                            const std::array<uint32_t, num_priorities>& quantum) {
  std::array<double, num_priorities> s{};
  double worst = 0;
  for (const auto& [c, bytes] : picks) {
    s[c] += double(bytes) / quantum[c];
    for (unsigned i : prios)
      for (unsigned j : prios) worst = std::max(worst, std::abs(s[i] - s[j]));
  }
  return worst;
}

}  // namespace

// Deficit round robin's fairness (Shreedhar & Varghese, SIGCOMM '95, Lemma 2 in this form): for
// priorities i and j backlogged and unpaused since the deficits were 0, after k turns a priority
// has sent between k*Q - Max and k*Q bytes (a deficit left over is below the next frame, at most
// Max), and the turns of i and j differ by at most one, so at every instant
//   |S_i/Q_i - S_j/Q_j| <= 2 + Max/Q_i + Max/Q_j.
// Other priorities come and go and are paused at random. Control: a frame-by-frame round robin
// (no deficits) on the same backlog breaks the bound.
TEST(TrafficManager, DwrrKeepsTheDeficitRoundRobinFairnessBound) {
  rng r(23);
  unsigned controls = 0;
  for (int trial = 0; trial < 30; ++trial) {
    tm_config cfg;
    cfg.strict = 0;
    cfg.alpha.fill(0);
    for (auto& q : cfg.quantum) q = uint32_t(64 + r.below(trial % 2 ? 8000 : 1500));
    traffic_manager tm(cfg, 1);
    frame_store fs;
    const std::vector<unsigned> steady = {unsigned(r.below(4)), 4 + unsigned(r.below(4))};
    const uint8_t steady_mask = uint8_t(1u << steady[0] | 1u << steady[1]);
    std::array<unsigned, num_priorities> backlog{};
    for (unsigned c : steady)
      for (int i = 0; i < 3000; ++i, ++backlog[c]) ASSERT_EQ(tm.enqueue(fs.make(random_frame(r), c), 0), tm_verdict::admitted);
    std::vector<std::pair<unsigned, uint32_t>> picks;
    std::array<unsigned, 2> sent_steady{};
    for (int n = 0; n < 2500; ++n) {
      if (r.below(4) == 0) {   // another priority gets a frame
        const unsigned c = unsigned(r.below(num_priorities));
        if (!(steady_mask >> c & 1)) {
          ASSERT_EQ(tm.enqueue(fs.make(random_frame(r), c), 0), tm_verdict::admitted);
        }
      }
      const uint8_t paused = uint8_t(r.below(256)) & uint8_t(~steady_mask);
      packet* p = tm.dequeue(0, paused);
      ASSERT_NE(p, nullptr);
      picks.push_back({p->prio, p->frame_bytes()});
      for (unsigned k = 0; k < 2; ++k) sent_steady[k] += p->prio == steady[k];
      fs.recycle(p);
    }
    ASSERT_LT(sent_steady[0], 3000u);   // still backlogged at the end
    ASSERT_LT(sent_steady[1], 3000u);
    const double qi = cfg.quantum[steady[0]], qj = cfg.quantum[steady[1]];
    const double bound = 2 + max_frame / qi + max_frame / qj;
    EXPECT_LE(worst_normalized_gap(picks, steady, cfg.quantum), bound)
        << "trial " << trial << " Q = " << qi << ", " << qj;
    if (std::max(qi, qj) > 4 * std::min(qi, qj) && std::max(qi, qj) > 3 * max_frame) {
      // Control: alternate frames between the two, as a round robin without quanta would.
      std::vector<std::pair<unsigned, uint32_t>> rr;
      for (int n = 0; n < 2000; ++n) rr.push_back({steady[n % 2], random_frame(r)});
      EXPECT_GT(worst_normalized_gap(rr, steady, cfg.quantum), bound) << "trial " << trial;
      ++controls;
    }
  }
  EXPECT_GE(controls, 3u);
}

TEST(TrafficManager, ZeroQuantumIsRejected) {
  // A zero quantum would never serve its queue (pick_dwrr would spin); the constructor refuses.
  for (unsigned p = 0; p < num_priorities; ++p) {
    tm_config cfg;
    cfg.quantum.fill(1000);
    cfg.quantum[p] = 0;
    EXPECT_THROW(traffic_manager(cfg, 2), std::invalid_argument) << p;
  }
  tm_config cfg;
  cfg.quantum.fill(1);
  EXPECT_NO_THROW(traffic_manager(cfg, 2));
}

TEST(TrafficManager, DwrrBacklogged) {
  // All seven non-strict priorities backlogged with random frame sizes (each queue is refilled
  // as it sends). (a) The service order equals a round-by-round DRR: per round, priority 0..6
  // each add the quantum and send while the deficit covers the head. (b) At each round's end
  // every priority has sent k*Q minus less than one max frame.
  rng r(23);
  const std::vector<std::array<uint32_t, num_priorities>> quanta = {
      {1500, 3000, 4500, 1500, 6000, 2000, 9000, 1500},
      {200, 1500, 700, 3000, 64, 2500, 1000, 1500},
      {4000, 4000, 4000, 4000, 4000, 4000, 4000, 4000},
      {100, 100, 100, 100, 100, 100, 5000, 1500},
  };
  for (size_t t = 0; t < quanta.size(); ++t) {
    tm_config cfg;
    cfg.strict = 0x80;
    cfg.quantum = quanta[t];
    cfg.alpha.fill(0);
    traffic_manager tm(cfg, 1);
    frame_store fs;
    constexpr unsigned np = 7;   // priorities 0..6
    constexpr int n = 60000;
    // Frame sizes per priority, in the order they are sent.
    std::array<std::vector<uint32_t>, np> sizes;
    for (auto& s : sizes)
      for (int i = 0; i < n + 8; ++i) s.push_back(random_frame(r));
    // Golden order.
    std::vector<unsigned> order;
    std::vector<size_t> round_end;   // order index after each round
    {
      std::array<int64_t, np> deficit{};
      std::array<size_t, np> next{};
      while (order.size() < size_t(n)) {
        for (unsigned p = 0; p < np; ++p) {
          deficit[p] += cfg.quantum[p];
          while (deficit[p] >= int64_t(sizes[p][next[p]])) {
            deficit[p] -= sizes[p][next[p]++];
            order.push_back(p);
          }
        }
        round_end.push_back(order.size());
      }
    }
    std::array<size_t, np> queued{};
    for (unsigned p = 0; p < np; ++p)
      for (; queued[p] < 4; ++queued[p])
        ASSERT_EQ(tm.enqueue(fs.make(sizes[p][queued[p]], p), 0), tm_verdict::admitted);
    std::array<uint64_t, np> served{};
    size_t round = 0;
    for (size_t i = 0; i < size_t(n); ++i) {
      packet* p = tm.dequeue(0, 0);
      ASSERT_NE(p, nullptr);
      ASSERT_EQ(unsigned(p->prio), order[i]) << "quanta set " << t << " dequeue " << i;
      served[p->prio] += p->frame_bytes();
      fs.recycle(p);
      ASSERT_EQ(tm.enqueue(fs.make(sizes[order[i]][queued[order[i]]++], order[i]), 0), tm_verdict::admitted);
      // Round boundaries: k rounds done, each priority sent k*Q - d with 0 <= d < max frame.
      while (round < round_end.size() && round_end[round] == i + 1) {
        const uint64_t k = round + 1;
        for (unsigned q = 0; q < np; ++q) {
          ASSERT_LE(served[q], k * cfg.quantum[q]) << "set " << t << " round " << k << " prio " << q;
          ASSERT_GT(served[q] + max_frame, k * cfg.quantum[q]) << "set " << t << " round " << k << " prio " << q;
        }
        ++round;
      }
    }
    ASSERT_GT(round, 100u);
    // Long run: bytes per priority proportional to the quanta.
    const double per_q = double(served[0] + served[1] + served[2] + served[3] + served[4] + served[5] +
                                served[6]);
    double qsum = 0;
    for (unsigned q = 0; q < np; ++q) qsum += cfg.quantum[q];
    for (unsigned q = 0; q < np; ++q) {
      const double share = double(served[q]) / per_q, want = cfg.quantum[q] / qsum;
      EXPECT_NEAR(share, want, 0.01 * want + 1e-3) << "set " << t << " prio " << q;
    }
  }
}

// ------------------------------------------------------------------------------------------
// 4. PFC accounting (lossless priorities).
// ------------------------------------------------------------------------------------------

TEST(TrafficManager, PfcPoolReservesHeadroom) {
  for (uint8_t lossless : {uint8_t(0x00), uint8_t(0x08), uint8_t(0x18), uint8_t(0xff), uint8_t(0x81)}) {
    tm_config cfg;
    cfg.buffer_bytes = 12'000'000;
    cfg.lossless = lossless;
    unsigned count = 0;
    for (unsigned p = 0; p < num_priorities; ++p) count += lossless >> p & 1;
    // Uniform headroom: buffer - ports * lossless * headroom.
    cfg.headroom_bytes.assign(6, 50'000);
    EXPECT_EQ(traffic_manager(cfg, 6).shared_pool(), 12'000'000 - 6ull * count * 50'000);
    // Per port; ports beyond the list (recirculation) reserve nothing.
    cfg.headroom_bytes = {10'000, 20'000, 30'000};
    EXPECT_EQ(traffic_manager(cfg, 5).shared_pool(), 12'000'000 - uint64_t(count) * 60'000);
    // More reserved than the buffer: no shared pool.
    cfg.headroom_bytes.assign(4, 5'000'000);
    EXPECT_EQ(traffic_manager(cfg, 4).shared_pool(), count ? 0u : 12'000'000u);
  }
}

TEST(TrafficManager, PfcStaticThresholdScenario) {
  constexpr uint32_t F = 1000;
  tm_config cfg;
  cfg.buffer_bytes = 1'000'000;
  cfg.lossless = 0x18;   // 3 and 4
  cfg.headroom_bytes = {20'000, 30'000};   // port 2: none
  cfg.xoff_bytes = 10'000;
  cfg.xon_offset_bytes = 3'000;
  cfg.alpha.fill(0);
  cfg.strict = 0xff;
  traffic_manager tm(cfg, 3);
  frame_store fs;
  EXPECT_EQ(tm.shared_pool(), 1'000'000u - 2 * 50'000u);
  EXPECT_EQ(tm.xoff_threshold(), 10'000u);
  // Ingress port 0, priority 3, to egress 1: ten frames fill the shared allowance exactly.
  for (int i = 1; i <= 10; ++i) {
    EXPECT_FALSE(tm.xoff_due(0, 3)) << i;
    ASSERT_EQ(tm.enqueue(fs.make(F, 3, 0), 1), tm_verdict::admitted);
    EXPECT_EQ(tm.shared_used(), uint64_t(i) * F);
    EXPECT_EQ(tm.headroom_used(), 0u);
  }
  EXPECT_TRUE(tm.xoff_due(0, 3));   // reached the threshold
  EXPECT_FALSE(tm.xoff_due(0, 3));  // once
  EXPECT_TRUE(tm.xoff_active(0, 3));
  EXPECT_FALSE(tm.xoff_due(0, 4));  // per priority
  EXPECT_FALSE(tm.xoff_due(1, 3));  // per port
  // Then the headroom: twenty more frames.
  for (int i = 1; i <= 20; ++i) {
    ASSERT_EQ(tm.enqueue(fs.make(F, 3, 0), 1), tm_verdict::admitted);
    EXPECT_EQ(tm.shared_used(), 10'000u);
    EXPECT_EQ(tm.headroom_used(), uint64_t(i) * F);
  }
  EXPECT_FALSE(tm.xoff_due(0, 3));
  // Headroom full: dropped, nothing charged.
  for (int i = 0; i < 3; ++i) {
    packet& p = fs.make(F, 3, 0);
    EXPECT_EQ(tm.enqueue(p, 1), tm_verdict::headroom);
  }
  EXPECT_EQ(tm.used(), 30'000u);
  EXPECT_EQ(tm.queue_bytes(1, 3), 30'000u);
  // A small frame from the same ingress does not fit either (headroom is per port and priority).
  EXPECT_EQ(tm.enqueue(fs.make(64, 3, 0), 1), tm_verdict::headroom);
  // Port 1, priority 4 has its own 30000 of headroom.
  for (int i = 0; i < 40; ++i) ASSERT_EQ(tm.enqueue(fs.make(F, 4, 1), 2), tm_verdict::admitted);
  EXPECT_EQ(tm.enqueue(fs.make(F, 4, 1), 2), tm_verdict::headroom);
  EXPECT_EQ(tm.headroom_used(), 50'000u);
  EXPECT_TRUE(tm.xoff_due(1, 4));
  // Port 2 has no headroom: dropped as soon as the threshold would be passed.
  for (int i = 0; i < 10; ++i) ASSERT_EQ(tm.enqueue(fs.make(F, 3, 2), 0), tm_verdict::admitted);
  EXPECT_EQ(tm.enqueue(fs.make(F, 3, 2), 0), tm_verdict::headroom);
  EXPECT_TRUE(tm.xoff_due(2, 3));
  // Drain port 1 priority 3: headroom is repaid first, XON waits for it, then for the count to
  // be xon_offset below the threshold (7000).
  for (int i = 1; i <= 20; ++i) {
    packet* p = tm.dequeue(1, only(3));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(tm.headroom_used(), 30'000u + 20'000u - uint64_t(i) * F);
    EXPECT_EQ(tm.shared_used(), 30'000u);
    EXPECT_FALSE(tm.xon_due(0, 3)) << i;
  }
  for (uint64_t left = 9'000; left > 0; left -= F) {
    ASSERT_NE(tm.dequeue(1, only(3)), nullptr);
    EXPECT_EQ(tm.shared_used(), 20'000u + left);
    if (left == 7'000) {
      EXPECT_TRUE(tm.xon_due(0, 3));
      EXPECT_FALSE(tm.xon_due(0, 3));
      EXPECT_FALSE(tm.xoff_active(0, 3));
    } else {
      EXPECT_FALSE(tm.xon_due(0, 3)) << left;
    }
  }
  ASSERT_NE(tm.dequeue(1, only(3)), nullptr);
  EXPECT_EQ(tm.dequeue(1, only(3)), nullptr);
  EXPECT_EQ(tm.shared_used(), 20'000u);
  EXPECT_FALSE(tm.xon_due(0, 3));
  EXPECT_FALSE(tm.xoff_due(0, 3));
}

TEST(TrafficManager, PfcThresholdNotAMultipleAndXonAtZero) {
  tm_config cfg;
  cfg.buffer_bytes = 1'000'000;
  cfg.lossless = 0x01;
  cfg.headroom_bytes = {5'000};
  cfg.xoff_bytes = 10'500;
  cfg.alpha.fill(0);
  cfg.xon_offset_bytes = 20'000;   // larger than the threshold: XON only when empty
  cfg.strict = 0xff;
  traffic_manager tm(cfg, 2);
  frame_store fs;
  for (int i = 0; i < 10; ++i) ASSERT_EQ(tm.enqueue(fs.make(1000, 0, 0), 1), tm_verdict::admitted);
  EXPECT_FALSE(tm.xoff_due(0, 0));   // 10000 < 10500
  ASSERT_EQ(tm.enqueue(fs.make(1000, 0, 0), 1), tm_verdict::admitted);
  EXPECT_EQ(tm.headroom_used(), 1000u);
  ASSERT_EQ(tm.enqueue(fs.make(500, 0, 0), 1), tm_verdict::admitted);   // fits under XOFF again
  EXPECT_EQ(tm.shared_used(), 10'500u);
  EXPECT_TRUE(tm.xoff_due(0, 0));    // headroom in use
  EXPECT_FALSE(tm.xoff_due(0, 0));
  for (int i = 0; i < 11; ++i) {
    ASSERT_NE(tm.dequeue(1, 0), nullptr);
    EXPECT_FALSE(tm.xon_due(0, 0)) << i;
  }
  ASSERT_NE(tm.dequeue(1, 0), nullptr);
  EXPECT_EQ(tm.used(), 0u);
  EXPECT_TRUE(tm.xon_due(0, 0));
  EXPECT_FALSE(tm.xon_due(0, 0));
}

namespace {

// Golden PFC + lossy model of the whole TM.
struct pfc_model {
  tm_config cfg;
  uint64_t pool = 0, shared = 0, head = 0;
  struct ingress { uint64_t shared = 0, headroom = 0; bool xoff = false; };
  std::vector<ingress> in;
  std::vector<std::array<std::deque<packet*>, num_priorities>> fifo;
  std::vector<std::array<uint64_t, num_priorities>> qb;
  unsigned ports;

  pfc_model(const tm_config& c, unsigned n) : cfg(c), in(n * num_priorities), fifo(n), qb(n), ports(n) {
    for (auto& q : qb) q.fill(0);
    unsigned count = 0;
    for (unsigned p = 0; p < num_priorities; ++p) count += cfg.lossless >> p & 1;
    uint64_t reserved = 0;
    for (unsigned i = 0; i < n; ++i) reserved += count * headroom(i);
    pool = cfg.buffer_bytes > reserved ? cfg.buffer_bytes - reserved : 0;
  }
  uint64_t headroom(unsigned port) const { return port < cfg.headroom_bytes.size() ? cfg.headroom_bytes[port] : 0; }
  bool lossless(unsigned prio) const { return cfg.lossless >> prio & 1; }
  ingress& at(unsigned port, unsigned prio) { return in[port * num_priorities + prio]; }
  uint64_t threshold() const {
    if (cfg.xoff_bytes) return cfg.xoff_bytes;
    return uint64_t(std::floor(cfg.xoff_fraction * double(pool - std::min(pool, shared))));
  }
  tm_verdict enqueue(packet* p, unsigned out) {
    const uint64_t b = p->frame_bytes();
    const unsigned prio = p->prio;
    if (lossless(prio)) {
      ingress& g = at(p->in_port, prio);
      if (g.shared + b <= threshold() && shared + b <= pool) {
        g.shared += b;
        shared += b;
      } else if (g.headroom + b <= headroom(p->in_port)) {
        g.headroom += b;
        head += b;
      } else {
        return tm_verdict::headroom;
      }
    } else {
      if (shared + b > pool) return tm_verdict::buffer_full;
      const double a = cfg.alpha[prio];
      if (a != 0 && !(double(qb[out][prio] + b) <= a * double(pool - shared))) return tm_verdict::dynamic_threshold;
      shared += b;
    }
    fifo[out][prio].push_back(p);
    qb[out][prio] += b;
    return tm_verdict::admitted;
  }
  packet* dequeue(unsigned out, unsigned prio) {
    if (fifo[out][prio].empty()) return nullptr;
    packet* p = fifo[out][prio].front();
    fifo[out][prio].pop_front();
    const uint64_t b = p->frame_bytes();
    qb[out][prio] -= b;
    if (lossless(prio)) {
      ingress& g = at(p->in_port, prio);
      const uint64_t h = std::min(g.headroom, b);   // headroom repaid first
      g.headroom -= h;
      head -= h;
      g.shared -= b - h;
      shared -= b - h;
    } else {
      shared -= b;
    }
    return p;
  }
  bool xoff_due(unsigned port, unsigned prio) {
    ingress& g = at(port, prio);
    if (!lossless(prio) || g.xoff) return false;
    if (g.headroom > 0 || g.shared >= threshold()) return g.xoff = true;
    return false;
  }
  bool xon_due(unsigned port, unsigned prio) {
    ingress& g = at(port, prio);
    if (!g.xoff || g.headroom > 0) return false;
    const uint64_t thr = threshold();
    if (g.shared == 0 || g.shared + cfg.xon_offset_bytes <= thr) {
      g.xoff = false;
      return true;
    }
    return false;
  }
};

}  // namespace

TEST(TrafficManager, PfcAccountingMatchesGolden) {
  struct trial_cfg {
    uint64_t buffer, xoff;
    double fraction;
    uint64_t xon_offset;
    uint8_t lossless;
    std::vector<uint64_t> headroom;
  };
  const std::vector<trial_cfg> trials = {
      {300'000, 20'000, 0.11, 4'000, 0x18, {15'000, 25'000, 5'000}},
      {300'000, 0, 0.11, 2'048, 0x18, {15'000, 25'000, 5'000}},
      {400'000, 0, 0.5, 6'000, 0x09, {30'000, 30'000, 30'000, 30'000}},
      {150'000, 12'000, 0.11, 13'000, 0x88, {8'000, 0, 20'000, 3'000}},
      {200'000, 0, 0.05, 1'000, 0xf8, {4'000, 6'000}},
  };
  rng r(41);
  uint64_t shared_adm = 0, head_adm = 0, drops = 0, xoffs = 0, xons = 0;
  for (size_t t = 0; t < trials.size(); ++t) {
    const trial_cfg& tc = trials[t];
    constexpr unsigned ports = 4;
    tm_config cfg;
    cfg.buffer_bytes = tc.buffer;
    cfg.xoff_bytes = tc.xoff;
    cfg.xoff_fraction = tc.fraction;
    cfg.xon_offset_bytes = tc.xon_offset;
    cfg.lossless = tc.lossless;
    cfg.headroom_bytes = tc.headroom;
    cfg.strict = 0xff;
    cfg.alpha.fill(0);
    cfg.alpha[1] = 2;   // priority 0: lossy without a threshold, it can fill the pool
    traffic_manager tm(cfg, ports);
    pfc_model m(cfg, ports);
    ASSERT_EQ(tm.shared_pool(), m.pool) << "trial " << t;
    frame_store fs;
    std::vector<unsigned> prios = {0, 1};
    for (unsigned p = 0; p < num_priorities; ++p)
      if (tc.lossless >> p & 1) prios.push_back(p);
    double enqueue_share = 0.6;
    for (int op = 0; op < 30000; ++op) {
      if (op % 700 == 0) enqueue_share = 0.3 + 0.5 * r.uniform();
      const unsigned out = unsigned(r.below(ports));
      // Lossless traffic mostly; lossy now and then to move the free pool.
      const unsigned prio = r.below(3) == 0 ? prios[r.below(2)] : prios[2 + r.below(prios.size() - 2)];
      if (r.uniform() < enqueue_share) {
        packet& p = fs.make(random_frame(r), prio, unsigned(r.below(ports)));
        const uint64_t h0 = m.head;
        const tm_verdict want = m.enqueue(&p, out);
        const tm_verdict got = tm.enqueue(p, out);
        ASSERT_EQ(name(got), name(want)) << "trial " << t << " op " << op << " prio " << prio << " in "
                                         << p.in_port << " bytes " << p.frame_bytes();
        if (got != tm_verdict::admitted) fs.recycle(&p);
        if (m.lossless(prio)) {
          if (got == tm_verdict::headroom) ++drops;
          else if (m.head > h0) ++head_adm;
          else ++shared_adm;
        }
      } else {
        packet* want = m.dequeue(out, prio);
        packet* got = tm.dequeue(out, only(prio));
        ASSERT_EQ(got, want) << "trial " << t << " op " << op;
        if (got) fs.recycle(got);
      }
      ASSERT_EQ(tm.shared_used(), m.shared) << "trial " << t << " op " << op;
      ASSERT_EQ(tm.headroom_used(), m.head) << "trial " << t << " op " << op;
      ASSERT_EQ(tm.used(), m.shared + m.head);
      ASSERT_EQ(tm.xoff_threshold(), m.threshold()) << "trial " << t << " op " << op;
      if (!tc.xoff) {
        // The dynamic threshold: floor(fraction * free shared pool).
        ASSERT_EQ(tm.xoff_threshold(), uint64_t(std::floor(tc.fraction * double(m.pool - m.shared))));
      }
      for (unsigned o = 0; o < ports; ++o)
        for (unsigned p = 0; p < num_priorities; ++p) ASSERT_EQ(tm.queue_bytes(o, p), m.qb[o][p]);
      // The switch asks at its own moments; poll now and then, every ingress and priority.
      if (r.below(3) == 0) {
        for (unsigned i = 0; i < ports; ++i)
          for (unsigned p = 0; p < num_priorities; ++p) {
            const bool off = m.xoff_due(i, p);
            ASSERT_EQ(tm.xoff_due(i, p), off) << "trial " << t << " op " << op << " port " << i << " prio " << p;
            const bool on = m.xon_due(i, p);
            ASSERT_EQ(tm.xon_due(i, p), on) << "trial " << t << " op " << op << " port " << i << " prio " << p;
            ASSERT_EQ(tm.xoff_active(i, p), m.at(i, p).xoff);
            xoffs += off;
            xons += on;
          }
      }
    }
  }
  EXPECT_GT(shared_adm, 1000u);
  EXPECT_GT(head_adm, 1000u);
  EXPECT_GT(drops, 1000u);
  EXPECT_GT(xoffs, 100u);
  EXPECT_GT(xons, 100u);
}

// Flowcut's held packets (hold/unhold) take buffer as lossless frames of their ingress port do:
// shared count up to the XOFF threshold, then headroom, then refused; no egress queue sees them.
// Static XOFF at 10,000 B, 5,000 B of headroom, 1,000-byte frames from port 0, priority 3.
TEST(TrafficManager, HeldFramesTakeTheSharedBufferAndTriggerPfc) {
  tm_config cfg;
  cfg.buffer_bytes = 1'000'000;
  cfg.lossless = 1u << 3;
  cfg.xoff_bytes = 10'000;
  cfg.xon_offset_bytes = 2'000;
  cfg.headroom_bytes = {5'000, 5'000};
  traffic_manager tm(cfg, 2);
  frame_store fs;
  std::vector<packet*> held;
  for (int i = 0; i < 9; ++i) {
    held.push_back(&fs.make(1000, 3, 0));
    ASSERT_EQ(tm.hold(*held.back()), tm_verdict::admitted);
  }
  EXPECT_FALSE(tm.xoff_due(0, 3));   // 9,000 B < 10,000 B
  held.push_back(&fs.make(1000, 3, 0));
  ASSERT_EQ(tm.hold(*held.back()), tm_verdict::admitted);
  EXPECT_TRUE(tm.xoff_due(0, 3));    // 10,000 B reached: XOFF
  EXPECT_EQ(tm.shared_used(), 10'000u);
  for (int i = 0; i < 5; ++i) {      // the next 5,000 B go to the headroom
    held.push_back(&fs.make(1000, 3, 0));
    ASSERT_EQ(tm.hold(*held.back()), tm_verdict::admitted);
  }
  EXPECT_EQ(tm.headroom_used(), 5'000u);
  EXPECT_EQ(tm.hold(fs.make(1000, 3, 0)), tm_verdict::headroom);   // full: refused
  EXPECT_EQ(tm.used(), 15'000u);
  EXPECT_EQ(tm.held_bytes(), 15'000u);
  EXPECT_EQ(tm.port_bytes(0) + tm.port_bytes(1), 0u);   // no queue holds them
  EXPECT_EQ(tm.backlogged(0) | tm.backlogged(1), 0u);
  // Another port's frame still finds the shared pool: held bytes count against port 0 only.
  EXPECT_EQ(tm.enqueue(fs.make(1000, 3, 1), 0), tm_verdict::admitted);
  EXPECT_EQ(tm.shared_used(), 11'000u);
  // Unhold pays the headroom back first; XON once the headroom is empty and the count is 2,000 B
  // below the threshold (8,000 B).
  for (int i = 0; i < 5; ++i) tm.unhold(*held[14 - i]);
  EXPECT_EQ(tm.headroom_used(), 0u);
  EXPECT_FALSE(tm.xon_due(0, 3));   // 10,000 B shared
  for (int i = 0; i < 2; ++i) tm.unhold(*held[9 - i]);
  EXPECT_TRUE(tm.xon_due(0, 3));    // 8,000 B
  for (int i = 0; i < 8; ++i) tm.unhold(*held[i]);
  EXPECT_EQ(tm.held_bytes(), 0u);
  EXPECT_EQ(tm.used(), 1'000u);     // the queued frame from port 1
}

TEST(TrafficManager, WatchdogTakeAndDeadlockHoldsFrom) {
  // take(): the PFC watchdog's flush, paused or not, head first, without marking, paying back
  // headroom before the shared count so XON can follow; holds_from(): which ingress a queue holds.
  constexpr uint32_t F = 1000;
  tm_config cfg;
  cfg.buffer_bytes = 1'000'000;
  cfg.lossless = 0x08;
  cfg.headroom_bytes = {20'000, 20'000, 20'000};
  cfg.xoff_bytes = 3'000;
  cfg.xon_offset_bytes = 1'000;
  cfg.ecn[3] = {true, 0, 0, 1.0};   // would mark every ECT frame at dequeue
  traffic_manager tm(cfg, 3);
  frame_store fs;
  std::vector<packet*> in;
  for (int i = 0; i < 5; ++i) {
    in.push_back(&fs.make(F, 3, 0, 1));
    ASSERT_EQ(tm.enqueue(*in.back(), 2), tm_verdict::admitted);
  }
  ASSERT_EQ(tm.enqueue(fs.make(F, 3, 1, 1), 1), tm_verdict::admitted);
  EXPECT_TRUE(tm.xoff_due(0, 3));
  EXPECT_EQ(tm.headroom_used(), 2'000u);   // 3 frames shared, 2 in headroom
  EXPECT_TRUE(tm.holds_from(2, 3, 0));
  EXPECT_FALSE(tm.holds_from(2, 3, 1));
  EXPECT_TRUE(tm.holds_from(1, 3, 1));
  EXPECT_FALSE(tm.holds_from(2, 4, 0));   // another priority's queue
  for (int i = 0; i < 5; ++i) {
    packet* p = tm.take(2, 3);
    ASSERT_EQ(p, in[size_t(i)]);   // in order
    EXPECT_EQ(p->ip.ecn, 1u);      // not marked
    EXPECT_EQ(tm.headroom_used(), uint64_t(std::max(0, 1 - i)) * F);
    EXPECT_EQ(tm.shared_used(), uint64_t(std::min(3, 4 - i) + 1) * F);   // port 1's frame stays
    // XON once the headroom is empty and the count is 1 000 bytes below XOFF (2 000 of the
    // 3 000 shared bytes left): after the third.
    EXPECT_EQ(tm.xon_due(0, 3), i == 2) << i;
  }
  EXPECT_EQ(tm.take(2, 3), nullptr);
  EXPECT_FALSE(tm.holds_from(2, 3, 0));
  EXPECT_EQ(tm.backlogged(2), 0u);
  EXPECT_EQ(tm.backlogged(1), 0x08u);
}
