#include "sizing/resources.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <functional>
#include <queue>
#include <stdexcept>
#include <unordered_map>

namespace netasic {

namespace {

constexpr size_t none = size_t(-1);

uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

// Saturating: a request too large to count is simply too large to fit.
uint64_t mul_sat(uint64_t a, uint64_t b) {
  if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
  return a * b;
}

unsigned ceil_log2(uint64_t x) {
  unsigned n = 0;
  while (n < 64 && (uint64_t(1) << n) < x) ++n;
  return n;
}

// SRAM words for entries of entry_bits each: packed several to a word when they fit in one,
// otherwise spread over whole words.
uint64_t sram_words(uint64_t entries, uint64_t entry_bits, unsigned word_bits) {
  if (entry_bits == 0) return 0;
  if (entry_bits <= word_bits) return ceil_div(entries, word_bits / entry_bits);
  return mul_sat(entries, ceil_div(entry_bits, word_bits));
}

// One table or register array of the program, by its index in the declaration order
// (tables first, then registers).
struct item {
  const table_decl* t = nullptr;
  const register_decl* r = nullptr;
  std::vector<size_t> deps;  // items it needs, without repeats

  const std::string& name() const { return t ? t->name : r->name; }
  const std::string& feature() const { return t ? t->feature : r->feature; }
  const std::vector<std::string>& after() const { return t ? t->after : r->after; }
  gress where() const { return t ? t->where : r->where; }
  uint64_t entries() const { return t ? t->entries : r->entries; }
  const std::string& knob() const { return t ? t->knob : r->knob; }
  std::string describe() const {
    return fmt::format("{} '{}' (feature {})", t ? "table" : "register array", name(), feature());
  }
};

[[noreturn]] void malformed(const std::string& what) { throw std::invalid_argument(what); }

void check_budget(const stage_budget& b) {
  const std::pair<const char*, unsigned> fields[] = {
      {"stages", b.stages},
      {"sram_blocks", b.sram_blocks},
      {"sram_block_words", b.sram_block_words},
      {"sram_word_bits", b.sram_word_bits},
      {"tcam_blocks", b.tcam_blocks},
      {"tcam_block_words", b.tcam_block_words},
      {"tcam_word_bits", b.tcam_word_bits},
      {"stateful_alus", b.stateful_alus},
      {"hash_bits", b.hash_bits},
      {"action_slots", b.action_slots},
      {"phv_bits", b.phv_bits},
      {"recirc_gbps", b.recirc_gbps}};
  for (const auto& [name, value] : fields)
    if (value == 0) malformed(fmt::format("stage budget: {} is 0; every budget field must be at least 1", name));
}

std::vector<item> build_items(const program& prog) {
  std::vector<item> items;
  for (const table_decl& t : prog.tables) {
    if (t.name.empty()) malformed(fmt::format("a table of feature {} has no name", t.feature));
    if (t.entries == 0) malformed(fmt::format("table '{}' (feature {}) has 0 entries", t.name, t.feature));
    if (t.key_bits == 0 && t.kind != match_kind::index)
      malformed(fmt::format("table '{}' (feature {}) is a {} match with key_bits 0", t.name, t.feature,
                            to_string(t.kind)));
    items.push_back(item{&t, nullptr, {}});
  }
  for (const register_decl& r : prog.registers) {
    if (r.name.empty()) malformed(fmt::format("a register array of feature {} has no name", r.feature));
    if (r.entries == 0) malformed(fmt::format("register array '{}' (feature {}) has 0 entries", r.name, r.feature));
    if (r.width_bits != 8 && r.width_bits != 16 && r.width_bits != 32)
      malformed(fmt::format("register array '{}' (feature {}) is {} bits wide; a stateful ALU word is 8, 16 or 32",
                            r.name, r.feature, r.width_bits));
    items.push_back(item{nullptr, &r, {}});
  }

  std::unordered_map<std::string, size_t> by_name;
  for (size_t i = 0; i < items.size(); ++i) {
    const auto [it, inserted] = by_name.emplace(items[i].name(), i);
    if (!inserted)
      malformed(fmt::format("two items are named '{}': {} and {}", items[i].name(), items[it->second].describe(),
                            items[i].describe()));
  }
  for (item& x : items) {
    for (const std::string& n : x.after()) {
      const auto it = by_name.find(n);
      if (it == by_name.end())
        malformed(fmt::format("{} is after '{}', which is no table or register array of the program", x.describe(), n));
      // A packet's ingress is done before its egress starts: ingress cannot use an egress result.
      if (x.where() == gress::ingress && items[it->second].where() == gress::egress)
        malformed(fmt::format("ingress {} is after egress '{}'; ingress runs before egress", x.describe(), n));
      if (std::find(x.deps.begin(), x.deps.end(), it->second) == x.deps.end()) x.deps.push_back(it->second);
    }
  }
  return items;
}

// Kahn's algorithm, always taking the lowest declaration index that is ready; a cycle is
// named in the error.
std::vector<size_t> topological_order(const std::vector<item>& items) {
  const size_t n = items.size();
  std::vector<size_t> waiting(n);
  std::vector<std::vector<size_t>> users(n);
  for (size_t i = 0; i < n; ++i) {
    waiting[i] = items[i].deps.size();
    for (size_t d : items[i].deps) users[d].push_back(i);
  }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < n; ++i)
    if (waiting[i] == 0) ready.push(i);
  std::vector<size_t> order;
  while (!ready.empty()) {
    const size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (size_t u : users[i])
      if (--waiting[u] == 0) ready.push(u);
  }
  if (order.size() == n) return order;

