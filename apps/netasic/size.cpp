#include "size.h"
#include "cli.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "common/file_io.h"
#include "common/params.h"
#include "common/stats.h"
#include "common/text.h"
#include "output/csv.h"
#include "output/format.h"
#include "output/plot.h"
#include "output/report.h"
#include "run/resources_report.h"
#include "run/run.h"
#include "scenario/scenario.h"
#include "sweep.h"
#include "synth.h"

namespace netasic {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (c == sep) out.emplace_back();
    else out.back() += c;
  }
  return out;
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// A whole string as a finite number.
std::optional<double> number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

bool metric_key(const std::string& k) {
  return !k.empty() && k.front() != '.' && k.back() != '.' && k.find("..") == std::string::npos &&
         std::all_of(k.begin(), k.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; });
}

// The right-hand side without blanks: NUMBER, or [F*]ref[*F][+C|-C].
void parse_rhs(const std::string& rhs, size_goal& g, const std::function<std::invalid_argument(const std::string&)>& bad) {
  const size_t at = rhs.find("ref");
  if (at == std::string::npos) {
    const auto v = number(rhs);
    if (!v) throw bad(fmt::format("'{}' is not a number nor an expression of ref", rhs));
    g.offset = *v;
    return;
  }
  g.uses_ref = true;
  g.factor = 1;
  const std::string pre = rhs.substr(0, at);
  std::string post = rhs.substr(at + 3);
  if (!pre.empty()) {
    const auto f = pre.back() == '*' ? number(pre.substr(0, pre.size() - 1)) : std::nullopt;
    if (!f) throw bad(fmt::format("'{}' before ref: expected NUMBER *", pre));
    g.factor = *f;
  }
  if (!post.empty() && post.front() == '*') {
    size_t end = std::string::npos;   // the first + or - that is not an exponent's sign
    for (size_t i = 2; i < post.size() && end == std::string::npos; ++i)
      if ((post[i] == '+' || post[i] == '-') && post[i - 1] != 'e' && post[i - 1] != 'E') end = i;
    const auto f = number(post.substr(1, end == std::string::npos ? std::string::npos : end - 1));
    if (!f) throw bad(fmt::format("'{}' after ref: expected * NUMBER", post));
    g.factor *= *f;
    post = end == std::string::npos ? "" : post.substr(end);
  }
  if (!post.empty()) {
    const auto c = post.size() > 1 && (post.front() == '+' || post.front() == '-') ? number(post.substr(1)) : std::nullopt;
    if (!c) throw bad(fmt::format("'{}' after ref: expected + NUMBER or - NUMBER", post));
    g.offset = post.front() == '-' ? -*c : *c;
  }
}

}  // namespace

size_goal parse_goal(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return std::invalid_argument(fmt::format("--goal '{}': {} (expected METRIC OP VALUE, OP one of <= < >= >, "
                                             "VALUE a number or e.g. 1.05 * ref)", text, why));
  };
  size_goal g;
  g.text = text;
  const size_t op_at = text.find_first_of("<>=!");
  if (op_at == std::string::npos) throw bad("no comparison operator");
  const size_t op_end = text.find_first_not_of("<>=!", op_at);
  const std::string op = text.substr(op_at, op_end - op_at);
  static const std::map<std::string, goal_op> ops = {{"<=", goal_op::le}, {"<", goal_op::lt}, {">=", goal_op::ge}, {">", goal_op::gt}};
  auto it = ops.find(op);
  if (it == ops.end()) throw bad(fmt::format("unknown operator '{}'", op));
  g.op = it->second;
  g.metric = trim(text.substr(0, op_at));
  if (!metric_key(g.metric)) throw bad(fmt::format("'{}' is not a summary.json metric name", g.metric));
  std::string rhs;
  for (char c : text.substr(op_end == std::string::npos ? text.size() : op_end))
    if (c != ' ' && c != '\t') rhs += c;
  if (rhs.empty()) throw bad("nothing after the operator");
  parse_rhs(rhs, g, bad);
  return g;
}

