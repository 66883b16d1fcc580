// A scenario key bound to the field it sets (the idea of ns-3's MakeDoubleAccessor): one line
// names the key, the unit conversion, the field, the range and the meaning. The default is the
// field's initialiser, read from a default-constructed struct: it is written once, in the
// model's header, and a test that builds the struct directly gets the same value as a scenario.
//
// A section writes its keys once, as a function template over a visitor:
//
//   template <class K> void nic_keys(K& k) {
//     k.integer("nic.mtu", "bytes", &nic_config::mtu_payload, 1, 9000, "Payload bytes per data packet");
//     k.real("nic.rto", us_as_ps, &nic_config::rto_ps, 0.001, 1e9, "Retransmission timeout");
//   }
//
// declare_keys<nic_config> turns each line into a declaration (default from nic_config{});
// apply_keys<nic_config> sets each field of a nic_config from a resolved config. A key that is
// not one field (a choice that sets several, a value derived from others) is declared through
// `k.unbound` with its default written there, and its reader sets the fields by hand.
#pragma once
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/params.h"
#include "scenario/checks.h"

namespace netasic {

// A field inside nested structs: path(&switch_config::tm, &tm_config::buffer_bytes).
template <class... M>
struct member_path {
  std::tuple<M...> members;
};
template <class... M>
member_path<M...> path(M... m) {
  return {{m...}};
}

template <class S, class T>
T& field_at(S& s, T S::*m) {
  return s.*m;
}
template <class S, class T>
const T& field_at(const S& s, T S::*m) {
  return s.*m;
}
template <class S, class... M>
decltype(auto) field_at(S& s, const member_path<M...>& p) {
  return std::apply([&s](auto... m) -> decltype(auto) { return (s .* ... .* m); }, p.members);
}

// How a key's value, in the unit it is written in, becomes the field's value. The default goes
// back the other way and comes back exactly (the Scenario tests check every bound key).
struct unit {
  enum class rule : uint8_t { same, round, truncate, clock_period };
  const char* name;
  double factor = 1;
  rule how = rule::same;
  constexpr unit(const char* n) : name(n) {}   // a plain unit string: the field takes the value as it is
  constexpr unit(const char* n, double f, rule r) : name(n), factor(f), how(r) {}
};
inline constexpr unit ms_as_ps{"ms", 1e9, unit::rule::round};
inline constexpr unit us_as_ps{"us", 1e6, unit::rule::round};
inline constexpr unit ns_as_ps{"ns", 1e3, unit::rule::round};
inline constexpr unit gbps_as_bps{"Gbps", 1e9, unit::rule::round};
inline constexpr unit kib_as_bytes{"KiB", 1024, unit::rule::round};
inline constexpr unit ppm_as_ppb{"ppm", 1e3, unit::rule::round};
inline constexpr unit mbps_as_bps{"Mbps", 1e6, unit::rule::truncate};
inline constexpr unit mhz_as_period_ps{"MHz", 1, unit::rule::clock_period};   // whole picoseconds only

// The names of an enum's values as a choice key spells them: the one table of each enum.
template <class E>
class names {
 public:
  names(std::initializer_list<std::pair<E, std::string>> table) : table_(table) {}
  const std::string& of(E e) const {
    for (const auto& [v, n] : table_)
      if (v == e) return n;
    throw std::logic_error("names: a value without a name");
  }
  // The registry has checked the name against all(): a miss is a bug.
  E value(const std::string& name) const {
    for (const auto& [v, n] : table_)
      if (n == name) return v;
    throw std::logic_error("names: '" + name + "' names no value");
  }
  std::vector<std::string> all() const {
    std::vector<std::string> out;
    for (const auto& entry : table_) out.push_back(entry.second);
    return out;
  }

