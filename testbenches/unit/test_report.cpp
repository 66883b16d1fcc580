// report.html and its plots (output/report.h, output/plot.h).
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "clock/clock_network.h"
#include "output/plot.h"
#include "output/report.h"
#include "output/report_telemetry.h"

#include "output_samples.h"

using namespace netasic;
using namespace netasic::output_test;

TEST(Report, ScenarioName) {
  EXPECT_EQ(scenario_name({{"scenario", "incast"}}), "incast");
  EXPECT_EQ(scenario_name({{"scenario", {{"name", "x"}}}}), "x");
  EXPECT_EQ(scenario_name(nlohmann::json::object()), "unnamed scenario");
}

// ---------------------------------------------------------------- plots and the report page

TEST(Plot, ScriptIsDeterministicAndDropsUndrawablePoints) {
  plot_spec s;
  s.title = "t_1";
  s.xlabel = "x (us)";
  s.ylabel = "y's (bytes)";
  s.logx = true;
  s.series.push_back({"a", {0, 1, 10}, {5, 6, 7}, "lines", {}, {}, false});
  s.series.push_back({"empty on log x", {-1}, {2}, "lines", {}, {}, false});
  std::string script = gnuplot_script(s);
  EXPECT_EQ(script, gnuplot_script(s));
  EXPECT_NE(script.find("noenhanced"), std::string::npos);
  EXPECT_NE(script.find("$d0 << EOD\n1 6\n10 7\nEOD\n"), std::string::npos);   // x=0 dropped on log x
  EXPECT_EQ(script.find("$d1"), std::string::npos);
  EXPECT_NE(script.find("'y''s (bytes)'"), std::string::npos);
  s.series.resize(1);
  s.series[0].x = {0};
  s.series[0].y = {1};
  EXPECT_THROW(gnuplot_script(s), std::invalid_argument);
}

TEST(Plot, OneGnuplotRunDrawsEachPlotAsARunOfItsOwn) {
  // A log-scale plot between two linear ones with a y2 axis, each with its own ids: a setting
  // that leaked from one plot into the next, or an SVG given to the wrong plot, would differ from
  // the plot drawn alone.
  std::vector<plot_spec> specs(3);
  for (size_t i = 0; i < specs.size(); ++i) {
    plot_spec& s = specs[i];
    s.title = "plot " + std::to_string(i);
    s.xlabel = "x (us)";
    s.ylabel = "y (bytes)";
    s.id = "p" + std::to_string(i);
    s.series.push_back({"a", {1, 10, 100}, {double(i + 1), 4, 9}, "lines", {}, {}, false});
  }
  specs[0].y2label = "z (%)";
  specs[0].series.push_back({"b", {1, 10}, {50, 60}, "points", {}, {}, true});
  specs[1].logx = specs[1].logy = true;
  specs[1].xmin = 2;
  const std::vector<std::string> together = render_svgs(specs);
  ASSERT_EQ(together.size(), specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    EXPECT_EQ(together[i], render_svg(specs[i])) << "plot " << i;
    EXPECT_NE(together[i].find("<title>plot " + std::to_string(i) + "</title>"), std::string::npos);
  }
  EXPECT_TRUE(render_svgs({}).empty());
}

TEST(Plot, AFailedScriptSaysWhatGnuplotSaid) {
  EXPECT_EQ(run_gnuplot("set print '-'\nprint 6 * 7\n"), "42\n");   // stdout is what it returns
  try {
    run_gnuplot("print 1\nplot $nosuch using 1:2\n");
    ADD_FAILURE() << "a plot of an undefined datablock did not fail";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no datablock named $nosuch"), std::string::npos) << e.what();
  }
}

TEST(Plot, MissingGnuplotSaysHowToInstallIt) {
  std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
  temp_dir empty("nopath");
  ::setenv("PATH", empty.path.c_str(), 1);
  try {
    run_gnuplot("print 1\n");
    ADD_FAILURE() << "run_gnuplot succeeded without gnuplot on PATH";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("scripts/setup.sh"), std::string::npos) << e.what();
  }
  ::setenv("PATH", saved.c_str(), 1);
}

