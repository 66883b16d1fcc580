#include "output/report.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "common/file_io.h"
#include "common/stats.h"
#include "output/csv.h"
#include "output/format.h"
#include "output/plot.h"
#include "output/report_page.h"

namespace netasic {

namespace report {

std::string page::next_id() { return fmt::format("plot{}", ++plots); }

namespace {
// Where figure N goes until it is drawn: a comment, which no escaped text of the page can hold.
std::string figure_mark(size_t n) { return fmt::format("<!--netasic figure {}-->", n); }
}  // namespace

void page::figure(const plot_spec& spec, const std::string& caption) {
  html += "<figure>\n" + figure_mark(figures_.size()) + "\n<figcaption>" + caption + "</figcaption>\n</figure>\n";
  figures_.push_back(spec);
}

std::string page::draw_figures() {
  const std::vector<std::string> svgs = render_svgs(figures_);
  std::string out;
  size_t from = 0;
  for (size_t n = 0; n < svgs.size(); ++n) {
    const std::string mark = figure_mark(n);
    const size_t at = html.find(mark, from);
    if (at == std::string::npos) throw std::logic_error("report.html: the place of figure " + std::to_string(n) + " is gone");
    out.append(html, from, at - from);
    out += svgs[n];
    from = at + mark.size();
  }
  out.append(html, from, std::string::npos);
  return out;
}

void page::note(const std::string& text) { html += "<p class=\"note\">" + html_escape(text) + "</p>\n"; }

void downsample(const std::vector<double>& t, const std::vector<int64_t>& v, size_t max_points,
                std::vector<double>& xo, std::vector<double>& yo) {
  if (v.size() <= max_points) {
    for (size_t i = 0; i < v.size(); ++i) {
      xo.push_back(t[i]);
      yo.push_back(static_cast<double>(v[i]));
    }
    return;
  }
  size_t buckets = max_points / 2;
  for (size_t b = 0; b < buckets; ++b) {
    size_t lo = v.size() * b / buckets, hi = v.size() * (b + 1) / buckets;
    size_t imin = lo, imax = lo;
    for (size_t i = lo; i < hi; ++i) {
      if (v[i] < v[imin]) imin = i;
      if (v[i] > v[imax]) imax = i;
    }
    for (size_t i : {std::min(imin, imax), std::max(imin, imax)}) {
      xo.push_back(t[i]);
      yo.push_back(static_cast<double>(v[i]));
    }
  }
}

plot_series cdf_series(const std::string& title, const std::vector<double>& sorted) {
  plot_series ps;
  ps.title = title;
  ps.style = "steps";
  const size_t n = sorted.size(), step = std::max<size_t>(1, n / max_plot_points);
  for (size_t i = 0; i < n; i += step) {
    ps.x.push_back(sorted[i]);
    ps.y.push_back(double(i + 1) / double(n));
  }
  ps.x.push_back(sorted[n - 1]);
  ps.y.push_back(1.0);
  return ps;
}

bool is_clock_series(const probe_series& s) { return s.name.rfind("clock.", 0) == 0; }

}  // namespace report

namespace {

using nlohmann::json;
using report::page;

std::string flow_count(size_t n) { return fmt::format("{} flow{}", group_digits(static_cast<int64_t>(n)), n == 1 ? "" : "s"); }

// summary.json itself, last: every value with its unit, grouped by its top-level key, each group
// collapsed (<details>). The one section that lists the JSON, because showing that file is its job.
void summary_section(page& pg, const json& summary) {
  pg.html += "<h2 id=\"all-values\">All summary values</h2>\n";
  auto rows = flatten_json(summary);
  if (rows.empty()) {
    pg.note("The run wrote no summary values.");
    return;
  }
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::pair<std::string, json>>> by_group;
  for (const auto& row : rows) {
    const std::string g = row.first.substr(0, row.first.find('.'));
    if (!by_group.count(g)) groups.push_back(g);
    by_group[g].push_back(row);
  }
  for (const auto& g : groups) {
    const auto& members = by_group[g];
    pg.html += fmt::format("<details><summary>{} ({} value{})</summary>\n<table class=\"summary\">\n<tr><th>metric</th><th>value</th></tr>\n",
                           html_escape(g), members.size(), members.size() == 1 ? "" : "s");
    for (const auto& [key, value] : members)
      pg.html += fmt::format("<tr><td>{}</td><td title=\"{} = {}\">{}</td></tr>\n", html_escape(key), html_escape(key),
                             html_escape(value.dump()), html_escape(format_value(key, value)));
    pg.html += "</table>\n</details>\n";
  }
}

// "3,000 ≤ size < 12,000 bytes": a bin of slowdown_by_size, half open.
std::string bin_range(const slowdown_bin& b) {
  const std::string lo = group_digits(int64_t(b.min_bytes));
  if (b.max_bytes == slowdown_bin::no_upper_bound) return "size ≥ " + lo + " bytes";
  const std::string hi = group_digits(int64_t(b.max_bytes));
  return b.min_bytes == 0 ? "size < " + hi + " bytes" : lo + " ≤ size < " + hi + " bytes";
}

// A summary value at a dotted path, or null.
const json* at_path(const json& doc, const std::string& path) {
  const json* v = &doc;
  for (size_t start = 0;;) {
    const size_t dot = path.find('.', start);
    const std::string part = path.substr(start, dot - start);
    if (!v->is_object() || !v->contains(part)) return nullptr;
    v = &(*v)[part];
    if (dot == std::string::npos) return v;
    start = dot + 1;
  }
}

double number_at(const json& doc, const std::string& path) {
  const json* v = at_path(doc, path);
  return v && v->is_number() ? v->get<double>() : 0;
}

// The page's first screen: the figures an architect looks for first, each with its unit.
void glance_section(page& pg, const json& summary, const std::vector<flow_record>& flows) {
  pg.html += "<h2 id=\"at-a-glance\">At a glance</h2>\n<table class=\"glance\">\n";
  auto row = [&](const std::string& what, const std::string& value) {
    pg.html += "<tr><th>" + html_escape(what) + "</th><td>" + html_escape(value) + "</td></tr>\n";
  };
  std::string fct;
  for (const slowdown_bin& b : slowdown_by_size(completed_slowdowns(flows)))
    fct += fmt::format("{}{}: p50 {:.2f}×, p99 {:.2f}× ({})", fct.empty() ? "" : "; ", bin_range(b), b.p50, b.p99, flow_count(b.flows));
  row("FCT slowdown by flow size", fct.empty() ? "no completed flow" : fct);
  if (const json* d = at_path(summary, "drops"); d && d->is_object()) {
    std::string drops;
    for (auto it = d->begin(); it != d->end(); ++it)
      if (it->is_number() && it->get<double>() > 0)
        drops += fmt::format("{}{}: {} packets", drops.empty() ? "" : ", ", it.key(), group_digits(it->get<int64_t>()));
    row("Drops by reason", drops.empty() ? "none (0 packets)" : drops);
  }
  if (const json* pfc = at_path(summary, "pfc"); pfc && pfc->is_object()) {
    double paused = number_at(summary, "pfc.host_pause_time_s");
    if (const json* t = at_path(summary, "pfc.switch_port_pause_time_s_by_priority"); t && t->is_array())
      for (const auto& v : *t) paused += v.is_number() ? v.get<double>() : 0;
    row("PFC pause time", fmt::format("{} over all ports, {} pause frames sent", duration(paused),
                                      group_digits(int64_t(number_at(summary, "pfc.pause_frames_sent")))));
  }
  if (const json* d = at_path(summary, "pfc.deadlock"); d && d->is_object())
    row("PFC deadlock", d->value("detected", false)
                            ? fmt::format("DEADLOCK found at {} (see below)", duration(d->value("detected_at_s", 0.0)))
                            : fmt::format("none found ({} checks, {} without progress counts)",
                                          d->value("checks", 0), duration(d->value("detect_time_s", 0.0))));
  if (const json* q = at_path(summary, "queue.peak_port"); q && q->is_string())
    row("Peak queue", fmt::format("{} bytes at {}", group_digits(int64_t(number_at(summary, "queue.peak_bytes"))), q->get<std::string>()));
  if (at_path(summary, "load_balancer.table_entries")) {
    const double used = number_at(summary, "load_balancer.peak_table_occupancy"), cap = number_at(summary, "load_balancer.table_entries");
    row("Flowlet table occupancy", fmt::format("peak {} of {} entries ({:.1f} %)", group_digits(int64_t(used)),
                                               group_digits(int64_t(cap)), cap > 0 ? 100 * used / cap : 0.0));
  }
  if (const json* r = at_path(summary, "resources"); r && r->is_object()) {
    const auto used = [&](const char* k, const char* budget, const char* what) {
      return fmt::format("{} of {} {}", group_digits(int64_t(number_at(summary, std::string("resources.") + k))),
                         group_digits(int64_t(number_at(summary, std::string("resources.") + budget))), what);
    };
    std::string text = fmt::format("{} on target {}: {}, {}, {}", r->value("fits", false) ? "fits" : "does NOT fit",
                                   r->value("target", std::string()), used("sram_blocks", "sram_budget_blocks", "SRAM blocks"),
                                   used("tcam_blocks", "tcam_budget_blocks", "TCAM blocks"),
                                   used("stateful_alus", "stateful_alu_budget_alus", "stateful ALUs"));
    if (r->contains("advice")) text += "; " + r->value("advice", std::string());
    row("Resources (" + r->value("switch_group", std::string()) + ")", text);
  }
  pg.html += "</table>\n";
}

// The PFC deadlock detector's finding: each cycle of paused queues, the link each one feeds and
// when the PAUSE that stopped it took effect (summary.json pfc.deadlock).
void deadlock_section(page& pg, const json& summary) {
  const json* d = at_path(summary, "pfc.deadlock");
  if (!d || !d->is_object() || !d->value("detected", false) || !d->contains("cycles")) return;
  pg.html += fmt::format("<h2 id=\"pfc-deadlock\">PFC deadlock</h2>\n<p>Found at {}: each queue below is paused by "
                         "the next one's switch and none dequeued for {}.</p>\n",
                         html_escape(duration(d->value("detected_at_s", 0.0))), html_escape(duration(d->value("detect_time_s", 0.0))));
  for (const json& c : (*d)["cycles"]) {
    pg.html += "<table>\n<tr><th>paused queue</th><th>link it feeds</th><th>PAUSE took effect at</th></tr>\n";
    for (size_t i = 0; i < c["queues"].size(); ++i)
      pg.html += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td></tr>\n", html_escape(c["queues"][i].get<std::string>()),
                             html_escape(c["links"][i].get<std::string>()), html_escape(duration(c["pause_at_s"][i].get<double>())));
    pg.html += "</table>\n";
  }
}

// FCT slowdown by flow size: the bins of summary.json's fct_slowdown_by_size, plotted at each
// bin's median size, and as a table.
void slowdown_by_size_section(page& pg, const std::vector<flow_record>& flows, size_t no_ideal) {
  const std::vector<slowdown_bin> bins = slowdown_by_size(completed_slowdowns(flows));
  if (bins.empty()) {
    pg.note("No completed flow has an ideal completion time above 0 s, so slowdown cannot be computed.");
    return;
  }
  plot_spec spec;
  spec.id = pg.next_id();
  spec.title = "FCT slowdown by flow size";
  spec.xlabel = "flow size (bin median)";
  spec.xformat = "%.0s %cB";
  spec.ylabel = "FCT slowdown (FCT / ideal FCT, ×)";
  spec.logx = true;
  const char* names[] = {"p50", "p95", "p99"};
  double lo = 1e300, hi = 0;
  for (int q = 0; q < 3; ++q) {
    plot_series s;
    s.title = names[q];
    s.style = "linespoints";
    for (const auto& b : bins) {
      double y = q == 0 ? b.p50 : q == 1 ? b.p95 : b.p99;
      s.x.push_back(b.median_bytes);
      s.y.push_back(y);
      lo = std::min(lo, y);
      hi = std::max(hi, y);
    }
    spec.series.push_back(std::move(s));
  }
  spec.logy = lo > 0 && hi / lo >= 30;
  if (!spec.logy) spec.ymin = 0;
  std::string caption = fmt::format(
      "Completed flows in {} of fixed size ranges, each 4× the one before (summary.json's fct_slowdown_by_size); each "
      "point is at its bin's median size. Slowdown is the flow completion time (FCT) divided by the FCT of the same "
      "flow alone on an idle fabric; percentiles are nearest rank.",
      bins.size() == 1 ? std::string("1 bin") : fmt::format("{} bins", bins.size()));
  if (no_ideal > 0) caption += fmt::format(" {} without an ideal FCT are left out.", flow_count(no_ideal));
  pg.figure(spec, html_escape(caption));
  pg.html += "<table class=\"bins\">\n<tr><th>flow size</th><th>flows</th><th>p50 slowdown</th>"
             "<th>p95 slowdown</th><th>p99 slowdown</th></tr>\n";
  for (const auto& b : bins)
    pg.html += fmt::format("<tr><td>{}</td><td>{}</td><td>{:.3f}×</td><td>{:.3f}×</td><td>{:.3f}×</td></tr>\n",
                           html_escape(bin_range(b)), flow_count(b.flows), b.p50, b.p95, b.p99);
  pg.html += "</table>\n";
}

void flow_sections(page& pg, const std::vector<flow_record>& flows) {
  pg.html += "<h2>Flow completion times</h2>\n";
  if (flows.empty()) {
    pg.note("This run had no flows, so there is no flow completion time to show.");
    return;
  }
  std::vector<double> fct_us, ideal_us;
  size_t no_ideal = 0;
  for (const auto& f : flows) {
    if (f.fct_s < 0) continue;
    fct_us.push_back(f.fct_s * 1e6);
    ideal_us.push_back(f.ideal_fct_s * 1e6);
    if (f.ideal_fct_s <= 0) ++no_ideal;
  }
  size_t incomplete = flows.size() - fct_us.size();
  pg.html += fmt::format("<p>{} in the run; {} completed, {} did not complete before the end of the run.</p>\n",
                         flow_count(flows.size()), group_digits(static_cast<int64_t>(fct_us.size())),
                         group_digits(static_cast<int64_t>(incomplete)));
  if (fct_us.empty()) {
    pg.note(fmt::format("None of the {} completed, so there is no flow completion time to plot.",
                        flow_count(flows.size())));
    return;
  }
  slowdown_by_size_section(pg, flows, no_ideal);

  // The FCT's CDF, measured and ideal.
  plot_spec spec;
  spec.id = pg.next_id();
  spec.title = "FCT distribution (CDF)";
  spec.xlabel = "flow completion time (us)";
  spec.ylabel = "fraction of completed flows";
  spec.logx = true;
  spec.ymin = 0;
  spec.ymax = 1;
  std::sort(fct_us.begin(), fct_us.end());
  std::sort(ideal_us.begin(), ideal_us.end());
  spec.series.push_back(report::cdf_series("measured FCT", fct_us));
  spec.series.push_back(report::cdf_series("ideal FCT (flow alone, idle fabric)", ideal_us));
  pg.figure(spec, html_escape(fmt::format(
                      "Cumulative distribution of the completion time of the {} that completed (median {}, p99 {}).",
                      flow_count(fct_us.size()), duration(percentile(fct_us, 50) * 1e-6),
                      duration(percentile(fct_us, 99) * 1e-6))));
}

// One plot of the `max_lines` series with the highest peak among `members`.
void probe_plot(page& pg, const probe_set& probes, std::vector<const probe_series*> members, const std::string& title,
                const std::string& what, const std::string& unit) {
  auto peak = [](const probe_series* s) {
    return s->samples.empty() ? INT64_MIN : *std::max_element(s->samples.begin(), s->samples.end());
  };
  std::stable_sort(members.begin(), members.end(),
                   [&](const probe_series* a, const probe_series* b) { return peak(a) > peak(b); });
  size_t total = members.size();
  if (members.size() > report::max_lines) members.resize(report::max_lines);

  std::vector<double> t_us;
  for (double t : probes.t_s) t_us.push_back(t * 1e6);
  plot_spec spec;
  spec.id = pg.next_id();
  spec.title = title;
  spec.xlabel = "time (us)";
  spec.ylabel = unit.empty() ? what : fmt::format("{} ({})", what, unit);
  bool negative = false;
  for (const auto* s : members) {
    plot_series ps;
    ps.title = s->device.empty() ? s->name : s->device + "." + s->name;
    ps.style = "steps";
    report::downsample(t_us, s->samples, report::max_plot_points, ps.x, ps.y);
    negative = negative || std::any_of(s->samples.begin(), s->samples.end(), [](int64_t v) { return v < 0; });
    spec.series.push_back(std::move(ps));
  }
  if (!negative) spec.ymin = 0;
  std::string caption = fmt::format("Sampled every {}.", duration(probes.interval_s));
  if (total > members.size())
    caption += fmt::format(" Showing the {} of {} probes with the highest peak value.", members.size(), total);
  if (probes.t_s.size() > report::max_plot_points)
    caption += fmt::format(" Each line is reduced to {} points keeping the minimum and maximum of each stretch.",
                           report::max_plot_points);
  pg.figure(spec, html_escape(caption));
}

// Queue-length distribution over every sample of every queue (idle ports included, as in HPCC's
// figures, so the median is often 0): the figures of summary.json's queue section.
void queue_cdf(page& pg, const std::vector<const probe_series*>& queues, const std::string& unit) {
  std::vector<double> v;
  for (const probe_series* s : queues) v.insert(v.end(), s->samples.begin(), s->samples.end());
  if (v.empty()) return;
  std::sort(v.begin(), v.end());
  plot_spec spec;
  spec.id = pg.next_id();
  spec.title = "Queue length distribution (CDF)";
  spec.xlabel = "queue depth (" + unit + ")";
  spec.ylabel = "fraction of samples";
  spec.ymin = 0;
  spec.ymax = 1;
  const size_t n = v.size();
  spec.series.push_back(report::cdf_series("all switch ports", v));
  pg.figure(spec, html_escape(fmt::format("{} samples of {} queues: p50 {:g} {}, p95 {:g} {}, p99 {:g} {}.", n, queues.size(),
                                          percentile(v, 50), unit, percentile(v, 95), unit, percentile(v, 99), unit)));
}

void probe_sections(page& pg, const probe_set& probes) {
  pg.html += "<h2>Probes</h2>\n";
  if (probes.series.empty() || probes.t_s.empty()) {
    pg.note("No probes were sampled in this run.");
    return;
  }
  // Queue depths first (one plot per unit), then every other unit; the clock's series have their own section.
  std::vector<std::string> q_units, other_units;
  std::map<std::string, std::vector<const probe_series*>> queues, others;
  for (const auto& s : probes.series) {
    if (report::is_clock_series(s)) continue;
    bool q = s.name.find("qdepth") != std::string::npos;
    auto& units = q ? q_units : other_units;
    if (std::find(units.begin(), units.end(), s.unit) == units.end()) units.push_back(s.unit);
    (q ? queues : others)[s.unit].push_back(&s);
  }
  for (const auto& u : q_units) {
    probe_plot(pg, probes, queues[u], "Queue depth over time", "queue depth", u);
    queue_cdf(pg, queues[u], u);
  }
  for (const auto& u : other_units) {
    const bool rates = u == "Mbps";   // the NICs' transmit rates
    probe_plot(pg, probes, others[u], rates ? "Sender rates over time" : u.empty() ? "Other probes" : "Probes in " + u,
               rates ? "data sent" : "value", u);
  }
}

}  // namespace

