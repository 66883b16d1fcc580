// Checks shared by the scenario readers: errors that name where a key was set, unit
// conversions, and keys a chosen mode leaves unused.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/params.h"

namespace netasic {

// Throws config_error "ORIGIN: key 'KEY': MSG" (ORIGIN is FILE:LINE, --set or default).
[[noreturn]] void fail(const config& c, const std::string& key, const std::string& msg);
// Writes "warning: ORIGIN: key 'KEY' MSG" to stderr, once a process: the scenario is read again
// after the run (the report's placement), and a warning said twice reads as two problems.
void warn(const config& c, const std::string& key, const std::string& msg);

uint64_t to_ps(double v, double ps_per_unit);
uint64_t to_bps(double gbps);
// The period of a clock of `mhz`; std::invalid_argument unless it is a whole number of ps.
uint64_t clock_period_ps(double mhz);

// Whether the key holds its declared default.
bool is_default(const config& c, const std::string& key);
// Every declared key starting with `prefix`, in declaration order.
std::vector<std::string> keys_under(const std::string& prefix);

// A key the chosen topology or pattern does not use must not be set to anything but its default:
// nothing a user writes is ignored silently.
void reject_unused(const config& c, const std::vector<std::string>& keys, const std::string& because);

// The parameters of a mode that is not selected (another congestion control, another load
// balancer) have no effect: setting one is an error. Only a warning when the mode itself was
// chosen on the command line (--set or a sweep's --grid: the file's keys of its own mode stay
// for a comparison), or with sim.unused_keys = "warn" (one scenario swept over the modes).
void unused_by_mode(const config& c, const std::vector<std::string>& keys, const std::string& because);

// A list of traffic-manager priorities as a bit mask; a priority listed twice is an error.
uint8_t priority_mask(const config& c, const std::string& key);

}  // namespace netasic
