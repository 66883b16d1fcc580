#include "sweep.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/file_io.h"
#include "common/text.h"
#include "output/csv.h"
#include "output/format.h"
#include "output/plot.h"
#include "output/report.h"

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

struct point_result {
  grid_point point;
  fs::path dir;
  std::string status = "not run";   // "ok" or why the point failed
  double wall_s = 0;
  std::map<std::string, json> metrics;   // numeric scalars of summary.json, flattened
  bool ok() const { return status == "ok"; }
};

// Reads a point's summary.json into r.metrics; false (and r.status says why) if it cannot.
bool read_summary(point_result& r) {
  std::ifstream in(r.dir / "summary.json");
  if (!in) {
    r.status = "no summary.json";
    return false;
  }
  json doc = json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    r.status = "unreadable summary.json";
    return false;
  }
  for (const auto& [key, value] : flatten_json(doc))
    if (value.is_number()) r.metrics[key] = value;
  return true;
}

std::string exit_text(int status) {
  if (WIFEXITED(status)) return fmt::format("exit {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("signal {}: {}", WTERMSIG(status), strsignal(WTERMSIG(status)));
  return "stopped";
}

// Starts one point with stdin from /dev/null and stdout and stderr into its log.txt.
pid_t spawn_point(const std::vector<std::string>& argv, const fs::path& log) {
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

void run_points(const sweep_options& opt, std::vector<point_result>& results) {
  using clock = std::chrono::steady_clock;
  struct running {
    pid_t pid;
    size_t index;
    clock::time_point start;
  };
  size_t jobs = opt.jobs > 0 ? static_cast<size_t>(opt.jobs) : std::max(1u, std::thread::hardware_concurrency());
  std::vector<running> active;
  size_t next = 0, finished = 0;
  const size_t n = results.size();

  auto report = [&](const point_result& r) {
    ++finished;
    if (r.ok()) {
      if (!opt.quiet)
        std::cerr << fmt::format("[{}/{}] {} done in {:.1f} s\n", finished, n, describe(r.point), r.wall_s);
    } else {
      std::cerr << fmt::format("[{}/{}] {} FAILED ({}), see {}\n", finished, n, describe(r.point), r.status,
                               (r.dir / "log.txt").string());
    }
  };

  while (next < n || !active.empty()) {
    while (next < n && active.size() < jobs) {
      auto& r = results[next];
      auto argv = point_command(opt, r.point, r.dir.string());
      try {
        active.push_back({spawn_point(argv, r.dir / "log.txt"), next, clock::now()});
      } catch (const std::exception& e) {
        r.status = e.what();
        report(r);
      }
      ++next;
    }
    if (active.empty()) continue;
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(fmt::format("waiting for the sweep's points: {}", std::strerror(errno)));
    }
    auto it = std::find_if(active.begin(), active.end(), [&](const running& a) { return a.pid == pid; });
    if (it == active.end()) continue;   // not one of ours
    auto& r = results[it->index];
    r.wall_s = std::chrono::duration<double>(clock::now() - it->start).count();
    active.erase(it);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      if (read_summary(r)) r.status = "ok";
      else r.status = "exit 0 but " + r.status;
    } else {
      r.status = exit_text(status);
    }
    report(r);
  }
}

void write_csv(const fs::path& path, const std::vector<grid_axis>& axes, const std::vector<point_result>& results,
               const std::vector<std::string>& columns) {
  std::string s = "point";
  for (const auto& a : axes) s += "," + csv_escape(a.key);
  s += ",status";
  for (const auto& c : columns) s += "," + csv_escape(c);
  s += "\n";
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    s += std::to_string(i + 1);
    for (const auto& kv : r.point) s += "," + csv_escape(kv.second);
    s += "," + csv_escape(r.status);
    for (const auto& c : columns) {
      s += ",";
      if (!r.ok()) continue;
      if (auto it = r.metrics.find(c); it != r.metrics.end()) s += it->second.dump();
    }
    s += "\n";
  }
  write_file(path.string(), s);
}

