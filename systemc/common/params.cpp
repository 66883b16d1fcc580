// Parameter registry, TOML loading/validation, --set overrides and resolved-config output.
// netasic's keys are declared in systemc/scenario/, beside the code that applies them.
#include "common/params.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>
#include <tuple>
#include <utility>

#include "common/file_io.h"
#include "common/text.h"

namespace netasic {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t pos = s.find(sep, start);
    out.push_back(s.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
    if (pos == std::string::npos) return out;
    start = pos + 1;
  }
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

std::string trim(const std::string& s) {
  const char* ws = " \t\r\n";
  size_t b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

std::string top_of(const std::string& key) { return key.substr(0, key.find('.')); }
std::string table_of(const std::string& key) {
  size_t dot = key.rfind('.');
  return dot == std::string::npos ? "" : key.substr(0, dot);
}
std::string leaf_of(const std::string& key) { return key.substr(key.rfind('.') + 1); }


// How many edits still count as a typo of a name this long (1..3, about a third of it).
size_t typo_budget(size_t len) { return std::max<size_t>(1, std::min<size_t>(3, len / 3)); }

// Shortest text that reads back to the same double ("0.1", "5", "1e+20").
std::string short_num(double d) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, res.ptr);
}

// Same, but always a TOML float: "5" would read back as an integer.
std::string toml_real(double d) {
  std::string s = short_num(d);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // 'n' covers inf/nan
  return s;
}

std::string toml_quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04X", c);
          out += buf;
        } else {
          out += char(c);
        }
    }
  }
  return out + "\"";
}

std::string toml_list(const std::vector<std::string>& list) {
  std::vector<std::string> q;
  for (const auto& s : list) q.push_back(toml_quote(s));
  return "[" + join(q, ", ") + "]";
}

std::string toml_list(const std::vector<int64_t>& list) {
  std::vector<std::string> q;
  for (int64_t i : list) q.push_back(std::to_string(i));
  return "[" + join(q, ", ") + "]";
}

std::string toml_list(const std::vector<double>& list) {
  std::vector<std::string> q;
  for (double r : list) q.push_back(toml_real(r));  // bit-exact, like a real
  return "[" + join(q, ", ") + "]";
}

// TOML documents must be UTF-8; reject --set text that would make to_toml() unreadable.
bool valid_utf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = s[i];
    size_t n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : 99;
    if (n == 99 || i + n >= s.size() + (n ? 0 : 1)) return false;
    for (size_t k = 1; k <= n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
    i += n + 1;
  }
  return true;
}

const char* type_name(param_type t) {
  switch (t) {
    case param_type::integer: return "integer";
    case param_type::real: return "real";
    case param_type::boolean: return "boolean";
    case param_type::string: return "string";
    case param_type::choice: return "choice";
    case param_type::string_list: return "string_list";
    case param_type::integer_list: return "integer_list";
    case param_type::real_list: return "real_list";
  }
  return "?";
}

bool is_number_list(param_type t) { return t == param_type::integer_list || t == param_type::real_list; }
bool is_integral(param_type t) { return t == param_type::integer || t == param_type::integer_list; }

bool has_range(const param_def& d) {
  return (d.type == param_type::integer || d.type == param_type::real || is_number_list(d.type)) && d.min <= d.max;
}

// Inclusive range of a value (of each element, for the number lists).
std::string range_text(const param_def& d) {
  if (is_integral(d.type))
    return "[" + std::to_string(d.int_min) + ", " + std::to_string(d.int_max) + "]";
  return "[" + short_num(d.min) + ", " + short_num(d.max) + "]";
}

std::string choices_text(const param_def& d) {
  std::vector<std::string> q;
  for (const auto& c : d.choices) q.push_back(toml_quote(c));
  return join(q, ", ");
}

std::string expected_text(const param_def& d) {
  switch (d.type) {
    case param_type::integer: return "an integer";
    case param_type::real: return "a number";
    case param_type::boolean: return "a boolean (true or false)";
    case param_type::string: return "a string";
    case param_type::choice: return "a string, one of " + choices_text(d);
    case param_type::string_list: return "an array of strings";
    case param_type::integer_list: return "an array of integers";
    case param_type::real_list: return "an array of numbers";
  }
  return "?";
}