verdict decide(const size_goal& g, double lo, double hi, double t) {
  switch (g.op) {
    case goal_op::le: return hi <= t ? verdict::met : lo > t ? verdict::not_met : verdict::undecided;
    case goal_op::lt: return hi < t ? verdict::met : lo >= t ? verdict::not_met : verdict::undecided;
    case goal_op::ge: return lo >= t ? verdict::met : hi < t ? verdict::not_met : verdict::undecided;
    case goal_op::gt: return lo > t ? verdict::met : hi <= t ? verdict::not_met : verdict::undecided;
  }
  return verdict::undecided;
}

const char* verdict_name(verdict v) {
  return v == verdict::met ? "met" : v == verdict::not_met ? "not met" : "undecided";
}

search_result smallest_meeting(size_t n, const std::function<verdict(size_t)>& evaluate) {
  search_result r;
  if (n == 0) return r;
  auto eval = [&](size_t i) {
    const verdict v = evaluate(i);
    r.steps.push_back({i, v});
    return v == verdict::met;
  };
  if (!eval(n - 1)) return r;
  // Invariant: hi meets the goals; every index below lo was shown not to (or not decided).
  size_t lo = 0, hi = n - 1;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (eval(mid)) hi = mid;
    else lo = mid + 1;
  }
  r.chosen = hi;
  return r;
}

std::vector<std::pair<size_t, size_t>> monotonicity_violations(const size_goal& g,
                                                               const std::map<size_t, std::pair<double, double>>& ci) {
  const bool lower_is_better = g.op == goal_op::le || g.op == goal_op::lt;
  std::vector<std::pair<size_t, size_t>> out;
  for (auto a = ci.begin(); a != ci.end(); ++a)
    for (auto b = std::next(a); b != ci.end(); ++b) {
      const bool worse = lower_is_better ? b->second.first > a->second.second : b->second.second < a->second.first;
      if (worse) out.emplace_back(a->first, b->first);
    }
  return out;
}

std::vector<double> parse_values(const std::string& list) {
  std::vector<double> v;
  for (const std::string& s : split(list, ',')) {
    const auto x = number(trim(s));
    if (!x) throw std::invalid_argument(fmt::format("--values '{}': '{}' is not a number", list, s));
    v.push_back(*x);
  }
  std::sort(v.begin(), v.end());
  if (std::adjacent_find(v.begin(), v.end()) != v.end())
    throw std::invalid_argument(fmt::format("--values '{}': a value is given twice", list));
  return v;
}

std::vector<double> pow2_range(const std::string& range) {
  const size_t dots = range.find("..");
  auto bad = [&](const std::string& why) {
    return std::invalid_argument(fmt::format("--pow2 '{}': {} (expected MIN..MAX, both powers of two, e.g. 1024..65536)", range, why));
  };
  if (dots == std::string::npos) throw bad("no '..'");
  const auto lo = number(range.substr(0, dots)), hi = number(range.substr(dots + 2));
  auto pow2 = [](std::optional<double> x) { return x && *x >= 1 && *x <= 9007199254740992.0 && std::exp2(std::round(std::log2(*x))) == *x; };
  if (!pow2(lo) || !pow2(hi)) throw bad("an end is not a power of two");
  if (*lo > *hi) throw bad("MIN is above MAX");
  std::vector<double> v;
  for (double x = *lo; x <= *hi; x *= 2) v.push_back(x);
  return v;
}


std::string closest_name(const std::string& name, const std::set<std::string>& names) {
  std::string best;
  size_t best_d = SIZE_MAX;
  for (const auto& n : names)
    if (const size_t d = edit_distance(name, n); d < best_d) best = n, best_d = d;
  return best;
}


