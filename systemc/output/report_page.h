// Inside report.html: the page being built and the plot helpers its sections share
// (report.cpp, report_clock.cpp). Not for other writers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "clock/clock_network.h"
#include "output/plot.h"
#include "output/run_data.h"

namespace netasic::report {

constexpr size_t max_lines = 8;            // probe lines per plot
constexpr size_t max_plot_points = 2000;   // per series

struct page {
  std::string html;
  int plots = 0;
  std::string next_id();
  // A figure's place in the page; its plot is drawn by draw_figures(), all in one gnuplot run.
  void figure(const plot_spec& spec, const std::string& caption);
  void note(const std::string& text);
  // The page with every figure drawn in its place.
  std::string draw_figures();

 private:
  std::vector<plot_spec> figures_;
};

// Every value of `v` but only the min and max of each of max_points / 2 runs, in time order, so
// a long series stays small in the SVG while its peaks survive.
void downsample(const std::vector<double>& t, const std::vector<int64_t>& v, size_t max_points,
                std::vector<double>& xo, std::vector<double>& yo);

// The empirical CDF of sorted, non-empty values as a step line, thinned to max_plot_points.
plot_series cdf_series(const std::string& title, const std::vector<double>& sorted);

// The clock layer's probes ("clock.ALG.epsilon", ".offset", ".offset_ideal"): drawn in their own section.
bool is_clock_series(const probe_series& s);

// The section "Clock synchronisation" (report_clock.cpp).
void clock_section(page& pg, const clock_result& clock, const probe_set& probes);

}  // namespace netasic::report
