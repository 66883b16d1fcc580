// The topology file: any fabric as plain text, one statement a line, so that every error can
// name its line (the reason for not using GraphViz DOT: Boost's read_graphviz reports no line
// numbers). The grammar, in full:
//
//   # a comment, to the end of the line; blank lines are ignored
//   switch NAME [ports=N] [tier=T]     a switch; ports = how many it has (default: as many as
//                                       its links), tier = its stage for the ECMP hash (1..8,
//                                       default 1)
//   host NAME                          a host: one port, to one switch
//   link END END [rate=GBPS] [delay=NS] [failed | degraded=GBPS]
//                                       a full-duplex link; END is NAME or NAME:PORT
//
// Names are letters, digits, '_' and '.', and unique. A link without rate= or delay= takes the
// scenario's topology.host_rate (a host link) or topology.uplink_rate, and topology.link_delay.
// Ports are numbered from 0; an END without :PORT takes its device's lowest port no END names.
// Errors name the file and line: a dangling port (declared but linked by nothing, or beyond
// ports=N), a duplicate name, a link to itself, a port used twice, a host on no switch or on two
// links, a host linked to a host, a disconnected fabric, the hosts of a switch not declared one
// after another (host numbers are declaration order, and the traffic generator takes a switch's
// hosts as one range).
#pragma once
#include <cstdint>
#include <string>

#include "topology/topology.h"

namespace netasic {

struct topology_file_defaults {
  uint64_t host_rate_bps = 0, uplink_rate_bps = 0, delay_ps = 0;
};

// Throws config_error "SOURCE:LINE: what is wrong".
topology parse_topology_text(const std::string& text, const std::string& source, const topology_file_defaults& d);

// Reads the file at `path` (config_error naming it when it cannot be read) and parses it.
topology read_topology_file(const std::string& path, const topology_file_defaults& d);

}  // namespace netasic
