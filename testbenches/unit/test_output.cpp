// Run-output writers (VCD, GTKWave save file, CSV, HTML report, plots) and the sweep driver.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/netasic/sweep.h"
#include "output/csv.h"
#include "output/gtkw.h"
#include "output/plot.h"
#include "output/report.h"
#include "output/vcd.h"

namespace fs = std::filesystem;
using namespace netasic;

namespace {

// A fresh directory under the system temp dir, removed with the object.
struct temp_dir {
  fs::path path;
  explicit temp_dir(const std::string& tag) {
    path = fs::temp_directory_path() / ("netasic-test-" + tag + "-" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = hay.find(needle); pos != std::string::npos; pos = hay.find(needle, pos + 1)) ++n;
  return n;
}

probe_set sample_probes() {
  probe_set p;
  p.interval_s = 1e-6;
  for (int i = 0; i < 50; ++i) p.t_s.push_back(1e-6 * i + 3e-12);   // not a whole number of us
  probe_series q0{"leaf0", "port0.qdepth", "bytes", {}}, q1{"leaf0", "port1.qdepth", "bytes", {}};
  probe_series c{"spine0", "credits", "", {}}, b{"leaf0", "buffer.used", "bytes", {}};
  for (int i = 0; i < 50; ++i) {
    q0.samples.push_back((i / 5) % 3 * 1500);              // runs of repeated values
    q1.samples.push_back(i % 2 ? 9000000000LL : 0);          // beyond 32 bits, changes every sample
    c.samples.push_back(i < 10 ? -i : 7);                    // negative, then constant
    b.samples.push_back(42);                                 // never changes
  }
  p.series = {q0, q1, c, b};
  return p;
}

// --- A small VCD reader: just what the writer's contract needs checking. ---
struct vcd_change {
  int64_t t_ps;
  int64_t value;
};
struct vcd_doc {
  std::string timescale;
  std::map<std::string, std::string> path_of_id;    // id -> "leaf0.port0.qdepth_bytes"
  std::map<std::string, int> width_of_id;
  std::map<std::string, std::vector<vcd_change>> changes;   // by path; $dumpvars included
  std::vector<int64_t> stamps;
  std::set<std::string> dumpvars;                   // paths given a value in $dumpvars
  bool has_date = false;
};

vcd_doc parse_vcd(const std::string& text) {
  vcd_doc d;
  std::istringstream in(text);
  std::string tok;
  std::vector<std::string> scope;
  bool in_dumpvars = false, defs_done = false;
  int64_t now = -1;
  auto read_to_end = [&](std::vector<std::string>& words) {
    std::string w;
    while (in >> w && w != "$end") words.push_back(w);
  };
  while (in >> tok) {
    if (!defs_done) {
      std::vector<std::string> w;
      if (tok == "$date") d.has_date = true;
      if (tok == "$timescale") {
        read_to_end(w);
        for (const auto& x : w) d.timescale += x;
      } else if (tok == "$scope") {
        read_to_end(w);
        scope.push_back(w.at(1));
      } else if (tok == "$upscope") {
        read_to_end(w);
        scope.pop_back();
      } else if (tok == "$var") {
        read_to_end(w);   // type width id name
        std::string path;
        for (const auto& s : scope) path += s + ".";
        d.path_of_id[w.at(2)] = path + w.at(3);
        d.width_of_id[w.at(2)] = std::stoi(w.at(1));
        EXPECT_EQ(w.at(0), "wire");
      } else if (tok == "$enddefinitions") {
        read_to_end(w);
        defs_done = true;
      } else if (tok[0] == '$') {
        read_to_end(w);
      }
      continue;
    }
    if (tok == "$dumpvars") {
      in_dumpvars = true;
    } else if (tok == "$end") {
      in_dumpvars = false;
    } else if (tok[0] == '#') {
      now = std::stoll(tok.substr(1));
      d.stamps.push_back(now);
    } else if (tok[0] == 'b') {
      std::string id;
      in >> id;
      uint64_t v = 0;
      for (char c : tok.substr(1)) {
        EXPECT_TRUE(c == '0' || c == '1') << tok;
        v = v << 1 | static_cast<uint64_t>(c == '1');
      }
      const std::string& path = d.path_of_id.at(id);
      d.changes[path].push_back({now, static_cast<int64_t>(v)});
      if (in_dumpvars) d.dumpvars.insert(path);
    } else {
      ADD_FAILURE() << "unexpected VCD token " << tok;
    }
  }
  return d;
}

int64_t value_at(const std::vector<vcd_change>& ch, int64_t t) {
  int64_t v = INT64_MIN;
  for (const auto& c : ch)
    if (c.t_ps <= t) v = c.value;
  return v;
}

flow_record flow(uint32_t id, uint64_t size, double start_s, double fct_s, double ideal_s, uint32_t retx = 0) {
  flow_record f;
  f.id = id;
  f.src = id % 7;
  f.dst = id % 5 + 10;
  f.size_bytes = size;
  f.start_s = start_s;
  f.fct_s = fct_s;
  f.ideal_fct_s = ideal_s;
  f.retransmitted_packets = retx;
  f.path_changes = id % 3;
  f.out_of_order_packets = id % 11;
  f.max_reorder_packets = id % 4;
  return f;
}

std::vector<flow_record> sample_flows() {
  std::vector<flow_record> flows;
  for (uint32_t i = 0; i < 400; ++i) {
    uint64_t size = 100ull << (i % 12);                  // 100 B .. 204,800 B
    double ideal = 1e-6 + static_cast<double>(size) * 8 / 100e9;
    double fct = i % 50 == 49 ? -1 : ideal * (1.0 + (i % 10) * 0.3);
    flows.push_back(flow(i, size, i * 1.25e-7, fct, ideal, i % 3));
  }
  return flows;
}

}  // namespace

// ---------------------------------------------------------------- VCD / GTKWave

TEST(Vcd, RoundTripGivesEverySampleAndOnlyChanges) {
  probe_set p = sample_probes();
  std::ostringstream out;
  write_vcd(out, p);
  vcd_doc d = parse_vcd(out.str());

  EXPECT_FALSE(d.has_date);   // deterministic output
  EXPECT_EQ(d.timescale, "1ps");
  ASSERT_EQ(d.path_of_id.size(), p.series.size());
  for (const auto& [id, w] : d.width_of_id) EXPECT_EQ(w, 64) << id;
  for (size_t i = 1; i < d.stamps.size(); ++i) EXPECT_GT(d.stamps[i], d.stamps[i - 1]);

  for (const auto& s : p.series) {
    std::string path = vcd_signal_path(s);
    ASSERT_TRUE(d.changes.count(path)) << path;
    EXPECT_TRUE(d.dumpvars.count(path)) << path;
    const auto& ch = d.changes[path];
    for (size_t i = 0; i < p.t_s.size(); ++i) {
      int64_t ps = std::llround(p.t_s[i] * 1e12);
      EXPECT_EQ(value_at(ch, ps), s.samples[i]) << path << " at sample " << i << " (" << ps << " ps)";
    }
    for (size_t k = 1; k < ch.size(); ++k) EXPECT_NE(ch[k].value, ch[k - 1].value) << path << " repeats a value";
  }
  EXPECT_EQ(d.changes["leaf0.buffer.used_bytes"].size(), 1u);   // constant: only $dumpvars
  EXPECT_EQ(d.changes["leaf0.port1.qdepth_bytes"].size(), p.t_s.size());
  // Scopes: one per device, name parts nested, unit appended to the variable.
  EXPECT_EQ(vcd_signal_path(p.series[0]), "leaf0.port0.qdepth_bytes");
  EXPECT_EQ(vcd_signal_path(p.series[2]), "spine0.credits");
  EXPECT_EQ(count(out.str(), "$scope module leaf0 $end"), 1u);
  // The trace ends one interval after the last sample.
  EXPECT_EQ(d.stamps.back(), std::llround((p.t_s.back() + p.interval_s) * 1e12));
}

TEST(Vcd, RejectsInconsistentProbeSets) {
  probe_set p = sample_probes();
  p.series[1].samples.pop_back();
  std::ostringstream out;
  EXPECT_THROW(write_vcd(out, p), std::invalid_argument);
  p = sample_probes();
  std::swap(p.t_s[3], p.t_s[4]);
  EXPECT_THROW(write_vcd(out, p), std::invalid_argument);
}

TEST(Vcd, EmptyProbeSetIsStillAValidHeader) {
  std::ostringstream out;
  write_vcd(out, probe_set{});
  EXPECT_NE(out.str().find("$enddefinitions $end"), std::string::npos);
  EXPECT_EQ(out.str().find('#'), std::string::npos);
}

TEST(Gtkw, GroupsPerDeviceWithAnalogDecimalTraces) {
  probe_set p = sample_probes();
  std::ostringstream out;
  write_gtkw(out, "probes.vcd", p, "probes.gtkw");
  const std::string g = out.str();
  EXPECT_NE(g.find("[dumpfile] \"probes.vcd\"\n"), std::string::npos);
  EXPECT_NE(g.find("[savefile] \"probes.gtkw\"\n"), std::string::npos);
  EXPECT_NE(g.find("@800200\n-leaf0\n"), std::string::npos);
  EXPECT_NE(g.find("@1000200\n-leaf0\n"), std::string::npos);
  EXPECT_NE(g.find("@800200\n-spine0\n"), std::string::npos);
  // Each trace: the last "@" flags before it must have analog step and decimal (or signed).
  for (const auto& s : p.series) {
    std::string name = vcd_signal_path(s) + "[63:0]\n";
    size_t at = g.find(name);
    ASSERT_NE(at, std::string::npos) << name;
    size_t flags_at = g.rfind("\n@", at);
    unsigned flags = std::stoul(g.substr(flags_at + 2, g.find('\n', flags_at + 1) - flags_at - 2), nullptr, 16);
    EXPECT_TRUE(flags & 0x8000) << name << " is not an analog step trace";
    EXPECT_TRUE(flags & (0x4 | 0x400)) << name << " is not decimal";
  }
  // spine0.credits goes negative: signed decimal.
  size_t at = g.find("spine0.credits[63:0]");
  size_t flags_at = g.rfind("\n@", at);
  EXPECT_TRUE(std::stoul(g.substr(flags_at + 2, 8), nullptr, 16) & 0x400);
}

// ---------------------------------------------------------------- CSV

TEST(Csv, FlowsRoundTrip) {
  temp_dir dir("flows");
  std::vector<flow_record> flows = {flow(1, 1500, 1.000000000001e-3, 12.345678901e-6, 3.3e-6, 2),
                                    flow(2, 9000000000ull, 0, -1, 1e-3, 0),
                                    flow(4294967295u, 64, 2.5e-12, 1e-12, 1e-12, 4294967295u)};
  write_flows_csv((dir.path / "flows.csv").string(), flows);
  auto lines = split(slurp(dir.path / "flows.csv"), '\n');
  ASSERT_EQ(lines.size(), flows.size() + 2);   // header, rows, final newline
  EXPECT_EQ(lines[0], "id,src,dst,size_bytes,start_us,fct_us,ideal_fct_us,slowdown,retransmitted_packets,path_changes,"
                      "out_of_order_packets,max_reorder_packets");
  EXPECT_EQ(lines.back(), "");
  for (size_t i = 0; i < flows.size(); ++i) {
    const auto& f = flows[i];
    auto c = split(lines[i + 1], ',');
    ASSERT_EQ(c.size(), 12u) << lines[i + 1];
    EXPECT_EQ(std::stoul(c[0]), f.id);
    EXPECT_EQ(std::stoul(c[1]), f.src);
    EXPECT_EQ(std::stoul(c[2]), f.dst);
    EXPECT_EQ(std::stoull(c[3]), f.size_bytes);
    EXPECT_NEAR(std::stod(c[4]) * 1e-6, f.start_s, 0.51e-12);   // exact to the picosecond
    EXPECT_NEAR(std::stod(c[6]) * 1e-6, f.ideal_fct_s, 0.51e-12);
    EXPECT_EQ(std::stoul(c[8]), f.retransmitted_packets);
    EXPECT_EQ(std::stoul(c[9]), f.path_changes);
    EXPECT_EQ(std::stoul(c[10]), f.out_of_order_packets);
    EXPECT_EQ(std::stoul(c[11]), f.max_reorder_packets);
    if (f.fct_s < 0) {
      EXPECT_EQ(c[5], "");
      EXPECT_EQ(c[7], "");
    } else {
      EXPECT_NEAR(std::stod(c[5]) * 1e-6, f.fct_s, 0.51e-12);
      EXPECT_NEAR(std::stod(c[7]), f.slowdown(), 1e-6);
    }
  }
}

TEST(Csv, ProbesWideFormat) {
  temp_dir dir("probes");
  probe_set p = sample_probes();
  write_probes_csv((dir.path / "probes.csv").string(), p);
  auto lines = split(slurp(dir.path / "probes.csv"), '\n');
  ASSERT_EQ(lines.size(), p.t_s.size() + 2);
  EXPECT_EQ(lines[0], "time_us,leaf0.port0.qdepth_bytes,leaf0.port1.qdepth_bytes,spine0.credits,leaf0.buffer.used_bytes");
  for (size_t i = 0; i < p.t_s.size(); ++i) {
    auto c = split(lines[i + 1], ',');
    ASSERT_EQ(c.size(), p.series.size() + 1);
    EXPECT_NEAR(std::stod(c[0]) * 1e-6, p.t_s[i], 0.51e-12);
    for (size_t s = 0; s < p.series.size(); ++s) EXPECT_EQ(std::stoll(c[s + 1]), p.series[s].samples[i]);
  }
}

TEST(Csv, EscapesOnlyWhenNeeded) {
  EXPECT_EQ(csv_escape("leaf0.port3"), "leaf0.port3");
  EXPECT_EQ(csv_escape("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_escape("say \"hi\""), "\"say \"\"hi\"\"\"");
}

// ---------------------------------------------------------------- report helpers

TEST(Report, FormatsValuesWithUnits) {
  using nlohmann::json;
  EXPECT_EQ(format_value("fct_us.p99", json(1520.0)), "1.52 ms");
  EXPECT_EQ(format_value("sim_time_s", json(0.003)), "3 ms");
  EXPECT_EQ(format_value("wall_time_s", json(1.5)), "1.5 s");
  EXPECT_EQ(format_value("drops_bytes", json(1500000)), "1,500,000 bytes (1.5 MB)");
  EXPECT_EQ(format_value("queue.peak_bytes", json(512)), "512 bytes");
  EXPECT_EQ(format_value("events_per_s", json(3.2e6)), "3.2 Mevents/s");
  EXPECT_EQ(format_value("packet_hops_per_s", json(4.5e6)), "4.5 Mhops/s");
  EXPECT_EQ(format_value("samples_per_s", json(2e3)), "2 k/s");   // not a known noun: rate only
  EXPECT_EQ(format_value("fct_slowdown.p50", json(1.42)), "1.42×");
  EXPECT_EQ(format_value("flows.completed", json(2969)), "2,969 flows");
  EXPECT_EQ(format_value("utilization_pct", json(73.25)), "73.2 %");
  EXPECT_EQ(format_value("ok", json(true)), "yes");
  EXPECT_EQ(unit_of_key("fct_us.p50"), "us");
  EXPECT_EQ(unit_of_key("link_rate_gbps"), "Gb/s");
  EXPECT_EQ(unit_of_key("seed"), "");
}

TEST(Report, FlattensJsonInKeyOrder) {
  nlohmann::json j = {{"b", {{"y", 2}, {"x", 1}}}, {"a", "s"}, {"l", {1, 2}}, {"o", {{{"k", 3}}}}};
  auto flat = flatten_json(j);
  std::vector<std::string> keys;
  for (const auto& kv : flat) keys.push_back(kv.first);
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "b.x", "b.y", "l", "o.0.k"}));
}

