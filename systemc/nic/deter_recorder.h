// DETER's recorder at the hosts (thesis ch. 6 §6.3-6.4), the part that matters to the network:
// a tap on each host's uplink sees what the host sends and runs the rate sampler (Algorithm 12)
// per connection, keeping the frame sizes; a tap on its downlink sees what it receives and finds
// drops and reordering from gaps in the consecutive IPv4 identifications, with one ECN CE bit per
// packet. Transport-agnostic: any frame with an IPv4 5-tuple (RoCEv2 data, ACK, NAK, CNP; TCP)
// is a connection's packet, provided its sender numbers IP_ID consecutively per connection from 0.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "blocks/deter_sampler.h"
#include "nic/deter_record.h"
#include "tlm/frame_tap.h"

namespace netasic {

enum class deter_mode : uint8_t { off, record, replay };
enum class deter_clock : uint8_t { exact, clock_layer };   // what a recording host stamps with

struct deter_config {
  deter_mode mode = deter_mode::off;
  uint64_t th_ps = 5'000'000;          // the sampler's threshold: 5 us (the chapter's default)
  std::string record;                  // replay: the record file (deter.rec of the record run)
  deter_clock clock = deter_clock::exact;   // record: true time, or the hosts' clocks in the clock layer
  uint64_t clock_error_ps = 0;         // replay: each host's clock off by uniform [0, this]
  uint64_t clock_seed = 1;             // its draws
  bool drop_rule = true;               // replay: tagged packets and the max - 5 MTU rule
};

class deter_recorder {
 public:
  deter_recorder(unsigned hosts, uint64_t th_ps);
  frame_tap& uplink(unsigned host) { return *up_[host]; }
  frame_tap& downlink(unsigned host) { return *down_[host]; }
  // The record at the end of the run (closes every open sample).
  deter_record finish(std::vector<std::pair<std::string, std::string>> settings);
  // What a full capture (tcpdump) at each host would take: every frame it sent or received, a
  // 16-byte pcap record header plus the frame, and the 24-byte file header.
  const std::vector<uint64_t>& pcap_bytes() const { return pcap_; }
  // deter.clock = "clock_layer": what host h's clock reads at true time t (null: true time). The
  // record takes a monotonic reading of it, as a host reads a counter that starts at 0: a clock
  // stepped back by a correction, or still behind its epoch, holds until it passes its last
  // reading.
  std::function<int64_t(unsigned host, uint64_t t_ps)> host_clock;
  uint64_t clock_error_max_ps() const { return clock_error_max_ps_; }   // |reading - true time|, largest seen

 private:
  struct sender {
    deter_connection_record rec;
    deter_sampler sampler;
    explicit sender(uint64_t th) : sampler(th) {}
  };
  struct receiver {
    uint64_t next = 0;          // the unwrapped IP_ID after the highest seen
    std::set<uint64_t> missing; // below `next`, not yet seen
    uint64_t received = 0, reordered = 0;
    std::vector<uint8_t> ce;
  };
  struct tap : frame_tap {
    deter_recorder& r;
    unsigned host;
    bool up;
    tap(deter_recorder& rec, unsigned h, bool u) : r(rec), host(h), up(u) {}
    void on_frame(const packet& p, uint64_t start_ps) override;
  };
  void sent(unsigned host, const packet& p, uint64_t start_ps);
  uint64_t host_time(unsigned host, uint64_t t_ps);
  void received(const packet& p);

  uint64_t th_ps_;
  std::vector<std::unique_ptr<tap>> up_, down_;
  std::map<uint64_t, sender> senders_;       // by deter_connection()
  std::map<uint64_t, receiver> receivers_;
  std::vector<uint64_t> pcap_;
  std::vector<uint64_t> last_read_;          // per host: its clock's last monotonic reading
  uint64_t clock_error_max_ps_ = 0;
};

}  // namespace netasic
