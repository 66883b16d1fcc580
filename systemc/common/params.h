// Typed scenario parameters: every key is declared once (type, unit, default, range, meaning),
// loaded from TOML, overridden with --set, validated before anything is simulated, and written
// back as the resolved config.toml that reproduces a run.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <map>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace netasic {

enum class param_type { integer, real, boolean, string, choice, string_list, integer_list, real_list };

struct param_def {
  std::string key;                    // dotted, e.g. "topology.leaves"
  param_type type;
  std::string unit;                   // "Gbps", "us", "bytes", "" for unitless
  std::string default_value;          // as it would be written in TOML (strings unquoted)
  double min = 0, max = 0;            // inclusive range for integer/real (per element for the number
                                      // lists); ignored when min > max
  std::vector<std::string> choices;   // for param_type::choice
  std::string meaning;                // one line
  int64_t int_min = 0, int_max = 0;   // exact bounds for integer keys (min/max lose precision past 2^53)
  size_t length = 0;                  // integer_list/real_list: required number of elements, 0 = any
  bool is_path = false;               // a string naming a file: relative to the file that set it
};

// A configuration error: the message names the file, line and key (and the closest valid key).
struct config_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class param_registry {
 public:
  // Declarations. Ranges are inclusive. Declaring a key twice throws std::logic_error.
  void integer(const std::string& key, const std::string& unit, int64_t def, int64_t min, int64_t max,
               const std::string& meaning);
  void real(const std::string& key, const std::string& unit, double def, double min, double max,
            const std::string& meaning);
  void boolean(const std::string& key, bool def, const std::string& meaning);
  void string(const std::string& key, const std::string& def, const std::string& meaning);
  void choice(const std::string& key, const std::string& def, const std::vector<std::string>& choices,
              const std::string& meaning);
  void string_list(const std::string& key, const std::string& unit, const std::vector<std::string>& def,
                   const std::string& meaning);
  // Lists of numbers: every element must lie in [min, max] (no check when min > max), and the list
  // must have exactly `length` elements unless length is 0. Errors name elements counting from 0.
  // A real_list accepts integers as elements, as real does.
  void integer_list(const std::string& key, const std::string& unit, const std::vector<int64_t>& def,
                    int64_t min, int64_t max, size_t length, const std::string& meaning);
  void real_list(const std::string& key, const std::string& unit, const std::vector<double>& def, double min,
                 double max, size_t length, const std::string& meaning);

  // A string key that names a file (or a builtin by name): a relative value is read against the
  // folder of the scenario file that sets it, and config.toml writes it resolved.
  void mark_path(const std::string& key);

  const param_def* find(const std::string& key) const;
  const std::vector<param_def>& all() const { return defs_; }   // in declaration order
  std::string closest_key(const std::string& key) const;        // by edit distance

  // `netasic params [PREFIX]`: key, type, default, unit, range, meaning, one per line.
  void print(std::ostream& os, const std::string& prefix = "") const;
  // docs/config-reference.md body: one table per top-level section.
  std::string markdown() const;

 private:
  void add(param_def d);   // validates the declaration (logic_error on a bug) and stores it
  std::vector<param_def> defs_;
  std::map<std::string, size_t> index_;
};

// Resolved values: every declared key has exactly one value and a record of where it came from.
class config {
 public:
  int64_t integer(const std::string& key) const;
  double real(const std::string& key) const;       // also accepts integer-typed keys
  bool boolean(const std::string& key) const;
  const std::string& string(const std::string& key) const;   // string and choice keys
  const std::vector<std::string>& list(const std::string& key) const;       // string_list keys
  const std::vector<int64_t>& integers(const std::string& key) const;      // integer_list keys
  const std::vector<double>& reals(const std::string& key) const;          // real_list keys
  std::string origin(const std::string& key) const;  // "default", "FILE:LINE" or "--set"
  std::string source_file() const { return source_; }
  // The folder a relative path in `key` is read against: the scenario file's when the file set
  // it, else the current directory (defaults, --set). Absolute.
  std::string base_dir(const std::string& key) const;

  // Resolved TOML: every key with its value, grouped in [sections], comments give the unit.
  // Loading it again gives an identical config.
  std::string to_toml() const;

  // Set a value from text (as given to --set); throws config_error naming origin and key.
  void set_from_text(const std::string& key, const std::string& text, const std::string& origin);

 private:
  friend config load_config(const std::string&, const std::vector<std::string>&, const param_registry&);
  friend config default_config(const param_registry&);
  struct value {
    param_type type;
    int64_t i = 0;
    double r = 0;
    bool b = false;
    std::string s;
    std::vector<std::string> list;
    std::vector<int64_t> ints;
    std::vector<double> reals;
    std::string origin;
  };
  const value& get(const std::string& key, std::initializer_list<param_type> types) const;
  const param_registry* reg_ = nullptr;
  std::map<std::string, value> values_;
  std::string source_;
};

// Load a TOML scenario, then apply each "key=value" override in order. Every error (TOML syntax,
// unknown key, wrong type, out of range, bad --set) throws config_error before anything runs.
// netasic's own keys are scenario/scenario.h's all_params() (load_scenario, default_scenario).
config load_config(const std::string& path, const std::vector<std::string>& overrides, const param_registry& reg);
config default_config(const param_registry& reg);
// A config keeps a pointer to its registry, so a temporary registry would dangle.
config load_config(const std::string&, const std::vector<std::string>&, param_registry&&) = delete;
config default_config(param_registry&&) = delete;

}  // namespace netasic
