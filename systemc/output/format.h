// Numbers and units for people: the summary table of report.html and the sweep page read every
// value of summary.json through these, so a key's suffix decides its unit in one place.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace netasic {

// Every scalar of a JSON document under its dotted path ("fct_slowdown.p99"); elements of an
// array of objects are "key.0.x", ...; an array of scalars stays one entry (an array value).
// Objects are walked in key order, so the result is stable.
std::vector<std::pair<std::string, nlohmann::json>> flatten_json(const nlohmann::json& doc);

// Unit of a summary value from its key's suffix, as stored (no scaling): "_s" -> "s",
// "_us" -> "us", "_bytes" -> "bytes", "_per_s" -> "1/s", "_gbps" -> "Gb/s", "_pct" -> "%",
// a slowdown -> "x ideal FCT", ... ; keys whose name does not say it declare it in one table
// (format.cpp, declared_units). "" when the key has no unit.
std::string unit_of_key(const std::string& key);
// Whether the key's unit is known: by its name, or declared (a declared "" counts: the seed).
// A test runs scenarios and checks this for every number of their summary.json.
bool unit_declared(const std::string& key);

// A summary value for people: "12.5 us", "1,500,000 bytes (1.5 MB)", "3.2 M/s", "1.42x".
std::string format_value(const std::string& key, const nlohmann::json& value);

// 4 significant digits with an SI prefix: si(3.2e6, "hops/s") = "3.2 Mhops/s".
std::string si(double v, const std::string& unit);

// A duration in seconds with the unit that keeps it between 1 and 1000: "12.5 us".
std::string duration(double seconds);

// 100 num / den as a JSON number, or null when den is 0 (nothing was there to count).
nlohmann::json pct(uint64_t num, uint64_t den);

// Thousands separated by commas: "1,500,000".
std::string group_digits(int64_t v);

}  // namespace netasic