TEST(ReportPage, HasAPlotForEachSectionWithData) {
  probe_set p = sample_probes();
  nlohmann::json summary = {{"scenario", "unit<test>"}, {"fct_us", {{"p99", 12.5}}}, {"drops_bytes", 3000}};
  std::string html = report_html(summary, sample_flows(), p);
  // (a) slowdown by size, (b) FCT CDF, (c) queue depth and its distribution, (d) bytes probes,
  // unitless probes.
  EXPECT_EQ(count(html, "<svg"), 6u);
  EXPECT_NE(html.find("<title>netasic report: unit&lt;test&gt;</title>"), std::string::npos);
  EXPECT_NE(html.find("12.5 us"), std::string::npos);
  EXPECT_NE(html.find("3,000 bytes (3 kB)"), std::string::npos);
  EXPECT_NE(html.find("FCT slowdown by flow size"), std::string::npos);
  // The bins of summary.json's fct_slowdown_by_size. The last one holds the 204,800-byte flows:
  // i = 11 + 12k for k = 0..32 but i = 299 (incomplete), slowdown 1 + 0.3 (i mod 10) with i mod 10
  // cycling 1, 3, 5, 7, 9: 7 x 1.3, 7 x 1.9, 7 x 2.5, 6 x 3.1, 5 x 3.7. Nearest rank over 32:
  // p50 rank 16 = 2.5, p95 rank 31 = 3.7, p99 rank 32 = 3.7.
  EXPECT_NE(html.find("Completed flows in 5 bins"), std::string::npos);
  EXPECT_NE(html.find("<tr><td>192,000 ≤ size &lt; 768,000 bytes</td><td>32 flows</td><td>2.500×</td><td>3.700×</td>"
                      "<td>3.700×</td></tr>"),
            std::string::npos);
  EXPECT_NE(html.find("flow completion time (us)"), std::string::npos);
  EXPECT_NE(html.find("queue depth (bytes)"), std::string::npos);
  // Self-contained: no script, no URL; ids made unique per plot.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos);
  EXPECT_EQ(count(html, "id=\"plot1_gnuplot_canvas\""), 1u);
  EXPECT_EQ(count(html, "id=\"plot2_gnuplot_canvas\""), 1u);
  EXPECT_EQ(html, report_html(summary, sample_flows(), p));   // deterministic
}

TEST(ReportPage, ManyQueuesShowTheTopEight) {
  probe_set p;
  p.interval_s = 1e-6;
  p.t_s = {0, 1e-6, 2e-6};
  for (int i = 0; i < 12; ++i) p.series.push_back({"leaf" + std::to_string(i), "port0.qdepth", "bytes", {0, i * 100, 0}});
  std::string html = report_html(nlohmann::json::object(), {}, p);
  EXPECT_EQ(count(html, "<svg"), 2u);   // queue depth over time, and its distribution
  EXPECT_NE(html.find("Showing the 8 of 12 probes with the highest peak value"), std::string::npos);
  // The distribution takes every sample of every queue: 25 zeros, then 100 to 1100 bytes (ranks
  // 26 to 36). Nearest rank, as summary.json's queue section: p50 is rank ceil(18) = 18, a zero;
  // p95 rank ceil(34.2) = 35, 1000 bytes; p99 rank ceil(35.64) = 36, 1100 bytes.
  EXPECT_NE(html.find("36 samples of 12 queues: p50 0 bytes, p95 1000 bytes, p99 1100 bytes."), std::string::npos);
  EXPECT_NE(html.find("leaf11.port0.qdepth"), std::string::npos);
  EXPECT_EQ(html.find("leaf3.port0.qdepth"), std::string::npos);   // peak 300 bytes, 9th highest
}

TEST(ReportPage, EmptyInputsGiveSentencesNotPlots) {
  std::string html = report_html(nlohmann::json::object(), {}, probe_set{});
  EXPECT_EQ(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("no flows"), std::string::npos);
  EXPECT_NE(html.find("No probes were sampled"), std::string::npos);
  std::vector<flow_record> none_done = {flow(0, 100, 0, -1, 1e-6)};
  html = report_html(nlohmann::json::object(), none_done, probe_set{});
  EXPECT_EQ(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("None of the 1 flow completed"), std::string::npos);
}

