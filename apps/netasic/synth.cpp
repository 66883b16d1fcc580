#include "synth.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/file_io.h"
#include "common/text.h"
#include "rtl_blocks.h"   // generated from rtl/blocks.txt

namespace fs = std::filesystem;

namespace netasic {

std::vector<std::string> rtl_block_names() {
#define NETASIC_BLOCK_NAME(b) #b,
  return {NETASIC_RTL_BLOCKS(NETASIC_BLOCK_NAME)};
#undef NETASIC_BLOCK_NAME
}

namespace {

// Yosys writes parameters in JSON as binary strings (or plain numbers in newer versions).
uint64_t json_param(const nlohmann::json& v) {
  if (v.is_number()) return v.get<uint64_t>();
  const std::string s = v.get<std::string>();
  uint64_t x = 0;
  for (char c : s) x = (x << 1) | (c == '1' ? 1 : 0);
  return x;
}

bool is_storage(const std::string& type) {
  for (const char* p : {"$_DFF", "$_SDFF", "$_DFFE", "$_SDFFE", "$_SDFFCE", "$_ALDFF", "$_DFFSR", "$_DLATCH", "$_SR_"})
    if (type.rfind(p, 0) == 0) return true;
  return false;
}

// A Verilog number, decimal or sized ('h, 'd, 'o, 'b): what -p takes, and a default the -p value
// is compared with; nullopt for anything else (an expression) or past 64 bits.
std::optional<uint64_t> literal_value(const std::string& text) {
  std::smatch m;
  if (std::regex_match(text, m, std::regex("([0-9][0-9_]*)|[0-9]*'[sS]?([bodhBODH])([0-9a-fA-F_]+)"))) {
    const char b = m[1].matched ? 'd' : char(std::tolower(static_cast<unsigned char>(m[2].str()[0])));
    const unsigned base = b == 'b' ? 2 : b == 'o' ? 8 : b == 'd' ? 10 : 16;
    std::string digits = m[1].matched ? m[1].str() : m[3].str();
    digits.erase(std::remove(digits.begin(), digits.end(), '_'), digits.end());
    uint64_t v = 0;
    for (char c : digits) {
      const unsigned d = unsigned(std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(c) - 'a' + 10);
      if (d >= base || v > (UINT64_MAX - d) / base) return std::nullopt;
      v = v * base + d;
    }
    return v;
  }
  return std::nullopt;
}

std::string source_of(const std::string& rtl_dir, const std::string& block) {
  std::ifstream in(fs::path(rtl_dir) / (block + ".sv"));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The block's file and the files of the blocks it instantiates, and no others. Yosys numbers every
// name it reads and maps in an order that follows those numbers, so reading an unrelated file
// first moved a block's count: editing the flowlet table's RTL moved the stateful ALU's by 76 cells.
std::vector<std::string> files_of(const std::string& rtl_dir, const std::string& block, const std::vector<std::string>& blocks) {
  static const std::regex comment("//[^\n]*|/\\*[\\s\\S]*?\\*/");
  std::vector<std::string> files{block};
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string code = std::regex_replace(source_of(rtl_dir, files[i]), comment, " ");
    for (const auto& b : blocks) {
      if (std::find(files.begin(), files.end(), b) != files.end()) continue;
      if (std::regex_search(code, std::regex("(^|[^A-Za-z0-9_$])" + b + "\\s*(#|[A-Za-z_])"))) files.push_back(b);
    }
  }
  return files;
}

}  // namespace

synth_result synthesize(const std::string& rtl_dir, const std::string& block, const std::vector<std::string>& params) {
  const auto blocks = rtl_block_names();
  if (std::find(blocks.begin(), blocks.end(), block) == blocks.end())
    throw std::invalid_argument(fmt::format("no RTL for block '{}' in {} (blocks: {})", block, rtl_dir, fmt::join(blocks, ", ")));
  // The block's parameters and their defaults, so that a misspelt -p is named before Yosys runs.
  std::vector<std::string> known;
  std::map<std::string, std::string> defaults;
  {
    const std::string t = source_of(rtl_dir, block);
    const std::regex decl("parameter\\s+(?:[a-z]+\\s+)*(?:\\[[^\\]]*\\]\\s*)?([A-Za-z_][A-Za-z0-9_]*)\\s*=\\s*([^,)/\\s]*)");
    for (auto it = std::sregex_iterator(t.begin(), t.end(), decl); it != std::sregex_iterator(); ++it) {
      known.push_back((*it)[1]);
      defaults[(*it)[1]] = (*it)[2];
    }
  }
  synth_result r;
  r.block = block;
  std::string chparam;
  for (const auto& p : params) {
    const auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == p.size())
      throw std::invalid_argument(fmt::format("-p '{}': expected NAME=VALUE, e.g. -p ENTRIES=4096", p));
    const std::string name = p.substr(0, eq), value = p.substr(eq + 1);
    const auto given = literal_value(value);
    if (!std::regex_match(name, std::regex("[A-Za-z_][A-Za-z0-9_]*")) || !given)
      throw std::invalid_argument(fmt::format("-p '{}': NAME must be a Verilog identifier and VALUE a number of at most 64 bits", p));
    if (std::find(known.begin(), known.end(), name) == known.end())
      throw std::invalid_argument(fmt::format("-p '{}': {} has no parameter {} (parameters: {})", p, block, name, fmt::join(known, ", ")));
    // A count or a width (by its name: ENTRIES, BUCKETS, CELLS, ..._BITS, ...WIDTH, PORTS, HOPS,
    // ..._BYTES, CLOCK_PERIOD_PS; a SystemVerilog int): 0 and values past 2^31 - 1 cannot build.
    // Constants such as a CRC's POLY, INIT or XOROUT may be 0.
    static const std::regex sized("(.*_)?(ENTRIES|BUCKETS|CELLS|BITS|WIDTH|PORTS|HOPS|BYTES|PERIOD_PS)");
    if (std::regex_match(name, sized) && std::regex_match(value, std::regex("[0-9]+")) &&
        (value.size() > 10 || std::stoull(value) == 0 || std::stoull(value) > 2147483647ull))
      throw std::invalid_argument(fmt::format("-p '{}': {} must be a whole number from 1 to 2147483647", p, name));
    r.params.emplace_back(name, value);
    // A value equal to the default is the same design: Yosys is not told, since a chparam
    // re-elaborates the module under new names and moves the count (crc_hash: 1,381 cells with
    // -p KEY_BYTES=13, 1,376 without).
    const auto fixed = literal_value(defaults[name]);
    if (!(fixed && *given == *fixed)) chparam += fmt::format("chparam -set {} {} {}\n", name, value, block);
  }

