// Typed parameters: declarations, TOML loading and its error messages, --set overrides, the
// resolved-config round trip and the `netasic params` listing. Uses a local registry only.
#include "common/params.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

namespace netasic {
namespace {

param_registry make_registry() {
  param_registry r;
  r.integer("topology.leaves", "switches", 8, 1, 64, "number of leaf switches");
  r.integer("topology.spines", "switches", 4, 1, 32, "number of spine switches");
  r.real("link.rate", "Gbps", 100, 1, 1e6, "line rate of every link");
  r.real("traffic.load", "fraction", 0.5, 0, 1, "offered load per host");
  r.real("traffic.skew", "", 0.25, 1, 0, "unbounded real (min > max)");
  r.integer("traffic.incast.senders", "hosts", 16, 1, 1024, "senders per incast event");
  r.boolean("switch.ecn", true, "mark ECN instead of dropping");
  r.string("run.name", "baseline", "label of the run");
  r.choice("fabric.routing", "ecmp", {"ecmp", "spray", "adaptive"}, "load balancing");
  r.string_list("workload.cdfs", "", {"websearch", "hadoop"}, "flow-size distributions");
  return r;
}

// A file under the test temp dir, named after the running test so parallel tests do not collide.
std::string write_file(const std::string& text) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string path = ::testing::TempDir() + "netasic_params_" + info->name() + ".toml";
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Message of the config_error thrown by load_config, or "" when nothing is thrown.
std::string load_error(const std::string& text, const std::vector<std::string>& overrides = {}) {
  static const param_registry reg = make_registry();
  std::string path = write_file(text);
  try {
    load_config(path, overrides, reg);
  } catch (const config_error& e) {
    return e.what();
  }
  return "";
}

std::string file_name() { return write_file(""); }

// Compares every key of two configs, bit-exactly for reals.
void expect_same(const param_registry& reg, const config& a, const config& b) {
  for (const param_def& d : reg.all()) {
    SCOPED_TRACE(d.key);
    switch (d.type) {
      case param_type::integer: EXPECT_EQ(a.integer(d.key), b.integer(d.key)); break;
      case param_type::real: {
        double x = a.real(d.key), y = b.real(d.key);
        EXPECT_EQ(std::memcmp(&x, &y, sizeof x), 0) << x << " vs " << y;
        break;
      }
      case param_type::boolean: EXPECT_EQ(a.boolean(d.key), b.boolean(d.key)); break;
      case param_type::string:
      case param_type::choice: EXPECT_EQ(a.string(d.key), b.string(d.key)); break;
      case param_type::string_list: EXPECT_EQ(a.list(d.key), b.list(d.key)); break;
    }
  }
}

TEST(Params, DeclaringTwiceIsABug) {
  param_registry r = make_registry();
  EXPECT_THROW(r.integer("topology.leaves", "", 1, 0, 2, "again"), std::logic_error);
  EXPECT_THROW(r.boolean("topology.leaves", true, "again, other type"), std::logic_error);
  // A key cannot also be a table.
  EXPECT_THROW(r.integer("topology.leaves.x", "", 1, 0, 2, "under a key"), std::logic_error);
  EXPECT_THROW(r.integer("traffic.incast", "", 1, 0, 2, "over a table"), std::logic_error);
  EXPECT_THROW(r.integer("nosection", "", 1, 0, 2, "undotted"), std::logic_error);
  EXPECT_THROW(r.integer("a.b", "", 5, 0, 2, "default out of range"), std::logic_error);
  EXPECT_THROW(r.choice("a.c", "x", {"y", "z"}, "default not a choice"), std::logic_error);
  EXPECT_EQ(r.all().size(), make_registry().all().size());
}

TEST(Params, Defaults) {
  param_registry reg = make_registry();
  config c = default_config(reg);
  EXPECT_EQ(c.integer("topology.leaves"), 8);
  EXPECT_EQ(c.integer("traffic.incast.senders"), 16);
  EXPECT_DOUBLE_EQ(c.real("traffic.load"), 0.5);
  EXPECT_DOUBLE_EQ(c.real("topology.leaves"), 8.0);  // integers read as reals too
  EXPECT_TRUE(c.boolean("switch.ecn"));
  EXPECT_EQ(c.string("run.name"), "baseline");
  EXPECT_EQ(c.string("fabric.routing"), "ecmp");
  EXPECT_EQ(c.list("workload.cdfs"), (std::vector<std::string>{"websearch", "hadoop"}));
  EXPECT_EQ(c.origin("topology.leaves"), "default");
  EXPECT_EQ(reg.find("topology.leaves")->default_value, "8");
  EXPECT_EQ(reg.find("link.rate")->default_value, "100.0");
  EXPECT_EQ(reg.find("nope.nope"), nullptr);
}

TEST(Params, GettersRejectUndeclaredKeysAndWrongTypes) {
  param_registry reg = make_registry();
  config c = default_config(reg);
  EXPECT_THROW(c.integer("topology.leafs"), std::logic_error);
  EXPECT_THROW(c.integer("traffic.load"), std::logic_error);
  EXPECT_THROW(c.boolean("run.name"), std::logic_error);
  EXPECT_THROW(c.string("workload.cdfs"), std::logic_error);
  EXPECT_THROW(c.list("run.name"), std::logic_error);
  EXPECT_THROW(c.origin("nope.nope"), std::logic_error);
}

TEST(Params, LoadsTablesNestedTablesAndDottedKeys) {
  param_registry reg = make_registry();
  std::string path = write_file(
      "# scenario\n"
      "[topology]\n"
      "leaves = 16\n"
      "\n"
      "[traffic]\n"
      "load = 1\n"                // integer accepted for a real key
      "incast.senders = 32\n"     // dotted key inside a table
      "\n"
      "[fabric]\n"
      "routing = \"spray\"\n"
      "[workload]\n"
      "cdfs = []\n"
      "[switch]\n"
      "ecn = false\n");
  config c = load_config(path, {}, reg);
  EXPECT_EQ(c.integer("topology.leaves"), 16);
  EXPECT_EQ(c.origin("topology.leaves"), path + ":3");
  EXPECT_EQ(c.real("traffic.load"), 1.0);
  EXPECT_EQ(c.origin("traffic.load"), path + ":6");
  EXPECT_EQ(c.integer("traffic.incast.senders"), 32);
  EXPECT_EQ(c.origin("traffic.incast.senders"), path + ":7");
  EXPECT_EQ(c.string("fabric.routing"), "spray");
  EXPECT_TRUE(c.list("workload.cdfs").empty());
  EXPECT_FALSE(c.boolean("switch.ecn"));
  EXPECT_EQ(c.integer("topology.spines"), 4);
  EXPECT_EQ(c.origin("topology.spines"), "default");
  EXPECT_EQ(c.source_file(), path);

  // Root-level dotted keys and a nested table header.
  path = write_file("topology.spines = 2\n[traffic.incast]\nsenders = 3\n");
  c = load_config(path, {}, reg);
  EXPECT_EQ(c.integer("topology.spines"), 2);
  EXPECT_EQ(c.integer("traffic.incast.senders"), 3);
  EXPECT_EQ(c.origin("traffic.incast.senders"), path + ":3");
}

TEST(Params, MissingFile) {
  param_registry reg = make_registry();
  std::string path = ::testing::TempDir() + "netasic_params_does_not_exist.toml";
  try {
    load_config(path, {}, reg);
    FAIL() << "no error";
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(Params, SyntaxErrorNamesFileLineAndColumn) {
  std::string msg = load_error("[topology]\nleaves = 8\nspines = = 4\n");
  std::string f = file_name();
  EXPECT_NE(msg.find(f + ":3:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("TOML syntax error"), std::string::npos) << msg;
  // Duplicate keys are a TOML error too.
  msg = load_error("[topology]\nleaves = 8\nleaves = 9\n");
  EXPECT_NE(msg.find(f + ":3:"), std::string::npos) << msg;
}

TEST(Params, UnknownKeySuggestsClosest) {
  std::string msg = load_error("[topology]\nspines = 2\nleafs = 8\n");
  EXPECT_NE(msg.find(file_name() + ":3: unknown key 'topology.leafs'; did you mean 'topology.leaves'?"),
            std::string::npos)
      << msg;
  // Misspelled section.
  msg = load_error("\n[topolgy]\nleaves = 8\n");
  EXPECT_NE(msg.find(":3: unknown key 'topolgy.leaves'; did you mean 'topology.leaves'?"), std::string::npos)
      << msg;
  // Right name, wrong section.
  msg = load_error("[traffic]\nleaves = 8\n");
  EXPECT_NE(msg.find("did you mean 'topology.leaves'?"), std::string::npos) << msg;
  // Nothing close: no guess, point at the listing.
  msg = load_error("[topology]\nfrobnicate = 8\n");
  EXPECT_NE(msg.find(":2: unknown key 'topology.frobnicate'"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("did you mean"), std::string::npos) << msg;
  EXPECT_NE(msg.find("netasic params topology"), std::string::npos) << msg;
  // Empty unknown table.
  msg = load_error("[topolgy]\n");
  EXPECT_NE(msg.find(":1: unknown table 'topolgy'; did you mean 'topology'?"), std::string::npos) << msg;
}

TEST(Params, ClosestKey) {
  param_registry reg = make_registry();
  EXPECT_EQ(reg.closest_key("topology.leafs"), "topology.leaves");
  EXPECT_EQ(reg.closest_key("topology.spine"), "topology.spines");
  EXPECT_EQ(reg.closest_key("traffic.incast_senders"), "traffic.incast.senders");
  EXPECT_EQ(reg.closest_key("traffic.incast.foo"), "");
  EXPECT_EQ(reg.closest_key("zzz.qqq"), "");
}

TEST(Params, AllErrorsOfAFileAreReportedInFileOrder) {
  std::string msg = load_error("[topology]\nspines = 0\nleafs = 8\n");
  size_t a = msg.find(":2: key 'topology.spines'"), b = msg.find(":3: unknown key 'topology.leafs'");
  ASSERT_NE(a, std::string::npos) << msg;
  ASSERT_NE(b, std::string::npos) << msg;
  EXPECT_LT(a, b);
}

TEST(Params, WrongType) {
  std::string f = file_name();
  std::string msg = load_error("[topology]\nleaves = \"8\"\n");
  EXPECT_NE(msg.find(f + ":2: key 'topology.leaves': expected an integer, got a string \"8\""), std::string::npos)
      << msg;
  // An integral float is still not an integer.
  msg = load_error("[topology]\n\nleaves = 8.0\n");
  EXPECT_NE(msg.find(f + ":3: key 'topology.leaves': expected an integer, got a float 8.0"), std::string::npos)
      << msg;
  msg = load_error("[switch]\necn = 1\n");
  EXPECT_NE(msg.find(":2: key 'switch.ecn': expected a boolean"), std::string::npos) << msg;
  msg = load_error("[switch]\necn = \"true\"\n");
  EXPECT_NE(msg.find(":2: key 'switch.ecn'"), std::string::npos) << msg;
  msg = load_error("[traffic]\nload = \"0.5\"\n");
  EXPECT_NE(msg.find(":2: key 'traffic.load': expected a number, got a string \"0.5\""), std::string::npos) << msg;
  msg = load_error("[run]\nname = 3\n");
  EXPECT_NE(msg.find(":2: key 'run.name': expected a string, got an integer 3"), std::string::npos) << msg;
  msg = load_error("[workload]\ncdfs = \"websearch\"\n");
  EXPECT_NE(msg.find(":2: key 'workload.cdfs': expected an array of strings"), std::string::npos) << msg;
  msg = load_error("[workload]\ncdfs = [\"a\", 3]\n");
  EXPECT_NE(msg.find(":2: key 'workload.cdfs': expected an array of strings, got an array containing an integer 3"),
            std::string::npos)
      << msg;
}

TEST(Params, TableVersusValue) {
  // A table where a value belongs.
  std::string msg = load_error("[topology.leaves]\nx = 1\n");
  EXPECT_NE(msg.find(":1: key 'topology.leaves': expected an integer, got a table"), std::string::npos) << msg;
  msg = load_error("[topology]\nleaves = { n = 8 }\n");
  EXPECT_NE(msg.find(":2: key 'topology.leaves': expected an integer, got a table"), std::string::npos) << msg;
  // A value where a table belongs.
  msg = load_error("topology = 8\n");
  EXPECT_NE(msg.find(":1: key 'topology': expected a table"), std::string::npos) << msg;
  msg = load_error("[traffic]\nincast = 3\n");
  EXPECT_NE(msg.find(":2: key 'traffic.incast': expected a table"), std::string::npos) << msg;
}

TEST(Params, OutOfRangeIsRejectedNotClamped) {
  std::string f = file_name();
  std::string msg = load_error("[traffic]\nload = 1.5\n");
  EXPECT_NE(msg.find(f + ":2: key 'traffic.load': 1.5 is out of range [0, 1] (unit: fraction)"), std::string::npos)
      << msg;
  msg = load_error("[topology]\nleaves = 0\n");
  EXPECT_NE(msg.find(":2: key 'topology.leaves': 0 is out of range [1, 64] (unit: switches)"), std::string::npos)
      << msg;
  msg = load_error("[topology]\nleaves = 65\n");
  EXPECT_NE(msg.find("65 is out of range [1, 64]"), std::string::npos) << msg;
  msg = load_error("[traffic]\nload = nan\n");
  EXPECT_NE(msg.find(":2: key 'traffic.load'"), std::string::npos) << msg;
  // Bounds are inclusive; a real without a range takes anything finite.
  param_registry reg = make_registry();
  config c = load_config(write_file("[topology]\nleaves = 64\n[traffic]\nload = 0.0\nskew = -1e300\n"), {}, reg);
  EXPECT_EQ(c.integer("topology.leaves"), 64);
  EXPECT_EQ(c.real("traffic.load"), 0.0);
  EXPECT_EQ(c.real("traffic.skew"), -1e300);
}

TEST(Params, ChoiceListsValidChoices) {
  std::string msg = load_error("[fabric]\nrouting = \"ecmpp\"\n");
  EXPECT_NE(msg.find(":2: key 'fabric.routing': \"ecmpp\" is not a valid choice; expected one of \"ecmp\", "
                     "\"spray\", \"adaptive\""),
            std::string::npos)
      << msg;
}

TEST(Params, OverridesApplyInOrderAndReportOrigin) {
  param_registry reg = make_registry();
  std::string path = write_file("[topology]\nleaves = 16\n");
  config c = load_config(path,
                         {"topology.leaves=4", "traffic.load=0.25", "topology.leaves = 1_0", "switch.ecn=false",
                          "run.name=\"my run\"", "fabric.routing=adaptive", "workload.cdfs=a, b,c",
                          "link.rate=1e3"},
                         reg);
  EXPECT_EQ(c.integer("topology.leaves"), 10);  // the later --set wins
  EXPECT_EQ(c.origin("topology.leaves"), "--set");
  EXPECT_EQ(c.real("traffic.load"), 0.25);
  EXPECT_FALSE(c.boolean("switch.ecn"));
  EXPECT_EQ(c.string("run.name"), "my run");
  EXPECT_EQ(c.string("fabric.routing"), "adaptive");
  EXPECT_EQ(c.list("workload.cdfs"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(c.real("link.rate"), 1000.0);
  EXPECT_EQ(c.origin("topology.spines"), "default");

  c = load_config(path, {"workload.cdfs=[\"x,y\", \"z\"]", "workload.cdfs=[]"}, reg);
  EXPECT_TRUE(c.list("workload.cdfs").empty());
  c = load_config(path, {"workload.cdfs=[\"x,y\", \"z\"]"}, reg);
  EXPECT_EQ(c.list("workload.cdfs"), (std::vector<std::string>{"x,y", "z"}));
  c = load_config(path, {"workload.cdfs="}, reg);
  EXPECT_TRUE(c.list("workload.cdfs").empty());
}

TEST(Params, OverrideErrors) {
  EXPECT_EQ(load_error("", {"topology.leafs=4"}),
            "--set topology.leafs=4: unknown key 'topology.leafs'; did you mean 'topology.leaves'?");
  std::string msg = load_error("", {"topology.leaves"});
  EXPECT_NE(msg.find("--set topology.leaves"), std::string::npos) << msg;
  EXPECT_NE(msg.find("KEY=VALUE"), std::string::npos) << msg;
  msg = load_error("", {"topology.leaves=abc"});
  EXPECT_NE(msg.find("--set topology.leaves=abc: key 'topology.leaves': expected an integer"), std::string::npos)
      << msg;
  for (const char* bad : {"topology.leaves=8.0", "topology.leaves=1e3", "topology.leaves=", "topology.leaves=4x",
                          "topology.leaves=99999999999999999999", "topology.leaves=+-4", "topology.leaves=_4"}) {
    EXPECT_NE(load_error("", {bad}).find("key 'topology.leaves': expected an integer"), std::string::npos) << bad;
  }
  msg = load_error("", {"traffic.load=2"});
  EXPECT_NE(msg.find("--set traffic.load=2: key 'traffic.load': 2 is out of range [0, 1] (unit: fraction)"),
            std::string::npos)
      << msg;
  msg = load_error("", {"switch.ecn=yes"});
  EXPECT_NE(msg.find("--set switch.ecn=yes: key 'switch.ecn': expected a boolean"), std::string::npos) << msg;
  msg = load_error("", {"fabric.routing=random"});
  EXPECT_NE(msg.find("\"random\" is not a valid choice; expected one of \"ecmp\", \"spray\", \"adaptive\""),
            std::string::npos)
      << msg;
  msg = load_error("", {"topology=3"});
  EXPECT_NE(msg.find("--set topology=3: 'topology' is a table"), std::string::npos) << msg;
  msg = load_error("", {"workload.cdfs=[1, 2]"});
  EXPECT_NE(msg.find("--set workload.cdfs=[1, 2]: key 'workload.cdfs': expected an array of strings"),
            std::string::npos)
      << msg;
  // File errors come before any override is looked at.
  msg = load_error("[topology]\nleaves = 0\n", {"nope.nope=1"});
  EXPECT_NE(msg.find(":2: key 'topology.leaves'"), std::string::npos) << msg;
}

TEST(Params, SetFromTextRecordsOrigin) {
  param_registry reg = make_registry();
  config c = default_config(reg);
  c.set_from_text("topology.spines", "7", "sweep");
  EXPECT_EQ(c.integer("topology.spines"), 7);
  EXPECT_EQ(c.origin("topology.spines"), "sweep");
  try {
    c.set_from_text("topology.spines", "70", "sweep");
    FAIL() << "no error";
  } catch (const config_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "sweep topology.spines=70: key 'topology.spines': 70 is out of range [1, 32] (unit: switches)");
  }
  EXPECT_EQ(c.integer("topology.spines"), 7);  // a rejected value leaves the old one
}

TEST(Params, ToTomlRoundTripIsExact) {
  param_registry reg = make_registry();
  config c = default_config(reg);
  c.set_from_text("topology.leaves", "63", "test");
  c.set_from_text("link.rate", "5", "test");  // integral real must still be written as a float
  c.set_from_text("traffic.load", "0.1", "test");
  c.set_from_text("traffic.skew", "0.30000000000000004", "test");
  c.set_from_text("traffic.incast.senders", "1000", "test");
  c.set_from_text("switch.ecn", "false", "test");
  c.set_from_text("run.name", "quote \" back\\slash tab\t nl\n ctl\x01 héllo #x", "test");
  c.set_from_text("fabric.routing", "spray", "test");
  c.set_from_text("workload.cdfs", "[\"a,b\", \"\\\"q\\\"\", \"\"]", "test");

  std::string text = c.to_toml();
  EXPECT_NE(text.find("\n[topology]\nleaves = 63"), std::string::npos) << text;
  EXPECT_NE(text.find("rate = 5.0  # Gbps — line rate of every link\n"), std::string::npos) << text;
  EXPECT_NE(text.find("load = 0.1                  # fraction"), std::string::npos) << text;  // aligned comments
  EXPECT_NE(text.find("\n[traffic.incast]\nsenders = 1000"), std::string::npos) << text;
  EXPECT_NE(text.find("skew = 0.30000000000000004  # unbounded real (min > max)\n"), std::string::npos) << text;
  EXPECT_LT(text.find("[traffic]"), text.find("[traffic.incast]"));
  EXPECT_EQ(text, c.to_toml());  // deterministic

  config back = load_config(write_file(text), {}, reg);
  expect_same(reg, c, back);
  EXPECT_EQ(back.to_toml(), text);
  EXPECT_EQ(back.origin("topology.leaves").find(back.source_file() + ":"), 0u);

  // Reals that need all 17 digits, extremes and signs.
  for (double x : {1.0 / 3.0, 2.0 / 3.0, 1e-300, -2.5e300, 5e-324, -0.0, 123456789012345678.0}) {
    config d = default_config(reg);
    std::ostringstream os;
    os.precision(17);
    os << x;
    d.set_from_text("traffic.skew", os.str(), "test");
    config e = load_config(write_file(d.to_toml()), {}, reg);
    double y = e.real("traffic.skew");
    EXPECT_EQ(std::memcmp(&x, &y, sizeof x), 0) << os.str() << " -> " << y;
  }
  // Defaults round trip too.
  config def = default_config(reg);
  expect_same(reg, def, load_config(write_file(def.to_toml()), {}, reg));
}

TEST(Params, PrintFiltersByPrefix) {
  param_registry reg = make_registry();
  std::ostringstream os;
  reg.print(os, "topology");
  std::string out = os.str();
  EXPECT_NE(out.find("topology.leaves"), std::string::npos) << out;
  EXPECT_NE(out.find("topology.spines"), std::string::npos) << out;
  EXPECT_EQ(out.find("traffic"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 3) << out;  // header + 2 keys
  // Aligned: every row's type column starts at the same offset.
  std::istringstream lines(out);
  std::string header, row;
  std::getline(lines, header);
  size_t col = header.find("TYPE");
  while (std::getline(lines, row)) EXPECT_EQ(row.find("integer"), col) << row;
  EXPECT_NE(out.find("[1, 64]"), std::string::npos) << out;
  EXPECT_NE(out.find("number of leaf switches"), std::string::npos) << out;

  std::ostringstream os_all;
  reg.print(os_all);
  std::string all = os_all.str();
  EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), long(reg.all().size()) + 1);
  EXPECT_NE(all.find("ecmp|spray|adaptive"), std::string::npos) << all;

  std::ostringstream none;
  reg.print(none, "zzz");
  EXPECT_EQ(none.str(), "");
}

TEST(Params, Markdown) {
  std::string md = make_registry().markdown();
  EXPECT_EQ(md.find("## topology\n\n| key | type | default | unit | range | meaning |\n"), 0u) << md;
  EXPECT_NE(md.find("| `topology.leaves` | integer | `8` | switches | [1, 64] | number of leaf switches |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("## traffic\n"), std::string::npos) << md;
  EXPECT_EQ(md.find("## traffic.incast"), std::string::npos) << md;  // deeper keys stay in their top section
  EXPECT_NE(md.find("| `traffic.incast.senders` |"), std::string::npos) << md;
  EXPECT_NE(md.find("`ecmp`, `spray`, `adaptive`"), std::string::npos) << md;
}

}  // namespace
}  // namespace netasic
