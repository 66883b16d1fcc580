// `netasic run --pcap PORTS`: which link directions to capture, and the pcap writers on them.
//
// PORTS is a comma-separated list of NODE:PORT (one port of a switch or host, by the topology's
// node names: leaf0:2, host5:0), NODE:* (every port of the node) or NODE (the same as NODE:*).
// Each port gives two files in the run directory, pcap/NODE.pPORT.tx.pcap (frames the node puts
// on the link) and pcap/NODE.pPORT.rx.pcap (frames the link brings it). See docs/outputs.md.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "output/pcap_writer.h"
#include "tlm/link.h"
#include "topology/topology.h"

namespace netasic {

class fabric;

struct pcap_tap_point {
  unsigned link = 0;        // topology link index (= fabric link)
  bool a_to_b = true;       // the direction captured
  std::string file;         // relative to the run directory: "pcap/leaf0.p2.tx.pcap"
};

// Throws config_error naming --pcap, the item and the valid names or ports.
std::vector<pcap_tap_point> parse_pcap_ports(const topology& t, const std::string& spec);

class pcap_capture {
 public:
  // Creates RUN_DIR/pcap/ and one writer per point, each on its link direction's tap (after any
  // tap already there).
  pcap_capture(fabric& fab, const std::vector<pcap_tap_point>& points, const std::string& run_dir);
  // Closes every file (throws naming a file that failed) and returns summary.json's "pcap":
  // one {file, frames, bytes} per file.
  nlohmann::json finish();

 private:
  std::vector<pcap_tap_point> points_;
  std::vector<std::unique_ptr<pcap_writer>> writers_;
  std::vector<std::pair<link_direction*, frame_tap*>> restore_;   // each tapped direction and its tap before
};

}  // namespace netasic
