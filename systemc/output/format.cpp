#include "output/format.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace netasic {

namespace {

using nlohmann::json;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

const std::vector<std::string>& count_words() {
  static const std::vector<std::string> w = {"packets", "flows", "drops", "bytes", "hosts", "ports", "events",
                                             "retransmissions", "pauses", "marks", "trims",
                                             "timeouts", "switches", "links", "writes", "hops", "blocks", "alus"};
  return w;
}

// Keys whose name does not say their unit, or says a wrong one (a parent named after what it
// groups: flows.path_changes counts packets, not flows). `*` matches one dotted part (an
// algorithm, an index). "" declares a number without a unit: the seed, an identifier.
const std::vector<std::pair<std::string, std::string>>& declared_units() {
  static const std::vector<std::pair<std::string, std::string>> t = {
      {"seed", ""},
      {"flows.path_changes", "packets"},
      {"pfc.pause_frames_sent", "frames"},
      {"pfc.pause_frames_received_by_switches", "frames"},
      {"pfc.switch_port_pause_time_s_by_priority", "s"},
      {"pfc.watchdog_storms", "storms"},
      {"pfc.deadlock.checks", "checks"},
      {"int_records_written", "records"},
      {"queue.samples", "samples"},
      {"routing.ingress_classes", "port classes"},
      {"pcap.*.frames", "frames"},
      {"drops.*", "packets"},
      {"drops_by_priority.*", "packets"},
      {"link_flap.outages", "outages"},
      {"misroute.misrouted_packets", "packets"},
      {"misroute.loop_returns", "packets back at the misrouting switch"},
      {"link_flap.frames_sent_while_down", "frames"},
      {"link_flap.frames_lost_in_flight", "frames"},
      {"memory.*", "bytes"},
      {"lossradar.cells", "cells"},
      {"lossradar.hashes", "hashes"},
      {"lossradar.segments", "segments"},
      {"lossradar.batches", "batches"},
      {"lossradar.exported_digests", "digests"},
      {"lossradar.failed_digests", "digests"},
      {"events.*", "events"},
      {"nic.cc_cycles_per_update", "cycles"},
      {"nic.cc_updates", "updates"},
      {"nic.cnps_sent", "CNPs"},
      {"nic.line_rate_qps_per_engine", "QPs"},
      {"nic.peak_qps_per_engine", "QPs"},
      {"hpcc_reciprocal_table.divide_cycles", "cycles"},
      {"hpcc_reciprocal_table.iterative_divider_cycles", "cycles"},
      {"hpcc_reciprocal_table.entries", "entries"},
      {"hpcc_reciprocal_table.epsilon", "fraction"},
      {"hpcc_reciprocal_table.worst_relative_error", "fraction"},
      {"load_balancer.bucket_clears", "clears"},
      {"load_balancer.bucket_clears_not_admitted", "clears"},
      {"load_balancer.bucket_clears_recirculated", "clears"},
      {"load_balancer.burst_path_changes", "path changes"},
      {"load_balancer.flowlet_path_changes", "path changes"},
      {"load_balancer.fingerprint_collisions", "collisions"},
      {"load_balancer.flowlet_collisions", "collisions"},
      {"load_balancer.sketch_collisions", "collisions"},
      {"load_balancer.flowlet_evictions", "evictions"},
      {"load_balancer.flowlet_lookups", "lookups"},
      {"load_balancer.flowlet_starts", "flowlets"},
      {"load_balancer.new_flowlets", "flowlets"},
      {"load_balancer.max_cells_in_use", "cells"},
      {"load_balancer.peak_table_occupancy", "entries"},
      {"load_balancer.table_entries", "entries"},
      {"load_balancer.sweep_conflict_cycles", "cycles"},
      {"load_balancer.sweep_overruns", "overruns"},
      {"flowcut.acks_unmatched", "ACKs"},
      {"flowcut.drains", "drains"},
      {"flowcut.drains_cancelled", "drains"},
      {"flowcut.drains_completed", "drains"},
      {"flowcut.flowcuts", "Flowcuts"},
      {"flowcut.packets_held", "packets"},
      {"flowcut.peak_entries_per_table", "entries"},
      {"flowcut.rtt_samples", "samples"},
      {"flowcut.tables", "tables"},
      {"flowcut.hold_full_events", "events"},
      {"flowcut.hold_full_resumes", "resumes"},
      {"flowcut.source_pauses", "pauses"},
      {"flowcut.hold_limit_bytes", "bytes"},
      {"mirror.copies_made", "copies"},
      {"mirror.copies_delivered", "copies"},
      {"mirror.copies_dropped", "copies"},
      {"clock.devices", "devices"},
      {"clock.reroutes", "reroutes"},
      {"clock.sync_dropped", "messages"},
      {"clock.*.bound_checks", "checks"},
      {"clock.*.bound_violations", "violations"},
      {"clock.*.broken_clock_violations", "violations"},
      {"clock.*.epsilon_samples", "samples"},
      {"clock.*.failures.*.affected_devices", "devices"},
      {"clock.*.failures.*.cut_off_devices", "devices"},
      {"clock.*.failures.*.recovered_devices", "devices"},
      {"clock.*.impacted_devices", "devices"},
      {"clock.*.reconfigured_devices", "devices"},
      {"clock.*.switches_to_backup", "devices"},
      {"clock.*.messages", "messages"},
      {"clock.*.messages_delivered", "messages"},
      {"clock.*.invalid_messages", "messages"},
      {"clock.*.reconfigurations", "reconfigurations"},
      {"clock.*.worst_offset_over_epsilon", "× epsilon"},
      {"clock.*.controller_replans", "replans"},
      {"clock.*.replans", "replans"},
      {"clock.*.controller_saw_elections", "elections"},
      {"clock.*.elections", "elections"},
      {"clock.*.controller_saw_evictions", "evictions"},
      {"clock.*.evictions", "evictions"},
      {"clock.*.max_depth_backup", "hops"},
      {"clock.*.max_switch_depth", "hops"},
      {"clock.*.register_readback_mismatches", "reads"},
      {"clock.*.register_reads", "reads"},
      {"clock.*.state_reads", "reads"},
      {"flowradar.epochs", "epochs"},
      {"flowradar.solver_iterations", "iterations"},
      {"flowradar.loss_map_flowlets", "flowlets"},
      {"flowradar.loss_map_open_flowlets", "flowlets"},
      {"flowradar.loss_map_looped_flowlets", "flowlets"},
      {"flowradar.loss_map_loop_drops", "packets"},
      {"flowradar.loss_map_lost_segments", "segments"},
      {"flowradar.loss_map_undecoded", "segments"},
      {"flowradar.loss_map_true_segments", "segments"},
      {"flowradar.loss_map_matched_segments", "segments"},
      {"flowradar.loss_map_exact_segments", "segments"},
      {"flowradar.loss_map_undecoded_true_segments", "segments"},
      {"flowradar.loss_map_missed_segments", "segments"},
      {"flowradar.black_hole_found_pairs", "(flow, switch) pairs"},
      {"flowradar.black_hole_true_pairs", "(flow, switch) pairs"},
      {"flowradar.black_hole_matched_pairs", "(flow, switch) pairs"},
      {"flowradar.flowsets_per_switch_max", "flowsets"},
      {"flowradar.export_frames_per_bank", "frames"},
      {"lossradar.switch_meter_bytes_max", "bytes"},
      {"lossradar.switch_meter_bytes_mean", "bytes"},
      {"lossradar.through_digests", "digests"},
      {"resources.binding_stage", "stage index"},
      {"flowradar.switch_memory_bits_max", "bits"},
      {"flowradar.loop_found_flows", "flows"},
      {"flowradar.loop_true_flows", "flows"},
      {"flowradar.loop_matched_flows", "flows"},
  };
  return t;
}

std::vector<std::string> dotted_parts(const std::string& key) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

// Whether `pattern` (dotted, `*` = any one part) matches `key`.
bool matches(const std::string& pattern, const std::string& key) {
  const auto p = dotted_parts(pattern), k = dotted_parts(key);
  if (p.size() != k.size()) return false;
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != "*" && p[i] != k[i]) return false;
  return true;
}