namespace {

using nlohmann::json;

// One candidate value: its runs and what they say about each goal.
struct point_eval {
  double value = 0;
  std::vector<uint64_t> seeds;
  std::vector<run_outcome> runs;
  std::map<std::string, sample_spread> agg;
  std::vector<verdict> goal_verdicts;
  verdict overall = verdict::undecided;
  bool evaluated = false;
  std::optional<synth_result> synth;
};

// The state of one `netasic size`.
struct sizing {
  size_options opt;
  const param_def* def = nullptr;
  std::vector<size_goal> goals;
  std::vector<point_eval> points;   // one per candidate, ascending
  bool uses_ref = false;
  std::vector<uint64_t> first_seeds;
  std::map<std::string, sample_spread> ref;
  std::vector<double> thresholds;   // per goal
  std::string synth_note;           // why there are no Yosys figures, "" when there are
  fs::path out;
};

std::string value_text(const sizing& z, double v) {
  return z.def->type == param_type::integer ? fmt::format("{}", int64_t(v)) : fmt::format("{:g}", v);
}

std::vector<std::string> point_sets(const sizing& z, double v) {
  std::vector<std::string> s = z.opt.sets;
  s.push_back(z.opt.param + "=" + value_text(z, v));
  return s;
}

std::vector<std::string> ref_sets(const sizing& z) {
  std::vector<std::string> s = z.opt.sets;
  s.insert(s.end(), z.opt.refs.begin(), z.opt.refs.end());
  return s;
}

// Keeps std::cerr quiet while it lives (the dry elaboration's warnings are not the user's).
struct cerr_silence {
  std::ostringstream sink;
  std::streambuf* saved = std::cerr.rdbuf(sink.rdbuf());
  ~cerr_silence() { std::cerr.rdbuf(saved); }
};

// The metrics a run of this configuration writes: the scenario elaborated and run for 1 ns (no
// flow starts), in this process. Arrays that fill with the run ("fct_slowdown_by_size") accept
// any index. Returns the names and the array prefixes.
std::pair<std::set<std::string>, std::set<std::string>> metric_names(const sizing& z) {
  std::vector<std::string> sets = z.uses_ref ? ref_sets(z) : point_sets(z, z.points.back().value);
  sets.insert(sets.end(), {"sim.duration=0.001", "sim.drain=0"});
  json summary;
  {
    cerr_silence quiet;
    summary = run_scenario(load_scenario(z.opt.scenario, sets), progress_mode::none).summary;
  }
  std::set<std::string> names, arrays;
  for (const auto& [key, value] : flatten_json(summary)) {
    if (value.is_number()) names.insert(key);
    if (value.is_array()) arrays.insert(key);
    const auto parts = split(key, '.');
    std::string prefix;
    for (const auto& p : parts) {
      if (!p.empty() && std::all_of(p.begin(), p.end(), ::isdigit)) arrays.insert(prefix);
      prefix += (prefix.empty() ? "" : ".") + p;
    }
  }
  return {names, arrays};
}

void check_metrics(const sizing& z) {
  const auto [names, arrays] = metric_names(z);
  for (const auto& g : z.goals) {
    if (names.count(g.metric)) continue;
    const auto parts = split(g.metric, '.');
    bool in_array = false;
    std::string prefix;
    for (size_t i = 0; i + 1 < parts.size() && !in_array; ++i) {
      in_array = std::all_of(parts[i].begin(), parts[i].end(), ::isdigit) && !parts[i].empty() && arrays.count(prefix);
      prefix += (prefix.empty() ? "" : ".") + parts[i];
    }
    if (in_array) continue;
    const std::string near = closest_name(g.metric, names);
    throw std::invalid_argument(fmt::format("--goal '{}': summary.json has no metric '{}'{}", g.text, g.metric,
                                            near.empty() ? "" : fmt::format("; the closest is '{}'", near)));
  }
}

// Everything that can be wrong with the command, found before any run. Throws
// std::invalid_argument or config_error.
void check_input(sizing& z) {
  const size_options& o = z.opt;
  if (o.goals.empty()) throw std::invalid_argument("no --goal given");
  for (const auto& g : o.goals) z.goals.push_back(parse_goal(g));
  z.uses_ref = std::any_of(z.goals.begin(), z.goals.end(), [](const size_goal& g) { return g.uses_ref; });
  if (z.uses_ref && o.refs.empty())
    throw std::invalid_argument("a --goal uses ref, but no --ref key=value says what the reference run is");
  if (!z.uses_ref && !o.refs.empty()) throw std::invalid_argument("--ref is given, but no --goal uses ref");
  z.def = all_params().find(o.param);
  if (!z.def) {
    const std::string near = all_params().closest_key(o.param);
    throw std::invalid_argument(fmt::format("--param '{}': no such key{}", o.param, near.empty() ? "" : "; did you mean '" + near + "'?"));
  }
  if (z.def->type != param_type::integer && z.def->type != param_type::real)
    throw std::invalid_argument(fmt::format("--param '{}': not a number (it is a {} key); size searches numeric keys",
                                            o.param, z.def->type == param_type::choice ? "choice" : "non-numeric"));
  if (o.values.empty() == o.pow2.empty()) throw std::invalid_argument("give exactly one of --values and --pow2");
  const std::vector<double> values = o.values.empty() ? pow2_range(o.pow2) : parse_values(o.values);
  for (double v : values) {
    if (z.def->type == param_type::integer && v != std::floor(v))
      throw std::invalid_argument(fmt::format("--values: {} is not an integer, and {} is an integer key", v, o.param));
    point_eval p;
    p.value = v;
    z.points.push_back(p);
  }
  if (o.seeds < 2) throw std::invalid_argument("--seeds: at least 2, so that each point has a confidence interval");
  for (const auto& r : o.refs)
    if (r.find('=') == std::string::npos) throw std::invalid_argument(fmt::format("--ref '{}': expected key=value", r));
  // Every configuration the search may run is loaded (and so checked) now.
  for (const auto& p : z.points) load_scenario(o.scenario, point_sets(z, p.value));
  if (z.uses_ref) load_scenario(o.scenario, ref_sets(z));
  check_metrics(z);
}

std::vector<run_outcome> run_seeds(const sizing& z, const std::vector<std::string>& sets, const fs::path& dir,
                                   const std::vector<uint64_t>& seeds, const std::string& label) {
  std::vector<run_job> jobs;
  for (uint64_t s : seeds) {
    run_job j;
    j.argv = {z.opt.netasic_exe, "run", z.opt.scenario};
    for (const auto& k : sets) j.argv.insert(j.argv.end(), {"--set", k});
    const fs::path d = dir / fmt::format("seed-{}", s);
    j.argv.insert(j.argv.end(), {"--seed", std::to_string(s), "--out", d.string(), "--quiet"});
    j.dir = d.string();
    j.label = fmt::format("{} seed={}", label, s);
    jobs.push_back(std::move(j));
  }
  auto runs = run_jobs(jobs, z.opt.jobs, z.opt.quiet);
  for (size_t i = 0; i < runs.size(); ++i)
    if (!runs[i].ok())
      throw std::runtime_error(fmt::format("the run {} failed ({}); see {}/log.txt", jobs[i].label, runs[i].status, jobs[i].dir));
  return runs;
}

const sample_spread& metric_of(const std::map<std::string, sample_spread>& agg, const std::string& metric,
                               const std::string& where) {
  auto it = agg.find(metric);
  if (it == agg.end()) throw std::runtime_error(fmt::format("the runs of {} have no metric '{}'", where, metric));
  return it->second;
}

void run_reference(sizing& z) {
  if (z.uses_ref) {
    std::vector<run_outcome> runs = run_seeds(z, ref_sets(z), z.out / "ref", z.first_seeds, "ref");
    z.ref = aggregate_runs(runs, z.opt.confidence);
  }
  for (const auto& g : z.goals) z.thresholds.push_back(g.uses_ref ? g.threshold(metric_of(z.ref, g.metric, "the reference").mean) : g.offset);
}

// Runs a candidate's seeds and decides it; an undecided goal doubles the seeds while
// max_seeds allows.
verdict evaluate(sizing& z, size_t i) {
  point_eval& p = z.points[i];
  const std::string label = z.opt.param + "=" + value_text(z, p.value);
  const fs::path dir = z.out / label;
  std::vector<uint64_t> next = z.first_seeds;
  for (;;) {
    auto runs = run_seeds(z, point_sets(z, p.value), dir, next, label);
    p.seeds.insert(p.seeds.end(), next.begin(), next.end());
    p.runs.insert(p.runs.end(), runs.begin(), runs.end());
    p.agg = aggregate_runs(p.runs, z.opt.confidence);
    p.goal_verdicts.clear();
    bool any_not = false, any_undecided = false;
    for (size_t g = 0; g < z.goals.size(); ++g) {
      const sample_spread& s = metric_of(p.agg, z.goals[g].metric, label);
      p.goal_verdicts.push_back(decide(z.goals[g], s.ci_low(), s.ci_high(), z.thresholds[g]));
      any_not = any_not || p.goal_verdicts.back() == verdict::not_met;
      any_undecided = any_undecided || p.goal_verdicts.back() == verdict::undecided;
    }
    p.overall = any_not ? verdict::not_met : any_undecided ? verdict::undecided : verdict::met;
    p.evaluated = true;
    const size_t n = p.seeds.size();
    if (p.overall != verdict::undecided || 2 * n > z.opt.max_seeds) break;
    next = replicate_seeds(z.first_seeds.front() + n, unsigned(n));
  }
  if (!z.opt.quiet)
    std::cerr << fmt::format("size: {} over {} seeds: {}\n", label, p.seeds.size(), verdict_name(p.overall));
  return p.overall;
}

}  // namespace

