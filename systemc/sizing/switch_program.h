// The program one switch runs, built from the configuration structs: every block the
// configuration enables, as the match tables, register arrays, PHV bits, recirculation and
// buffer bytes the allocator (sizing/resources.h) places on a target. Each block's mapping onto
// a Tofino-like pipeline, with its cost formula, is in docs/sizing.md.
#pragma once
#include <cstdint>

#include "sizing/resources.h"
#include "switch/switch.h"

namespace netasic {

struct switch_program_inputs {
  switch_config sw;              // pipeline, lb (mode and its blocks), Flowcut, mirror
  uint64_t prefixes = 0;         // route entries: one per destination prefix (switch with hosts)
  unsigned ports = 0;            // front-panel ports
  unsigned host_ports = 0;       // of them, facing hosts (Flowcut ingress_only is on switches with one)
  bool conga_leaf = false;       // lb.mode conga: this switch is a leaf (else a spine)
  bool int_enabled = false;      // INT records (nic.int_padding)
  bool sundial = false;          // Sundial's register block (clock.algorithm = sundial)
  uint32_t frame_bytes = 0;      // largest data frame (Flowcut's held packets)
  uint32_t window_packets = 0;   // per flow (Flowcut's held packets)
  lossradar_config lossradar;    // telemetry.lossradar: the meters of every port
  uint64_t host_routes = 0;      // host-route entries: its attached hosts, a null route per host whose link is down
  uint64_t path_entries = 0;     // KSP's path table: (source prefix, destination prefix, path id) entries
  uint64_t path_counts = 0;      // KSP's path counts: one per ToR pair this switch is the source of
};

// The feature name of each load-balancing mode: the name its lb.mode key takes.
const char* lb_feature(lb_mode m);

program switch_program(const switch_program_inputs& in);

// KSP's path table (route_table.h): its exact-match key, the source and destination prefixes and
// the path id, in bits; its result is an egress port.
unsigned path_key_bits(uint64_t prefixes);
unsigned path_result_bits(unsigned ports);

}  // namespace netasic
