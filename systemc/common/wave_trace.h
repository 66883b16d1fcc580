// Event-exact waveforms (`netasic run --vcd`): the trace hook the models call where a traced
// signal changes, and the recorder behind it. A model keeps a null `wave_trace*` when the run
// is not traced, so an untraced run pays one branch per event and records nothing; a traced
// signal is an id, and a signal the user did not select has the id `wave_trace::off`.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace netasic {

struct wave_var {
  std::string name;       // "leaf0.port3.queue_bytes": dot-separated, device first
  unsigned width = 64;    // bits; 1 = a level
  bool is_signed = false;
};

struct wave_change {
  uint64_t t_ps;
  uint32_t id;
  uint64_t value;         // two's complement for a signed variable
};

// A finished trace: every variable starts at 0 at t = 0; `changes` are in time order, at most
// one per variable and time, each a value that differs from the variable's previous one.
struct wave_dump {
  std::vector<wave_var> vars;
  std::vector<wave_change> changes;
  uint64_t end_ps = 0;    // the end of the run: nothing after it
};

class wave_trace {
 public:
  static constexpr uint32_t off = UINT32_MAX;   // a signal nobody traces

  uint32_t add(wave_var v);
  // The signal's value from t_ps on. Changes of one signal at one time keep the last value. A
  // change given with a time before its signal's previous change takes that time: a core that
  // applies a change of an earlier cycle late (the flowlet checker, whose cycle's lookups go
  // first) orders it after what the signal already showed. A value equal to the signal's last
  // one is not kept: the trace holds real changes only (a queue's depth is set on every event).
  void set(uint32_t id, uint64_t t_ps, uint64_t value) {
    if (id == off) return;
    last& l = last_[id];
    if (t_ps < l.t_ps) t_ps = l.t_ps;
    l.t_ps = t_ps;
    if (value == l.value) return;
    l.value = value;
    changes_.push_back({t_ps, id, value});
  }
  // A level that is 1 over [from, until), announced before it happens (a PFC pause: its end
  // is known when it starts, and a later PAUSE may move it). An interval with the same `from`
  // as the signal's last one replaces that one's end.
  void interval(uint32_t id, uint64_t from, uint64_t until);
  // Orders the changes, keeps the last of one signal at one time, drops repeats (those an
  // interval's edges make) and anything after end_ps. The trace is left empty.
  wave_dump finish(uint64_t end_ps);
  size_t pending() const { return changes_.size(); }

 private:
  struct span { uint64_t from, until; };
  struct last { uint64_t t_ps = 0, value = 0; };   // a signal's latest change as set() kept it
  std::vector<wave_var> vars_;
  std::vector<last> last_;
  std::vector<wave_change> changes_;
  std::vector<std::vector<span>> spans_;   // per variable, for interval()
};

// Glob over signal names: `*` any run of characters (dots too), `?` one character.
bool wave_glob(const std::string& pattern, const std::string& name);
// Splits "a,b , c" into its patterns. Throws std::invalid_argument for an empty item.
std::vector<std::string> wave_patterns(const std::string& spec);
// For each name, whether some pattern matches it. Throws std::invalid_argument for a pattern
// that matches nothing, saying so and listing the closest names (or name prefixes with ".*").
std::vector<bool> wave_select(const std::vector<std::string>& patterns, const std::vector<std::string>& names,
                              const std::string& option);

}  // namespace netasic
