#include "output/vcd.h"

#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "common/file_io.h"
#include "output/csv.h"

namespace netasic {

namespace {

std::string sanitize(std::string s) {
  for (char& c : s)
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '[' || c == ']' || c == '$') c = '_';
  return s.empty() ? std::string("_") : s;
}

std::vector<std::string> split_dots(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t dot = s.find('.', start);
    parts.push_back(sanitize(s.substr(start, dot - start)));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

// Scope path (device, then name parts but the last) and variable name of a series.
struct signal_parts {
  std::vector<std::string> scopes;
  std::string var;
};

signal_parts parts_of(const probe_series& s) {
  signal_parts p;
  p.scopes.push_back(sanitize(s.device));
  auto name = split_dots(s.name);
  p.var = name.back() + (s.unit.empty() ? "" : "_" + sanitize(s.unit));
  name.pop_back();
  p.scopes.insert(p.scopes.end(), name.begin(), name.end());
  return p;
}

// Short VCD identifier codes from the printable range '!'..'~'.
std::string id_code(size_t n) {
  std::string id;
  do {
    id += static_cast<char>('!' + n % 94);
    n /= 94;
  } while (n > 0);
  return id;
}

// Scope tree in first-appearance order, so the VCD lists devices as the run declared them.
struct scope_node {
  std::string name;
  std::vector<scope_node> children;
  std::vector<std::pair<std::string, size_t>> vars;   // variable name, series index

  scope_node& child(const std::string& n) {
    for (auto& c : children)
      if (c.name == n) return c;
    children.push_back(scope_node{n, {}, {}});
    return children.back();
  }
};

void write_scope(std::ostream& out, const scope_node& node, const std::vector<std::string>& ids) {
  out << "$scope module " << node.name << " $end\n";
  for (const auto& [var, index] : node.vars) out << "$var wire 64 " << ids[index] << ' ' << var << " $end\n";
  for (const auto& c : node.children) write_scope(out, c, ids);
  out << "$upscope $end\n";
}

void write_value(std::ostream& out, int64_t v, const std::string& id) {
  // Binary without leading zeros (VCD zero-extends); negative values need all 64 bits.
  char buf[66];
  char* end = buf + sizeof buf;
  char* p = end;
  auto u = static_cast<uint64_t>(v);
  do {
    *--p = static_cast<char>('0' + (u & 1));
    u >>= 1;
  } while (u != 0);
  *--p = 'b';
  out.write(p, end - p);
  out << ' ' << id << '\n';
}

int64_t to_ps(double t_s) { return std::llround(t_s * 1e12); }

}  // namespace

std::string vcd_signal_path(const probe_series& s) {
  auto p = parts_of(s);
  std::string path;
  for (const auto& sc : p.scopes) path += sc + ".";
  return path + p.var;
}

void write_vcd(std::ostream& out, const probe_set& probes) {
  validate_probe_set(probes);
  out << "$version netasic $end\n$timescale 1ps $end\n";

  std::vector<std::string> ids;
  scope_node root;
  for (size_t i = 0; i < probes.series.size(); ++i) {
    ids.push_back(id_code(i));
    auto p = parts_of(probes.series[i]);
    scope_node* node = &root;
    for (const auto& sc : p.scopes) node = &node->child(sc);
    node->vars.emplace_back(p.var, i);
  }
  for (const auto& dev : root.children) write_scope(out, dev, ids);
  out << "$enddefinitions $end\n";

  const auto& t = probes.t_s;
  if (t.empty()) return;
  std::vector<int64_t> last(probes.series.size());
  out << '#' << to_ps(t[0]) << "\n$dumpvars\n";
  for (size_t s = 0; s < probes.series.size(); ++s) {
    last[s] = probes.series[s].samples[0];
    write_value(out, last[s], ids[s]);
  }
  out << "$end\n";
  int64_t stamp = to_ps(t[0]);   // the last "#" written: two samples within 1 ps share it
  for (size_t i = 1; i < t.size(); ++i) {
    for (size_t s = 0; s < probes.series.size(); ++s) {
      int64_t v = probes.series[s].samples[i];
      if (v == last[s]) continue;
      if (to_ps(t[i]) != stamp) {
        stamp = to_ps(t[i]);
        out << '#' << stamp << '\n';
      }
      last[s] = v;
      write_value(out, v, ids[s]);
    }
  }
  // Mark the end of the last sample interval so viewers draw its value for one interval.
  int64_t end_ps = to_ps(t.back() + probes.interval_s);
  if (end_ps > stamp) out << '#' << end_ps << '\n';
}

void write_vcd(const std::string& path, const probe_set& probes) {
  validate_probe_set(probes);
  write_file(path, [&](std::ostream& out) { write_vcd(out, probes); });
}

namespace {

struct wave_scope {
  std::string name;
  std::vector<std::unique_ptr<wave_scope>> children;
  std::vector<std::pair<std::string, size_t>> vars;   // variable name, index
  wave_scope& child(const std::string& n) {
    for (auto& c : children)
      if (c->name == n) return *c;
    children.push_back(std::make_unique<wave_scope>());
    children.back()->name = n;
    return *children.back();
  }
};

void visit(const wave_scope& s, const wave_scope_visitor& v) {
  v.enter(s.name);
  for (const auto& [name, index] : s.vars) v.var(index, name);
  for (const auto& c : s.children) visit(*c, v);
  v.leave();
}

}  // namespace

void visit_wave_scopes(const wave_dump& d, const wave_scope_visitor& v) {
  wave_scope root;
  for (size_t i = 0; i < d.vars.size(); ++i) {
    std::vector<std::string> parts = split_dots(d.vars[i].name);
    wave_scope* node = &root;
    for (size_t k = 0; k + 1 < parts.size(); ++k) node = &node->child(parts[k]);
    node->vars.emplace_back(parts.back(), i);
  }
  for (const auto& c : root.children) visit(*c, v);
  for (const auto& [name, index] : root.vars) v.var(index, name);
}

std::string wave_bits(uint64_t value, unsigned width) {
  std::string b(width, '0');
  for (unsigned i = 0; i < width && i < 64; ++i) b[width - 1 - i] = char('0' + (value >> i & 1));
  return b;
}

void write_vcd(std::ostream& out, const wave_dump& d) {
  out << "$version netasic $end\n$timescale 1ps $end\n";
  std::vector<std::string> ids(d.vars.size());
  wave_scope_visitor v;
  v.enter = [&](const std::string& s) { out << "$scope module " << s << " $end\n"; };
  v.var = [&](size_t i, const std::string& name) {
    ids[i] = id_code(i);
    out << "$var wire " << d.vars[i].width << ' ' << ids[i] << ' ' << name << " $end\n";
  };
  v.leave = [&] { out << "$upscope $end\n"; };
  visit_wave_scopes(d, v);
  out << "$enddefinitions $end\n#0\n$dumpvars\n";
  auto value = [&](uint32_t i, uint64_t x) {
    if (d.vars[i].width == 1) out << char('0' + (x & 1)) << ids[i] << '\n';
    else write_value(out, int64_t(x), ids[i]);
  };
  for (uint32_t i = 0; i < d.vars.size(); ++i) value(i, 0);
  out << "$end\n";
  uint64_t stamp = 0;
  for (const wave_change& c : d.changes) {
    if (c.t_ps != stamp) {
      stamp = c.t_ps;
      out << '#' << stamp << '\n';
    }
    value(c.id, c.value);
  }
  if (d.end_ps > stamp) out << '#' << d.end_ps << '\n';
}

void write_vcd(const std::string& path, const wave_dump& d) {
  write_file(path, [&](std::ostream& out) { write_vcd(out, d); });
}

}  // namespace netasic