// What print() and markdown() show as the range: choices aside, the range, and for the number
// lists the range of each element and the required length.
std::string range_column(const param_def& d) {
  if (!is_number_list(d.type)) return has_range(d) ? range_text(d) : "";
  std::vector<std::string> parts;
  if (d.length) parts.push_back(std::to_string(d.length) + (d.length == 1 ? " element" : " elements"));
  if (has_range(d)) parts.push_back("each " + range_text(d));
  return join(parts, ", ");
}

// "a string \"8\"", "a float 8.0", ... for the "got ..." part of a type error.
std::string describe(const toml::node& n) {
  std::ostringstream os;
  switch (n.type()) {
    case toml::node_type::string: return "a string " + toml_quote(n.as_string()->get());
    case toml::node_type::integer: return "an integer " + std::to_string(n.as_integer()->get());
    case toml::node_type::floating_point: return "a float " + toml_real(n.as_floating_point()->get());
    case toml::node_type::boolean: return std::string("a boolean ") + (n.as_boolean()->get() ? "true" : "false");
    case toml::node_type::array: return "an array";
    case toml::node_type::table: return "a table";
    case toml::node_type::date: os << "a date " << n.as_date()->get(); return os.str();
    case toml::node_type::time: os << "a time " << n.as_time()->get(); return os.str();
    case toml::node_type::date_time: os << "a date-time " << n.as_date_time()->get(); return os.str();
    default: return "a value";
  }
}

// A checked value before it is stored in a config.
struct parsed {
  int64_t i = 0;
  double r = 0;
  bool b = false;
  std::string s;
  std::vector<std::string> list;
  std::vector<int64_t> ints;    // integer_list
  std::vector<double> reals;    // real_list
};

template <class V>
void store(V& v, parsed&& p, const std::string& origin) {
  v.i = p.i;
  v.r = p.r;
  v.b = p.b;
  v.s = std::move(p.s);
  v.list = std::move(p.list);
  v.ints = std::move(p.ints);
  v.reals = std::move(p.reals);
  v.origin = origin;
}

// Length and per-element checks of integer_list/real_list values; "" when fine.
std::string check_number_list(const param_def& d, const parsed& p, const std::string& unit) {
  bool ints = d.type == param_type::integer_list;
  size_t n = ints ? p.ints.size() : p.reals.size();
  if (d.length && n != d.length)
    return "expected " + std::to_string(d.length) + (d.length == 1 ? " element" : " elements") +
           (d.meaning.empty() ? "" : " (" + d.meaning + ")") + ", got " + std::to_string(n);
  auto list_text = [&] {
    std::vector<std::string> q;
    for (size_t k = 0; k < n; ++k) q.push_back(ints ? std::to_string(p.ints[k]) : short_num(p.reals[k]));
    return "[" + join(q, ", ") + "]";
  };
  for (size_t k = 0; k < n; ++k) {
    std::string elem = "element " + std::to_string(k) + " of ";
    if (ints) {
      int64_t v = p.ints[k];
      if (has_range(d) && (v < d.int_min || v > d.int_max))
        return elem + list_text() + " is " + std::to_string(v) + ", out of range " + range_text(d) + unit;
    } else {
      double v = p.reals[k];
      if (std::isnan(v)) return elem + list_text() + " is nan, not a valid value";
      if (has_range(d) && !(v >= d.min && v <= d.max))
        return elem + list_text() + " is " + short_num(v) + ", out of range " + range_text(d) + unit;
    }
  }
  return "";
}

// Range and choice checks shared by file values, --set text and declarations.
// Returns "" when fine, otherwise the message that follows "key 'K': ".
std::string check(const param_def& d, const parsed& p) {
  std::string unit = d.unit.empty() ? "" : " (unit: " + d.unit + ")";
  if (d.type == param_type::integer && has_range(d) && (p.i < d.int_min || p.i > d.int_max))
    return std::to_string(p.i) + " is out of range " + range_text(d) + unit;
  if (d.type == param_type::real) {
    if (std::isnan(p.r)) return "nan is not a valid value";
    if (has_range(d) && !(p.r >= d.min && p.r <= d.max))
      return short_num(p.r) + " is out of range " + range_text(d) + unit;
  }
  if (d.type == param_type::choice &&
      std::find(d.choices.begin(), d.choices.end(), p.s) == d.choices.end())
    return toml_quote(p.s) + " is not a valid choice; expected one of " + choices_text(d);
  if (is_number_list(d.type)) return check_number_list(d, p, unit);
  return "";
}

