// HPCC's CC core against a golden model written here from the paper's Algorithm 1: double U,
// double W, exact division, the same INT wrap handling (TS mod 2^24 ns, txBytes mod 2^20 x 128 B).
// ACK sequences come from a small synthetic path: 1-3 hops at 100G/400G (sometimes speed code 0),
// queues that grow and drain, txBytes advancing with each link's load, 0.1-20 us between ACKs,
// repeated timestamps, path changes, and runs started just below the TS and txBytes wraps.
//
// What is compared after every ACK, and how close:
//  - U runs free in both models. Each u' term is rounded to nearest in the core (<= 1/2 ulp each,
//    ulp = 2^-F), so |u'_fx - u' 2^F| <= 1; the EWMA rounds once more. The bound on
//    |U_fx - U 2^F| (ulps) is tracked through the same recursion:
//        e' = (1 - tau/T) e + (tau/T) * 1 + 1/2        (e unchanged when no hop is usable)
//    so it contracts on every ACK with tau near T and stays at a few ulps. Hops whose golden u' lie
//    within 2 ulps of the max may be picked by either model; each gives a candidate U.
//  - W, Wc, incStage are computed by the golden model from the core's previous Wc and incStage
//    (one step at a time: errors the table makes legitimately carry into Wc, so a free-running
//    comparison would drift by epsilon per RTT). AI: W = Wc + W_AI exactly. MI: with
//    X = Wc eta / U,  |W_core - W| <= X ((1 + r_eta)(1 + r_tab) / (1 - r_U) - 1) + 1
//    where r_U = e / (U 2^F), r_eta = 1/2 / (eta 2^F) (eta is rounded to F bits), r_tab = the
//    table's worst relative error (0 with divider::exact), +1 for the truncated quotient.
//    When U is within e + 1/2 ulp of eta the branch is ambiguous and either outcome is accepted.
//  - lastUpdateSeq exactly; Wc equals W after an update and is unchanged otherwise.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "nic/cc/hpcc.h"
#include "switch/int_writer.h"

using namespace netasic;

namespace {

constexpr uint64_t G = 1'000'000'000ull;

uint64_t golden_speed(unsigned code, uint64_t line_rate) {
  switch (code) {
    case 1: return 10 * G;
    case 2: return 25 * G;
    case 3: return 40 * G;
    case 4: return 50 * G;
    case 5: return 100 * G;
    case 6: return 200 * G;
    case 7: return 400 * G;
    case 8: return 800 * G;
    default: return line_rate;
  }
}

// ---- golden model: Algorithm 1 in double precision -----------------------------------------

struct golden {
  double line_rate, T_ps, eta, w_ai, w_init;
  uint32_t max_stage;
  double U = 1.0;                       // as the core (and HPCC's ns-3 code) starts
  uint64_t last_update_seq = 0;
  bool have = false;
  unsigned n_hop = 0, path_id = 0;
  int_hop L[int_stack::max_hops]{};

  explicit golden(const hpcc_config& c)
      : line_rate(double(c.line_rate_bps)), T_ps(double(c.base_rtt_ps)), eta(c.eta), w_ai(double(c.w_ai_bytes)),
        w_init(std::floor(double(c.line_rate_bps) * double(c.base_rtt_ps) / 8e12)), max_stage(c.max_stage) {}

  bool path_changed(const int_stack& s) const { return !have || s.path_id != path_id || s.n_hop != n_hop; }
  void store(const int_stack& s) {
    have = true;
    n_hop = s.n_hop;
    path_id = s.path_id;
    for (unsigned i = 0; i < std::min<unsigned>(s.n_hop, int_stack::max_hops); ++i) L[i] = s.hop[i];
  }

  struct hop_u { double u; uint64_t d_ts_ns; };
  // Lines 3-5: u' of every hop that has a time difference.
  std::vector<hop_u> measure(const int_stack& s) const {
    std::vector<hop_u> out;
    for (unsigned i = 0; i < std::min<unsigned>(s.n_hop, int_stack::max_hops); ++i) {
      const uint64_t d_ts = (uint64_t(s.hop[i].ts) + (1u << 24) - L[i].ts) % (1u << 24);
      if (d_ts == 0) continue;
      const double d_tx = double((uint64_t(s.hop[i].tx_bytes) + (1u << 20) - L[i].tx_bytes) % (1u << 20)) * 128.0;
      const double B = double(golden_speed(s.hop[i].b, uint64_t(line_rate)));
      const double tx_rate = d_tx * 8.0 / (double(d_ts) * 1e-9);
      const double qlen = double(std::min(s.hop[i].qlen, L[i].qlen)) * 80.0;
      out.push_back({qlen / (B / 8.0 * T_ps * 1e-12) + tx_rate / B, d_ts});
    }
    return out;
  }
  double ewma(double u, uint64_t d_ts_ns) const {   // lines 8-9
    const double tau = std::min(double(d_ts_ns) * 1000.0, T_ps);
    return (1.0 - tau / T_ps) * U + tau / T_ps * u;
  }
  double clamp_w(double w) const { return std::min(std::max(w, w_ai), w_init); }
};

// ---- synthetic path -------------------------------------------------------------------------

struct path_params {
  unsigned min_hops = 1, max_hops = 3;
  uint64_t line_rate_bps = 100 * G;
  double p_path_change = 0.003;
  double p_same_time = 0.01;            // an ACK with no time since the last: dTS can be 0
  bool near_ts_wrap = false;            // start just below 2^24 ns
  bool near_tx_wrap = false;            // every port's counter just below 2^20 x 128 bytes
  bool incast = false;                  // hop 0 at 100G: its queue climbs to MBs and stays
};

class path_sim {
 public:
  uint64_t ts_wraps = 0, tx_wraps = 0, path_changes = 0;

