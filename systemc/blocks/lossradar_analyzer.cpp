#include "blocks/lossradar_analyzer.h"

#include <algorithm>
#include <map>

namespace netasic {

const char* loss_class_name(loss_class c) {
  switch (c) {
    case loss_class::congestion: return "congestion";
    case loss_class::black_hole: return "black_hole";
    case loss_class::random: return "random";
    case loss_class::loop: return "loop";
    case loss_class::unknown: break;
  }
  return "unknown";
}

bool consecutive_ip_ids(std::vector<uint16_t> ids) {
  if (ids.size() < 2) return true;
  std::sort(ids.begin(), ids.end());
  // Consecutive modulo 2^16: at most one step around the circle is not +1, and it is the wrap.
  size_t breaks = 0;
  for (size_t i = 1; i < ids.size(); ++i)
    if (uint16_t(ids[i] - ids[i - 1]) != 1) ++breaks;
  if (breaks == 0) return true;
  return breaks == 1 && uint16_t(ids.front() - ids.back()) == 1;
}

namespace {

using loss_group = std::map<uint64_t, std::vector<analyzed_loss*>>;

loss_group by_flow(const std::vector<analyzed_loss*>& v) {
  loss_group g;
  for (analyzed_loss* l : v) g[l->flow_key()].push_back(l);
  return g;
}

std::vector<uint16_t> ids_of(const std::vector<analyzed_loss*>& v) {
  std::vector<uint16_t> ids;
  for (const analyzed_loss* l : v) ids.push_back(l->sig.ip_id());
  return ids;
}

// CLASSIFY_BURST (Algorithm 10, lines 12-19).
void classify_burst(const std::vector<analyzed_loss*>& burst, const lossradar_analyzer_params& p) {
  const loss_group flows = by_flow(burst);
  for (const auto& [key, f] : flows)
    if (!consecutive_ip_ids(ids_of(f))) {
      for (analyzed_loss* l : burst) l->cls = loss_class::congestion;
      return;
    }
  for (const auto& [key, f] : flows)
    if (f.size() > p.n_bb)
      for (analyzed_loss* l : f) l->cls = loss_class::black_hole;
  for (analyzed_loss* l : burst)
    if (l->cls == loss_class::unknown) l->cls = loss_class::congestion;
}

// RANDOM_DISTRIBUTION (Algorithm 11, lines 11-17): the share of n equal bins with a loss.
bool random_distribution(const std::vector<analyzed_loss*>& rest, uint64_t start_ps, uint64_t span_ps, double p_rand) {
  const size_t n = rest.size();
  if (n == 0) return false;
  std::vector<bool> hit(n);
  for (const analyzed_loss* l : rest) {
    const uint64_t off = l->t_ps > start_ps ? l->t_ps - start_ps : 0;
    hit[std::min<size_t>(n - 1, size_t((long double)off * (long double)n / (long double)span_ps))] = true;
  }
  return double(std::count(hit.begin(), hit.end(), true)) / double(n) > p_rand;
}

}  // namespace

void lossradar_bursty_analysis(std::vector<analyzed_loss*>& b, const lossradar_analyzer_params& p) {
  // FIND_NEXT_BURST: maximal runs with back-to-back gaps under t_gap, of at least n_burst losses.
  size_t i = 0;
  while (i < b.size()) {
    size_t j = i;
    while (j + 1 < b.size() && b[j + 1]->t_ps - b[j]->t_ps < p.t_gap_ps) ++j;
    if (j - i + 1 >= p.n_burst) classify_burst(std::vector<analyzed_loss*>(b.begin() + long(i), b.begin() + long(j) + 1), p);
    i = j + 1;
  }
}

void lossradar_long_term_analysis(std::vector<analyzed_loss*>& L, uint64_t start_ps, const lossradar_analyzer_params& p) {
  // Lines 2-4: a flow's unclassified losses, consecutive and at least n_nb: a black hole.
  std::vector<analyzed_loss*> unknown;
  for (analyzed_loss* l : L)
    if (l->cls == loss_class::unknown) unknown.push_back(l);
  for (const auto& [key, f] : by_flow(unknown))
    if (f.size() >= p.n_nb && consecutive_ip_ids(ids_of(f)))
      for (analyzed_loss* l : f) l->cls = loss_class::black_hole;
  std::vector<analyzed_loss*> rest;
  for (analyzed_loss* l : unknown)
    if (l->cls == loss_class::unknown) rest.push_back(l);
  // Lines 6-8: mostly SYNs: the handshakes of new flows into a black hole.
  const size_t syns = size_t(std::count_if(rest.begin(), rest.end(), [](const analyzed_loss* l) { return l->sig.syn(); }));
  if (!rest.empty() && double(syns) / double(rest.size()) > p.p_syn) {
    for (analyzed_loss* l : rest)
      if (l->sig.syn()) l->cls = loss_class::black_hole;
    rest.erase(std::remove_if(rest.begin(), rest.end(), [](const analyzed_loss* l) { return l->sig.syn(); }), rest.end());
  }
  // Lines 9-10: spread evenly over the interval: random drops.
  if (random_distribution(rest, start_ps, p.long_term_ps, p.p_rand))
    for (analyzed_loss* l : rest) l->cls = loss_class::random;
}

void lossradar_analyze(std::vector<analyzed_loss>& losses, const lossradar_analyzer_params& p) {
  std::stable_sort(losses.begin(), losses.end(), [](const analyzed_loss& x, const analyzed_loss& y) { return x.t_ps < y.t_ps; });
  std::map<uint64_t, std::vector<analyzed_loss*>> batches, intervals;
  for (analyzed_loss& l : losses) {
    if (!l.sig.ttl_nonzero()) {   // TTL 0: a loop, or expected (traceroute): not analysed
      l.cls = loss_class::loop;
      continue;
    }
    batches[l.batch].push_back(&l);
    intervals[l.t_ps / p.long_term_ps].push_back(&l);
  }
  for (auto& [b, v] : batches) lossradar_bursty_analysis(v, p);
  for (auto& [i, v] : intervals) lossradar_long_term_analysis(v, i * p.long_term_ps, p);
}

}  // namespace netasic
