#include "sweep.h"
#include "cli.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/file_io.h"
#include "common/params.h"
#include "common/text.h"
#include "output/csv.h"
#include "output/format.h"
#include "output/plot.h"
#include "output/report.h"
#include "run/run_outputs.h"

extern char** environ;

namespace netasic {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool valid_key(const std::string& k) {
  if (k.empty() || k.front() == '.' || k.back() == '.' || k.find("..") != std::string::npos) return false;
  return std::all_of(k.begin(), k.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-';
  });
}

bool is_unsigned_integer(const std::string& s) {
  return !s.empty() && s.size() <= 20 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<double> as_number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string describe(const grid_point& p) {
  if (p.empty()) return "(single point)";
  std::string s;
  for (const auto& [k, v] : p) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

std::string join_command(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + shell_quote(a);
  return s;
}

// Whether a command could be started: an executable path, or a name found on PATH.
bool runnable(const std::string& exe) {
  if (exe.find('/') != std::string::npos) return ::access(exe.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "";
  for (size_t start = 0;;) {
    size_t colon = p.find(':', start);
    std::string dir = p.substr(start, colon - start);
    if (::access(((dir.empty() ? "." : dir) + "/" + exe).c_str(), X_OK) == 0) return true;
    if (colon == std::string::npos) return false;
    start = colon + 1;
  }
}

// A grid point: its directory and its runs (one, or one per seed in point-NNN/seed-S/).
struct point_result {
  grid_point point;
  fs::path dir;
  std::vector<uint64_t> seeds;      // empty: one run, in dir itself
  std::vector<run_outcome> runs;
  std::string status = "not run";   // "ok", or how many runs failed
  bool ok() const { return status == "ok"; }
};

std::string exit_text(int status) {
  if (WIFEXITED(status)) return fmt::format("exit {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("signal {}: {}", WTERMSIG(status), strsignal(WTERMSIG(status)));
  return "stopped";
}

// Starts one run with stdin from /dev/null and stdout and stderr into its log.txt.
pid_t spawn_run(const std::vector<std::string>& argv, const fs::path& log) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 2, 1);
  pid_t pid = 0;
  int rc = argv[0].find('/') != std::string::npos
               ? posix_spawn(&pid, argv[0].c_str(), &fa, nullptr, args.data(), environ)
               : posix_spawnp(&pid, argv[0].c_str(), &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error(fmt::format("cannot start {}: {}", argv[0], std::strerror(rc)));
  return pid;
}

std::vector<run_job> jobs_of(const sweep_options& opt, const std::vector<point_result>& results) {
  std::vector<run_job> jobs;
  for (const auto& r : results) {
    if (r.seeds.empty()) {
      jobs.push_back({point_command(opt, r.point, r.dir.string()), r.dir.string(), describe(r.point)});
      continue;
    }
    for (uint64_t s : r.seeds) {
      const fs::path d = r.dir / fmt::format("seed-{}", s);
      jobs.push_back({point_command(opt, r.point, d.string(), s), d.string(),
                      describe(r.point) + fmt::format(" seed={}", s)});
    }
  }
  return jobs;
}

// Hands the runs back to their points, in job order, and sets each point's status.
void assign_runs(std::vector<point_result>& results, std::vector<run_outcome> runs) {
  size_t k = 0;
  for (auto& r : results) {
    const size_t n = std::max<size_t>(1, r.seeds.size());
    r.runs.assign(runs.begin() + long(k), runs.begin() + long(k + n));
    k += n;
    size_t failed = std::count_if(r.runs.begin(), r.runs.end(), [](const run_outcome& o) { return !o.ok(); });
    if (failed == 0) r.status = "ok";
    else if (r.seeds.empty()) r.status = r.runs.front().status;
    else r.status = fmt::format("{} of {} seeds failed", failed, n);
  }
}

// One row per point. Without seeds, each metric as its run gave it; with seeds, the number of
// runs that succeeded and, per metric, mean, min, max and the interval's ends.
void write_csv(const fs::path& path, const sweep_options& opt, const std::vector<grid_axis>& axes,
               const std::vector<point_result>& results, const std::vector<std::string>& columns) {
  const bool seeds = opt.seeds > 0;
  const std::string ci = ci_name(opt.confidence);
  std::string s = "point";
  for (const auto& a : axes) s += "," + csv_escape(a.key);
  s += seeds ? ",status,seeds_ok" : ",status";
  for (const auto& c : columns) {
    if (!seeds) s += "," + csv_escape(c);
    else
      for (const char* stat : {".mean", ".min", ".max"}) s += "," + csv_escape(c + stat);
    if (seeds) s += "," + csv_escape(c + "." + ci + "_low") + "," + csv_escape(c + "." + ci + "_high");
  }
  s += "\n";
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    s += std::to_string(i + 1);
    for (const auto& kv : r.point) s += "," + csv_escape(kv.second);
    s += "," + csv_escape(r.status);
    if (!seeds) {
      for (const auto& c : columns) {
        s += ",";
        const auto& m = r.runs.front().metrics;
        if (auto it = m.find(c); r.ok() && it != m.end()) s += it->second.dump();
      }
    } else {
      s += fmt::format(",{}", std::count_if(r.runs.begin(), r.runs.end(), [](const run_outcome& o) { return o.ok(); }));
      const auto agg = aggregate_runs(r.runs, opt.confidence);
      for (const auto& c : columns) {
        auto it = agg.find(c);
        if (it == agg.end()) {
          s += ",,,,,";
          continue;
        }
        const sample_spread& a = it->second;
        s += "," + csv_number(a.mean) + "," + csv_number(a.min) + "," + csv_number(a.max) + "," +
             csv_number(a.ci_low()) + "," + csv_number(a.ci_high());
      }
    }
    s += "\n";
  }
  write_file(path.string(), s);
}

// With seeds, every run: its point, its seed, its status and its metrics (runs.csv).
void write_runs_csv(const fs::path& path, const std::vector<grid_axis>& axes, const std::vector<point_result>& results,
                    const std::vector<std::string>& columns) {
  std::string s = "point";
  for (const auto& a : axes) s += "," + csv_escape(a.key);
  s += ",seed,status";
  for (const auto& c : columns) s += "," + csv_escape(c);
  s += "\n";
  for (size_t i = 0; i < results.size(); ++i)
    for (size_t k = 0; k < results[i].runs.size(); ++k) {
      const auto& r = results[i];
      const auto& run = r.runs[k];
      s += std::to_string(i + 1);
      for (const auto& kv : r.point) s += "," + csv_escape(kv.second);
      s += fmt::format(",{},{}", r.seeds[k], csv_escape(run.status));
      for (const auto& c : columns) {
        s += ",";
        if (auto it = run.metrics.find(c); run.ok() && it != run.metrics.end()) s += it->second.dump();
      }
      s += "\n";
    }
  write_file(path.string(), s);
}

std::string axis_label(const std::string& key, const std::string& unit) {
  return unit.empty() ? key : fmt::format("{} ({})", key, unit);
}

// A point's value of a metric: the run's, or with seeds the mean with its interval (the interval
// is the mean itself when unknown, so a bar of zero length). False when the point lacks it.
bool point_value(const sweep_options& opt, const point_result& r, const std::string& metric, double& y, double& lo,
                 double& hi) {
  if (!r.ok()) return false;
  if (opt.seeds == 0) {
    auto it = r.runs.front().metrics.find(metric);
    if (it == r.runs.front().metrics.end()) return false;
    y = lo = hi = it->second.get<double>();
    return true;
  }
  const auto agg = aggregate_runs(r.runs, opt.confidence);
  auto it = agg.find(metric);
  if (it == agg.end()) return false;
  y = it->second.mean;
  lo = it->second.has_interval() ? it->second.ci_low() : y;
  hi = it->second.has_interval() ? it->second.ci_high() : y;
  return true;
}

// The plot of one metric against the first grid key, one line per combination of the others.
// False when no point has the metric.
bool metric_plot(const sweep_options& opt, const std::vector<grid_axis>& axes, const std::vector<point_result>& results,
                 const std::string& metric, plot_spec& spec) {
  const auto& x_axis = axes.front();
  // A numeric first key is an x axis; other values are evenly spaced categories.
  const bool numeric = std::all_of(x_axis.values.begin(), x_axis.values.end(),
                                   [](const std::string& v) { return as_number(v).has_value(); });
  if (numeric) {
    double lo = 1e300, hi = -1e300;
    for (const auto& v : x_axis.values) {
      lo = std::min(lo, *as_number(v));
      hi = std::max(hi, *as_number(v));
    }
    spec.logx = lo > 0 && hi / lo >= 100;
  } else {
    for (size_t i = 0; i < x_axis.values.size(); ++i) spec.xtics.emplace_back(static_cast<double>(i), x_axis.values[i]);
    spec.xmin = -0.5;
    spec.xmax = static_cast<double>(x_axis.values.size()) - 0.5;
  }
  std::vector<std::string> line_names;
  std::map<std::string, plot_series> lines;
  for (const auto& r : results) {
    std::string name;
    for (size_t k = 1; k < r.point.size(); ++k) name += (name.empty() ? "" : ", ") + r.point[k].first + "=" + r.point[k].second;
    if (name.empty()) name = opt.seeds > 0 ? metric + fmt::format(" (mean of {} seeds)", opt.seeds) : metric;
    if (!lines.count(name)) line_names.push_back(name);
    double y = 0, lo = 0, hi = 0;
    if (!point_value(opt, r, metric, y, lo, hi)) continue;
    const std::string& xv = r.point.front().second;
    auto& s = lines[name];
    s.x.push_back(numeric ? *as_number(xv)
                          : double(std::find(x_axis.values.begin(), x_axis.values.end(), xv) - x_axis.values.begin()));
    s.y.push_back(y);
    s.ylow.push_back(lo);
    s.yhigh.push_back(hi);
  }
  for (const auto& n : line_names) {
    const auto& s = lines[n];
    // Grid order need not be sorted: draw each line from left to right.
    std::vector<size_t> order(s.x.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return s.x[a] < s.x[b]; });
    plot_series sorted{n, {}, {}, "linespoints", {}, {}, false};
    for (size_t i : order) {
      sorted.x.push_back(s.x[i]);
      sorted.y.push_back(s.y[i]);
      if (opt.seeds == 0) continue;
      sorted.ylow.push_back(s.ylow[i]);
      sorted.yhigh.push_back(s.yhigh[i]);
    }
    if (!sorted.x.empty()) spec.series.push_back(std::move(sorted));
  }
  return !spec.series.empty();
}

// A cell of the points table: the value, or with seeds "mean ± half-width (min to max)".
std::string point_cell(const sweep_options& opt, const point_result& r, const std::string& m) {
  if (!r.ok()) return "";
  if (opt.seeds == 0) {
    auto it = r.runs.front().metrics.find(m);
    return it != r.runs.front().metrics.end() ? format_value(m, it->second) : "";
  }
  const auto agg = aggregate_runs(r.runs, opt.confidence);
  auto it = agg.find(m);
  if (it == agg.end()) return "";
  const sample_spread& a = it->second;
  std::string c = format_value(m, json(a.mean));
  if (a.has_interval()) c += " ± " + format_value(m, json(a.half_width));
  return c + " (" + format_value(m, json(a.min)) + " to " + format_value(m, json(a.max)) + ")";
}

std::string points_table(const sweep_options& opt, const std::vector<grid_axis>& axes,
                         const std::vector<point_result>& results, const std::function<std::string(const std::string&)>& key_unit) {
  std::string h = "<h2>Points</h2>\n<table>\n<tr><th>point</th>";
  for (const auto& a : axes) h += "<th>" + html_escape(axis_label(a.key, key_unit(a.key))) + "</th>";
  h += "<th>status</th><th>wall time</th>";
  for (const auto& m : opt.metrics) h += "<th>" + html_escape(m) + "</th>";
  h += "<th>report</th></tr>\n";
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    h += fmt::format("<tr><td>{}</td>", i + 1);
    for (const auto& kv : r.point) h += "<td>" + html_escape(kv.second) + "</td>";
    double wall = 0;
    for (const auto& run : r.runs) wall += run.wall_s;
    h += "<td>" + html_escape(r.status) + "</td><td>" + (wall > 0 ? fmt::format("{:.1f} s", wall) : "") + "</td>";
    for (const auto& m : opt.metrics) h += "<td>" + html_escape(point_cell(opt, r, m)) + "</td>";
    // The report of the point's run, or of its first seed's.
    const fs::path run_dir = r.seeds.empty() ? r.dir : r.dir / fmt::format("seed-{}", r.seeds.front());
    const std::string rel = fs::relative(run_dir, r.dir.parent_path()).string() + "/report.html";
    h += "<td>" + (fs::exists(run_dir / "report.html") ? "<a href=\"" + html_escape(rel) + "\">report</a>" : "") +
         "</td></tr>\n";
  }
  return h + "</table>\n";
}