  path_sim(uint64_t seed, const path_params& p) : g_(seed), p_(p) {
    now_ps_ = p.near_ts_wrap ? ((uint64_t(1) << 24) - 1000 - g_() % 2'000'000) * 1000 : (g_() % 1'000'000) * 1000;
    new_path();
  }

  cc_feedback next() {
    const uint64_t gap = uniform() < p_.p_same_time ? 0 : 100'000 + g_() % 19'900'001;   // ps
    now_ps_ += gap;
    if (uniform() < p_.p_path_change) { new_path(); ++path_changes; }
    stack_ = int_stack{};
    for (size_t i = 0; i < hops_.size(); ++i) {
      hop& h = hops_[i];
      if (uniform() < 0.03) { h.drift = uniform() * 1.2 - 0.6; h.load = 0.2 + 0.8 * uniform(); }
      if (p_.incast && i == 0) h.drift = h.queue < 4e6 ? 0.8 : 0.0;
      const double bytes_per_ps = double(h.rate_bps) / 8e12;
      h.queue = std::clamp(h.queue + h.drift * bytes_per_ps * double(gap), 0.0, 5e6);
      h.tx += bytes_per_ps * double(gap) * (h.queue > 0 ? 1.0 : h.load);   // a backlogged port runs flat out
      // Emit times jitter by up to 300 ns per hop but never go backwards.
      h.emit_ps = std::max(h.emit_ps, now_ps_ + h.offset_ps + g_() % 300'000);
      const uint32_t old_ts = h.last_ts, old_tx = h.last_tx;
      int_push_hop(stack_, h.switch_id, h.code, h.emit_ps, uint64_t(h.tx), uint64_t(h.queue));
      const int_hop& r = stack_.hop[i];
      if (h.seen && r.ts < old_ts) ++ts_wraps;
      if (h.seen && r.tx_bytes < old_tx) ++tx_wraps;
      h.seen = true;
      h.last_ts = r.ts;
      h.last_tx = r.tx_bytes;
    }
    ack_ += 1000 * (1 + g_() % 4);
    snd_nxt_ = std::max(snd_nxt_, ack_ + 1000 * (g_() % 31));
    cc_feedback fb;
    fb.now_ps = now_ps_ + 1'000'000;
    fb.ack_bytes = ack_;
    fb.snd_nxt_bytes = snd_nxt_;
    fb.newly_acked_bytes = 1000;
    fb.intx = &stack_;
    return fb;
  }

  double queue(size_t i) const { return hops_[i].queue; }

 private:
  struct hop {
    uint64_t rate_bps;
    uint8_t code;
    unsigned switch_id;
    double tx, queue = 0, drift = 0, load = 0.5;
    uint64_t offset_ps, emit_ps = 0;
    bool seen = false;
    uint32_t last_ts = 0, last_tx = 0;
  };
  double uniform() { return double(g_() >> 11) * 0x1.0p-53; }

  void new_path() {
    const unsigned n = p_.incast ? 1 : p_.min_hops + unsigned(g_() % (p_.max_hops - p_.min_hops + 1));
    hops_.clear();
    for (unsigned i = 0; i < n; ++i) {
      hop h{};
      const double r = uniform();
      if (p_.incast || r < 0.45) { h.rate_bps = 100 * G; h.code = 5; }
      else if (r < 0.85) { h.rate_bps = 400 * G; h.code = 7; }
      else { h.rate_bps = p_.line_rate_bps; h.code = 0; }   // an unknown speed: the NIC's rate
      h.switch_id = unsigned(g_() % 4096);
      const double wrap = double(uint64_t(1) << 27);
      h.tx = p_.near_tx_wrap ? wrap * double(1 + g_() % 4) - double(g_() % 4'000'000) : double(g_() % (uint64_t(1) << 40));
      h.queue = p_.incast ? 0 : (uniform() < 0.5 ? 0 : uniform() * 2e6);
      h.drift = uniform() * 1.2 - 0.6;
      h.load = 0.2 + 0.8 * uniform();
      h.offset_ps = (i + 1) * 1'000'000 + g_() % 1000;
      hops_.push_back(h);
    }
  }

  std::mt19937_64 g_;
  path_params p_;
  std::vector<hop> hops_;
  int_stack stack_{};
  uint64_t now_ps_, ack_ = 0, snd_nxt_ = 0;
};

// ---- the comparison -------------------------------------------------------------------------

struct tally {
  uint64_t acks = 0, path_changes = 0, no_usable_hop = 0, updates = 0, mi = 0, ai = 0;
  uint64_t ambiguous_branch = 0, ambiguous_hop = 0, unchecked = 0;
  uint32_t max_inc_stage = 0;
  double max_u_bound_ulps = 0, max_w_rel_err = 0;
  uint64_t ts_wraps = 0, tx_wraps = 0;
};

struct run_result { uint64_t final_w = 0, min_w = UINT64_MAX; double final_u = 0; };

// Drives the core and the golden model with one ACK sequence and checks every ACK. (void, and
// the result through `res`, so ASSERT_* can stop the run.)
void run_sequence(uint64_t seed, const path_params& pp, const hpcc_config& cfg, const reciprocal_table* table,
                  double table_error, unsigned n_acks, tally& t, run_result& res) {
  hpcc core(cfg, table);
  golden gm(cfg);
  path_sim sim(seed, pp);
  const unsigned F = cfg.u_frac_bits;
  const double scale = std::ldexp(1.0, int(F));
  const double r_eta = 0.5 / (cfg.eta * scale);
  const double r_tab = cfg.division == hpcc_config::divider::table ? table_error : 0.0;
  double e_u = 0;   // ulps
  for (unsigned k = 0; k < n_acks; ++k) {
    const cc_feedback fb = sim.next();
    const int_stack& s = *fb.intx;
    const uint64_t w0 = core.window(), wc0 = core.reference_window(), u0 = core.utilization_fixed();
    const uint32_t inc0 = core.inc_stage();
    const uint64_t seq0 = core.last_update_seq();
    ++t.acks;

    if (gm.path_changed(s)) {
      // The records are replaced and nothing else moves.
      core.on_ack(fb);
      gm.store(s);
      ++t.path_changes;
      EXPECT_EQ(core.window(), w0);
      EXPECT_EQ(core.reference_window(), wc0);
      EXPECT_EQ(core.utilization_fixed(), u0);
      EXPECT_EQ(core.inc_stage(), inc0);
      EXPECT_EQ(core.last_update_seq(), seq0);
      continue;
    }

    // MeasureInflight: one candidate U per hop that either model may take as the max.
    const std::vector<golden::hop_u> hops = gm.measure(s);
    struct cand { double U, e; };
    std::vector<cand> cands;
    if (hops.empty()) {
      ++t.no_usable_hop;
      cands.push_back({gm.U, e_u});
    } else {
      double umax = 0;
      for (const auto& h : hops) umax = std::max(umax, h.u);
      for (const auto& h : hops) {
        if (h.u < umax - 2.0 / scale - 1e-12 * umax) continue;
        const double a = std::min(double(h.d_ts_ns) * 1000.0, gm.T_ps) / gm.T_ps;
        cands.push_back({gm.ewma(h.u, h.d_ts_ns), (1 - a) * e_u + a * 1.0 + 0.5});
      }
    }
    if (cands.size() > 1) ++t.ambiguous_hop;

    core.on_ack(fb);

    const double u_core = double(core.utilization_fixed());
    const cand* best = nullptr;
    for (const cand& c : cands)
      if (!best || std::fabs(u_core - c.U * scale) - c.e < std::fabs(u_core - best->U * scale) - best->e) best = &c;
    const double slack = 1e-6 + 1e-9 * best->U * scale;
    ASSERT_LE(std::fabs(u_core - best->U * scale), best->e + slack)
        << "seed " << seed << " ack " << k << ": U core " << u_core / scale << " golden " << best->U;
    gm.U = best->U;
    e_u = best->e;
    t.max_u_bound_ulps = std::max(t.max_u_bound_ulps, e_u);

    // NewAck and ComputeWind, from the core's previous Wc and incStage.
    const bool update_wc = fb.ack_bytes > gm.last_update_seq;
    if (update_wc) { gm.last_update_seq = fb.snd_nxt_bytes; ++t.updates; }
    ASSERT_EQ(core.last_update_seq(), gm.last_update_seq);

    struct outcome { double w, tol; uint32_t inc; bool mi; };
    auto mi = [&]() {
      const double x = double(wc0) * gm.eta / gm.U;   // Wc / (U / eta)
      const double r_u = e_u / (gm.U * scale);
      const double tol = r_u < 0.5 && std::isfinite(x)
                             ? x * ((1 + r_eta) * (1 + r_tab) / (1 - r_u) - 1) + 1 + 1e-9 * x
                             : std::numeric_limits<double>::infinity();
      return outcome{gm.clamp_w(x + gm.w_ai), tol, update_wc ? 0 : inc0, true};
    };
    auto ai = [&]() { return outcome{gm.clamp_w(double(wc0) + gm.w_ai), 0.0, update_wc ? inc0 + 1 : inc0, false}; };
    std::vector<outcome> allowed;
    const bool ambiguous = inc0 < gm.max_stage && std::fabs(gm.U - gm.eta) * scale <= e_u + 0.5 + 1e-6;
    if (ambiguous) {
      ++t.ambiguous_branch;
      allowed.push_back(mi());
      allowed.push_back(ai());
    } else {
      allowed.push_back(gm.U >= gm.eta || inc0 >= gm.max_stage ? mi() : ai());
    }
    const double w_core = double(core.window());
    const outcome* hit = nullptr;
    for (const outcome& o : allowed)
      if (core.inc_stage() == o.inc && std::fabs(w_core - o.w) <= o.tol) hit = &o;
    ASSERT_TRUE(hit) << "seed " << seed << " ack " << k << ": W core " << w_core << " golden " << allowed[0].w
                     << " tol " << allowed[0].tol << " incStage core " << core.inc_stage() << " golden "
                     << allowed[0].inc << " U " << gm.U << " Wc " << wc0;
    if (std::isinf(hit->tol)) ++t.unchecked;
    (hit->mi ? t.mi : t.ai)++;
    // Past the truncated byte: what the table and the rounding of U cost.
    t.max_w_rel_err = std::max(t.max_w_rel_err, std::max(0.0, std::fabs(w_core - hit->w) - 1) / hit->w);
    ASSERT_EQ(core.reference_window(), update_wc ? core.window() : wc0);
    ASSERT_GE(core.window(), cfg.w_ai_bytes);
    ASSERT_LE(core.window(), core.w_init());
    t.max_inc_stage = std::max(t.max_inc_stage, core.inc_stage());
    gm.store(s);
    res.min_w = std::min(res.min_w, core.window());
  }
  EXPECT_EQ(core.u_saturations(), 0u);
  t.ts_wraps += sim.ts_wraps;
  t.tx_wraps += sim.tx_wraps;
  res.final_w = core.window();
  res.final_u = core.utilization();
}

hpcc_config config(hpcc_config::divider d, uint32_t max_stage = 0, unsigned frac = 16, uint64_t rtt_ps = 13'000'000) {
  hpcc_config c;
  c.division = d;
  c.max_stage = max_stage;
  c.u_frac_bits = frac;
  c.base_rtt_ps = rtt_ps;
  return c;
}

// One hop, fields set directly.
int_stack one_hop(unsigned path_id, unsigned code, uint32_t ts_ns, uint32_t tx_units, uint16_t qlen_units) {
  int_stack s{};
  s.n_hop = 1;
  s.path_id = path_id & 0xFFF;
  s.hop[0].b = code & 0xF;
  s.hop[0].ts = ts_ns & 0xFFFFFF;
  s.hop[0].tx_bytes = tx_units & 0xFFFFF;
  s.hop[0].qlen = qlen_units;
  return s;
}

cc_feedback ack(const int_stack& s, uint64_t ack_bytes, uint64_t snd_nxt) {
  cc_feedback fb;
  fb.ack_bytes = ack_bytes;
  fb.snd_nxt_bytes = snd_nxt;
  fb.intx = &s;
  return fb;
}

// Feeds a single 100G hop with a fixed per-ACK increment; every ACK is a new RTT (updateWc).
struct one_hop_driver {
  hpcc& core;
  uint32_t ts = 1000, tx = 0;
  uint64_t seq = 0;
  int_stack s{};
  void step(uint32_t d_ts_ns, uint32_t d_tx_units, uint16_t qlen_units, unsigned code = 5) {
    ts += d_ts_ns;
    tx += d_tx_units;
    s = one_hop(7, code, ts, tx, qlen_units);
    seq += 1000;
    core.on_ack(ack(s, seq, seq));   // snd_nxt = ack: the next ACK is past lastUpdateSeq
  }
};

}  // namespace

// ---- randomised equivalence -----------------------------------------------------------------

TEST(Hpcc, MatchesGoldenOnRandomPaths) {
  const reciprocal_table table;   // the default config, as hpcc_config::table
  const double table_error = table.worst_relative_error();
  tally exact_t, table_t;
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    path_params pp;
    pp.near_ts_wrap = seed % 3 == 0;
    pp.near_tx_wrap = seed % 4 == 0;
    const uint32_t max_stage = seed % 2 ? 0 : 5;
    const uint64_t rtt = seed % 5 == 0 ? 9'000'000 : 13'000'000;
    const unsigned frac_exact = seed % 3 == 1 ? 12 : seed % 3 == 2 ? 20 : 16;
    const unsigned frac_table = seed % 2 ? 16 : 12;   // U <= 2^(22-F): F = 20 would saturate at 4
    run_result r;
    run_sequence(seed, pp, config(hpcc_config::divider::exact, max_stage, frac_exact, rtt), nullptr, 0, 3000, exact_t, r);
    run_sequence(seed, pp, config(hpcc_config::divider::table, max_stage, frac_table, rtt), &table, table_error, 3000,
                 table_t, r);
    if (HasFatalFailure()) return;
  }
  for (const tally* t : {&exact_t, &table_t}) {
    EXPECT_EQ(t->acks, 72000u);
    EXPECT_GT(t->path_changes, 24u + 50);    // the first ACK of each run plus real changes
    EXPECT_GT(t->no_usable_hop, 50u);        // repeated timestamps were skipped
    EXPECT_GT(t->updates, 5000u);
    EXPECT_GT(t->mi, 10000u);
    EXPECT_GT(t->ai, 100u);                  // maxStage = 5 runs take AI stages
    EXPECT_EQ(t->max_inc_stage, 5u);
    EXPECT_GT(t->ts_wraps, 24u);             // 3000 ACKs span more than one 16.8 ms TS period
    EXPECT_GT(t->tx_wraps, 24u);
    EXPECT_LT(t->ambiguous_branch, t->acks / 100);
    EXPECT_LT(t->unchecked, t->acks / 1000);
    // The bound contracts by tau/T per ACK and grows by 1/2 only when tau << T; a few ulps.
    EXPECT_LT(t->max_u_bound_ulps, 80.0);
  }
  // Past the per-step checks: the table costs about epsilon/2 per step, the exact divider only
  // the rounding of U and eta.
  EXPECT_LT(exact_t.max_w_rel_err, 0.005);
  EXPECT_LT(table_t.max_w_rel_err, 1.0 / 256 + 0.005);
  RecordProperty("exact_max_w_rel_err", std::to_string(exact_t.max_w_rel_err));
  RecordProperty("table_max_w_rel_err", std::to_string(table_t.max_w_rel_err));
  RecordProperty("max_u_bound_ulps", std::to_string(std::max(exact_t.max_u_bound_ulps, table_t.max_u_bound_ulps)));
}

