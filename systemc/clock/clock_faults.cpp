#include "clock/clock_faults.h"

#include <cctype>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "common/params.h"
#include "topology/topology.h"

namespace netasic {

namespace {

std::vector<std::string> split_ws(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace

const char* clock_algorithm_name(clock_algorithm a) {
  switch (a) {
    case clock_algorithm::sundial: return "sundial";
    case clock_algorithm::ptp: return "ptp";
    case clock_algorithm::ptp_fast: return "ptp_fast";
  }
  return "?";
}

clock_algorithm parse_clock_algorithm(const std::string& name) {
  for (clock_algorithm a : {clock_algorithm::sundial, clock_algorithm::ptp, clock_algorithm::ptp_fast})
    if (name == clock_algorithm_name(a)) return a;
  throw config_error(fmt::format("unknown clock algorithm '{}' (sundial, ptp, ptp_fast)", name));
}

const char* clock_fault_kind_name(clock_fault::kind k) {
  switch (k) {
    case clock_fault::kind::link: return "link";
    case clock_fault::kind::device: return "device";
    case clock_fault::kind::root: return "root";
    case clock_fault::kind::domain: return "domain";
    case clock_fault::kind::broken_clock: return "broken_clock";
  }
  return "?";
}

clock_fault parse_clock_fault(const std::string& item) {
  auto bad = [&](const std::string& why) {
    return config_error(fmt::format("fault \"{}\": {} (write KIND TARGET @ TIME_US, e.g. \"link agg0-core0 @ 1000\", "
                                    "\"device agg3 @ 1500\", \"root @ 2000\", \"domain pod2 @ 2500\", "
                                    "\"broken_clock edge4 @ 3000\")", item, why));
  };
  const size_t at = item.find('@');
  if (at == std::string::npos) throw bad("no '@ TIME_US'");
  if (item.find('@', at + 1) != std::string::npos) throw bad("more than one '@'");
  const std::vector<std::string> words = split_ws(item.substr(0, at));
  const std::vector<std::string> when = split_ws(item.substr(at + 1));
  if (when.size() != 1) throw bad(when.empty() ? "no time after '@'" : "one time in us after '@', nothing else");
  double t_us = 0;
  size_t used = 0;
  try {
    t_us = std::stod(when[0], &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != when[0].size() || !std::isfinite(t_us)) throw bad("time '" + when[0] + "' is not a number of us");
  if (t_us < 0 || t_us > 1e12) throw bad("time " + when[0] + " us is outside 0 to 1e12 us");
  if (words.empty()) throw bad("no fault kind before '@'");
  clock_fault f;
  f.text = item;
  f.at_ps = uint64_t(std::llround(t_us * 1e6));
  const std::string& k = words[0];
  if (k == "link") f.what = clock_fault::kind::link;
  else if (k == "device") f.what = clock_fault::kind::device;
  else if (k == "root") f.what = clock_fault::kind::root;
  else if (k == "domain") f.what = clock_fault::kind::domain;
  else if (k == "broken_clock") f.what = clock_fault::kind::broken_clock;
  else throw bad("unknown kind '" + k + "' (link, device, root, domain, broken_clock)");
  if (f.what == clock_fault::kind::root) {
    if (words.size() != 1) throw bad("root takes no target: it is whichever device is the root at that time");
    return f;
  }
  if (words.size() != 2) throw bad(k + (words.size() == 1 ? " needs a target" : " takes exactly one target"));
  f.target = words[1];
  link_name name;
  std::string why;
  if (f.what == clock_fault::kind::link && !parse_link_name(f.target, name, why))
    throw bad(name.a.empty() ? "link target '" + f.target + "' " + why : why);   // A-B read, not its #i
  return f;
}

}  // namespace netasic
