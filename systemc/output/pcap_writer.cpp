#include "output/pcap_writer.h"

#include <pcap/pcap.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "protocol/wire.h"

namespace netasic {

pcap_writer::pcap_writer(const std::string& path, frame_tap* next) : path_(path), next_(next) {
  // Snap length: the largest frame a 16-bit IPv4 length allows, so nothing is cut.
  dead_ = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535 + 64, PCAP_TSTAMP_PRECISION_NANO);
  file_ = std::fopen(path.c_str(), "wb");
  if (!dead_ || !file_) {
    const std::string why = std::strerror(errno);
    if (file_) std::fclose(file_);
    if (dead_) pcap_close(dead_);
    throw std::runtime_error("cannot write " + path + ": " + why);
  }
  dumper_ = pcap_dump_fopen(dead_, file_);   // owns file_ from here
  if (!dumper_) {
    const std::string why = pcap_geterr(dead_);
    std::fclose(file_);
    pcap_close(dead_);
    throw std::runtime_error("cannot write " + path + ": " + why);
  }
}

pcap_writer::~pcap_writer() {
  if (dumper_) pcap_dump_close(dumper_);
  if (dead_) pcap_close(dead_);
}

void pcap_writer::on_frame(const packet& p, uint64_t start_ps) {
  serialise(p, buf_);
  pcap_pkthdr h{};
  // With nanosecond precision the tv_usec field holds nanoseconds.
  h.ts.tv_sec = time_t(start_ps / 1'000'000'000'000ull);
  h.ts.tv_usec = suseconds_t(start_ps % 1'000'000'000'000ull / 1000);
  h.caplen = h.len = bpf_u_int32(buf_.size());
  pcap_dump(reinterpret_cast<u_char*>(dumper_), &h, buf_.data());
  ++frames_;
  bytes_ += p.frame_bytes();
  if (next_) next_->on_frame(p, start_ps);
}

void pcap_writer::close() {
  if (!dumper_) return;
  const bool flushed = pcap_dump_flush(dumper_) == 0 && !std::ferror(pcap_dump_file(dumper_));
  pcap_dump_close(dumper_);   // closes the file
  dumper_ = nullptr;
  if (!flushed) throw std::runtime_error("error while writing " + path_);
}

}  // namespace netasic