  // Every item left waits on another item left: follow those until one repeats.
  size_t cur = 0;
  while (waiting[cur] == 0) ++cur;
  std::vector<size_t> path, pos(n, none);
  while (pos[cur] == none) {
    pos[cur] = path.size();
    path.push_back(cur);
    for (size_t d : items[cur].deps)
      if (waiting[d] != 0) {
        cur = d;
        break;
      }
  }
  std::string cycle;
  for (size_t k = pos[cur]; k < path.size(); ++k) cycle += fmt::format("'{}' needs ", items[path[k]].name());
  cycle += fmt::format("'{}'", items[cur].name());
  malformed("dependency cycle: " + cycle);
}

bool fits_in(const stage_use& u, const item_cost& c, const stage_budget& b) {
  return c.sram_blocks <= b.sram_blocks - u.sram_blocks && c.tcam_blocks <= b.tcam_blocks - u.tcam_blocks &&
         c.stateful_alus <= b.stateful_alus - u.stateful_alus && c.hash_bits <= b.hash_bits - u.hash_bits &&
         c.action_slots <= b.action_slots - u.action_slots;
}

// The largest count of entries, at most `limit`, whose cost fits in what `u` leaves free
// (the cost grows with the entries, so bisect).
uint64_t most_entries(const table_decl& t, uint64_t limit, const stage_use& u, const stage_budget& b) {
  uint64_t lo = 0, hi = limit;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo + 1) / 2;
    if (fits_in(u, table_cost(t, mid, b), b)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

std::string plural(uint64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string join_and(const std::vector<std::string>& parts) {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) s += i + 1 == parts.size() ? " and " : ", ";
    s += parts[i];
  }
  return s;
}

std::string stage_range(unsigned first, unsigned last) {
  return first == last ? fmt::format("stage {}", first) : fmt::format("stages {}-{}", first, last);
}

// Why stage use `u` cannot take `c`, e.g. "stateful ALUs 4/4 used, SRAM blocks 78/80 used".
std::string shortage(const stage_use& u, const item_cost& c, const stage_budget& b) {
  std::vector<std::string> why;
  const auto check = [&](const char* what, uint64_t need, unsigned used, unsigned avail) {
    if (need > avail - used) why.push_back(fmt::format("{} {}/{} used", what, used, avail));
  };
  check("stateful ALUs", c.stateful_alus, u.stateful_alus, b.stateful_alus);
  check("SRAM blocks", c.sram_blocks, u.sram_blocks, b.sram_blocks);
  check("TCAM blocks", c.tcam_blocks, u.tcam_blocks, b.tcam_blocks);
  check("hash bits", c.hash_bits, u.hash_bits, b.hash_bits);
  check("action slots", c.action_slots, u.action_slots, b.action_slots);
  std::string s;
  for (const std::string& w : why) s += (s.empty() ? "" : ", ") + w;
  return s;
}

class allocator {
 public:
  allocator(const std::vector<item>& items, const stage_budget& b) : items_(items), b_(b) {
    a_.stage.resize(b.stages);
    last_.assign(items.size(), none);
  }

