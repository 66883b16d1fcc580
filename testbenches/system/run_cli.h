// Runs the netasic command as a user would (netasic_cli: a function named netasic would clash
// with the namespace) and captures its exit code and output; scratch
// directories and file reading for the tests that do.
#pragma once
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <map>
#include <string>
#include <vector>

struct outcome { int code; std::string output; };

// A shell command line; its exit code and its stdout and stderr together.
inline outcome shell(const std::string& command) {
  const std::string cmd = command + " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  const int status = pclose(f);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

inline outcome netasic_cli(const std::string& args) { return shell(std::string(NETASIC_BINARY) + " " + args); }

// The comma-separated cells of one CSV line (the run's files quote nothing).
inline std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream s(line);
  for (std::string c; std::getline(s, c, ',');) out.push_back(c);
  return out;
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A run's CSV file as rows, each cell by its column's name.
inline std::vector<std::map<std::string, std::string>> csv_rows(const std::filesystem::path& p) {
  std::vector<std::map<std::string, std::string>> rows;
  std::stringstream in(slurp(p));
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> head = cells(line);
  while (std::getline(in, line)) {
    const std::vector<std::string> c = cells(line);
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < head.size() && i < c.size(); ++i) row[head[i]] = c[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

// An empty directory of its own under the test temp dir: "netasic_<suite>_<test>_<name>". The
// running test's name is in it because ctest runs tests in parallel, each in its own process: a
// helper two tests share (a topology file they both write) would otherwise empty the directory
// under the other.
inline std::filesystem::path scratch(const std::string& suite, const std::string& name) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string running = test ? std::string(test->name()) + "_" : "";
  const std::filesystem::path d = std::filesystem::path(::testing::TempDir()) / ("netasic_" + suite + "_" + running + name);
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}