std::string html_page(const sweep_options& opt, const std::vector<grid_axis>& axes,
                      const std::vector<point_result>& results) {
  auto key_unit = [&](const std::string& k) {
    auto it = opt.key_units.find(k);
    return it != opt.key_units.end() ? it->second : k == "seed" ? std::string() : unit_of_key(k);
  };
  size_t failed = std::count_if(results.begin(), results.end(), [](const point_result& r) { return !r.ok(); });
  std::string title = "netasic sweep: " + opt.scenario;
  std::string h = html_page_head(title) + "<h1>" + html_escape(title) + "</h1>\n";
  h += fmt::format("<p>{} point{}, {} succeeded, {} failed.", results.size(), results.size() == 1 ? "" : "s",
                   results.size() - failed, failed);
  for (const auto& a : axes) {
    std::string vals;
    for (const auto& v : a.values) vals += (vals.empty() ? "" : ", ") + v;
    h += " " + html_escape(axis_label(a.key, key_unit(a.key))) + ": " + html_escape(vals) + ".";
  }
  if (opt.seeds > 0)
    h += html_escape(fmt::format(
        " Each point ran {} seeds ({} to {}); a point shows the mean over them and its {:g} % confidence interval "
        "(Student t, {} degrees of freedom).",
        opt.seeds, *opt.seed, *opt.seed + opt.seeds - 1, opt.confidence * 100, opt.seeds - 1));
  h += "</p>\n";

  int plot_no = 0;
  for (const auto& metric : opt.metrics) {
    h += "<h2>" + html_escape(metric) + "</h2>\n";
    if (axes.empty()) {
      h += "<p class=\"note\">The sweep has no grid, so there is nothing to plot against; see the table.</p>\n";
      continue;
    }
    plot_spec spec;
    spec.id = fmt::format("plot{}", ++plot_no);
    spec.title = metric + " by " + axes.front().key;
    spec.xlabel = axis_label(axes.front().key, key_unit(axes.front().key));
    spec.ylabel = axis_label(metric, unit_of_key(metric));
    if (!metric_plot(opt, axes, results, metric, spec)) {
      h += "<p class=\"note\">No successful point has " + html_escape(metric) + " in its summary.json.</p>\n";
      continue;
    }
    std::string caption = axes.size() > 1 ? "One line per combination of the other grid keys." : "";
    if (opt.seeds > 0)
      caption += fmt::format("{}Error bars: the {:g} % confidence interval of the mean over {} seeds.",
                             caption.empty() ? "" : " ", opt.confidence * 100, opt.seeds);
    if (failed > 0) caption += std::string(caption.empty() ? "" : " ") + "Failed points are left out.";
    h += "<figure>\n" + render_svg(spec) + "\n<figcaption>" + html_escape(caption) + "</figcaption>\n</figure>\n";
  }
  h += points_table(opt, axes, results, key_unit);
  return h + "</body>\n</html>\n";
}

}  // namespace