const std::pair<std::string, std::string>* declared(const std::string& key) {
  for (const auto& e : declared_units())
    if (matches(e.first, key)) return &e;
  return nullptr;
}

std::string unit_of_part(const std::string& k) {
  if (k.find("slowdown") != std::string::npos) return "× ideal FCT";
  if (ends_with(k, "_per_s")) return "1/s";
  if (ends_with(k, "_s")) return "s";
  if (ends_with(k, "_ms")) return "ms";
  if (ends_with(k, "_us")) return "us";
  if (ends_with(k, "_ns")) return "ns";
  if (ends_with(k, "_ps")) return "ps";
  if (ends_with(k, "_gbps")) return "Gb/s";
  if (ends_with(k, "_bps")) return "b/s";
  if (ends_with(k, "_bits")) return "bits";
  if (ends_with(k, "_pct") || ends_with(k, "_percent")) return "%";
  for (const auto& w : count_words())
    if (k == w || ends_with(k, "_" + w)) return w;
  return "";
}

// The dotted part of a key that names its unit: the leaf ("queue.peak_bytes"), else the
// nearest parent that does ("fct_us.p99").
std::string unit_part(const std::string& key) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  for (auto it = parts.rbegin(); it != parts.rend(); ++it)
    if (!unit_of_part(*it).empty()) return *it;
  return parts.back();
}

