// Match-action resource allocator: the cost formulas by hand, dependency chains, split tables,
// whole register arrays, the problems it reports, malformed programs, and random programs
// checked against an independent recount.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/rng.h"
#include "sizing/resources.h"

using namespace netasic;

namespace {

// The cost model, restated (b = budget; defaults: SRAM block 1024 x 128 bits, TCAM block 512 x 44):
//   exact    entry_bits = key + action + 4; if entry_bits <= word_bits: words = ceil(entries /
//            floor(word_bits / entry_bits)), else words = entries * ceil(entry_bits / word_bits);
//            SRAM blocks = ceil(words / block_words); hash bits = ceil(log2(max(2, words)))
//   index    as exact with entry_bits = action, no hash bits
//   ternary/lpm  TCAM blocks = ceil(entries / tcam_block_words) * ceil(key / tcam_word_bits);
//            SRAM blocks = ceil(entries * action / (word_bits * block_words)); no hash bits
//   register SRAM blocks = ceil(entries * width * (dual ? 2 : 1) / (word_bits * block_words)) + 1;
//            1 stateful ALU; hash bits = ceil(log2(max(2, entries))) if hashed
//   all      1 action slot per stage part
// The recount below is written out separately from resources.cpp, with loops instead of
// closed forms, so the two do not share a mistake.
uint64_t up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
uint64_t bits_for(uint64_t n) {  // smallest k with 2^k >= max(2, n)
  uint64_t k = 1;
  while ((uint64_t(1) << k) < n) ++k;
  return k;
}

item_cost recount_table(const table_decl& t, uint64_t entries, const stage_budget& b) {
  item_cost c;
  if (entries == 0) return c;
  c.action_slots = 1;
  if (t.kind == match_kind::ternary || t.kind == match_kind::lpm) {
    c.tcam_blocks = up(entries, b.tcam_block_words) * up(t.key_bits, b.tcam_word_bits);
    c.sram_blocks = up(entries * t.action_bits, uint64_t(b.sram_word_bits) * b.sram_block_words);
    return c;
  }
  const uint64_t entry_bits = t.kind == match_kind::exact ? t.key_bits + t.action_bits + 4 : t.action_bits;
  uint64_t words = 0;
  if (entry_bits == 0) words = 0;
  else if (entry_bits <= b.sram_word_bits) words = up(entries, b.sram_word_bits / entry_bits);
  else words = entries * up(entry_bits, b.sram_word_bits);
  c.sram_blocks = up(words, b.sram_block_words);
  if (t.kind == match_kind::exact) c.hash_bits = bits_for(words);
  return c;
}

item_cost recount_register(const register_decl& r, const stage_budget& b) {
  item_cost c;
  c.sram_blocks = up(r.entries * r.width_bits * (r.dual ? 2 : 1), uint64_t(b.sram_word_bits) * b.sram_block_words) + 1;
  c.stateful_alus = 1;
  c.hash_bits = r.hashed_index ? bits_for(r.entries) : 0;
  c.action_slots = 1;
  return c;
}

void expect_cost(const item_cost& c, uint64_t sram, uint64_t tcam, uint64_t alus, uint64_t hash, uint64_t slots) {
  EXPECT_EQ(c.sram_blocks, sram);
  EXPECT_EQ(c.tcam_blocks, tcam);
  EXPECT_EQ(c.stateful_alus, alus);
  EXPECT_EQ(c.hash_bits, hash);
  EXPECT_EQ(c.action_slots, slots);
}

table_decl exact(const std::string& name, uint64_t entries, std::vector<std::string> after = {}) {
  return table_decl{"f", name, match_kind::exact, entries, 24, 32, gress::ingress, std::move(after), ""};
}
register_decl reg(const std::string& name, uint64_t entries, std::vector<std::string> after = {}) {
  return register_decl{"sketch", name, entries, 32, false, true, gress::ingress, std::move(after), ""};
}

const placement& find(const allocation& a, const std::string& name) {
  for (const placement& p : a.placed)
    if (p.name == name) return p;
  throw std::runtime_error("not placed: " + name);
}
bool is_placed(const allocation& a, const std::string& name) {
  return std::any_of(a.placed.begin(), a.placed.end(), [&](const placement& p) { return p.name == name; });
}

}  // namespace