run_outcome collect_run(const std::string& dir) {
  run_outcome r;
  if (fs::exists(fs::path(dir) / incomplete_marker)) {
    r.status = "incomplete (the run was stopped: INCOMPLETE marker)";
    return r;
  }
  std::ifstream in(fs::path(dir) / "summary.json");
  if (!in) {
    r.status = "no summary.json";
    return r;
  }
  json doc = json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    r.status = "unreadable summary.json";
    return r;
  }
  for (const auto& [key, value] : flatten_json(doc))
    if (value.is_number()) r.metrics[key] = value;
  r.status = "ok";
  return r;
}

std::vector<run_outcome> run_jobs(const std::vector<run_job>& jobs, int parallel, bool quiet,
                                  const std::function<void(const run_outcome&)>& on_first_ok) {
  using clock = std::chrono::steady_clock;
  struct running {
    pid_t pid;
    size_t index;
    clock::time_point start;
  };
  const size_t limit = parallel > 0 ? size_t(parallel) : std::max(1u, std::thread::hardware_concurrency());
  const size_t n = jobs.size();
  std::vector<run_outcome> out(n);
  std::vector<running> active;
  size_t next = 0, finished = 0;
  bool on_first_ok_done = false;
  auto report = [&](size_t i) {
    ++finished;
    if (out[i].ok() && !quiet)
      std::cerr << fmt::format("[{}/{}] {} done in {:.1f} s\n", finished, n, jobs[i].label, out[i].wall_s);
    else if (!out[i].ok())
      std::cerr << fmt::format("[{}/{}] {} FAILED ({}), see {}\n", finished, n, jobs[i].label, out[i].status,
                               (fs::path(jobs[i].dir) / "log.txt").string());
  };
  while (next < n || !active.empty()) {
    while (next < n && active.size() < limit) {
      const fs::path dir(jobs[next].dir);
      try {
        fs::create_directories(dir);
        fs::remove(dir / "summary.json");   // a stale one must not pass for this run's result
        active.push_back({spawn_run(jobs[next].argv, dir / "log.txt"), next, clock::now()});
      } catch (const std::exception& e) {
        out[next].status = e.what();
        report(next);
      }
      ++next;
    }
    if (active.empty()) continue;
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(fmt::format("waiting for the runs: {}", std::strerror(errno)));
    }
    auto it = std::find_if(active.begin(), active.end(), [&](const running& a) { return a.pid == pid; });
    if (it == active.end()) continue;   // not one of ours
    const size_t i = it->index;
    const double wall = std::chrono::duration<double>(clock::now() - it->start).count();
    active.erase(it);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      out[i] = collect_run(jobs[i].dir);
      if (!out[i].ok()) out[i].status = "exit 0 but " + out[i].status;
    } else {
      out[i].status = exit_text(status);
    }
    out[i].wall_s = wall;
    report(i);
    if (out[i].ok() && on_first_ok && !on_first_ok_done) {
      try {
        on_first_ok(out[i]);
      } catch (...) {   // refused: start nothing more, stop what runs, then say why
        for (const running& a : active) ::kill(a.pid, SIGTERM);
        for (const running& a : active) ::waitpid(a.pid, &status, 0);
        throw;
      }
      on_first_ok_done = true;
    }
  }
  return out;
}

