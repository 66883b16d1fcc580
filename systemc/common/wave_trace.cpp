#include "common/wave_trace.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "common/text.h"

namespace netasic {

uint32_t wave_trace::add(wave_var v) {
  vars_.push_back(std::move(v));
  last_.emplace_back();
  spans_.emplace_back();
  return uint32_t(vars_.size() - 1);
}

void wave_trace::interval(uint32_t id, uint64_t from, uint64_t until) {
  if (id == off) return;
  std::vector<span>& s = spans_[id];
  if (!s.empty() && s.back().from == from) s.back().until = until;
  else s.push_back({from, until});
}

wave_dump wave_trace::finish(uint64_t end_ps) {
  // Intervals become a rise and a fall; an empty one leaves nothing, and a rise at the time of
  // the previous fall keeps the level up (the later change of one time wins).
  for (uint32_t id = 0; id < spans_.size(); ++id)
    for (const span& s : spans_[id]) {
      if (s.until <= s.from) continue;
      changes_.push_back({s.from, id, 1});
      changes_.push_back({s.until, id, 0});
    }
  // Stable: within one signal and time the order of the calls decides.
  std::stable_sort(changes_.begin(), changes_.end(), [](const wave_change& a, const wave_change& b) {
    return a.t_ps != b.t_ps ? a.t_ps < b.t_ps : a.id < b.id;
  });
  wave_dump d;
  d.end_ps = end_ps;
  std::vector<uint64_t> now(vars_.size(), 0);
  for (size_t i = 0; i < changes_.size(); ++i) {
    const wave_change& c = changes_[i];
    if (c.t_ps > end_ps) break;
    if (i + 1 < changes_.size() && changes_[i + 1].t_ps == c.t_ps && changes_[i + 1].id == c.id) continue;
    if (c.value == now[c.id]) continue;
    now[c.id] = c.value;
    d.changes.push_back(c);
  }
  d.vars = std::move(vars_);
  vars_.clear();
  changes_.clear();
  changes_.shrink_to_fit();
  spans_.clear();
  last_.clear();
  return d;
}

bool wave_glob(const std::string& pattern, const std::string& name) {
  // Iterative glob with one backtrack point: linear in practice, no recursion.
  size_t p = 0, n = 0, star = std::string::npos, mark = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = n;
    } else if (star != std::string::npos) {
      p = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::vector<std::string> wave_patterns(const std::string& spec) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t comma = spec.find(',', start);
    std::string item = spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty()) throw std::invalid_argument(fmt::format("'{}' has an empty pattern", spec));
    out.push_back(item);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

namespace {

// The names, and each one's prefixes of whole dot-separated parts followed by ".*", nearest to
// the pattern first.
std::vector<std::string> closest(const std::string& pattern, const std::vector<std::string>& names, size_t count) {
  std::set<std::string> candidates;
  for (const std::string& n : names) {
    candidates.insert(n);
    for (size_t dot = n.find('.'); dot != std::string::npos; dot = n.find('.', dot + 1))
      candidates.insert(n.substr(0, dot) + ".*");
  }
  std::vector<std::pair<size_t, std::string>> scored;
  for (const std::string& c : candidates) scored.emplace_back(edit_distance(pattern, c), c);
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < count; ++i) out.push_back(scored[i].second);
  return out;
}

}  // namespace

std::vector<bool> wave_select(const std::vector<std::string>& patterns, const std::vector<std::string>& names,
                              const std::string& option) {
  std::vector<bool> on(names.size(), false);
  for (const std::string& p : patterns) {
    bool any = false;
    for (size_t i = 0; i < names.size(); ++i)
      if (wave_glob(p, names[i])) on[i] = any = true;
    if (!any)
      throw std::invalid_argument(fmt::format("{}: pattern '{}' matches no signal of this run; close names: {}", option,
                                              p, fmt::join(closest(p, names, 6), ", ")));
  }
  return on;
}

}  // namespace netasic