TEST(ReportPage, ClockSectionReadsTheTypedResult) {
  clock_result c;
  c.root = "core0";
  clock_algorithm_result a;
  a.algorithm = clock_algorithm::sundial;
  a.bound_checks = 10;
  a.bound_violations = 3;
  a.messages_per_s = 2.5e6;
  a.epsilon_p50_ns = 12.5;
  a.epsilon_p99_ns = 40.0;
  a.epsilon_max_ns = 55.0;
  a.max_abs_offset_ns = 7.0;
  clock_failure_result f;
  f.at_ps = 2'000'000;   // 2 us
  f.text = "link agg0-core0 @ 2";
  f.affected = 4;
  f.cut_off = 1;
  f.all_recovered = false;
  f.outage_known = true;
  f.max_outage_ps = 270'000'000;   // 270 us
  f.peak_epsilon_ps = 55'000;
  f.peak_device = "agg0";
  f.impacted_ps = 1'000'000'000;   // 1 ms
  a.failures = {f};
  c.algorithms = {a};
  probe_set p;
  p.interval_s = 1e-6;
  p.t_s = {0, 1e-6, 2e-6, 3e-6};
  p.series = {{"core0", "clock.sundial.epsilon", "ns", {0, 0, 0, 0}},
              {"agg0", "clock.sundial.epsilon", "ns", {-1, 5, 55, 6}},
              {"core0", "clock.sundial.offset", "ns", {0, 0, 0, 0}},
              {"agg0", "clock.sundial.offset", "ns", {0, 2, -3, 1}},
              {"core0", "clock.sundial.offset_ideal", "ns", {0, 1, 2, 3}},
              {"agg0", "clock.sundial.offset_ideal", "ns", {0, 3, -1, 4}}};
  const std::string html = report_html(nlohmann::json::object(), {}, p, &c);
  EXPECT_NE(html.find("<h2>Clock synchronisation</h2>"), std::string::npos);
  EXPECT_NE(html.find("<tr><td>sundial</td><td>12.5 ns</td><td>40 ns</td><td>55 ns</td><td>7 ns</td>"
                      "<td>3 of 10 checks</td><td>2.5 M/s</td></tr>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr><td>sundial</td><td>link agg0-core0 @ 2</td><td>4 (1 cut off)</td><td>not within the run</td>"
                      "<td>270 us</td><td>55 ns at agg0</td><td>1 ms</td></tr>"),
            std::string::npos);
  EXPECT_EQ(html.find("all 1 faults"), std::string::npos);   // one failure: no total row, no blast-radius plot
  EXPECT_NE(html.find("Epsilon and the true offset: sundial, agg0"), std::string::npos);
  EXPECT_NE(html.find("core0 (root at the start)"), std::string::npos);
  // The clock's probes are drawn in their section only, not again among the probes.
  EXPECT_EQ(html.find("Other probes"), std::string::npos);
  // Without the typed result there is no section, whatever the probes hold.
  EXPECT_EQ(report_html(nlohmann::json::object(), {}, p).find("Clock synchronisation"), std::string::npos);
}

