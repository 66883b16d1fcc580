#include "output/gtkw.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "common/file_io.h"
#include "output/csv.h"
#include "output/vcd.h"

namespace netasic {

namespace {

// GTKWave trace flag bits (its save-file "@<hex>" lines).
constexpr unsigned tr_bin = 0x8;
constexpr unsigned tr_dec = 0x4;
constexpr unsigned tr_rjustify = 0x20;
constexpr unsigned tr_blank = 0x200;
constexpr unsigned tr_signed = 0x400;
constexpr unsigned tr_analog_step = 0x8000;
constexpr unsigned tr_analog_blank_stretch = 0x20000;
constexpr unsigned tr_grp_begin = 0x800000;
constexpr unsigned tr_grp_end = 0x1000000;

constexpr int window_width_px = 1400, window_height_px = 800, sst_width_px = 220, signals_width_px = 260;
constexpr int analog_extra_rows = 3;   // blank rows that make each analog trace 4 rows tall

}  // namespace

void write_gtkw(std::ostream& out, const std::string& vcd_file_name, const probe_set& probes,
                const std::string& save_file_name) {
  validate_probe_set(probes);
  out << "[*] GTKWave save file written by netasic: probes per device, decimal values as analog steps\n";
  out << "[dumpfile] \"" << vcd_file_name << "\"\n";
  // GTKWave resolves a [dumpfile] that is not found from the current directory by its path
  // relative to [savefile], applied to where the save file is now.
  if (!save_file_name.empty()) out << "[savefile] \"" << save_file_name << "\"\n";
  out << "[timestart] 0\n";
  out << fmt::format("[size] {} {}\n", window_width_px, window_height_px);
  // Zoom to the whole run. GTKWave shows 2^-zoom time units (ps) per frame of 200 pixels; the
  // wave pane is what the window leaves beside the signal tree and the signal names.
  if (probes.t_s.size() >= 2) {
    double span_ps = (probes.t_s.back() - probes.t_s.front() + probes.interval_s) * 1e12;
    double wave_px = window_width_px - sst_width_px - signals_width_px - 100;
    if (span_ps > 0) {
      out << fmt::format("*{:.6f} -1", -std::log2(span_ps * 200 / wave_px));
      for (int m = 0; m < 26; ++m) out << " -1";   // markers a..z unset
      out << '\n';
    }
  }
  out << fmt::format("[sst_width] {}\n[signals_width] {}\n[sst_expanded] 1\n", sst_width_px, signals_width_px);

  std::vector<std::string> devices;
  for (const auto& s : probes.series)
    if (std::find(devices.begin(), devices.end(), s.device) == devices.end()) devices.push_back(s.device);
  for (const auto& d : devices) out << "[treeopen] " << d << ".\n";

  unsigned flags = 0;
  auto set_flags = [&](unsigned f) {
    if (f != flags) out << fmt::format("@{:x}\n", f);
    flags = f;
  };
  for (const auto& d : devices) {
    set_flags(tr_grp_begin | tr_blank);
    out << '-' << d << '\n';
    int color = 0;
    // Within a device, the probes of one port ("port3.qdepth", "port3.paused", ...) form a
    // nested group named after the port.
    std::string group;
    auto close_group = [&] {
      if (group.empty()) return;
      set_flags(tr_grp_end | tr_blank);
      out << '-' << group << '\n';
      group.clear();
    };
    for (const auto& s : probes.series) {
      if (s.device != d) continue;
      const std::string prefix = s.name.compare(0, 4, "port") == 0 ? s.name.substr(0, s.name.find('.')) : "";
      if (prefix != group) {
        close_group();
        if (!prefix.empty()) {
          set_flags(tr_grp_begin | tr_blank);
          out << '-' << prefix << '\n';
          group = prefix;
        }
      }
      bool negative = std::any_of(s.samples.begin(), s.samples.end(), [](int64_t v) { return v < 0; });
      set_flags(tr_analog_step | tr_rjustify | (negative ? tr_signed : tr_dec));
      out << fmt::format("[color] {}\n", color % 7 + 1);   // 0 is the default green of digital traces
      ++color;
      // Shown as "port3/qdepth_bytes" under the device's group (GTKWave would cut an alias
      // with dots to its last part); GTKWave 3.3 names vectors with their bit range.
      std::string path = vcd_signal_path(s);
      std::string alias = path.substr(path.find('.') + 1);
      std::replace(alias.begin(), alias.end(), '.', '/');
      out << "+{" << alias << "} " << path << "[63:0]\n";
      for (int i = 0; i < analog_extra_rows; ++i) {
        set_flags(tr_analog_blank_stretch);
        out << "-\n";
      }
    }
    close_group();
    set_flags(tr_grp_end | tr_blank);
    out << '-' << d << '\n';
  }
  out << "[pattern_trace] 1\n[pattern_trace] 0\n";
}

void write_gtkw(const std::string& path, const std::string& vcd_file_name, const probe_set& probes) {
  validate_probe_set(probes);
  const auto slash = path.find_last_of('/');
  const std::string save_file_name = slash == std::string::npos ? path : path.substr(slash + 1);
  write_file(path, [&](std::ostream& out) { write_gtkw(out, vcd_file_name, probes, save_file_name); });
}

namespace {

std::string first_part(const std::string& name) { return name.substr(0, name.find('.')); }

// "port3" of "leaf0.port3.queue_bytes", or "" for a signal of the device itself.
std::string port_part(const std::string& name) {
  const size_t a = name.find('.');
  if (a == std::string::npos || name.compare(a + 1, 4, "port") != 0) return "";
  const size_t b = name.find('.', a + 1);
  return b == std::string::npos ? "" : name.substr(a + 1, b - a - 1);
}

bool analog(const std::string& name) {
  for (const char* s : {"queue_bytes", "entries", "qdepth_bytes", "used_bytes", "_ns", "utilization"})
    if (name.find(s) != std::string::npos) return true;
  return false;
}

}  // namespace

void write_gtkw(std::ostream& out, const std::string& dump_file_name, const wave_dump& d,
                const std::string& save_file_name) {
  out << "[*] GTKWave save file written by netasic: signals per device and port\n";
  out << "[dumpfile] \"" << dump_file_name << "\"\n";
  if (!save_file_name.empty()) out << "[savefile] \"" << save_file_name << "\"\n";
  out << "[timestart] 0\n";
  out << fmt::format("[size] {} {}\n", window_width_px, window_height_px);
  if (d.end_ps > 0) {
    const double wave_px = window_width_px - sst_width_px - signals_width_px - 100;
    out << fmt::format("*{:.6f} -1", -std::log2(double(d.end_ps) * 200 / wave_px));
    for (int m = 0; m < 26; ++m) out << " -1";
    out << '\n';
  }
  out << fmt::format("[sst_width] {}\n[signals_width] {}\n[sst_expanded] 1\n", sst_width_px, signals_width_px);
  std::vector<std::string> devices;
  for (const wave_var& v : d.vars)
    if (std::find(devices.begin(), devices.end(), first_part(v.name)) == devices.end()) devices.push_back(first_part(v.name));
  for (const auto& dev : devices) out << "[treeopen] " << dev << ".\n";
  unsigned flags = 0;
  auto set_flags = [&](unsigned f) {
    if (f != flags) out << fmt::format("@{:x}\n", f);
    flags = f;
  };
  auto group = [&](unsigned f, const std::string& name) {
    set_flags(f | tr_blank);
    out << '-' << name << '\n';
  };
  for (const auto& dev : devices) {
    group(tr_grp_begin, dev);
    // Ports in the order their first signal was declared, then the device's own signals.
    std::vector<std::string> ports;
    for (const wave_var& v : d.vars)
      if (first_part(v.name) == dev && std::find(ports.begin(), ports.end(), port_part(v.name)) == ports.end())
        ports.push_back(port_part(v.name));
    std::stable_partition(ports.begin(), ports.end(), [](const std::string& p) { return !p.empty(); });
    for (const auto& port : ports) {
      if (!port.empty()) group(tr_grp_begin, port);
      for (const wave_var& v : d.vars) {
        if (first_part(v.name) != dev || port_part(v.name) != port) continue;
        const std::string alias = v.name.substr(dev.size() + 1 + (port.empty() ? 0 : port.size() + 1));
        if (v.width == 1) {
          set_flags(tr_bin | tr_rjustify);
          out << "+{" << alias << "} " << v.name << '\n';
          continue;
        }
        const bool a = analog(v.name);
        set_flags((a ? tr_analog_step : 0) | tr_rjustify | (v.is_signed ? tr_signed : tr_dec));
        out << "+{" << alias << "} " << v.name << fmt::format("[{}:0]\n", v.width - 1);
        for (int i = 0; a && i < analog_extra_rows; ++i) {
          set_flags(tr_analog_blank_stretch);
          out << "-\n";
        }
      }
      if (!port.empty()) group(tr_grp_end, port);
    }
    group(tr_grp_end, dev);
  }
  out << "[pattern_trace] 1\n[pattern_trace] 0\n";
}

void write_gtkw(const std::string& path, const std::string& dump_file_name, const wave_dump& d) {
  const auto slash = path.find_last_of('/');
  const std::string save_file_name = slash == std::string::npos ? path : path.substr(slash + 1);
  write_file(path, [&](std::ostream& out) { write_gtkw(out, dump_file_name, d, save_file_name); });
}

}  // namespace netasic
