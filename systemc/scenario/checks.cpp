#include "scenario/checks.h"

#include <cmath>
#include <iostream>
#include <mutex>
#include <regex>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "scenario/scenario.h"

namespace netasic {

void fail(const config& c, const std::string& key, const std::string& msg) {
  throw config_error(fmt::format("{}: key '{}': {}", c.origin(key), key, msg));
}

void warn(const config& c, const std::string& key, const std::string& msg) {
  static std::mutex m;
  static std::set<std::string> said;
  std::string line = fmt::format("warning: {}: key '{}' {}\n", c.origin(key), key, msg);
  const std::lock_guard<std::mutex> lock(m);
  if (said.insert(line).second) std::cerr << line;
}

uint64_t to_ps(double v, double ps_per_unit) { return uint64_t(std::llround(v * ps_per_unit)); }
uint64_t to_bps(double gbps) { return uint64_t(std::llround(gbps * 1e9)); }

uint64_t clock_period_ps(double mhz) {
  const double period = 1e6 / mhz;
  if (std::fabs(period - std::round(period)) > 1e-6)
    throw std::invalid_argument(fmt::format("a {} MHz clock has a period of {} ps; it must be a whole number of "
                                            "picoseconds (e.g. 1000, 1250, 1600 MHz)", mhz, period));
  return uint64_t(std::llround(period));
}

bool is_default(const config& c, const std::string& key) {
  static const config defaults = default_scenario();
  switch (all_params().find(key)->type) {
    case param_type::integer: return c.integer(key) == defaults.integer(key);
    case param_type::real: return c.real(key) == defaults.real(key);
    case param_type::boolean: return c.boolean(key) == defaults.boolean(key);
    case param_type::string_list: return c.list(key) == defaults.list(key);
    case param_type::integer_list: return c.integers(key) == defaults.integers(key);
    case param_type::real_list: return c.reals(key) == defaults.reals(key);
    default: return c.string(key) == defaults.string(key);
  }
}

std::vector<std::string> keys_under(const std::string& prefix) {
  std::vector<std::string> keys;
  for (const param_def& d : all_params().all())
    if (d.key.rfind(prefix, 0) == 0) keys.push_back(d.key);
  return keys;
}

void reject_unused(const config& c, const std::vector<std::string>& keys, const std::string& because) {
  for (const auto& k : keys)
    if (!is_default(c, k)) fail(c, k, "is not used " + because + "; remove it or leave it at its default");
}

void unused_by_mode(const config& c, const std::vector<std::string>& keys, const std::string& because) {
  // The mode key `because` names ("with lb.mode = ..."): chosen on the command line (--set, a
  // sweep's --grid), it overrides the file's mode for a comparison, and the file's keys of the
  // file's own mode only get a warning.
  static const std::regex mode_key(R"([a-z_]+\.[a-z_.]*[a-z_])");
  std::smatch m;
  const bool mode_from_command_line = std::regex_search(because, m, mode_key) && all_params().find(m.str()) &&
                                      c.origin(m.str()).rfind("--set", 0) == 0;
  const bool warn_only = c.string("sim.unused_keys") == "warn";
  for (const auto& k : keys) {
    if (is_default(c, k)) continue;
    const bool key_from_file = c.origin(k).rfind("--set", 0) != 0;
    if (!warn_only && !(mode_from_command_line && key_from_file))
      fail(c, k, "has no effect " + because + "; remove it, or set sim.unused_keys = \"warn\" to keep it (a scenario swept over modes)");
    warn(c, k, "has no effect " + because);
  }
}

uint8_t priority_mask(const config& c, const std::string& key) {
  uint8_t m = 0;
  for (int64_t prio : c.integers(key)) {
    if (m >> prio & 1) fail(c, key, fmt::format("priority {} is listed twice", prio));
    m |= uint8_t(1u << prio);
  }
  return m;
}

}  // namespace netasic
