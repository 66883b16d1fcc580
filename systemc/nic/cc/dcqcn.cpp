#include "nic/cc/dcqcn.h"

#include <algorithm>
#include <stdexcept>

namespace netasic {

dcqcn_config dcqcn_config::paper(uint64_t line_rate_bps) {
  dcqcn_config c;
  c.variant = dcqcn_variant::paper;
  c.line_rate_bps = line_rate_bps;
  c.alpha_resume_interval_ps = 55'000'000;
  c.rate_decrease_interval_ps = 50'000'000;
  c.rp_timer_ps = 55'000'000;
  c.byte_counter_bytes = 10'000'000;
  c.fast_recovery_times = 5;
  c.rate_ai_bps = mul_div(40'000'000, line_rate_bps, 40'000'000'000);
  c.rate_hai_bps = 10 * c.rate_ai_bps;
  c.clamp_target_rate = true;
  return c;
}

dcqcn::dcqcn(const dcqcn_config& cfg) : cfg_(cfg), rc_(cfg.line_rate_bps), rt_(cfg.line_rate_bps) {
  // A zero period would make the catch-up loops spin.
  if (cfg_.alpha_resume_interval_ps == 0 || cfg_.rate_decrease_interval_ps == 0 || cfg_.rp_timer_ps == 0)
    throw std::invalid_argument("dcqcn: timer periods must be positive");
  if (cfg_.line_rate_bps == 0 || cfg_.min_rate_bps > cfg_.line_rate_bps)
    throw std::invalid_argument("dcqcn: need 0 < min_rate <= line_rate");
  if (cfg_.rate_ai_bps == 0) cfg_.rate_ai_bps = mul_div(5'000'000, cfg_.line_rate_bps, 25'000'000'000);
  if (cfg_.rate_hai_bps == 0) cfg_.rate_hai_bps = mul_div(50'000'000, cfg_.line_rate_bps, 25'000'000'000);
}

const char* dcqcn::name() const { return cfg_.with_window ? "dcqcn+win" : "dcqcn"; }

void dcqcn::on_ack(const cc_feedback& fb) { advance(fb.now_ps); }

uint64_t dcqcn::rate_bps(uint64_t now_ps) {
  advance(now_ps);
  return rc_;
}

uint64_t dcqcn::window_bytes() const {
  if (!cfg_.with_window) return UINT64_MAX;
  // ns-3's VAR_WIN: maxBdp × rate / max_rate, i.e. RC × base RTT.
  return std::max<uint64_t>(cfg_.mtu_bytes, mul_div(rc_, cfg_.base_rtt_ps, ps_bits_per_byte));
}

void dcqcn::on_cnp(uint64_t now_ps) {
  advance(now_ps);
  const uint64_t now = now_;
  if (cfg_.variant == dcqcn_variant::mlx) {
    dec_cnp_ = true;
    if (!active_) {
      active_ = true;
      alpha_ = 1.0;
      alpha_cnp_ = false;   // the first CNP sets alpha itself; its period starts now
      next_alpha_ = now + cfg_.alpha_resume_interval_ps;
      next_dec_ = now + cfg_.rate_decrease_interval_ps + mlx_first_check_delay_ps;
      const auto scaled = static_cast<uint64_t>(static_cast<double>(rc_) * cfg_.rate_on_first_cnp);
      rc_ = rt_ = std::clamp(scaled, cfg_.min_rate_bps, cfg_.line_rate_bps);
    } else {
      alpha_cnp_ = true;
    }
    return;
  }
  active_ = true;
  if (!cut_once_ || now - last_cut_ >= cfg_.rate_decrease_interval_ps) cut(now);
  alpha_ = (1 - cfg_.g) * alpha_ + cfg_.g;   // after the cut: Eq. (1) cuts with the old alpha
  next_alpha_ = now + cfg_.alpha_resume_interval_ps;
}

void dcqcn::on_send(uint64_t now_ps, uint32_t bytes) {
  advance(now_ps);
  if (!increasing_ || cfg_.byte_counter_bytes == 0) return;
  bytes_ += bytes;
  while (bytes_ >= cfg_.byte_counter_bytes) {
    bytes_ -= cfg_.byte_counter_bytes;
    increase(false);
  }
}

void dcqcn::advance(uint64_t now_ps) {
  const uint64_t now = std::max(now_ps, now_);
  if (active_) {
    // Only the first check after a CNP does anything (later ones find no CNP), so run the
    // other timers up to it, cut, and then let them run on to `now`.
    if (cfg_.variant == dcqcn_variant::mlx && dec_cnp_ && next_dec_ <= now) {
      const uint64_t at = next_dec_;
      run_increase(at);
      run_alpha(at);
      cut(at);
      dec_cnp_ = false;
      next_dec_ += cfg_.rate_decrease_interval_ps;
    }
    run_increase(now);
    run_alpha(now);
    if (cfg_.variant == dcqcn_variant::mlx && next_dec_ <= now)   // empty checks: skip
      next_dec_ += ((now - next_dec_) / cfg_.rate_decrease_interval_ps + 1) * cfg_.rate_decrease_interval_ps;
  }
  now_ = now;
}

void dcqcn::run_alpha(uint64_t until) {
  const uint64_t k = cfg_.alpha_resume_interval_ps;
  while (next_alpha_ <= until) {
    const double decayed = (1 - cfg_.g) * alpha_;
    // Rounding stops the decay at 0 or at a tiny subnormal (about 128 × 2^-1074 for g = 1/256).
    // From there every expiry leaves alpha as it is, so skip them instead of looping.
    if (decayed == alpha_ && !alpha_cnp_) {
      next_alpha_ += ((until - next_alpha_) / k + 1) * k;
      return;
    }
    alpha_ = alpha_cnp_ ? (1 - cfg_.g) * alpha_ + cfg_.g : decayed;
    alpha_cnp_ = false;
    next_alpha_ += k;
  }
}

void dcqcn::run_increase(uint64_t until) {
  const uint64_t ti = cfg_.rp_timer_ps;
  while (increasing_ && next_inc_ <= until) {
    if (rc_ == cfg_.line_rate_bps && rt_ == cfg_.line_rate_bps) {   // at line rate only T moves
      const uint64_t n = (until - next_inc_) / ti + 1;
      t_ += n;
      next_inc_ += n * ti;
      return;
    }
    increase(true);
    next_inc_ += ti;
  }
}

void dcqcn::cut(uint64_t at) {
  // ns-3 keeps RT when no increase ran since the last cut (a second cut in a row).
  if (cfg_.clamp_target_rate || t_ != 0 || bc_ != 0) rt_ = rc_;
  const auto cut_rate = static_cast<uint64_t>(static_cast<double>(rc_) * (1 - alpha_ / 2));
  rc_ = std::max(cfg_.min_rate_bps, cut_rate);
  t_ = bc_ = bytes_ = 0;
  increasing_ = true;
  next_inc_ = at + cfg_.rp_timer_ps;
  cut_once_ = true;
  last_cut_ = at;
}

void dcqcn::increase(bool from_timer) {
  const uint64_t f = cfg_.fast_recovery_times;
  const uint64_t bc = cfg_.byte_counter_bytes ? bc_ : t_;
  if (std::max(t_, bc) < f) {
    // fast recovery: RT stays
  } else if (std::min(t_, bc) > f) {
    rt_ = std::min(rt_ + cfg_.rate_hai_bps, cfg_.line_rate_bps);
  } else {
    rt_ = std::min(rt_ + cfg_.rate_ai_bps, cfg_.line_rate_bps);
  }
  rc_ = (rc_ + rt_ + 1) / 2;
  ++(from_timer ? t_ : bc_);
}

bool dcqcn_np::should_send_cnp(uint64_t now_ps, bool ce_marked) {
  if (!ce_marked) return false;
  if (sent_ != 0 && now_ps < last_ + interval_) return false;
  last_ = now_ps;
  ++sent_;
  return true;
}

}  // namespace netasic
