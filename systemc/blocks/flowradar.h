// FlowRadar's encoded flowset (core, no SystemC): Li's thesis ch. 4 (FlowRadar), Fig. 4.2, Alg. 6.
//
//   flow filter    Bloom filter, m_f bits, k_f hashes, partitioned: hash i owns its own slice of
//                  m_f / k_f bits (one register array per hash, one access per packet each: the
//                  slice in 32-bit words, test-and-set by flowradar_filter())
//   counting table m_c cells, k_c hashes, partitioned alike: hash i owns cells [off_i, off_i+s_i)
//                  cell = FlowXOR (the 5-tuple, 104 bits), FlowCount, PacketCount
//
// Per packet (Alg. 6): test-and-set the k_f filter bits; the flow is new when any was 0. Then in
// each of its k_c cells: a new flow XORs its 5-tuple into FlowXOR and adds 1 to FlowCount; every
// packet adds 1 to PacketCount.
//
// The cells live on stateful ALUs (blocks/stateful_alu.*), per hash i:
//   cell array   dual, width w_f = FlowCount width: lo = FlowXOR bytes [0, w_f/8), hi = FlowCount
//                (flowradar_cell(): both change only when phv_b says "new flow")
//   lane arrays  single word: the rest of the 5-tuple in 32-bit slices, the last one 8, 16 or 32
//                bits wide (flowradar_xor())
//   count array  single word, width w_p = PacketCount width (flowradar_packet_count())
// Counters wrap at 2^w as the adders do; the scenario reader refuses widths too small for the
// configured flows and packets.
//
// Hashes: a seeded 64-bit mixer per hash and per switch (the seed), independent across hashes
// and switches, so neighbouring switches' tables collide differently (FlowDecode needs that).
//
// Two banks (§4.3): one is updated while the other is exported; swap() ends an epoch.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "blocks/stateful_alu.h"

namespace netasic {

// The flow as FlowXOR holds it: the 5-tuple, 13 bytes (src IP, dst IP, protocol, src port, dst
// port; crc_hash's flow_key order).
constexpr unsigned flowradar_flow_bytes = 13;
using flowradar_flow = std::array<uint8_t, flowradar_flow_bytes>;

struct flowradar_params {
  uint32_t filter_bits = 65536;       // m_f
  unsigned filter_hashes = 4;         // k_f
  uint32_t cells = 4096;              // m_c
  unsigned cell_hashes = 3;           // k_c
  unsigned flow_count_bits = 16;      // FlowCount: 8, 16 or 32
  unsigned packet_count_bits = 32;    // PacketCount: 8, 16 or 32
  uint64_t seed = 0;                  // per switch: its hashes differ from its neighbours'
};

// Throws std::invalid_argument naming the field: zero cells or hashes, fewer cells (bits) than
// hashes, widths other than 8, 16, 32.
void flowradar_check(const flowradar_params& p);

// Slices: hash i of a partitioned table of n entries over k hashes owns [offset, offset + size).
uint32_t flowradar_slice_size(uint32_t n, unsigned k, unsigned i);
uint32_t flowradar_slice_offset(uint32_t n, unsigned k, unsigned i);
// The cell (global index into the m_c cells) and the filter bit (into m_f) of hash i.
uint32_t flowradar_cell_index(const flowradar_params& p, const flowradar_flow& f, unsigned i);
uint32_t flowradar_filter_index(const flowradar_params& p, const flowradar_flow& f, unsigned i);

struct flowradar_cell {
  flowradar_flow flow_xor{};
  uint32_t flow_count = 0;
  uint32_t packet_count = 0;
  bool operator==(const flowradar_cell& o) const {
    return flow_xor == o.flow_xor && flow_count == o.flow_count && packet_count == o.packet_count;
  }
};

// One bank as the collector receives it.
struct flowradar_table {
  flowradar_params params;
  std::vector<uint64_t> filter;       // m_f bits, bit b in word b / 64
  std::vector<flowradar_cell> cells;  // m_c
  bool filter_has(const flowradar_flow& f) const;
  // Bytes on the wire to export it: filter bits and cells packed, in UDP/IPv4 frames of at most
  // 1500 bytes (1472 payload bytes + 46 bytes of Ethernet, IPv4, UDP and FCS each).
  uint64_t export_bytes() const;
  // The same export frame by frame: each frame's bytes on the wire, in order.
  std::vector<uint32_t> export_frames() const;
};

// Bits of one cell as stored: the FlowXOR slices (rounded up to the ALU word widths), FlowCount,
// PacketCount.
unsigned flowradar_cell_bits(const flowradar_params& p);

// One bank on its stateful ALUs.
class flowradar_flowset {
 public:
  explicit flowradar_flowset(const flowradar_params& p);
  // Alg. 6 for one packet of flow f; true when the filter saw it as new.
  bool update(const flowradar_flow& f);
  flowradar_table read() const;       // the control plane reads the bank out
  void clear();
  const flowradar_params& params() const { return p_; }
  uint64_t memory_bits() const;       // filter bits + every ALU array's words
  unsigned alus_per_hash() const { return unsigned(lanes_.size()) + 2; }   // cell, lanes, count

 private:
  struct lane { unsigned byte, bytes; };   // a FlowXOR slice: bytes [byte, byte + bytes)
  static uint32_t slice(const flowradar_flow& f, const lane& l);

  flowradar_params p_;
  std::vector<std::unique_ptr<stateful_alu_if>> filter_;   // one per filter hash: its slice in 32-bit words
  std::vector<lane> lanes_;                       // the slices past the cell array's lo
  // The ALUs' register arrays: the core, or their RTL under `--rtl stateful_alu`.
  std::vector<std::unique_ptr<stateful_alu_if>> cell_, count_;        // one per hash
  std::vector<std::vector<std::unique_ptr<stateful_alu_if>>> lane_alu_;   // [hash][lane]
  uint64_t pass_ = 0;
};

// The two banks of a switch (or port): update the live one; swap() returns it and makes the
// other (cleared) one live.
class flowradar {
 public:
  explicit flowradar(const flowradar_params& p) : bank_{flowradar_flowset(p), flowradar_flowset(p)} {}
  bool update(const flowradar_flow& f) { return bank_[live_].update(f); }
  flowradar_table swap();
  const flowradar_flowset& live() const { return bank_[live_]; }

 private:
  flowradar_flowset bank_[2];
  unsigned live_ = 0;
};

}  // namespace netasic