// TOML node -> value. Returns "" or the message that follows "key 'K': ".
std::string from_node(const param_def& d, const toml::node& n, parsed& p) {
  std::string wrong = "expected " + expected_text(d) + ", got " + describe(n);
  switch (d.type) {
    case param_type::integer:
      // 8.0 is rejected on purpose: a float where a count belongs is usually a mistake.
      if (!n.is_integer()) return wrong;
      p.i = n.as_integer()->get();
      break;
    case param_type::real:
      if (n.is_integer()) p.r = double(n.as_integer()->get());
      else if (n.is_floating_point()) p.r = n.as_floating_point()->get();
      else return wrong;
      break;
    case param_type::boolean:
      if (!n.is_boolean()) return wrong;
      p.b = n.as_boolean()->get();
      break;
    case param_type::string:
    case param_type::choice:
      if (!n.is_string()) return wrong;
      p.s = n.as_string()->get();
      break;
    case param_type::string_list: {
      const toml::array* arr = n.as_array();
      if (!arr) return wrong;
      for (const toml::node& e : *arr) {
        if (!e.is_string()) return "expected an array of strings, got an array containing " + describe(e);
        p.list.push_back(e.as_string()->get());
      }
      break;
    }
    case param_type::integer_list:
    case param_type::real_list: {
      const toml::array* arr = n.as_array();
      if (!arr) return wrong;
      for (const toml::node& e : *arr) {
        // As for integer keys, 8.0 is not an integer; a real_list takes integers as real does.
        bool ints = d.type == param_type::integer_list;
        if (e.is_integer() && ints) p.ints.push_back(e.as_integer()->get());
        else if (e.is_integer()) p.reals.push_back(double(e.as_integer()->get()));
        else if (e.is_floating_point() && !ints) p.reals.push_back(e.as_floating_point()->get());
        else return "expected " + expected_text(d) + ", got an array containing " + describe(e);
      }
      break;
    }
  }
  return check(d, p);
}

// Parse "v = <text>" as TOML; nullopt when it is not valid TOML.
std::optional<toml::table> parse_toml_value(const std::string& text) {
  std::string doc = "v = " + text + "\n";
#if TOML_EXCEPTIONS
  try {
    return toml::parse(doc);
  } catch (const toml::parse_error&) {
    return std::nullopt;
  }
#else
  toml::parse_result r = toml::parse(doc);
  if (!r) return std::nullopt;
  return std::move(r).table();
#endif
}

// "1_000" style integers, plain decimal only.
bool parse_int(const std::string& text, int64_t& out) {
  std::string digits;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '_') {
      bool between = i > 0 && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i - 1])) &&
                     std::isdigit(static_cast<unsigned char>(text[i + 1]));
      if (!between) return false;
      continue;
    }
    digits += c;
  }
  size_t start = !digits.empty() && digits[0] == '+' ? 1 : 0;  // from_chars does not take '+'
  size_t first_digit = start + (start == 0 && !digits.empty() && digits[0] == '-' ? 1 : 0);
  if (first_digit >= digits.size() || !std::isdigit(static_cast<unsigned char>(digits[first_digit]))) return false;
  const char* b = digits.data() + start;
  const char* e = digits.data() + digits.size();
  auto res = std::from_chars(b, e, out);
  return res.ec == std::errc() && res.ptr == e;
}

bool parse_real(const std::string& text, double& out) {
  std::string t;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '_' && i > 0 && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i - 1])) &&
        std::isdigit(static_cast<unsigned char>(text[i + 1])))
      continue;
    t += text[i];
  }
  size_t start = !t.empty() && t[0] == '+' ? 1 : 0;  // from_chars does not take '+'
  const char* b = t.data() + start;
  const char* e = t.data() + t.size();
  if (b == e || (start && *b == '-')) return false;
  auto res = std::from_chars(b, e, out);  // locale-independent, unlike strtod
  return res.ec == std::errc() && res.ptr == e;
}

// "abc", "\"abc\"" or "'abc'" -> abc. Quoted text is read as a TOML string so escapes work.
std::string unquote(const std::string& text) {
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') && text.back() == text.front()) {
    if (auto t = parse_toml_value(text))
      if (const toml::node* v = t->get("v"); v && v->is_string()) return v->as_string()->get();
    return text.substr(1, text.size() - 2);
  }
  return text;
}