TEST(Report, PercentileInterpolates) {
  std::vector<double> v = {1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(percentile(v, 0.5), 3);
  EXPECT_DOUBLE_EQ(percentile(v, 0.0), 1);
  EXPECT_DOUBLE_EQ(percentile(v, 1.0), 5);
  EXPECT_DOUBLE_EQ(percentile(v, 0.125), 1.5);
  EXPECT_TRUE(std::isnan(percentile({}, 0.5)));
}

TEST(Report, SizeBinsKeepSizesTogether) {
  auto flows = sample_flows();
  auto bins = slowdown_by_size(flows, 5);
  ASSERT_FALSE(bins.empty());
  EXPECT_LE(bins.size(), 5u);
  size_t total = 0;
  for (size_t i = 0; i < bins.size(); ++i) {
    total += bins[i].flows;
    EXPECT_LE(bins[i].p50, bins[i].p95);
    EXPECT_LE(bins[i].p95, bins[i].p99);
    EXPECT_GE(bins[i].p50, 1.0);
    if (i > 0) {
      EXPECT_LT(bins[i - 1].max_bytes, bins[i].min_bytes);   // no size in two bins
    }
  }
  EXPECT_EQ(total, 392u);   // 400 flows, 8 incomplete
  // Few distinct sizes: one bin each, exact percentiles.
  std::vector<flow_record> two = {flow(0, 10, 0, 2e-6, 1e-6), flow(1, 10, 0, 4e-6, 1e-6), flow(2, 20, 0, 3e-6, 1e-6)};
  bins = slowdown_by_size(two, 10);
  ASSERT_EQ(bins.size(), 2u);
  EXPECT_EQ(bins[0].flows, 2u);
  EXPECT_DOUBLE_EQ(bins[0].p50, 3.0);
  EXPECT_DOUBLE_EQ(bins[1].p99, 3.0);
  EXPECT_TRUE(slowdown_by_size({flow(0, 10, 0, -1, 1e-6)}).empty());
}

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
  s.series.push_back({"a", {0, 1, 10}, {5, 6, 7}, "lines"});
  s.series.push_back({"empty on log x", {-1}, {2}, "lines"});
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
  // 25 to 35). Percentiles interpolate between ranks: p95 at rank 33.25 = 900 + 0.25 x 100, p99
  // at rank 34.65 = 1000 + 0.65 x 100.
  EXPECT_NE(html.find("36 samples of 12 queues: p50 0 bytes, p95 925 bytes, p99 1065 bytes."), std::string::npos);
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

// ---------------------------------------------------------------- sweep

TEST(Sweep, ExpandGridIsTheCartesianProduct) {
  auto points = expand_grid({"topology.leaves=2,4,8", "workload.load=0.3,0.5"});
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[0], (grid_point{{"topology.leaves", "2"}, {"workload.load", "0.3"}}));
  EXPECT_EQ(points[1], (grid_point{{"topology.leaves", "2"}, {"workload.load", "0.5"}}));
  EXPECT_EQ(points[5], (grid_point{{"topology.leaves", "8"}, {"workload.load", "0.5"}}));
  std::set<grid_point> unique(points.begin(), points.end());
  EXPECT_EQ(unique.size(), 6u);
  EXPECT_EQ(expand_grid({}).size(), 1u);
  EXPECT_EQ(expand_grid({"a=x"}), (std::vector<grid_point>{{{"a", "x"}}}));
}