namespace {

// Yosys at every evaluated value, when the parameter sets a Verilog parameter of a block with RTL.
void synthesize_points(sizing& z) {
  auto it = z.opt.rtl_params.find(z.opt.param);
  if (it == z.opt.rtl_params.end()) {
    z.synth_note = fmt::format("{} sets no Verilog parameter of a block with RTL (rtl/blocks.txt), so there are no "
                               "Yosys figures.", z.opt.param);
    return;
  }
  if (!z.opt.synth) {
    z.synth_note = "Yosys was not run (--no-synth).";
    return;
  }
  const auto& [block, verilog] = it->second;
  for (auto& p : z.points) {
    if (!p.evaluated) continue;
    try {
      if (!z.opt.quiet) std::cerr << fmt::format("size: Yosys on {} with {}={}\n", block, verilog, value_text(z, p.value));
      p.synth = synthesize(z.opt.rtl_dir, block, {verilog + "=" + value_text(z, p.value)});
    } catch (const std::exception& e) {
      z.synth_note = fmt::format("No Yosys figures: {}", e.what());
      for (auto& q : z.points) q.synth.reset();
      return;
    }
  }
}

// The interval of a point's metric for plots and tables (the mean itself when unknown).
std::pair<double, double> interval(const sample_spread& s) {
  return s.has_interval() ? std::pair{s.ci_low(), s.ci_high()} : std::pair{s.mean, s.mean};
}

const char* op_text(goal_op op) {
  return op == goal_op::le ? "≤" : op == goal_op::lt ? "<" : op == goal_op::ge ? "≥" : ">";
}

void write_size_csv(const sizing& z) {
  const std::string ci = ci_name(z.opt.confidence);
  std::string s = csv_escape(z.opt.param) + ",seeds,verdict";
  for (const auto& g : z.goals)
    for (const std::string& stat : std::vector<std::string>{".mean", ".min", ".max", "." + ci + "_low", "." + ci + "_high", ".threshold", ".verdict"})
      s += "," + csv_escape(g.metric + stat);
  s += ",logic_cells,flip_flops,memory_bits\n";
  auto num = [](double v) { return csv_number(v); };
  auto row = [&](const std::string& label, size_t seeds, const std::string& v, const std::map<std::string, sample_spread>& agg,
                 const std::vector<verdict>& verdicts, const std::optional<synth_result>& syn) {
    s += csv_escape(label) + fmt::format(",{},", seeds) + csv_escape(v);
    for (size_t g = 0; g < z.goals.size(); ++g) {
      auto it = agg.find(z.goals[g].metric);
      if (it == agg.end()) {
        s += ",,,,,,,";
        continue;
      }
      const auto [lo, hi] = interval(it->second);
      s += "," + num(it->second.mean) + "," + num(it->second.min) + "," + num(it->second.max) + "," + num(lo) + "," +
           num(hi) + "," + num(z.thresholds[g]) + "," + (verdicts.empty() ? "" : verdict_name(verdicts[g]));
    }
    s += syn ? fmt::format(",{},{},{}\n", syn->cells, syn->flip_flops, syn->memory_bits) : ",,,\n";
  };
  if (z.uses_ref) row("ref", z.first_seeds.size(), "reference", z.ref, {}, std::nullopt);
  for (const auto& p : z.points)
    if (p.evaluated) row(value_text(z, p.value), p.seeds.size(), verdict_name(p.overall), p.agg, p.goal_verdicts, p.synth);
  write_file((z.out / "size.csv").string(), s);
}

// One goal's plot: the metric's mean and interval against the parameter, the threshold, the
// chosen value and, on the right-hand axis, the block's Yosys figures.
plot_spec goal_plot(const sizing& z, size_t g, std::optional<size_t> chosen, int id) {
  const size_goal& goal = z.goals[g];
  plot_spec spec;
  spec.id = fmt::format("plot{}", id);
  spec.title = goal.metric + " by " + z.opt.param;
  spec.xlabel = z.def->unit.empty() ? z.opt.param : fmt::format("{} ({})", z.opt.param, z.def->unit);
  const std::string unit = unit_of_key(goal.metric);
  spec.ylabel = unit.empty() ? goal.metric : fmt::format("{} ({})", goal.metric, unit);
  spec.logx = z.points.front().value > 0 && z.points.back().value / z.points.front().value >= 100;
  plot_series m{fmt::format("mean over seeds, {:g} % interval", z.opt.confidence * 100), {}, {}, "linespoints", {}, {}, false};
  plot_series t{fmt::format("goal: {} {}", op_text(goal.op), z.thresholds[g]), {}, {}, "lines", {}, {}, false};
  plot_series c{"chosen", {}, {}, "points", {}, {}, false};
  plot_series mem{"memory bits (Yosys)", {}, {}, "linespoints", {}, {}, true};
  plot_series ff{"flip-flops (Yosys)", {}, {}, "linespoints", {}, {}, true};
  for (size_t i = 0; i < z.points.size(); ++i) {
    const point_eval& p = z.points[i];
    if (!p.evaluated) continue;
    const sample_spread& s = p.agg.at(goal.metric);
    const auto [lo, hi] = interval(s);
    m.x.push_back(p.value);
    m.y.push_back(s.mean);
    m.ylow.push_back(lo);
    m.yhigh.push_back(hi);
    if (chosen && *chosen == i) {
      c.x.push_back(p.value);
      c.y.push_back(s.mean);
    }
    if (p.synth) {
      mem.x.push_back(p.value);
      mem.y.push_back(double(p.synth->memory_bits));
      ff.x.push_back(p.value);
      ff.y.push_back(double(p.synth->flip_flops));
    }
  }
  t.x = {z.points.front().value, z.points.back().value};
  t.y = {z.thresholds[g], z.thresholds[g]};
  spec.series = {m, t};
  if (!c.x.empty()) spec.series.push_back(c);
  if (!mem.x.empty()) {
    spec.series.push_back(mem);
    spec.series.push_back(ff);
    spec.y2label = "bits (Yosys)";
    spec.logy2 = true;
  }
  return spec;
}

}  // namespace