  allocation run(const std::vector<size_t>& order) {
    for (size_t i : order) place(i);
    a_.fits = a_.problems.empty();
    return std::move(a_);
  }

 private:
  void place(size_t i) {
    const item& x = items_[i];
    unsigned earliest = 0;
    size_t binding = none;  // the dependency that sets `earliest`
    for (size_t d : x.deps) {
      if (last_[d] == none) {
        a_.problems.push_back(
            fmt::format("{} not placed: it is after '{}', which was not placed", x.describe(), items_[d].name()));
        return;
      }
      if (last_[d] + 1 > earliest) earliest = unsigned(last_[d] + 1), binding = d;
    }
    if (earliest >= b_.stages) {
      a_.problems.push_back(fmt::format("{} must go after stage {} (it is after '{}'), but the last stage is {}",
                                        x.describe(), earliest - 1, items_[binding].name(), b_.stages - 1));
      shortfall f = start_shortfall(x);
      f.resource = "stages", f.need = earliest + 1, f.used = b_.stages, f.budget = b_.stages;
      f.advice = fmt::format("the chain of items before it needs {} stages and the target has {}: use a target "
                             "with more stages, or turn off a feature of the chain", earliest + 1, b_.stages);
      a_.shortfalls.push_back(std::move(f));
      return;
    }
    if (x.r) place_register(i, earliest);
    else place_table(i, earliest);
  }

  // The first resource of `c` that stage `s` cannot give, with its numbers.
  void binding(shortfall& f, unsigned s, const item_cost& c) const {
    const stage_use& u = a_.stage[s];
    const std::tuple<const char*, uint64_t, unsigned, unsigned> rs[] = {
        {"stateful ALUs", c.stateful_alus, u.stateful_alus, b_.stateful_alus},
        {"SRAM blocks", c.sram_blocks, u.sram_blocks, b_.sram_blocks},
        {"TCAM blocks", c.tcam_blocks, u.tcam_blocks, b_.tcam_blocks},
        {"hash bits", c.hash_bits, u.hash_bits, b_.hash_bits},
        {"action slots", c.action_slots, u.action_slots, b_.action_slots}};
    f.stage = int(s);
    for (const auto& [what, need, used, avail] : rs)
      if (need > avail - used) {
        f.resource = what, f.need = need, f.used = used, f.budget = avail;
        return;
      }
  }

  shortfall start_shortfall(const item& x) const {
    shortfall f;
    f.item = x.name(), f.feature = x.feature(), f.knob = x.knob(), f.entries = x.entries();
    return f;
  }

  void add_shortfall(shortfall f) {
    if (f.knob.empty()) f.advice = fmt::format("free {} in stage {} (move or shrink another item there)", f.resource, f.stage);
    else if (f.max_entries == 0)
      f.advice = fmt::format("free {} in stage {}: no size of {} fits there beside what is placed", f.resource, f.stage, f.knob);
    else f.advice = fmt::format("shrink {} to <= {}", f.knob, power_of_two_at_most(f.max_entries));
    a_.shortfalls.push_back(std::move(f));
  }

