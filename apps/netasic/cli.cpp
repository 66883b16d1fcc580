#include "cli.h"

#include <unistd.h>

#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/params.h"
#include "common/text.h"

namespace netasic {

const std::vector<exit_code_row>& exit_codes() {
  static const std::vector<exit_code_row> rows = {
      {exit_ok, "success"},
      {exit_internal, "internal error, or a run of a sweep or size batch failed"},
      {exit_config, "bad configuration or arguments; nothing was simulated"},
      {exit_accounting, "the run's packet accounting does not balance"},
      {exit_no_fit, "the switch program does not fit the target's stage budget (resources, size)"},
      {exit_mismatch, "cosim: the RTL and the C++ core differ"},
      {exit_never_met, "size: no candidate value meets every goal"},
      {exit_sigint, "interrupted by SIGINT (Ctrl-C); a run directory left behind keeps its INCOMPLETE marker"},
      {exit_sigterm, "interrupted by SIGTERM; the same"},
  };
  return rows;
}

std::string exit_code_table() {
  std::string s = "Exit codes:\n";
  for (const auto& r : exit_codes()) s += fmt::format("  {}  {}\n", r.code, r.meaning);
  return s;
}

namespace {

// Written by on_interrupt_say, read by the handler: a fixed buffer, so the handler neither
// allocates nor locks (only async-signal-safe calls inside it).
char interrupt_text[1024] = "starting";

extern "C" void interrupted(int sig) {
  const char* name = sig == SIGINT ? "SIGINT" : "SIGTERM";
  const auto put = [](const char* s) { (void)!::write(STDERR_FILENO, s, std::strlen(s)); };
  put("\nnetasic: interrupted (");
  put(name);
  put(") while ");
  put(interrupt_text);
  put("\n");
  ::_exit(128 + sig);
}

}  // namespace

void on_interrupt_say(const std::string& what) {
  static const bool installed = [] {
    struct sigaction sa {};
    sa.sa_handler = interrupted;
    sigemptyset(&sa.sa_mask);
    return ::sigaction(SIGINT, &sa, nullptr) == 0 && ::sigaction(SIGTERM, &sa, nullptr) == 0;
  }();
  (void)installed;
  // Blocked while the text changes, so the handler never reads it half written.
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  ::sigprocmask(SIG_BLOCK, &block, &old);
  std::snprintf(interrupt_text, sizeof interrupt_text, "%s", what.c_str());
  ::sigprocmask(SIG_SETMASK, &old, nullptr);
}

uint64_t option_uint(const std::string& option, const std::string& text, uint64_t lo, uint64_t hi) {
  uint64_t v = 0;
  const char* b = text.data();
  const char* e = b + text.size();
  if (!text.empty() && *b == '+') ++b;
  if (!text.empty() && *b == '-' && text.find_first_not_of("0123456789", 1) == std::string::npos && text.size() > 1)
    throw config_error(fmt::format("option {}: '{}' is negative: it must be a whole number from {} to {}", option, text, lo, hi));
  const auto r = std::from_chars(b, e, v);
  const bool whole = !text.empty() && r.ec == std::errc() && r.ptr == e;
  if (!whole || v < lo || v > hi) {
    const std::string range = hi == UINT64_MAX && lo == 0 ? fmt::format("a whole number from 0 to {}", hi)
                              : fmt::format("a whole number from {} to {}", lo, hi);
    throw config_error(fmt::format("option {}: '{}' is {}: it must be {}", option, text,
                                   r.ec == std::errc::result_out_of_range || (whole && v > hi) ? "too large"
                                   : whole                                                     ? "too small"
                                                                                               : "not a whole number",
                                   range));
  }
  return v;
}

std::string unknown_subcommand(const std::string& word, const std::vector<std::string>& subcommands) {
  std::string best;
  size_t best_d = SIZE_MAX;
  for (const auto& s : subcommands)
    if (const size_t d = edit_distance(word, s); d < best_d) best_d = d, best = s;
  return fmt::format("unknown subcommand '{}'{}; the subcommands are: {}", word,
                     best_d <= 2 ? fmt::format(" (did you mean '{}'?)", best) : std::string(),
                     fmt::join(subcommands, ", "));
}

}  // namespace netasic
