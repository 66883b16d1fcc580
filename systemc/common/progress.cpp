#include "common/progress.h"

#include <fmt/format.h>

#include <iostream>

namespace netasic {

std::string duration_text(double seconds) {
  if (seconds < 60) return fmt::format("{:.0f} s", seconds);
  if (seconds < 3600) return fmt::format("{:.1f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

progress_pacer::progress_pacer(progress_mode mode) : mode_(mode) {}

bool progress_pacer::due() {
  if (mode_ == progress_mode::none) return false;
  const clock::time_point now = clock::now();
  if (std::chrono::duration<double>(now - last_).count() < (mode_ == progress_mode::terminal ? 0.25 : 10.0)) return false;
  last_ = now;
  return true;
}

void progress_pacer::print(const std::string& line) {
  if (mode_ == progress_mode::terminal) std::cerr << "\r" << line << "\x1b[K" << std::flush;
  else std::cerr << line << "\n";
}

double progress_pacer::elapsed_s() const { return std::chrono::duration<double>(clock::now() - start_).count(); }

void progress_pacer::finish() {
  if (mode_ == progress_mode::terminal) std::cerr << "\r\x1b[K" << std::flush;
}

}  // namespace netasic