  // The most entries of register `r` that stage `s` could take beside what it holds.
  uint64_t register_room(const register_decl& r, unsigned s) const {
    register_decl probe = r;
    uint64_t lo = 0, hi = r.entries;
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo + 1) / 2;
      probe.entries = mid;
      if (fits_in(a_.stage[s], register_cost(probe, b_), b_)) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  // A register array that fits no stage: the stage with the most room binds.
  void register_shortfall(const item& x, unsigned earliest, const item_cost& c) {
    shortfall f = start_shortfall(x);
    unsigned best = earliest;
    for (unsigned s = earliest; s < b_.stages; ++s) {
      const uint64_t room = register_room(*x.r, s);
      if (room > f.max_entries || s == earliest) f.max_entries = room, best = s;
    }
    binding(f, best, c);
    add_shortfall(std::move(f));
  }

  void place_register(size_t i, unsigned earliest) {
    const item& x = items_[i];
    const item_cost c = register_cost(*x.r, b_);
    std::vector<std::string> needs;
    needs.push_back(plural(c.stateful_alus, "stateful ALU", "stateful ALUs"));
    needs.push_back(plural(c.sram_blocks, "SRAM block", "SRAM blocks"));
    if (c.hash_bits > 0) needs.push_back(plural(c.hash_bits, "hash bit", "hash bits"));
    needs.push_back(plural(c.action_slots, "action slot", "action slots"));

    // Larger than a whole stage: say so rather than list every stage as full.
    std::vector<std::string> too_big;
    if (c.sram_blocks > b_.sram_blocks) too_big.push_back(fmt::format("{} SRAM blocks", b_.sram_blocks));
    if (c.hash_bits > b_.hash_bits) too_big.push_back(fmt::format("{} hash bits", b_.hash_bits));
    if (!too_big.empty()) {
      a_.problems.push_back(fmt::format("{} needs {} in one stage, but a stage has only {}", x.describe(),
                                        join_and(needs), join_and(too_big)));
      register_shortfall(x, earliest, c);
      return;
    }
    for (unsigned s = earliest; s < b_.stages; ++s)
      if (fits_in(a_.stage[s], c, b_)) {
        commit(i, {stage_part{s, x.entries(), c}});
        return;
      }

    // Per stage, what is short; consecutive stages with the same story are told once.
    std::string why;
    for (unsigned s = earliest; s < b_.stages;) {
      const std::string w = shortage(a_.stage[s], c, b_);
      unsigned e = s;
      while (e + 1 < b_.stages && shortage(a_.stage[e + 1], c, b_) == w) ++e;
      why += fmt::format("{}{}: {}", why.empty() ? "" : "; ", stage_range(s, e), w);
      s = e + 1;
    }
    const std::string where = earliest + 1 == b_.stages
                                  ? fmt::format("stage {} does not have them free", earliest)
                                  : fmt::format("no stage from {} to {} has them free", earliest, b_.stages - 1);
    a_.problems.push_back(fmt::format("{} needs {} in one stage; {} ({})", x.describe(), join_and(needs), where, why));
    register_shortfall(x, earliest, c);
  }