TEST(Hpcc, IncastDrivesWindowTowardsWai) {
  // A 100G hop whose queue climbs to 4 MB: U ~ 4e6 / (100G x 13 us / 8) + 1 ~ 26, so
  // W = Wc * 0.95 / 26 + 80 settles near 80 / (1 - 0.95/26) = 83 bytes.
  const reciprocal_table table;
  for (auto d : {hpcc_config::divider::exact, hpcc_config::divider::table}) {
    tally t;
    path_params pp;
    pp.incast = true;
    pp.p_path_change = 0;
    run_result r;
    run_sequence(77, pp, config(d), &table, table.worst_relative_error(), 3000, t, r);
    if (HasFatalFailure()) return;
    EXPECT_GT(r.final_u, 15.0);
    EXPECT_GE(r.final_w, 80u);
    EXPECT_LE(r.final_w, 90u);
  }
}

// ---- directed -------------------------------------------------------------------------------

TEST(Hpcc, StartsAtLineRate) {
  const reciprocal_table table;
  hpcc core(config(hpcc_config::divider::table), &table);
  EXPECT_EQ(core.w_init(), 162'500u);              // 100 Gb/s x 13 us / 8
  EXPECT_EQ(core.window(), core.w_init());
  EXPECT_EQ(core.window_bytes(), core.w_init());
  EXPECT_EQ(core.reference_window(), core.w_init());
  EXPECT_EQ(core.rate_bps(0), 100 * G);            // R = W / T
  EXPECT_DOUBLE_EQ(core.utilization(), 1.0);
  EXPECT_EQ(core.eta_fixed(), 62'259u);            // round(0.95 x 2^16)
  EXPECT_STREQ(core.name(), "hpcc");
}

TEST(Hpcc, NoIntChangesNothing) {
  hpcc core(config(hpcc_config::divider::exact), nullptr);
  one_hop_driver d{core};
  d.step(1000, 10, 0);
  d.step(1000, 10, 30000);
  const uint64_t w = core.window(), u = core.utilization_fixed(), seq = core.last_update_seq();
  cc_feedback fb;
  fb.ack_bytes = 1'000'000;
  fb.snd_nxt_bytes = 2'000'000;
  core.on_ack(fb);
  EXPECT_EQ(core.window(), w);
  EXPECT_EQ(core.utilization_fixed(), u);
  EXPECT_EQ(core.last_update_seq(), seq);
}

TEST(Hpcc, IdlePathAddsWaiPerUpdateUpToWinit) {
  // maxStage huge: with U < eta every update is AI. Congest first so there is room to grow.
  hpcc_config c = config(hpcc_config::divider::exact, 1'000'000);
  hpcc core(c, nullptr);
  one_hop_driver d{core};
  d.step(20'000, 0, 0);                             // first records
  for (int i = 0; i < 5; ++i) d.step(20'000, 0, 20'000);   // 1.6 MB queue, U ~ 10: MD
  ASSERT_LT(core.window(), 20'000u);
  // Idle: no queue, no bytes. The first ACK spans more than T, so U = u' = 0 at once.
  uint64_t w = core.window();
  int updates = 0;
  while (core.window() < core.w_init()) {
    d.step(20'000, 0, 0);
    EXPECT_EQ(core.utilization_fixed(), 0u);
    EXPECT_EQ(core.window(), std::min(w + 80, core.w_init()));
    EXPECT_EQ(core.reference_window(), core.window());
    w = core.window();
    ASSERT_LT(++updates, 3000);
  }
  EXPECT_EQ(core.inc_stage(), uint32_t(updates));
  d.step(20'000, 0, 0);
  EXPECT_EQ(core.window(), core.w_init());          // clamped at W_init
  EXPECT_EQ(core.rate_bps(0), 100 * G);
  EXPECT_EQ(core.u_underflows(), 0u);               // AI never divides

  // maxStage = 0: the same idle path is one MI step, U = 0 taken as one unit, back to W_init.
  hpcc mi(config(hpcc_config::divider::exact, 0), nullptr);
  one_hop_driver d2{mi};
  d2.step(20'000, 0, 0);
  for (int i = 0; i < 5; ++i) d2.step(20'000, 0, 20'000);
  ASSERT_LT(mi.window(), 20'000u);
  const uint64_t underflows = mi.u_underflows();
  d2.step(20'000, 0, 0);
  EXPECT_EQ(mi.window(), mi.w_init());
  EXPECT_EQ(mi.u_underflows(), underflows + 1);
}

TEST(Hpcc, HopAtEtaKeepsWindow) {
  // 16384 ns (> T, so tau = T and U = u') and 1520 x 128 B at 100G: txRate / B = 0.95 exactly,
  // and round(0.95 x 2^16) = eta_fx, so U = eta and W = Wc * eta / U + W_AI = Wc + W_AI.
  const reciprocal_table table;
  const double table_error = table.worst_relative_error();
  for (auto div : {hpcc_config::divider::exact, hpcc_config::divider::table}) {
    hpcc core(config(div), &table);
    one_hop_driver d{core};
    d.step(16'384, 1520, 0);
    d.step(16'384, 1520, 0);
    EXPECT_EQ(core.utilization_fixed(), core.eta_fixed());
    EXPECT_EQ(core.window(), core.w_init());        // Wc + W_AI, clamped: W kept
    for (int i = 0; i < 5; ++i) d.step(16'384, 1520, 20'000);   // congest
    ASSERT_LT(core.window(), 20'000u);
    d.step(16'384, 1520, 0);   // qlen min(0, 20000) = 0: back at eta
    for (int i = 0; i < 20; ++i) {
      const uint64_t wc = core.reference_window();
      d.step(16'384, 1520, 0);
      EXPECT_EQ(core.utilization_fixed(), core.eta_fixed());
      if (div == hpcc_config::divider::exact) {
        EXPECT_EQ(core.window(), wc + 80);
      } else {
        EXPECT_NEAR(double(core.window()), double(wc + 80), double(wc) * table_error + 1);
      }
    }
  }
}

TEST(Hpcc, AtEtaIsMultiplicativeWithStages) {
  // Line 12 is U >= eta: at U == eta exactly the MI branch runs (incStage back to 0), not AI.
  hpcc core(config(hpcc_config::divider::exact, 5), nullptr);
  one_hop_driver d{core};
  d.step(16'384, 1520, 0);
  for (int i = 0; i < 4; ++i) {
    d.step(16'384, 1520, 0);
    ASSERT_EQ(core.utilization_fixed(), core.eta_fixed());
    EXPECT_EQ(core.inc_stage(), 0u);
  }
  // Just below eta (1519 units): AI stages count up to maxStage, then one MI resets them.
  for (uint32_t i = 1; i <= 7; ++i) {
    d.step(16'384, 1519, 0);
    ASSERT_LT(core.utilization_fixed(), core.eta_fixed());
    EXPECT_EQ(core.inc_stage(), i <= 5 ? i : i - 6);
  }
}

TEST(Hpcc, TauFromTheMaxHopAndFirstOnTies) {
  // Two 100G hops at txRate / B = 0.5, hop 0 over 10.24 us, hop 1 over 5.12 us. A tie keeps
  // hop 0, so tau = 10.24 us; with hop 1 busier (0.6) tau = 5.12 us.
  auto two_hops = [](uint32_t ts0, uint32_t tx0, uint32_t ts1, uint32_t tx1) {
    int_stack s{};
    s.n_hop = 2;
    s.path_id = 9;
    s.hop[0].b = 5; s.hop[0].ts = ts0; s.hop[0].tx_bytes = tx0; s.hop[0].qlen = 0;
    s.hop[1].b = 5; s.hop[1].ts = ts1; s.hop[1].tx_bytes = tx1; s.hop[1].qlen = 0;
    return s;
  };
  auto expect_u = [](double tau_us, double u) { return (1 - tau_us / 13) * 1.0 + tau_us / 13 * u; };
  {
    hpcc core(config(hpcc_config::divider::exact), nullptr);
    const int_stack a = two_hops(1000, 0, 2000, 0), b = two_hops(11'240, 500, 7'120, 250);
    core.on_ack(ack(a, 1000, 1000));
    core.on_ack(ack(b, 2000, 2000));
    EXPECT_NEAR(core.utilization(), expect_u(10.24, 0.5), 1.0 / 65536);
  }
  {
    hpcc core(config(hpcc_config::divider::exact), nullptr);
    const int_stack a = two_hops(1000, 0, 2000, 0), b = two_hops(11'240, 500, 7'120, 300);
    core.on_ack(ack(a, 1000, 1000));
    core.on_ack(ack(b, 2000, 2000));
    EXPECT_NEAR(core.utilization(), expect_u(5.12, 0.6), 1.0 / 65536);
  }
}

TEST(Hpcc, WrapAroundOfTsAndTxBytes) {
  // Records straddle both wraps: TS 2^24 - 500 -> 12000 (12500 ns), txBytes 2^20 - 100 -> 1000
  // (1100 units = 140800 B). u' = 140800 x 8 / 12.5 us / 100G = 0.90112; tau = 12.5 us.
  hpcc core(config(hpcc_config::divider::exact), nullptr);
  const int_stack a = one_hop(3, 5, (1u << 24) - 500, (1u << 20) - 100, 0);
  const int_stack b = one_hop(3, 5, 12'000, 1'000, 0);
  core.on_ack(ack(a, 1000, 1000));
  core.on_ack(ack(b, 2000, 2000));
  const double u = 140'800.0 * 8 / 12.5e-6 / 100e9;
  const double expect = (1 - 12.5 / 13) * 1.0 + 12.5 / 13 * u;
  EXPECT_NEAR(core.utilization(), expect, 2.0 / 65536);
}

TEST(Hpcc, PathChangeReplacesRecords) {
  hpcc core(config(hpcc_config::divider::exact), nullptr);
  core.on_ack(ack(one_hop(1, 5, 1000, 500'000, 0), 1000, 1000));
  core.on_ack(ack(one_hop(1, 5, 21'000, 500'000, 0), 2000, 2000));   // idle 20 us: U = 0
  ASSERT_EQ(core.utilization_fixed(), 0u);
  const uint64_t w = core.window(), wc = core.reference_window(), seq = core.last_update_seq();
  // A new path ID: records replaced, no update, even though ack > lastUpdateSeq.
  core.on_ack(ack(one_hop(2, 5, 41'000, 7, 0), 3000, 3000));
  EXPECT_EQ(core.utilization_fixed(), 0u);
  EXPECT_EQ(core.window(), w);
  EXPECT_EQ(core.reference_window(), wc);
  EXPECT_EQ(core.last_update_seq(), seq);
  // The next ACK measures against the new records: 20 us, 1000 units = 128000 B -> u' = 0.512.
  // Against the old ones it would have read (7 - 500000) mod 2^20 units.
  core.on_ack(ack(one_hop(2, 5, 61'000, 1007, 0), 4000, 4000));
  EXPECT_NEAR(core.utilization(), 0.512, 1.0 / 65536);
  EXPECT_EQ(core.last_update_seq(), 4000u);
  // A hop count change on the same path ID is a path change too.
  int_stack two = one_hop(2, 5, 81'000, 2007, 0);
  two.n_hop = 2;
  two.hop[1] = two.hop[0];
  const uint64_t u = core.utilization_fixed();
  core.on_ack(ack(two, 5000, 5000));
  EXPECT_EQ(core.utilization_fixed(), u);
  EXPECT_EQ(core.last_update_seq(), 4000u);
}

TEST(Hpcc, SpeedCodes) {
  EXPECT_EQ(hpcc::speed_bps(1, 7), 10 * G);
  EXPECT_EQ(hpcc::speed_bps(5, 7), 100 * G);
  EXPECT_EQ(hpcc::speed_bps(8, 7), 800 * G);
  EXPECT_EQ(hpcc::speed_bps(0, 7), 7u);
  EXPECT_EQ(hpcc::speed_bps(9, 7), 7u);
  // Code 0 reads as the NIC's line rate: same U as code 5 at 100G.
  hpcc a(config(hpcc_config::divider::exact), nullptr), b(config(hpcc_config::divider::exact), nullptr);
  one_hop_driver da{a}, db{b};
  for (int i = 0; i < 4; ++i) { da.step(5000, 2000, 300, 5); db.step(5000, 2000, 300, 0); }
  EXPECT_EQ(a.utilization_fixed(), b.utilization_fixed());
  EXPECT_EQ(a.window(), b.window());
}

TEST(Hpcc, SaturatesAboveTableRange) {
  // A 10G hop with 60000 x 80 B = 4.8 MB queued, 20 us (> T) since the last ACK, so U = u':
  //   U_fx = round(4.8e6 B x 8 b x 2^16 / (10 Gb/s x 13 us)) = round(2516582400000 / 130000)
  //        = round(19358326.15) = 19358326 (U = 295.38 > 2^(22-16) = 64).
  // W from Wc = W_init = 162500 B and eta_fx = round(0.95 x 2^16) = 62259, Wc x eta_fx = 10117087500:
  //   exact:  floor(10117087500 / 19358326) + 80 = 522 + 80 = 602 B
  //   table:  divides by 2^22 = 4194304 instead (counted): 10117087500 / 4194304 = 2412.10...,
  //           within the table's epsilon = 1/128 of that: [2393.26, 2430.95] -> W in [2473, 2511] B.
  const reciprocal_table table;
  hpcc tab(config(hpcc_config::divider::table), &table), ex(config(hpcc_config::divider::exact), nullptr);
  one_hop_driver dt{tab}, de{ex};
  for (int i = 0; i < 2; ++i) { dt.step(20'000, 0, 60'000, 1); de.step(20'000, 0, 60'000, 1); }
  EXPECT_EQ(tab.utilization_fixed(), 19'358'326u);
  EXPECT_EQ(ex.utilization_fixed(), 19'358'326u);
  EXPECT_EQ(tab.u_saturations(), 1u);
  EXPECT_EQ(ex.u_saturations(), 0u);
  EXPECT_EQ(ex.window(), 602u);
  EXPECT_GE(tab.window(), 2473u);
  EXPECT_LE(tab.window(), 2511u);
}

TEST(Hpcc, UpdateCycles) {
  const reciprocal_table table;
  hpcc tab(config(hpcc_config::divider::table), &table), ex(config(hpcc_config::divider::exact), nullptr);
  EXPECT_EQ(tab.update_cycles(), 8u + 3 + 1);      // base, lookup, multiply
  EXPECT_EQ(ex.update_cycles(), 8u + 33);          // base, 32-bit radix-2 divider
  EXPECT_GE(ex.update_cycles() - 8, 8 * (tab.update_cycles() - 8));   // the division: >= 8x
  hpcc_config c = config(hpcc_config::divider::table);
  c.base_cycles = 20;
  EXPECT_EQ(hpcc(c, &table).update_cycles(), 24u);
}

TEST(Hpcc, BadConfigsThrow) {
  const reciprocal_table table;
  auto bad = [&](auto edit, const reciprocal_table* t) {
    hpcc_config c = config(hpcc_config::divider::table);
    edit(c);
    EXPECT_THROW(hpcc(c, t), std::invalid_argument);
  };
  bad([](hpcc_config&) {}, nullptr);                                  // table division, no table
  bad([](hpcc_config& c) { c.table.epsilon = 1.0 / 64; }, &table);   // table built from another config
  bad([](hpcc_config& c) { c.eta = 0; }, &table);
  bad([](hpcc_config& c) { c.eta = 1.5; }, &table);
  bad([](hpcc_config& c) { c.u_frac_bits = 0; }, &table);
  bad([](hpcc_config& c) { c.u_frac_bits = 25; }, &table);
  bad([](hpcc_config& c) { c.w_ai_bytes = 0; }, &table);
  bad([](hpcc_config& c) { c.line_rate_bps = 0; }, &table);
  bad([](hpcc_config& c) { c.base_rtt_ps = 0; }, &table);
  bad([](hpcc_config& c) { c.base_rtt_ps = 1000; }, &table);         // W_init 12 B < W_AI
  bad([](hpcc_config& c) { c.base_rtt_ps = 100'000'000'000; c.line_rate_bps = 800 * G; }, &table);   // W_init 1e10 B >= 2^32
  EXPECT_NO_THROW(hpcc(config(hpcc_config::divider::exact), nullptr));
}