// --set text -> value. Returns "" or the message that follows "key 'K': ".
std::string from_text(const param_def& d, const std::string& raw, parsed& p) {
  std::string text = trim(raw);
  std::string wrong = "expected " + expected_text(d) + ", got " + toml_quote(raw);
  switch (d.type) {
    case param_type::integer:
      if (!parse_int(text, p.i)) return wrong;
      break;
    case param_type::real:
      if (!parse_real(text, p.r)) return wrong;
      break;
    case param_type::boolean:
      if (text == "true") p.b = true;
      else if (text == "false") p.b = false;
      else return wrong;
      break;
    case param_type::string:
    case param_type::choice:
      p.s = unquote(text);  // quote the value to keep surrounding spaces
      if (!valid_utf8(p.s)) return "value is not valid UTF-8";
      break;
    case param_type::string_list:
    case param_type::integer_list:
    case param_type::real_list: {
      // A TOML array ("[1, 2]"), or comma-separated elements ("1,2"); "" is the empty list.
      if (!text.empty() && text.front() == '[') {
        auto t = parse_toml_value(text);
        const toml::node* v = t ? t->get("v") : nullptr;
        if (!v) return "expected " + expected_text(d) + ", got " + toml_quote(raw) + " (not a valid TOML array)";
        return from_node(d, *v, p);
      }
      if (text.empty()) break;
      std::vector<std::string> items = split(text, ',');
      for (size_t k = 0; k < items.size(); ++k) {
        std::string item = trim(items[k]);
        if (item.empty()) return "empty element in list " + toml_quote(raw);
        std::string bad = "expected " + expected_text(d) + ", got " + toml_quote(raw) + " (element " +
                          std::to_string(k) + " is " + toml_quote(item) + ")";
        if (d.type == param_type::integer_list) {
          int64_t i = 0;
          if (!parse_int(item, i)) return bad;
          p.ints.push_back(i);
        } else if (d.type == param_type::real_list) {
          double r = 0;
          if (!parse_real(item, r)) return bad;
          p.reals.push_back(r);
        } else {
          std::string s = unquote(item);
          if (!valid_utf8(s)) return "value is not valid UTF-8";
          p.list.push_back(s);
        }
      }
      break;
    }
  }
  return check(d, p);
}

// Keys of a table that is a section of declared keys (e.g. "traffic" for "traffic.incast.senders").
bool is_table_path(const param_registry& reg, const std::string& path) {
  for (const param_def& d : reg.all())
    if (starts_with(d.key, path + ".")) return true;
  return false;
}

std::string see_params(const param_registry& reg, const std::string& key) {
  std::string top = top_of(key);
  for (const param_def& d : reg.all())
    if (top_of(d.key) == top) return "see `netasic params " + top + "`";
  return "see `netasic params`";
}

std::string unknown_key_message(const param_registry& reg, const std::string& key) {
  std::string m = "unknown key '" + key + "'";
  std::string near = reg.closest_key(key);
  if (!near.empty()) return m + "; did you mean '" + near + "'?";
  return m + "; " + see_params(reg, key);
}

std::string unknown_table_message(const param_registry& reg, const std::string& path) {
  std::string m = "unknown table '" + path + "'";
  std::string best;
  size_t best_dist = SIZE_MAX;
  for (const param_def& d : reg.all()) {
    std::string t = table_of(d.key);
    for (; !t.empty(); t = table_of(t)) {
      size_t dist = edit_distance(path, t);
      if (dist < best_dist && dist <= typo_budget(std::max(path.size(), t.size()))) best = t, best_dist = dist;
    }
  }
  if (!best.empty()) return m + "; did you mean '" + best + "'?";
  return m + "; " + see_params(reg, path);
}

struct located {
  size_t line, column;
  std::string message;
};

struct assignment {
  const param_def* def;
  parsed value;
  size_t line;
};

