#include "output/report.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "output/csv.h"
#include "output/plot.h"

namespace netasic {

namespace {

using nlohmann::json;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string unit_of_part(const std::string& k);

// The dotted part of a key that names its unit: the leaf ("queue.peak_bytes"), else the
// nearest parent that does ("fct_us.p99").
std::string unit_part(const std::string& key) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  for (auto it = parts.rbegin(); it != parts.rend(); ++it)
    if (!unit_of_part(*it).empty()) return *it;
  return parts.back();
}

std::string group_digits(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -static_cast<uint64_t>(v) : static_cast<uint64_t>(v));
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (v < 0 ? "-" : "") + out;
}

// 4 significant digits with an SI prefix: "3.2 M" + unit.
std::string si(double v, const std::string& unit) {
  static const char* prefixes[] = {"", "k", "M", "G", "T", "P"};
  int i = 0;
  while (std::fabs(v) >= 1000 && i < 5) {
    v /= 1000;
    ++i;
  }
  return fmt::format("{:.4g} {}{}", v, prefixes[i], unit);
}

// A duration in seconds with the unit that keeps it between 1 and 1000.
std::string duration(double s) {
  double a = std::fabs(s);
  if (a == 0) return "0 s";
  if (a >= 1) return fmt::format("{:.4g} s", s);
  if (a >= 1e-3) return fmt::format("{:.4g} ms", s * 1e3);
  if (a >= 1e-6) return fmt::format("{:.4g} us", s * 1e6);
  if (a >= 1e-9) return fmt::format("{:.4g} ns", s * 1e9);
  return fmt::format("{:.4g} ps", s * 1e12);
}

// Seconds per unit of a time suffix, 0 when the key is not a time.
double time_scale(const std::string& leaf_key) {
  if (ends_with(leaf_key, "_per_s")) return 0;
  if (ends_with(leaf_key, "_s")) return 1;
  if (ends_with(leaf_key, "_ms")) return 1e-3;
  if (ends_with(leaf_key, "_us")) return 1e-6;
  if (ends_with(leaf_key, "_ns")) return 1e-9;
  if (ends_with(leaf_key, "_ps")) return 1e-12;
  return 0;
}

const std::vector<std::string>& count_words() {
  static const std::vector<std::string> w = {"packets", "flows", "drops", "bytes", "hosts", "ports", "events",
                                             "retransmissions", "pauses", "marks", "trims",
                                             "timeouts", "switches", "links", "writes", "hops"};
  return w;
}

std::string plain_number(const json& v) {
  if (v.is_number_integer()) return group_digits(v.get<int64_t>());
  if (v.is_number_unsigned()) return group_digits(static_cast<int64_t>(v.get<uint64_t>()));
  double d = v.get<double>();
  if (std::floor(d) == d && std::fabs(d) < 1e15) return group_digits(static_cast<int64_t>(d));
  return fmt::format("{:.6g}", d);
}

std::string flow_count(size_t n) { return fmt::format("{} flow{}", group_digits(static_cast<int64_t>(n)), n == 1 ? "" : "s"); }

// Every value of `v` but only the min and max of each of `buckets` runs, in time order, so a
// long series stays small in the SVG while its peaks survive.
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

constexpr size_t max_lines = 8;          // probe lines per plot
constexpr size_t max_plot_points = 2000;   // per series

struct page {
  std::string html;
  int plots = 0;
  std::string next_id() { return fmt::format("plot{}", ++plots); }
  void figure(const plot_spec& spec, const std::string& caption) {
    html += "<figure>\n" + render_svg(spec) + "\n<figcaption>" + caption + "</figcaption>\n</figure>\n";
  }
  void note(const std::string& text) { html += "<p class=\"note\">" + html_escape(text) + "</p>\n"; }
};

