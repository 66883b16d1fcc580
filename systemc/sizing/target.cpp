#include "sizing/target.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <toml++/toml.h>

#include "common/file_io.h"
#include "common/params.h"
#include "common/text.h"

namespace netasic {

namespace {

// Each budget key and the field it sets.
const std::vector<std::pair<std::string, unsigned stage_budget::*>>& budget_fields() {
  static const std::vector<std::pair<std::string, unsigned stage_budget::*>> f = {
      {"stages", &stage_budget::stages},
      {"sram_blocks", &stage_budget::sram_blocks},
      {"sram_block_words", &stage_budget::sram_block_words},
      {"sram_word_bits", &stage_budget::sram_word_bits},
      {"tcam_blocks", &stage_budget::tcam_blocks},
      {"tcam_block_words", &stage_budget::tcam_block_words},
      {"tcam_word_bits", &stage_budget::tcam_word_bits},
      {"stateful_alus", &stage_budget::stateful_alus},
      {"hash_bits", &stage_budget::hash_bits},
      {"action_slots", &stage_budget::action_slots},
      {"phv_bits", &stage_budget::phv_bits},
      {"recirc_gbps", &stage_budget::recirc_gbps}};
  return f;
}


std::string closest(const std::string& key, const std::vector<std::string>& known) {
  return *std::min_element(known.begin(), known.end(), [&](const std::string& x, const std::string& y) {
    return edit_distance(key, x) < edit_distance(key, y);
  });
}

[[noreturn]] void fail(const std::string& file, size_t line, const std::string& key, const std::string& what) {
  throw config_error(fmt::format("{}:{}: {}: {}", file, line, key, what));
}

size_t line_of(const toml::node& n) { return n.source().begin.line; }

// One budget entry: { value = N, source = "..." }.
void read_budget(const std::string& file, const std::string& key, const toml::node& n, pipeline_target& t,
                 unsigned stage_budget::*field) {
  const std::string where = "budget." + key;
  const toml::table* e = n.as_table();
  if (!e) fail(file, line_of(n), where, "must be { value = N, source = \"...\" }");
  for (const auto& [k, v] : *e)
    if (k.str() != "value" && k.str() != "source")
      fail(file, line_of(v), where + "." + std::string(k.str()),
           fmt::format("unknown key; did you mean {}?", closest(std::string(k.str()), {"value", "source"})));
  const toml::node* v = e->get("value");
  if (!v) fail(file, line_of(n), where, "has no value");
  if (!v->is_integer()) fail(file, line_of(*v), where, "the value must be an integer");
  const int64_t x = v->as_integer()->get();
  if (x <= 0 || x > int64_t(1) << 30)
    fail(file, line_of(*v), where, fmt::format("is {}; a budget must be a positive integer (at most 2^30)", x));
  const toml::node* s = e->get("source");
  if (!s || !s->is_string() || s->as_string()->get().empty())
    fail(file, line_of(n), where, "has no source: give the public source of the number, or \"assumption\"");
  t.budget.*field = unsigned(x);
  t.source[key] = s->as_string()->get();
}

}  // namespace

const std::vector<std::string>& target_budget_keys() {
  static const std::vector<std::string> k = [] {
    std::vector<std::string> v;
    for (const auto& f : budget_fields()) v.push_back(f.first);
    return v;
  }();
  return k;
}

pipeline_target parse_target(const std::string& text, const std::string& file) {
  toml::table doc;
  try {
    doc = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw config_error(fmt::format("{}:{}: {}", file, e.source().begin.line, e.description()));
  }
  pipeline_target t;
  t.file = file;
  for (const auto& [k, v] : doc)
    if (k.str() != "name" && k.str() != "description" && k.str() != "budget")
      fail(file, line_of(v), std::string(k.str()),
           fmt::format("unknown key; did you mean {}?", closest(std::string(k.str()), {"name", "description", "budget"})));
  const toml::node* name = doc.get("name");
  if (!name || !name->is_string()) fail(file, name ? line_of(*name) : 1, "name", "a target needs name = \"...\"");
  t.name = name->as_string()->get();
  if (const toml::node* d = doc.get("description"); d && d->is_string()) t.description = d->as_string()->get();
  const toml::table* budget = doc.get_as<toml::table>("budget");
  if (!budget) fail(file, 1, "budget", "a target needs a [budget] table");
  for (const auto& [k, v] : *budget) {
    const std::string key(k.str());
    const auto& f = budget_fields();
    const auto it = std::find_if(f.begin(), f.end(), [&](const auto& x) { return x.first == key; });
    if (it == f.end())
      fail(file, line_of(v), "budget." + key, fmt::format("unknown key; did you mean {}?", closest(key, target_budget_keys())));
    read_budget(file, key, v, t, it->second);
  }
  for (const std::string& key : target_budget_keys())
    if (!t.source.count(key))
      fail(file, line_of(*budget), "budget." + key, "is missing; a target gives every budget (" +
                                                         fmt::format("{}", fmt::join(target_budget_keys(), ", ")) + ")");
  return t;
}

pipeline_target load_target(const std::string& name_or_path, const std::string& base_dir) {
  const auto& builtins = builtin_targets();
  if (const auto it = builtins.find(name_or_path); it != builtins.end())
    return parse_target(it->second, "targets/" + name_or_path + ".toml");
  const std::string path = base_dir.empty() || std::filesystem::path(name_or_path).is_absolute()
                               ? name_or_path : (std::filesystem::path(base_dir) / name_or_path).string();
  std::ifstream f;
  if (!open_input(f, path, std::ios::binary)) {
    std::string names;
    for (const auto& [name, text] : builtins) names += (names.empty() ? "" : ", ") + name;
    throw config_error(fmt::format("target '{}' is neither a builtin target ({}) nor a readable file{}", name_or_path, names,
                                   path != name_or_path ? " (looked for " + path + ")" : ""));
  }
  std::ostringstream text;
  text << f.rdbuf();
  return parse_target(text.str(), path);
}

}  // namespace netasic