std::string html_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string scenario_name(const json& summary) {
  if (summary.is_object()) {
    if (auto it = summary.find("scenario"); it != summary.end()) {
      if (it->is_string()) return it->get<std::string>();
      if (it->is_object() && it->contains("name") && (*it)["name"].is_string()) return (*it)["name"].get<std::string>();
    }
    if (auto it = summary.find("name"); it != summary.end() && it->is_string()) return it->get<std::string>();
  }
  return "unnamed scenario";
}

std::string html_page_head(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + html_escape(title) +
         "</title>\n<style>\n"
         "body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}\n"
         "h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccc}\n"
         "table{border-collapse:collapse;margin:1em 0;font-size:.92em}\n"
         "td,th{border:1px solid #ddd;padding:.25em .6em;text-align:left}th{background:#f4f4f4}\n"
         "td:nth-child(n+2){font-variant-numeric:tabular-nums}\n"
         "figure{margin:1.5em 0}figcaption{font-size:.9em;color:#555;max-width:820px}\n"
         "svg{max-width:100%;height:auto}.note{color:#555;font-style:italic}\n"
         "table.glance th{text-align:right;width:16em}details{margin:.3em 0}summary{cursor:pointer}\n"
         "</style>\n</head>\n<body>\n";
}

std::string report_html(const json& summary, const std::vector<flow_record>& flows, const probe_set& probes,
                        const clock_result* clock, const telemetry_result* telemetry) {
  validate_probe_set(probes);
  const std::string title = "netasic report: " + scenario_name(summary);
  page pg;
  pg.html = html_page_head(title) + "<h1>" + html_escape(title) + "</h1>\n";
  // The first screen: the headline figures; then a section per block; every value last.
  glance_section(pg, summary, flows);
  deadlock_section(pg, summary);
  flow_sections(pg, flows);
  if (clock && !probes.t_s.empty()) report::clock_section(pg, *clock, probes);
  if (telemetry && (telemetry->flowradar || telemetry->lossradar)) report::telemetry_section(pg, *telemetry, summary);
  probe_sections(pg, probes);
  summary_section(pg, summary);
  pg.html += "</body>\n</html>\n";
  return pg.draw_figures();
}

void write_report_html(const std::string& path, const json& summary, const std::vector<flow_record>& flows,
                       const probe_set& probes, const clock_result* clock, const telemetry_result* telemetry) {
  // Built before the file is opened: an error leaves no half-written page.
  write_file(path, report_html(summary, flows, probes, clock, telemetry));
}

}  // namespace netasic