int emit_job_files(const std::string& emit, const std::string& out_dir, const std::string& name,
                   const std::string& command, const std::vector<run_job>& jobs, int parallel) {
  const fs::path out(out_dir);
  std::string lines;
  for (const auto& j : jobs) {   // make the run's directory, run it, its output to its log
    const std::string dir = shell_quote(j.dir);
    lines += fmt::format("mkdir -p {} && {} > {}/log.txt 2>&1\n", dir, join_command(j.argv), dir);
  }
  const std::string after = fmt::format("then gather the results with the same {} command and --collect.", command);
  if (emit == "parallel") {
    write_file((out / "jobs.txt").string(), lines);
    std::cerr << fmt::format("wrote {} ({} commands). From this directory run:\n  parallel --jobs {} < {}\n{}\n",
                             (out / "jobs.txt").string(), jobs.size(),
                             parallel > 0 ? std::to_string(parallel) : std::string("100%"),
                             shell_quote((out / "jobs.txt").string()), after);
    return 0;
  }
  write_file((out / "points.txt").string(), lines);
  const fs::path slurm = out / (name + ".slurm");
  std::string script = "#!/bin/bash\n";
  script += fmt::format("# netasic {}: {} runs, one array task each.\n", command, jobs.size());
  script += "# Submit from the directory the command was run in (paths are relative to it).\n";
  script += fmt::format("#SBATCH --job-name=netasic-{}\n", name);
  script += fmt::format("#SBATCH --array=1-{}{}\n", jobs.size(), parallel > 0 ? fmt::format("%{}", parallel) : "");
  script += fmt::format("#SBATCH --output={}/slurm-%A_%a.out\n", out_dir);
  script += "set -euo pipefail\n";
  // An offset lets a cluster whose MaxArraySize is below the run count take the lines in slices:
  // sbatch --array=1-1000 --export=ALL,NETASIC_TASK_OFFSET=1000 runs lines 1001-2000.
  script += "task=$((SLURM_ARRAY_TASK_ID + ${NETASIC_TASK_OFFSET:-0}))\n";
  script += fmt::format("line=$(sed -n \"${{task}}p\" {})\n", shell_quote((out / "points.txt").string()));
  script += "[ -n \"$line\" ] || { echo \"no line $task in points.txt\" >&2; exit 1; }\n";
  script += "exec bash -c \"$line\"\n";
  write_file(slurm.string(), script);
  std::cerr << fmt::format("wrote {} and {} ({} array tasks). From this directory run:\n  sbatch {}\n{}\n",
                           slurm.string(), (out / "points.txt").string(), jobs.size(), shell_quote(slurm.string()), after);
  return 0;
}