void summary_section(page& pg, const json& summary) {
  pg.html += "<h2>Summary</h2>\n";
  auto rows = flatten_json(summary);
  if (rows.empty()) {
    pg.note("The run wrote no summary values.");
    return;
  }
  pg.html += "<table class=\"summary\">\n<tr><th>metric</th><th>value</th></tr>\n";
  for (const auto& [key, value] : rows)
    pg.html += fmt::format("<tr><td>{}</td><td title=\"{} = {}\">{}</td></tr>\n", html_escape(key), html_escape(key),
                           html_escape(value.dump()), html_escape(format_value(key, value)));
  pg.html += "</table>\n";
}

// The empirical CDF of sorted, non-empty values as a step line, thinned to max_plot_points.
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

  // (a) slowdown by flow size.
  auto bins = slowdown_by_size(flows);
  if (bins.empty()) {
    pg.note("No completed flow has an ideal completion time above 0 s, so slowdown cannot be computed.");
  } else {
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
        "Completed flows in {} by size, about the same number of flows in each; each point is at its bin's median "
        "size. Slowdown is the flow completion time (FCT) divided by the FCT of the same flow alone on an idle "
        "fabric.",
        bins.size() == 1 ? std::string("1 bin") : fmt::format("{} bins", bins.size()));
    if (no_ideal > 0) caption += fmt::format(" {} without an ideal FCT are left out.", flow_count(no_ideal));
    pg.figure(spec, html_escape(caption));
    pg.html += "<table class=\"bins\">\n<tr><th>flow size</th><th>flows</th><th>p50 slowdown</th>"
               "<th>p95 slowdown</th><th>p99 slowdown</th></tr>\n";
    for (const auto& b : bins) {
      std::string range = b.min_bytes == b.max_bytes
                              ? group_digits(static_cast<int64_t>(b.min_bytes)) + " bytes"
                              : fmt::format("{} – {} bytes", group_digits(static_cast<int64_t>(b.min_bytes)),
                                            group_digits(static_cast<int64_t>(b.max_bytes)));
      pg.html += fmt::format("<tr><td>{}</td><td>{}</td><td>{:.3f}×</td><td>{:.3f}×</td><td>{:.3f}×</td></tr>\n",
                             range, flow_count(b.flows), b.p50, b.p95, b.p99);
    }
    pg.html += "</table>\n";
  }

  // (b) FCT CDF, measured and ideal.
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
  spec.series.push_back(cdf_series("measured FCT", fct_us));
  spec.series.push_back(cdf_series("ideal FCT (flow alone, idle fabric)", ideal_us));
  pg.figure(spec, html_escape(fmt::format(
                      "Cumulative distribution of the completion time of the {} that completed (median {}, p99 {}).",
                      flow_count(fct_us.size()), duration(percentile(fct_us, 0.5) * 1e-6),
                      duration(percentile(fct_us, 0.99) * 1e-6))));
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
  if (members.size() > max_lines) members.resize(max_lines);

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
    downsample(t_us, s->samples, max_plot_points, ps.x, ps.y);
    negative = negative || std::any_of(s->samples.begin(), s->samples.end(), [](int64_t v) { return v < 0; });
    spec.series.push_back(std::move(ps));
  }
  if (!negative) spec.ymin = 0;
  std::string caption = fmt::format("Sampled every {}.", duration(probes.interval_s));
  if (total > members.size())
    caption += fmt::format(" Showing the {} of {} probes with the highest peak value.", members.size(), total);
  if (probes.t_s.size() > max_plot_points)
    caption += fmt::format(" Each line is reduced to {} points keeping the minimum and maximum of each stretch.",
                           max_plot_points);
  pg.figure(spec, html_escape(caption));
}

// Queue-length distribution over every sample of every queue (idle ports included, as in HPCC's
// figures, so the median is often 0).
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
  spec.series.push_back(cdf_series("all switch ports", v));
  pg.figure(spec, html_escape(fmt::format("{} samples of {} queues: p50 {:g} {}, p95 {:g} {}, p99 {:g} {}.", n, queues.size(),
                                          percentile(v, 0.5), unit, percentile(v, 0.95), unit, percentile(v, 0.99), unit)));
}

bool is_clock_series(const probe_series& s) { return s.name.rfind("clock.", 0) == 0; }

