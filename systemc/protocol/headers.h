// Header structs at their real bit widths. The model reads and writes fields; the byte size on
// the wire comes from the *_bytes constants, never from sizeof() of these structs.
#pragma once
#include <cstdint>

namespace netasic {

struct eth_header {                 // IEEE 802.3, without preamble/SFD (counted by the link)
  uint64_t dst_mac : 48;
  uint64_t src_mac : 48;
  uint16_t ethertype;               // 0x0800 IPv4, 0x8808 MAC control (PFC)
  static constexpr uint32_t bytes = 14;
  static constexpr uint32_t fcs_bytes = 4;
  static constexpr uint32_t min_frame_bytes = 64;   // including FCS
};

struct ipv4_header {                // RFC 791, no options
  uint8_t version : 4;
  uint8_t ihl : 4;
  uint8_t dscp : 6;
  uint8_t ecn : 2;                  // RFC 3168: 0 not-ECT, 1/2 ECT, 3 CE
  uint16_t total_length;
  uint16_t identification;
  uint16_t flags : 3;
  uint16_t fragment_offset : 13;
  uint8_t ttl = initial_ttl;        // each switch decrements it; a fresh packet starts here
  uint8_t protocol;                 // 17 = UDP (RoCEv2), 6 = TCP
  uint16_t checksum;
  uint32_t src;
  uint32_t dst;
  static constexpr uint32_t bytes = 20;
  static constexpr uint8_t proto_tcp = 6, proto_udp = 17;
  static constexpr uint8_t initial_ttl = 64;   // what hosts and switches send (the Linux default)
};

struct udp_header {                 // RFC 768
  uint16_t src_port;
  uint16_t dst_port;                // 4791 = RoCEv2
  uint16_t length;
  uint16_t checksum;
  static constexpr uint32_t bytes = 8;
  static constexpr uint16_t rocev2_port = 4791;
};

struct tcp_header {                 // RFC 9293, no options; ECE/CWR per RFC 3168
  uint16_t src_port;
  uint16_t dst_port;
  uint32_t seq;                     // first payload byte (wraps at 2^32)
  uint32_t ack;                     // next byte expected, valid with flag_ack
  uint8_t data_offset : 4;          // 5: no options
  uint8_t flags;                    // CWR ECE URG ACK PSH RST SYN FIN, high bit first
  uint16_t window;                  // receive window, bytes (no window scaling)
  uint16_t checksum;
  uint16_t urgent;
  static constexpr uint32_t bytes = 20;
  static constexpr uint8_t flag_fin = 0x01, flag_syn = 0x02, flag_rst = 0x04, flag_psh = 0x08,
                           flag_ack = 0x10, flag_urg = 0x20, flag_ece = 0x40, flag_cwr = 0x80;
};

struct rocev2_bth {                 // InfiniBand Base Transport Header (IBA vol. 1, 9.2)
  uint8_t opcode;                   // 0x0A RC WRITE ONLY, 0x11 RC ACKNOWLEDGE
  uint8_t solicited : 1;
  uint8_t mig_req : 1;
  uint8_t pad_count : 2;
  uint8_t tver : 4;
  uint16_t pkey;
  uint8_t fecn : 1;
  uint8_t becn : 1;
  uint8_t resv6 : 6;
  uint32_t dest_qp : 24;
  uint8_t ack_req : 1;
  uint8_t resv7 : 7;
  uint32_t psn : 24;                // packet sequence number, wraps at 2^24
  static constexpr uint32_t bytes = 12;
  static constexpr uint32_t icrc_bytes = 4;
  static constexpr uint32_t aeth_bytes = 4;   // ACK extended header (syndrome + MSN) on ACK/NAK
  static constexpr uint32_t cnp_reserved_bytes = 16;   // a CNP carries 16 reserved bytes after the BTH
};

// HPCC's INT padding (Li et al., SIGCOMM'19, Fig. 4 / thesis Fig. 2.7): between UDP and BTH.
struct int_hop {
  uint8_t b : 4;                    // egress port speed type
  uint32_t ts : 24;                 // egress timestamp, wraps
  uint32_t tx_bytes : 20;           // cumulative bytes sent by the egress port, 128-byte units, wraps
  uint16_t qlen;                    // egress queue length, 80-byte units
  static constexpr uint32_t bytes = 8;
  static constexpr uint32_t tx_bytes_unit = 128;
  static constexpr uint32_t qlen_unit = 80;
};

struct int_stack {
  static constexpr uint32_t max_hops = 5;
  uint8_t n_hop : 4;                // 0 at the sender, +1 per switch
  uint16_t path_id : 12;            // XOR of the 12-bit switch IDs on the path
  int_hop hop[max_hops];
  // The padding is reserved for max_hops whatever n_hop is (HPCC's 42 bytes).
  static constexpr uint32_t bytes = 2 + max_hops * int_hop::bytes;
};

}  // namespace netasic

namespace netasic {

// CONGA's fields in the overlay (VXLAN) header between leaves; see systemc/blocks/conga.h.
struct conga_header {
  uint8_t lbtag = 0;       // source leaf uplink (LBTag)
  uint8_t ce = 0;          // path congestion so far (CE)
  bool fb_valid = false;   // FB_LBTag / FB_Metric carry a metric (model: see the datasheet)
  uint8_t fb_lbtag = 0;
  uint8_t fb_metric = 0;
};

// IEEE 802.1Qbb priority-based flow control frame (MAC control, opcode 0x0101), padded to the
// 64-byte minimum. A quantum is 512 bit times at the port's rate; 0 resumes at once.
struct pfc_frame {
  static constexpr uint16_t ethertype = 0x8808, opcode = 0x0101;
  uint8_t class_enable;             // bit per priority whose time field applies
  uint16_t quanta[8];
  static constexpr uint32_t bytes = 64;
  static constexpr uint32_t quantum_bits = 512;
};

// Host addresses: host h is 10.0.0.0/8 plus h, so an address's low 24 bits name its host.
constexpr uint32_t host_ip(uint32_t host) { return 0x0A000000u | host; }
constexpr uint32_t host_of_ip(uint32_t ip) { return ip & 0x00FFFFFFu; }

// The UDP port of FlowRadar's bank exports (switch to collector host), "FR".
constexpr uint16_t flowradar_export_port = 0x4652;

// A clock-synchronisation message (Sundial's sync-message (thesis §3.4.1.1), or a PTP-like baseline's),
// handled by the clock unit beside the MAC: it skips the packet pipelines at both ends. The
// timestamp is taken at egress, as the frame's first bit goes onto the wire. `epoch` and
// `root_sent_ps` are the model's instrumentation (whose time it carries, sent when), not wire
// fields.
struct sync_header {
  uint8_t algorithm = 0;            // index into the run's clock algorithms
  uint32_t sender = 0;              // topology node
  uint32_t epoch = 0;               // the root node the carried time comes from
  uint64_t root_sent_ps = 0;
  int64_t timestamp_ps = 0;         // the sender's clock at egress
};

}  // namespace netasic