namespace {
// Runs of consecutive task ids: {2, 3, 4, 9} -> {2, 4}, {9, 9}.
std::vector<std::pair<size_t, size_t>> task_runs(const std::vector<size_t>& tasks) {
  std::vector<std::pair<size_t, size_t>> r;
  for (size_t t : tasks)
    if (!r.empty() && t == r.back().second + 1) r.back().second = t;
    else r.emplace_back(t, t);
  return r;
}
}  // namespace

std::string array_ranges(const std::vector<size_t>& tasks) {
  std::string s;
  for (const auto& [a, b] : task_runs(tasks))
    s += (s.empty() ? "" : ",") + (a == b ? std::to_string(a) : fmt::format("{}-{}", a, b));
  return s;
}

size_t list_missing(const std::vector<run_job>& jobs, const std::vector<run_outcome>& runs, const std::string& out_dir,
                    const std::string& name, std::ostream& out, std::ostream& err) {
  std::vector<size_t> tasks;
  for (size_t i = 0; i < jobs.size(); ++i)
    if (!runs[i].ok()) {
      tasks.push_back(i + 1);
      out << fmt::format("{}\t{}\t{}\n", i + 1, jobs[i].dir, runs[i].status);
    }
  if (tasks.empty()) return 0;
  const fs::path dir(out_dir);
  err << fmt::format("{}: {} of {} runs have no complete run directory (tasks {}); rerun only those with\n", name,
                     tasks.size(), jobs.size(), array_ranges(tasks));
  if (fs::exists(dir / (name + ".slurm")))
    err << fmt::format("  sbatch --array={} {}\n", array_ranges(tasks), shell_quote((dir / (name + ".slurm")).string()));
  if (fs::exists(dir / "jobs.txt")) {   // sed -n '2,4p;9p' prints those lines of jobs.txt
    std::string sed;
    for (const auto& [a, b] : task_runs(tasks))
      sed += (sed.empty() ? "" : ";") + (a == b ? std::to_string(a) : fmt::format("{},{}", a, b)) + "p";
    err << fmt::format("  sed -n '{}' {} | parallel\n", sed, shell_quote((dir / "jobs.txt").string()));
  }
  err << "then --collect again.\n";
  return tasks.size();
}