TEST(Resources, ExactMatchCost) {
  const stage_budget b;
  // key 24 + action 32 + 4 = 60 bits: two to a 128-bit word.
  table_decl t = exact("route", 1024);
  expect_cost(table_cost(t, 1024, b), 1, 0, 0, 9, 1);       // 512 words, 1 block, log2(512) = 9
  expect_cost(table_cost(t, 100000, b), 49, 0, 0, 16, 1);   // 50000 words, ceil(50000/1024) = 49, 2^16 >= 50000
  expect_cost(table_cost(t, 1, b), 1, 0, 0, 1, 1);          // 1 word; hash bits of max(2, 1) = 1
  expect_cost(table_cost(t, 0, b), 0, 0, 0, 0, 0);
  // 5-tuple key 104 + action 40 + 4 = 148 > 128: two words per entry.
  t.key_bits = 104;
  t.action_bits = 40;
  expect_cost(table_cost(t, 4096, b), 8, 0, 0, 13, 1);      // 8192 words, 8 blocks, 2^13
  // Exactly one word: 100 + 24 + 4 = 128.
  t.key_bits = 100;
  t.action_bits = 24;
  expect_cost(table_cost(t, 3000, b), 3, 0, 0, 12, 1);      // 3000 words, 3 blocks, 2^12 = 4096
}

TEST(Resources, ExactMatchBlockBoundary) {
  const stage_budget b;
  table_decl t = exact("x", 0);
  t.key_bits = 24;
  t.action_bits = 8;  // 36 bits, 3 per word
  expect_cost(table_cost(t, 3072, b), 1, 0, 0, 10, 1);      // 1024 words: exactly one block
  expect_cost(table_cost(t, 3073, b), 2, 0, 0, 11, 1);      // 1025 words: a second block
}

TEST(Resources, IndexTernaryLpmCost) {
  const stage_budget b;
  // Index: no key stored, 16-bit action, 8 to a word, no hash.
  const table_decl members{"ecmp", "m", match_kind::index, 4096, 16, 16, gress::ingress, {}, ""};
  expect_cost(table_cost(members, 4096, b), 1, 0, 0, 0, 1);   // 512 words
  expect_cost(table_cost(members, 8193, b), 2, 0, 0, 0, 1);   // 1025 words
  const table_decl no_data{"f", "n", match_kind::index, 10, 8, 0, gress::ingress, {}, ""};
  expect_cost(table_cost(no_data, 10, b), 0, 0, 0, 0, 1);
  // Ternary 104-bit key: 3 TCAM words; ceil(2000/512) = 4 rows of blocks, x3 = 12;
  // action 2000 * 24 = 48000 bits in 131072-bit blocks = 1.
  const table_decl acl{"acl", "acl", match_kind::ternary, 2000, 104, 24, gress::ingress, {}, ""};
  expect_cost(table_cost(acl, 2000, b), 1, 12, 0, 0, 1);
  // LPM 32-bit key: 1 TCAM word; ceil(10000/512) = 20; 160000 action bits = 2 blocks.
  table_decl lpm{"routing", "lpm", match_kind::lpm, 10000, 32, 16, gress::ingress, {}, ""};
  expect_cost(table_cost(lpm, 10000, b), 2, 20, 0, 0, 1);
  lpm.action_bits = 0;
  expect_cost(table_cost(lpm, 10000, b), 0, 20, 0, 0, 1);
  lpm.key_bits = 45;  // one bit over a TCAM word: 2 words
  expect_cost(table_cost(lpm, 512, b), 0, 2, 0, 0, 1);
}

TEST(Resources, RegisterCost) {
  const stage_budget b;
  // 65536 x 32 x 2 = 4194304 bits = 32 blocks, +1 spare; hash index of 2^16 entries.
  register_decl r{"cms", "cms_row0", 65536, 32, true, true, gress::ingress, {}, ""};
  expect_cost(register_cost(r, b), 33, 0, 1, 16, 1);
  r.dual = false;
  expect_cost(register_cost(r, b), 17, 0, 1, 16, 1);
  // 64 x 8 = 512 bits: 1 block + 1 spare; 6 hash bits.
  r.entries = 64;
  r.width_bits = 8;
  expect_cost(register_cost(r, b), 2, 0, 1, 6, 1);
  r.hashed_index = false;
  expect_cost(register_cost(r, b), 2, 0, 1, 0, 1);
  // 131073 x 8 bits is just over 8 blocks: 9 + 1.
  r.entries = 131073;
  expect_cost(register_cost(r, b), 10, 0, 1, 0, 1);
}

