// The TCP host's configuration (core, no SystemC): which transport a NIC runs, and TCP's
// congestion control, timers and windows. Keys: scenario/tcp_keys.cpp.
#pragma once
#include <cstdint>

namespace netasic {

enum class nic_transport : uint8_t { roce, tcp };
enum class tcp_cc : uint8_t { newreno, dctcp, cubic };

struct tcp_config {
  tcp_cc cc = tcp_cc::newreno;
  uint32_t mss_bytes = 1000;                  // payload bytes per segment: nic.mtu
  uint32_t init_cwnd_segments = 10;           // RFC 6928's IW10
  uint64_t rto_min_ps = 200'000'000'000ull;   // Linux's TCP_RTO_MIN, 200 ms (RFC 6298 (2.4) says 1 s)
  uint64_t rto_initial_ps = 1'000'000'000'000ull;   // RFC 6298 (2.1): 1 s before the first RTT sample
  uint64_t rto_max_ps = 60'000'000'000'000ull;      // RFC 6298 (2.5): at least 60 s
  uint64_t delack_ps = 40'000'000'000ull;     // Linux's delayed-ACK timer, 40 ms; 0 = an ACK per segment
  uint64_t rwnd_bytes = 1 << 20;              // the receive window every receiver advertises
  bool ecn = false;                           // RFC 3168 ECN (always on with DCTCP)
  double dctcp_g = 1.0 / 16;                  // RFC 8257 section 4.2: g = 1/16
  double cubic_beta = 0.7;                    // RFC 9438 section 4.6: beta_cubic
  double cubic_c = 0.4;                       // RFC 9438 section 5: C, segments per second cubed
  // Host processing delay of each data segment, delay + N(0, jitter) clamped at 0 (DETER ch. 6 section 6.2's
  // butterfly effect: 10 us +- sigma); both 0 = none. jitter_seed seeds the draws alone.
  uint64_t host_delay_ps = 0;
  uint64_t host_jitter_ps = 0;                // the normal's sigma
  uint64_t jitter_seed = 1;
  bool ecn_capable() const { return ecn || cc == tcp_cc::dctcp; }
};

}  // namespace netasic
