// First switch ASIC model: ingress lookup (exact match on destination, ECMP by CRC hash of the
// 5-tuple), output queues on a shared buffer with tail drop, pipeline latency in cycles of the
// switch clock. Store-and-forward: processing starts when the frame's last bit has arrived.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm_utils/simple_target_socket.h>

#include "common/crc.h"
#include "common/run_stats.h"
#include "switch/egress_queue.h"
#include "switch/route_table.h"
#include "tlm/packet_socket.h"

namespace netasic {

struct switch_config {
  uint64_t clock_period_ps = 1000;
  uint32_t pipeline_cycles = 0;      // parser to deparser, ingress and egress together
  uint64_t buffer_bytes = 0;         // shared packet buffer
  uint64_t queue_limit_bytes = 0;    // per egress queue; 0 = only the shared buffer limits
  unsigned hash_bits = 32;           // 16 or 32
  uint32_t hash_seed = 0;
  unsigned member_capacity = 4096;   // ECMP member table entries
};

class switch_model : public sc_core::sc_module, public pkt_receiver {
 public:
  std::vector<std::unique_ptr<pkt_initiator_socket>> tx;   // one per port
  std::vector<std::unique_ptr<pkt_target_socket>> rx;      // one per port
  tlm_utils::simple_target_socket<switch_model> csr;       // control-plane registers

  switch_model(sc_core::sc_module_name name, unsigned id, unsigned ports, unsigned hosts,
               const switch_config& cfg, run_stats& stats);

  void pkt_receive(unsigned port, packet& p, uint64_t now_ps) override;

  unsigned id() const { return id_; }
  unsigned ports() const { return unsigned(queue_.size()); }
  // Probes, at the current time t (never earlier than a previous call).
  uint64_t queue_depth(unsigned port, uint64_t t);
  uint64_t buffer_used(uint64_t t);
  uint64_t queue_peak(unsigned port) const { return queue_[port].peak_bytes(); }
  const drop_counters& drops() const { return drops_; }
  uint64_t pipeline_latency_ps() const { return cfg_.pipeline_cycles * cfg_.clock_period_ps; }

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void end_of_elaboration() override;
  static constexpr size_t tuple_bytes = 13;   // src IP, dst IP, protocol, src port, dst port
  uint32_t flow_hash(packet& p) const;
  void drop(packet& p, uint64_t drop_counters::*reason);

  unsigned id_;
  switch_config cfg_;
  run_stats& stats_;
  crc_engine hash_;
  uint32_t seed_term_ = 0;   // what this switch's seed adds to a zero-seed CRC of the 5-tuple
  route_table routes_;
  std::vector<pkt_fw_transport_if*> tx_if_;   // tx[p]'s bound link (null: no cable)
  std::vector<egress_queue> queue_;
  shared_buffer buffer_;
  drop_counters drops_;
};

}  // namespace netasic
