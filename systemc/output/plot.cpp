#include "output/plot.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

extern char** environ;

namespace netasic {

namespace {

const char* const missing_gnuplot =
    "gnuplot is not on PATH; the report's plots need it: run scripts/setup.sh (it installs gnuplot-nox)";

// gnuplot single-quoted string: no escapes inside, a quote is doubled.
std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') q += '\'';
    if (c == '\n') c = ' ';
    q += c;
  }
  return q + "'";
}

// A temporary file that is removed when it goes out of scope.
struct temp_file {
  std::string path;
  int fd = -1;
  temp_file() {
    const char* dir = std::getenv("TMPDIR");
    path = std::string(dir && *dir ? dir : "/tmp") + "/netasic-plot-XXXXXX";
    fd = ::mkstemp(path.data());
    if (fd < 0) throw std::runtime_error(fmt::format("cannot create a temporary file {}: {}", path, std::strerror(errno)));
  }
  ~temp_file() {
    if (fd >= 0) ::close(fd);
    ::unlink(path.c_str());
  }
  temp_file(const temp_file&) = delete;
  temp_file& operator=(const temp_file&) = delete;
  std::string read() const {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
};

// Replaces every occurrence of `from` with `to`.
void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) s.replace(pos, from.size(), to);
}

}  // namespace

bool gnuplot_available() {
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  for (;;) {
    size_t colon = p.find(':', start);
    std::string dir = p.substr(start, colon - start);
    if (dir.empty()) dir = ".";
    if (::access((dir + "/gnuplot").c_str(), X_OK) == 0) return true;
    if (colon == std::string::npos) return false;
    start = colon + 1;
  }
}

std::string gnuplot_script(const plot_spec& spec) {
  std::string s;
  // "noenhanced": labels are printed as written ('_' would otherwise start a subscript).
  s += fmt::format("set terminal svg size {},{} noenhanced font 'sans,11' background '#ffffff'\n", spec.width_px,
                   spec.height_px);
  s += "set encoding utf8\n";
  std::vector<std::string> plots;
  for (size_t i = 0; i < spec.series.size(); ++i) {
    const auto& ser = spec.series[i];
    if (ser.x.size() != ser.y.size())
      throw std::invalid_argument(fmt::format("plot '{}': series '{}' has {} x and {} y values", spec.title,
                                              ser.title, ser.x.size(), ser.y.size()));
    const bool bars = !ser.ylow.empty() || !ser.yhigh.empty();
    if (bars && (ser.ylow.size() != ser.y.size() || ser.yhigh.size() != ser.y.size()))
      throw std::invalid_argument(fmt::format("plot '{}': series '{}' has {} y values but {} low and {} high ends",
                                              spec.title, ser.title, ser.y.size(), ser.ylow.size(), ser.yhigh.size()));
    const bool logy = ser.y2 ? spec.logy2 : spec.logy;
    std::string block;
    size_t points = 0;
    for (size_t k = 0; k < ser.x.size(); ++k) {
      double x = ser.x[k], y = ser.y[k];
      if (!std::isfinite(x) || !std::isfinite(y) || (spec.logx && x <= 0) || (logy && y <= 0)) continue;
      block += fmt::format("{:.10g} {:.10g}", x, y);
      // An end a log axis cannot show (or an unknown one) is drawn at the point itself.
      if (bars)
        for (double e : {ser.ylow[k], ser.yhigh[k]})
          block += fmt::format(" {:.10g}", std::isfinite(e) && (!logy || e > 0) ? e : y);
      block += "\n";
      ++points;
    }
    if (points == 0) continue;
    s += fmt::format("$d{} << EOD\n{}EOD\n", i, block);
    const std::string with = !bars ? ser.style : ser.style == "points" ? "yerrorbars" : "yerrorlines";
    plots.push_back(fmt::format("$d{} using {} with {} lw 1.5{} title {}", i, bars ? "1:2:3:4" : "1:2", with,
                                ser.y2 ? " axes x1y2" : "", quoted(ser.title)));
  }
  if (plots.empty()) throw std::invalid_argument(fmt::format("plot '{}' has no data to draw", spec.title));
  s += "set title " + quoted(spec.title) + "\n";
  s += "set xlabel " + quoted(spec.xlabel) + "\n";
  s += "set ylabel " + quoted(spec.ylabel) + "\n";
  s += "set grid back lc rgb '#dddddd'\nset border 3\nset tics nomirror\n";
  s += "set key outside right top vertical Left reverse noautotitle\n";
  if (spec.logx) s += "set logscale x\n";
  if (spec.logy) s += "set logscale y\n";
  if (!spec.y2label.empty()) {
    s += "set y2label " + quoted(spec.y2label) + "\nset y2tics\nset format y2 '%g'\nset border 11\n";
    if (spec.logy2) s += "set logscale y2\n";
  }
  s += "set format x " + quoted(spec.xformat.empty() ? "%g" : spec.xformat) + "\n";
  s += "set format y " + quoted(spec.yformat.empty() ? "%g" : spec.yformat) + "\n";
  s += "set offsets 0, 0, graph 0.05, graph 0.05\n";   // autoscaled y: lines clear of the frame
  if (spec.xmin || spec.xmax)
    s += fmt::format("set xrange [{}:{}]\n", spec.xmin ? fmt::format("{:.10g}", *spec.xmin) : "*",
                     spec.xmax ? fmt::format("{:.10g}", *spec.xmax) : "*");
  if (spec.ymin || spec.ymax)
    s += fmt::format("set yrange [{}:{}]\n", spec.ymin ? fmt::format("{:.10g}", *spec.ymin) : "*",
                     spec.ymax ? fmt::format("{:.10g}", *spec.ymax) : "*");
  if (!spec.xtics.empty()) {
    s += "set xtics (";
    for (size_t i = 0; i < spec.xtics.size(); ++i)
      s += fmt::format("{}{} {:.10g}", i ? ", " : "", quoted(spec.xtics[i].second), spec.xtics[i].first);
    s += ")\n";
  }
  s += "plot ";
  for (size_t i = 0; i < plots.size(); ++i) s += (i ? ", \\\n     " : "") + plots[i];
  s += "\n";
  return s;
}

