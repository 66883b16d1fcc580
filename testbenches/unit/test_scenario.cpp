// The scenario reader: keys bound to fields (defaults read from the structs, unit conversions
// both ways, name tables), and netasic's own keys turned into the fabric's configuration.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "scenario/key_binding.h"
#include "scenario/scenario.h"

namespace netasic {
namespace {

// A block config with one field per kind of binding; each default is a value worked out by hand
// in the key's unit below.
struct widget {
  enum class mode { slow, fast };
  uint64_t period_ps = 800;               // 1250 MHz
  uint64_t timeout_ps = 2'500'000;        // 2.5 us
  uint64_t buffer_bytes = 3 * 1024;       // 3 KiB
  uint64_t floor_bps = 1'500'000;         // 1.5 Mbps
  int64_t skew_ppb = -250;                // -0.25 ppm
  struct inner {
    double gain = 0.125;
  } in;
  uint8_t lanes = 0x81;                   // priorities 0 and 7
  std::array<uint32_t, 3> quantum{1, 2, 3};
  mode m = mode::fast;
  bool on = true;
  std::string label = "x";
};

const names<widget::mode> mode_names{{widget::mode::slow, "slow"}, {widget::mode::fast, "fast"}};

template <class K>
void widget_keys(K& k) {
  using W = widget;
  k.real("w.clock", mhz_as_period_ps, &W::period_ps, 1, 1e5, "clock");
  k.real("w.timeout", us_as_ps, &W::timeout_ps, 0, 1e6, "timeout");
  k.integer("w.buffer", kib_as_bytes, &W::buffer_bytes, 1, 1 << 20, "buffer");
  k.real("w.floor", mbps_as_bps, &W::floor_bps, 0, 1e6, "floor");
  k.real("w.skew", ppm_as_ppb, &W::skew_ppb, -1e3, 1e3, "skew");
  k.real("w.inner.gain", "", path(&W::in, &W::inner::gain), 0, 1, "gain");
  k.priorities("w.lanes", &W::lanes, "lanes");
  k.integers("w.quantum", "bytes", &W::quantum, 1, 1000, "quantum");
  k.choice("w.mode", mode_names, &W::m, "mode");
  k.boolean("w.on", &W::on, "on");
  k.string("w.label", &W::label, "label");
  k.unbound.integer("w.by_hand", "", 7, 0, 9, "set by hand");
}

param_registry widget_registry() {
  param_registry r;
  declare_keys<widget> k(r);
  widget_keys(k);
  return r;
}

std::string default_of(const param_registry& r, const std::string& key) { return r.find(key)->default_value; }

TEST(ScenarioBinding, DefaultsComeFromTheStructInTheKeysUnits) {
  const param_registry r = widget_registry();
  EXPECT_EQ(default_of(r, "w.clock"), "1250.0");
  EXPECT_EQ(default_of(r, "w.timeout"), "2.5");
  EXPECT_EQ(default_of(r, "w.buffer"), "3");
  EXPECT_EQ(default_of(r, "w.floor"), "1.5");
  EXPECT_EQ(default_of(r, "w.skew"), "-0.25");
  EXPECT_EQ(default_of(r, "w.inner.gain"), "0.125");
  EXPECT_EQ(default_of(r, "w.lanes"), "[0, 7]");
  EXPECT_EQ(default_of(r, "w.quantum"), "[1, 2, 3]");
  EXPECT_EQ(r.find("w.quantum")->length, 3u);
  EXPECT_EQ(default_of(r, "w.mode"), "fast");
  EXPECT_EQ(r.find("w.mode")->choices, (std::vector<std::string>{"slow", "fast"}));
  EXPECT_EQ(default_of(r, "w.on"), "true");
  EXPECT_EQ(default_of(r, "w.label"), "x");
  EXPECT_EQ(default_of(r, "w.by_hand"), "7");
  EXPECT_EQ(r.find("w.clock")->unit, "MHz");
  EXPECT_EQ(r.find("w.buffer")->unit, "KiB");
}

TEST(ScenarioBinding, AppliesValuesThroughTheConversions) {
  const param_registry r = widget_registry();
  config c = default_config(r);
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"w.clock", "1600"}, {"w.timeout", "7.5"}, {"w.buffer", "5"}, {"w.floor", "0.0000019"}, {"w.skew", "-1.5"},
           {"w.inner.gain", "0.5"}, {"w.lanes", "[5, 3]"}, {"w.quantum", "[9, 8, 7]"}, {"w.mode", "slow"},
           {"w.on", "false"}, {"w.label", "y"}, {"w.by_hand", "2"}})
    c.set_from_text(k, v, "--set");
  widget w;
  apply_keys<widget> k(c, w);
  widget_keys(k);
  EXPECT_EQ(w.period_ps, 625u);              // 1e6 / 1600
  EXPECT_EQ(w.timeout_ps, 7'500'000u);
  EXPECT_EQ(w.buffer_bytes, 5u * 1024);
  EXPECT_EQ(w.floor_bps, 1u);                // 1.9 bps, truncated
  EXPECT_EQ(w.skew_ppb, -1500);
  EXPECT_EQ(w.in.gain, 0.5);
  EXPECT_EQ(w.lanes, 0x28);                  // bits 3 and 5
  EXPECT_EQ(w.quantum, (std::array<uint32_t, 3>{9, 8, 7}));
  EXPECT_EQ(w.m, widget::mode::slow);
  EXPECT_FALSE(w.on);
  EXPECT_EQ(w.label, "y");

  // The defaults applied to a default struct leave it as it was.
  widget d;
  d.period_ps = d.timeout_ps = d.buffer_bytes = d.floor_bps = 0;
  const config defaults = default_config(r);
  apply_keys<widget> back(defaults, d);
  widget_keys(back);
  const widget fresh;
  EXPECT_EQ(d.period_ps, fresh.period_ps);
  EXPECT_EQ(d.timeout_ps, fresh.timeout_ps);
  EXPECT_EQ(d.buffer_bytes, fresh.buffer_bytes);
  EXPECT_EQ(d.floor_bps, fresh.floor_bps);
  EXPECT_EQ(d.skew_ppb, fresh.skew_ppb);
  EXPECT_EQ(d.lanes, fresh.lanes);
}

