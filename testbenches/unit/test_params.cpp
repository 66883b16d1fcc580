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
  r.integer_list("qos.pcp_to_tc", "", {0, 1, 2, 3, 4, 5, 6, 7}, 0, 7, 8, "one per priority: its traffic class");
  r.real_list("qos.shares", "fraction", {0.5, 0.25, 0.25}, 0, 1, 0, "bandwidth share of each class");
  r.integer_list("qos.ids", "", {}, 1, 0, 0, "unbounded integers (min > max)");
  r.real_list("qos.gains", "", {-1.5, 1e300}, 1, 0, 2, "unbounded reals (min > max), two of them");
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
      case param_type::integer_list: EXPECT_EQ(a.integers(d.key), b.integers(d.key)); break;
      case param_type::real_list: {
        const std::vector<double>&x = a.reals(d.key), &y = b.reals(d.key);
        ASSERT_EQ(x.size(), y.size());
        for (size_t k = 0; k < x.size(); ++k)
          EXPECT_EQ(std::memcmp(&x[k], &y[k], sizeof x[k]), 0) << k << ": " << x[k] << " vs " << y[k];
        break;
      }
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
  EXPECT_THROW(c.integers("qos.shares"), std::logic_error);
  EXPECT_THROW(c.reals("qos.pcp_to_tc"), std::logic_error);
  EXPECT_THROW(c.list("qos.pcp_to_tc"), std::logic_error);
  EXPECT_THROW(c.integers("workload.cdfs"), std::logic_error);
  EXPECT_THROW(c.integer("qos.pcp_to_tc"), std::logic_error);
  EXPECT_THROW(c.real("qos.shares"), std::logic_error);
}

