// How a fabric carries the clock layer's sync-messages: send_sync queues one at `node`'s `port`
// now (the fabric stamps it at egress with clock_layer::stamp and hands it to the receiver with
// clock_layer::arrive).
#pragma once
#include <cstdint>

#include "protocol/headers.h"

namespace netasic {

class sync_transport {
 public:
  virtual ~sync_transport() = default;
  virtual void send_sync(uint32_t node, uint32_t port, const sync_header& m) = 0;
};

}  // namespace netasic
