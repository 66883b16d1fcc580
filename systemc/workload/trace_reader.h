// Traffic from a file instead of a generator (traffic.trace): a pcap capture, a packet list or a
// flow list, with trace addresses mapped to the topology's hosts. Every error names the file and
// the packet number or line, and is raised before anything runs. Formats: docs/user-guide.md.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "workload/packet_trace.h"
#include "workload/traffic.h"

namespace netasic {

enum class trace_format { pcap, flows, packets };

struct trace_source {
  std::string path;                          // as opened (and named in errors)
  trace_format format = trace_format::pcap;
  uint32_t hosts = 0;                        // the topology's hosts: 0..hosts-1
  std::map<uint32_t, uint32_t> host_of;      // traffic.trace_hosts: IPv4 address -> host
  bool int_padding = false;                  // RoCEv2 frames carry HPCC's INT stack (nic.int_padding)
};

// An address's host: traffic.trace_hosts first, else a 10.0.0.0/8 address is host (addr & 0xFFFFFF)
// as host_ip() numbers them. Throws config_error (prefixed by `where`) for an address of no host.
uint32_t trace_host(const trace_source& s, uint32_t addr, const std::string& where);

// A packet-level trace: a pcap (Ethernet, nanosecond or microsecond stamps; its first packet at
// time 0) or a packet list. `payload_bytes`, if given, gets each packet's L4 payload.
// Frames that are not IPv4 (ARP, PFC, LLDP, ...) are left out and counted in `skipped`.
packet_trace read_packet_trace(const trace_source& s, uint64_t& skipped, std::vector<uint32_t>* payload_bytes = nullptr);

// The flows of a trace: a flow list read as it is; a pcap or packet list grouped by 5-tuple
// (start: its first packet, size: its payload bytes summed; a 5-tuple with no payload, such as a
// TCP ACK stream, is no flow). Sorted by start; ids are left to the caller.
std::vector<flow_spec> read_trace_flows(const trace_source& s, uint64_t& skipped);

// "auto" picks pcap for a .pcap/.pcapng/.cap file name; throws config_error otherwise.
trace_format parse_trace_format(const std::string& name, const std::string& path);

}  // namespace netasic
