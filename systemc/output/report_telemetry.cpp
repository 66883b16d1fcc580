// report.html's section "Telemetry" (report_telemetry.h): FlowRadar's flows per epoch and its loss
// map's detection delay, LossRadar's losses per batch beside the drop log's, and precision and
// recall per fault and class.
#include "output/report_telemetry.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "output/format.h"
#include "output/report.h"
#include "output/report_page.h"

namespace netasic {

static_assert(loss_classes == size_t(loss_class::loop) + 1, "one slot per loss_class");

namespace {

std::string pct_text(uint64_t a, uint64_t b) { return b ? fmt::format("{:.1f} %", 100.0 * double(a) / double(b)) : "-"; }

// §4.3: what the switches counted, and what each decoder found of it, epoch by epoch.
telemetry_figure flowradar_flows_figure(const telemetry_result& t) {
  telemetry_figure f{"FlowRadar", {}, {}};
  plot_spec& s = f.spec;
  s.title = "FlowRadar: flows per epoch, summed over the switches";
  s.xlabel = "epoch start (ms)";
  s.ylabel = "flows (per epoch, all switches)";
  s.ymin = 0;
  plot_series truth{"counted at the switches (ground truth)", {}, {}, "linespoints", {}, {}, false};
  plot_series single{"SingleDecode", {}, {}, "linespoints", {}, {}, false};
  plot_series net{"NetDecode", {}, {}, "linespoints", {}, {}, false};
  uint64_t flows = 0, singles = 0, decoded = 0;
  for (const flowradar_epoch_flows& e : t.epochs) {
    const double x = double(e.epoch) * t.epoch_ms;
    for (plot_series* p : {&truth, &single, &net}) p->x.push_back(x);
    truth.y.push_back(double(e.flows));
    single.y.push_back(double(e.single_decoded));
    net.y.push_back(double(e.decoded));
    flows += e.flows, singles += e.single_decoded, decoded += e.decoded;
  }
  s.series = {std::move(truth), std::move(single), std::move(net)};
  f.caption = fmt::format(
      "Each {:g} ms epoch's flows at every switch that exported a bank, summed: the flows the switches saw, those "
      "SingleDecode peels from each switch's table alone, and those NetDecode finds with FlowDecode across neighbours "
      "(§4.3). Over the run {} flows, SingleDecode {} ({}), NetDecode {} ({}); flowradar.csv has each switch.",
      t.epoch_ms, group_digits(int64_t(flows)), group_digits(int64_t(singles)), pct_text(singles, flows),
      group_digits(int64_t(decoded)), pct_text(decoded, flows));
  return f;
}

// Fig. 4.10: how long after a drop the loss map reports it, over every observable drop (those
// never reported keep the line under 1).
telemetry_figure loss_delay_figure(const telemetry_result& t) {
  telemetry_figure f{"FlowRadar", {}, {}};
  plot_spec& s = f.spec;
  s.title = "FlowRadar loss map: detection delay (CDF)";
  s.xlabel = "delay from the drop to its report (ms)";
  s.ylabel = "fraction of observable data drops";
  s.ymin = 0;
  s.ymax = 1;
  std::vector<double> v = t.loss_delay_ms;
  std::sort(v.begin(), v.end());
  plot_series cdf = report::cdf_series("reported drops", v);
  const double scale = double(v.size()) / double(t.loss_map_drops);
  for (double& y : cdf.y) y *= scale;
  s.series.push_back(std::move(cdf));
  const auto within = [&](double ms) { return uint64_t(std::upper_bound(v.begin(), v.end(), ms) - v.begin()); };
  f.caption = fmt::format(
      "{} of {} observable data drops reported by the end of the run; a loss is reported with the export of the "
      "epoch after its flowlet's last (§4.6.2). Within 20 ms {}, within 50 ms {} (the thesis: over 57 % and 99 %). "
      "Drops after the last switch that counts (into a host) are not observable and not counted here.",
      group_digits(int64_t(v.size())), group_digits(int64_t(t.loss_map_drops)), pct_text(within(20), t.loss_map_drops),
      pct_text(within(50), t.loss_map_drops));
  return f;
}

std::string class_title(size_t c) {
  std::string n = loss_class_name(loss_class(c));
  std::replace(n.begin(), n.end(), '_', ' ');
  return n;
}

// The losses per batch by class, once as LossRadar classified them and once as the drop log
// knows them, on the same axes and with the same classes in the same order (so the same colours).
std::vector<telemetry_figure> lossradar_figures(const telemetry_result& t) {
  std::array<uint64_t, loss_classes> listed{}, dropped{};
  uint64_t peak = 0;
  for (const lossradar_batch_losses& b : t.batches)
    for (size_t c = 0; c < loss_classes; ++c) {
      listed[c] += b.listed[c], dropped[c] += b.dropped[c];
      peak = std::max({peak, b.listed[c], b.dropped[c]});
    }
  std::vector<size_t> shown;   // the classes with any loss on either side
  for (size_t c : {size_t(loss_class::congestion), size_t(loss_class::random), size_t(loss_class::black_hole),
                   size_t(loss_class::loop), size_t(loss_class::unknown)})
    if (listed[c] + dropped[c] > 0) shown.push_back(c);
  if (shown.empty()) return {};
  std::vector<telemetry_figure> out;
  for (const bool by_lossradar : {true, false}) {
    telemetry_figure f{"LossRadar", {}, {}};
    plot_spec& s = f.spec;
    s.title = by_lossradar ? "LossRadar: losses listed per batch, by class" : "Drop log: losses per batch, by cause";
    s.xlabel = "batch start (ms)";
    s.ylabel = "lost packets per batch";
    s.ymin = 0;
    s.ymax = double(std::max<uint64_t>(peak, 1));
    for (size_t c : shown) {
      plot_series p{class_title(c), {}, {}, "linespoints", {}, {}, false};
      for (const lossradar_batch_losses& b : t.batches) {
        p.x.push_back(double(b.batch) * t.batch_ms);
        p.y.push_back(double((by_lossradar ? b.listed : b.dropped)[c]));
      }
      s.series.push_back(std::move(p));
    }
    const std::array<uint64_t, loss_classes>& n = by_lossradar ? listed : dropped;
    const uint64_t total = std::accumulate(n.begin(), n.end(), uint64_t(0));
    std::string per_class;
    for (size_t c : shown) per_class += fmt::format("{}{} {}", per_class.empty() ? "" : ", ", class_title(c), group_digits(int64_t(n[c])));
    f.caption = by_lossradar
                    ? fmt::format("Every lost packet the collector listed from the {:g} ms batches' digests, in the batch "
                                  "its upstream meter stamped, by the class the analyzer (Algorithms 10 and 11) gave it: "
                                  "{} packets ({}). lossradar.csv lists each.",
                                  t.batch_ms, group_digits(int64_t(total)), per_class)
                    : fmt::format("Every drop the simulator logged, in the batch of its time, by its cause: congestion "
                                  "(a full buffer or queue), random (a link's random drop), black hole, unknown (any "
                                  "other): {} packets ({}). The same y axis as above; lossradar_drops.csv lists each.",
                                  group_digits(int64_t(total)), per_class);
    out.push_back(std::move(f));
  }
  return out;
}

// A percentage from the summary: null (nothing reported, or nothing to find) is "-".
std::string pct_cell(const nlohmann::json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_number() ? fmt::format("{:.1f} %", it->get<double>()) : "-";
}
uint64_t count_of(const nlohmann::json& o, const char* key) { return o.value(key, uint64_t(0)); }

void score_table(report::page& pg, const nlohmann::json& summary) {
  std::string rows;
  const auto row = [&](const std::string& system, const std::string& what, uint64_t truth, uint64_t reported,
                       const std::string& unit, const std::string& precision, const std::string& recall) {
    rows += fmt::format("<tr><td>{}</td><td>{}</td><td>{} {}</td><td>{} {}</td><td>{}</td><td>{}</td></tr>\n", system,
                        html_escape(what), group_digits(int64_t(truth)), unit, group_digits(int64_t(reported)), unit,
                        precision, recall);
  };
  if (const auto fr = summary.find("flowradar"); fr != summary.end() && fr->contains("loss_map_true_segments")) {
    row("FlowRadar", "loss map: (flow, flowlet, upstream switch) segments with drops", count_of(*fr, "loss_map_true_segments"),
        count_of(*fr, "loss_map_lost_segments"), "segments", pct_cell(*fr, "loss_map_precision_pct"),
        pct_cell(*fr, "loss_map_recall_pct"));
    row("FlowRadar", "black holes: (flow, switch) pairs", count_of(*fr, "black_hole_true_pairs"),
        count_of(*fr, "black_hole_found_pairs"), "pairs", pct_cell(*fr, "black_hole_precision_pct"),
        pct_cell(*fr, "black_hole_recall_pct"));
    row("FlowRadar", "loops: flows", count_of(*fr, "loop_true_flows"), count_of(*fr, "loop_found_flows"), "flows",
        pct_cell(*fr, "loop_precision_pct"), pct_cell(*fr, "loop_recall_pct"));
  }
  if (const auto lr = summary.find("lossradar"); lr != summary.end()) {
    row("LossRadar", "every loss, listed", count_of(*lr, "dropped_packets"), count_of(*lr, "listed_packets"), "packets",
        pct_text(count_of(*lr, "matched_packets"), count_of(*lr, "listed_packets")), pct_cell(*lr, "detected_pct"));
    if (const auto cl = lr->find("classes"); cl != lr->end())
      for (auto it = cl->begin(); it != cl->end(); ++it) {
        std::string name = it.key();
        std::replace(name.begin(), name.end(), '_', ' ');
        row("LossRadar", "class: " + name, count_of(*it, "true_packets"), count_of(*it, "classified_packets"), "packets",
            pct_cell(*it, "precision_pct"), pct_cell(*it, "recall_pct"));
      }
    if (const auto fa = lr->find("faults"); fa != lr->end())
      for (const nlohmann::json& f : *fa)
        row("LossRadar", "fault: " + f.value("fault", std::string()), count_of(f, "dropped_packets"),
            count_of(f, "classified_packets"), "packets", pct_cell(f, "precision_pct"), pct_cell(f, "recall_pct"));
  }
  if (rows.empty()) return;
  pg.html += "<h3>Precision and recall</h3>\n<table class=\"bins\">\n<tr><th>block</th><th>what it finds</th>"
             "<th>in the ground truth</th><th>reported</th><th>precision</th><th>recall</th></tr>\n" +
             rows + "</table>\n";
  pg.note("Scored against the simulator's own record (every flow at every switch, every drop with its place and "
          "cause); summary.json's \"flowradar\" and \"lossradar\". Reported: what the block named as such (LossRadar's "
          "classes and faults: the packets the analyzer gave that class, at the fault's place). \"-\": nothing reported, "
          "or nothing to find.");
}

}  // namespace

std::vector<telemetry_figure> telemetry_figures(const telemetry_result& t) {
  std::vector<telemetry_figure> out;
  if (t.flowradar && !t.epochs.empty()) out.push_back(flowradar_flows_figure(t));
  if (t.flowradar && !t.loss_delay_ms.empty() && t.loss_map_drops > 0) out.push_back(loss_delay_figure(t));
  if (t.lossradar)
    for (telemetry_figure& f : lossradar_figures(t)) out.push_back(std::move(f));
  return out;
}

namespace report {

void telemetry_section(page& pg, const telemetry_result& t, const nlohmann::json& summary) {
  pg.html += "<h2 id=\"telemetry\">Telemetry</h2>\n";
  std::vector<telemetry_figure> figures = telemetry_figures(t);
  for (const std::string system : {"FlowRadar", "LossRadar"}) {
    const bool flowradar = system == "FlowRadar";
    if (!(flowradar ? t.flowradar : t.lossradar)) continue;
    pg.html += "<h3>" + system + "</h3>\n";
    for (telemetry_figure& f : figures) {
      if (f.system != system) continue;
      f.spec.id = pg.next_id();
      pg.figure(f.spec, html_escape(f.caption));
    }
    if (flowradar && t.loss_delay_ms.empty())
      pg.note("FlowRadar's loss map reported no drop in this run, so there is no detection delay to plot.");
    if (!flowradar && t.batches.empty()) pg.note("LossRadar listed no loss and the drop log holds none.");
  }
  score_table(pg, summary);
}

}  // namespace report

}  // namespace netasic
