#include "blocks/conga.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace netasic {
namespace {
constexpr uint64_t x_limit = uint64_t(1) << 47;   // X saturates here, so X * alpha_q16 fits 64 bits
}  // namespace

// ---- DRE --------------------------------------------------------------------------------------------

dre::dre(const dre_config& cfg) : cfg_(cfg) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("dre: " + what); };
  if (cfg.t_dre_ps < 1) fail("t_dre_ps must be at least 1");
  if (!(cfg.alpha > 0 && cfg.alpha <= 1)) fail("alpha must be in (0, 1]");
  if (cfg.q_bits < 1 || cfg.q_bits > 8) fail("q_bits must be 1..8, got " + std::to_string(cfg.q_bits));
  if (!(cfg.link_gbps > 0)) fail("link_gbps must be positive");
  alpha_q16_ = uint32_t(std::lround(cfg.alpha * 65536.0));
  if (alpha_q16_ < 1) fail("alpha is below 2^-16, the register's resolution");
  // C * tau in 1/256 bytes: Gb/s * 1e9 / 8 bytes/s * tau ps * 1e-12 s/ps * 256.
  const double full = cfg.link_gbps * 1e9 / 8.0 * tau_ps() * 1e-12 * double(1u << frac_bits);
  if (!(full >= 1) || full > double(uint64_t(1) << 46)) fail("link_gbps * tau out of range");
  full_ = uint64_t(std::llround(full));
}

// Each decrement is X -= floor(X * alpha_q16 / 2^16), as a shift-and-multiply datapath would do
// it. Once a decrement rounds to zero X stays put, so a long idle gap costs at most a few hundred
// iterations (X halves in about 7 periods at alpha = 0.1).
void dre::advance(uint64_t now_ps) {
  if (now_ps < last_now_) throw std::logic_error("dre: time went backwards");
  last_now_ = now_ps;
  const uint64_t target = now_ps / cfg_.t_dre_ps;
  uint64_t n = target - epoch_;
  decrements_ += n;
  epoch_ = target;
  while (n-- > 0) {
    const uint64_t dec = (x_ * alpha_q16_) >> 16;
    if (dec == 0) break;
    x_ -= dec;
  }
}

void dre::add(uint64_t now_ps, uint32_t bytes) {
  advance(now_ps);
  x_ += uint64_t(bytes) << frac_bits;
  if (x_ > x_limit) x_ = x_limit;
}

uint64_t dre::raw(uint64_t now_ps) {
  advance(now_ps);
  return x_;
}

uint32_t dre::quantize(uint64_t x_raw) const {
  const uint32_t top = (1u << cfg_.q_bits) - 1;
  if (x_raw >= full_) return top;
  const uint64_t m = (x_raw << cfg_.q_bits) / full_;   // x < full <= 2^46: no overflow
  return m > top ? top : uint32_t(m);
}

uint32_t dre::metric(uint64_t now_ps) { return quantize(raw(now_ps)); }

// ---- leaf ---------------------------------------------------------------------------------------

conga_leaf::conga_leaf(const conga_config& cfg) : cfg_(cfg), ft_(cfg.flowlet), rng_(cfg.seed) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("conga: " + what); };
  if (cfg.leaves < 2) fail("leaves must be at least 2");
  if (cfg.leaf_id >= cfg.leaves) fail("leaf_id must be below leaves");
  if (cfg.uplinks < 1 || cfg.uplinks > 32) fail("uplinks must be 1..32, got " + std::to_string(cfg.uplinks));
  if (!cfg.uplink_gbps.empty() && cfg.uplink_gbps.size() != cfg.uplinks)
    fail("uplink_gbps has " + std::to_string(cfg.uplink_gbps.size()) + " entries for " + std::to_string(cfg.uplinks) + " uplinks");
  for (uint32_t u = 0; u < cfg.uplinks; ++u) {
    dre_config d = cfg.dre;
    if (!cfg.uplink_gbps.empty()) d.link_gbps = cfg.uplink_gbps[u];
    dre_.emplace_back(d);
  }
  to_.assign(size_t(cfg.leaves) * cfg.uplinks, {});
  from_.assign(size_t(cfg.leaves) * cfg.uplinks, {});
  rr_.assign(cfg.leaves, 0);
}

void conga_leaf::check_leaf(uint32_t leaf, const char* what) const {
  if (leaf >= cfg_.leaves) throw std::out_of_range(std::string("conga: ") + what + " " + std::to_string(leaf) + " >= leaves");
  if (leaf == cfg_.leaf_id) throw std::invalid_argument(std::string("conga: ") + what + " is this leaf (traffic within a leaf does not cross the fabric)");
}

uint32_t conga_leaf::check_allowed(uint32_t allowed) const {
  const uint32_t all = cfg_.uplinks == 32 ? UINT32_MAX : (1u << cfg_.uplinks) - 1;
  if (!(allowed & all)) throw std::invalid_argument("conga: no allowed uplink");
  return allowed & all;
}

