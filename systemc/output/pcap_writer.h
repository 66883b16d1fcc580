// A pcap capture of one direction of one link: a frame tap that writes every frame put on the
// wire, as its bytes (protocol/wire.h), stamped with its first bit in nanoseconds. Standard
// libpcap files (DLT_EN10MB, nanosecond precision, no FCS), readable by tcpdump and Wireshark.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "tlm/frame_tap.h"

struct pcap;
struct pcap_dumper;

namespace netasic {

class pcap_writer : public frame_tap {
 public:
  // Opens `path` for writing; `next` (may be null) is a tap that was on the link already and
  // still sees every frame. Throws std::runtime_error naming the path when it cannot be opened.
  pcap_writer(const std::string& path, frame_tap* next);
  ~pcap_writer() override;
  pcap_writer(const pcap_writer&) = delete;
  pcap_writer& operator=(const pcap_writer&) = delete;

  void on_frame(const packet& p, uint64_t start_ps) override;
  // Flushes and closes; throws std::runtime_error naming the path if any write failed.
  void close();

  const std::string& path() const { return path_; }
  uint64_t frames() const { return frames_; }
  uint64_t bytes() const { return bytes_; }   // frame bytes with FCS, as the link counts them

 private:
  std::string path_;
  frame_tap* next_;
  FILE* file_ = nullptr;
  pcap* dead_ = nullptr;
  pcap_dumper* dumper_ = nullptr;
  std::vector<uint8_t> buf_;
  uint64_t frames_ = 0, bytes_ = 0;
};

}  // namespace netasic
