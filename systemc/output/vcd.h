// Value Change Dump of the sampled probes, for GTKWave (see gtkw.h for its save file).
#pragma once
#include <ostream>
#include <string>

#include "output/run_data.h"

namespace netasic {

// Signal path of a series in the VCD: "leaf0.port3.qdepth_bytes". The device is the top scope,
// each dot-separated part of the name but the last is a nested scope, and the variable is the
// last part with "_<unit>" appended. Whitespace and brackets (which GTKWave would read as a bit
// range) become '_'.
std::string vcd_signal_path(const probe_series& s);

// Writes a VCD: "$timescale 1ps", no $date (the output depends on the data only), one
// "$scope module <device>" per device, each series a "wire 64" integer (negative values in
// two's complement). The first sample time carries every value in $dumpvars; after that a
// value is written only when it differs from the previous one, and a "#<ps>" line only when
// some value changes. A last "#<ps>" one interval after the final sample closes the trace.
// Throws std::invalid_argument for an inconsistent probe_set, std::runtime_error on I/O errors.
void write_vcd(std::ostream& out, const probe_set& probes);
void write_vcd(const std::string& path, const probe_set& probes);

}  // namespace netasic