  void place_table(size_t i, unsigned earliest) {
    const item& x = items_[i];
    const table_decl& t = *x.t;
    const item_cost whole = table_cost(t, t.entries, b_);
    for (unsigned s = earliest; s < b_.stages; ++s)
      if (fits_in(a_.stage[s], whole, b_)) {
        commit(i, {stage_part{s, t.entries, whole}});
        return;
      }

    // No stage holds it whole: fill from the earliest eligible stage on.
    std::vector<stage_part> parts;
    uint64_t left = t.entries;
    for (unsigned s = earliest; s < b_.stages && left > 0; ++s) {
      const uint64_t n = most_entries(t, left, a_.stage[s], b_);
      if (n == 0) continue;
      parts.push_back(stage_part{s, n, table_cost(t, n, b_)});
      left -= n;
    }
    if (left == 0) {
      commit(i, parts);
      return;
    }

    uint64_t free_sram = 0, free_tcam = 0, free_hash = 0, free_slots = 0;
    for (unsigned s = earliest; s < b_.stages; ++s) {
      free_sram += b_.sram_blocks - a_.stage[s].sram_blocks;
      free_tcam += b_.tcam_blocks - a_.stage[s].tcam_blocks;
      free_hash += b_.hash_bits - a_.stage[s].hash_bits;
      free_slots += b_.action_slots - a_.stage[s].action_slots;
    }
    const std::string after = earliest == 0 ? "" : fmt::format(" after stage {}", earliest - 1);
    const std::string range = stage_range(earliest, b_.stages - 1);
    const std::string lost = fmt::format("{} of its {} entries do not fit", left, t.entries);
    table_shortfall(x, earliest, whole, t.entries - left, free_sram, free_tcam);
    std::vector<std::string> need, have;
    if (whole.sram_blocks > free_sram) {
      need.push_back(fmt::format("{} SRAM blocks", whole.sram_blocks));
      have.push_back(fmt::format("{}", free_sram));
    }
    if (whole.tcam_blocks > free_tcam) {
      need.push_back(fmt::format("{} TCAM blocks", whole.tcam_blocks));
      have.push_back(fmt::format("{}", free_tcam));
    }
    if (!need.empty()) {
      a_.problems.push_back(fmt::format("{} needs {}{}; {} {} {}; {}", x.describe(), join_and(need), after, range,
                                        earliest + 1 == b_.stages ? "holds" : "hold", join_and(have), lost));
      return;
    }
    // Enough blocks in total, but not in pieces that also get an action slot and hash bits.
    a_.problems.push_back(fmt::format(
        "{} does not fit{}: its parts need more than {} {} free ({} SRAM blocks, {} TCAM blocks, {} hash bits, "
        "{} action slots); {}",
        x.describe(), after, range, earliest + 1 == b_.stages ? "has" : "have", free_sram, free_tcam, free_hash,
        free_slots, lost));
  }

  // A table that fits no set of stages: the range from `earliest` on binds.
  void table_shortfall(const item& x, unsigned earliest, const item_cost& whole, uint64_t placeable,
                       uint64_t free_sram, uint64_t free_tcam) {
    shortfall f = start_shortfall(x);
    f.stage = int(earliest);
    f.max_entries = placeable;
    const uint64_t range = b_.stages - earliest;
    if (whole.tcam_blocks > free_tcam)
      f.resource = "TCAM blocks", f.need = whole.tcam_blocks, f.budget = range * b_.tcam_blocks,
      f.used = f.budget - free_tcam;
    else
      f.resource = "SRAM blocks", f.need = whole.sram_blocks, f.budget = range * b_.sram_blocks,
      f.used = f.budget - free_sram;
    add_shortfall(std::move(f));
    a_.shortfalls.back().advice += fmt::format(" (stages {}-{} together)", earliest, b_.stages - 1);
  }

  void commit(size_t i, const std::vector<stage_part>& parts) {
    const item& x = items_[i];
    placement p;
    p.name = x.name();
    p.feature = x.feature();
    p.first_stage = parts.front().stage;
    p.last_stage = parts.back().stage;
    p.is_register = x.r != nullptr;
    if (x.t) p.kind = x.t->kind;
    p.where = x.where();
    p.entries = x.entries();
    p.parts = parts;
    for (const stage_part& part : parts) {
      // Each part passed fits_in, so every sum stays within the (unsigned) budget.
      stage_use& u = a_.stage[part.stage];
      u.sram_blocks += unsigned(part.use.sram_blocks);
      u.tcam_blocks += unsigned(part.use.tcam_blocks);
      u.stateful_alus += unsigned(part.use.stateful_alus);
      u.hash_bits += unsigned(part.use.hash_bits);
      u.action_slots += unsigned(part.use.action_slots);
      u.items.push_back(p.name);
    }
    last_[i] = p.last_stage;
    a_.placed.push_back(std::move(p));
  }

  const std::vector<item>& items_;
  const stage_budget& b_;
  allocation a_;
  std::vector<size_t> last_;  // last stage of each placed item; none = not placed
};

}  // namespace

const char* to_string(match_kind k) {
  switch (k) {
    case match_kind::exact: return "exact";
    case match_kind::ternary: return "ternary";
    case match_kind::lpm: return "lpm";
    case match_kind::index: return "index";
  }
  return "?";
}