std::string axis_label(const std::string& key, const std::string& unit) {
  return unit.empty() ? key : fmt::format("{} ({})", key, unit);
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
  h += "</p>\n";

  int plot_no = 0;
  for (const auto& metric : opt.metrics) {
    h += "<h2>" + html_escape(metric) + "</h2>\n";
    if (axes.empty()) {
      h += "<p class=\"note\">The sweep has no grid, so there is nothing to plot against; see the table.</p>\n";
      continue;
    }
    const auto& x_axis = axes.front();
    // A numeric first key is an x axis; other values are evenly spaced categories.
    bool numeric = std::all_of(x_axis.values.begin(), x_axis.values.end(),
                               [](const std::string& v) { return as_number(v).has_value(); });
    plot_spec spec;
    spec.id = fmt::format("plot{}", ++plot_no);
    spec.title = metric + " by " + x_axis.key;
    spec.xlabel = axis_label(x_axis.key, key_unit(x_axis.key));
    spec.ylabel = axis_label(metric, unit_of_key(metric));
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
    // One line per combination of the other keys, in grid order.
    std::vector<std::string> line_names;
    std::map<std::string, plot_series> lines;
    bool any = false;
    for (const auto& r : results) {
      std::string name;
      for (size_t k = 1; k < r.point.size(); ++k)
        name += (name.empty() ? "" : ", ") + r.point[k].first + "=" + r.point[k].second;
      if (name.empty()) name = metric;
      if (!lines.count(name)) {
        line_names.push_back(name);
        lines[name].title = name;
        lines[name].style = "linespoints";
      }
      if (!r.ok()) continue;
      auto it = r.metrics.find(metric);
      if (it == r.metrics.end()) continue;
      const std::string& xv = r.point.front().second;
      double x = numeric ? *as_number(xv)
                         : static_cast<double>(std::find(x_axis.values.begin(), x_axis.values.end(), xv) -
                                               x_axis.values.begin());
      lines[name].x.push_back(x);
      lines[name].y.push_back(it->second.get<double>());
      any = true;
    }
    if (!any) {
      h += "<p class=\"note\">No successful point has " + html_escape(metric) + " in its summary.json.</p>\n";
      continue;
    }
    for (const auto& n : line_names) {
      auto& s = lines[n];
      // Grid order need not be sorted: draw each line from left to right.
      std::vector<size_t> order(s.x.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return s.x[a] < s.x[b]; });
      plot_series sorted{s.title, {}, {}, s.style};
      for (size_t i : order) {
        sorted.x.push_back(s.x[i]);
        sorted.y.push_back(s.y[i]);
      }
      if (!sorted.x.empty()) spec.series.push_back(std::move(sorted));
    }
    std::string caption = axes.size() > 1 ? "One line per combination of the other grid keys." : "";
    if (failed > 0) caption += std::string(caption.empty() ? "" : " ") + "Failed points are left out.";
    h += "<figure>\n" + render_svg(spec) + "\n<figcaption>" + html_escape(caption) + "</figcaption>\n</figure>\n";
  }

  // The points, with the requested metrics and a link to each point's own report.
  h += "<h2>Points</h2>\n<table>\n<tr><th>point</th>";
  for (const auto& a : axes) h += "<th>" + html_escape(axis_label(a.key, key_unit(a.key))) + "</th>";
  h += "<th>status</th><th>wall time</th>";
  for (const auto& m : opt.metrics) h += "<th>" + html_escape(m) + "</th>";
  h += "<th>report</th></tr>\n";
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    h += fmt::format("<tr><td>{}</td>", i + 1);
    for (const auto& kv : r.point) h += "<td>" + html_escape(kv.second) + "</td>";
    h += "<td>" + html_escape(r.status) + "</td><td>" + (r.wall_s > 0 ? fmt::format("{:.1f} s", r.wall_s) : "") +
         "</td>";
    for (const auto& m : opt.metrics) {
      auto it = r.metrics.find(m);
      h += "<td>" + (r.ok() && it != r.metrics.end() ? html_escape(format_value(m, it->second)) : "") + "</td>";
    }
    std::string rel = r.dir.filename().string() + "/report.html";
    h += "<td>" + (fs::exists(r.dir / "report.html") ? "<a href=\"" + html_escape(rel) + "\">report</a>" : "") +
         "</td></tr>\n";
  }
  h += "</table>\n</body>\n</html>\n";
  return h;
}

// The shell line of one point for job files: make its directory, run it, stderr to its log.
std::string job_line(const sweep_options& opt, const point_result& r) {
  std::string dir = shell_quote(r.dir.string());
  return fmt::format("mkdir -p {} && {} > {}/log.txt 2>&1", dir, join_command(point_command(opt, r.point, r.dir.string())),
                     dir);
}