// Visit every leaf of the document, checking it against the registry.
void walk(const toml::table& table, const std::string& prefix, const param_registry& reg,
          const std::string& file, std::vector<assignment>& out, std::vector<located>& errors) {
  for (const auto& [k, node] : table) {
    std::string path = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    size_t line = node.source().begin.line, column = node.source().begin.column;
    auto fail = [&](const std::string& msg) {
      errors.push_back({line, column, file + ":" + std::to_string(line) + ": " + msg});
    };
    const param_def* d = reg.find(path);
    if (d) {
      parsed p;
      std::string err = from_node(*d, node, p);
      if (!err.empty()) fail("key '" + path + "': " + err);
      else out.push_back({d, std::move(p), line});
    } else if (const toml::table* sub = node.as_table()) {
      if (sub->empty() && !is_table_path(reg, path)) fail(unknown_table_message(reg, path));
      walk(*sub, path, reg, file, out, errors);
    } else if (is_table_path(reg, path)) {
      fail("key '" + path + "': expected a table (a section of keys; " + see_params(reg, path) + "), got " +
           describe(node));
    } else {
      fail(unknown_key_message(reg, path));
    }
  }
}

void check_declaration(const std::vector<param_def>& defs, const param_def& d) {
  auto bug = [&](const std::string& why) { throw std::logic_error("parameter '" + d.key + "': " + why); };
  std::vector<std::string> parts = split(d.key, '.');
  if (parts.size() < 2) bug("key must be dotted 'section.name'");
  for (const std::string& part : parts) {
    if (part.empty()) bug("empty key component");
    for (char c : part)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
        bug("key components may only use letters, digits, '_' and '-'");
  }
  for (const param_def& other : defs) {
    if (other.key == d.key) bug("declared twice");
    if (starts_with(other.key, d.key + ".") || starts_with(d.key, other.key + "."))
      bug("conflicts with '" + other.key + "' (a key cannot also be a table)");
  }
  // Meaning and unit end up in one-line TOML comments and table cells.
  if (d.meaning.find_first_of("\r\n") != std::string::npos || d.unit.find_first_of("\r\n") != std::string::npos)
    bug("unit and meaning must be one line");
  if ((d.type == param_type::real || d.type == param_type::real_list) && (std::isnan(d.min) || std::isnan(d.max)))
    bug("nan in range");
  if (d.type == param_type::choice) {
    if (d.choices.empty()) bug("no choices");
    for (size_t i = 0; i < d.choices.size(); ++i)
      if (std::find(d.choices.begin(), d.choices.begin() + i, d.choices[i]) != d.choices.begin() + i)
        bug("choice '" + d.choices[i] + "' listed twice");
  }
}

// The default of a declaration as a value (validated when the key is declared).
parsed default_of(const param_def& d) {
  parsed p;
  std::string err;
  switch (d.type) {
    case param_type::string:
    case param_type::choice:
      p.s = d.default_value;  // verbatim: no unquoting of a default that happens to contain quotes
      err = check(d, p);
      break;
    default:
      err = from_text(d, d.default_value, p);
  }
  if (!err.empty()) throw std::logic_error("parameter '" + d.key + "': bad default: " + err);
  return p;
}

// A stored value as TOML text.
template <class V>
std::string value_text(const V& v) {
  switch (v.type) {
    case param_type::integer: return std::to_string(v.i);
    case param_type::real: return toml_real(v.r);
    case param_type::boolean: return v.b ? "true" : "false";
    case param_type::string:
    case param_type::choice: return toml_quote(v.s);
    case param_type::string_list: return toml_list(v.list);
    case param_type::integer_list: return toml_list(v.ints);
    case param_type::real_list: return toml_list(v.reals);
  }
  return "";
}

// The default as TOML text, for print() and markdown().
std::string default_display(const param_def& d) {
  if (d.type == param_type::string || d.type == param_type::choice) return toml_quote(d.default_value);
  return d.default_value;
}

// The meaning as the reference prints it: a path key says how it is read.
std::string meaning_of(const param_def& d) {
  return d.is_path ? d.meaning + " (a relative path is read against the scenario file's folder)" : d.meaning;
}

std::string comment_of(const param_def& d) {
  if (d.unit.empty()) return d.meaning;
  if (d.meaning.empty()) return d.unit;
  return d.unit + " — " + d.meaning;
}

