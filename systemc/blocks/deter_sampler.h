// DETER's rate-based sending-time sampler (core, no SystemC): Algorithm 12 of the DETER chapter
// (thesis ch. 6, §6.3.3). A connection's packets arrive in index order with their sending times;
// the sampler keeps the last sample s (index, time) and the range of rates that place every packet
// since s within +-th of its true time. A packet that empties the range closes s: the sampler
// records (s.index, s.time, mid rate) and starts a new sample at that packet.
//
// Rates are in picoseconds per packet index as fixed point with `rate_frac_bits` fraction bits,
// and a packet's time is rebuilt as s.time + floor(k * rate / 2^frac) with k = index - s.index.
// The range is kept in that same integer arithmetic, so the +-th bound holds exactly (no rounding
// slack): a rate r in [ceil((t-th-s)*2^f/k), floor((t+th-s)*2^f/k)] gives floor(k*r/2^f) in
// [t-th-s, t+th-s]. With th = 0 a sample covers exactly the packets on one line.
#pragma once
#include <cstdint>
#include <vector>

namespace netasic {

struct deter_sample {
  uint64_t index = 0;     // packet index within the connection
  uint64_t time_ps = 0;   // its sending time, exact
  uint64_t rate = 0;      // ps per index, fixed point (deter_sampler::rate_frac_bits)
};

class deter_sampler {
 public:
  static constexpr unsigned rate_frac_bits = 16;
  explicit deter_sampler(uint64_t th_ps) : th_(int64_t(th_ps)) {}

  // The next packet: indices strictly increasing, times not decreasing.
  void add(uint64_t index, uint64_t time_ps);
  // Closes the open sample (call once, after the last packet).
  void finish();
  const std::vector<deter_sample>& samples() const { return samples_; }
  uint64_t packets() const { return packets_; }

  // The inferred time of packet `index` from a connection's samples (sorted by index; the
  // first sample at or before `index` is used).
  static uint64_t time_of(const std::vector<deter_sample>& s, uint64_t index);
  // The same for every index 0..count-1 of a connection whose packets are consecutive from
  // s.front().index, in one pass.
  static std::vector<uint64_t> times(const std::vector<deter_sample>& s, uint64_t first, uint64_t count);

 private:
  void close();
  int64_t th_;
  bool open_ = false;
  deter_sample s_;
  int64_t lo_ = 0, hi_ = INT64_MAX;   // feasible rates; hi_ = INT64_MAX: no packet after s yet
  uint64_t packets_ = 0;
  std::vector<deter_sample> samples_;
};

}  // namespace netasic
