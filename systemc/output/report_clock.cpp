// report.html's section "Clock synchronisation", from the clock layer's typed result and the
// series the run appended to the probes ("clock.ALG.epsilon", ".offset" and ".offset_ideal", in
// ns; epsilon -1 = no bound): epsilon over time for every algorithm, per device, its CDF, the
// bound against the true offset on the device with the highest peak, and that device and the
// root against ideal time.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "output/format.h"
#include "output/report.h"
#include "output/report_page.h"

namespace netasic::report {

namespace {

using series_list = std::vector<const probe_series*>;

template <class T>
double seconds(T ps) {
  return double(ps) * 1e-12;
}


// The clock's probes by algorithm name: epsilon, true offset and offset from ideal time.
struct clock_probes {
  std::map<std::string, series_list> eps, off, ideal;
};
clock_probes find_clock_probes(const probe_set& probes) {
  clock_probes cp;
  for (const auto& ps : probes.series) {
    if (!is_clock_series(ps)) continue;
    const std::string rest = ps.name.substr(6);
    const size_t dot = rest.find('.');
    if (dot == std::string::npos) continue;
    const std::string what = rest.substr(dot + 1);
    (what == "epsilon" ? cp.eps : what == "offset" ? cp.off : cp.ideal)[rest.substr(0, dot)].push_back(&ps);
  }
  return cp;
}

int64_t peak_of(const probe_series* p) { return *std::max_element(p->samples.begin(), p->samples.end()); }

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

void algorithm_table(page& pg, const clock_result& c) {
  pg.html += "<table class=\"bins\">\n<tr><th>algorithm</th><th>epsilon p50</th><th>epsilon p99</th><th>epsilon max</th>"
             "<th>max |true offset|</th><th>bound violations</th><th>sync-messages</th></tr>\n";
  for (const clock_algorithm_result& a : c.algorithms) {
    pg.html += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} of {} checks</td><td>{}</td></tr>\n",
                           html_escape(clock_algorithm_name(a.algorithm)), duration(a.epsilon_p50_ns * 1e-9),
                           duration(a.epsilon_p99_ns * 1e-9), duration(a.epsilon_max_ns * 1e-9),
                           duration(a.max_abs_offset_ns * 1e-9), a.bound_violations, a.bound_checks,
                           si(a.messages_per_s, "/s"));
  }
  pg.html += "</table>\n";
}

// One row per algorithm and failure, and with several failures one over all of them (Fig. 3.20).
void failure_table(page& pg, const clock_result& c) {
  pg.html += "<table class=\"bins\">\n<tr><th>algorithm</th><th>fault</th><th>affected devices</th><th>failure to last resync</th>"
             "<th>longest outage</th><th>peak epsilon</th><th>impacted device time</th></tr>\n";
  for (const clock_algorithm_result& a : c.algorithms)
    for (const clock_failure_result& f : a.failures)
      pg.html += fmt::format("<tr><td>{}</td><td>{}</td><td>{} ({} cut off)</td><td>{}</td><td>{}</td><td>{} at {}</td><td>{}</td></tr>\n",
                             html_escape(clock_algorithm_name(a.algorithm)), html_escape(f.text), f.affected, f.cut_off,
                             f.all_recovered ? duration(seconds(f.resync_ps)) : std::string("not within the run"),
                             f.outage_known ? duration(seconds(f.max_outage_ps)) : std::string("(before the run)"),
                             duration(seconds(f.peak_epsilon_ps)), html_escape(f.peak_device),
                             duration(seconds(f.impacted_ps)));
  for (const clock_algorithm_result& a : c.algorithms) {
    if (a.failures.size() <= 1) continue;
    uint64_t devices = 0, impacted_ps = 0;
    for (const clock_failure_result& f : a.failures) {
      devices += f.affected;
      impacted_ps += f.impacted_ps;
    }
    pg.html += fmt::format("<tr><td>{}</td><td>all {} faults</td><td>{}</td><td></td><td></td><td></td><td>{}</td></tr>\n",
                           html_escape(clock_algorithm_name(a.algorithm)), a.failures.size(), devices,
                           duration(seconds(impacted_ps)));
  }
  pg.html += "</table>\n<p>Outage: the time an affected device went without a valid sync-message, from its last one "
             "before the failure to its first one after (summary.json's <code>max_outage_us</code>, "
             "<code>min_outage_us</code>); this is the figure the paper's recovery time measures (§3.6.1.3). "
             "Failure to last resync: from the failure itself, so it moves with the failure's phase in the sync "
             "interval (<code>resync_after_failure_us</code>).</p>\n";
}