const char* to_string(gress g) { return g == gress::ingress ? "ingress" : "egress"; }

namespace {

// The PHV and the recirculation port are shared by the whole pipeline: sums against the target.
void check_pipeline(const program& prog, const stage_budget& b, allocation& a) {
  const phv_decl* widest = nullptr;
  for (const phv_decl& p : prog.phv) {
    a.phv_used += p.bits;
    if (!widest || p.bits > widest->bits) widest = &p;
  }
  if (a.phv_used > b.phv_bits) {
    a.problems.push_back(fmt::format("the packet header vector needs {} bits and the target has {} (widest: '{}' of "
                                     "feature {}, {} bits)", a.phv_used, b.phv_bits, widest->name, widest->feature,
                                     widest->bits));
    shortfall f{widest->name, widest->feature, "", "PHV bits", -1, a.phv_used, 0, b.phv_bits, 0, 0, ""};
    f.advice = fmt::format("turn off a feature that carries metadata (the widest is {}) or use a target with more PHV",
                           widest->feature);
    a.shortfalls.push_back(std::move(f));
  }
  const recirc_decl* largest = nullptr;
  for (const recirc_decl& r : prog.recirc) {
    a.recirc_gbps += r.gbps;
    if (!largest || r.gbps > largest->gbps) largest = &r;
  }
  if (a.recirc_gbps > b.recirc_gbps) {
    a.problems.push_back(fmt::format("the recirculation port needs up to {:.3f} Gb/s and the target has {} Gb/s "
                                     "(largest: '{}' of feature {}, {:.3f} Gb/s: {})", a.recirc_gbps, b.recirc_gbps,
                                     largest->name, largest->feature, largest->gbps, largest->basis));
    shortfall f{largest->name, largest->feature, largest->knob, "recirculation Gb/s", -1,
                uint64_t(std::ceil(a.recirc_gbps)), 0, b.recirc_gbps, 0, 0, ""};
    // The demand is linear in the knob: scale it down to what the port leaves.
    const double rest = a.recirc_gbps - largest->gbps, room = b.recirc_gbps - rest;
    f.advice = room <= 0 ? fmt::format("other blocks already fill the recirculation port")
                         : fmt::format("shrink {} by a factor of {:.2f} or more", largest->knob, largest->gbps / room);
    a.shortfalls.push_back(std::move(f));
  }
  a.fits = a.problems.empty();
}

}  // namespace

item_cost table_cost(const table_decl& t, uint64_t entries, const stage_budget& b) {
  item_cost c;
  if (entries == 0) return c;
  c.action_slots = 1;
  const uint64_t block_bits = uint64_t(b.sram_word_bits) * b.sram_block_words;
  switch (t.kind) {
    case match_kind::exact: {
      const uint64_t words = sram_words(entries, uint64_t(t.key_bits) + t.action_bits + 4, b.sram_word_bits);
      c.sram_blocks = ceil_div(words, b.sram_block_words);
      c.hash_bits = ceil_log2(std::max<uint64_t>(2, words));
      break;
    }
    case match_kind::index:
      c.sram_blocks = ceil_div(sram_words(entries, t.action_bits, b.sram_word_bits), b.sram_block_words);
      break;
    case match_kind::ternary:
    case match_kind::lpm:
      c.tcam_blocks = mul_sat(ceil_div(entries, b.tcam_block_words), ceil_div(t.key_bits, b.tcam_word_bits));
      c.sram_blocks = ceil_div(mul_sat(entries, t.action_bits), block_bits);
      break;
  }
  return c;
}

item_cost register_cost(const register_decl& r, const stage_budget& b) {
  item_cost c;
  const uint64_t bits = mul_sat(mul_sat(r.entries, r.width_bits), r.dual ? 2 : 1);
  c.sram_blocks = ceil_div(bits, uint64_t(b.sram_word_bits) * b.sram_block_words) + 1;  // +1: spare block
  c.stateful_alus = 1;
  c.hash_bits = r.hashed_index ? ceil_log2(std::max<uint64_t>(2, r.entries)) : 0;
  c.action_slots = 1;
  return c;
}