// The architect's first screen comes first: "At a glance" before any other section, with the
// headline figures and their units; every summary value comes last, grouped and collapsed.
TEST(Report, OpensWithTheHeadlineFiguresAndEndsWithEveryValue) {
  nlohmann::json summary = {{"scenario", "glance"},
                            {"drops", {{"buffer_full", 12}, {"no_route", 0}}},
                            {"pfc", {{"host_pause_time_s", 2e-6}, {"switch_port_pause_time_s_by_priority", {1e-6, 0.5e-6}},
                                     {"pause_frames_sent", 7}}},
                            {"queue", {{"peak_bytes", 150000}, {"peak_port", "leaf1.port3"}}},
                            {"load_balancer", {{"peak_table_occupancy", 512}, {"table_entries", 2048}}}};
  std::vector<flow_record> flows(2);
  flows[0].size_bytes = 1000, flows[0].fct_s = 3e-6, flows[0].ideal_fct_s = 2e-6;
  flows[1].size_bytes = 2000, flows[1].fct_s = 4e-6, flows[1].ideal_fct_s = 1e-6;
  const std::string html = report_html(summary, flows, probe_set{});
  const size_t glance = html.find("<h2 id=\"at-a-glance\">At a glance</h2>");
  ASSERT_NE(glance, std::string::npos);
  EXPECT_EQ(html.find("<h2"), glance) << "the summary is the first section";
  // Slowdowns 1.5 and 4 in one bin: p50 (rank 1) 1.5, p99 (rank 2) 4.
  EXPECT_NE(html.find("size &lt; 3,000 bytes: p50 1.50×, p99 4.00× (2 flows)"), std::string::npos);
  EXPECT_NE(html.find("buffer_full: 12 packets</td>"), std::string::npos);   // only the reasons that dropped
  EXPECT_NE(html.find("3.5 us over all ports, 7 pause frames sent"), std::string::npos);   // 2 + 1 + 0.5 us
  EXPECT_NE(html.find("150,000 bytes at leaf1.port3"), std::string::npos);
  EXPECT_NE(html.find("peak 512 of 2,048 entries (25.0 %)"), std::string::npos);
  const size_t all = html.find("<h2 id=\"all-values\">");
  ASSERT_NE(all, std::string::npos);
  EXPECT_GT(all, html.find("<h2>Flow completion times</h2>"));
  EXPECT_EQ(html.find("<h2", all + 1), std::string::npos) << "the flat list is the last section";
  EXPECT_NE(html.find("<details><summary>drops (2 values)</summary>", all), std::string::npos);
}