// Table paths ordered as a tree walked in declaration order: a section, then its subsections.
std::vector<std::string> ordered_tables(const std::vector<param_def>& defs) {
  std::map<std::string, size_t> first_seen;
  for (const param_def& d : defs)
    for (std::string t = table_of(d.key); !t.empty(); t = table_of(t)) first_seen.emplace(t, first_seen.size());
  std::vector<std::pair<std::vector<size_t>, std::string>> order;
  for (const auto& [t, rank] : first_seen) {
    std::vector<size_t> ranks;
    for (std::string p = t; !p.empty(); p = table_of(p)) ranks.insert(ranks.begin(), first_seen.at(p));
    order.emplace_back(ranks, t);
  }
  std::sort(order.begin(), order.end());
  std::vector<std::string> out;
  for (auto& o : order) out.push_back(o.second);
  return out;
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

}  // namespace

// ---------------------------------------------------------------- registry

void param_registry::integer(const std::string& key, const std::string& unit, int64_t def, int64_t min,
                             int64_t max, const std::string& meaning) {
  param_def d{key, param_type::integer, unit, std::to_string(def), double(min), double(max), {}, meaning};
  d.int_min = min;
  d.int_max = max;
  add(std::move(d));
}

void param_registry::real(const std::string& key, const std::string& unit, double def, double min, double max,
                          const std::string& meaning) {
  add({key, param_type::real, unit, toml_real(def), min, max, {}, meaning});
}

void param_registry::boolean(const std::string& key, bool def, const std::string& meaning) {
  add({key, param_type::boolean, "", def ? "true" : "false", 0, 0, {}, meaning});
}

void param_registry::string(const std::string& key, const std::string& def, const std::string& meaning) {
  add({key, param_type::string, "", def, 0, 0, {}, meaning});
}

void param_registry::choice(const std::string& key, const std::string& def, const std::vector<std::string>& choices,
                            const std::string& meaning) {
  add({key, param_type::choice, "", def, 0, 0, choices, meaning});
}

void param_registry::string_list(const std::string& key, const std::string& unit,
                                 const std::vector<std::string>& def, const std::string& meaning) {
  add({key, param_type::string_list, unit, toml_list(def), 0, 0, {}, meaning});
}

void param_registry::integer_list(const std::string& key, const std::string& unit, const std::vector<int64_t>& def,
                                  int64_t min, int64_t max, size_t length, const std::string& meaning) {
  param_def d{key, param_type::integer_list, unit, toml_list(def), double(min), double(max), {}, meaning};
  d.int_min = min;
  d.int_max = max;
  d.length = length;
  add(std::move(d));
}

void param_registry::real_list(const std::string& key, const std::string& unit, const std::vector<double>& def,
                               double min, double max, size_t length, const std::string& meaning) {
  param_def d{key, param_type::real_list, unit, toml_list(def), min, max, {}, meaning};
  d.length = length;
  add(std::move(d));
}

void param_registry::add(param_def d) {
  check_declaration(defs_, d);
  default_of(d);  // throws logic_error on a default that is out of range or not a choice
  index_.emplace(d.key, defs_.size());
  defs_.push_back(std::move(d));
}

const param_def* param_registry::find(const std::string& key) const {
  auto it = index_.find(key);
  return it == index_.end() ? nullptr : &defs_[it->second];
}

// Closest declared key, or "" when nothing is close enough to be a plausible typo. Keys with the
// same depth are compared component by component (each differing component must be within its
// own typo budget, so a long shared section does not make everything look close); other depths
// by whole-key distance; failing both, the same name in another section ("traffic.leaves" ->
// "topology.leaves").
std::string param_registry::closest_key(const std::string& key) const {
  std::vector<std::string> parts = split(key, '.');
  std::string best;
  size_t best_dist = SIZE_MAX;
  for (const param_def& d : defs_) {
    std::vector<std::string> dparts = split(d.key, '.');
    size_t dist = 0;
    bool close = true;
    if (dparts.size() == parts.size()) {
      for (size_t i = 0; i < parts.size() && close; ++i) {
        size_t e = edit_distance(parts[i], dparts[i]);
        close = e <= (e ? typo_budget(std::max(parts[i].size(), dparts[i].size())) : 0);
        dist += e;
      }
    } else {
      dist = edit_distance(key, d.key);
      close = dist <= 2;
    }
    if (close && dist < best_dist) best = d.key, best_dist = dist;
  }
  if (!best.empty()) return best;
  for (const param_def& d : defs_)
    if (leaf_of(d.key) == leaf_of(key)) return d.key;
  return "";
}

