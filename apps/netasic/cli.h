// What every netasic verb shares on the command line: the one table of exit codes, and options
// whose numbers are read strictly (a value out of range is an error, never clamped).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace netasic {

// The exit codes of every verb, in one place; `--help` and the README print this table.
enum exit_code : int {
  exit_ok = 0,
  exit_internal = 1,     // an internal error, or (sweep, size) some run of the batch failed
  exit_config = 2,       // bad configuration or arguments: nothing was simulated
  exit_accounting = 3,   // the run finished but its packet accounting does not balance
  exit_no_fit = 4,       // resources, size: the switch program does not fit the stage budget
  exit_mismatch = 5,     // cosim: the RTL and the C++ core differ
  exit_never_met = 6,    // size: no candidate value meets every goal
  exit_sigint = 130,     // interrupted by SIGINT (128 + 2), e.g. Ctrl-C
  exit_sigterm = 143,    // interrupted by SIGTERM (128 + 15)
};

struct exit_code_row { int code; const char* meaning; };
const std::vector<exit_code_row>& exit_codes();
// "Exit codes:\n  0  ...": the table as --help prints it.
std::string exit_code_table();

// From now on a SIGINT or SIGTERM prints "netasic: interrupted (SIGINT) while WHAT" on stderr
// and exits with exit_sigint or exit_sigterm. Call again to say what is under way.
void on_interrupt_say(const std::string& what);

// The text of a numeric option as a whole number in [lo, hi]; otherwise a config_error that
// names the option, the text and the range in plain words.
uint64_t option_uint(const std::string& option, const std::string& text, uint64_t lo, uint64_t hi);

// For an unknown subcommand: the message naming it, the closest subcommand, and the list.
std::string unknown_subcommand(const std::string& word, const std::vector<std::string>& subcommands);

}  // namespace netasic
