#include "blocks/path_select.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace netasic {
namespace {
constexpr uint32_t max_table = 1u << 20;
}  // namespace

std::vector<uint32_t> path_select::replicate(const std::vector<uint32_t>& weights, uint32_t table_size) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("path_select: " + what); };
  if (weights.empty()) fail("no weights");
  if (table_size < 1 || table_size > max_table) fail("table_size must be 1.." + std::to_string(max_table));
  uint64_t g = 0, nonzero = 0;
  for (uint32_t w : weights)
    if (w) { g = std::gcd(g, uint64_t(w)); ++nonzero; }
  if (nonzero == 0) fail("every weight is zero");
  std::vector<uint32_t> r(weights.size(), 0);
  uint64_t sum = 0;
  for (size_t j = 0; j < weights.size(); ++j) sum += weights[j] / g;
  if (sum <= table_size) {   // exact: the reduced weights fit
    for (size_t j = 0; j < weights.size(); ++j) r[j] = uint32_t(weights[j] / g);
    return r;
  }
  if (nonzero > table_size) fail("table_size " + std::to_string(table_size) + " is smaller than the " + std::to_string(nonzero) + " members of nonzero weight");

  // Largest remainder, in integers: quota_j = T w_j / W; e_j = T w_j - r_j W is the remainder
  // (negative once a member is given more than its quota). Every nonzero member keeps one entry,
  // or it would become unreachable. Bounds: T <= 2^20, w < 2^32, so T w < 2^52 fits.
  const int64_t T = table_size;
  int64_t W = 0;
  for (uint32_t w : weights) W += int64_t(w);
  std::vector<int64_t> e(weights.size(), 0);
  int64_t total = 0;
  for (size_t j = 0; j < weights.size(); ++j) {
    if (!weights[j]) continue;
    r[j] = uint32_t(std::max<int64_t>(1, T * int64_t(weights[j]) / W));
    e[j] = T * int64_t(weights[j]) - int64_t(r[j]) * W;
    total += r[j];
  }
  // Too few: one more to each of the largest remainders. Too many (the minimum of one pushed the
  // small members over): one fewer from the most over-served members that can spare one.
  while (total != T) {
    size_t best = weights.size();
    for (size_t j = 0; j < weights.size(); ++j) {
      if (!weights[j]) continue;
      if (total < T) {
        if (best == weights.size() || e[j] > e[best]) best = j;
      } else if (r[j] > 1 && (best == weights.size() || e[j] < e[best])) {
        best = j;
      }
    }
    if (total < T) { ++r[best]; e[best] -= W; ++total; }
    else { --r[best]; e[best] += W; --total; }
  }
  return r;
}

path_select::path_select(const path_select_config& cfg) : cfg_(cfg), rng_(cfg.seed) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("path_select: " + what); };
  if (cfg.members.empty()) fail("members is empty");
  if (cfg.mode != path_mode::ecmp && cfg.mode != path_mode::wcmp && cfg.mode != path_mode::spray_random &&
      cfg.mode != path_mode::spray_round_robin)
    fail("mode out of range");
  if (cfg.mode == path_mode::ecmp && !cfg.weights.empty()) fail("ecmp takes no weights (use wcmp)");
  if (!cfg.weights.empty() && cfg.weights.size() != cfg.members.size())
    fail("weights has " + std::to_string(cfg.weights.size()) + " entries for " + std::to_string(cfg.members.size()) + " members");

  if (cfg.weights.empty()) {
    // Equal weights: each member once, in order, as a plain ECMP group is written.
    if (cfg.members.size() > max_table) fail("more than " + std::to_string(max_table) + " members");
    quant_.replicas.assign(cfg.members.size(), 1);
  } else {
    quant_.replicas = replicate(cfg.weights, cfg.table_size);
  }
  uint64_t entries = 0;
  for (uint32_t x : quant_.replicas) entries += x;
  quant_.table_entries = uint32_t(entries);

  // Smooth weighted round robin (as nginx interleaves upstreams): each step every member gains its
  // replica count, the richest (lowest index on a tie) takes the slot and pays the total.
  const size_t n = quant_.replicas.size();
  std::vector<int64_t> credit(n, 0);
  table_.reserve(entries);
  for (uint64_t k = 0; k < entries; ++k) {
    size_t best = n;
    for (size_t j = 0; j < n; ++j) {
      if (!quant_.replicas[j]) continue;   // weight 0: never in the table
      credit[j] += quant_.replicas[j];
      if (best == n || credit[j] > credit[best]) best = j;
    }
    credit[best] -= int64_t(entries);
    table_.push_back(uint32_t(best));
  }

  quant_.max_share_error = 0;
  quant_.max_oversubscription = 1;
  if (!cfg.weights.empty()) {
    double wsum = 0;
    for (uint32_t w : cfg.weights) wsum += w;
    for (size_t j = 0; j < n; ++j) {
      if (!cfg.weights[j]) continue;
      const double share = double(quant_.replicas[j]) / double(entries), target = cfg.weights[j] / wsum;
      quant_.max_share_error = std::max(quant_.max_share_error, std::fabs(share - target));
      quant_.max_oversubscription = std::max(quant_.max_oversubscription, share / target);
    }
  }
  count_.per_member.assign(n, 0);
}

uint32_t path_select::select_member(uint64_t hash) {
  const uint32_t size = uint32_t(table_.size());
  uint32_t slot;
  switch (cfg_.mode) {
    case path_mode::spray_random: slot = uint32_t(rng_.below(size)); break;
    case path_mode::spray_round_robin:
      slot = rr_;
      rr_ = rr_ + 1 == size ? 0 : rr_ + 1;
      break;
    default: slot = uint32_t(hash % size); break;   // ecmp, wcmp
  }
  const uint32_t m = table_[slot];
  ++count_.selections;
  ++count_.per_member[m];
  return m;
}

}  // namespace netasic