// Seconds per unit of a time suffix, 0 when the key is not a time.
double time_scale(const std::string& leaf_key) {
  if (ends_with(leaf_key, "_per_s")) return 0;
  if (ends_with(leaf_key, "_s")) return 1;
  if (ends_with(leaf_key, "_ms")) return 1e-3;
  if (ends_with(leaf_key, "_us")) return 1e-6;
  if (ends_with(leaf_key, "_ns")) return 1e-9;
  if (ends_with(leaf_key, "_ps")) return 1e-12;
  return 0;
}

std::string plain_number(const json& v) {
  if (v.is_number_integer()) return group_digits(v.get<int64_t>());
  if (v.is_number_unsigned()) return group_digits(static_cast<int64_t>(v.get<uint64_t>()));
  double d = v.get<double>();
  if (std::floor(d) == d && std::fabs(d) < 1e15) return group_digits(static_cast<int64_t>(d));
  return fmt::format("{:.6g}", d);
}

}  // namespace

std::string group_digits(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -static_cast<uint64_t>(v) : static_cast<uint64_t>(v));
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (v < 0 ? "-" : "") + out;
}

std::string si(double v, const std::string& unit) {
  static const char* prefixes[] = {"", "k", "M", "G", "T", "P"};
  int i = 0;
  while (std::fabs(v) >= 1000 && i < 5) {
    v /= 1000;
    ++i;
  }
  return fmt::format("{:.4g} {}{}", v, prefixes[i], unit);
}

std::string duration(double s) {
  double a = std::fabs(s);
  if (a == 0) return "0 s";
  if (a >= 1) return fmt::format("{:.4g} s", s);
  if (a >= 1e-3) return fmt::format("{:.4g} ms", s * 1e3);
  if (a >= 1e-6) return fmt::format("{:.4g} us", s * 1e6);
  if (a >= 1e-9) return fmt::format("{:.4g} ns", s * 1e9);
  return fmt::format("{:.4g} ps", s * 1e12);
}

std::vector<std::pair<std::string, json>> flatten_json(const json& doc) {
  std::vector<std::pair<std::string, json>> out;
  auto walk = [&](auto&& self, const json& v, const std::string& key) -> void {
    if (v.is_object()) {
      for (auto it = v.begin(); it != v.end(); ++it) self(self, it.value(), key.empty() ? it.key() : key + "." + it.key());
    } else if (v.is_array() && std::any_of(v.begin(), v.end(), [](const json& e) { return e.is_structured(); })) {
      for (size_t i = 0; i < v.size(); ++i) self(self, v[i], key + "." + std::to_string(i));
    } else if (!key.empty()) {
      out.emplace_back(key, v);
    }
  };
  walk(walk, doc, "");
  return out;
}

std::string unit_of_key(const std::string& key) {
  if (const auto* d = declared(key)) return d->second;
  return unit_of_part(unit_part(key));
}

bool unit_declared(const std::string& key) { return declared(key) || !unit_of_part(unit_part(key)).empty(); }

std::string format_value(const std::string& key, const json& value) {
  if (value.is_array()) {
    std::string s;
    for (const auto& e : value) s += (s.empty() ? "" : ", ") + format_value(key, e);
    return s.empty() ? "(none)" : s;
  }
  if (value.is_boolean()) return value.get<bool>() ? "yes" : "no";
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "(none)";
  if (!value.is_number()) return value.dump();
  const double v = value.get<double>();
  if (const auto* d = declared(key)) {   // declared: its unit as it stands, a time as a duration
    const std::string& u = d->second;
    if (const double scale = time_scale("_" + u); scale > 0) return duration(v * scale);
    return u.empty() ? plain_number(value) : u == "fraction" ? fmt::format("{:.4g}", v) : plain_number(value) + " " + u;
  }
  const std::string k = unit_part(key);
  const std::string unit = unit_of_part(k);
  if (unit == "× ideal FCT") return fmt::format("{:.4g}×", v);
  if (double scale = time_scale(k); scale > 0) return duration(v * scale);
  if (unit == "bytes" || unit == "bits") {
    std::string s = plain_number(value) + " " + unit;
    if (std::fabs(v) >= 1000) s += " (" + si(v, unit == "bytes" ? "B" : "b") + ")";
    return s;
  }
  if (unit == "b/s") return si(v, "b/s");
  if (unit == "Gb/s") return fmt::format("{:.4g} Gb/s", v);
  if (unit == "1/s") {   // "packet_hops_per_s" -> "hops/s"
    const std::string noun = k.substr(0, k.size() - 6);
    const std::string last = noun.substr(noun.rfind('_') == std::string::npos ? 0 : noun.rfind('_') + 1);
    const auto& words = count_words();
    return si(v, std::find(words.begin(), words.end(), last) != words.end() ? last + "/s" : "/s");
  }
  if (unit == "%") return fmt::format("{:.3g} %", v);
  if (!unit.empty()) return plain_number(value) + " " + unit;
  return plain_number(value);
}

nlohmann::json pct(uint64_t num, uint64_t den) {
  if (den == 0) return nullptr;
  return 100.0 * double(num) / double(den);
}

}  // namespace netasic
