// GTKWave save file for the probes VCD: signals grouped per device, integers in decimal drawn
// as analog step traces so a queue depth reads as a curve. Open with `gtkwave run.gtkw`.
#pragma once
#include <ostream>
#include <string>

#include "common/wave_trace.h"
#include "output/run_data.h"

namespace netasic {

// vcd_file_name is written as given into [dumpfile]; pass a name relative to the save file's
// directory (e.g. "probes.vcd") so the pair can be moved together. save_file_name (the save
// file's own name, written as [savefile]) lets GTKWave find that VCD when it is started from
// another directory; the path overload sets it.
void write_gtkw(std::ostream& out, const std::string& vcd_file_name, const probe_set& probes,
                const std::string& save_file_name = "");
void write_gtkw(const std::string& path, const std::string& vcd_file_name, const probe_set& probes);

// The save file of `netasic run --vcd/--fst` (a wave_dump): one group per device and inside it
// one per port; levels (1 bit) as digital traces, queue depths and table occupancy as analog
// steps, counters in decimal. Zoomed to the whole run.
void write_gtkw(std::ostream& out, const std::string& dump_file_name, const wave_dump& d,
                const std::string& save_file_name = "");
void write_gtkw(const std::string& path, const std::string& dump_file_name, const wave_dump& d);

}  // namespace netasic