// Fig. 3.20: the blast radius as the failures add up.
void blast_radius_plot(page& pg, const clock_result& c) {
  plot_spec blast;
  blast.id = pg.next_id();
  blast.title = "Impacted device time, cumulative over the failures";
  blast.xlabel = "failure";
  blast.ylabel = "ms";
  blast.logy = true;
  for (const clock_algorithm_result& a : c.algorithms) {
    plot_series line;
    line.title = clock_algorithm_name(a.algorithm);
    line.style = "linespoints";
    double sum = 0;
    for (const clock_failure_result& f : a.failures) {
      sum += double(f.impacted_ps) * 1e-9;
      line.x.push_back(double(line.x.size() + 1));
      line.y.push_back(sum);
    }
    blast.series.push_back(std::move(line));
  }
  pg.figure(blast, html_escape("Over each failure and each device it affected, the time the device went without a "
                               "valid sync-message (Fig. 3.20); summary.json's clock.ALG.impacted_device_time_ms. "
                               "Zeros are not drawn on the log axis."));
}

// The largest epsilon over the devices, every algorithm on one log axis.
void largest_epsilon_plot(page& pg, const clock_result& c, clock_probes& cp, const probe_set& probes,
                          const std::vector<double>& t_us) {
  plot_spec all;
  all.id = pg.next_id();
  all.title = "Largest epsilon over the devices";
  all.xlabel = "time (us)";
  all.ylabel = "epsilon (ns)";
  all.logy = true;
  for (const clock_algorithm_result& a : c.algorithms) {
    const std::string name = clock_algorithm_name(a.algorithm);
    std::vector<int64_t> top(probes.t_s.size(), -1);
    for (const probe_series* ps : cp.eps[name])
      for (size_t i = 0; i < top.size(); ++i) top[i] = std::max(top[i], ps->samples[i]);
    plot_series line;
    line.title = name;
    line.style = "steps";
    downsample(t_us, top, max_plot_points, line.x, line.y);
    if (std::any_of(line.y.begin(), line.y.end(), [](double y) { return y > 0; })) all.series.push_back(std::move(line));
  }
  if (!all.series.empty())
    pg.figure(all, html_escape(fmt::format("At each sample ({}) the largest epsilon any device reports (devices without a "
                                           "bound left out). Log scale: the algorithms differ by orders of magnitude.",
                                           duration(probes.interval_s))));
}

// Per algorithm, the devices with the highest peaks (samples without a bound left out).
void device_epsilon_plots(page& pg, const clock_result& c, clock_probes& cp, const probe_set& probes,
                          const std::vector<double>& t_us) {
  for (const clock_algorithm_result& a : c.algorithms) {
    const std::string name = clock_algorithm_name(a.algorithm);
    series_list m = cp.eps[name];
    std::stable_sort(m.begin(), m.end(), [](const probe_series* x, const probe_series* y) { return peak_of(x) > peak_of(y); });
    if (m.empty() || peak_of(m.front()) <= 0) continue;
    const size_t total = m.size();
    if (m.size() > max_lines) m.resize(max_lines);
    plot_spec spec;
    spec.id = pg.next_id();
    spec.title = "Epsilon over time: " + name;
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
                                            m.size(), total, duration(probes.interval_s))));
  }
}

// Around the first failure, as the paper's Fig. 3.19: the first algorithm's devices with the
// highest peak from 0.3 ms before to 0.7 ms after it.
void first_failure_plot(page& pg, const clock_algorithm_result& a, const series_list& eps, const probe_set& probes,
                        const std::vector<double>& t_us) {
  const clock_failure_result& first = a.failures.front();
  const double tf = double(first.at_ps) / 1e6;
  const size_t i0 = size_t(std::lower_bound(t_us.begin(), t_us.end(), tf - 300) - t_us.begin());
  const size_t i1 = size_t(std::lower_bound(t_us.begin(), t_us.end(), tf + 700) - t_us.begin());
  std::vector<std::pair<int64_t, const probe_series*>> m;
  for (const probe_series* p : eps)
    if (i1 > i0) m.emplace_back(*std::max_element(p->samples.begin() + long(i0), p->samples.begin() + long(i1)), p);
  std::stable_sort(m.begin(), m.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  if (m.size() > max_lines) m.resize(max_lines);
  plot_spec spec;
  spec.id = pg.next_id();
  spec.title = std::string("Epsilon around the first failure: ") + clock_algorithm_name(a.algorithm);
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
                                            first.text, tf, duration(probes.interval_s))));
}