allocation allocate(const program& prog, const stage_budget& budget) {
  check_budget(budget);
  const std::vector<item> items = build_items(prog);
  const std::vector<size_t> order = topological_order(items);
  allocation a = allocator(items, budget).run(order);
  check_pipeline(prog, budget, a);
  return a;
}

std::vector<std::string> program::features() const {
  std::vector<std::string> f;
  const auto add = [&f](const std::string& x) {
    if (std::find(f.begin(), f.end(), x) == f.end()) f.push_back(x);
  };
  for (const auto& t : tables) add(t.feature);
  for (const auto& r : registers) add(r.feature);
  for (const auto& p : phv) add(p.feature);
  for (const auto& r : recirc) add(r.feature);
  for (const auto& b : buffer) add(b.feature);
  return f;
}

std::string power_of_two_at_most(uint64_t v) {
  if (v == 0) return "0";
  unsigned n = 0;
  while (n < 63 && (uint64_t(2) << n) <= v) ++n;
  return fmt::format("2^{} ({})", n, uint64_t(1) << n);
}

std::string format_allocation(const allocation& a, const stage_budget& b) {
  std::string out = fmt::format(
      "pipeline: {} stages; each has {} SRAM blocks ({} x {} bits), {} TCAM blocks ({} x {} bits), "
      "{} stateful ALUs, {} hash bits, {} action slots\n\n",
      b.stages, b.sram_blocks, b.sram_block_words, b.sram_word_bits, b.tcam_blocks, b.tcam_block_words,
      b.tcam_word_bits, b.stateful_alus, b.hash_bits, b.action_slots);

  // Per stage used/available; the last row sums the pipeline.
  const std::vector<std::string> head = {"stage", "SRAM blocks", "TCAM blocks", "stateful ALUs", "hash bits",
                                         "action slots"};
  std::vector<std::vector<std::string>> rows;
  stage_use total;
  const auto cell = [](uint64_t used, uint64_t avail) { return fmt::format("{}/{}", used, avail); };
  for (size_t s = 0; s < a.stage.size(); ++s) {
    const stage_use& u = a.stage[s];
    rows.push_back({fmt::format("{}", s), cell(u.sram_blocks, b.sram_blocks), cell(u.tcam_blocks, b.tcam_blocks),
                    cell(u.stateful_alus, b.stateful_alus), cell(u.hash_bits, b.hash_bits),
                    cell(u.action_slots, b.action_slots)});
    total.sram_blocks += u.sram_blocks;
    total.tcam_blocks += u.tcam_blocks;
    total.stateful_alus += u.stateful_alus;
    total.hash_bits += u.hash_bits;
    total.action_slots += u.action_slots;
  }
  const uint64_t n = a.stage.size();
  rows.push_back({"total", cell(total.sram_blocks, n * b.sram_blocks), cell(total.tcam_blocks, n * b.tcam_blocks),
                  cell(total.stateful_alus, n * b.stateful_alus), cell(total.hash_bits, n * b.hash_bits),
                  cell(total.action_slots, n * b.action_slots)});
  std::vector<size_t> width(head.size());
  for (size_t c = 0; c < head.size(); ++c) {
    width[c] = head[c].size();
    for (const auto& r : rows) width[c] = std::max(width[c], r[c].size());
  }
  const auto line = [&](const std::vector<std::string>& r) {
    std::string l = fmt::format("{:<{}}", r[0], width[0]);
    for (size_t c = 1; c < r.size(); ++c) l += fmt::format("  {:>{}}", r[c], width[c]);
    return l + "\n";
  };
  out += line(head);
  for (const auto& r : rows) out += line(r);

  // Items by first stage (allocation order within a stage).
  std::vector<const placement*> items;
  for (const placement& p : a.placed) items.push_back(&p);
  std::stable_sort(items.begin(), items.end(),
                   [](const placement* x, const placement* y) { return x->first_stage < y->first_stage; });
  size_t name_w = 4, feature_w = 7;
  for (const placement* p : items) {
    name_w = std::max(name_w, p->name.size());
    feature_w = std::max(feature_w, p->feature.size());
  }
  out += "\nitems:\n";
  for (const placement* p : items) {
    std::string stages = stage_range(p->first_stage, p->last_stage);
    std::string detail = plural(p->entries, "entry", "entries");
    if (p->parts.size() > 1) {
      detail += " (";
      for (size_t k = 0; k < p->parts.size(); ++k)
        detail += fmt::format("{}stage {}: {}", k ? ", " : "", p->parts[k].stage, p->parts[k].entries);
      detail += ")";
    }
    out += fmt::format("  {:<{}}  {:<{}}  {:<8}  {:<7}  {:<12}  {}\n", p->name, name_w, p->feature, feature_w,
                       p->is_register ? "register" : to_string(p->kind), to_string(p->where), stages, detail);
  }
  if (items.empty()) out += "  (none)\n";

  out += fmt::format("\npipeline-wide: PHV {}/{} bits, recirculation {:.3f}/{} Gb/s\n", a.phv_used, b.phv_bits,
                     a.recirc_gbps, b.recirc_gbps);
  if (a.fits) {
    out += "\nfits\n";
  } else {
    out += fmt::format("\ndoes not fit ({}):\n", plural(a.problems.size(), "problem", "problems"));
    for (const std::string& p : a.problems) out += "  - " + p + "\n";
    out += "\nwhat binds, and what to shrink:\n";
    for (const shortfall& f : a.shortfalls) {
      const std::string where = f.stage < 0 ? std::string("the pipeline") : fmt::format("stage {}", f.stage);
      out += fmt::format("  - '{}' ({}): {} in {}: needs {}, budget {} with {} used; {}\n", f.item, f.feature,
                         f.resource, where, f.need, f.budget, f.used, f.advice);
    }
  }
  return out;
}