std::string run_gnuplot(const std::string& script) {
  if (!gnuplot_available()) throw std::runtime_error(missing_gnuplot);
  // The script from a file named on the command line (gnuplot reads its stdin a byte at a time,
  // a system call each: 80,000 for a report), stdout and stderr to files: no pipe can fill up and
  // block.
  temp_file in, out, err;
  for (size_t done = 0; done < script.size();) {
    ssize_t n = ::write(in.fd, script.data() + done, script.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(fmt::format("cannot write the gnuplot script to {}: {}", in.path, std::strerror(errno)));
    done += static_cast<size_t>(n);
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out.fd, 1);
  posix_spawn_file_actions_adddup2(&fa, err.fd, 2);
  char arg0[] = "gnuplot";
  char* argv[] = {arg0, in.path.data(), nullptr};
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, "gnuplot", &fa, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc == ENOENT) throw std::runtime_error(missing_gnuplot);
  if (rc != 0) throw std::runtime_error(fmt::format("cannot start gnuplot: {}", std::strerror(rc)));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error(fmt::format("waiting for gnuplot: {}", std::strerror(errno)));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string e = err.read();
    if (e.size() > 2000) e = e.substr(0, 2000) + "...";
    throw std::runtime_error(fmt::format("gnuplot failed ({}): {}",
                                         WIFEXITED(status) ? fmt::format("exit {}", WEXITSTATUS(status))
                                                           : fmt::format("signal {}", WTERMSIG(status)),
                                         e));
  }
  return out.read();
}

namespace {

// gnuplot's SVG as an element to inline: from <svg on, no namespace declarations (the page then
// names no URL), the plot's title as its <title>, and ids prefixed with spec.id.
std::string inline_svg(std::string svg, const plot_spec& spec) {
  auto start = svg.find("<svg");
  if (start == std::string::npos) throw std::runtime_error("gnuplot wrote no <svg> element");
  svg.erase(0, start);
  replace_all(svg, " xmlns=\"http://www.w3.org/2000/svg\"", "");
  replace_all(svg, " xmlns:xlink=\"http://www.w3.org/1999/xlink\"", "");
  std::string title;
  for (char c : spec.title) title += c == '<' ? std::string("&lt;") : c == '&' ? std::string("&amp;") : std::string(1, c);
  replace_all(svg, "<title>Gnuplot</title>", "<title>" + title + "</title>");
  if (!spec.id.empty()) {
    for (const char* q : {"\"", "'"}) {
      replace_all(svg, std::string("id=") + q, std::string("id=") + q + spec.id + "_");
      replace_all(svg, std::string("href=") + q + "#", std::string("href=") + q + "#" + spec.id + "_");
    }
    replace_all(svg, "url(#", "url(#" + spec.id + "_");
  }
  return svg;
}

}  // namespace

std::string render_svg(const plot_spec& spec) { return inline_svg(run_gnuplot(gnuplot_script(spec)), spec); }

std::vector<std::string> render_svgs(const std::vector<plot_spec>& specs) {
  if (specs.size() == 1) return {render_svg(specs.front())};
  // Each plot to a file of its own; `reset session` before each, so that it starts from
  // gnuplot's defaults as in a process of its own, and gives the same SVG.
  std::vector<temp_file> files(specs.size());
  std::string script;
  for (size_t i = 0; i < specs.size(); ++i) {
    const std::string& path = files[i].path;
    script += "reset session\nset output " + quoted(path) + "\n" + gnuplot_script(specs[i]);
  }
  if (!specs.empty()) run_gnuplot(script + "unset output\n");
  std::vector<std::string> svgs;
  for (size_t i = 0; i < specs.size(); ++i) svgs.push_back(inline_svg(files[i].read(), specs[i]));
  return svgs;
}

}  // namespace netasic