namespace {

// A metric's figure for the table: "1.02× ± 0.01× (0.99× to 1.04×)".
std::string figure(const std::string& metric, const sample_spread& s) {
  std::string c = format_value(metric, json(s.mean));
  if (s.has_interval()) c += " ± " + format_value(metric, json(s.half_width));
  return c + " (" + format_value(metric, json(s.min)) + " to " + format_value(metric, json(s.max)) + ")";
}

std::string answer_html(const sizing& z, const search_result& r, const std::string& placement, bool fits) {
  const std::string unit = z.def->unit.empty() ? "" : " " + z.def->unit;
  std::string h;
  if (r.chosen) {
    h += "<p class=\"answer\"><b>" + html_escape(fmt::format("{} = {}{}", z.opt.param, value_text(z, z.points[*r.chosen].value), unit)) +
         "</b> is the smallest value tried that meets every goal" +
         html_escape(*r.chosen > 0 ? fmt::format("; {}{} does not ({}).", value_text(z, z.points[*r.chosen - 1].value), unit,
                                                 verdict_name(z.points[*r.chosen - 1].overall))
                                   : "; it is the smallest candidate.") + "</p>\n";
    h += "<h2>Placement on the target</h2>\n<p>" + std::string(fits ? "The program fits" : "<b>The program does not fit</b>") +
         html_escape(" the stage budget with this value (netasic resources):") + "</p>\n<pre>" + html_escape(placement) + "</pre>\n";
  } else {
    const point_eval& best = z.points.back();
    h += "<p class=\"answer\"><b>" + html_escape(fmt::format("No value from {} to {}{} meets every goal.", value_text(z, z.points.front().value),
                                                            value_text(z, best.value), unit)) + "</b> " +
         html_escape(fmt::format("The best value seen is the largest, {}{}, assuming the goals get easier to meet as "
                                 "{} grows:", value_text(z, best.value), unit, z.opt.param));
    for (size_t g = 0; g < z.goals.size(); ++g)
      h += html_escape(fmt::format(" {} is {} against {} {} ({}).", z.goals[g].metric, figure(z.goals[g].metric, best.agg.at(z.goals[g].metric)),
                                   op_text(z.goals[g].op), format_value(z.goals[g].metric, json(z.thresholds[g])),
                                   verdict_name(best.goal_verdicts[g])));
    h += "</p>\n";
  }
  return h;
}

std::string method_html(const sizing& z, const std::vector<std::string>& warnings) {
  std::string h = "<h2>How it was decided</h2>\n<ul>\n";
  auto li = [&](const std::string& t) { h += "<li>" + html_escape(t) + "</li>\n"; };
  li(fmt::format("Candidates: {} values of {} from {} to {}; searched by bisection, assuming monotonicity: a value that "
                 "meets the goals is followed by values that meet them. The largest was run first.",
                 z.points.size(), z.opt.param, value_text(z, z.points.front().value), value_text(z, z.points.back().value)));
  li(fmt::format("Each point ran seeds {} to {} (more, up to {}, while a goal was undecided). A goal is met when the "
                 "pessimistic end of the {:g} % confidence interval of the mean (Student t) meets it, not met when the "
                 "optimistic end fails it, undecided otherwise; an undecided point counts as not met.",
                 z.first_seeds.front(), z.first_seeds.back(), z.opt.max_seeds, z.opt.confidence * 100));
  for (size_t g = 0; g < z.goals.size(); ++g) {
    std::string t = fmt::format("Goal '{}': {} {} {}", z.goals[g].text, z.goals[g].metric, op_text(z.goals[g].op),
                                format_value(z.goals[g].metric, json(z.thresholds[g])));
    if (z.goals[g].uses_ref)
      t += fmt::format(", where ref = {} is the mean of the reference runs ({})", figure(z.goals[g].metric, z.ref.at(z.goals[g].metric)),
                       fmt::format("{}", [&] { std::string r; for (const auto& k : z.opt.refs) r += (r.empty() ? "" : ", ") + k; return r; }()));
    li(t + ".");
  }
  for (const auto& w : warnings) li("Warning: " + w);
  if (warnings.empty()) li("The evaluated points are consistent with monotonicity: no larger value is significantly worse than a smaller one.");
  if (!z.synth_note.empty()) li(z.synth_note);
  return h + "</ul>\n";
}

std::string points_html(const sizing& z) {
  std::string h = "<h2>Points</h2>\n<table>\n<tr><th>" + html_escape(z.opt.param + (z.def->unit.empty() ? "" : " (" + z.def->unit + ")")) +
                   "</th><th>seeds</th><th>verdict</th>";
  for (const auto& g : z.goals) h += "<th>" + html_escape(g.metric) + "</th>";
  h += "<th>logic cells</th><th>flip-flops</th><th>memory bits</th></tr>\n";
  auto row = [&](const std::string& v, size_t seeds, const std::string& verdict_text, const std::map<std::string, sample_spread>& agg,
                 const std::vector<verdict>& verdicts, const std::optional<synth_result>& syn) {
    h += "<tr><td>" + html_escape(v) + fmt::format("</td><td>{}</td><td>", seeds) + html_escape(verdict_text) + "</td>";
    for (size_t g = 0; g < z.goals.size(); ++g)
      h += "<td>" + html_escape(figure(z.goals[g].metric, agg.at(z.goals[g].metric)) +
                                (verdicts.empty() ? "" : std::string(": ") + verdict_name(verdicts[g]))) + "</td>";
    h += syn ? fmt::format("<td>{} cells</td><td>{} bits</td><td>{} bits</td></tr>\n", group_digits(int64_t(syn->cells)),
                           group_digits(int64_t(syn->flip_flops)), group_digits(int64_t(syn->memory_bits)))
             : "<td></td><td></td><td></td></tr>\n";
  };
  if (z.uses_ref) row("reference", z.first_seeds.size(), "", z.ref, {}, std::nullopt);
  for (const auto& p : z.points)
    if (p.evaluated) row(value_text(z, p.value), p.seeds.size(), verdict_name(p.overall), p.agg, p.goal_verdicts, p.synth);
  return h + "</table>\n";
}

void write_size_html(const sizing& z, const search_result& r, const std::vector<std::string>& warnings,
                     const std::string& placement, bool fits) {
  const std::string title = "netasic size: " + z.opt.param + " for " + z.opt.scenario;
  std::string h = html_page_head(title) + "<h1>" + html_escape(title) + "</h1>\n";
  h += answer_html(z, r, placement, fits);
  for (size_t g = 0; g < z.goals.size(); ++g) {
    h += "<h2>" + html_escape(z.goals[g].text) + "</h2>\n<figure>\n" + render_svg(goal_plot(z, g, r.chosen, int(g) + 1)) +
         "\n<figcaption>" + html_escape(fmt::format("Each point: the mean over its seeds with the {:g} % confidence interval "
                                                    "as an error bar. Only the values the search evaluated are shown.",
                                                    z.opt.confidence * 100)) + "</figcaption>\n</figure>\n";
  }
  h += method_html(z, warnings) + points_html(z);
  write_file((z.out / "size.html").string(), h + "</body>\n</html>\n");
}

// Pairs of evaluated points that contradict monotonicity, as sentences.
std::vector<std::string> consistency(const sizing& z) {
  std::vector<std::string> w;
  for (const auto& g : z.goals) {
    std::map<size_t, std::pair<double, double>> ci;
    for (size_t i = 0; i < z.points.size(); ++i)
      if (z.points[i].evaluated) ci[i] = interval(z.points[i].agg.at(g.metric));
    for (const auto& [a, b] : monotonicity_violations(g, ci))
      w.push_back(fmt::format("{} is significantly worse at {}={} than at {}={}: the metric is not monotone there, so "
                              "the bisection's answer may not be the smallest value", g.metric, z.opt.param,
                              value_text(z, z.points[b].value), z.opt.param, value_text(z, z.points[a].value)));
  }
  return w;
}

}  // namespace

