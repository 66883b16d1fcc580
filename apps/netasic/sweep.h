// `netasic sweep`: runs a scenario over the cartesian product of parameter values, each point
// in its own process, and gathers the points' summary.json into sweep.csv and sweep.html.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace netasic {

struct sweep_options {
  std::string netasic_exe;          // "" = this executable
  std::string scenario;
  std::vector<std::string> grid;    // "key=v1,v2,..."; the key "seed" sweeps --seed
  std::vector<std::string> sets;    // extra --set passed to every point
  std::string out_dir;
  int jobs = 0;                     // points run at once; <= 0 = one per CPU (no limit for slurm)
  std::optional<uint64_t> seed;
  std::vector<std::string> metrics = {"fct_slowdown.p50", "fct_slowdown.p99"};   // summary.json paths
  std::string emit;                 // "", "slurm" or "parallel": write job files, run nothing
  bool quiet = false;               // no progress lines (failures are still reported)
  bool collect = false;             // run nothing: gather the points an emitted sweep left in out_dir
  std::map<std::string, std::string> key_units;   // unit of a grid key for axes and headers
};

struct grid_axis {
  std::string key;
  std::vector<std::string> values;
};
using grid_point = std::vector<std::pair<std::string, std::string>>;   // key, value in grid order

// Parses "key=v1,v2,..." arguments. Throws std::invalid_argument naming the bad --grid argument:
// no '=', an empty or malformed key, an empty or repeated value, a key given twice, a "seed"
// value that is not an unsigned integer.
std::vector<grid_axis> parse_grid(const std::vector<std::string>& grid);

// The cartesian product, first key varying slowest (no grid: one point with no key).
std::vector<grid_point> expand_grid(const std::vector<std::string>& grid);

// "point-007": 1-based, at least 3 digits, as many as the largest index needs.
std::string point_dir_name(size_t index, size_t total);

// argv of one point: EXE run SCENARIO --set k=v ... [--seed N] --out DIR --quiet.
std::vector<std::string> point_command(const sweep_options& opt, const grid_point& point,
                                       const std::string& point_dir);

// Runs (or emits, or collects) the sweep; the exit code for `netasic sweep`: 0 when every point
// succeeded, 1 when some failed, 2 for bad options.
int run_sweep(const sweep_options& opt);

}  // namespace netasic