void param_registry::print(std::ostream& os, const std::string& prefix) const {
  std::vector<std::vector<std::string>> rows = {{"KEY", "TYPE", "DEFAULT", "UNIT", "RANGE", "MEANING"}};
  for (const param_def& d : defs_) {
    if (!starts_with(d.key, prefix)) continue;
    std::string range = d.type == param_type::choice ? join(d.choices, "|") : range_column(d);
    if (range.empty()) range = "-";
    rows.push_back({d.key, type_name(d.type), default_display(d), d.unit.empty() ? "-" : d.unit, range, meaning_of(d)});
  }
  if (rows.size() == 1) return;  // nothing matches: print nothing, not a lone header
  std::vector<size_t> width(6, 0);
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  for (const auto& r : rows) {
    std::string line;
    for (size_t c = 0; c < r.size(); ++c) {
      line += r[c];
      if (c + 1 < r.size()) line += std::string(width[c] - r[c].size() + 2, ' ');
    }
    os << trim(line) << "\n";
  }
}

std::string param_registry::markdown() const {
  std::vector<std::string> sections;
  for (const param_def& d : defs_)
    if (std::find(sections.begin(), sections.end(), top_of(d.key)) == sections.end())
      sections.push_back(top_of(d.key));
  std::string out;
  for (const std::string& s : sections) {
    out += (out.empty() ? "" : "\n") + std::string("## ") + s + "\n\n";
    out += "| key | type | default | unit | range | meaning |\n";
    out += "|---|---|---|---|---|---|\n";
    for (const param_def& d : defs_) {
      if (top_of(d.key) != s) continue;
      std::string range;
      if (d.type == param_type::choice) {
        std::vector<std::string> q;
        for (const auto& c : d.choices) q.push_back("`" + c + "`");
        range = join(q, ", ");
      } else {
        range = range_column(d);
      }
      out += "| `" + d.key + "` | " + type_name(d.type) + " | `" + md_cell(default_display(d)) + "` | " +
             md_cell(d.unit) + " | " + md_cell(range) + " | " + md_cell(meaning_of(d)) + " |\n";
    }
  }
  return out;
}

// ---------------------------------------------------------------- config

const config::value& config::get(const std::string& key, std::initializer_list<param_type> types) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw std::logic_error("config: undeclared parameter '" + key + "'");
  if (std::find(types.begin(), types.end(), it->second.type) == types.end())
    throw std::logic_error("config: parameter '" + key + "' is a " + type_name(it->second.type) +
                           ", read as a " + type_name(*types.begin()));
  return it->second;
}

int64_t config::integer(const std::string& key) const { return get(key, {param_type::integer}).i; }

double config::real(const std::string& key) const {
  const value& v = get(key, {param_type::real, param_type::integer});
  return v.type == param_type::integer ? double(v.i) : v.r;
}

bool config::boolean(const std::string& key) const { return get(key, {param_type::boolean}).b; }

const std::string& config::string(const std::string& key) const {
  return get(key, {param_type::string, param_type::choice}).s;
}

const std::vector<std::string>& config::list(const std::string& key) const {
  return get(key, {param_type::string_list}).list;
}

const std::vector<int64_t>& config::integers(const std::string& key) const {
  return get(key, {param_type::integer_list}).ints;
}

const std::vector<double>& config::reals(const std::string& key) const {
  return get(key, {param_type::real_list}).reals;
}

void param_registry::mark_path(const std::string& key) {
  auto it = index_.find(key);
  if (it == index_.end() || defs_[it->second].type != param_type::string)
    throw std::logic_error("mark_path: '" + key + "' is not a declared string key");
  defs_[it->second].is_path = true;
}

std::string config::base_dir(const std::string& key) const {
  const std::string o = origin(key);
  const bool from_file = !source_.empty() && o != "default" && o != "--set" && o.rfind("--set", 0) != 0;
  const std::filesystem::path dir = from_file ? std::filesystem::path(source_).parent_path() : std::filesystem::path();
  return std::filesystem::absolute(dir.empty() ? std::filesystem::current_path() : dir).lexically_normal().string();
}

std::string config::origin(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw std::logic_error("config: undeclared parameter '" + key + "'");
  return it->second.origin;
}

