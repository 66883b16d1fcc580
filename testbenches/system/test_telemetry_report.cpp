// report.html's telemetry section on a real run: scenarios/telemetry/lossradar.toml with FlowRadar
// on beside LossRadar (as bench/validation/telemetry.sh runs it), shortened. The section is there
// with its four figures, and every plotted number adds up to what the collectors wrote in
// summary.json and in their CSV files. Control: the same scenario with LossRadar off (and
// FlowRadar off, as the file has it) writes no telemetry section.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "output/report_telemetry.h"
#include "run/run.h"
#include "run/run_outputs.h"
#include "scenario/scenario.h"
#include "run_cli.h"

namespace {

namespace fs = std::filesystem;
using namespace netasic;

const std::string scenario = std::string(NETASIC_SOURCE_DIR) + "/scenarios/telemetry/lossradar.toml";
const std::vector<std::string> shorter = {"sim.duration=3000"};

double sum(const plot_series& s) {
  double v = 0;
  for (double y : s.y) v += y;
  return v;
}

// The series of a figure by its legend title.
std::map<std::string, const plot_series*> by_title(const telemetry_figure& f) {
  std::map<std::string, const plot_series*> out;
  for (const plot_series& s : f.spec.series) out[s.title] = &s;
  return out;
}

size_t section_svgs(const std::string& html) {
  const size_t at = html.find("<h2 id=\"telemetry\">Telemetry</h2>");
  if (at == std::string::npos) return 0;
  const std::string section = html.substr(at, html.find("<h2", at + 1) - at);
  size_t n = 0;
  for (size_t p = section.find("<svg"); p != std::string::npos; p = section.find("<svg", p + 1)) ++n;
  return n;
}

TEST(TelemetryReport, PlotsWhatTheCollectorsCounted) {
  const fs::path d = scratch("TelemetryReport", "plots");
  std::vector<std::string> sets = shorter;
  for (const char* s : {"telemetry.flowradar=true", "telemetry.flowradar_epoch=1", "telemetry.flowradar_cells=256",
                        "telemetry.flowradar_filter_bits=8192"})
    sets.push_back(s);
  const config cfg = load_scenario(scenario, sets);
  const run_result r = run_scenario(cfg, progress_mode::none);
  write_run_outputs((d / "run").string(), cfg, r);
  const nlohmann::json& fr = r.summary["flowradar"];
  const nlohmann::json& lr = r.summary["lossradar"];

  const std::vector<telemetry_figure> figs = telemetry_figures(r.telemetry);
  ASSERT_EQ(figs.size(), 4u);
  // FlowRadar's flows per epoch: the summary's totals, and flowradar.csv's columns.
  auto flows = by_title(figs[0]);
  ASSERT_EQ(flows.size(), 3u);
  const plot_series& truth = *flows["counted at the switches (ground truth)"];
  EXPECT_GT(fr["flows"].get<double>(), 0);
  EXPECT_EQ(sum(truth), fr["flows"].get<double>());
  EXPECT_EQ(sum(*flows["SingleDecode"]), fr["single_decoded_flows"].get<double>());
  EXPECT_EQ(sum(*flows["NetDecode"]), fr["decoded_flows"].get<double>());
  std::map<long, double> csv_flows;   // epoch start (us) -> flows over the switches
  for (auto& row : csv_rows(d / "run" / "flowradar.csv")) csv_flows[std::lround(std::stod(row["start_ms"]) * 1e3)] += std::stod(row["flows"]);
  ASSERT_EQ(csv_flows.size(), truth.x.size());
  for (size_t i = 0; i < truth.x.size(); ++i)
    EXPECT_EQ(csv_flows[std::lround(truth.x[i] * 1e3)], truth.y[i]) << "epoch at " << truth.x[i] << " ms";

  // The loss map's delay CDF: over every observable drop, it stands at the summary's share at
  // 20 and 50 ms.
  const std::vector<double>& delays = r.telemetry.loss_delay_ms;
  ASSERT_GT(fr["loss_map_dropped_packets"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.telemetry.loss_map_drops, fr["loss_map_dropped_packets"].get<uint64_t>());
  const plot_series& cdf = figs[1].spec.series.at(0);
  const auto at_ms = [&cdf](double ms) {   // the step line's height at `ms`
    double y = 0;
    for (size_t i = 0; i < cdf.x.size() && cdf.x[i] <= ms; ++i) y = cdf.y[i];
    return y;
  };
  EXPECT_NEAR(100 * at_ms(20), fr["loss_map_within_20ms_pct"].get<double>(), 1e-9);
  EXPECT_NEAR(100 * at_ms(50), fr["loss_map_within_50ms_pct"].get<double>(), 1e-9);
  EXPECT_NEAR(cdf.y.back(), double(delays.size()) / double(r.telemetry.loss_map_drops), 1e-12);

  // LossRadar's losses per batch: listed by class against the summary's classified packets,
  // the drop log's by cause against its true packets, and the totals against both CSV files.
  auto listed = by_title(figs[2]), dropped = by_title(figs[3]);
  double listed_all = 0, dropped_all = 0;
  for (const auto& [title, s] : listed) listed_all += sum(*s);
  for (const auto& [title, s] : dropped) dropped_all += sum(*s);
  EXPECT_GT(dropped_all, 0);
  EXPECT_EQ(listed_all, lr["listed_packets"].get<double>());
  EXPECT_EQ(dropped_all, lr["dropped_packets"].get<double>());
  EXPECT_EQ(listed_all, double(csv_rows(d / "run" / "lossradar.csv").size()));
  EXPECT_EQ(dropped_all, double(csv_rows(d / "run" / "lossradar_drops.csv").size()));
  for (const char* c : {"congestion", "random", "black_hole"}) {
    std::string title = c;
    if (title == "black_hole") title = "black hole";
    const nlohmann::json& cls = lr["classes"][c];
    EXPECT_EQ(listed.count(title) ? sum(*listed[title]) : 0.0, cls["classified_packets"].get<double>()) << c;
    EXPECT_EQ(dropped.count(title) ? sum(*dropped[title]) : 0.0, cls["true_packets"].get<double>()) << c;
  }

  // The page the run wrote: the section with its four figures and the score table.
  const std::string html = slurp(d / "run" / "report.html");
  EXPECT_EQ(section_svgs(html), 4u);
  EXPECT_NE(html.find("<h3>Precision and recall</h3>"), std::string::npos);
  EXPECT_NE(html.find("<td>fault: link_drop "), std::string::npos);

  // Control: the same scenario without telemetry has no such section.
  const fs::path off = d / "off";
  const outcome o = netasic_cli("run " + scenario + " --quiet --out " + off.string() +
                                " --set sim.duration=3000 --set telemetry.lossradar=false");
  ASSERT_EQ(o.code, 0) << o.output;
  const std::string plain = slurp(off / "report.html");
  EXPECT_NE(plain.find("<h2>Flow completion times</h2>"), std::string::npos);
  EXPECT_EQ(plain.find("id=\"telemetry\""), std::string::npos);
  EXPECT_EQ(section_svgs(plain), 0u);
}

}  // namespace