TEST(Params, NumberListDefaults) {
  param_registry reg = make_registry();
  config c = default_config(reg);
  EXPECT_EQ(c.integers("qos.pcp_to_tc"), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(c.reals("qos.shares"), (std::vector<double>{0.5, 0.25, 0.25}));
  EXPECT_TRUE(c.integers("qos.ids").empty());
  EXPECT_EQ(c.reals("qos.gains"), (std::vector<double>{-1.5, 1e300}));
  EXPECT_EQ(c.origin("qos.shares"), "default");
  EXPECT_EQ(reg.find("qos.pcp_to_tc")->default_value, "[0, 1, 2, 3, 4, 5, 6, 7]");
  EXPECT_EQ(reg.find("qos.pcp_to_tc")->length, 8u);
  EXPECT_EQ(reg.find("qos.pcp_to_tc")->int_max, 7);
  EXPECT_EQ(reg.find("qos.shares")->default_value, "[0.5, 0.25, 0.25]");
  EXPECT_EQ(reg.find("qos.ids")->default_value, "[]");

  // Defaults are validated when declared: wrong length, an element out of range, nan.
  auto bad_default = [](auto declare) {
    param_registry r;
    try {
      declare(r);
    } catch (const std::logic_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(bad_default([](param_registry& r) { r.integer_list("a.b", "", {0, 1, 2}, 0, 7, 8, "per priority"); }),
            "parameter 'a.b': bad default: expected 8 elements (per priority), got 3");
  EXPECT_EQ(bad_default([](param_registry& r) { r.integer_list("a.b", "", {}, 0, 7, 2, ""); }),
            "parameter 'a.b': bad default: expected 2 elements, got 0");
  EXPECT_EQ(bad_default([](param_registry& r) { r.integer_list("a.b", "us", {0, 9}, 0, 7, 0, ""); }),
            "parameter 'a.b': bad default: element 1 of [0, 9] is 9, out of range [0, 7] (unit: us)");
  EXPECT_EQ(bad_default([](param_registry& r) { r.real_list("a.b", "", {0.5, 2}, 0, 1, 2, ""); }),
            "parameter 'a.b': bad default: element 1 of [0.5, 2] is 2, out of range [0, 1]");
  EXPECT_EQ(bad_default([](param_registry& r) { r.real_list("a.b", "", {1, std::nan("")}, 1, 0, 0, ""); }),
            "parameter 'a.b': bad default: element 1 of [1, nan] is nan, not a valid value");
  EXPECT_NE(bad_default([](param_registry& r) { r.real_list("a.b", "", {}, std::nan(""), 1, 0, ""); }), "");
  EXPECT_NE(bad_default([](param_registry& r) { r.integer_list("a", "", {}, 0, 1, 0, "undotted"); }), "");
  // Good ones, including the extremes of an unbounded integer list and an infinite real.
  EXPECT_EQ(bad_default([](param_registry& r) {
              r.integer_list("a.b", "", {std::numeric_limits<int64_t>::max(), -5}, 1, 0, 2, "");
              r.real_list("a.c", "", {std::numeric_limits<double>::infinity(), -0.0, 5e-324}, 1, 0, 0, "");
              r.integer_list("a.d", "", {7}, 0, 7, 1, "");
              config c = default_config(r);
              if (c.integers("a.b") != std::vector<int64_t>{std::numeric_limits<int64_t>::max(), -5}) throw 1;
              if (!std::isinf(c.reals("a.c")[0]) || !std::signbit(c.reals("a.c")[1]) || c.reals("a.c")[2] != 5e-324)
                throw 2;
            }),
            "");
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

TEST(Params, NumberListsLoadFromToml) {
  param_registry reg = make_registry();
  std::string path = write_file(
      "[qos]\n"
      "pcp_to_tc = [7, 6, 5, 4,\n"
      "             3, 2, 1, 0]\n"
      "shares = [1, 0.0, 0.125, 1e-3]\n"   // integers are fine in a real_list
      "ids = []\n"
      "gains = [-inf, 3]\n");
  config c = load_config(path, {}, reg);
  EXPECT_EQ(c.integers("qos.pcp_to_tc"), (std::vector<int64_t>{7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(c.origin("qos.pcp_to_tc"), path + ":2");
  EXPECT_EQ(c.reals("qos.shares"), (std::vector<double>{1, 0, 0.125, 1e-3}));
  EXPECT_EQ(c.origin("qos.shares"), path + ":4");
  EXPECT_TRUE(c.integers("qos.ids").empty());
  EXPECT_EQ(c.reals("qos.gains"), (std::vector<double>{-std::numeric_limits<double>::infinity(), 3}));

  // Dotted keys and inline formatting.
  c = load_config(write_file("qos.ids = [ 1_000, -2, 0x10 ]\n"), {}, reg);
  EXPECT_EQ(c.integers("qos.ids"), (std::vector<int64_t>{1000, -2, 16}));
}

TEST(Params, NumberListOverridesBothForms) {
  param_registry reg = make_registry();
  std::string path = write_file("[qos]\nids = [5]\n");
  config c = load_config(path,
                         {"qos.pcp_to_tc=[0,0,0,0,1,1,1,1]", "qos.shares=1,0.5, 0", "qos.ids = 3, -4 ,1_000",
                          "qos.gains=[1e3, -2]"},
                         reg);
  EXPECT_EQ(c.integers("qos.pcp_to_tc"), (std::vector<int64_t>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(c.origin("qos.pcp_to_tc"), "--set");
  EXPECT_EQ(c.reals("qos.shares"), (std::vector<double>{1, 0.5, 0}));
  EXPECT_EQ(c.integers("qos.ids"), (std::vector<int64_t>{3, -4, 1000}));
  EXPECT_EQ(c.reals("qos.gains"), (std::vector<double>{1000, -2}));

  c = load_config(path, {"qos.pcp_to_tc=7,6,5,4,3,2,1,0", "qos.shares=[0.25]", "qos.ids="}, reg);
  EXPECT_EQ(c.integers("qos.pcp_to_tc"), (std::vector<int64_t>{7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(c.reals("qos.shares"), (std::vector<double>{0.25}));
  EXPECT_TRUE(c.integers("qos.ids").empty());
  EXPECT_EQ(c.origin("qos.ids"), "--set");
  c = load_config(path, {"qos.ids=[]", "qos.shares=[ ]"}, reg);
  EXPECT_TRUE(c.integers("qos.ids").empty());
  EXPECT_TRUE(c.reals("qos.shares").empty());
  c = load_config(path, {"qos.ids=42"}, reg);  // one element without brackets
  EXPECT_EQ(c.integers("qos.ids"), (std::vector<int64_t>{42}));

  // A rejected value leaves the old one.
  c = default_config(reg);
  EXPECT_THROW(c.set_from_text("qos.shares", "0.5,2", "sweep"), config_error);
  EXPECT_EQ(c.reals("qos.shares"), (std::vector<double>{0.5, 0.25, 0.25}));
  EXPECT_EQ(c.origin("qos.shares"), "default");
}

TEST(Params, NumberListRangeErrorNamesTheElement) {
  std::string f = file_name();
  std::string msg = load_error("[qos]\npcp_to_tc = [0, 1, 2, 9, 4, 5, 6, 7]\n");
  EXPECT_EQ(msg, f + ":2: key 'qos.pcp_to_tc': element 3 of [0, 1, 2, 9, 4, 5, 6, 7] is 9, out of range [0, 7]");
  msg = load_error("[qos]\npcp_to_tc = [0, 1, 2, 3, 4, 5, 6, -1]\n");
  EXPECT_NE(msg.find(":2: key 'qos.pcp_to_tc': element 7 of [0, 1, 2, 3, 4, 5, 6, -1] is -1, out of range [0, 7]"),
            std::string::npos)
      << msg;
  msg = load_error("\n[qos]\nshares = [0.5, 1.5]\n");
  EXPECT_EQ(msg, f + ":3: key 'qos.shares': element 1 of [0.5, 1.5] is 1.5, out of range [0, 1] (unit: fraction)");
  msg = load_error("[qos]\nshares = [0.5, nan]\n");
  EXPECT_EQ(msg, f + ":2: key 'qos.shares': element 1 of [0.5, nan] is nan, not a valid value");
  // The first bad element is the one named.
  msg = load_error("[qos]\nshares = [2, -1]\n");
  EXPECT_NE(msg.find("element 0 of [2, -1] is 2, out of range [0, 1]"), std::string::npos) << msg;
  // Through --set, both forms.
  msg = load_error("", {"qos.pcp_to_tc=0,1,2,3,4,5,6,8"});
  EXPECT_EQ(msg, "--set qos.pcp_to_tc=0,1,2,3,4,5,6,8: key 'qos.pcp_to_tc': element 7 of [0, 1, 2, 3, 4, 5, 6, 8] "
                 "is 8, out of range [0, 7]");
  msg = load_error("", {"qos.shares=[0, 1.0000001]"});
  EXPECT_EQ(msg, "--set qos.shares=[0, 1.0000001]: key 'qos.shares': element 1 of [0, 1.0000001] is 1.0000001, "
                 "out of range [0, 1] (unit: fraction)");
  msg = load_error("", {"qos.shares=nan"});
  EXPECT_NE(msg.find("key 'qos.shares': element 0 of [nan] is nan, not a valid value"), std::string::npos) << msg;
  // Bounds are inclusive; unbounded lists take anything.
  param_registry reg = make_registry();
  config c = load_config(write_file("[qos]\npcp_to_tc = [0, 7, 0, 7, 0, 7, 0, 7]\nshares = [0, 1]\n"
                                    "ids = [-9223372036854775807, 9223372036854775807]\ngains = [-1e308, inf]\n"),
                         {}, reg);
  EXPECT_EQ(c.integers("qos.pcp_to_tc"), (std::vector<int64_t>{0, 7, 0, 7, 0, 7, 0, 7}));
  EXPECT_EQ(c.integers("qos.ids")[1], std::numeric_limits<int64_t>::max());
  EXPECT_EQ(c.reals("qos.gains")[0], -1e308);
}

TEST(Params, NumberListWrongLength) {
  std::string f = file_name();
  std::string msg = load_error("[qos]\npcp_to_tc = [0, 1, 2, 3, 4]\n");
  EXPECT_EQ(msg, f + ":2: key 'qos.pcp_to_tc': expected 8 elements (one per priority: its traffic class), got 5");
  msg = load_error("[qos]\npcp_to_tc = []\n");
  EXPECT_NE(msg.find("key 'qos.pcp_to_tc': expected 8 elements (one per priority: its traffic class), got 0"),
            std::string::npos)
      << msg;
  msg = load_error("[qos]\ngains = [1, 2, 3]\n");
  EXPECT_NE(msg.find(":2: key 'qos.gains': expected 2 elements (unbounded reals (min > max), two of them), got 3"),
            std::string::npos)
      << msg;
  // Length is checked before the elements.
  msg = load_error("[qos]\npcp_to_tc = [99]\n");
  EXPECT_NE(msg.find("expected 8 elements"), std::string::npos) << msg;
  msg = load_error("", {"qos.pcp_to_tc=1,2,3,4,5,6,7,0,1"});
  EXPECT_EQ(msg, "--set qos.pcp_to_tc=1,2,3,4,5,6,7,0,1: key 'qos.pcp_to_tc': expected 8 elements (one per "
                 "priority: its traffic class), got 9");
  msg = load_error("", {"qos.pcp_to_tc="});
  EXPECT_NE(msg.find("key 'qos.pcp_to_tc': expected 8 elements (one per priority: its traffic class), got 0"),
            std::string::npos)
      << msg;
  msg = load_error("", {"qos.gains=[1]"});
  EXPECT_NE(msg.find("--set qos.gains=[1]: key 'qos.gains': expected 2 elements"), std::string::npos) << msg;
}

TEST(Params, NumberListWrongElementType) {
  std::string f = file_name();
  std::string msg = load_error("[qos]\nids = [1, \"a\"]\n");
  EXPECT_EQ(msg, f + ":2: key 'qos.ids': expected an array of integers, got an array containing a string \"a\"");
  // As for integer keys, an integral float is not an integer.
  msg = load_error("[qos]\nids = [1, 2.0]\n");
  EXPECT_EQ(msg, f + ":2: key 'qos.ids': expected an array of integers, got an array containing a float 2.0");
  msg = load_error("[qos]\nshares = [0.5, true]\n");
  EXPECT_EQ(msg, f + ":2: key 'qos.shares': expected an array of numbers, got an array containing a boolean true");
  msg = load_error("[qos]\nshares = [[0.5]]\n");
  EXPECT_NE(msg.find(":2: key 'qos.shares': expected an array of numbers, got an array containing an array"),
            std::string::npos)
      << msg;
  // Not an array at all.
  msg = load_error("[qos]\nids = 3\n");
  EXPECT_EQ(msg, f + ":2: key 'qos.ids': expected an array of integers, got an integer 3");
  msg = load_error("[qos]\nshares = \"0.5, 0.5\"\n");
  EXPECT_EQ(msg, f + ":2: key 'qos.shares': expected an array of numbers, got a string \"0.5, 0.5\"");
  // Type errors come before the length check.
  msg = load_error("[qos]\npcp_to_tc = [\"a\"]\n");
  EXPECT_NE(msg.find("expected an array of integers, got an array containing a string \"a\""), std::string::npos)
      << msg;
  // Through --set.
  msg = load_error("", {"qos.ids=1,a,3"});
  EXPECT_EQ(msg, "--set qos.ids=1,a,3: key 'qos.ids': expected an array of integers, got \"1,a,3\" "
                 "(element 1 is \"a\")");
  msg = load_error("", {"qos.ids=1,2.5"});
  EXPECT_NE(msg.find("key 'qos.ids': expected an array of integers, got \"1,2.5\" (element 1 is \"2.5\")"),
            std::string::npos)
      << msg;
  msg = load_error("", {"qos.ids=[1, \"a\"]"});
  EXPECT_EQ(msg, "--set qos.ids=[1, \"a\"]: key 'qos.ids': expected an array of integers, got an array containing "
                 "a string \"a\"");
  msg = load_error("", {"qos.shares=[0.5, 1"});
  EXPECT_EQ(msg, "--set qos.shares=[0.5, 1: key 'qos.shares': expected an array of numbers, got \"[0.5, 1\" "
                 "(not a valid TOML array)");
  msg = load_error("", {"qos.shares=0.5,,0.5"});
  EXPECT_NE(msg.find("key 'qos.shares': empty element in list \"0.5,,0.5\""), std::string::npos) << msg;
  msg = load_error("", {"qos.shares=0.5,x"});
  EXPECT_NE(msg.find("key 'qos.shares': expected an array of numbers, got \"0.5,x\" (element 1 is \"x\")"),
            std::string::npos)
      << msg;
  msg = load_error("", {"qos.ids=99999999999999999999"});
  EXPECT_NE(msg.find("key 'qos.ids': expected an array of integers"), std::string::npos) << msg;
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
  c.set_from_text("qos.pcp_to_tc", "3,3,3,3,0,0,0,7", "test");
  c.set_from_text("qos.shares", "[5e-324, 0.1, 1, 0.30000000000000004, -0.0]", "test");
  c.set_from_text("qos.ids", "9223372036854775807, -9223372036854775807, 0", "test");
  c.set_from_text("qos.gains", "0.3333333333333333,-2.5e300", "test");

  std::string text = c.to_toml();
  EXPECT_NE(text.find("\n[topology]\nleaves = 63"), std::string::npos) << text;
  EXPECT_NE(text.find("rate = 5.0  # Gbps — line rate of every link\n"), std::string::npos) << text;
  EXPECT_NE(text.find("load = 0.1                  # fraction"), std::string::npos) << text;  // aligned comments
  EXPECT_NE(text.find("\n[traffic.incast]\nsenders = 1000"), std::string::npos) << text;
  EXPECT_NE(text.find("skew = 0.30000000000000004  # unbounded real (min > max)\n"), std::string::npos) << text;
  EXPECT_LT(text.find("[traffic]"), text.find("[traffic.incast]"));
  EXPECT_NE(text.find("\n[qos]\npcp_to_tc = [3, 3, 3, 3, 0, 0, 0, 7]"), std::string::npos) << text;
  // Every real of a real_list is written as a float, exactly.
  EXPECT_NE(text.find("shares = [5e-324, 0.1, 1.0, 0.30000000000000004, -0.0]  # fraction — bandwidth share"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("ids = [9223372036854775807, -9223372036854775807, 0]"), std::string::npos) << text;
  EXPECT_NE(text.find("gains = [0.3333333333333333, -2.5e+300]"), std::string::npos) << text;
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
  // Real lists that need all 17 digits, extremes and signs, and empty lists.
  param_registry lists;
  lists.real_list("x.reals", "", {}, 1, 0, 0, "unbounded, any length");
  lists.integer_list("x.ints", "", {}, 1, 0, 0, "unbounded, any length");
  for (const char* list : {"1e-300, 2.0, -0.0", "[0.1, 0.2, 0.30000000000000004]", "inf, -inf", "", "[]",
                           "123456789012345678, 1", "2.2250738585072014e-308", "[1.0e-7, 1E22]"}) {
    config e = default_config(lists);
    e.set_from_text("x.reals", list, "test");
    config back_e = load_config(write_file(e.to_toml()), {}, lists);
    expect_same(lists, e, back_e);
    EXPECT_EQ(back_e.to_toml(), e.to_toml()) << list;
  }
  for (const char* list : {"", "0", "-1, 1_000_000", "9223372036854775807,-9223372036854775807"}) {
    config e = default_config(lists);
    e.set_from_text("x.ints", list, "test");
    config back_e = load_config(write_file(e.to_toml()), {}, lists);
    expect_same(lists, e, back_e);
    EXPECT_EQ(back_e.to_toml(), e.to_toml()) << list;
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

  // Number lists: the range is per element, and a fixed length is shown with it.
  std::ostringstream qos;
  reg.print(qos, "qos.");
  std::string q = qos.str();
  EXPECT_EQ(std::count(q.begin(), q.end(), '\n'), 5) << q;
  EXPECT_NE(q.find("qos.pcp_to_tc  integer_list  [0, 1, 2, 3, 4, 5, 6, 7]  -         8 elements, each [0, 7]  "
                   "one per priority: its traffic class\n"),
            std::string::npos)
      << q;
  EXPECT_NE(q.find("qos.shares     real_list     [0.5, 0.25, 0.25]         fraction  each [0, 1]"), std::string::npos)
      << q;
  EXPECT_NE(q.find("qos.ids        integer_list  []                        -         -  "), std::string::npos) << q;
  EXPECT_NE(q.find("qos.gains      real_list     [-1.5, 1e+300]            -         2 elements  "),
            std::string::npos)
      << q;
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
  EXPECT_NE(md.find("| `qos.pcp_to_tc` | integer_list | `[0, 1, 2, 3, 4, 5, 6, 7]` |  | 8 elements, each [0, 7] | "
                    "one per priority: its traffic class |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| `qos.shares` | real_list | `[0.5, 0.25, 0.25]` | fraction | each [0, 1] |"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| `qos.ids` | integer_list | `[]` |  |  | unbounded integers (min > max) |"), std::string::npos)
      << md;
}

}  // namespace
}  // namespace netasic
