// A progress line on stderr for long commands (`netasic run`, `netasic paths`), paced so that it
// costs nothing next to the work: at most four a second on a terminal, redrawn in place, and one
// every ten seconds in a log.
#pragma once
#include <chrono>
#include <string>

namespace netasic {

enum class progress_mode { none, terminal, lines };

// A wall time for a progress line, in the unit that reads best: "42 s", "7.5 min", "2.1 h".
std::string duration_text(double seconds);

class progress_pacer {
 public:
  explicit progress_pacer(progress_mode mode);
  // Prints line() if a line is due; line() is called only then.
  template <class Line>
  void offer(Line line) {
    if (due()) print(line());
  }
  double elapsed_s() const;
  void finish();   // clears a terminal's line, so that what follows starts clean

 private:
  bool due();
  void print(const std::string& line);
  using clock = std::chrono::steady_clock;
  progress_mode mode_;
  clock::time_point start_ = clock::now(), last_ = start_;
};

}  // namespace netasic