// downsample() over the samples with a bound only (epsilon -1 = none), scaled by `sign`.
void downsample_bounded(const std::vector<double>& t, const std::vector<int64_t>& v, const std::vector<int64_t>& bound,
                        int64_t sign, std::vector<double>& xo, std::vector<double>& yo) {
  std::vector<double> tt;
  std::vector<int64_t> vv;
  for (size_t i = 0; i < v.size(); ++i)
    if (bound[i] >= 0) {
      tt.push_back(t[i]);
      vv.push_back(sign * v[i]);
    }
  downsample(tt, vv, max_plot_points, xo, yo);
}

// The clock layer (summary "clock", probes "clock.ALG.epsilon", ".offset" and ".offset_ideal" in
// ns; epsilon -1 = no bound): epsilon over time for every algorithm, per device, its CDF, the
// bound against the true offset on the device with the highest peak, and that device and the
// root against ideal time.
void clock_section(page& pg, const json& summary, const probe_set& probes) {
  if (!summary.is_object() || !summary.contains("clock") || probes.t_s.empty()) return;
  const json& ck = summary["clock"];
  pg.html += "<h2>Clock synchronisation</h2>\n";
  std::vector<std::string> algs;
  for (const auto& a : ck.value("algorithms", json::array())) algs.push_back(a.get<std::string>());
  std::map<std::string, std::vector<const probe_series*>> eps, off, ideal;
  for (const auto& ps : probes.series) {
    if (!is_clock_series(ps)) continue;
    const std::string rest = ps.name.substr(6);
    const size_t dot = rest.find('.');
    if (dot == std::string::npos) continue;
    const std::string what = rest.substr(dot + 1);
    (what == "epsilon" ? eps : what == "offset" ? off : ideal)[rest.substr(0, dot)].push_back(&ps);
  }
  pg.html += "<table class=\"bins\">\n<tr><th>algorithm</th><th>epsilon p50</th><th>epsilon p99</th><th>epsilon max</th>"
             "<th>max |true offset|</th><th>bound violations</th><th>sync-messages</th></tr>\n";
  for (const std::string& a : algs) {
    const json& r = ck[a];
    pg.html += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} of {} checks</td><td>{}</td></tr>\n",
                           html_escape(a), duration(r.value("epsilon_p50_ns", 0.0) * 1e-9),
                           duration(r.value("epsilon_p99_ns", 0.0) * 1e-9), duration(r.value("epsilon_max_ns", 0.0) * 1e-9),
                           duration(r.value("max_abs_offset_ns", 0.0) * 1e-9), r.value("bound_violations", 0),
                           r.value("bound_checks", 0), si(r.value("messages_per_s", 0.0), "/s"));
  }
  pg.html += "</table>\n";
  if (!ck.value("faults", json::array()).empty()) {
    pg.html += "<table class=\"bins\">\n<tr><th>algorithm</th><th>fault</th><th>affected devices</th><th>recovery</th>"
               "<th>longest outage</th><th>peak epsilon</th><th>impacted device time</th></tr>\n";
    for (const std::string& a : algs)
      for (const auto& f : ck[a].value("failures", json::array()))
        pg.html += fmt::format("<tr><td>{}</td><td>{}</td><td>{} ({} cut off)</td><td>{}</td><td>{}</td><td>{} at {}</td><td>{}</td></tr>\n",
                               html_escape(a), html_escape(f.value("fault", "")), f.value("affected_devices", 0),
                               f.value("cut_off_devices", 0),
                               f["recovery_time_us"].is_null() ? std::string("not within the run")
                                                               : duration(f["recovery_time_us"].get<double>() * 1e-6),
                               f["max_outage_us"].is_number() ? duration(f["max_outage_us"].get<double>() * 1e-6) : std::string("(before the run)"),
                               duration(f.value("peak_epsilon_ns", 0.0) * 1e-9),
                               html_escape(f.value("peak_device", "")), duration(f.value("impacted_device_time_us", 0.0) * 1e-6));
    for (const std::string& a : algs)   // the blast radius over every fault (Fig. 3.20)
      if (ck[a].value("failures", json::array()).size() > 1)
        pg.html += fmt::format("<tr><td>{}</td><td>all {} faults</td><td>{}</td><td></td><td></td><td></td><td>{}</td></tr>\n",
                               html_escape(a), ck[a].value("failures", json::array()).size(), ck[a].value("impacted_devices", 0),
                               duration(ck[a].value("impacted_device_time_ms", 0.0) * 1e-3));
    pg.html += "</table>\n";
    // Fig. 3.20: the blast radius as the failures add up.
    if (ck.value("faults", json::array()).size() > 1) {
      plot_spec blast;
      blast.id = pg.next_id();
      blast.title = "Impacted device time, cumulative over the failures";
      blast.xlabel = "failure";
      blast.ylabel = "ms";
      blast.logy = true;
      for (const std::string& a : algs) {
        plot_series line;
        line.title = a;
        line.style = "linespoints";
        double sum = 0;
        for (const auto& f : ck[a].value("failures", json::array())) {
          sum += f.value("impacted_device_time_us", 0.0) / 1e3;
          line.x.push_back(double(line.x.size() + 1));
          line.y.push_back(sum);
        }
        blast.series.push_back(std::move(line));
      }
      pg.figure(blast, html_escape("Over each failure and each device it affected, the time the device went without a "
                                   "valid sync-message (Fig. 3.20); summary.json's clock.ALG.impacted_device_time_ms. "
                                   "Zeros are not drawn on the log axis."));
    }
  }
  std::vector<double> t_us;
  for (double t : probes.t_s) t_us.push_back(t * 1e6);
  const std::string every = duration(probes.interval_s);

  // (a) The largest epsilon over the devices, every algorithm on one log axis.
  plot_spec all;
  all.id = pg.next_id();
  all.title = "Largest epsilon over the devices";
  all.xlabel = "time (us)";
  all.ylabel = "epsilon (ns)";
  all.logy = true;
  for (const std::string& a : algs) {
    std::vector<int64_t> top(probes.t_s.size(), -1);
    for (const probe_series* ps : eps[a])
      for (size_t i = 0; i < top.size(); ++i) top[i] = std::max(top[i], ps->samples[i]);
    plot_series line;
    line.title = a;
    line.style = "steps";
    downsample(t_us, top, max_plot_points, line.x, line.y);
    if (std::any_of(line.y.begin(), line.y.end(), [](double y) { return y > 0; })) all.series.push_back(std::move(line));
  }
  if (!all.series.empty())
    pg.figure(all, html_escape(fmt::format("At each sample ({}) the largest epsilon any device reports (devices without a "
                                           "bound left out). Log scale: the algorithms differ by orders of magnitude.", every)));

  // (b) Per algorithm, the devices with the highest peaks (samples without a bound left out).
  for (const std::string& a : algs) {
    std::vector<const probe_series*> m = eps[a];
    auto pk = [](const probe_series* p) { return *std::max_element(p->samples.begin(), p->samples.end()); };
    std::stable_sort(m.begin(), m.end(), [&](const probe_series* x, const probe_series* y) { return pk(x) > pk(y); });
    if (m.empty() || pk(m.front()) <= 0) continue;
    const size_t total = m.size();
    if (m.size() > max_lines) m.resize(max_lines);
    plot_spec spec;
    spec.id = pg.next_id();
    spec.title = "Epsilon over time: " + a;
    spec.xlabel = "time (us)";
    spec.ylabel = "epsilon (ns)";
    spec.ymin = 0;
    for (const probe_series* p : m) {
      plot_series line;
      line.title = p->device;
      line.style = "steps";
      downsample_bounded(t_us, p->samples, p->samples, 1, line.x, line.y);
      if (!line.x.empty()) spec.series.push_back(std::move(line));
    }
    pg.figure(spec, html_escape(fmt::format("Epsilon of the {} of {} devices with the highest peak, sampled every {}; a gap "
                                            "is a time without a bound (down, not yet synchronised, or evicted).",
                                            m.size(), total, every)));
  }

  // (b') Around the first failure, as the paper's Fig. 3.19: the first algorithm's devices with
  // the highest peak from 0.3 ms before to 0.7 ms after it.
  const json& first = algs.empty() ? json() : ck[algs[0]];
  if (first.is_object() && first.contains("failures") && !first["failures"].empty()) {
    const double tf = first["failures"][0].value("time_us", 0.0);
    const size_t i0 = size_t(std::lower_bound(t_us.begin(), t_us.end(), tf - 300) - t_us.begin());
    const size_t i1 = size_t(std::lower_bound(t_us.begin(), t_us.end(), tf + 700) - t_us.begin());
    std::vector<std::pair<int64_t, const probe_series*>> m;
    for (const probe_series* p : eps[algs[0]])
      if (i1 > i0) m.emplace_back(*std::max_element(p->samples.begin() + long(i0), p->samples.begin() + long(i1)), p);
    std::stable_sort(m.begin(), m.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    if (m.size() > max_lines) m.resize(max_lines);
    plot_spec spec;
    spec.id = pg.next_id();
    spec.title = "Epsilon around the first failure: " + algs[0];
    spec.xlabel = "time (us)";
    spec.ylabel = "epsilon (ns)";
    spec.ymin = 0;
    const std::vector<double> t(t_us.begin() + long(i0), t_us.begin() + long(i1));
    for (const auto& [top, p] : m) {
      if (top <= 0) continue;
      plot_series line;
      line.title = p->device;
      line.style = "steps";
      const std::vector<int64_t> v(p->samples.begin() + long(i0), p->samples.begin() + long(i1));
      downsample_bounded(t, v, v, 1, line.x, line.y);
      if (!line.x.empty()) spec.series.push_back(std::move(line));
    }
    if (!spec.series.empty())
      pg.figure(spec, html_escape(fmt::format("\"{}\" at {} us: the devices with the highest epsilon from 0.3 ms before "
                                              "it to 0.7 ms after, sampled every {}.",
                                              first["failures"][0].value("fault", ""), tf, every)));
  }

  // (c) The distribution of epsilon: every sample with a bound, the roots (0) left out.
  plot_spec cdf;
  cdf.id = pg.next_id();
  cdf.title = "Epsilon distribution (CDF)";
  cdf.xlabel = "epsilon (ns)";
  cdf.ylabel = "fraction of samples";
  cdf.logx = true;
  cdf.ymin = 0;
  cdf.ymax = 1;
  for (const std::string& a : algs) {
    std::vector<double> v;
    for (const probe_series* p : eps[a])
      for (int64_t x : p->samples)
        if (x > 0) v.push_back(double(x));
    if (v.empty()) continue;
    std::sort(v.begin(), v.end());
    cdf.series.push_back(cdf_series(a, v));
  }
  if (!cdf.series.empty())
    pg.figure(cdf, html_escape("Every sample of every device that had a bound, roots (epsilon 0) left out; summary.json's "
                               "clock.ALG.epsilon_p50_ns and _p99_ns count healthy devices only."));

  // (d) The bound itself: epsilon and the true offset on the first algorithm's device with the highest peak.
  if (!algs.empty() && !eps[algs[0]].empty()) {
    const std::string& a = algs[0];
    const probe_series* e = nullptr;
    for (const probe_series* p : eps[a])
      if (!e || *std::max_element(p->samples.begin(), p->samples.end()) > *std::max_element(e->samples.begin(), e->samples.end())) e = p;
    const probe_series* o = nullptr;
    for (const probe_series* p : off[a])
      if (p->device == e->device) o = p;
    if (o && *std::max_element(e->samples.begin(), e->samples.end()) > 0) {
      plot_spec spec;
      spec.id = pg.next_id();
      spec.title = "Epsilon and the true offset: " + a + ", " + e->device;
      spec.xlabel = "time (us)";
      spec.ylabel = "ns";
      for (int64_t sign : {1, -1}) {
        plot_series line;
        line.title = sign > 0 ? "+epsilon" : "-epsilon";
        line.style = "steps";
        downsample_bounded(t_us, e->samples, e->samples, sign, line.x, line.y);
        spec.series.push_back(std::move(line));
      }
      plot_series line;
      line.title = "true offset";
      line.style = "steps";
      downsample_bounded(t_us, o->samples, e->samples, 1, line.x, line.y);
      spec.series.push_back(std::move(line));
      pg.figure(spec, html_escape(fmt::format(
                          "The device's clock minus the clock of the root its time came from (the true offset), inside "
                          "+-epsilon wherever it has a bound. Sampled every {}; summary.json's bound_violations counts "
                          "the samples and message arrivals of every healthy device where it was outside.", every)));
    }
    // (e) Against ideal time: the root's own oscillator error, which no epsilon bounds, and the
    // same device following it.
    const std::string root = ck.value("root", "");
    plot_spec spec;
    spec.id = pg.next_id();
    spec.title = "Offset from ideal time: " + a;
    spec.xlabel = "time (us)";
    spec.ylabel = "ns";
    for (const probe_series* p : ideal[a]) {
      if (p->device != root && p->device != e->device) continue;
      plot_series line;
      line.title = p->device + (p->device == root ? " (root at the start)" : "");
      line.style = "steps";
      downsample(t_us, p->samples, max_plot_points, line.x, line.y);
      spec.series.push_back(std::move(line));
    }
    if (!spec.series.empty())
      pg.figure(spec, html_escape("Each clock minus simulation time. The root drifts at its oscillator's rate (within "
                                  "clock.oscillator_bound) and the network follows it: epsilon bounds the distance to "
                                  "the root, not to ideal time."));
  }
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
    if (is_clock_series(s)) continue;
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

std::vector<std::pair<std::string, json>> flatten_json(const json& doc) {
  std::vector<std::pair<std::string, json>> out;
  auto walk = [&](auto&& self, const json& v, const std::string& key) -> void {
    if (v.is_object()) {
      for (auto it = v.begin(); it != v.end(); ++it) self(self, it.value(), key.empty() ? it.key() : key + "." + it.key());
    } else if (v.is_array() && std::any_of(v.begin(), v.end(), [](const json& e) { return e.is_structured(); })) {
      for (size_t i = 0; i < v.size(); ++i) self(self, v[i], key + "." + std::to_string(i));
    } else if (!key.empty()) {
      out.emplace_back(key, v);
    }
  };
  walk(walk, doc, "");
  return out;
}

namespace {

std::string unit_of_part(const std::string& k) {
  if (k.find("slowdown") != std::string::npos) return "× ideal FCT";
  if (ends_with(k, "_per_s")) return "1/s";
  if (ends_with(k, "_s")) return "s";
  if (ends_with(k, "_ms")) return "ms";
  if (ends_with(k, "_us")) return "us";
  if (ends_with(k, "_ns")) return "ns";
  if (ends_with(k, "_ps")) return "ps";
  if (ends_with(k, "_gbps")) return "Gb/s";
  if (ends_with(k, "_bps")) return "b/s";
  if (ends_with(k, "_bits")) return "bits";
  if (ends_with(k, "_pct") || ends_with(k, "_percent")) return "%";
  for (const auto& w : count_words())
    if (k == w || ends_with(k, "_" + w)) return w;
  return "";
}

}  // namespace

std::string unit_of_key(const std::string& key) { return unit_of_part(unit_part(key)); }

std::string format_value(const std::string& key, const json& value) {
  if (value.is_array()) {
    std::string s;
    for (const auto& e : value) s += (s.empty() ? "" : ", ") + format_value(key, e);
    return s.empty() ? "(none)" : s;
  }
  if (value.is_boolean()) return value.get<bool>() ? "yes" : "no";
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "(none)";
  if (!value.is_number()) return value.dump();
  const double v = value.get<double>();
  const std::string k = unit_part(key);
  const std::string unit = unit_of_part(k);
  if (unit == "× ideal FCT") return fmt::format("{:.4g}×", v);
  if (double scale = time_scale(k); scale > 0) return duration(v * scale);
  if (unit == "bytes" || unit == "bits") {
    std::string s = plain_number(value) + " " + unit;
    if (std::fabs(v) >= 1000) s += " (" + si(v, unit == "bytes" ? "B" : "b") + ")";
    return s;
  }
  if (unit == "b/s") return si(v, "b/s");
  if (unit == "Gb/s") return fmt::format("{:.4g} Gb/s", v);
  if (unit == "1/s") {   // "packet_hops_per_s" -> "hops/s"
    const std::string noun = k.substr(0, k.size() - 6);
    const std::string last = noun.substr(noun.rfind('_') == std::string::npos ? 0 : noun.rfind('_') + 1);
    const auto& words = count_words();
    return si(v, std::find(words.begin(), words.end(), last) != words.end() ? last + "/s" : "/s");
  }
  if (unit == "%") return fmt::format("{:.3g} %", v);
  if (!unit.empty()) return plain_number(value) + " " + unit;
  return plain_number(value);
}

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

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return std::nan("");
  double pos = std::clamp(p, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  size_t i = static_cast<size_t>(pos);
  if (i + 1 >= sorted.size()) return sorted.back();
  return sorted[i] + (pos - static_cast<double>(i)) * (sorted[i + 1] - sorted[i]);
}

std::vector<size_bin> slowdown_by_size(const std::vector<flow_record>& flows, size_t max_bins) {
  std::vector<std::pair<uint64_t, double>> done;   // size, slowdown
  for (const auto& f : flows)
    if (f.fct_s >= 0 && f.ideal_fct_s > 0) done.emplace_back(f.size_bytes, f.slowdown());
  if (done.empty() || max_bins == 0) return {};
  std::sort(done.begin(), done.end());

  // Cut points: after about n / max_bins flows, at the next change of size.
  size_t target = std::max<size_t>(1, (done.size() + max_bins - 1) / max_bins);
  std::vector<std::pair<size_t, size_t>> ranges;   // [begin, end)
  size_t begin = 0;
  for (size_t i = 1; i <= done.size(); ++i) {
    bool size_changes = i == done.size() || done[i].first != done[i - 1].first;
    if (size_changes && (i - begin >= target || i == done.size())) {
      ranges.emplace_back(begin, i);
      begin = i;
    }
  }
  // A small remainder joins the bin before it rather than standing alone with noisy tails.
  if (ranges.size() >= 2 && ranges.back().second - ranges.back().first < target / 2) {
    ranges[ranges.size() - 2].second = ranges.back().second;
    ranges.pop_back();
  }

  std::vector<size_bin> bins;
  for (auto [b, e] : ranges) {
    size_bin bin;
    bin.min_bytes = done[b].first;
    bin.max_bytes = done[e - 1].first;
    bin.flows = e - b;
    std::vector<double> sizes, sd;
    for (size_t i = b; i < e; ++i) {
      sizes.push_back(static_cast<double>(done[i].first));
      sd.push_back(done[i].second);
    }
    std::sort(sd.begin(), sd.end());
    bin.median_bytes = percentile(sizes, 0.5);
    bin.p50 = percentile(sd, 0.5);
    bin.p95 = percentile(sd, 0.95);
    bin.p99 = percentile(sd, 0.99);
    bins.push_back(bin);
  }
  return bins;
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
         "</style>\n</head>\n<body>\n";
}

std::string report_html(const json& summary, const std::vector<flow_record>& flows, const probe_set& probes) {
  validate_probe_set(probes);
  const std::string title = "netasic report: " + scenario_name(summary);
  page pg;
  pg.html = html_page_head(title) + "<h1>" + html_escape(title) + "</h1>\n";
  summary_section(pg, summary);
  flow_sections(pg, flows);
  clock_section(pg, summary, probes);
  probe_sections(pg, probes);
  pg.html += "</body>\n</html>\n";
  return pg.html;
}

void write_report_html(const std::string& path, const json& summary, const std::vector<flow_record>& flows,
                       const probe_set& probes) {
  std::string html = report_html(summary, flows, probes);   // before opening: no half-written file on error
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  out << html;
  out.flush();
  if (!out) throw std::runtime_error(fmt::format("error while writing {}", path));
}

}  // namespace netasic
