// The VCD of the probes and its GTKWave save file (output/vcd.h, output/gtkw.h).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "output/gtkw.h"
#include "output/vcd.h"

#include "output_samples.h"

using namespace netasic;
using namespace netasic::output_test;

namespace {

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

}  // namespace

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