int emit_jobs(const sweep_options& opt, const std::vector<point_result>& results) {
  const fs::path out(opt.out_dir);
  std::string lines;
  for (const auto& r : results) lines += job_line(opt, r) + "\n";
  if (opt.emit == "parallel") {
    write_file((out / "jobs.txt").string(), lines);
    std::cerr << fmt::format(
        "wrote {} ({} commands). From this directory run:\n  parallel --jobs {} < {}\nthen gather the results "
        "with the same sweep command and --collect.\n",
        (out / "jobs.txt").string(), results.size(),
        opt.jobs > 0 ? std::to_string(opt.jobs) : std::string("100%"), shell_quote((out / "jobs.txt").string()));
    return 0;
  }
  write_file((out / "points.txt").string(), lines);
  std::string script = "#!/bin/bash\n";
  script += fmt::format("# netasic sweep of {}: {} points, one array task each.\n", opt.scenario, results.size());
  script += "# Submit from the directory the sweep was written from (paths are relative to it).\n";
  script += "#SBATCH --job-name=netasic-sweep\n";
  script += fmt::format("#SBATCH --array=1-{}{}\n", results.size(), opt.jobs > 0 ? fmt::format("%{}", opt.jobs) : "");
  script += fmt::format("#SBATCH --output={}/slurm-%A_%a.out\n", opt.out_dir);
  script += "set -euo pipefail\n";
  script += fmt::format("line=$(sed -n \"${{SLURM_ARRAY_TASK_ID}}p\" {})\n", shell_quote((out / "points.txt").string()));
  script += "exec bash -c \"$line\"\n";
  write_file((out / "sweep.slurm").string(), script);
  std::cerr << fmt::format(
      "wrote {} and {} ({} array tasks). From this directory run:\n  sbatch {}\nthen gather the results with the "
      "same sweep command and --collect.\n",
      (out / "sweep.slurm").string(), (out / "points.txt").string(), results.size(),
      shell_quote((out / "sweep.slurm").string()));
  return 0;
}

}  // namespace

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
                                       const std::string& point_dir) {
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
  if (seed) {
    argv.push_back("--seed");
    argv.push_back(*seed);
  }
  argv.insert(argv.end(), {"--out", point_dir, "--quiet"});
  return argv;
}

int run_sweep(const sweep_options& options) {
  sweep_options opt = options;
  std::vector<grid_axis> axes;
  std::vector<grid_point> points;
  try {
    if (opt.scenario.empty()) throw std::invalid_argument("no scenario given");
    if (opt.out_dir.empty()) throw std::invalid_argument("no output directory given (--out)");
    if (opt.emit != "" && opt.emit != "slurm" && opt.emit != "parallel")
      throw std::invalid_argument(fmt::format("--emit '{}': expected slurm or parallel", opt.emit));
    if (opt.collect && !opt.emit.empty()) throw std::invalid_argument("--collect and --emit exclude each other");
    axes = parse_grid(opt.grid);
    points = expand_grid(opt.grid);
    for (const auto& a : axes) {
      if (a.key == "seed" && opt.seed)
        throw std::invalid_argument("--grid 'seed=...' and --seed exclude each other");
      for (const auto& s : opt.sets)
        if (s.substr(0, s.find('=')) == a.key)
          throw std::invalid_argument(fmt::format("key '{}' is both in --grid and in --set '{}'", a.key, s));
    }
    if (opt.netasic_exe.empty()) opt.netasic_exe = running_executable();  // the points run this netasic
    if (!opt.collect && !runnable(opt.netasic_exe))
      throw std::invalid_argument(fmt::format("cannot run '{}': not an executable", opt.netasic_exe));
    if (opt.metrics.empty()) opt.metrics = sweep_options{}.metrics;
  } catch (const std::exception& e) {
    std::cerr << "netasic sweep: " << e.what() << "\n";
    return 2;
  }

  try {
    const fs::path out(opt.out_dir);
    fs::create_directories(out);
    std::vector<point_result> results(points.size());
    for (size_t i = 0; i < points.size(); ++i) {
      results[i].point = points[i];
      results[i].dir = out / point_dir_name(i + 1, points.size());
    }
    if (!opt.emit.empty()) return emit_jobs(opt, results);

    if (opt.collect) {
      for (auto& r : results)
        if (read_summary(r)) r.status = "ok";
    } else {
      for (auto& r : results) {
        fs::create_directories(r.dir);
        fs::remove(r.dir / "summary.json");   // a stale one must not pass for this run's result
      }
      if (!opt.quiet)
        std::cerr << fmt::format("sweep: {} point{} of {}, output in {}\n", results.size(),
                                 results.size() == 1 ? "" : "s", opt.scenario, opt.out_dir);
      run_points(opt, results);
    }

    // Every numeric summary value seen at any point, in name order; one that repeats a column
    // already there (a summary echoing its seed) is left out.
    std::set<std::string> names;
    for (const auto& r : results)
      for (const auto& m : r.metrics) names.insert(m.first);
    names.erase("point");
    names.erase("status");
    for (const auto& a : axes) names.erase(a.key);
    for (const auto& m : opt.metrics)
      if (!names.count(m) && std::any_of(results.begin(), results.end(), [](const point_result& r) { return r.ok(); }))
        std::cerr << fmt::format("sweep: no summary.json has the metric '{}'\n", m);
    write_csv(out / "sweep.csv", axes, results, {names.begin(), names.end()});
    write_file((out / "sweep.html").string(), html_page(opt, axes, results));

    size_t failed = std::count_if(results.begin(), results.end(), [](const point_result& r) { return !r.ok(); });
    if (!opt.quiet || failed > 0)
      std::cerr << fmt::format("sweep: {} of {} points succeeded; wrote {} and {}\n", results.size() - failed,
                               results.size(), (out / "sweep.csv").string(), (out / "sweep.html").string());
    return failed > 0 ? 1 : 0;
  } catch (const std::exception& e) {
    std::cerr << "netasic sweep: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace netasic
