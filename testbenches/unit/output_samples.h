// Shared by the output writers' tests (test_vcd, test_csv, test_report, test_sweep): a scratch
// directory, file reading, and sample flows and probes.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "output/run_data.h"

namespace netasic::output_test {

namespace fs = std::filesystem;

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

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::vector<std::string> split(const std::string& s, char sep) {
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

inline size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = hay.find(needle); pos != std::string::npos; pos = hay.find(needle, pos + 1)) ++n;
  return n;
}

// Four series over 50 samples: runs of repeated values, values beyond 32 bits, negatives, a constant.
inline probe_set sample_probes() {
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

inline flow_record flow(uint32_t id, uint64_t size, double start_s, double fct_s, double ideal_s, uint32_t retx = 0) {
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

inline std::vector<flow_record> sample_flows() {
  std::vector<flow_record> flows;
  for (uint32_t i = 0; i < 400; ++i) {
    uint64_t size = 100ull << (i % 12);                  // 100 B .. 204,800 B
    double ideal = 1e-6 + static_cast<double>(size) * 8 / 100e9;
    double fct = i % 50 == 49 ? -1 : ideal * (1.0 + (i % 10) * 0.3);
    flows.push_back(flow(i, size, i * 1.25e-7, fct, ideal, i % 3));
  }
  return flows;
}

}  // namespace netasic::output_test
