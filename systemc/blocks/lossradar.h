// LossRadar's traffic digest (Li et al., "LossRadar", CoNEXT'16; thesis ch. 5): an invertible
// Bloom filter of n_cell cells (xorSum of packet signatures, count) with k hash functions. A
// meter keeps one digest per live batch; the collector subtracts the downstream meter's digest
// from the upstream one's and peels the pure cells to list the packets lost in between (§5.3.1).
// Plain C++, no SystemC: the core the meters in the fabric and the unit tests share.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "blocks/stateful_alu.h"
#include "protocol/packet.h"

namespace netasic {

enum class lossradar_sig_kind : uint8_t {
  basic,      // 120 bits: 104-bit 5-tuple + 16-bit IP_ID (§5.3.2)
  extended,   // + 16 bits: TCP SYN, TTL non-zero, 14-bit us timestamp at the upstream meter
};

// The loss analyzer's parameters: Table 5.3's defaults (thesis §5.7.3).
struct lossradar_analyzer_params {
  uint64_t t_gap_ps = 20'000'000;          // back-to-back losses closer than this are one burst
  uint32_t n_burst = 5;                    // losses that make a burst
  uint32_t n_bb = 30;                      // a flow's consecutive losses in a burst: a bursty black hole
  uint32_t n_nb = 5;                       // a flow's consecutive losses over the interval: a non-bursty black hole
  double p_syn = 0.9;                      // SYN share of the rest above which the SYNs are a black hole
  double p_rand = 0.5;                     // share of non-empty bins above which the rest is random
  uint64_t long_term_ps = 100'000'000'000; // long_term_interval of Algorithm 11
};

struct lossradar_config {
  bool on = false;                         // telemetry.lossradar
  uint32_t cells = 96;                     // n_cell per digest (a multiple of hashes)
  uint32_t hashes = 3;                     // k (the P4 implementation's 3)
  uint64_t batch_ps = 10'000'000'000;      // T: an upstream meter's batch
  uint64_t timeout_ps = 1'000'000'000;     // a downstream batch lives T + timeout
  lossradar_sig_kind sig = lossradar_sig_kind::extended;
  lossradar_analyzer_params analyzer;
  // Blackbox (incremental) deployment, §5.4.2: by switch index, 1 = no meters in this switch
  // (telemetry.lossradar_blackbox). Empty: every switch has its meters.
  std::vector<char> blackbox;
};

// A packet's signature. a: source and destination IPv4; b: ports, protocol, IP_ID; ext: the
// extended bits (zero for basic).
struct lossradar_sig {
  uint64_t a = 0, b = 0;
  uint16_t ext = 0;
  bool operator==(const lossradar_sig& o) const { return a == o.a && b == o.b && ext == o.ext; }
  bool operator!=(const lossradar_sig& o) const { return !(*this == o); }
  bool operator<(const lossradar_sig& o) const { return a != o.a ? a < o.a : b != o.b ? b < o.b : ext < o.ext; }
  void flip(const lossradar_sig& o) { a ^= o.a; b ^= o.b; ext ^= o.ext; }
  bool zero() const { return !a && !b && !ext; }
  // Fields back out of the signature.
  uint32_t src() const { return uint32_t(a >> 32); }
  uint32_t dst() const { return uint32_t(a); }
  uint16_t sport() const { return uint16_t(b >> 48); }
  uint16_t dport() const { return uint16_t(b >> 32); }
  uint8_t proto() const { return uint8_t(b >> 16); }
  uint16_t ip_id() const { return uint16_t(b); }
  bool syn() const { return ext >> 15 & 1; }
  bool ttl_nonzero() const { return ext >> 14 & 1; }
  uint16_t stamp_us() const { return ext & 0x3FFF; }
};

// The signature of `p` as a meter inserts it. `stamp_us`: the upstream meter's timestamp
// carried in the packet (extended only, 14 bits: 2^14 us > one 10 ms batch).
// The extended TTL bit: both meters of a segment insert the TTL as it is after the downstream
// switch's decrement, so they agree (the thesis's downstream meter adds h instead, §5.6).
// `decrements_ahead`: 1 at an upstream meter whose link leads to a switch, else 0. A packet that
// switch drops for TTL (drops.ttl_expired: a loop) is lost with the bit 0.
lossradar_sig lossradar_signature(const packet& p, lossradar_sig_kind kind, unsigned decrements_ahead);

struct lossradar_cell {
  lossradar_sig xor_sum;
  uint32_t count = 0;   // wraps as a 32-bit register does; a difference stays exact below 2^32
};

struct lossradar_peel {
  std::vector<lossradar_sig> losses;   // every one is a packet of the difference, never a wrong one
  bool complete = false;               // the difference peeled to empty: `losses` is all of it
  uint64_t undecoded = 0;              // packets left in the cells when peeling stopped
};

// One digest: cells split into k equal parts, hash i indexing part i, so a packet's k cells are
// always distinct (a packet XORed twice into one cell would vanish from it).
class lossradar_digest {
 public:
  lossradar_digest() = default;
  // cells: a multiple of hashes; seed: the hash functions' (the same at both ends of a segment).
  lossradar_digest(unsigned cells, unsigned hashes, uint64_t seed);
  void insert(const lossradar_sig& s);
  // Cell by cell: xorSum ^= o.xorSum, count -= o.count (upstream minus downstream, §5.3.1).
  void subtract(const lossradar_digest& o);
  // Cell by cell: xorSum ^= o.xorSum, count += o.count (the blackbox sums, §5.4.2).
  void add(const lossradar_digest& o);
  // Peels a copy: takes pure cells (count 1 whose xorSum hashes back to the cell), removes
  // that packet from its k cells, until none is left.
  lossradar_peel peel() const;
  // Packets in a difference: the sum of its counts over k (each packet counts in k cells).
  uint64_t packets() const;
  bool empty() const;
  void clear();
  unsigned cells() const { return unsigned(cells_.size()); }
  unsigned hashes() const { return k_; }
  unsigned index(const lossradar_sig& s, unsigned i) const;   // the cell of hash i
  const std::vector<lossradar_cell>& raw() const { return cells_; }
  void set(unsigned i, const lossradar_cell& c) { cells_.at(i) = c; }
  bool operator==(const lossradar_digest& o) const;

