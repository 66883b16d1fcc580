#include "scenario/deter_keys.h"

#include <filesystem>

#include <limits>

#include "scenario/key_binding.h"

namespace netasic {
namespace {

const names<deter_clock> deter_clock_names{{deter_clock::exact, "exact"}, {deter_clock::clock_layer, "clock_layer"}};
const names<deter_mode> deter_mode_names{{deter_mode::off, "off"}, {deter_mode::record, "record"}, {deter_mode::replay, "replay"}};

template <class K>
void deter_keys(K& k) {
  auto d = [](auto m) { return path(&fabric_config::deter, m); };
  k.choice("deter.mode", deter_mode_names, d(&deter_config::mode), "DETER: record (each host logs sampled sending times, sizes, IP_ID drops, CE bits; the run writes deter.rec) or replay deter.record's frames open-loop into the same fabric");
  k.real("deter.th", us_as_ps, d(&deter_config::th_ps), 0, 1e6, "DETER record: the rate sampler's threshold th (Algorithm 12): every inferred sending time within +-th");
  k.choice("deter.clock", deter_clock_names, d(&deter_config::clock), "DETER record: hosts stamp sending times with true time (exact) or with their clocks under clock.algorithm (clock_layer: a replay then carries the synchronisation's real errors)");
  k.string("deter.record", d(&deter_config::record), "DETER replay: the record file (deter.rec in the record run's directory; deter_queues.bin beside it)");
  k.real("deter.clock_error", us_as_ps, d(&deter_config::clock_error_ps), 0, 1e6, "DETER replay: each host's clock is off by a uniform draw in [0, this]");
  k.integer("deter.clock_seed", "", d(&deter_config::clock_seed), 0, std::numeric_limits<int64_t>::max(), "DETER replay: seed of the hosts' clock errors");
  k.boolean("deter.drop_rule", d(&deter_config::drop_rule), "DETER replay: frames the record saw dropped are tagged; a switch drops a tagged frame only above its queue's limit - 5 MTU and never an untagged one (false: plain admission, the control)");
}

}  // namespace

void declare_deter_keys(param_registry& r) {
  declare_keys<fabric_config> k(r);
  deter_keys(k);
}

void read_deter(const config& c, fabric_config& f) {
  apply_keys<fabric_config> k(c, f);
  deter_keys(k);
  const deter_config& d = f.deter;
  if (d.mode == deter_mode::off) {
    unused_by_mode(c, {"deter.th", "deter.clock", "deter.record", "deter.clock_error", "deter.drop_rule"}, "when deter.mode is off");
    return;
  }
  if (f.nic.int_enabled)
    fail(c, "nic.int_padding", "DETER replays frames at their recorded size, and INT grows them at every hop; turn INT off");
  if (d.mode == deter_mode::record && c.string("flowcut.form") == "nic")
    fail(c, "flowcut.form", "is \"nic\", which gives a flow a new source port at every flowcut, but DETER keys a connection "
                            "by its 5-tuple and numbers its frames from 0: record without Flowcut's NIC form");
  if (d.mode == deter_mode::record) unused_by_mode(c, {"deter.record", "deter.clock_error", "deter.drop_rule"}, "when recording");
  else unused_by_mode(c, {"deter.clock"}, "when replaying (the record's times already carry its clocks)");
  if (d.clock == deter_clock::clock_layer && d.mode == deter_mode::record && c.string("clock.algorithm") == "off")
    fail(c, "deter.clock", "is \"clock_layer\", but clock.algorithm is \"off\": no clock layer runs to stamp with");
  if (d.mode != deter_mode::replay) return;
  if (d.record.empty()) fail(c, "deter.record", "a replay needs the record file (deter.rec of a deter.mode = \"record\" run)");
  if (std::filesystem::path(d.record).is_relative())   // read against the scenario's folder
    f.deter.record = (std::filesystem::path(c.base_dir("deter.record")) / d.record).lexically_normal().string();
  if (d.drop_rule) {
    f.sw.tm.deter_drop_rule = true;
    f.sw.tm.deter_margin_bytes = 5ull * f.nic.max_frame_bytes();   // max - 5 MTU (§6.3.4)
  }
}

}  // namespace netasic