program forwarding_program(uint64_t prefixes, uint64_t ecmp_members, unsigned ports, bool int_enabled, bool mirror,
                           uint64_t host_routes) {
  program p;
  // Keyed by the destination's prefix; the action is the ECMP group (base 16 bits, size 16 bits).
  const unsigned prefix_bits = unsigned(std::max<uint64_t>(1, ceil_log2(std::max<uint64_t>(2, prefixes))));
  p.tables.push_back(table_decl{"routing", "route", match_kind::exact, prefixes, prefix_bits, 32, gress::ingress, {}, ""});
  std::vector<std::string> group_from = {"route"};
  if (host_routes) {   // the /32s: keyed by the address's 24-bit host field, looked up beside 'route'
    p.tables.push_back(table_decl{"routing", "host_route", match_kind::exact, host_routes, 24, 32, gress::ingress, {}, ""});
    group_from.push_back("host_route");
  }
  // Addressed by base + hash % size (16 bits, as the route action's base); holds the port.
  p.tables.push_back(table_decl{"ecmp", "ecmp_member", match_kind::index, ecmp_members, 16, 16, gress::ingress,
                                group_from, "switch.ecmp_members"});
  if (int_enabled) {
    // Indexed by the egress port, not by a hash.
    p.registers.push_back(register_decl{"int", "int_tx_bytes", ports, 32, false, false, gress::egress, {}, ""});
    p.tables.push_back(table_decl{"int", "int_switch_id", match_kind::index, 1, 0, 12, gress::egress, {}, ""});
  }
  if (mirror) {
    // One in N: a counter the sampler's stateful ALU wraps at N.
    p.registers.push_back(register_decl{"mirror", "mirror_sampler", 1, 32, false, false, gress::ingress, {}, ""});
    p.tables.push_back(table_decl{"mirror", "mirror_session", match_kind::index, 1, 0, 32, gress::ingress, {"mirror_sampler"}, ""});
  }
  return p;
}

}  // namespace netasic