int run_size(const size_options& options) {
  sizing z;
  z.opt = options;
  if (z.opt.netasic_exe.empty()) z.opt.netasic_exe = running_executable();
  if (z.opt.max_seeds == 0) z.opt.max_seeds = 4 * z.opt.seeds;
  try {
    if (z.opt.out_dir.empty()) throw std::invalid_argument("no output directory given (--out)");
    if (!(z.opt.confidence > 0 && z.opt.confidence < 1)) throw std::invalid_argument("--confidence must be between 0 and 1");
    if (z.opt.max_seeds < z.opt.seeds) throw std::invalid_argument("--max-seeds is below --seeds");
    check_input(z);
    z.first_seeds = replicate_seeds(z.opt.seed.value_or(uint64_t(load_scenario(z.opt.scenario, z.opt.sets).integer("sim.seed"))), z.opt.seeds);
  } catch (const config_error& e) {
    std::cerr << "netasic size: " << e.what() << "\n";
    return exit_config;
  } catch (const std::invalid_argument& e) {
    std::cerr << "netasic size: " << e.what() << "\n";
    return exit_config;
  }
  try {
    z.out = z.opt.out_dir;
    fs::create_directories(z.out);
    run_reference(z);
    const search_result r = smallest_meeting(z.points.size(), [&](size_t i) { return evaluate(z, i); });
    synthesize_points(z);
    bool fits = true;
    std::string placement;
    if (r.chosen) placement = resources_report(load_scenario(z.opt.scenario, point_sets(z, z.points[*r.chosen].value)), fits);
    const std::vector<std::string> warnings = consistency(z);
    for (const auto& w : warnings) std::cerr << "size: warning: " << w << "\n";
    write_size_csv(z);
    write_size_html(z, r, warnings, placement, fits);
    if (!r.chosen) {
      std::cerr << fmt::format("size: no value of {} from {} to {} meets every goal; the best seen is {} (see {})\n", z.opt.param,
                               value_text(z, z.points.front().value), value_text(z, z.points.back().value),
                               value_text(z, z.points.back().value), (z.out / "size.html").string());
      return exit_never_met;
    }
    std::cout << fmt::format("{} = {}{}{}\n", z.opt.param, value_text(z, z.points[*r.chosen].value),
                             z.def->unit.empty() ? "" : " " + z.def->unit, fits ? "" : " (does not fit the stage budget)");
    if (!z.opt.quiet) std::cerr << fmt::format("size: wrote {} and {}\n", (z.out / "size.csv").string(), (z.out / "size.html").string());
    return fits ? exit_ok : exit_no_fit;
  } catch (const std::exception& e) {
    std::cerr << "netasic size: " << e.what() << "\n";
    return exit_internal;
  }
}

}  // namespace netasic