std::string apply_error(const std::string& key, const std::string& value) {
  const param_registry r = widget_registry();
  config c = default_config(r);
  c.set_from_text(key, value, "--set");
  widget w;
  apply_keys<widget> k(c, w);
  try {
    widget_keys(k);
  } catch (const config_error& e) {
    return e.what();
  }
  return "";
}

TEST(ScenarioBinding, BadValuesNameTheKey) {
  EXPECT_EQ(apply_error("w.clock", "3000").rfind("--set: key 'w.clock': a 3000 MHz clock has a period of", 0), 0u)
      << apply_error("w.clock", "3000");
  EXPECT_EQ(apply_error("w.lanes", "[3, 1, 3]"), "--set: key 'w.lanes': priority 3 is listed twice");
}

struct narrow {
  uint8_t small = 1;
  uint64_t bytes = 1000;
  uint64_t ps = 5;
};

TEST(ScenarioBinding, DeclarationsTheFieldCannotHoldAreBugs) {
  param_registry r;
  declare_keys<narrow> k(r);
  EXPECT_THROW(k.integer("n.small", "", &narrow::small, 0, 300, ""), std::logic_error);       // 300 > uint8_t
  EXPECT_THROW(k.integer("n.bytes", kib_as_bytes, &narrow::bytes, 0, 10, ""), std::logic_error);   // 1000 B is not whole KiB
  EXPECT_THROW(k.real("n.ps", "us", &narrow::ps, 0, 10, ""), std::logic_error);   // us into ps needs us_as_ps
  EXPECT_THROW(k.real("n.ps2", us_as_ps, &narrow::ps, 0, 1e20, ""), std::logic_error);   // 1e26 ps
  EXPECT_NO_THROW(k.integer("n.small", "", &narrow::small, 0, 255, ""));
  EXPECT_EQ(r.all().size(), 1u);
}