  const fs::path tmp = fs::temp_directory_path() / fmt::format("netasic-synth-{}-{}", getpid(), block);
  fs::create_directories(tmp);
  std::string reads;
  for (const auto& b : files_of(rtl_dir, block, blocks)) reads += fmt::format("read_verilog -sv \"{}\"\n", (fs::path(rtl_dir) / (b + ".sv")).string());
  // Yosys' generic synth up to the fine step, then the fine step without memory_map.
  write_file((tmp / "synth.ys").string(), reads + chparam + "synth -top " + block + " -run begin:fine\n" +
                                              "opt -fast -full\ntechmap\nopt -fast\nabc -fast\nopt -fast\n" +
                                              "write_json \"" + (tmp / "netlist.json").string() + "\"\n");
  const std::string cmd = fmt::format("yosys -q -s {} > {} 2>&1", shell_quote((tmp / "synth.ys").string()),
                                      shell_quote((tmp / "yosys.log").string()));
  const int rc = std::system(cmd.c_str());
  if (rc != 0) {
    std::ifstream log(tmp / "yosys.log");
    std::stringstream text;
    text << log.rdbuf();
    fs::remove_all(tmp);
    if (rc == 127 * 256)   // the shell's "command not found"
      throw std::runtime_error("yosys not found: run scripts/setup.sh (it installs the Debian package yosys)");
    throw std::runtime_error(fmt::format("yosys failed on {}:\n{}", block, text.str()));
  }
  nlohmann::json net;
  std::ifstream(tmp / "netlist.json") >> net;
  fs::remove_all(tmp);
  for (const auto& [name, cell] : net["modules"][block]["cells"].items()) {
    const std::string type = cell["type"].get<std::string>();
    if (type == "$mem_v2" || type == "$mem") {
      ++r.memories;
      r.memory_bits += json_param(cell["parameters"]["SIZE"]) * json_param(cell["parameters"]["WIDTH"]);
    } else {
      ++r.cells;
      if (is_storage(type)) ++r.flip_flops;
    }
    ++r.cell_types[type];
  }
  return r;
}

std::string describe(const synth_result& r) {
  std::string params;
  for (const auto& [k, v] : r.params) params += fmt::format(" {}={}", k, v);
  std::string s = fmt::format("synth {}{}: Yosys generic cells, memories kept as memories\n", r.block,
                              params.empty() ? " at its default parameters" : params);
  s += fmt::format("  logic cells    {} cells\n", r.cells);
  s += fmt::format("  flip-flops     {} bits\n", r.flip_flops);
  s += fmt::format("  memories       {} ({} bits = {:.2f} KiB)\n", r.memories, r.memory_bits, double(r.memory_bits) / 8192.0);
  s += "  cell types    ";
  for (const auto& [t, n] : r.cell_types) s += fmt::format(" {}:{}", t, n);
  return s + "\n";
}

}  // namespace netasic
