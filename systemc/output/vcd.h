// Value Change Dump of the sampled probes, for GTKWave (see gtkw.h for its save file).
#pragma once
#include <functional>
#include <ostream>
#include <string>

#include "common/wave_trace.h"
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

// The event-exact trace of `netasic run --vcd` (common/wave_trace.h): each dot-separated part
// of a variable's name but the last is a nested scope, in first-appearance order; a 1-bit
// variable is a scalar "wire 1", the others "wire <width>" in binary. "$timescale 1ps"; every
// variable is 0 in $dumpvars at #0; then each change at its exact time; a last "#<end_ps>"
// marks the end of the run. Throws std::runtime_error on I/O errors.
void write_vcd(std::ostream& out, const wave_dump& d);
void write_vcd(const std::string& path, const wave_dump& d);

// Walks the scope tree of a dump's variables (shared by the VCD and FST writers): enter a
// scope, declare variable `index` under its last name part, leave the scope.
struct wave_scope_visitor {
  std::function<void(const std::string& scope)> enter;
  std::function<void(size_t index, const std::string& var)> var;
  std::function<void()> leave;
};
void visit_wave_scopes(const wave_dump& d, const wave_scope_visitor& v);
// A value as its `width` binary digits, most significant first (FST's value strings).
std::string wave_bits(uint64_t value, unsigned width);

}  // namespace netasic