TEST(Sweep, GridErrorsNameTheArgument) {
  for (const std::string bad : {"leaves", "=1,2", "leaves=", "leaves=1,,2", "leaves=1,", "leaves=2,2", "le aves=1",
                                "seed=one"}) {
    try {
      expand_grid({"ok=1", bad});
      ADD_FAILURE() << "accepted --grid " << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("--grid '" + bad + "'"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(expand_grid({"a=1", "a=2"}), std::invalid_argument);
}

TEST(Sweep, PointCommandLine) {
  sweep_options o;
  o.netasic_exe = "bin/netasic";
  o.scenario = "s.toml";
  o.sets = {"sim.time_us=10"};
  o.seed = 5;
  auto argv = point_command(o, {{"topology.leaves", "4"}}, "out/point-002");
  EXPECT_EQ(argv, (std::vector<std::string>{"bin/netasic", "run", "s.toml", "--set", "sim.time_us=10", "--set",
                                            "topology.leaves=4", "--seed", "5", "--out", "out/point-002", "--quiet"}));
  o.seed.reset();
  argv = point_command(o, {{"seed", "9"}}, "d");
  EXPECT_EQ(argv[argv.size() - 5], "--seed");
  EXPECT_EQ(argv[argv.size() - 4], "9");
  EXPECT_EQ(point_dir_name(3, 12), "point-003");
  EXPECT_EQ(point_dir_name(42, 1200), "point-0042");
  EXPECT_EQ(shell_quote("a b'c"), "'a b'\\''c'");
  EXPECT_EQ(shell_quote("x=1.5"), "x=1.5");
}

TEST(Sweep, RunsPointsAndGathersSummaries) {
  temp_dir dir("sweep");
  // A stand-in for `netasic run`: load=0.9 fails, other points write a summary.json.
  fs::path exe = dir.path / "fake-netasic";
  {
    std::ofstream f(exe);
    f << "#!/bin/sh\n"
         "out=; leaves=; load=\n"
         "while [ $# -gt 0 ]; do case $1 in\n"
         "  --set) case $2 in leaves=*) leaves=${2#*=};; load=*) load=${2#*=};; esac; shift 2;;\n"
         "  --out) out=$2; shift 2;; *) shift;; esac; done\n"
         "echo \"point leaves=$leaves load=$load\" >&2\n"
         "[ \"$load\" = 0.9 ] && { echo 'diverged' >&2; exit 3; }\n"
         "echo \"{\\\"fct_slowdown\\\": {\\\"p50\\\": $leaves, \\\"p99\\\": $load}, \\\"note\\\": \\\"x\\\"}\" > $out/summary.json\n";
  }
  fs::permissions(exe, fs::perms::owner_all);
  sweep_options o;
  o.netasic_exe = exe.string();
  o.scenario = "s.toml";
  o.grid = {"leaves=1,10,100", "load=0.5,0.9"};
  o.out_dir = (dir.path / "out").string();
  o.jobs = 2;
  o.quiet = true;
  EXPECT_EQ(run_sweep(o), 1);   // three points fail
  auto lines = split(slurp(dir.path / "out" / "sweep.csv"), '\n');
  ASSERT_EQ(lines.size(), 8u);
  EXPECT_EQ(lines[0], "point,leaves,load,status,fct_slowdown.p50,fct_slowdown.p99");
  EXPECT_EQ(lines[1], "1,1,0.5,ok,1,0.5");
  EXPECT_EQ(lines[2], "2,1,0.9,exit 3,,");
  EXPECT_EQ(lines[5], "5,100,0.5,ok,100,0.5");
  EXPECT_NE(slurp(dir.path / "out" / "point-002" / "log.txt").find("diverged"), std::string::npos);
  std::string html = slurp(dir.path / "out" / "sweep.html");
  EXPECT_EQ(count(html, "<svg"), 2u);   // one plot per metric
  EXPECT_EQ(html.find("http"), std::string::npos);

  // Emitting writes job files and runs nothing.
  o.emit = "parallel";
  o.out_dir = (dir.path / "emit").string();
  EXPECT_EQ(run_sweep(o), 0);
  auto jobs = split(slurp(dir.path / "emit" / "jobs.txt"), '\n');
  EXPECT_EQ(jobs.size(), 7u);
  EXPECT_NE(jobs[0].find("--set leaves=1 --set load=0.5"), std::string::npos) << jobs[0];
  EXPECT_FALSE(fs::exists(dir.path / "emit" / "point-001" / "summary.json"));
  o.emit = "slurm";
  EXPECT_EQ(run_sweep(o), 0);
  EXPECT_NE(slurp(dir.path / "emit" / "sweep.slurm").find("#SBATCH --array=1-6%2"), std::string::npos);

  // Bad options: exit code 2, nothing run.
  o.emit = "";
  o.grid = {"leaves"};
  EXPECT_EQ(run_sweep(o), 2);
}
