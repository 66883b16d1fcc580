// A tap on one direction of a link: sees every frame the transmitter puts on the wire, at its
// start time, as a port mirror or an optical splitter would. Used by the writers and recorders
// that watch traffic (a pcap capture, DETER's host recorder); null on an untapped link.
#pragma once
#include <cstdint>

#include "protocol/packet.h"

namespace netasic {

class frame_tap {
 public:
  virtual ~frame_tap() = default;
  // `start_ps`: the first bit of the preamble leaves the transmitter.
  virtual void on_frame(const packet& p, uint64_t start_ps) = 0;
};

}  // namespace netasic
