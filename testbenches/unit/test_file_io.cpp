// The checked file writer and the running executable's path (common/file_io.h).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "common/file_io.h"

namespace fs = std::filesystem;
using namespace netasic;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The message of the std::runtime_error `f` throws; "" if it throws none.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(WriteFile, WritesAndReplaces) {
  const fs::path dir = fs::temp_directory_path() / ("netasic-test-file-io-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "a.txt").string();
  write_file(path, std::string("first\nwith a \0 byte", 19));
  EXPECT_EQ(slurp(path), std::string("first\nwith a \0 byte", 19));
  write_file(path, "second");
  EXPECT_EQ(slurp(path), "second");
  write_file(path, [](std::ostream& out) { out << "streamed " << 42; });
  EXPECT_EQ(slurp(path), "streamed 42");
  fs::remove_all(dir);
}

TEST(WriteFile, FailuresNameThePath) {
  const std::string missing = (fs::temp_directory_path() / "netasic-no-such-dir" / "x" / "summary.json").string();
  const std::string opened = error_of([&] { write_file(missing, "{}"); });
  EXPECT_NE(opened.find("cannot write " + missing), std::string::npos) << opened;
  // The device that is always full: opening works, the data only fails when it goes out.
  if (fs::exists("/dev/full")) {
    const std::string full = error_of([] { write_file("/dev/full", std::string(1 << 16, 'x')); });
    EXPECT_NE(full.find("/dev/full"), std::string::npos) << full;
    const std::string small = error_of([] { write_file("/dev/full", "x"); });   // held in the buffer until close
    EXPECT_NE(small.find("error while writing /dev/full"), std::string::npos) << small;
  }
}

TEST(RunningExecutable, IsThisTestBinary) {
  const std::string exe = running_executable();
  EXPECT_TRUE(fs::path(exe).is_absolute()) << exe;
  EXPECT_EQ(fs::path(exe).filename(), "unit_tests");
  EXPECT_TRUE(fs::equivalent(exe, "/proc/self/exe"));
}