TEST(Resources, DependencyChainTakesConsecutiveStages) {
  program p;
  p.tables.push_back(exact("t0", 100));
  for (int i = 1; i < 5; ++i) p.tables.push_back(exact("t" + std::to_string(i), 100, {"t" + std::to_string(i - 1)}));
  p.registers.push_back(reg("r", 1000, {"t4"}));
  p.tables.push_back(exact("free", 100));  // no dependency: stage 0
  const allocation a = allocate(p, stage_budget{});
  ASSERT_TRUE(a.fits) << format_allocation(a, stage_budget{});
  for (unsigned i = 0; i < 5; ++i) {
    const placement& t = find(a, "t" + std::to_string(i));
    EXPECT_EQ(t.first_stage, i);
    EXPECT_EQ(t.last_stage, i);
  }
  EXPECT_EQ(find(a, "r").first_stage, 5u);
  EXPECT_EQ(find(a, "free").first_stage, 0u);
  EXPECT_EQ(a.stage[0].items, (std::vector<std::string>{"t0", "free"}));
}

TEST(Resources, DiamondWaitsForTheLaterBranch) {
  program p;
  p.tables = {exact("a", 10), exact("b", 10, {"a"}), exact("c1", 10, {"b"}), exact("c2", 10, {"c1"}),
              exact("d", 10, {"b", "c2", "a"})};
  const allocation a = allocate(p, stage_budget{});
  ASSERT_TRUE(a.fits);
  EXPECT_EQ(find(a, "d").first_stage, 4u);
}

TEST(Resources, DeclarationOrderBreaksTies) {
  // Two registers ready together; one stage with room for one: the first declared gets it.
  stage_budget b;
  b.stages = 2;
  b.stateful_alus = 1;
  program p;
  p.registers = {reg("second_if_sorted_by_name_a", 10), reg("first_b", 10)};
  const allocation a = allocate(p, b);
  ASSERT_TRUE(a.fits);
  EXPECT_EQ(find(a, "second_if_sorted_by_name_a").first_stage, 0u);
  EXPECT_EQ(find(a, "first_b").first_stage, 1u);
}

TEST(Resources, LargeTableSplitsAndDependentsFollowItsLastStage) {
  const stage_budget b;
  program p;
  // 200000 x 60 bits, two per word: 100000 words = 98 blocks, more than a stage's 80.
  p.tables = {exact("big", 200000), exact("next", 10, {"big"})};
  const allocation a = allocate(p, b);
  ASSERT_TRUE(a.fits) << format_allocation(a, b);
  const placement& big = find(a, "big");
  ASSERT_EQ(big.parts.size(), 2u);
  // Stage 0 filled: 80 blocks = 81920 words = 163840 entries, hash ceil(log2 81920) = 17.
  EXPECT_EQ(big.parts[0].stage, 0u);
  EXPECT_EQ(big.parts[0].entries, 163840u);
  expect_cost(big.parts[0].use, 80, 0, 0, 17, 1);
  // The rest: 36160 entries = 18080 words = 18 blocks, hash 15 (2^15 = 32768).
  EXPECT_EQ(big.parts[1].stage, 1u);
  EXPECT_EQ(big.parts[1].entries, 36160u);
  expect_cost(big.parts[1].use, 18, 0, 0, 15, 1);
  EXPECT_EQ(big.first_stage, 0u);
  EXPECT_EQ(big.last_stage, 1u);
  EXPECT_EQ(a.stage[0].sram_blocks, 80u);
  EXPECT_EQ(a.stage[1].sram_blocks, 18u);
  EXPECT_EQ(find(a, "next").first_stage, 2u);
}

TEST(Resources, SplitStartsInAPartlyUsedStage) {
  const stage_budget b;
  program p;
  // 'a' takes 49 blocks of stage 0 (100000 entries); 'big' (98 blocks) fits no stage whole,
  // so it fills stage 0's last 31 blocks, then stage 1.
  p.tables = {exact("a", 100000), exact("big", 200000)};
  const allocation a = allocate(p, b);
  ASSERT_TRUE(a.fits);
  const placement& big = find(a, "big");
  ASSERT_EQ(big.parts.size(), 2u);
  EXPECT_EQ(big.parts[0].stage, 0u);
  EXPECT_EQ(big.parts[0].entries, 31u * 1024 * 2);
  EXPECT_EQ(big.parts[1].stage, 1u);
  EXPECT_EQ(a.stage[0].sram_blocks, 80u);
  EXPECT_EQ(a.stage[0].action_slots, 2u);
}

