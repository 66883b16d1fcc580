// `netasic sweep`: runs a scenario over the cartesian product of parameter values, each point
// in its own process, and gathers the points' summary.json into sweep.csv and sweep.html. With
// --seeds N each point runs N times (seeds sim.seed, sim.seed + 1, ..., sim.seed + N - 1) and
// sweep.csv reports each metric's mean, min, max and Student t confidence interval.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/stats.h"

namespace netasic {

struct sweep_options {
  std::string netasic_exe;          // "" = this executable
  std::string scenario;
  std::vector<std::string> grid;    // "key=v1,v2,..."; the key "seed" sweeps --seed
  std::vector<std::string> sets;    // extra --set passed to every point
  std::string out_dir;
  int jobs = 0;                     // points run at once; <= 0 = one per CPU (no limit for slurm)
  std::optional<uint64_t> seed;     // with seeds > 0: the first seed (the caller sets it from sim.seed)
  unsigned seeds = 0;               // 0: one run per point; N: N runs per point, seeds seed .. seed + N - 1
  double confidence = 0.95;         // of the interval sweep.csv and sweep.html give with seeds
  std::vector<std::string> metrics = {"fct_slowdown.p50", "fct_slowdown.p99"};   // summary.json paths
  std::string emit;                 // "", "slurm" or "parallel": write job files, run nothing
  bool quiet = false;               // no progress lines (failures are still reported)
  bool collect = false;             // run nothing: gather the points an emitted sweep left in out_dir
  bool missing = false;             // with collect: list the runs with no complete run dir, write nothing
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

// argv of one point: EXE run SCENARIO --set k=v ... [--seed N] --out DIR --quiet. `seed`, when
// given, is the seed of this run (one of a point's replicates).
std::vector<std::string> point_command(const sweep_options& opt, const grid_point& point,
                                       const std::string& point_dir, std::optional<uint64_t> seed = std::nullopt);

// The seeds of a point's N replicates: first, first + 1, ..., first + N - 1 (the run's random
// source is a Mersenne Twister whose seeding spreads the seed over its whole state, so
// neighbouring seeds give unrelated streams).
std::vector<uint64_t> replicate_seeds(uint64_t first, unsigned n);

// One `netasic run` in its own process and what came of it; shared with `netasic size`.
struct run_job {
  std::vector<std::string> argv;
  std::string dir;      // its run directory: log.txt, summary.json
  std::string label;    // for progress lines: "traffic.load=0.2 seed=3"
};
struct run_outcome {
  std::string status = "not run";   // "ok" or why the run failed
  double wall_s = 0;
  std::map<std::string, nlohmann::json> metrics;   // numeric scalars of summary.json, flattened
  bool ok() const { return status == "ok"; }
};

// Runs the jobs, at most `parallel` at once (<= 0: one per CPU), each with stdin from /dev/null
// and its output into DIR/log.txt, and reads each DIR/summary.json. A stale summary.json is
// removed first. Progress lines on stderr unless quiet; failures always.
// `on_first_ok` sees the first run that succeeds; if it throws, no more runs start, the running
// ones are stopped, and the exception goes on.
std::vector<run_outcome> run_jobs(const std::vector<run_job>& jobs, int parallel, bool quiet,
                                  const std::function<void(const run_outcome&)>& on_first_ok = {});
// What a run that already happened (an emitted job) left in its directory.
run_outcome collect_run(const std::string& dir);
// Job files instead of runs: `emit` "parallel" writes OUT/jobs.txt (one shell line per job),
// "slurm" OUT/points.txt and OUT/<name>.slurm (one array task per job). `command` is what the
// user reruns with --collect afterwards. Returns 0.
int emit_job_files(const std::string& emit, const std::string& out_dir, const std::string& name,
                   const std::string& command, const std::vector<run_job>& jobs, int parallel);

// Slurm's --array syntax for 1-based task ids in ascending order: {2, 3, 4, 9} -> "2-4,9".
std::string array_ranges(const std::vector<size_t>& tasks);
// The runs of an emitted sweep that have no complete run directory, one line each on `out`:
// "TASK<tab>DIR<tab>STATUS" (TASK: the job's line in points.txt or jobs.txt, its Slurm array task
// id), then on `err` the commands that rerun only those. The number of such runs.
size_t list_missing(const std::vector<run_job>& jobs, const std::vector<run_outcome>& runs, const std::string& out_dir,
                    const std::string& name, std::ostream& out, std::ostream& err);

// Each metric over the successful runs that have it: mean, min, max, interval.
std::map<std::string, sample_spread> aggregate_runs(const std::vector<run_outcome>& runs, double confidence);
// A number for a CSV cell: integers without a fraction, others as JSON writes them (shortest
// round trip), "" for NaN.
std::string csv_number(double v);
// "ci95": the column stem of an interval at this confidence.
std::string ci_name(double confidence);

// Runs (or emits, or collects) the sweep; the exit code for `netasic sweep`: 0 when every point
// succeeded, 1 when some failed, 2 for bad options.
int run_sweep(const sweep_options& opt);

}  // namespace netasic