// The distribution of epsilon: every sample with a bound, the roots (0) left out.
void epsilon_cdf(page& pg, const clock_result& c, clock_probes& cp) {
  plot_spec cdf;
  cdf.id = pg.next_id();
  cdf.title = "Epsilon distribution (CDF)";
  cdf.xlabel = "epsilon (ns)";
  cdf.ylabel = "fraction of samples";
  cdf.logx = true;
  cdf.ymin = 0;
  cdf.ymax = 1;
  for (const clock_algorithm_result& a : c.algorithms) {
    const std::string name = clock_algorithm_name(a.algorithm);
    std::vector<double> v;
    for (const probe_series* p : cp.eps[name])
      for (int64_t x : p->samples)
        if (x > 0) v.push_back(double(x));
    if (v.empty()) continue;
    std::sort(v.begin(), v.end());
    cdf.series.push_back(cdf_series(name, v));
  }
  if (!cdf.series.empty())
    pg.figure(cdf, html_escape("Every sample of every device that had a bound, roots (epsilon 0) left out; summary.json's "
                               "clock.ALG.epsilon_p50_ns and _p99_ns count healthy devices only."));
}

// The bound itself: epsilon and the true offset on the device `e` (the first algorithm's
// highest peak).
void bound_plot(page& pg, const std::string& alg, const probe_series* e, const series_list& off, const probe_set& probes,
                const std::vector<double>& t_us) {
  const probe_series* o = nullptr;
  for (const probe_series* p : off)
    if (p->device == e->device) o = p;
  if (!o || peak_of(e) <= 0) return;
  plot_spec spec;
  spec.id = pg.next_id();
  spec.title = "Epsilon and the true offset: " + alg + ", " + e->device;
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
                      "the samples and message arrivals of every healthy device where it was outside.",
                      duration(probes.interval_s))));
}

// Against ideal time: the root's own oscillator error, which no epsilon bounds, and the device
// `e` following it.
void ideal_time_plot(page& pg, const std::string& alg, const std::string& root, const probe_series* e,
                     const series_list& ideal, const std::vector<double>& t_us) {
  plot_spec spec;
  spec.id = pg.next_id();
  spec.title = "Offset from ideal time: " + alg;
  spec.xlabel = "time (us)";
  spec.ylabel = "ns";
  for (const probe_series* p : ideal) {
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

}  // namespace

void clock_section(page& pg, const clock_result& c, const probe_set& probes) {
  pg.html += "<h2>Clock synchronisation</h2>\n";
  clock_probes cp = find_clock_probes(probes);
  algorithm_table(pg, c);
  // Every algorithm sees the same faults.
  const size_t faults = c.algorithms.empty() ? 0 : c.algorithms.front().failures.size();
  if (faults > 0) failure_table(pg, c);
  if (faults > 1) blast_radius_plot(pg, c);
  std::vector<double> t_us;
  for (double t : probes.t_s) t_us.push_back(t * 1e6);
  largest_epsilon_plot(pg, c, cp, probes, t_us);
  device_epsilon_plots(pg, c, cp, probes, t_us);
  if (c.algorithms.empty()) return epsilon_cdf(pg, c, cp);
  const clock_algorithm_result& first = c.algorithms.front();
  const std::string name = clock_algorithm_name(first.algorithm);
  if (!first.failures.empty()) first_failure_plot(pg, first, cp.eps[name], probes, t_us);
  epsilon_cdf(pg, c, cp);
  if (cp.eps[name].empty()) return;
  const probe_series* e = nullptr;   // the device with the highest peak
  for (const probe_series* p : cp.eps[name])
    if (!e || peak_of(p) > peak_of(e)) e = p;
  bound_plot(pg, name, e, cp.off[name], probes, t_us);
  ideal_time_plot(pg, name, c.root, e, cp.ideal[name], t_us);
}

}  // namespace netasic::report
