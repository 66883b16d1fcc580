// `netasic size`: the smallest value of one numeric parameter that meets every goal, each point
// run over several seeds and decided with a stated confidence (docs/sizing.md, "Automatic
// sizing"). The search core is a pure function of a verdict per candidate, so it is tested with
// a synthetic metric and no simulation.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace netasic {

// A goal "METRIC OP RHS": OP one of <=, <, >=, >; RHS a number, or FACTOR * ref + OFFSET where
// ref is the metric's mean over the reference runs ("1.05 * ref", "ref + 2", "ref").
enum class goal_op { le, lt, ge, gt };
struct size_goal {
  std::string text;     // as given
  std::string metric;   // a summary.json path, e.g. fct_slowdown.p99
  goal_op op = goal_op::le;
  bool uses_ref = false;
  double factor = 0, offset = 0;   // threshold = factor x ref + offset (factor 0 without ref)
  double threshold(double ref) const { return factor * ref + offset; }
};
// Throws std::invalid_argument naming the goal: no operator, an unknown one (==, =<, !=, ...),
// a metric that is not a dotted key, a right-hand side that is not NUMBER or [F *] ref [* F] [+- C].
size_goal parse_goal(const std::string& text);

// A goal decided on an interval [lo, hi] of a metric's mean: met when the interval's pessimistic
// end meets the threshold, not met when its optimistic end fails it, undecided otherwise.
enum class verdict { met, not_met, undecided };
verdict decide(const size_goal& g, double lo, double hi, double threshold);
const char* verdict_name(verdict v);

// Smallest index of n ascending candidates whose verdict is met, assuming monotonicity: a
// candidate that meets the goals is followed only by candidates that meet them. The largest is
// evaluated first (not met: no candidate can be, `chosen` stays empty); then bisection, where
// undecided counts as not met, so the chosen candidate was shown to meet the goals and the one
// below it (when there is one) was evaluated and not shown to. Each index is evaluated at most once.
struct search_step {
  size_t index;
  verdict v;
};
struct search_result {
  std::optional<size_t> chosen;
  std::vector<search_step> steps;   // in evaluation order
};
search_result smallest_meeting(size_t n, const std::function<verdict(size_t)>& evaluate);

// Evaluated points that contradict monotonicity for one goal: pairs (a, b) of candidate indices,
// a < b, where b's interval lies entirely on the failing side of a's (for <=: b's low end above
// a's high end). `lo`/`hi` per evaluated index.
std::vector<std::pair<size_t, size_t>> monotonicity_violations(const size_goal& g, const std::map<size_t, std::pair<double, double>>& ci);

// Candidate values: "--values 1024,2048,..." (numbers, sorted ascending, no repeats) or
// "--pow2 MIN..MAX" (every power of two from MIN to MAX, both powers of two). Throws
// std::invalid_argument naming the option.
std::vector<double> parse_values(const std::string& list);
std::vector<double> pow2_range(const std::string& range);

// Levenshtein distance, and the name of `names` closest to `name` ("" for none).
// The name of `names` closest to `name` by edit distance (common/text.h); "" for none.
std::string closest_name(const std::string& name, const std::set<std::string>& names);

struct size_options {
  std::string netasic_exe;            // "" = this executable
  std::string scenario, param, out_dir;
  std::vector<std::string> goals, refs, sets;
  std::string values, pow2;           // exactly one of them
  unsigned seeds = 3, max_seeds = 0;  // seeds per point; an undecided point doubles them up to max_seeds (0 = 4 x seeds)
  int jobs = 0;                       // runs at once; <= 0 = one per CPU
  double confidence = 0.95;
  std::optional<uint64_t> seed;       // first seed; unset = the scenario's sim.seed
  bool quiet = false;
  // Parameters that set a Verilog parameter of a block with RTL: key -> (block, PARAMETER).
  std::map<std::string, std::pair<std::string, std::string>> rtl_params;
  std::string rtl_dir;                // where rtl/ is, for Yosys
  bool synth = true;                  // run Yosys at each evaluated value (when the parameter has RTL)
};

// Exit codes (cli.h): exit_ok, a value was found and fits the target; exit_internal, a run
// failed; exit_config, bad input (before any run); exit_no_fit, the value found does not fit the
// stage budget; exit_never_met, no candidate meets the goals.
int run_size(const size_options& opt);

}  // namespace netasic