 private:
  std::vector<std::pair<E, std::string>> table_;
};

namespace binding {

template <class S, class P>
using field_type = std::remove_cv_t<std::remove_reference_t<decltype(field_at(std::declval<S&>(), std::declval<P>()))>>;

template <class F>
F from_real(double v, const unit& u) {
  switch (u.how) {
    case unit::rule::same: return F(v);
    case unit::rule::round: return F(std::llround(v * u.factor));
    case unit::rule::truncate: return F(v * u.factor);
    case unit::rule::clock_period: return F(clock_period_ps(v));
  }
  throw std::logic_error("unit: unknown rule");
}

template <class F>
double to_real(F f, const unit& u) {
  switch (u.how) {
    case unit::rule::same: return double(f);
    case unit::rule::round:
    case unit::rule::truncate: return double(f) / u.factor;
    case unit::rule::clock_period: return 1e6 / double(f);
  }
  throw std::logic_error("unit: unknown rule");
}

// Integer keys take plain units or a whole factor (KiB as bytes).
inline int64_t integer_factor(const std::string& key, const unit& u) {
  if (u.how == unit::rule::same) return 1;
  if (u.how != unit::rule::round || u.factor != std::floor(u.factor))
    throw std::logic_error(key + ": an integer key converts by a whole factor only");
  return int64_t(u.factor);
}

// A declared range the field cannot hold would wrap silently: a bug in the declaration.
template <class F>
void check_fits(const std::string& key, long double lo, long double hi) {
  if constexpr (std::is_integral_v<F>)
    if (lo < (long double)std::numeric_limits<F>::lowest() || hi > (long double)std::numeric_limits<F>::max())
      throw std::logic_error(key + ": the declared range does not fit the field it sets");
}

}  // namespace binding

// What apply_keys offers as `unbound`: the keys set by hand need no declaration there.
struct skip_declarations {
  void integer(const std::string&, const std::string&, int64_t, int64_t, int64_t, const std::string&) {}
  void real(const std::string&, const std::string&, double, double, double, const std::string&) {}
  void boolean(const std::string&, bool, const std::string&) {}
  void string(const std::string&, const std::string&, const std::string&) {}
  void choice(const std::string&, const std::string&, const std::vector<std::string>&, const std::string&) {}
  void string_list(const std::string&, const std::string&, const std::vector<std::string>&, const std::string&) {}
  void integer_list(const std::string&, const std::string&, const std::vector<int64_t>&, int64_t, int64_t, size_t,
                    const std::string&) {}
  void real_list(const std::string&, const std::string&, const std::vector<double>&, double, double, size_t,
                 const std::string&) {}
};

// Declares a section's keys; each bound key's default is its field in a default-constructed S.
template <class S>
class declare_keys {
 public:
  explicit declare_keys(param_registry& r) : unbound(r) {}
  param_registry& unbound;   // keys whose reader sets the fields by hand, with their default