// nic.window was 128 in the declarations and 64 in nic_config: now nic_config holds it alone.
TEST(Scenario, NicDefaultsAreTheModelsOwn) {
  EXPECT_EQ(nic_config{}.window_packets, 128u);
  EXPECT_EQ(nic_config{}.rto_ps, 1'000'000'000u);   // nic.rto = 1000 us
  EXPECT_EQ(all_params().find("nic.window")->default_value, "128");
  EXPECT_EQ(all_params().find("nic.rto")->default_value, "1000.0");
  const fabric_config f = make_fabric_config(default_scenario());
  EXPECT_EQ(f.nic.window_packets, 128u);
  EXPECT_EQ(f.nic.rto_ps, 1'000'000'000u);
}

// Every bound field read back from the default keys equals the model's initialiser.
TEST(Scenario, DefaultKeysRebuildTheDefaultStructs) {
  const fabric_config f = make_fabric_config(default_scenario());
  const switch_config sw;
  EXPECT_EQ(f.sw.clock_period_ps, sw.clock_period_ps);
  EXPECT_EQ(f.sw.parser_cycles, sw.parser_cycles);
  EXPECT_EQ(f.sw.stages, sw.stages);
  EXPECT_EQ(f.sw.tm_cycles, sw.tm_cycles);
  EXPECT_EQ(f.sw.pipe_fifo, sw.pipe_fifo);
  EXPECT_EQ(f.sw.recirc_rate_bps, sw.recirc_rate_bps);
  EXPECT_EQ(f.sw.tm.buffer_bytes, sw.tm.buffer_bytes);
  EXPECT_EQ(f.sw.tm.alpha, sw.tm.alpha);
  EXPECT_EQ(f.sw.tm.strict, sw.tm.strict);
  EXPECT_EQ(f.sw.tm.quantum, sw.tm.quantum);
  EXPECT_EQ(f.sw.tm.xoff_fraction, sw.tm.xoff_fraction);
  EXPECT_EQ(f.sw.tm.xon_offset_bytes, sw.tm.xon_offset_bytes);
  EXPECT_EQ(f.sw.pfc_quanta, sw.pfc_quanta);
  EXPECT_EQ(f.sw.hash_bits, sw.hash_bits);
  EXPECT_EQ(f.sw.member_capacity, sw.member_capacity);
  EXPECT_EQ(f.sw.mirror.cpu_rate_bps, sw.mirror.cpu_rate_bps);
  EXPECT_EQ(f.sw.lb.mode, sw.lb.mode);
  EXPECT_EQ(f.sw.lb.flowlet.delta_ps, sw.lb.flowlet.delta_ps);
  EXPECT_EQ(f.sw.lb.dre.t_dre_ps, sw.lb.dre.t_dre_ps);
  EXPECT_EQ(f.sw.lb.dre.alpha, sw.lb.dre.alpha);
  EXPECT_EQ(f.sw.lb.conga_aging_ps, sw.lb.conga_aging_ps);
  EXPECT_EQ(f.sw.lb.sketch.form, sw.lb.sketch.form);
  EXPECT_EQ(f.sw.lb.sketch.delta_ps, sw.lb.sketch.delta_ps);
  EXPECT_EQ(f.sw.lb.sketch.Delta_ps, sw.lb.sketch.Delta_ps);
  const nic_config nic;
  EXPECT_EQ(f.nic.clock_period_ps, nic.clock_period_ps);
  EXPECT_EQ(f.nic.mtu_payload, nic.mtu_payload);
  EXPECT_EQ(f.nic.data_priority, nic.data_priority);
  EXPECT_EQ(f.nic.sched_engines, nic.sched_engines);
  EXPECT_EQ(f.nic.cc.algorithm, nic.cc.algorithm);
  EXPECT_EQ(f.seed, fabric_config{}.seed);

  config c = default_scenario();
  c.set_from_text("clock.algorithm", "sundial", "--set");
  c.set_from_text("topology.kind", "fat_tree", "--set");
  fabric_config g = make_fabric_config(c);
  clock_network_config k;
  ASSERT_TRUE(make_clock_config(c, g, k));
  const clock_network_config d;
  EXPECT_EQ(k.sync_interval_ps, d.sync_interval_ps);
  EXPECT_EQ(k.first_timeout_ps, d.first_timeout_ps);
  EXPECT_EQ(k.eps_per_hop_ps, d.eps_per_hop_ps);
  EXPECT_EQ(k.max_drift_ppb, d.max_drift_ppb);
  EXPECT_EQ(k.oscillator_bound_ppb, d.oscillator_bound_ppb);
  EXPECT_EQ(k.broken_rate_ppb, d.broken_rate_ppb);
  EXPECT_EQ(k.controller_delay_ps, d.controller_delay_ps);
  EXPECT_EQ(k.ptp_interval_ps, d.ptp_interval_ps);
  EXPECT_EQ(k.ptp_fast_recovery_ps, d.ptp_fast_recovery_ps);
  EXPECT_EQ(g.sync_priority, fabric_config{}.sync_priority);
}

// `netasic resources`: the stage budget from switch.stage.* (and the stage count from switch.stages).
TEST(Scenario, StageBudgetFromTheKeys) {
  config c = default_scenario();
  const stage_budget d = make_stage_budget(c), fresh;
  EXPECT_EQ(d.stages, fresh.stages);
  EXPECT_EQ(d.sram_blocks, fresh.sram_blocks);
  EXPECT_EQ(d.tcam_word_bits, fresh.tcam_word_bits);
  EXPECT_EQ(d.action_slots, fresh.action_slots);
  c.set_from_text("switch.stages", "20", "--set");
  c.set_from_text("switch.stage.sram_blocks", "40", "--set");
  c.set_from_text("switch.stage.hash_bits", "100", "--set");
  const stage_budget b = make_stage_budget(c);
  EXPECT_EQ(b.stages, 20u);
  EXPECT_EQ(b.sram_blocks, 40u);
  EXPECT_EQ(b.hash_bits, 100u);
}

fabric_config with(const std::vector<std::pair<std::string, std::string>>& sets) {
  config c = default_scenario();
  for (const auto& [k, v] : sets) c.set_from_text(k, v, "--set");
  return make_fabric_config(c);
}

// Each choice names its own value; nothing falls through to a default.
TEST(Scenario, ChoicesMapOneToOne) {
  const std::vector<std::pair<std::string, lb_mode>> modes = {
      {"ecmp", lb_mode::ecmp}, {"wcmp", lb_mode::wcmp}, {"spray_random", lb_mode::spray_random},
      {"spray_round_robin", lb_mode::spray_round_robin}, {"letflow", lb_mode::letflow},
      {"balance_sketch", lb_mode::balance_sketch}, {"conga", lb_mode::conga}};
  EXPECT_EQ(all_params().find("lb.mode")->choices.size(), modes.size());
  for (const auto& [name, mode] : modes) EXPECT_EQ(with({{"lb.mode", name}}).sw.lb.mode, mode) << name;
  EXPECT_EQ(with({{"switch.hash", "crc16"}}).sw.hash_bits, 16u);
  EXPECT_EQ(with({{"lb.mode", "balance_sketch"}, {"lb.sketch.form", "tofino"}}).sw.lb.sketch.form, bs_form::pipeline);
  EXPECT_EQ(with({{"mirror.to", "cpu"}}).sw.mirror.to, mirror_config::target::cpu);
  EXPECT_EQ(with({{"mirror.to", "collector"}}).sw.mirror.to, mirror_config::target::collector);
  const auto hpcc = with({{"cc.algorithm", "hpcc"}, {"nic.int_padding", "true"}, {"hpcc.divider", "exact"}});
  EXPECT_EQ(hpcc.nic.cc.algorithm, cc_algorithm::hpcc);
  EXPECT_EQ(hpcc.nic.cc.hpcc.division, hpcc_config::divider::exact);
  const auto dcqcn = with({{"cc.algorithm", "dcqcn"}, {"ecn.priorities", "[3]"}, {"dcqcn.variant", "paper"}});
  EXPECT_EQ(dcqcn.nic.cc.algorithm, cc_algorithm::dcqcn);
  EXPECT_EQ(dcqcn.nic.cc.dcqcn.variant, dcqcn_variant::paper);
  EXPECT_EQ(with({{"cc.algorithm", "dctcp"}, {"ecn.priorities", "[3]"}}).nic.cc.algorithm, cc_algorithm::dctcp);
  EXPECT_EQ(with({{"cc.algorithm", "timely"}}).nic.cc.algorithm, cc_algorithm::timely);
  const auto nic = with({{"flowcut.form", "nic"}});
  EXPECT_TRUE(nic.nic.flowcut);
  EXPECT_EQ(nic.nic.flowcut_table.variant, flowcut_variant::nic_only);
  EXPECT_FALSE(nic.sw.flowcut_on);
  EXPECT_EQ(with({{"flowcut.form", "ingress"}}).sw.flowcut.variant, flowcut_variant::ingress_only);
  EXPECT_EQ(with({{"flowcut.form", "switch"}}).sw.flowcut.variant, flowcut_variant::full_switch);
}

// An algorithm's keys reach its config only when it runs (the others' keys are only warned about).
TEST(Scenario, OnlyTheChosenAlgorithmsKeysApply) {
  // Another algorithm's key is refused, unless kept for a sweep over modes; then it has no effect.
  EXPECT_THROW(with({{"cc.algorithm", "dctcp"}, {"ecn.priorities", "[3]"}, {"hpcc.eta", "0.5"}}), config_error);
  const auto dctcp = with({{"cc.algorithm", "dctcp"}, {"ecn.priorities", "[3]"}, {"hpcc.eta", "0.5"}, {"dctcp.g", "0.25"},
                           {"sim.unused_keys", "warn"}});
  EXPECT_EQ(dctcp.nic.cc.hpcc.eta, hpcc_config{}.eta);
  EXPECT_EQ(dctcp.nic.cc.dctcp.g, 0.25);
  const auto hpcc = with({{"cc.algorithm", "hpcc"}, {"nic.int_padding", "true"}, {"hpcc.eta", "0.5"}});
  EXPECT_EQ(hpcc.nic.cc.hpcc.eta, 0.5);
  const auto dcqcn = with({{"cc.algorithm", "dcqcn"}, {"ecn.priorities", "[3]"}, {"dcqcn.rate_ai", "40"},
                           {"dcqcn.min_rate", "100"}, {"dcqcn.cnp_interval", "50"}});
  EXPECT_EQ(dcqcn.nic.cc.dcqcn.rate_ai_bps, 40'000'000u);
  EXPECT_EQ(dcqcn.nic.cc.dcqcn.min_rate_bps, 100'000'000u);
  EXPECT_EQ(dcqcn.nic.cc.cnp_interval_ps, 50'000'000u);
}

}  // namespace
}  // namespace netasic

namespace netasic {

// Flowcut's table keeps the link rate in whole Gb/s: a fractional host rate is refused, naming
// the key, rather than rounded.
TEST(Scenario, FlowcutRefusesAFractionalHostRate) {
  config c = default_scenario();
  c.set_from_text("flowcut.form", "nic", "--set");
  c.set_from_text("topology.host_rate", "25", "--set");
  EXPECT_EQ(make_fabric_config(c).nic.flowcut_table.link_rate_gbps, 25u);
  c.set_from_text("topology.host_rate", "12.5", "--set");
  try {
    make_fabric_config(c);
    FAIL() << "12.5 Gbps was accepted";
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find("topology.host_rate"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--set"), std::string::npos) << e.what();
  }
}

}  // namespace netasic