uint32_t conga_leaf::to_leaf(uint32_t dst_leaf, uint32_t uplink, uint64_t now_ps) const {
  const to_entry& e = to_.at(size_t(dst_leaf) * cfg_.uplinks + uplink);
  return fresh(e.valid, e.at, now_ps) ? e.metric : 0;
}

conga_from_entry conga_leaf::from_leaf(uint32_t src_leaf, uint32_t lbtag, uint64_t now_ps) const {
  const from_entry& e = from_.at(size_t(src_leaf) * cfg_.uplinks + lbtag);
  return {e.metric, e.changed, fresh(e.valid, e.at, now_ps)};
}

uint32_t conga_leaf::choose_uplink(uint32_t dst_leaf, uint64_t now_ps, uint32_t cached, uint32_t allowed) {
  check_leaf(dst_leaf, "dst_leaf");
  allowed = check_allowed(allowed);
  // argmin over uplinks of max(local, remote); the ties in a bit mask.
  uint32_t best = UINT32_MAX, ties = 0, count = 0;
  for (uint32_t u = 0; u < cfg_.uplinks; ++u) {
    if (!((allowed >> u) & 1u)) continue;
    const uint32_t local = dre_[u].metric(now_ps), remote = to_leaf(dst_leaf, u, now_ps);
    const uint32_t cost = local > remote ? local : remote;
    if (cost < best) { best = cost; ties = 0; count = 0; }
    if (cost == best) { ties |= 1u << u; ++count; }
  }
  // A flow moves only to a strictly better uplink: the port its (invalid) entry holds wins a tie.
  if (cached < cfg_.uplinks && ((ties >> cached) & 1u)) {
    ++count_.kept_cached;
    return cached;
  }
  uint32_t k = 0;
  if (count > 1) {
    k = uint32_t(rng_.below(count));
    ++count_.random_choices;
  }
  for (uint32_t u = 0;; ++u)
    if (((ties >> u) & 1u) && k-- == 0) return u;
}

conga_send conga_leaf::send(uint64_t hash, uint32_t dst_leaf, uint32_t bytes, uint64_t now_ps, uint32_t allowed, uint64_t flow_id) {
  check_leaf(dst_leaf, "dst_leaf");
  check_allowed(allowed);
  if (now_ps < last_now_) throw std::logic_error("conga: time went backwards");
  last_now_ = now_ps;
  const flowlet_result f = ft_.lookup_with(
      hash, now_ps, [&](uint32_t cached) { return choose_uplink(dst_leaf, now_ps, cached, allowed); }, flow_id);
  ++count_.sent;
  if (f.new_flowlet) ++count_.new_flowlets;
  dre_[f.port].add(now_ps, bytes);

  conga_send out{f.port, f.new_flowlet, {}};
  out.header.lbtag = uint8_t(f.port);
  out.header.ce = 0;   // the uplink's own metric enters the decision as the local metric

  // Feedback for dst_leaf: round robin from the pointer, a changed entry first, else the next
  // fresh one; nothing if no entry is fresh.
  const size_t row = size_t(dst_leaf) * cfg_.uplinks;
  uint32_t pick = UINT32_MAX;
  for (int pass = 0; pass < 2 && pick == UINT32_MAX; ++pass)
    for (uint32_t k = 0; k < cfg_.uplinks; ++k) {
      const uint32_t j = (rr_[dst_leaf] + k) % cfg_.uplinks;
      const from_entry& e = from_[row + j];
      if (fresh(e.valid, e.at, now_ps) && (pass == 1 || e.changed)) { pick = j; break; }
    }
  if (pick != UINT32_MAX) {
    from_entry& e = from_[row + pick];
    out.header.fb_valid = true;
    out.header.fb_lbtag = uint8_t(pick);
    out.header.fb_metric = e.metric;
    ++count_.feedback_sent;
    if (e.changed) ++count_.feedback_changed;
    e.changed = false;
    rr_[dst_leaf] = (pick + 1) % cfg_.uplinks;
  }
  return out;
}

void conga_leaf::receive(uint32_t src_leaf, const conga_header& h, uint64_t now_ps) {
  check_leaf(src_leaf, "src_leaf");
  if (h.lbtag >= cfg_.uplinks) throw std::invalid_argument("conga: LBTag " + std::to_string(h.lbtag) + " >= uplinks");
  if (h.ce > max_metric() || (h.fb_valid && h.fb_metric > max_metric()))
    throw std::invalid_argument("conga: metric wider than Q bits");
  if (h.fb_valid && h.fb_lbtag >= cfg_.uplinks) throw std::invalid_argument("conga: FB_LBTag >= uplinks");
  if (now_ps < last_now_) throw std::logic_error("conga: time went backwards");
  last_now_ = now_ps;
  ++count_.received;
  from_entry& f = from_[size_t(src_leaf) * cfg_.uplinks + h.lbtag];
  f = {h.ce, true, true, now_ps};
  if (h.fb_valid) {
    to_[size_t(src_leaf) * cfg_.uplinks + h.fb_lbtag] = {h.fb_metric, true, now_ps};
    ++count_.feedback_received;
  }
}

}  // namespace netasic