TEST(Resources, TableThatFitsWholeLaterIsNotSplit) {
  const stage_budget b;
  program p;
  // Stage 0 keeps 31 free blocks; 't' needs 49, which stage 1 holds whole.
  p.tables = {exact("a", 100000), exact("t", 100000)};
  const allocation a = allocate(p, b);
  ASSERT_TRUE(a.fits);
  const placement& t = find(a, "t");
  EXPECT_EQ(t.parts.size(), 1u);
  EXPECT_EQ(t.first_stage, 1u);
}

TEST(Resources, RegisterArraysAreNeverSplit) {
  const stage_budget b;
  program p;
  // Stage 0 has 31 blocks left after 'a'; the 33-block register goes whole to stage 1.
  p.tables = {exact("a", 100000)};
  p.registers = {register_decl{"cms", "cms", 65536, 32, true, true, gress::ingress, {}, ""}};
  allocation a = allocate(p, b);
  ASSERT_TRUE(a.fits);
  const placement& r = find(a, "cms");
  EXPECT_EQ(r.parts.size(), 1u);
  EXPECT_EQ(r.first_stage, 1u);
  EXPECT_EQ(r.last_stage, 1u);

  // Larger than a stage: a table of that size would split, a register array does not fit.
  p.registers = {register_decl{"cms", "huge", 262144, 32, true, true, gress::ingress, {}, ""}};  // 128 + 1 blocks
  a = allocate(p, b);
  EXPECT_FALSE(a.fits);
  EXPECT_FALSE(is_placed(a, "huge"));
  ASSERT_EQ(a.problems.size(), 1u);
  EXPECT_EQ(a.problems[0],
            "register array 'huge' (feature cms) needs 1 stateful ALU, 129 SRAM blocks, 18 hash bits and 1 action "
            "slot in one stage, but a stage has only 80 SRAM blocks");
}

TEST(Resources, MoreRegistersThanStatefulAlus) {
  stage_budget b;
  b.stages = 1;
  b.stateful_alus = 4;
  program p;
  for (int i = 0; i < 5; ++i) p.registers.push_back(reg("r" + std::to_string(i), 1000));
  const allocation a = allocate(p, b);
  EXPECT_FALSE(a.fits);
  EXPECT_EQ(a.placed.size(), 4u);
  EXPECT_EQ(a.stage[0].stateful_alus, 4u);
  ASSERT_EQ(a.problems.size(), 1u);
  const std::string& m = a.problems[0];
  EXPECT_NE(m.find("'r4'"), std::string::npos) << m;
  EXPECT_NE(m.find("stateful ALU"), std::string::npos) << m;
  EXPECT_NE(m.find("stage 0"), std::string::npos) << m;
  // 1000 x 32 bits: 1 block + 1 spare; 10 hash bits.
  EXPECT_EQ(m,
            "register array 'r4' (feature sketch) needs 1 stateful ALU, 2 SRAM blocks, 10 hash bits and 1 action slot "
            "in one stage; stage 0 does not have them free (stage 0: stateful ALUs 4/4 used)");
}

TEST(Resources, RegisterProblemTellsEachStage) {
  stage_budget b;
  b.stages = 3;
  b.stateful_alus = 1;
  program p;
  p.registers = {reg("r0", 10), reg("r1", 10), reg("r2", 10), reg("r3", 10)};
  const allocation a = allocate(p, b);
  ASSERT_EQ(a.problems.size(), 1u);
  EXPECT_NE(a.problems[0].find("no stage from 0 to 2 has them free (stages 0-2: stateful ALUs 1/1 used)"),
            std::string::npos)
      << a.problems[0];
}

TEST(Resources, ChainLongerThanThePipeline) {
  const stage_budget b;  // 12 stages
  program p;
  p.tables.push_back(exact("c0", 10));
  for (int i = 1; i < 13; ++i) p.tables.push_back(exact("c" + std::to_string(i), 10, {"c" + std::to_string(i - 1)}));
  p.tables[0].feature = "chain";
  p.tables[12].feature = "chain";
  const allocation a = allocate(p, b);
  EXPECT_FALSE(a.fits);
  EXPECT_EQ(a.placed.size(), 12u);
  EXPECT_EQ(find(a, "c11").first_stage, 11u);
  ASSERT_EQ(a.problems.size(), 1u);
  EXPECT_EQ(a.problems[0],
            "table 'c12' (feature chain) must go after stage 11 (it is after 'c11'), but the last stage is 11");
}

