// Sizing: every block a configuration enables is placed (sizing/switch_program.h), on a named
// target (sizing/target.h), and the answer names the binding resource, the stage and what to
// shrink. Expected numbers are worked by hand in the comments.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "run/resources_report.h"
#include "scenario/scenario.h"
#include "sizing/resources.h"
#include "sizing/switch_program.h"
#include "sizing/target.h"

using namespace netasic;

namespace {

bool has_block(const placement_result& r, const std::string& feature) {
  return std::any_of(r.blocks.begin(), r.blocks.end(), [&](const block_usage& b) { return b.feature == feature; });
}

const block_usage& block(const placement_result& r, const std::string& feature) {
  const auto it = std::find_if(r.blocks.begin(), r.blocks.end(), [&](const block_usage& b) { return b.feature == feature; });
  if (it == r.blocks.end()) throw std::runtime_error("no block " + feature);
  return *it;
}

placement_result place(const std::vector<std::string>& sets) {
  config c = default_scenario();
  for (const std::string& s : sets) {
    const size_t eq = s.find('=');
    c.set_from_text(s.substr(0, eq), s.substr(eq + 1), "--set");
  }
  return place_scenario(c);
}

std::string error_of(const std::string& text) {
  try {
    parse_target(text, "t.toml");
  } catch (const config_error& e) {
    return e.what();
  }
  return "";
}

std::string good_target(const std::string& skip = "", const std::string& extra = "") {
  std::string t = "name = \"t\"\n[budget]\n";
  for (const std::string& k : target_budget_keys())
    if (k != skip) t += k + " = { value = 8, source = \"assumption\" }\n";
  return t + extra;
}

}  // namespace

// A table that splits and a register array that cannot fit, on a 3-stage toy budget:
//   route: exact, key 24 + action 32 + 4 = 60 bits, 2 per 128-bit word; 10000 entries = 5000
//     words = 5 blocks of 1024 words. Stage 0 has 4 blocks: 4 x 1024 words x 2 = 8192 entries;
//     stage 1 the other 1808 (904 words, 1 block).
//   big: register after route, so stage 2 at the earliest; 2^21 entries x 32 bits = 2^26 bits =
//     512 blocks of 2^17 bits, + 1 spare = 513 > 4. Stage 2 could hold 3 blocks + the spare:
//     3 x 2^17 / 32 = 12288 entries, so "shrink to <= 2^13 (8192)".
TEST(Sizing, HandComputedSplitAndNoFit) {
  stage_budget b;
  b.stages = 3, b.sram_blocks = 4;
  program p;
  p.tables.push_back(table_decl{"routing", "route", match_kind::exact, 10000, 24, 32, gress::ingress, {}, ""});
  p.registers.push_back(register_decl{"f", "big", uint64_t(1) << 21, 32, false, true, gress::ingress, {"route"}, "x.entries"});
  const allocation a = allocate(p, b);
  ASSERT_EQ(a.placed.size(), 1u);
  ASSERT_EQ(a.placed[0].parts.size(), 2u);
  EXPECT_EQ(a.placed[0].parts[0].stage, 0u);
  EXPECT_EQ(a.placed[0].parts[0].entries, 8192u);
  EXPECT_EQ(a.placed[0].parts[1].stage, 1u);
  EXPECT_EQ(a.placed[0].parts[1].entries, 1808u);
  EXPECT_EQ(a.placed[0].parts[1].use.sram_blocks, 1u);
  EXPECT_FALSE(a.fits);
  ASSERT_EQ(a.shortfalls.size(), 1u);
  const shortfall& s = a.shortfalls[0];
  EXPECT_EQ(s.item, "big");
  EXPECT_EQ(s.resource, "SRAM blocks");
  EXPECT_EQ(s.stage, 2);
  EXPECT_EQ(s.need, 513u);
  EXPECT_EQ(s.budget, 4u);
  EXPECT_EQ(s.used, 0u);
  EXPECT_EQ(s.max_entries, 12288u);
  EXPECT_EQ(s.advice, "shrink x.entries to <= 2^13 (8192)");
  // Control: at 8192 entries (2^18 bits = 2 blocks + spare) it fits in stage 2.
  p.registers[0].entries = 8192;
  const allocation ok = allocate(p, b);
  EXPECT_TRUE(ok.fits) << format_allocation(ok, b);
  EXPECT_EQ(ok.placed.back().first_stage, 2u);
}