// The telemetry section from a hand-made typed result: FlowRadar's flows per epoch and its loss
// map's delay CDF, LossRadar's losses per batch beside the drop log's, and the score table read
// from the summary. Control: the same page without the result, or with neither block on, has no
// section.
TEST(ReportPage, TelemetrySectionDrawsTheTypedResult) {
  telemetry_result t;
  t.flowradar = t.lossradar = true;
  t.epoch_ms = 10;
  t.epochs = {{0, 20, 8, 20}, {1, 30, 12, 29}, {2, 10, 10, 10}};   // 60 flows, SingleDecode 30, NetDecode 59
  t.loss_delay_ms = {35, 5, 15, 60};   // 4 reported of 8 observable drops: 2 within 20 ms, 3 within 50 ms
  t.loss_map_drops = 8;
  t.batch_ms = 1;
  const size_t congestion = size_t(loss_class::congestion), random = size_t(loss_class::random);
  lossradar_batch_losses b0, b1, b2;
  b0.batch = 0, b1.batch = 1, b2.batch = 2;
  b0.listed[congestion] = 7, b0.dropped[congestion] = 6, b0.dropped[random] = 1;
  b2.listed[random] = 2, b2.dropped[random] = 2;
  t.batches = {b0, b1, b2};
  const nlohmann::json summary = {
      {"flowradar", {{"loss_map_true_segments", 5}, {"loss_map_lost_segments", 4}, {"loss_map_precision_pct", 100.0},
                     {"loss_map_recall_pct", 80.0}, {"black_hole_true_pairs", 0}, {"black_hole_found_pairs", 0},
                     {"black_hole_precision_pct", nullptr}, {"black_hole_recall_pct", nullptr}}},
      {"lossradar", {{"dropped_packets", 9}, {"listed_packets", 9}, {"matched_packets", 9}, {"detected_pct", 100.0},
                     {"faults", {{{"fault", "link_drop core0:p0>agg0:p2 0.01"}, {"dropped_packets", 3},
                                  {"classified_packets", 2}, {"precision_pct", 100.0}, {"recall_pct", 66.7}}}}}}};

  const std::vector<telemetry_figure> figs = telemetry_figures(t);
  ASSERT_EQ(figs.size(), 4u);   // flows per epoch, delay CDF, LossRadar listed, drop log
  const auto sum = [](const plot_series& s) { double v = 0; for (double y : s.y) v += y; return v; };
  EXPECT_EQ(sum(figs[0].spec.series[0]), 60);
  EXPECT_EQ(sum(figs[0].spec.series[1]), 30);
  EXPECT_EQ(sum(figs[0].spec.series[2]), 59);
  EXPECT_EQ(figs[0].spec.series[0].x, (std::vector<double>{0, 10, 20}));   // epoch starts in ms
  // The CDF over all 8 observable drops: it ends at 4 / 8, and at 20 ms stands at 2 / 8.
  const plot_series& cdf = figs[1].spec.series[0];
  EXPECT_DOUBLE_EQ(cdf.y.back(), 0.5);
  EXPECT_DOUBLE_EQ(cdf.x.back(), 60);
  EXPECT_NE(figs[1].caption.find("Within 20 ms 25.0 %, within 50 ms 37.5 %"), std::string::npos) << figs[1].caption;
  // LossRadar: congestion and random only (no other class has a loss), the same in both plots.
  for (size_t i : {2, 3}) {
    ASSERT_EQ(figs[i].spec.series.size(), 2u);
    EXPECT_EQ(figs[i].spec.series[0].title, "congestion");
    EXPECT_EQ(figs[i].spec.series[1].title, "random");
    EXPECT_EQ(figs[i].spec.ymax, 7);   // one y axis for both
  }
  EXPECT_EQ(sum(figs[2].spec.series[0]), 7);
  EXPECT_EQ(sum(figs[2].spec.series[1]), 2);
  EXPECT_EQ(sum(figs[3].spec.series[0]), 6);
  EXPECT_EQ(sum(figs[3].spec.series[1]), 3);
  EXPECT_EQ(figs[3].spec.series[1].y, (std::vector<double>{1, 0, 2}));   // the empty batch is a 0

  const std::string html = report_html(summary, {}, probe_set{}, nullptr, &t);
  const size_t at = html.find("<h2 id=\"telemetry\">Telemetry</h2>");
  ASSERT_NE(at, std::string::npos);
  const size_t end = html.find("<h2", at + 1);
  EXPECT_EQ(count(html.substr(at, end - at), "<svg"), 4u);
  EXPECT_NE(html.find("<h3>FlowRadar</h3>", at), std::string::npos);
  EXPECT_NE(html.find("<h3>LossRadar</h3>", at), std::string::npos);
  EXPECT_NE(html.find("<tr><td>FlowRadar</td><td>loss map: (flow, flowlet, upstream switch) segments with drops</td>"
                      "<td>5 segments</td><td>4 segments</td><td>100.0 %</td><td>80.0 %</td></tr>"),
            std::string::npos);
  EXPECT_NE(html.find("<td>0 pairs</td><td>0 pairs</td><td>-</td><td>-</td>"), std::string::npos);
  EXPECT_NE(html.find("<tr><td>LossRadar</td><td>fault: link_drop core0:p0&gt;agg0:p2 0.01</td><td>3 packets</td>"
                      "<td>2 packets</td><td>100.0 %</td><td>66.7 %</td></tr>"),
            std::string::npos);
  // Every axis says its unit.
  for (const telemetry_figure& f : figs) {
    EXPECT_NE(f.spec.xlabel.find("(ms)"), std::string::npos) << f.spec.title;
    EXPECT_FALSE(f.spec.ylabel.empty()) << f.spec.title;
  }

  // Controls: no result, or neither block on, and there is no section.
  EXPECT_EQ(report_html(summary, {}, probe_set{}).find("id=\"telemetry\""), std::string::npos);
  const telemetry_result off;
  EXPECT_EQ(report_html(summary, {}, probe_set{}, nullptr, &off).find("id=\"telemetry\""), std::string::npos);
  // Only LossRadar: its figures and no FlowRadar heading.
  t.flowradar = false;
  EXPECT_EQ(telemetry_figures(t).size(), 2u);
  const std::string lr = report_html(summary, {}, probe_set{}, nullptr, &t);
  EXPECT_EQ(lr.find("<h3>FlowRadar</h3>"), std::string::npos);
  EXPECT_NE(lr.find("<h3>LossRadar</h3>"), std::string::npos);
}
