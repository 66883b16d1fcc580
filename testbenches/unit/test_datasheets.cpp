// Every datasheet in docs/datasheets/ opens with a block card: the block's names, then one row
// per part (core, model, rtl, adapter, bench, waveform, unit test, system tests, scenarios,
// keys), each a comma-separated list of `paths` (or configuration keys and key prefixes), or
// "—" when the block has no such part. This test reads the cards and names the datasheet and
// the entry of every path that does not exist and every key that is not declared, and names
// every RTL block, cosim file and waveform that no card lists.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> card_parts = {"core",     "model",     "rtl",          "adapter",   "bench",
                                             "waveform", "unit test", "system tests", "scenarios", "keys"};

struct card_row {
  std::string part;
  std::vector<std::string> items;
  int line = 0;
};

struct block_card {
  std::string datasheet;
  std::vector<std::string> blocks;
  std::vector<card_row> rows;
};

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(' '), b = s.find_last_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// "`a`, `b`" -> {a, b}; "—" -> {}. Anything else is an error, returned in `bad`.
std::vector<std::string> cell_items(const std::string& cell, std::string& bad) {
  std::vector<std::string> out;
  if (cell == "—") return out;
  std::stringstream ss(cell);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item = trim(item);
    if (item.size() < 3 || item.front() != '`' || item.back() != '`' || item.find(' ') != std::string::npos) {
      bad = item;
      return {};
    }
    out.push_back(item.substr(1, item.size() - 2));
  }
  return out;
}

// The card of one datasheet's text: the title, a blank line, then the table. Shape errors go to
// `problems`, each naming the datasheet and line.
block_card parse_card(const std::string& datasheet, const std::string& text, std::vector<std::string>& problems) {
  block_card c{datasheet, {}, {}};
  std::vector<std::string> lines;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) lines.push_back(l);
  auto fail = [&](int line, const std::string& what) {
    problems.push_back(datasheet + ":" + std::to_string(line) + ": " + what);
    return c;
  };
  if (lines.size() < 4 || lines[0].rfind("# ", 0) != 0 || !lines[1].empty()) return fail(1, "no title followed by a blank line");
  const size_t n = card_parts.size();
  auto cells = [](const std::string& l, std::string& a, std::string& b) {
    if (l.size() < 2 || l.front() != '|' || l.back() != '|') return false;
    const size_t mid = l.find('|', 1);
    if (mid == std::string::npos || l.find('|', mid + 1) != l.size() - 1) return false;
    a = trim(l.substr(1, mid - 1));
    b = trim(l.substr(mid + 1, l.size() - mid - 2));
    return true;
  };
  std::string a, b, bad;
  if (!cells(lines[2], a, b) || a != "block") return fail(3, "the block card must start with | block | `name` |");
  c.blocks = cell_items(b, bad);
  if (c.blocks.empty()) return fail(3, "the card names no block" + (bad.empty() ? "" : ": " + bad));
  if (lines[3] != "|---|---|") return fail(4, "expected |---|---|");
  for (size_t i = 0; i < n; ++i) {
    const int line = int(i) + 5;
    if (4 + i >= lines.size() || !cells(lines[4 + i], a, b) || a != card_parts[i]) return fail(line, "expected the row | " + card_parts[i] + " | ... |");
    bad.clear();
    card_row row{a, cell_items(b, bad), line};
    if (!bad.empty()) return fail(line, card_parts[i] + ": not a `path` or a key: " + bad);
    c.rows.push_back(row);
  }
  return c;
}

std::string read_text(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Every source file of systemc/ in one string, to find the declared configuration keys.
const std::string& systemc_sources(const fs::path& root) {
  static const std::string all = [&] {
    std::string s;
    for (const auto& e : fs::recursive_directory_iterator(root / "systemc"))
      if (e.path().extension() == ".cpp" || e.path().extension() == ".h") s += read_text(e.path());
    return s;
  }();
  return all;
}

// A path that does not exist, or a key or key prefix no string literal in systemc/ starts with.
std::vector<std::string> check_card(const block_card& c, const fs::path& root) {
  std::vector<std::string> problems;
  for (const card_row& r : c.rows)
    for (const std::string& item : r.items) {
      const std::string where = c.datasheet + ":" + std::to_string(r.line) + ": " + r.part + " ";
      if (r.part == "keys") {
        if (systemc_sources(root).find("\"" + item) == std::string::npos)
          problems.push_back(where + item + ": no such configuration key is declared");
      } else if (!fs::is_regular_file(root / item)) {
        problems.push_back(where + item + ": no such file");
      }
    }
  return problems;
}

// Every RTL block, every file of a block's cosim folder and every waveform save file is listed
// by some card.
std::vector<std::string> unlisted(const std::vector<block_card>& cards, const fs::path& root) {
  std::set<std::string> listed;
  for (const block_card& c : cards)
    for (const card_row& r : c.rows) listed.insert(r.items.begin(), r.items.end());
  std::vector<std::string> need, problems;
  for (const auto& e : fs::directory_iterator(root / "rtl"))
    if (e.path().extension() == ".sv") need.push_back("rtl/" + e.path().filename().string());
  for (const auto& e : fs::directory_iterator(root / "waveforms"))
    if (e.path().extension() == ".gtkw") need.push_back("waveforms/" + e.path().filename().string());
  for (const auto& d : fs::directory_iterator(root / "cosim")) {
    if (!d.is_directory() || d.path().filename() == "harness") continue;   // shared, not a block
    for (const auto& e : fs::directory_iterator(d.path()))
      need.push_back("cosim/" + d.path().filename().string() + "/" + e.path().filename().string());
  }
  for (const std::string& p : need)
    if (!listed.count(p)) problems.push_back(p + ": exists, but no datasheet card lists it");
  return problems;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += "\n  " + x;
  return s;
}

std::vector<block_card> all_cards(std::vector<std::string>& problems) {
  std::vector<block_card> cards;
  const fs::path dir = fs::path(NETASIC_SOURCE_DIR) / "docs" / "datasheets";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".md") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files)
    cards.push_back(parse_card("docs/datasheets/" + f.filename().string(), read_text(f), problems));
  return cards;
}