// The PHV and the recirculation port are pipeline-wide sums.
TEST(Sizing, PhvAndRecirculationAreSummed) {
  stage_budget b;
  b.phv_bits = 100, b.recirc_gbps = 10;
  program p;
  p.phv = {{"a", "x", 60}, {"b", "y", 40}};
  p.recirc = {{"a", "r", 6.0, "", "a.knob"}, {"b", "s", 4.0, "", ""}};
  EXPECT_TRUE(allocate(p, b).fits);   // 100 <= 100 bits, 10 <= 10 Gb/s
  p.phv.push_back({"c", "z", 1});
  p.recirc[0].gbps = 8.0;             // 12 > 10: a.knob must shrink by 8 / (10 - 4) = 1.33
  const allocation a = allocate(p, b);
  EXPECT_FALSE(a.fits);
  ASSERT_EQ(a.shortfalls.size(), 2u);
  EXPECT_EQ(a.shortfalls[0].resource, "PHV bits");
  EXPECT_EQ(a.shortfalls[0].need, 101u);
  EXPECT_EQ(a.shortfalls[1].resource, "recirculation Gb/s");
  EXPECT_EQ(a.shortfalls[1].advice, "shrink a.knob by a factor of 1.33 or more");
}

// Every load-balancing mode the lb.mode key offers, and every feature flag, puts an item of its
// own in the program, and every item is placed. The modes come from the key's own choices, so a
// new mode without a block fails here.
TEST(Sizing, EveryBlockTheConfigurationEnablesIsPlaced) {
  const param_def* mode = all_params().find("lb.mode");
  ASSERT_NE(mode, nullptr);
  ASSERT_GE(mode->choices.size(), 7u);
  for (const std::string& m : mode->choices) {
    const placement_result r = place({"lb.mode=" + m});
    EXPECT_TRUE(has_block(r, m)) << m;
    EXPECT_TRUE(r.fits) << m << ": " << r.advice;
    for (const block_usage& u : r.blocks) EXPECT_TRUE(u.placed) << m << ": " << u.feature;
  }
  for (const std::string& form : all_params().find("lb.sketch.form")->choices) {
    const placement_result r = place({"lb.mode=balance_sketch", "lb.sketch.form=" + form});
    EXPECT_GT(block(r, "balance_sketch").stateful_alus, 0u) << form;
  }
  for (const std::string& to : all_params().find("mirror.to")->choices) {
    if (to != "off") {
      EXPECT_TRUE(has_block(place({"mirror.to=" + to}), "mirror")) << to;
    }
  }
  EXPECT_FALSE(has_block(place({}), "mirror"));
  EXPECT_TRUE(has_block(place({"nic.int_padding=true"}), "int"));
  EXPECT_FALSE(has_block(place({}), "int"));
  for (const std::string& f : all_params().find("flowcut.form")->choices) {
    if (f == "off" || f == "nic") continue;   // the NIC's table is not in the switch
    const placement_result r = place({"flowcut.form=" + f});
    EXPECT_GT(block(r, "flowcut").sram_blocks, 0u) << f;
    EXPECT_GT(block(r, "flowcut").buffer_bytes, 0u) << f;
  }
  EXPECT_TRUE(has_block(place({"clock.algorithm=sundial"}), "sundial"));
  EXPECT_FALSE(has_block(place({}), "sundial"));
  // Path-based routing's ingress-class table is named after the routing that installs it; the
  // default (shortest-path ECMP, one class) has none.
  const std::vector<std::string> fc = {"topology.kind=\"flattened_clos\"", "topology.tors=4", "topology.fabric_ports=4",
                                       "topology.hosts_per_tor=4", "topology.layer_ports=[1, 2, 1]", "topology.seed=5",
                                       "topology.wiring=\"per_layer\""};
  const std::vector<std::string> routings = all_params().find("topology.routing")->choices;
  ASSERT_EQ(routings.size(), 4u);
  for (const std::string& routing : routings) {
    std::vector<std::string> sets = fc;
    sets.push_back("topology.routing=\"" + routing + "\"");
    const placement_result r = place(sets);
    for (const std::string& other : routings)
      EXPECT_EQ(has_block(r, other), other == routing && routing != "shortest_path") << routing << " beside " << other;
    if (routing != "shortest_path") {
      EXPECT_GT(block(r, routing).sram_blocks, 0u) << routing;
    }
  }
}

