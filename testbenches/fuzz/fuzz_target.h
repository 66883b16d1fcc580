// What every fuzz target shares. A target feeds one input to one reader of user input and
// accepts exactly two outcomes: the input is read, or it is refused with config_error (or, for
// the grammars that use it, std::invalid_argument). Anything else (another exception, a crash,
// a sanitizer report, a hang) is a bug. Built two ways: with clang's libFuzzer (`make fuzz`),
// and with replay_main.cpp, which runs the committed corpus in `make test`.
#pragma once
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/params.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace netasic::fuzz {

inline std::string text(const uint8_t* data, size_t size) { return std::string(reinterpret_cast<const char*>(data), size); }

inline std::vector<std::string> lines(const std::string& t) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t nl; (nl = t.find('\n', start)) != std::string::npos; start = nl + 1) out.push_back(t.substr(start, nl - start));
  if (start < t.size()) out.push_back(t.substr(start));
  return out;
}

// The path of a scratch file for readers that take a path: one per process (the pid in its name),
// rewritten for each input and removed when the process ends, so `make test`'s corpus replays
// leave nothing behind. Call it from one function-local static per target.
struct scratch_file {
  std::string path;
  explicit scratch_file(const std::string& stem, const std::string& suffix = "")
      : path("/tmp/netasic-fuzz-" + stem + "-" + std::to_string(getpid()) + suffix) {}
  ~scratch_file() { std::remove(path.c_str()); }
};

// Runs `read` and swallows only the refusals a user may legitimately get.
template <class F>
int expect_read_or_refused(F&& read) {
  try {
    read();
  } catch (const config_error&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}

}  // namespace netasic::fuzz