void config::set_from_text(const std::string& key, const std::string& text, const std::string& origin) {
  std::string where = origin + " " + key + "=" + text + ": ";
  const param_def* d = reg_ ? reg_->find(key) : nullptr;
  if (!d) {
    if (reg_ && is_table_path(*reg_, key))
      throw config_error(where + "'" + key + "' is a table of keys, not a key; " + see_params(*reg_, key));
    if (!reg_) throw config_error(where + "unknown key '" + key + "'");
    throw config_error(where + unknown_key_message(*reg_, key));
  }
  parsed p;
  std::string err = from_text(*d, text, p);
  if (!err.empty()) throw config_error(where + "key '" + key + "': " + err);
  store(values_.at(key), std::move(p), origin);
}

std::string config::to_toml() const {
  if (!reg_) return "";
  std::string out = "# netasic resolved configuration: every parameter, loadable as a scenario.\n";
  for (const std::string& table : ordered_tables(reg_->all())) {
    std::vector<std::pair<std::string, const param_def*>> lines;
    size_t width = 0;
    for (const param_def& d : reg_->all()) {
      if (table_of(d.key) != table) continue;
      const value& v = values_.at(d.key);
      // A relative file path is written resolved, so config.toml reproduces the run from any folder.
      const std::filesystem::path resolved = std::filesystem::path(base_dir(d.key)) / v.s;
      if (d.is_path && !v.s.empty() && std::filesystem::path(v.s).is_relative() && std::filesystem::is_regular_file(resolved)) {
        value r = v;
        r.s = resolved.lexically_normal().string();
        lines.emplace_back(leaf_of(d.key) + " = " + value_text(r), &d);
      } else {
        lines.emplace_back(leaf_of(d.key) + " = " + value_text(v), &d);
      }
      width = std::max(width, lines.back().first.size());
    }
    if (lines.empty()) continue;  // a table that only holds subtables
    out += "\n[" + table + "]\n";
    for (const auto& [text, d] : lines) {
      std::string comment = comment_of(*d);
      out += comment.empty() ? text : text + std::string(width - text.size() + 2, ' ') + "# " + comment;
      out += "\n";
    }
  }
  return out;
}

config default_config(const param_registry& reg) {
  config c;
  c.reg_ = &reg;
  for (const param_def& d : reg.all()) {
    config::value& v = c.values_[d.key];
    v.type = d.type;
    store(v, default_of(d), "default");
  }
  return c;
}

config load_config(const std::string& path, const std::vector<std::string>& overrides, const param_registry& reg) {
  config c = default_config(reg);
  c.source_ = path;
  std::ifstream in;
  if (!open_input(in, path, std::ios::binary)) throw config_error(path + ": cannot open config file");
  std::ostringstream text;
  text << in.rdbuf();

  toml::table root;
#if TOML_EXCEPTIONS
  try {
    root = toml::parse(text.str(), path);
  } catch (const toml::parse_error& e) {
    throw config_error(path + ":" + std::to_string(e.source().begin.line) + ":" +
                       std::to_string(e.source().begin.column) + ": TOML syntax error: " +
                       std::string(e.description()));
  }
#else
  toml::parse_result r = toml::parse(text.str(), path);
  if (!r) {
    const toml::parse_error& e = r.error();
    throw config_error(path + ":" + std::to_string(e.source().begin.line) + ":" +
                       std::to_string(e.source().begin.column) + ": TOML syntax error: " +
                       std::string(e.description()));
  }
  root = std::move(r).table();
#endif

  // Report every file error at once, in file order (toml++ iterates tables sorted by key).
  std::vector<assignment> assigned;
  std::vector<located> errors;
  walk(root, "", reg, path, assigned, errors);
  if (!errors.empty()) {
    std::stable_sort(errors.begin(), errors.end(), [](const located& a, const located& b) {
      return std::tie(a.line, a.column) < std::tie(b.line, b.column);
    });
    std::vector<std::string> msgs;
    for (const located& e : errors) msgs.push_back(e.message);
    throw config_error(join(msgs, "\n"));
  }
  for (assignment& a : assigned)
    store(c.values_.at(a.def->key), std::move(a.value), path + ":" + std::to_string(a.line));

  for (const std::string& o : overrides) {
    size_t eq = o.find('=');
    if (eq == std::string::npos)
      throw config_error("--set " + o + ": expected KEY=VALUE (e.g. --set topology.leaves=4)");
    std::string key = trim(o.substr(0, eq));
    if (key.empty()) throw config_error("--set " + o + ": missing key before '='");
    c.set_from_text(key, o.substr(eq + 1), "--set");
  }
  return c;
}

}  // namespace netasic