// The two cases of the issue: they must report that they do not fit, and name what to shrink.
TEST(Sizing, HugeTablesDoNotFit) {
  // 2^26 entries x 16 bits = 2^30 bits = 8192 blocks of 2^17 bits: no stage holds it.
  const placement_result l = place({"lb.mode=letflow", "lb.flowlet.entries=67108864", "switch.stages=2"});
  EXPECT_FALSE(l.fits);
  EXPECT_EQ(l.binding_item, "flowlet");
  EXPECT_EQ(l.binding_resource, "SRAM blocks");
  EXPECT_NE(l.advice.find("shrink lb.flowlet.entries to <= 2^"), std::string::npos) << l.advice;
  // 2^24 buckets: SEL_ID dual 16-bit = 2^29 bits = 4096 blocks. Tofino form: clears at
  // 2^24 / 50 ms x 512 bits = 171.8 Gb/s on a 100 Gb/s port as well.
  const placement_result s = place({"lb.mode=balance_sketch", "lb.sketch.buckets=16777216", "lb.sketch.form=tofino"});
  EXPECT_FALSE(s.fits);
  EXPECT_EQ(s.binding_item, "bs_sel_id");
  EXPECT_NEAR(block(s, "balance_sketch").recirc_gbps, 16777216.0 / 0.05 * 512 / 1e9, 1e-6);
  EXPECT_TRUE(std::any_of(s.shortfalls.begin(), s.shortfalls.end(),
                          [](const shortfall& f) { return f.resource == "recirculation Gb/s"; }));
  // Control: the defaults fit, and 250 buckets clear at 250 / 50 ms x 512 bits = 2.56 Mb/s.
  const placement_result d = place({"lb.mode=balance_sketch", "lb.sketch.form=tofino"});
  EXPECT_TRUE(d.fits) << d.advice;
  EXPECT_NEAR(block(d, "balance_sketch").recirc_gbps, 0.00256, 1e-12);
}

// The shipped targets load; generic is the budget netasic used before targets (stage_budget{}).
TEST(Sizing, BuiltinTargets) {
  for (const char* name : {"generic", "tofino1", "tofino2", "rmt"}) {
    const pipeline_target t = load_target(name);
    EXPECT_EQ(t.name, name);
    for (const std::string& k : target_budget_keys()) EXPECT_FALSE(t.source.at(k).empty()) << name << " " << k;
  }
  const stage_budget g = load_target("generic").budget, d;
  EXPECT_EQ(g.stages, d.stages);
  EXPECT_EQ(g.sram_blocks, d.sram_blocks);
  EXPECT_EQ(g.sram_block_words, d.sram_block_words);
  EXPECT_EQ(g.sram_word_bits, d.sram_word_bits);
  EXPECT_EQ(g.tcam_blocks, d.tcam_blocks);
  EXPECT_EQ(g.tcam_block_words, d.tcam_block_words);
  EXPECT_EQ(g.tcam_word_bits, d.tcam_word_bits);
  EXPECT_EQ(g.stateful_alus, d.stateful_alus);
  EXPECT_EQ(g.hash_bits, d.hash_bits);
  EXPECT_EQ(g.action_slots, d.action_slots);
  EXPECT_EQ(g.phv_bits, d.phv_bits);
  EXPECT_EQ(g.recirc_gbps, d.recirc_gbps);
  EXPECT_EQ(load_target("tofino2").budget.stages, 20u);
  // By name from the scenario, with a switch.stage key in its place.
  config c = default_scenario();
  c.set_from_text("switch.target", "tofino2", "--set");
  c.set_from_text("switch.stage.sram_blocks", "40", "--set");
  const stage_budget b = make_stage_budget(c);
  EXPECT_EQ(b.stages, 20u);
  EXPECT_EQ(b.sram_blocks, 40u);
  EXPECT_EQ(b.recirc_gbps, 400u);
}

TEST(Sizing, BadTargetFilesNameFileLineAndKey) {
  EXPECT_EQ(error_of(good_target()), "");
  // Missing: named at the [budget] table's line (2).
  EXPECT_NE(error_of(good_target("phv_bits")).find("t.toml:2: budget.phv_bits: is missing"), std::string::npos)
      << error_of(good_target("phv_bits"));
  // Negative, on line 3 (stages is the first budget key).
  std::string neg = good_target();
  neg.replace(neg.find("value = 8"), 9, "value = -3");
  EXPECT_NE(error_of(neg).find("t.toml:3: budget.stages: is -3; a budget must be a positive integer"), std::string::npos)
      << error_of(neg);
  // Unknown key, with the closest.
  const std::string unk = good_target("", "sram_blokcs = { value = 1, source = \"x\" }\n");
  EXPECT_NE(error_of(unk).find("t.toml:15: budget.sram_blokcs: unknown key; did you mean sram_blocks?"), std::string::npos)
      << error_of(unk);
  // No source.
  std::string nosrc = good_target();
  nosrc.replace(nosrc.find(", source = \"assumption\""), 23, "");
  EXPECT_NE(error_of(nosrc).find("t.toml:3: budget.stages: has no source"), std::string::npos) << error_of(nosrc);
  // A scenario naming a target that does not exist.
  config c = default_scenario();
  c.set_from_text("switch.target", "tofino9", "--set");
  try {
    make_stage_budget(c);
    ADD_FAILURE() << "no error";
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find("--set: switch.target: target 'tofino9' is neither a builtin target"),
              std::string::npos) << e.what();
  }
}