  template <class P>
  void integer(const std::string& key, const unit& u, P field, int64_t min, int64_t max, const std::string& meaning) {
    using F = binding::field_type<S, P>;
    const int64_t factor = binding::integer_factor(key, u);
    binding::check_fits<F>(key, (long double)min * factor, (long double)max * factor);
    const int64_t def = int64_t(field_at(defaults_, field));
    if (def % factor) throw std::logic_error(key + ": the default is not a whole number of " + u.name);
    unbound.integer(key, u.name, def / factor, min, max, meaning);
  }
  template <class P>
  void real(const std::string& key, const unit& u, P field, double min, double max, const std::string& meaning) {
    using F = binding::field_type<S, P>;
    if (std::is_integral_v<F> && u.how == unit::rule::same)
      throw std::logic_error(key + ": a real key sets a whole-number field through a conversion (us_as_ps, ...)");
    if (u.how == unit::rule::round || u.how == unit::rule::truncate)
      binding::check_fits<F>(key, (long double)min * u.factor, (long double)max * u.factor);
    unbound.real(key, u.name, binding::to_real(field_at(defaults_, field), u), min, max, meaning);
  }
  template <class P>
  void boolean(const std::string& key, P field, const std::string& meaning) {
    unbound.boolean(key, field_at(defaults_, field), meaning);
  }
  template <class P>
  void string(const std::string& key, P field, const std::string& meaning) {
    unbound.string(key, field_at(defaults_, field), meaning);
  }
  template <class E, class P>
  void choice(const std::string& key, const names<E>& n, P field, const std::string& meaning) {
    unbound.choice(key, n.of(field_at(defaults_, field)), n.all(), meaning);
  }
  // A std::array field, one element per traffic-manager priority (or per whatever it counts).
  template <class P>
  void reals(const std::string& key, const std::string& u, P field, double min, double max, const std::string& meaning) {
    const auto& a = field_at(defaults_, field);
    unbound.real_list(key, u, std::vector<double>(a.begin(), a.end()), min, max, a.size(), meaning);
  }
  template <class P>
  void integers(const std::string& key, const std::string& u, P field, int64_t min, int64_t max,
                const std::string& meaning) {
    using F = typename binding::field_type<S, P>::value_type;
    binding::check_fits<F>(key, min, max);
    const auto& a = field_at(defaults_, field);
    unbound.integer_list(key, u, std::vector<int64_t>(a.begin(), a.end()), min, max, a.size(), meaning);
  }
  // A bit mask of priorities 0-7, written as the list of its priorities.
  template <class P>
  void priorities(const std::string& key, P field, const std::string& meaning) {
    std::vector<int64_t> listed;
    for (int64_t p = 0; p < 8; ++p)
      if (field_at(defaults_, field) >> p & 1) listed.push_back(p);
    unbound.integer_list(key, "priorities", listed, 0, 7, 0, meaning);
  }

 private:
  const S defaults_{};
};

// Sets the bound fields of an S from a resolved configuration.
template <class S>
class apply_keys {
 public:
  apply_keys(const config& c, S& s) : c_(c), s_(s) {}
  apply_keys(const config&& c, S& s) = delete;   // it keeps a reference to the config
  skip_declarations unbound;

  template <class P>
  void integer(const std::string& key, const unit& u, P field, int64_t, int64_t, const std::string&) {
    using F = binding::field_type<S, P>;
    field_at(s_, field) = F(c_.integer(key) * binding::integer_factor(key, u));
  }
  template <class P>
  void real(const std::string& key, const unit& u, P field, double, double, const std::string&) {
    using F = binding::field_type<S, P>;
    try {
      field_at(s_, field) = binding::from_real<F>(c_.real(key), u);
    } catch (const std::invalid_argument& e) {
      fail(c_, key, e.what());
    }
  }
  template <class P>
  void boolean(const std::string& key, P field, const std::string&) {
    field_at(s_, field) = c_.boolean(key);
  }
  template <class P>
  void string(const std::string& key, P field, const std::string&) {
    field_at(s_, field) = c_.string(key);
  }
  template <class E, class P>
  void choice(const std::string& key, const names<E>& n, P field, const std::string&) {
    field_at(s_, field) = n.value(c_.string(key));
  }
  template <class P>
  void reals(const std::string& key, const std::string&, P field, double, double, const std::string&) {
    auto& a = field_at(s_, field);
    for (size_t i = 0; i < a.size(); ++i) a[i] = c_.reals(key)[i];   // the registry checked the length
  }
  template <class P>
  void integers(const std::string& key, const std::string&, P field, int64_t, int64_t, const std::string&) {
    auto& a = field_at(s_, field);
    using F = typename binding::field_type<S, P>::value_type;
    for (size_t i = 0; i < a.size(); ++i) a[i] = F(c_.integers(key)[i]);
  }
  template <class P>
  void priorities(const std::string& key, P field, const std::string&) {
    field_at(s_, field) = priority_mask(c_, key);
  }

 private:
  const config& c_;
  S& s_;
};

}  // namespace netasic