TEST(Resources, TableTooLargeForTheStagesLeft) {
  stage_budget b;
  b.stages = 3;
  program p;
  // 'first' in stage 0; 'big' after it: 400000 entries = 200000 words = 196 blocks; stages
  // 1-2 hold 160.
  p.tables = {exact("first", 10), exact("big", 400000, {"first"}), exact("user", 10, {"big"}), exact("other", 10)};
  p.tables[1].feature = "routing";
  const allocation a = allocate(p, b);
  EXPECT_FALSE(a.fits);
  ASSERT_EQ(a.problems.size(), 2u);
  EXPECT_EQ(a.problems[0],
            "table 'big' (feature routing) needs 196 SRAM blocks after stage 0; stages 1-2 hold 160; "
            "72320 of its 400000 entries do not fit");
  // What needs it is reported too; what does not is still placed.
  EXPECT_EQ(a.problems[1], "table 'user' (feature f) not placed: it is after 'big', which was not placed");
  EXPECT_TRUE(is_placed(a, "other"));
  // A table that does not fit takes nothing.
  EXPECT_EQ(a.stage[1].sram_blocks, 0u);
  EXPECT_EQ(a.stage[2].sram_blocks, 0u);
}

TEST(Resources, IngressAndEgressShareStages) {
  const stage_budget b;
  program p;
  p.tables = {exact("in", 100000)};                       // 49 blocks
  table_decl out = exact("out", 60000);                   // 30000 words = 30 blocks
  out.where = gress::egress;
  p.tables.push_back(out);
  const allocation a = allocate(p, b);
  ASSERT_TRUE(a.fits);
  EXPECT_EQ(find(a, "in").first_stage, 0u);
  EXPECT_EQ(find(a, "out").first_stage, 0u);  // no dependency on ingress
  EXPECT_EQ(a.stage[0].sram_blocks, 79u);
  EXPECT_EQ(find(a, "out").where, gress::egress);
}