 private:
  std::vector<lossradar_cell> cells_;
  unsigned k_ = 0, part_ = 0;
  uint64_t seed_ = 0;
};

// A meter's digest as the switch holds it: register arrays on stateful ALUs, one set per hash
// (hash i's part of the cells), each packet one pass of k x (3 or 4) register actions:
//   cell   dual, 32-bit: lo = xorSum's word 0 (a's low half), hi = count   (lossradar_cell())
//   lanes  single, 32-bit: a's high half, b's low and high halves; with the extended signature
//          a 16-bit one for ext                                          (lossradar_xor())
// The cell indices are lossradar_digest's (the same hash functions). read() is the control
// plane reading a batch out for the collector; clear() zeroes it for the batch after next.
class lossradar_meter_digest {
 public:
  lossradar_meter_digest(unsigned cells, unsigned hashes, uint64_t seed, lossradar_sig_kind kind);
  void insert(const lossradar_sig& s);
  lossradar_digest read() const;
  void clear();
  uint64_t memory_bits() const;       // every ALU array's words

 private:
  lossradar_digest shape_;            // the hash functions; its own cells stay empty
  unsigned part_;
  // [hash]: the cell array, then the lanes. The ALUs' core, or their RTL under --rtl stateful_alu.
  std::vector<std::vector<std::unique_ptr<stateful_alu_if>>> alu_;
  uint64_t pass_ = 0;
  bool touched_ = false;              // a packet since the last clear (an idle digest is not read out)
};

// The meters a switch updates at the end of its ingress, before the shared buffer (§5.4.1):
// the downstream meter of the port the packet came in on and the upstream meter of the port it
// leaves by. The upstream meter stamps its batch (and timestamp) into the packet.
class lossradar_switch_hook {
 public:
  virtual ~lossradar_switch_hook() = default;
  virtual void ingress_end(unsigned sw, unsigned in_port, unsigned out_port, packet& p, uint64_t now_ps) = 0;
};

}  // namespace netasic