// The control: a card planted with a wrong path and an undeclared key.
const char* planted =
    "# Datasheet: a planted block\n"
    "\n"
    "| block | `planted` |\n"
    "|---|---|\n"
    "| core | `systemc/blocks/crc_hash.h`, `systemc/blocks/no_such_block.h` |\n"
    "| model | — |\n"
    "| rtl | — |\n"
    "| adapter | — |\n"
    "| bench | — |\n"
    "| waveform | — |\n"
    "| unit test | `testbenches/unit/test_no_such_block.cpp` |\n"
    "| system tests | — |\n"
    "| scenarios | — |\n"
    "| keys | `switch.hash`, `no_such_section.` |\n";

}  // namespace

TEST(Datasheets, EveryCardIsWellFormedAndEveryPathExists) {
  std::vector<std::string> problems;
  const std::vector<block_card> cards = all_cards(problems);
  ASSERT_GE(cards.size(), 18u);
  for (const block_card& c : cards) {
    const std::vector<std::string> p = check_card(c, NETASIC_SOURCE_DIR);
    problems.insert(problems.end(), p.begin(), p.end());
  }
  EXPECT_TRUE(problems.empty()) << joined(problems);
}

TEST(Datasheets, EveryRtlBlockCosimFileAndWaveformIsOnACard) {
  std::vector<std::string> problems;
  const std::vector<block_card> cards = all_cards(problems);
  ASSERT_TRUE(problems.empty()) << joined(problems);
  const std::vector<std::string> p = unlisted(cards, NETASIC_SOURCE_DIR);
  EXPECT_TRUE(p.empty()) << joined(p);
}

TEST(Datasheets, APlantedCardWithAMissingPathIsReported) {
  std::vector<std::string> problems;
  const block_card c = parse_card("planted.md", planted, problems);
  ASSERT_TRUE(problems.empty()) << joined(problems);
  const std::vector<std::string> p = check_card(c, NETASIC_SOURCE_DIR);
  const std::vector<std::string> expect = {
      "planted.md:5: core systemc/blocks/no_such_block.h: no such file",
      "planted.md:11: unit test testbenches/unit/test_no_such_block.cpp: no such file",
      "planted.md:14: keys no_such_section.: no such configuration key is declared"};
  EXPECT_EQ(p, expect) << joined(p);
}

TEST(Datasheets, APlantedCardOfTheWrongShapeIsReported) {
  auto planted_with = [](const std::string& from, const std::string& to) {
    std::string s = planted;
    return s.replace(s.find(from), from.size(), to);
  };
  std::vector<std::string> problems;
  parse_card("a.md", planted_with("| rtl | — |\n", ""), problems);   // a row left out
  parse_card("b.md", planted_with("`planted`", "planted"), problems);   // no backticks
  parse_card("c.md", planted_with("| model | — |", "| model | x.h |"), problems);
  const std::vector<std::string> expect = {"a.md:7: expected the row | rtl | ... |",
                                           "b.md:3: the card names no block: planted",
                                           "c.md:6: model: not a `path` or a key: x.h"};
  EXPECT_EQ(problems, expect) << joined(problems);
  // A card that lists nothing from rtl/, cosim/ or waveforms/ leaves every RTL block unlisted.
  problems.clear();
  const std::vector<std::string> p = unlisted({parse_card("planted.md", planted, problems)}, NETASIC_SOURCE_DIR);
  EXPECT_NE(std::find(p.begin(), p.end(), "rtl/crc_hash.sv: exists, but no datasheet card lists it"), p.end()) << joined(p);
}
