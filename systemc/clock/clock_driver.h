// The clock layer inside a fabric run: the clock_layer stepped by the fabric's event queue, its
// sync-messages carried as frames (pkt_kind::sync) by the switches and links, and Sundial's
// register blocks live on the register bus (switches and NICs).
//
// A switch queues a sync-message in its traffic manager at clock.priority (a strict priority),
// so data never delays it past the frame on the wire; the frame is stamped as it starts on the
// wire (stamp) and taken by the receiver's clock unit beside the MAC once its last bit is in
// (receive), before any packet pipeline. Hosts only receive: they are the tree's leaves.
#pragma once
#include <functional>

#include "clock/clock_network.h"
#include "tlm/event_queue.h"

namespace netasic {

class clock_driver final : public timed_client, private sync_transport {
 public:
  clock_driver(const topology& topo, const clock_network_config& cfg, event_queue& events);

  // Queue a sync frame at switch node `node`'s port (set by the fabric).
  std::function<void(uint32_t node, uint32_t port, const sync_header& m)> send;

  // Device side.
  void stamp(sync_header& m, uint64_t egress_ps) const { m.timestamp_ps = layer_.stamp(m, egress_ps); }
  int64_t local_ps(uint32_t node, uint64_t t_ps) const { return layer_.local_ps(node, t_ps); }
  void receive(uint32_t node, uint32_t port, const sync_header& m, uint64_t now_ps);
  void register_write(const sundial_reg_write& w) { layer_.register_write(w); }
  uint32_t sundial_state(uint32_t node) const { return layer_.sundial_state(node); }
  // Controller side.
  void sundial_programmed(size_t fault, uint64_t now_ps);
  uint32_t root_node() const { return layer_.root_node(); }
  size_t faults() const { return layer_.faults(); }
  uint64_t fault_at_ps(size_t i) const { return layer_.fault_at_ps(i); }
  std::vector<unsigned> fault_links(size_t i) const { return layer_.fault_links(i); }
  void sample(uint64_t now_ps);
  // Runs what is due by now; the first call (t = 0, after the controller's first programming)
  // starts the layer.
  void advance(uint64_t now_ps);
  clock_result finish(uint64_t end_ps) { return layer_.finish(end_ps); }

 private:
  void wake(uint64_t now_ps) override;
  void send_sync(uint32_t node, uint32_t port, const sync_header& m) override { send(node, port, m); }
  void rearm();

  clock_layer layer_;
  event_queue& events_;
  timer wake_;
};

}  // namespace netasic
