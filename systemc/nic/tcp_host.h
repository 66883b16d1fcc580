// The TCP host (nic.transport = "tcp"): a host's TCP connections on one port, beside the RoCEv2
// NIC (nic/host.*) as the other transport the fabric can build. See docs/datasheets/tcp_host.md.
//
// - Each flow is one connection, established at its start and done when its last byte is
//   acknowledged: the sender core (nic/tcp/tcp_sender.*) at the source decides when segments
//   leave, the receiver core (nic/tcp/tcp_receiver.*) at the destination when ACKs do.
// - Frames are TCP/IPv4 (ip.protocol 6): the flow's ephemeral source port, server port 5001,
//   wrapped 32-bit sequence numbers, ECE/CWR, the window field scaled by the smallest shift that
//   fits tcp.rwnd (RFC 7323 window scaling, taken as agreed at the handshake), and a consecutive
//   IPv4 identification per connection and direction.
// - The host sends at line rate whenever a connection's window allows: one segment per frame
//   time, connections served round-robin, ACKs ahead of data; it honours PFC as the RoCEv2 NIC.
// - Timers: each connection's retransmission and delayed-ACK timers are one wake-up on the
//   fabric's event queue at the earlier of the two.
// - Host processing delay (tcp.host_delay, tcp.host_jitter): each data segment leaves at
//   max(wire free, its line-rate time + max(0, delay + N(0, sigma))), the host keeping its pace;
//   DETER thesis ch. 6 section 6.2 (the butterfly effect).
#pragma once
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "common/rng.h"
#include "nic/endpoint.h"
#include "nic/host.h"
#include "nic/tcp/tcp_receiver.h"
#include "nic/tcp/tcp_sender.h"
#include "tlm/event_queue.h"

namespace netasic {

class tcp_host : public nic_endpoint, private timed_client {
 public:
  static constexpr uint16_t server_port = 5001;
  tcp_host(sc_core::sc_module_name name, const nic_config& cfg, run_stats& stats, std::vector<flow_ctx>& flows,
           event_queue& events);
  void start_flow(uint32_t flow) override;
  void pkt_receive(unsigned port, packet& p, uint64_t now_ps) override;
  // The shift of the window field: tcp.rwnd >> shift fits 16 bits.
  static unsigned window_shift(uint64_t rwnd_bytes);

 private:
  // This host's end of one connection: the sender at the source, the receiver at the destination.
  struct conn : timed_client {
    conn(tcp_host& h, uint32_t f) : host(h), flow(f) {}
    tcp_host& host;
    uint32_t flow;
    std::unique_ptr<tcp_sender> snd;
    std::unique_ptr<tcp_receiver> rcv;
    timer t;
    uint16_t ack_ip_id = 0;    // the ACKs' IPv4 identification
    void wake(uint64_t now) override { host.on_timer(*this, now); }
  };
  conn& conn_of(uint32_t flow);
  void try_send();
  void wake(uint64_t now) override;   // the wire is free again
  void arm(uint64_t at);
  packet* make_segment(conn& c, const tcp_segment& s, uint64_t now);
  void on_data(flow_ctx& f, packet& p, uint64_t now);
  void on_ack(flow_ctx& f, packet& p, uint64_t now);
  void send_ack(conn& c, const flow_ctx& f, const tcp_ack& a, uint64_t now);
  void finish(conn& c, flow_ctx& f, uint64_t now);
  void on_timer(conn& c, uint64_t now);
  void rearm(conn& c);
  uint64_t processing_delay(uint32_t self);

  nic_config cfg_;
  run_stats& stats_;
  std::vector<flow_ctx>& flows_;
  event_queue& events_;
  unsigned wshift_;
  std::unordered_map<uint32_t, std::unique_ptr<conn>> conns_;
  std::vector<conn*> active_;        // connections with data not yet acknowledged
  size_t rr_ = 0;
  uint64_t pace_ps_ = 0;             // when the next data frame would leave without processing delay
  uint64_t last_delay_ps_ = 0;       // the processing delay of the last data frame sent
  std::optional<rng> jitter_;        // tcp.host_jitter's draws, seeded at the first data segment
  timer wake_;
};

}  // namespace netasic