TEST(Resources, MalformedProgramsThrow) {
  const stage_budget b;
  const auto message = [&](const program& p) {
    try {
      allocate(p, b);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(no exception)");
  };
  program p;
  p.tables = {exact("a", 10, {"c"}), exact("b", 10, {"a"}), exact("c", 10, {"b"})};
  EXPECT_EQ(message(p), "dependency cycle: 'a' needs 'c' needs 'b' needs 'a'");
  p.tables = {exact("a", 10, {"a"})};
  EXPECT_EQ(message(p), "dependency cycle: 'a' needs 'a'");
  p.tables = {exact("a", 10, {"nope"})};
  EXPECT_NE(message(p).find("'nope'"), std::string::npos);
  p.tables = {exact("a", 10)};
  p.registers = {reg("a", 10)};
  EXPECT_NE(message(p).find("two items are named 'a'"), std::string::npos);
  p.registers.clear();
  p.tables = {exact("a", 0)};
  EXPECT_NE(message(p).find("0 entries"), std::string::npos);
  p.tables = {exact("a", 10)};
  p.tables[0].kind = match_kind::ternary;
  p.tables[0].key_bits = 0;
  EXPECT_NE(message(p).find("key_bits 0"), std::string::npos);
  p.tables[0].kind = match_kind::index;  // no key compare: fine
  EXPECT_EQ(message(p), "(no exception)");
  p.registers = {reg("r", 10)};
  p.registers[0].width_bits = 12;
  EXPECT_NE(message(p).find("12 bits wide"), std::string::npos);
  p.registers = {reg("r", 0)};
  EXPECT_NE(message(p).find("0 entries"), std::string::npos);
  // Ingress cannot wait for egress.
  table_decl e = exact("e", 10);
  e.where = gress::egress;
  p.tables = {e, exact("i", 10, {"e"})};
  p.registers.clear();
  EXPECT_NE(message(p).find("ingress runs before egress"), std::string::npos);

  stage_budget bad;
  bad.tcam_blocks = 0;
  try {
    allocate(program{}, bad);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& ex) {
    EXPECT_NE(std::string(ex.what()).find("tcam_blocks"), std::string::npos);
  }
}

TEST(Resources, ForwardingProgram) {
  const stage_budget b;
  const program p = forwarding_program(1024, 4096, 32, true);
  ASSERT_EQ(p.tables.size(), 3u);
  ASSERT_EQ(p.registers.size(), 1u);
  const allocation a = allocate(p, b);
  ASSERT_TRUE(a.fits) << format_allocation(a, b);
  EXPECT_EQ(find(a, "route").first_stage, 0u);
  EXPECT_EQ(find(a, "ecmp_member").first_stage, 1u);
  EXPECT_EQ(find(a, "int_tx_bytes").first_stage, 0u);
  EXPECT_EQ(find(a, "int_switch_id").first_stage, 0u);
  // route 1 block, int_tx_bytes 32 x 32 bits = 1 block + 1 spare, int_switch_id 1 block.
  expect_cost(find(a, "int_tx_bytes").parts[0].use, 2, 0, 1, 0, 1);
  EXPECT_EQ(a.stage[0].sram_blocks, 4u);
  EXPECT_EQ(a.stage[1].sram_blocks, 1u);
  EXPECT_EQ(allocate(forwarding_program(1024, 4096, 32, false), b).placed.size(), 2u);
  // Mirroring adds its sampler, and the session table that depends on it, in a later stage.
  const allocation m = allocate(forwarding_program(1024, 4096, 32, false, true), b);
  ASSERT_TRUE(m.fits);
  EXPECT_EQ(m.placed.size(), 4u);
  EXPECT_LT(find(m, "mirror_sampler").first_stage, find(m, "mirror_session").first_stage);
}

// Route tables keyed by destination prefix (route_table.h): a fabric of 500 ToRs x 14 hosts.
//   route: 500 prefixes, key ceil(log2 500) = 9 + action 32 + 4 = 45 bits, two to a 128-bit word:
//     250 words, 1 block, hash bits log2(256) = 8.
//   host_route: 14 hosts, key 24 + 32 + 4 = 60 bits, two to a word: 7 words, 1 block, 3 hash bits.
// The control, keyed per host as before: 7000 entries x 60 bits = 3500 words = 4 blocks.
TEST(Resources, ForwardingProgramPrefixAndHostTables) {
  const stage_budget b;
  const program p = forwarding_program(500, 4096, 28, false, false, 14);
  ASSERT_EQ(p.tables.size(), 3u);
  EXPECT_EQ(p.tables[0].name, "route");
  EXPECT_EQ(p.tables[0].entries, 500u);
  EXPECT_EQ(p.tables[0].key_bits, 9u);
  EXPECT_EQ(p.tables[1].name, "host_route");
  EXPECT_EQ(p.tables[1].entries, 14u);
  EXPECT_EQ(p.tables[1].key_bits, 24u);
  EXPECT_EQ(p.tables[2].after, (std::vector<std::string>{"route", "host_route"}));
  expect_cost(table_cost(p.tables[0], 500, b), 1, 0, 0, 8, 1);
  expect_cost(table_cost(p.tables[1], 14, b), 1, 0, 0, 3, 1);
  const allocation a = allocate(p, b);
  ASSERT_TRUE(a.fits);
  EXPECT_EQ(find(a, "route").first_stage, 0u);
  EXPECT_EQ(find(a, "host_route").first_stage, 0u);   // looked up beside the prefix
  EXPECT_EQ(find(a, "ecmp_member").first_stage, 1u);
  table_decl per_host = p.tables[0];
  per_host.key_bits = 24;
  expect_cost(table_cost(per_host, 7000, b), 4, 0, 0, 12, 1);
  // No host routes (a switch without hosts): no host table.
  EXPECT_EQ(forwarding_program(500, 4096, 28, false).tables.size(), 2u);
}

TEST(Resources, Report) {
  stage_budget b;
  b.stages = 4;
  program p = forwarding_program(200000, 4096, 32, true);
  p.registers.push_back(reg("r", 1000, {"ecmp_member"}));
  allocation a = allocate(p, b);
  ASSERT_TRUE(a.fits);
  std::string text = format_allocation(a, b);
  EXPECT_NE(text.find("SRAM blocks"), std::string::npos);
  EXPECT_NE(text.find("stateful ALUs"), std::string::npos);
  EXPECT_NE(text.find("hash bits"), std::string::npos);
  EXPECT_NE(text.find("action slots"), std::string::npos);
  EXPECT_NE(text.find("80/80"), std::string::npos);          // stage 0 filled by the split route
  EXPECT_NE(text.find("stages 0-1"), std::string::npos);     // the split route's line
  EXPECT_NE(text.find("\nfits\n"), std::string::npos);
  std::printf("%s\n", text.c_str());

  b.stages = 2;
  a = allocate(p, b);
  ASSERT_FALSE(a.fits);
  text = format_allocation(a, b);
  // ecmp_member has no stage after route's; r, after it, is not placed either.
  EXPECT_NE(text.find("does not fit (2 problems):\n"
                      "  - table 'ecmp_member' (feature ecmp) must go after stage 1 (it is after 'route'), but the "
                      "last stage is 1\n"
                      "  - register array 'r' (feature sketch) not placed: it is after 'ecmp_member', which was not "
                      "placed\n"),
            std::string::npos);
  std::printf("%s\n", text.c_str());
}

// Random programs and budgets: whatever the outcome, the placements respect the dependencies,
// registers sit in one stage, parts cover the entries, per-stage use is within the budget and
// equals the recount; fits == no problems == everything placed.
TEST(Resources, RandomProgramsKeepTheRules) {
  rng r(20240601);
  unsigned fitting = 0, split = 0;
  for (int round = 0; round < 400; ++round) {
    stage_budget b;
    b.stages = 1 + unsigned(r.below(12));
    b.sram_blocks = 4 + unsigned(r.below(77));
    b.sram_block_words = r.below(2) ? 1024 : 256;
    b.sram_word_bits = r.below(2) ? 128 : 64;
    b.tcam_blocks = 1 + unsigned(r.below(24));
    b.tcam_block_words = r.below(2) ? 512 : 128;
    b.tcam_word_bits = 44;
    b.stateful_alus = 1 + unsigned(r.below(4));
    b.hash_bits = 16 + unsigned(r.below(401));
    b.action_slots = 1 + unsigned(r.below(16));

    // Items in generation order; each may need earlier ones (so no cycle). Egress may need
    // anything, ingress only ingress.
    program p;
    struct gen { std::string name; gress where; bool is_register; size_t index; };
    std::vector<gen> made;
    const size_t count = 1 + r.below(30);
    for (size_t i = 0; i < count; ++i) {
      const std::string name = "i" + std::to_string(i);
      const gress where = r.below(3) == 0 ? gress::egress : gress::ingress;
      std::vector<std::string> after;
      const size_t deps = made.empty() ? 0 : r.below(4);
      for (size_t k = 0; k < deps; ++k) {
        const gen& d = made[r.below(made.size())];
        if (where == gress::ingress && d.where == gress::egress) continue;
        after.push_back(d.name);
      }
      const uint64_t entries = 1 + r.below(uint64_t(1) << (1 + r.below(18)));  // log-spread up to 256k
      const std::string feature = "feat" + std::to_string(r.below(4));
      if (r.below(3) == 0) {
        const unsigned widths[] = {8, 16, 32};
        p.registers.push_back(register_decl{feature, name, std::min<uint64_t>(entries, 65536),
                                            widths[r.below(3)], r.below(2) == 0, r.below(3) != 0, where, after, ""});
        made.push_back({name, where, true, p.registers.size() - 1});
      } else {
        const match_kind kinds[] = {match_kind::exact, match_kind::ternary, match_kind::lpm, match_kind::index};
        const match_kind kind = kinds[r.below(4)];
        const unsigned key = kind == match_kind::index ? unsigned(r.below(20)) : 1 + unsigned(r.below(160));
        const uint64_t e = kind == match_kind::exact || kind == match_kind::index ? entries : 1 + entries / 16;
        p.tables.push_back(table_decl{feature, name, kind, e, key, unsigned(r.below(65)), where, after, ""});
        made.push_back({name, where, false, p.tables.size() - 1});
      }
    }

    const allocation a = allocate(p, b);
    ASSERT_EQ(a.stage.size(), b.stages);
    EXPECT_EQ(a.fits, a.problems.empty());
    EXPECT_EQ(a.fits, a.placed.size() == count);
    fitting += a.fits;

    std::map<std::string, const placement*> at;
    for (const placement& pl : a.placed) at[pl.name] = &pl;
    std::vector<stage_use> sum(b.stages);
    std::vector<std::multiset<std::string>> names(b.stages);
    for (const gen& g : made) {
      const auto it = at.find(g.name);
      if (it == at.end()) {
        // Not placed: a problem says so.
        const bool told = std::any_of(a.problems.begin(), a.problems.end(), [&](const std::string& m) {
          return m.find("'" + g.name + "' (feature") != std::string::npos;
        });
        EXPECT_TRUE(told) << g.name;
        continue;
      }
      const placement& pl = *it->second;
      const std::vector<std::string>& after = g.is_register ? p.registers[g.index].after : p.tables[g.index].after;
      for (const std::string& d : after) {
        ASSERT_TRUE(at.count(d)) << g.name << " placed but its dependency " << d << " is not";
        EXPECT_GT(pl.first_stage, at[d]->last_stage) << g.name << " after " << d;
      }
      ASSERT_FALSE(pl.parts.empty());
      EXPECT_EQ(pl.first_stage, pl.parts.front().stage);
      EXPECT_EQ(pl.last_stage, pl.parts.back().stage);
      EXPECT_LT(pl.last_stage, b.stages);
      EXPECT_EQ(pl.is_register, g.is_register);
      uint64_t entries = 0;
      for (size_t k = 0; k < pl.parts.size(); ++k) {
        const stage_part& part = pl.parts[k];
        if (k > 0) {
          EXPECT_GT(part.stage, pl.parts[k - 1].stage);
        }
        EXPECT_GT(part.entries, 0u);
        entries += part.entries;
        const item_cost c = g.is_register ? recount_register(p.registers[g.index], b)
                                          : recount_table(p.tables[g.index], part.entries, b);
        expect_cost(part.use, c.sram_blocks, c.tcam_blocks, c.stateful_alus, c.hash_bits, c.action_slots);
        stage_use& s = sum[part.stage];
        s.sram_blocks += unsigned(c.sram_blocks);
        s.tcam_blocks += unsigned(c.tcam_blocks);
        s.stateful_alus += unsigned(c.stateful_alus);
        s.hash_bits += unsigned(c.hash_bits);
        s.action_slots += unsigned(c.action_slots);
        names[part.stage].insert(g.name);
      }
      if (g.is_register) {
        EXPECT_EQ(pl.parts.size(), 1u) << g.name;
        EXPECT_EQ(pl.first_stage, pl.last_stage);
        EXPECT_EQ(entries, p.registers[g.index].entries);
      } else {
        EXPECT_EQ(entries, p.tables[g.index].entries);
      }
      split += pl.parts.size() > 1;
    }
    for (unsigned s = 0; s < b.stages; ++s) {
      const stage_use& u = a.stage[s];
      EXPECT_EQ(u.sram_blocks, sum[s].sram_blocks) << "stage " << s;
      EXPECT_EQ(u.tcam_blocks, sum[s].tcam_blocks) << "stage " << s;
      EXPECT_EQ(u.stateful_alus, sum[s].stateful_alus) << "stage " << s;
      EXPECT_EQ(u.hash_bits, sum[s].hash_bits) << "stage " << s;
      EXPECT_EQ(u.action_slots, sum[s].action_slots) << "stage " << s;
      EXPECT_EQ(std::multiset<std::string>(u.items.begin(), u.items.end()), names[s]) << "stage " << s;
      EXPECT_LE(u.sram_blocks, b.sram_blocks);
      EXPECT_LE(u.tcam_blocks, b.tcam_blocks);
      EXPECT_LE(u.stateful_alus, b.stateful_alus);
      EXPECT_LE(u.hash_bits, b.hash_bits);
      EXPECT_LE(u.action_slots, b.action_slots);
    }
    // Same input, same answer.
    const allocation again = allocate(p, b);
    EXPECT_EQ(format_allocation(again, b), format_allocation(a, b));
    if (HasFailure()) {
      ADD_FAILURE() << "round " << round << "\n" << format_allocation(a, b);
      return;
    }
  }
  // The generator must exercise both outcomes and splitting.
  EXPECT_GT(fitting, 40u);
  EXPECT_LT(fitting, 360u);
  EXPECT_GT(split, 20u);
  std::printf("random: %u of 400 fit, %u split tables\n", fitting, split);
}