std::map<std::string, sample_spread> aggregate_runs(const std::vector<run_outcome>& runs, double confidence) {
  std::map<std::string, std::vector<double>> values;
  for (const auto& r : runs)
    if (r.ok())
      for (const auto& [k, v] : r.metrics) values[k].push_back(v.get<double>());
  std::map<std::string, sample_spread> out;
  for (const auto& [k, v] : values) out[k] = spread_of(v, confidence);
  return out;
}

std::string csv_number(double v) {
  if (!std::isfinite(v)) return "";
  if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0) return fmt::format("{}", int64_t(v));
  return json(v).dump();
}

std::string ci_name(double confidence) { return fmt::format("ci{:g}", confidence * 100); }

std::vector<uint64_t> replicate_seeds(uint64_t first, unsigned n) {
  std::vector<uint64_t> s;
  for (unsigned i = 0; i < n; ++i) s.push_back(first + i);
  return s;
}

std::vector<grid_axis> parse_grid(const std::vector<std::string>& grid) {
  std::vector<grid_axis> axes;
  for (const auto& arg : grid) {
    auto bad = [&](const std::string& why) {
      return std::invalid_argument(fmt::format("--grid '{}': {} (expected key=v1,v2,...)", arg, why));
    };
    auto eq = arg.find('=');
    if (eq == std::string::npos) throw bad("no '='");
    grid_axis a;
    a.key = arg.substr(0, eq);
    if (!valid_key(a.key)) throw bad(fmt::format("'{}' is not a parameter key", a.key));
    for (const auto& other : axes)
      if (other.key == a.key) throw bad(fmt::format("key '{}' is already swept by an earlier --grid", a.key));
    std::string list = arg.substr(eq + 1);
    for (size_t start = 0;;) {
      size_t comma = list.find(',', start);
      std::string v = list.substr(start, comma - start);
      if (v.empty()) throw bad("empty value");
      if (std::find(a.values.begin(), a.values.end(), v) != a.values.end())
        throw bad(fmt::format("value '{}' is given twice", v));
      if (a.key == "seed" && !is_unsigned_integer(v)) throw bad(fmt::format("seed '{}' is not an unsigned integer", v));
      a.values.push_back(v);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    axes.push_back(std::move(a));
  }
  return axes;
}

std::vector<grid_point> expand_grid(const std::vector<std::string>& grid) {
  auto axes = parse_grid(grid);
  std::vector<grid_point> points(1);
  for (const auto& a : axes) {
    std::vector<grid_point> next;
    for (const auto& p : points)
      for (const auto& v : a.values) {
        next.push_back(p);
        next.back().emplace_back(a.key, v);
      }
    points = std::move(next);
  }
  return points;
}

std::string point_dir_name(size_t index, size_t total) {
  size_t width = std::max<size_t>(3, std::to_string(total).size());
  return fmt::format("point-{:0{}}", index, width);
}

std::vector<std::string> point_command(const sweep_options& opt, const grid_point& point,
                                       const std::string& point_dir, std::optional<uint64_t> run_seed) {
  std::vector<std::string> argv = {opt.netasic_exe, "run", opt.scenario};
  for (const auto& s : opt.sets) {
    argv.push_back("--set");
    argv.push_back(s);
  }
  std::optional<std::string> seed;
  if (opt.seed) seed = std::to_string(*opt.seed);
  for (const auto& [k, v] : point) {
    if (k == "seed") {
      seed = v;
      continue;
    }
    argv.push_back("--set");
    argv.push_back(k + "=" + v);
  }
  if (run_seed) seed = std::to_string(*run_seed);
  if (seed) {
    argv.push_back("--seed");
    argv.push_back(*seed);
  }
  argv.insert(argv.end(), {"--out", point_dir, "--quiet"});
  return argv;
}

namespace {

// Bad options, found before anything runs: std::invalid_argument.
void check_options(sweep_options& opt, const std::vector<grid_axis>& axes) {
  if (opt.scenario.empty()) throw std::invalid_argument("no scenario given");
  if (opt.out_dir.empty()) throw std::invalid_argument("no output directory given (--out)");
  if (opt.emit != "" && opt.emit != "slurm" && opt.emit != "parallel")
    throw std::invalid_argument(fmt::format("--emit '{}': expected slurm or parallel", opt.emit));
  if (opt.collect && !opt.emit.empty()) throw std::invalid_argument("--collect and --emit exclude each other");
  if (opt.missing && !opt.collect) throw std::invalid_argument("--missing lists what --collect finds: give both");
  if (opt.seeds > 0 && !opt.seed)
    throw std::invalid_argument("--seeds needs the first seed (the scenario's sim.seed, or --seed)");
  if (!(opt.confidence > 0 && opt.confidence < 1))
    throw std::invalid_argument(fmt::format("--confidence {}: must be between 0 and 1", opt.confidence));
  for (const auto& a : axes) {
    const bool seed_key = a.key == "seed" || a.key == "sim.seed";
    if (seed_key && opt.seeds > 0)
      throw std::invalid_argument(fmt::format("--grid '{}=...' and --seeds exclude each other: --seeds {} already runs "
                                              "seeds {} to {} at every point", a.key, opt.seeds, *opt.seed,
                                              *opt.seed + opt.seeds - 1));
    if (seed_key && opt.seed) throw std::invalid_argument(fmt::format("--grid '{}=...' and --seed exclude each other", a.key));
    for (const auto& s : opt.sets)
      if (s.substr(0, s.find('=')) == a.key)
        throw std::invalid_argument(fmt::format("key '{}' is both in --grid and in --set '{}'", a.key, s));
  }
  if (opt.netasic_exe.empty()) opt.netasic_exe = running_executable();  // the points run this netasic
  if (!opt.collect && !runnable(opt.netasic_exe))
    throw std::invalid_argument(fmt::format("cannot run '{}': not an executable", opt.netasic_exe));
  if (opt.metrics.empty()) opt.metrics = sweep_options{}.metrics;
}

// Writes sweep.csv (and runs.csv with seeds) and sweep.html; the exit code.
int gather(const sweep_options& opt, const std::vector<grid_axis>& axes, const std::vector<point_result>& results) {
  const fs::path out(opt.out_dir);
  // Every numeric summary value seen at any run, in name order; one that repeats a column
  // already there (a summary echoing its seed) is left out.
  std::set<std::string> names;
  for (const auto& r : results)
    for (const auto& run : r.runs)
      for (const auto& m : run.metrics) names.insert(m.first);
  for (const char* k : {"point", "status", "seed", "seeds_ok"}) names.erase(k);
  for (const auto& a : axes) names.erase(a.key);
  for (const auto& m : opt.metrics)
    if (!names.count(m) && std::any_of(results.begin(), results.end(), [](const point_result& r) { return r.ok(); }))
      std::cerr << fmt::format("sweep: no summary.json has the metric '{}'\n", m);
  write_csv(out / "sweep.csv", opt, axes, results, {names.begin(), names.end()});
  if (opt.seeds > 0) write_runs_csv(out / "runs.csv", axes, results, {names.begin(), names.end()});
  write_file((out / "sweep.html").string(), html_page(opt, axes, results));
  size_t failed = std::count_if(results.begin(), results.end(), [](const point_result& r) { return !r.ok(); });
  if (!opt.quiet || failed > 0)
    std::cerr << fmt::format("sweep: {} of {} points succeeded; wrote {} and {}\n", results.size() - failed,
                             results.size(), (out / "sweep.csv").string(), (out / "sweep.html").string());
  return failed > 0 ? exit_internal : exit_ok;
}

}  // namespace

int run_sweep(const sweep_options& options) {
  sweep_options opt = options;
  std::vector<grid_axis> axes;
  std::vector<grid_point> points;
  try {
    axes = parse_grid(opt.grid);
    points = expand_grid(opt.grid);
    check_options(opt, axes);
  } catch (const std::exception& e) {
    std::cerr << "netasic sweep: " << e.what() << "\n";
    return exit_config;
  }
  try {
    const fs::path out(opt.out_dir);
    fs::create_directories(out);
    std::vector<point_result> results(points.size());
    for (size_t i = 0; i < points.size(); ++i) {
      results[i].point = points[i];
      results[i].dir = out / point_dir_name(i + 1, points.size());
      if (opt.seeds > 0) results[i].seeds = replicate_seeds(*opt.seed, opt.seeds);
    }
    const std::vector<run_job> jobs = jobs_of(opt, results);
    if (!opt.emit.empty()) return emit_job_files(opt.emit, opt.out_dir, "sweep", "sweep", jobs, opt.jobs);
    std::vector<run_outcome> runs;
    if (opt.collect) {
      for (const auto& j : jobs) runs.push_back(collect_run(j.dir));
      if (opt.missing) {   // the list alone, for a retry: nothing is written
        std::ostringstream hint;
        const size_t n = list_missing(jobs, runs, opt.out_dir, "sweep", std::cout, hint);
        if (!opt.quiet || n > 0) std::cerr << (n > 0 ? hint.str() : fmt::format("sweep: all {} runs complete\n", jobs.size()));
        return n > 0 ? exit_internal : exit_ok;
      }
      std::ostringstream discard;
      list_missing(jobs, runs, opt.out_dir, "sweep", discard, std::cerr);
    } else {
      if (!opt.quiet)
        std::cerr << fmt::format("sweep: {} point{} of {}{}, output in {}\n", results.size(),
                                 results.size() == 1 ? "" : "s", opt.scenario,
                                 opt.seeds > 0 ? fmt::format(", {} seeds each", opt.seeds) : "", opt.out_dir);
      // A --metric the first finished run's summary.json does not have is a typo: stop there.
      auto check_metrics = [&](const run_outcome& first) {
        for (const auto& m : options.metrics) {
          if (first.metrics.count(m)) continue;
          std::string best;
          size_t best_d = SIZE_MAX;
          for (const auto& [k, v] : first.metrics)
            if (const size_t d = edit_distance(m, k); d < best_d) best_d = d, best = k;
          throw config_error(fmt::format("--metric '{}': the first run's summary.json has no such number (closest: '{}'); "
                                         "the numbers are listed in docs/outputs.md; the sweep stopped", m, best));
        }
      };
      runs = run_jobs(jobs, opt.jobs, opt.quiet, check_metrics);
    }
    assign_runs(results, std::move(runs));
    return gather(opt, axes, results);
  } catch (const std::exception& e) {
    std::cerr << "netasic sweep: " << e.what() << "\n";
    return exit_config;
  }
}

}  // namespace netasic
