// The include layers of docs/architecture.md: every `#include "..."` in systemc/, tlm/, cosim/
// and apps/ points into its own folder or into a folder on a lower layer. The order is read from
// the ```layers block of docs/architecture.md, so the page and the check cannot drift apart.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

// Folder name -> layer (0 is the bottom). Folders on one line share a layer and may not include
// each other.
std::map<std::string, int> read_layers(const fs::path& doc) {
  std::ifstream in(doc);
  std::vector<std::vector<std::string>> lines;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line == "```layers") { inside = true; continue; }
    if (inside && line.rfind("```", 0) == 0) break;
    if (!inside) continue;
    std::istringstream words(line.substr(0, line.find('#')));
    std::vector<std::string> folders;
    for (std::string w; words >> w;) folders.push_back(w);
    if (!folders.empty()) lines.push_back(folders);
  }
  std::map<std::string, int> layer;
  const int n = int(lines.size());
  for (int i = 0; i < n; ++i)   // the block lists the top layer first
    for (const auto& f : lines[i]) layer[f] = n - 1 - i;
  return layer;
}

// The folder a file or include path belongs to: systemc/<f>/..., tlm/..., cosim/..., apps/...
std::string folder_of_file(const fs::path& rel) {
  auto it = rel.begin();
  const std::string top = it->string();
  if (top == "systemc" && ++it != rel.end()) return it->string();
  return top;
}

struct violation {
  std::string where;   // file:line
  std::string text;
};

// Includes in `root` against `layer`. An include of a path not found under a known folder
// (a system or generated header, or one beside the file) is not the layers' business.
std::vector<violation> check_tree(const fs::path& root, const std::map<std::string, int>& layer) {
  static const std::regex inc(R"(^\s*#\s*include\s+"([^"]+)\")");
  std::vector<violation> out;
  for (const char* top : {"systemc", "tlm", "cosim", "apps"}) {
    if (!fs::exists(root / top)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root / top)) {
      const auto ext = e.path().extension();
      if (!e.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
      const fs::path rel = fs::relative(e.path(), root);
      const std::string from = folder_of_file(rel);
      std::ifstream in(e.path());
      std::string line;
      for (int n = 1; std::getline(in, line); ++n) {
        std::smatch m;
        if (!std::regex_search(line, m, inc)) continue;
        const std::string path = m[1];
        const auto slash = path.find('/');
        if (slash == std::string::npos) continue;   // beside the file
        const std::string to = path.substr(0, slash);
        const std::string where = rel.string() + ":" + std::to_string(n);
        if (to == "testbenches") {
          out.push_back({where, "includes from testbenches/: " + path});
          continue;
        }
        if (to == from || !layer.count(to)) continue;
        if (!layer.count(from)) {
          out.push_back({where, "folder '" + from + "' is not in the layers of docs/architecture.md"});
          continue;
        }
        if (layer.at(to) >= layer.at(from))
          out.push_back({where, "'" + from + "' includes " + path + ", a folder on " +
                                    (layer.at(to) == layer.at(from) ? "the same" : "a higher") + " layer"});
      }
    }
  }
  return out;
}

const fs::path source = NETASIC_SOURCE_DIR;

}  // namespace

TEST(Layers, DocumentNamesEveryFolder) {
  const auto layer = read_layers(source / "docs/architecture.md");
  ASSERT_FALSE(layer.empty()) << "docs/architecture.md has no ```layers block";
  for (const auto& e : fs::directory_iterator(source / "systemc")) {
    const std::string name = e.path().filename().string();
    if (!e.is_directory()) continue;
    EXPECT_TRUE(layer.count(name)) << "systemc/" << name << " has no layer";
  }
  for (const char* top : {"tlm", "cosim", "apps"}) {
    EXPECT_TRUE(layer.count(top)) << top << " has no layer";
  }
}

TEST(Layers, EveryIncludePointsDown) {
  const auto layer = read_layers(source / "docs/architecture.md");
  for (const auto& v : check_tree(source, layer)) ADD_FAILURE() << v.where << ": " << v.text;
}

// The control: the same check on a tree with one planted upward include, and one from
// testbenches/, must name both, with their file and line.
TEST(Layers, PlantedUpwardIncludeIsCaught) {
  const auto layer = read_layers(source / "docs/architecture.md");
  const fs::path root = fs::temp_directory_path() / ("netasic_layers_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "systemc/common");
  fs::create_directories(root / "systemc/switch");
  std::ofstream(root / "systemc/common/planted.h") << "#pragma once\n#include <vector>\n#include \"common/rng.h\"\n#include \"fabric/fabric.h\"\n";
  std::ofstream(root / "systemc/switch/planted.cpp") << "#include \"blocks/conga.h\"\n\n#include \"testbenches/golden.h\"\n";
  const auto found = check_tree(root, layer);
  fs::remove_all(root);
  ASSERT_EQ(found.size(), 2u);
  std::map<std::string, std::string> by_where;
  for (const auto& v : found) by_where[v.where] = v.text;
  EXPECT_TRUE(by_where.count("systemc/common/planted.h:4"));
  EXPECT_NE(by_where["systemc/common/planted.h:4"].find("fabric/fabric.h"), std::string::npos);
  EXPECT_TRUE(by_where.count("systemc/switch/planted.cpp:3"));
}
