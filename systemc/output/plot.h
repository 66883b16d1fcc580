// Plots as inline SVG, drawn by gnuplot (svg terminal). The data travels inside the script as
// "$dN << EOD" blocks, so the same spec always gives the same script and the same SVG.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace netasic {

struct plot_series {
  std::string title;              // legend entry
  std::vector<double> x, y;       // same length; points that a log axis cannot show are dropped
  std::string style = "lines";    // gnuplot "with" style: lines, steps, linespoints, points
  // Error bars: both empty, or both as long as y (each point's low and high end); a series with
  // them is drawn "with yerrorlines" (or "yerrorbars" when style is "points").
  std::vector<double> ylow, yhigh;
  bool y2 = false;                // against the right-hand y axis (spec.y2label)
};

struct plot_spec {
  std::string title;
  std::string xlabel, ylabel;     // with the unit, e.g. "flow size (bytes)"
  std::string y2label;            // the right-hand axis, for series with y2 set
  bool logx = false, logy = false, logy2 = false;
  std::string xformat, yformat;   // gnuplot tic formats, e.g. "%.0s %cB" for 1 kB, 1 MB; "" = "%g"
  std::optional<double> xmin, xmax, ymin, ymax;   // unset = autoscale
  std::vector<std::pair<double, std::string>> xtics;   // labelled x positions; empty = automatic
  std::vector<plot_series> series;
  int width_px = 820, height_px = 420;
  std::string id;                 // prefixes the SVG's element ids: several plots on one page
};

// True when a `gnuplot` executable is on PATH.
bool gnuplot_available();

// The gnuplot script render_svg() runs (the svg terminal, no mouse, text not "enhanced" so
// names with '_' print as written). Series with no drawable point are left out; a spec with
// none at all throws std::invalid_argument.
std::string gnuplot_script(const plot_spec& spec);

// Runs gnuplot on a script and returns what it printed on stdout. Throws std::runtime_error
// when gnuplot is not on PATH (saying to run scripts/setup.sh) or when it fails (with its
// error output).
std::string run_gnuplot(const std::string& script);

// The plot as an <svg> element ready to be inlined in HTML: no XML prolog, no namespace URLs,
// ids prefixed with spec.id.
std::string render_svg(const plot_spec& spec);

// Several plots drawn by one gnuplot process, each as render_svg() gives it: gnuplot's start-up
// (about 40 ms) is most of a small plot's time, and a report has a dozen or more.
std::vector<std::string> render_svgs(const std::vector<plot_spec>& specs);

}  // namespace netasic
